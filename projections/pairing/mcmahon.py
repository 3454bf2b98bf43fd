"""McMahon pairing for Go under the London Go Centre rules (`lgc-go-tournament-rules.txt`),
with OpenGotha's conventions where the seed is silent.

`propose(ctx)` returns the next `RoundScheduled` of a McMahon tournament: a pure function of
the `PairingContext` (no clock, no randomness, no lot: every choice below is a stated rule).
The scores it pairs on - start scores, McMahon score (MMS), SOS, SOSOS - are made in
`projections/tiebreaks/mcmahon.py` (the module docstring there gives every convention: ranks,
floor, bar, supergroups, byes and absences, rounding down, handicap corrections); this module
re-exports `rank_value`, `start_score`, `start_scores` and `top_group` from it.

Who is paired. The active players (not withdrawn) less those who skip the round
(`RoundSkipped` in force for it, LGC "Top groups" / "Other players": a skipping player is not
paired and scores `absence_points`, OpenGotha "absent"). Every game of the earlier rounds must
have its result (the McMahon scores decide the pairing).

Score groups (OpenGotha `fillPairingInfo`). Players are grouped by their MMS before the round,
rounded down ("players with a non-integer score are grouped with players with an integer score
just below"), groups from the top. Within a group players are placed by the tournament's
criteria (`GoSettings.criteria`, OpenGotha's inner placement by the placement criteria; DC,
SDC, RATING, RANK and CAT are not read there: DC and SDC rank players level on the whole
chain, a standings matter, and rank and rating follow anyway), then by rank, rating and
registration order.

Pairing within a group: split and fold, OpenGotha's default for McMahon (`initForMM`:
`paiMaSeedSystem2 = SPLITANDFOLD`): the first of the group meets the last, the second the one
before last, and so on. OpenGotha's round 1 uses split-and-random, which we do not (no
randomness): fold from round 1. With an odd number left in a group its last player floats down
and meets the first of the next group down (reading: the Swiss and Monrad convention; OpenGotha
weighs draw-ups and draw-downs in its global matching instead, which we do not reproduce).

No rematches (OpenGotha `paiBaAvoidDuplGame`, its heaviest weight). The pairing is the first,
in this order of preferences, with no two players meeting again (any earlier game counts, a
forfeit too: OpenGotha counts every game): the top unpaired player takes the fold partner of
its group if it can, else the nearest one to that position, else the first of a lower group;
when the players left cannot all be paired, the last choice is undone and the next preference
taken (an exhaustive search, so a pairing without a rematch is found whenever one exists).
Only when none exists are rematches allowed (each player's new opponents still first), and a
note says so.

The bye (odd count; OpenGotha `chooseAByePlayer`): the player with the fewest pairing-allocated
byes so far, then the lowest rank value + 2 x MMS (OpenGotha's weight "1000 x byes + rank +
2 x MMS"), then the lowest placed; if the others cannot then be paired without a rematch, the
next candidate. The bye is a `Bye(kind="pairing_allocated")`, worth `bye_points` of MMS.

Handicap (`handicap == "rank_difference"`, OpenGotha `Tournament.gameBetween` with
`hdBasedOnMMS`): each player's MMS before the round, rounded down, capped at the top groups'
lowest start score (OpenGotha `hdNoHdRankThreshold`; GoSettings has no threshold of its own, so
the LGC top groups play even among themselves: "none in the top groups"); the difference less
`handicap_correction`, never below 0, at most `handicap_ceiling`. The stronger player takes
White and gives the stones: `Pairing.handicap` (and `Proposal.handicaps`, by game id).

Colours of an even game (OpenGotha `gameBetween`, `Pairing.wbBalance`): the player who has had
White less often (whites minus blacks over the even games played over the board) takes White;
when equal, the higher placed (reading: in Go the stronger holds White; OpenGotha draws it with
a deterministic pseudo-random function of the two players instead).

Boards: by the pair's higher-placed player (the top group first, OpenGotha "best MMS" table
order). Ids: game `<stage>-r<round>-b<board>`.

Shared with the Swiss for Go (`projections/pairing/go_swiss.py`): everything above is
`pair_go_round`, run with a `GoStyle` naming what differs (the main score and its groups, the
seeding, the order after the criteria, the bye and absence points, the handicap's strength);
McMahon's is `MCMAHON`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Literal

from events_schema import events as ev
from events_schema.go import GoCriterion, GoSettings
from projections.mentions import who
from projections.pairing.base import (
    PairingContext,
    PairingRefused,
    PairingSystem,
    Proposal,
    require_finished,
)
from projections.tiebreaks.mcmahon import (
    GoScores,
    go_scores,
    rank_value,
    shown,
    start_score,
    start_scores,
    top_group,
    top_group_floor,
)

__all__ = [
    "name",
    "placement",
    "propose",
    "rank_value",
    "search",
    "start_score",
    "start_scores",
    "top_group",
]

name = "mcmahon"

Pair = tuple[str, str]


def settings_of(created: ev.TournamentCreated) -> GoSettings:
    return created.go if created.go is not None else GoSettings()


def game_id(stage: str, rnd: int, board: int) -> str:
    return f"{stage}-r{rnd}-b{board}"


def _rank_key(rank: str | None) -> int:
    return rank_value(rank) if rank is not None else -31  # no rank: below 30k


#: Criteria the pairing order cannot read from `GoScores`: DC and SDC rank among players
#: level on the whole chain (a standings matter), RATING and RANK come after the criteria in
#: every pairing order anyway, CAT is one category for the pairing (categories are not kept
#: apart, services/interchange/opengotha/plan.py).
_NOT_IN_ORDER = frozenset({"DC", "SDC", "RATING", "RANK", "CAT"})


def placement(ctx: PairingContext, scores: GoScores, players: Sequence[str]) -> list[str]:
    """`players` in pairing order: score group (MMS rounded down) from the top, then the
    criteria of `GoSettings.criteria`, rank, rating and registration order."""
    return MCMAHON.placement(ctx, scores, players)


def _placement(
    style: GoStyle, ctx: PairingContext, scores: GoScores, players: Sequence[str]
) -> list[str]:
    settings = settings_of(ctx.created)
    criteria = [c for c in settings.criteria if c != style.main and c not in _NOT_IN_ORDER]
    main = style.score(scores)

    def key(p: str) -> tuple[object, ...]:
        h = ctx.players[p]
        rank = -_rank_key(h.go_rank)
        rating = -(h.rating if h.rating is not None else -1)
        return (
            -style.group(main[p]),
            -main[p],
            *(-scores.value(c, p) for c in criteria),
            *((rating, rank) if style.rating_first else (rank, rating)),
            h.registered_order,
        )

    return sorted(players, key=key)


Seeding = Literal["fold", "slip"]


def seeded_partner(others: int, seeding: Seeding = "fold") -> int:
    """The index, among the `others` unpaired players of the top player's group (in pairing
    order), of the partner the seeding gives it; the group paired is the top player and these,
    less its last player when that makes it odd (the last floats down). Split and fold
    (OpenGotha `PAIMA_SEED_SPLITANDFOLD`, its McMahon default): the last of the group. Split
    and slip (`PAIMA_SEED_SPLITANDSLIP`, its Swiss default): the first of the lower half."""
    paired = others + 1 if others % 2 else others  # the group without its floater
    if seeding == "fold":
        return paired - 2
    return paired // 2 - 1


def search(
    order: Sequence[str],
    met: Mapping[str, frozenset[str]],
    group: Mapping[str, object],
    rematches: bool,
    seeding: Seeding = "fold",
) -> list[Pair] | None:
    """The first pairing of `order` in the order of preferences of the module docstring (split
    and fold within a group, or split and slip with `seeding` "slip", else the first of a
    lower group); None when there is none without a rematch (with `rematches`, always one)."""
    failed: set[tuple[str, ...]] = set()

    def candidates(rest: tuple[str, ...]) -> list[str]:
        top, others = rest[0], rest[1:]
        same = [q for q in others if group[q] == group[top]]
        lower = [q for q in others if group[q] != group[top]]
        cands = lower
        if same:
            # The seeded partner (fold: the last of the group, or the one before it when the
            # group is odd, its last player floating down); then outwards from it.
            ideal = seeded_partner(len(same), seeding)
            ranked = sorted(range(len(same)), key=lambda i: (abs(i - ideal), i))
            cands = [same[i] for i in ranked] + lower
        fresh = [q for q in cands if q not in met[top]]
        return fresh + [q for q in cands if q in met[top]] if rematches else fresh

    # Depth-first over the top player's choices, iteratively (a field of a thousand players
    # is five hundred choices deep); a state (the players left) found unpairable is not
    # searched again.
    rests: list[tuple[str, ...]] = []
    options: list[list[str]] = []
    tried: list[int] = []
    chosen: list[Pair] = []
    rest = tuple(order)
    while True:
        if not rest:
            return chosen
        if rest not in failed:
            rests.append(rest)
            options.append(candidates(rest))
            tried.append(0)
        while rests:
            depth = len(rests) - 1
            if tried[depth] < len(options[depth]):
                opp = options[depth][tried[depth]]
                tried[depth] += 1
                del chosen[depth:]
                chosen.append((rests[depth][0], opp))
                rest = tuple(p for p in rests[depth][1:] if p != opp)
                break
            failed.add(rests.pop())
            options.pop()
            tried.pop()
        else:
            return None


def _byes_had(ctx: PairingContext, p: str) -> int:
    return sum(1 for r in ctx.players[p].rounds if r.kind == "bye")


def bye_order(ctx: PairingContext, scores: GoScores, order: Sequence[str]) -> list[str]:
    """Candidates for the bye, first first (OpenGotha `chooseAByePlayer`: fewest byes, then the
    lowest rank + 2 x MMS; then the lowest placed)."""
    pos = {p: i for i, p in enumerate(order)}
    return sorted(
        order,
        key=lambda p: (
            _byes_had(ctx, p),
            _rank_key(ctx.players[p].go_rank) + 2 * scores.mms[p],
            -pos[p],
        ),
    )


def _balance(ctx: PairingContext, p: str) -> int:
    """Whites minus blacks over the even games played over the board (OpenGotha wbBalance)."""
    ct = ctx.crosstable
    total = 0
    for e in ct.entries.get(p, ()) if ct is not None else ():
        if e.kind == "played" and e.game is not None and e.game.handicap == 0:
            total += 1 if e.colour == "white" else -1
    return total


def _handicap(
    settings: GoSettings, strength: Mapping[str, Fraction], a: str, b: str
) -> tuple[int, str]:
    """(stones, the player giving them) of a game between `a` and `b`: the difference of
    their `strength` (module docstring), less the correction, at most the ceiling."""
    if settings.handicap != "rank_difference":
        return 0, a
    pa, pb = strength[a], strength[b]
    diff = max(Fraction(0), abs(pa - pb) - settings.handicap_correction)
    stones = int(min(diff, Fraction(settings.handicap_ceiling)))
    return stones, (a if pa >= pb else b)


def _mcmahon_strength(
    ctx: PairingContext, settings: GoSettings, scores: GoScores
) -> tuple[dict[str, Fraction], int | None]:
    """Each player's MMS before the round, rounded down, capped at the top groups' lowest
    start score (OpenGotha `hdBasedOnMMS`, `hdNoHdRankThreshold`), and that cap."""
    ct = ctx.crosstable
    assert ct is not None
    ranks = {pid: info.go_rank for pid, info in ct.players.items()}
    threshold = top_group_floor(settings, ranks) if settings.handicap == "rank_difference" else None
    cap = threshold if threshold is not None else math.inf
    return {p: Fraction(min(math.floor(v), cap)) for p, v in scores.mms.items()}, threshold


def _mcmahon_why(
    settings: GoSettings,
    scores: GoScores,
    threshold: int | None,
    stones: int,
    stronger: str,
    weaker: str,
) -> str:
    why = f"handicap {stones}: MMS {shown(scores.mms[stronger])} vs {shown(scores.mms[weaker])}"
    if threshold is not None and scores.mms[stronger] > threshold:
        why += f" (counted as {threshold}: the top groups play even, OpenGotha hdNoHdRank)"
    return why


def _game(
    ctx: PairingContext,
    settings: GoSettings,
    strength: Mapping[str, Fraction],
    why_stones: Callable[[int, str, str], str],
    pos: Mapping[str, int],
    a: str,
    b: str,
) -> tuple[str, str, int, str]:
    """(White, Black, stones, why) of the pair."""
    stones, stronger = _handicap(settings, strength, a, b)
    if stones:
        weaker = b if stronger == a else a
        why = why_stones(stones, stronger, weaker)
        why += f", less {settings.handicap_correction} (OpenGotha hdCorrection)"
        if stones == settings.handicap_ceiling:
            why += f", at most {settings.handicap_ceiling} (hdCeiling)"
        return stronger, weaker, stones, why
    ba, bb = _balance(ctx, a), _balance(ctx, b)
    if ba != bb:
        white = a if ba < bb else b
        return white, (b if white == a else a), 0, "fewer whites takes White (OpenGotha)"
    white = a if pos[a] < pos[b] else b
    return white, (b if white == a else a), 0, "colours level: the higher placed takes White"


@dataclass(frozen=True)
class GoStyle:
    """What a Go pairing system pairs on; the rest (who is paired, the search without
    rematches, the bye, colours, boards) is `pair_go_round`, shared by McMahon and the Swiss
    (`projections/pairing/go_swiss.py`)."""

    code: str  # refusal codes `<code>.complete`, ...
    label: str  # "McMahon", "Swiss"
    main: GoCriterion  # the main score, left out of the inner criteria
    score: Callable[[GoScores], Mapping[str, Fraction]]  # the main score of each player
    group: Callable[[Fraction], Fraction]  # a main score's score group
    seeding: Seeding
    rating_first: bool  # rating before rank after the criteria (OpenGotha's Swiss)
    bye_points: Callable[[GoSettings], Decimal]
    absence_points: Callable[[GoSettings], Decimal]
    points: str  # "McMahon point(s)", "NBW point(s)"
    #: (strength by player, the reason given for the stones) of a round's handicaps
    handicap: Callable[
        [PairingContext, GoSettings, GoScores],
        tuple[Mapping[str, Fraction], Callable[[int, str, str], str]],
    ]
    groups_note: Callable[[int, int, Sequence[Fraction]], str]

    def placement(self, ctx: PairingContext, scores: GoScores, players: Sequence[str]) -> list[str]:
        return _placement(self, ctx, scores, players)


def _mcmahon_handicap(
    ctx: PairingContext, settings: GoSettings, scores: GoScores
) -> tuple[Mapping[str, Fraction], Callable[[int, str, str], str]]:
    strength, threshold = _mcmahon_strength(ctx, settings, scores)

    def why(stones: int, stronger: str, weaker: str) -> str:
        return _mcmahon_why(settings, scores, threshold, stones, stronger, weaker)

    return strength, why


def _floor(value: Fraction) -> Fraction:
    return Fraction(math.floor(value))


MCMAHON = GoStyle(
    code="mcmahon",
    label="McMahon",
    main="MMS",
    score=lambda scores: scores.mms,
    group=_floor,  # LGC: rounded down
    seeding="fold",  # OpenGotha initForMM: paiMaSeedSystem2 = SPLITANDFOLD
    rating_first=False,
    bye_points=lambda s: s.bye_points,
    absence_points=lambda s: s.absence_points,
    points="McMahon",
    handicap=_mcmahon_handicap,
    groups_note=lambda rnd, n, groups: (
        f"round {rnd}: {n} players in {len(groups)} McMahon groups (MMS "
        f"{groups[0]} … {groups[-1]}); split and fold within each group, the odd one out "
        "floating down (OpenGotha McMahon default)"
    ),
)


def pair_go_round(ctx: PairingContext, style: GoStyle) -> Proposal:
    """The next round of a Go tournament paired in `style` (see the module docstring)."""
    code = style.code
    total = ctx.created.rounds
    if total is not None and ctx.round > total:
        raise PairingRefused(
            f"{code}.complete", "round", f"the tournament's {total} rounds are all scheduled"
        )
    require_finished(ctx)
    ct = ctx.crosstable
    if ct is None:
        raise PairingRefused(
            f"{code}.no_history",
            "round",
            f"{style.label} pairing reads the crosstable of the stage",
        )
    settings = settings_of(ctx.created)
    scores = go_scores(ct, ctx.round - 1)
    skipping = ctx.skipped.get(ctx.round, frozenset())
    present = [p for p in ctx.active if p not in skipping]
    if len(present) < 2:
        raise PairingRefused(f"{code}.field", "players", "fewer than two players to pair")
    order = style.placement(ctx, scores, present)
    pos = {p: i for i, p in enumerate(order)}
    main = style.score(scores)
    group = {p: style.group(main[p]) for p in order}
    met = {p: ctx.players[p].opponents for p in order}
    notes: list[str] = []
    if skipping:
        away = sorted(
            p for p in skipping if p in ctx.players and ctx.players[p].active_in(ctx.round)
        )
        if away:
            notes.append(
                f"{who(*away)} skip round {ctx.round} (LGC RoundSkipped): not paired, "
                f"{style.absence_points(settings)} {style.points} points each (OpenGotha "
                "absent)"
            )

    bye: str | None = None
    pairs: list[Pair] | None = None
    candidates = bye_order(ctx, scores, order) if len(order) % 2 else [None]
    for cand in candidates:
        rest = [p for p in order if p != cand]
        pairs = search(rest, met, group, rematches=False, seeding=style.seeding)
        if pairs is not None:
            bye = cand
            break
    if pairs is None:
        bye = candidates[0]
        rest = [p for p in order if p != bye]
        pairs = search(rest, met, group, rematches=True, seeding=style.seeding)
        assert pairs is not None
        notes.append(
            "no pairing without a rematch exists: rematches allowed, each player's new "
            "opponents first (OpenGotha avoids duplicate games wherever it can)"
        )
    if bye is not None:
        had = _byes_had(ctx, bye)
        notes.append(
            f"{who(bye)} has the bye ({style.bye_points(settings)} {style.points} point): "
            + ("no bye before" if had == 0 else f"{had} bye(s) before, the fewest")
            + ", lowest rank + 2 x MMS (OpenGotha chooseAByePlayer)"
        )
    strength, why_stones = style.handicap(ctx, settings, scores)
    pairs.sort(key=lambda pr: min(pos[pr[0]], pos[pr[1]]))
    pairings: list[ev.Pairing] = []
    handicaps: dict[str, int] = {}
    for board, (a, b) in enumerate(pairs, start=1):
        white, black, stones, why = _game(ctx, settings, strength, why_stones, pos, a, b)
        gid = game_id(ctx.stage, ctx.round, board)
        pairings.append(
            ev.Pairing(game_id=gid, white=white, black=black, board=board, handicap=stones)
        )
        if stones:
            handicaps[gid] = stones
            notes.append(f"board {board}: {who(white)} (White) gives {who(black)} {why}")
    groups = sorted(set(group.values()), reverse=True)
    notes.append(style.groups_note(ctx.round, len(order), groups))
    return Proposal(
        round=ev.RoundScheduled(
            round=ctx.round,
            stage=ctx.stage,
            pairings=pairings,
            byes=[] if bye is None else [ev.Bye(player_id=bye)],
        ),
        notes=tuple(notes),
        handicaps=handicaps,
    )


def propose(ctx: PairingContext) -> Proposal:
    """The next round of the McMahon tournament (see the module docstring)."""
    return pair_go_round(ctx, MCMAHON)


#: No fixed pairing numbers (each round is ordered by score group): a TRF numbers the players
#: in registration order.
SYSTEM = PairingSystem(
    name=name,
    rule='lgc-go-tournament-rules "Top groups"; OpenGotha McMahon',
    propose=propose,
)
