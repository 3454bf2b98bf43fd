"""The TCEC Swiss as a pairing system: Monrad pairing in double rounds with equal-distance
seeded groups (tcec-rules "TCEC Swiss rules" 1–2).

`propose(ctx)` returns the next `RoundScheduled` of the Swiss; a pure function of the
`PairingContext` of its stage.

Double rounds (Swiss 1.b, 2.b). "Each pair will play a double round, so each engine plays the
other once with each color, reversing the opening in the second game." The decider refuses a
player twice in a round, so double round d is two stage rounds: 2d − 1 (the pairing) and 2d
(the return games: the same pairs, colours reversed, the same `pair_id` and the same opening).
12 double rounds (1.b) are 24 rounds; `TournamentCreated.rounds`, when set, counts stage rounds
(as the TCEC match machines do) and must be even. The pairing for round 2d − 1 waits for every
result of the stage (the scores decide it); round 2d needs none (it is fixed by 2d − 1).

Seeding (Swiss 1.c, 1.d). The organisers seed the engines (`PlayerRegistered.seed`, the last
Swiss's winner seeded 1 when it plays, 1.d); the initial ranking is by seed, players without one
after the seeded ones in registration order. It orders the ranking within a score (below) and
gives the bye of round 1.

Seeded groups (Swiss 2.a). "The participating engines will be equal-distance group-seeded into a
number of sections, each consisting of a minimum of 5 to a maximum of 7 engines, leading to the
first round of Monrad system pairing. The exact order, number, and the size of, these pairing
groups will be determined by the tournament organizers". The organisers' decision is an event:
`RulingIssued(subject="monrad-groups", decision={"groups": [[player ids], ...]})` (the latest in
force), the groups in their order, each group's engines in their order; every engine of round 1
in exactly one group, each group of 5 to 7 (2.a). Without it round 1 is refused.

Reading of the groups: they shape round 1 only ("leading to the first round"). Round 1 pairs
the groups two by two in their order, group 1 with group 2, group 3 with group 4, ..., the k-th
engine of one with the k-th engine of the other: every pairing spans the same distance, one
group (with consecutive seed blocks of 7, seed 1 meets 8, 2 meets 9; the TCEC Swiss Tournament
System page that 2.d cites gives this example, "Group size 7 would pair 1st-8th, 2nd-9th").
With an odd number of players the lowest-ranked engine (by seed) takes the bye first and leaves
its group. Engines left without a partner (the surplus of the larger group of two, and a last
group without a partner group) are paired among themselves at equal distance too: ordered by
seed, the i-th of the top half meets the i-th of the bottom half.

Monrad pairing (Swiss 2.d). The detailed procedure is on the "TCEC Swiss Tournament System" page
that 2.d cites and the seed does not include; we use the standard Monrad system (the Danish
Monrad system as the Norwegian Chess Federation's "Monradsystemet" rules describe it, which the
TCEC page names as its model; also Wikipedia, "Swiss-system tournament", Monrad): from double
round 2 on, rank the engines by score (points in force, byes included), then by initial seed;
take the highest-ranked engine not yet paired and pair it with the next engine down the ranking
it has not met; repeat down the list. If the engines left at the bottom cannot be paired without
a rematch, the last choice made above is undone and the next eligible opponent taken
(backtracking, so the pairing is the first in this top-down order with no rematch at all; when
the greedy choice works it is that). With an odd number the bye goes to the lowest-ranked engine
that has not had one (standard Monrad; the next one up if the rest then cannot be paired), for
both games of the double round; a pairing-allocated bye scores as a win (`Scoring.bye`; the TCEC
page: "The BYE games are scored as wins").

Colours (reading): the rules only say each engine plays each colour once per double round (2.b);
the lower seed of a pair (larger seed number) is White in the first game, as in the Cup (Cup
3.b) and FRD (FRD 2.b). Boards are numbered by the pairing order (board 1 the top pair).
Openings are the book exits drawn outside Arbiter (2.c, 4.a): the first game is proposed without
one; the return game repeats the first game's opening when it was scheduled with one (2.b).

Ids: game `<stage>-r<round>-b<board>`, pair `<stage>-d<double round>-b<board>`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from events_schema import events as ev
from projections.mentions import who
from projections.pairing.base import (
    PairingContext,
    PairingRefused,
    PairingSystem,
    PlayerHistory,
    Proposal,
    ranked_by_seed,
    require_finished,
)

name = "monrad"

#: Swiss 1.b: "an 12 Double Rounds Swiss tournament".
DOUBLE_ROUNDS = 12
#: Swiss 2.a: the organisers' groups, as a ruling on this subject.
GROUPS_SUBJECT = "monrad-groups"
#: Swiss 2.a: "a minimum of 5 to a maximum of 7 engines".
GROUP_MIN, GROUP_MAX = 5, 7

Pair = tuple[str, str]


def total_rounds(ctx: PairingContext) -> int:
    """Stage rounds of the Swiss: twice the double rounds (Swiss 1.b, 2.b)."""
    rounds = ctx.created.rounds
    if rounds is None:
        return 2 * DOUBLE_ROUNDS
    if rounds % 2:
        raise PairingRefused(
            "tcec-swiss.rounds",
            "rounds",
            f"a TCEC Swiss is played in double rounds (Swiss 1.b, 2.b): its rounds must be "
            f"even (two per double round), not {rounds}",
        )
    return rounds


def initial_ranking(ctx: PairingContext) -> list[str]:
    """All players by seed (Swiss 1.c, 1.d), those without one after, in registration order."""
    return ranked_by_seed(ctx)


def groups(ctx: PairingContext, players: Sequence[str]) -> list[list[str]]:
    """The organisers' seeded groups (Swiss 2.a) from the `monrad-groups` ruling, checked
    against the players of round 1."""
    ruling = ctx.ruling(GROUPS_SUBJECT)
    shape = f'RulingIssued(subject="{GROUPS_SUBJECT}", decision={{"groups": [[player ids], ...]}})'
    if ruling is None:
        raise PairingRefused(
            "tcec-swiss.groups",
            "rulings",
            "the organisers set the order, number and size of the seeded groups of round 1 "
            f"(Swiss 2.a): issue {shape}",
        )
    raw: Any = ruling.decision.get("groups")
    if not isinstance(raw, list) or not all(
        isinstance(g, list) and all(isinstance(p, str) for p in g) for g in raw
    ):
        raise PairingRefused(
            "tcec-swiss.groups", "rulings", f"ruling {ruling.ruling_id!r} is not {shape}"
        )
    found: list[list[str]] = [list(g) for g in raw]
    listed = [p for g in found for p in g]
    dupes = sorted({p for p in listed if listed.count(p) > 1})
    missing = [p for p in players if p not in listed]
    extra = sorted(set(listed) - set(players))
    sizes = [len(g) for g in found]
    problems = []
    if dupes:
        problems.append(f"{', '.join(dupes)} in more than one place")
    if missing:
        problems.append(f"{', '.join(missing)} in no group")
    if extra:
        problems.append(f"{', '.join(extra)} not playing round 1")
    if any(not GROUP_MIN <= n <= GROUP_MAX for n in sizes):
        problems.append(f"group sizes {sizes}, not all {GROUP_MIN} to {GROUP_MAX}")
    if problems:
        raise PairingRefused(
            "tcec-swiss.groups",
            "rulings",
            f"the groups of ruling {ruling.ruling_id!r} do not fit (Swiss 2.a): "
            + "; ".join(problems),
        )
    return found


def _equal_distance(pool: Sequence[str]) -> list[Pair]:
    """The i-th of the top half against the i-th of the bottom half."""
    half = len(pool) // 2
    return [(pool[i], pool[i + half]) for i in range(half)]


def first_round(
    ctx: PairingContext, ranking: Sequence[str]
) -> tuple[list[Pair], str | None, list[str]]:
    """Round 1 from the groups (Swiss 2.a, read as the module docstring states): the pairs,
    the bye and notes."""
    group_list = groups(ctx, ranking)
    notes = []
    bye = None
    if len(ranking) % 2:
        bye = ranking[-1]
        notes.append(f"{who(bye)} has the bye: the lowest seed of an odd field (standard Monrad)")
        group_list = [[p for p in g if p != bye] for g in group_list]
    pairs: list[Pair] = []
    spare: list[str] = []
    for i in range(0, len(group_list) - 1, 2):
        a, b = group_list[i], group_list[i + 1]
        n = min(len(a), len(b))
        pairs += list(zip(a[:n], b[:n], strict=True))
        spare += a[n:] + b[n:]
        notes.append(f"group {i + 1} meets group {i + 2}, engine by engine (Swiss 2.a)")
    if len(group_list) % 2:
        spare += group_list[-1]
    if spare:
        order = {p: k for k, p in enumerate(ranking)}
        pool = sorted(spare, key=order.__getitem__)
        pairs += _equal_distance(pool)
        notes.append(
            f"{who(*pool)} have no partner group: paired at equal distance by seed (Swiss 2.a)"
        )
    return pairs, bye, notes


def _pair_down(order: Sequence[str], met: Mapping[str, frozenset[str]]) -> list[Pair] | None:
    """Standard Monrad: the top unpaired engine meets the next one down it has not met;
    backtracking when the engines left cannot all be paired. None: no pairing without a
    rematch."""
    failed: set[tuple[str, ...]] = set()

    def go(rest: tuple[str, ...]) -> list[Pair] | None:
        if not rest:
            return []
        if rest in failed:
            return None
        top, others = rest[0], rest[1:]
        for i, opp in enumerate(others):
            if opp in met[top]:
                continue
            tail = go(others[:i] + others[i + 1 :])
            if tail is not None:
                return [(top, opp), *tail]
        failed.add(rest)
        return None

    return go(tuple(order))


def _byes(h: PlayerHistory) -> int:
    return sum(1 for r in h.rounds if r.kind == "bye")


def monrad_round(
    ctx: PairingContext, players: Sequence[str], ranking: Sequence[str]
) -> tuple[list[Pair], str | None, list[str]]:
    """A later double round (standard Monrad, see the module docstring)."""
    seed_order = {p: k for k, p in enumerate(ranking)}
    order = sorted(players, key=lambda p: (-ctx.players[p].points, seed_order[p]))
    met = {p: ctx.players[p].opponents for p in players}
    notes = []
    if len(order) % 2 == 0:
        pairs = _pair_down(order, met)
        bye = None
    else:
        # The lowest-ranked engine without a bye; with none left, the fewest byes.
        candidates = sorted(order, key=lambda p: (_byes(ctx.players[p]), -order.index(p)))
        pairs, bye = None, None
        for cand in candidates:
            pairs = _pair_down([p for p in order if p != cand], met)
            if pairs is not None:
                bye = cand
                break
        if bye is not None:
            notes.append(
                f"{who(bye)} has the bye: the lowest-ranked engine "
                + ("without a bye" if _byes(ctx.players[bye]) == 0 else "with the fewest byes")
                + " (standard Monrad)"
            )
    if pairs is None:
        raise PairingRefused(
            "tcec-swiss.no_pairing",
            "round",
            f"double round {(ctx.round + 1) // 2} cannot be paired without a rematch "
            "(Monrad: no engine meets the same opponent twice); the organisers decide "
            "(TCEC Season rules 0)",
        )
    notes.append(
        "ranked by score, then seed; each engine meets the next one down it has not met "
        "(standard Monrad, Swiss 2.d)"
    )
    return pairs, bye, notes


def _first_games(
    ctx: PairingContext, pairs: Sequence[Pair], bye: str | None, ranking: Sequence[str]
) -> ev.RoundScheduled:
    """Round 2d − 1: the lower seed White (reading, as Cup 3.b / FRD 2.b)."""
    seed_order = {p: k for k, p in enumerate(ranking)}
    d = (ctx.round + 1) // 2
    pairings = []
    for board, (a, b) in enumerate(pairs, start=1):
        white, black = (a, b) if seed_order[a] > seed_order[b] else (b, a)
        pairings.append(
            ev.Pairing(
                game_id=f"{ctx.stage}-r{ctx.round}-b{board}",
                white=white,
                black=black,
                board=board,
                pair_id=f"{ctx.stage}-d{d}-b{board}",
            )
        )
    return ev.RoundScheduled(
        round=ctx.round,
        stage=ctx.stage,
        pairings=pairings,
        byes=[] if bye is None else [ev.Bye(player_id=bye)],
    )


def _return_games(ctx: PairingContext) -> Proposal:
    """Round 2d: the games of round 2d − 1 with colours reversed, the same pair and opening
    (Swiss 2.b); the bye of 2d − 1 again."""
    first = ctx.scheduled.get(ctx.round - 1)
    if first is None:
        raise PairingRefused(
            "tcec-swiss.double_round",
            "round",
            f"round {ctx.round} returns the games of round {ctx.round - 1}, which is not "
            "scheduled (Swiss 2.b)",
        )
    pairings: list[ev.Pairing] = []
    notes: list[str] = []
    for index, p in enumerate(first.pairings, start=1):
        gone = [x for x in (p.white, p.black) if not ctx.players[x].active_in(ctx.round)]
        if gone:
            notes.append(
                f"{who(p.white)} – {who(p.black)}: {who(*gone)} withdrew; no return game (the "
                "organisers decide its result, TCEC Season rules 0)"
            )
            continue
        # The fold keeps no board: the pairings are read back in their scheduled order.
        board = p.board if p.board is not None else index
        pairings.append(
            ev.Pairing(
                game_id=f"{ctx.stage}-r{ctx.round}-b{board}",
                white=p.black,
                black=p.white,
                board=board,
                opening=p.opening,
                pair_id=p.pair_id,
            )
        )
    byes = [b for b in first.byes if ctx.players[b.player_id].active_in(ctx.round)]
    notes.append(
        f"double round {ctx.round // 2}, second game: colours reversed, same opening (Swiss 2.b)"
    )
    return Proposal(
        round=ev.RoundScheduled(round=ctx.round, stage=ctx.stage, pairings=pairings, byes=byes),
        notes=tuple(notes),
    )


def propose(ctx: PairingContext) -> Proposal:
    """The next round of the TCEC Swiss (see the module docstring)."""
    total = total_rounds(ctx)
    if ctx.round > total:
        raise PairingRefused(
            "tcec-swiss.complete",
            "round",
            f"the Swiss is over: its {total // 2} double rounds are scheduled (Swiss 1.b, 2.e)",
        )
    if ctx.round % 2 == 0:
        return _return_games(ctx)
    require_finished(ctx)
    ranking = initial_ranking(ctx)
    players = [p for p in ranking if ctx.players[p].active_in(ctx.round)]
    if len(players) < 2:
        raise PairingRefused("tcec-swiss.field", "players", "fewer than two engines to pair")
    if ctx.round == 1:
        pairs, bye, notes = first_round(ctx, players)
    else:
        pairs, bye, notes = monrad_round(ctx, players, ranking)
    return Proposal(
        round=_first_games(ctx, pairs, bye, ranking),
        notes=(f"double round {(ctx.round + 1) // 2}, first game", *notes),
    )


SYSTEM = PairingSystem(
    name=name,
    rule="tcec-rules Swiss 2",
    propose=propose,
    pairing_numbers=initial_ranking,  # Swiss 1.c-1.d: by seed
)
