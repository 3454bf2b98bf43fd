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
criteria (`GoSettings.criteria`, OpenGotha's inner placement by the placement criteria), then
by rank, rating and registration order.

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
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from events_schema import events as ev
from events_schema.go import GoSettings
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


def placement(ctx: PairingContext, scores: GoScores, players: Sequence[str]) -> list[str]:
    """`players` in pairing order: score group (MMS rounded down) from the top, then the
    criteria of `GoSettings.criteria`, rank, rating and registration order."""
    settings = settings_of(ctx.created)
    criteria = [c for c in settings.criteria if c != "MMS"]

    def key(p: str) -> tuple[object, ...]:
        h = ctx.players[p]
        mms = scores.mms[p]
        return (
            -math.floor(mms),
            -mms,
            *(-scores.value(c, p) for c in criteria),
            -_rank_key(h.go_rank),
            -(h.rating if h.rating is not None else -1),
            h.registered_order,
        )

    return sorted(players, key=key)


def search(
    order: Sequence[str],
    met: Mapping[str, frozenset[str]],
    group: Mapping[str, int],
    rematches: bool,
) -> list[Pair] | None:
    """The first pairing of `order` in the order of preferences of the module docstring (split
    and fold within a group, else the first of a lower group); None when there is none without
    a rematch (with `rematches`, always one)."""
    failed: set[tuple[str, ...]] = set()

    def candidates(rest: tuple[str, ...]) -> list[str]:
        top, others = rest[0], rest[1:]
        same = [q for q in others if group[q] == group[top]]
        lower = [q for q in others if group[q] != group[top]]
        cands = lower
        if same:
            # The fold partner: the last of the group, or the one before it when the group
            # is odd (its last player floats down); then outwards from that position.
            ideal = len(same) - 1 if len(same) % 2 else len(same) - 2
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
    settings: GoSettings, scores: GoScores, threshold: int | None, a: str, b: str
) -> tuple[int, str]:
    """(stones, the player giving them) of a game between `a` and `b` (module docstring)."""
    if settings.handicap != "rank_difference":
        return 0, a
    cap = threshold if threshold is not None else math.inf
    pa = min(math.floor(scores.mms[a]), cap)
    pb = min(math.floor(scores.mms[b]), cap)
    stones = int(
        min(max(0, abs(pa - pb) - settings.handicap_correction), settings.handicap_ceiling)
    )
    return stones, (a if pa >= pb else b)


def _game(
    ctx: PairingContext,
    settings: GoSettings,
    scores: GoScores,
    threshold: int | None,
    pos: Mapping[str, int],
    a: str,
    b: str,
) -> tuple[str, str, int, str]:
    """(White, Black, stones, why) of the pair."""
    stones, stronger = _handicap(settings, scores, threshold, a, b)
    if stones:
        weaker = b if stronger == a else a
        why = f"handicap {stones}: MMS {shown(scores.mms[stronger])} vs {shown(scores.mms[weaker])}"
        if threshold is not None and scores.mms[stronger] > threshold:
            why += f" (counted as {threshold}: the top groups play even, OpenGotha hdNoHdRank)"
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


def propose(ctx: PairingContext) -> Proposal:
    """The next round of the McMahon tournament (see the module docstring)."""
    total = ctx.created.rounds
    if total is not None and ctx.round > total:
        raise PairingRefused(
            "mcmahon.complete", "round", f"the tournament's {total} rounds are all scheduled"
        )
    require_finished(ctx)
    ct = ctx.crosstable
    if ct is None:
        raise PairingRefused(
            "mcmahon.no_history", "round", "McMahon pairing reads the crosstable of the stage"
        )
    settings = settings_of(ctx.created)
    scores = go_scores(ct, ctx.round - 1)
    skipping = ctx.skipped.get(ctx.round, frozenset())
    present = [p for p in ctx.active if p not in skipping]
    if len(present) < 2:
        raise PairingRefused("mcmahon.field", "players", "fewer than two players to pair")
    order = placement(ctx, scores, present)
    pos = {p: i for i, p in enumerate(order)}
    group = {p: math.floor(scores.mms[p]) for p in order}
    met = {p: ctx.players[p].opponents for p in order}
    notes: list[str] = []
    if skipping:
        away = sorted(
            p for p in skipping if p in ctx.players and ctx.players[p].active_in(ctx.round)
        )
        if away:
            notes.append(
                f"{who(*away)} skip round {ctx.round} (LGC RoundSkipped): not paired, "
                f"{settings.absence_points} McMahon points each (OpenGotha absent)"
            )

    bye: str | None = None
    pairs: list[Pair] | None = None
    candidates = bye_order(ctx, scores, order) if len(order) % 2 else [None]
    for cand in candidates:
        pairs = search([p for p in order if p != cand], met, group, rematches=False)
        if pairs is not None:
            bye = cand
            break
    if pairs is None:
        bye = candidates[0]
        pairs = search([p for p in order if p != bye], met, group, rematches=True)
        assert pairs is not None
        notes.append(
            "no pairing without a rematch exists: rematches allowed, each player's new "
            "opponents first (OpenGotha avoids duplicate games wherever it can)"
        )
    if bye is not None:
        had = _byes_had(ctx, bye)
        notes.append(
            f"{who(bye)} has the bye ({settings.bye_points} McMahon point): "
            + ("no bye before" if had == 0 else f"{had} bye(s) before, the fewest")
            + ", lowest rank + 2 x MMS (OpenGotha chooseAByePlayer)"
        )
    ranks = {pid: info.go_rank for pid, info in ct.players.items()}
    threshold = top_group_floor(settings, ranks) if settings.handicap == "rank_difference" else None
    pairs.sort(key=lambda pr: min(pos[pr[0]], pos[pr[1]]))
    pairings: list[ev.Pairing] = []
    handicaps: dict[str, int] = {}
    for board, (a, b) in enumerate(pairs, start=1):
        white, black, stones, why = _game(ctx, settings, scores, threshold, pos, a, b)
        gid = game_id(ctx.stage, ctx.round, board)
        pairings.append(
            ev.Pairing(game_id=gid, white=white, black=black, board=board, handicap=stones)
        )
        if stones:
            handicaps[gid] = stones
            notes.append(f"board {board}: {who(white)} (White) gives {who(black)} {why}")
    groups = sorted(set(group.values()), reverse=True)
    notes.append(
        f"round {ctx.round}: {len(order)} players in {len(groups)} McMahon groups (MMS "
        f"{groups[0]} … {groups[-1]}); split and fold within each group, the odd one out "
        "floating down (OpenGotha McMahon default)"
    )
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


#: No fixed pairing numbers (each round is ordered by score group): a TRF numbers the players
#: in registration order.
SYSTEM = PairingSystem(
    name=name,
    rule='lgc-go-tournament-rules "Top groups"; OpenGotha McMahon',
    propose=propose,
)
