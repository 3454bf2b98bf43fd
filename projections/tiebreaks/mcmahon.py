"""The McMahon score and the Go placement criteria (MMS, SOS, SOSOS, SODOS and the rest of
OpenGotha's), with the McMahon groups of the London Go Centre rules.

The seed (`lgc-go-tournament-rules.txt`, PLAYER AND SPECTATOR BEHAVIOUR "Top groups") names
McMahon groups, supergroups and the bar, and leaves the rest to the tool Go organisers use; we
follow OpenGotha (Luc Vannier's source: `Player.convertKDPToInt`, `Player.smms`,
`Tournament.fillBaseScoringInfoIfNecessary`, `Tournament.gameBetween`,
`Tournament.chooseAByePlayer`; its help pages "Placement settings", "General settings",
"Handicap settings"). The settings are `events_schema.go.GoSettings`.

This module is the one place the numbers are made, for the standings (the criteria below, from
the `Crosstable`) and for the McMahon pairing (`projections/pairing/mcmahon.py`, which
re-exports `rank_value`, `start_score`, `start_scores` and `top_group`). It imports nothing of
the pairing, so the two never import each other.

**Ranks** (`rank_value`, OpenGotha `Player.convertKDPToInt`): 30k = -30 … 1k = -1, 1d = 0 …
9d = 8. Professional ranks are folded into the top amateur ones as OpenGotha does: 1p-3p = 6
(as 7d), 4p-6p = 7 (as 8d), 7p-9p = 8 (as 9d).

**Start score** (`start_score`, OpenGotha `Player.smms` with McMahon zero at 30k, the
`genMMZero` OpenGotha does not let one change): the rank value + 30 (30k starts on 0, 1k on
29, 1d on 30), raised to the floor's and lowered to the bar's (`mcmahon_floor`,
`mcmahon_bar`). A player without a rank starts on the floor (reading: the weakest group, as a
30k would).

**Supergroups** (LGC "any supergroups"; OpenGotha sets them player by player, a start-score
correction of +1 above the bar in its McMahon groups frame). Reading of `supergroup_size`: the
strongest players ranked at or above the bar, taken a whole rank at a time from the top while
they number at most `supergroup_size`, start one point above the bar. A rank is never split
(a group is a rank), so a tie at the cut leaves that rank below: with four 5d and size 3 the
supergroup is empty. Without a bar there is no supergroup. Every registered player counts
(withdrawn ones too), so a withdrawal never moves another player's start.

**Top groups** (`top_group`; LGC "In a McMahon tournament the top groups include any
supergroups, the group above the bar, and the group just below the bar"): the players
starting above or on the bar's score, and those of the first `top_groups_below_bar`
non-empty start-score groups below it (reading: "the group just below" is the next group that
has players). Without a bar the strongest group stands in for the group above the bar.

**The McMahon score** (MMS; OpenGotha `fillBaseScoringInfoIfNecessary` step 2): the start
score + 1 per game won (a forfeit win too) + ½ per jigo + the points of byes and absences:
`bye_points` for a pairing-allocated bye (OpenGotha `genMMS2ValueBye`), `absence_points` for a
round skipped (`RoundSkipped`, OpenGotha `genMMS2ValueAbsent`), ½ for a bye of kind "half" and
0 for kinds "zero" and "advance" (they are not McMahon's). With `round_down` (OpenGotha
`genRoundDownNBWMMS`) the *sum* of the bye and absence points is rounded down to a whole point
("if the sum of such points is not an integer, it is rounded down"); points from games are
never rounded (OpenGotha: "Points resulting from a draw are not rounded"). A round in which a
player has no game, no bye and no notice (registered later, withdrawn, not paired) scores
nothing (OpenGotha "not assigned").

**Start score corrections** (`GoSettings.start_score_corrections`, OpenGotha
`Player.smmsCorrection`): a player's own correction, from -1 to 2 (OpenGotha
`PlacementParameterSet.PLA_SMMS_CORR_MIN`/`MAX`), added after the floor and the bar (`smms +=
smmsCorrection`): OpenGotha's supergroups are set this way player by player, so the setting and
`supergroup_size` are not combined (`GoSettings` refuses both).

**Rounds counted**: the standings count the rounds scheduled in the stage (`Crosstable.rounds`);
the pairing of round R counts rounds 1..R-1. By default (`unentered_results` "not_counted") a
game counts once it has a result, and a game still without one counts as a round without a
game. With "opengotha" it counts as OpenGotha counts `Game.RESULT_UNKNOWN`
(`fillBaseScoringInfoIfNecessary` step 1 marks the player PAIRED; step 2 gives no points): a
game with no points for either side whose opponent counts in SOS, SOSOS and (for nothing, as
it is not won) SODOS.

**Other results** (OpenGotha `Game.RESULT_BOTHLOSE`, "0-0" here): a game lost by both, no
points to either, each still the other's opponent in SOS (step 1: PAIRED). A forfeit
("_BYDEF") scores as its result and keeps the opponent (step 2 reads the two alike).

**Virtual scores** (`count_not_played_as_half_point`, OpenGotha
`genCountNotPlayedGamesAsHalfPoint`, step "2bis" and `bVirtual` in steps 4.1/4.2): SOS and SODOS
read each opponent's *virtual* MMS instead of their MMS: the start score + the points of the
games played over the board + ½ for every round not played over the board (no game, bye,
absence, forfeit, result not entered: `ScoredPlayer.gameWasPlayed` is false), byes and
absences scoring no points of their own and nothing rounded (`virtual_mms`). The player's own
MMS, and the start score a round without a game adds to their SOS, are unchanged; SOSOS sums
the opponents' SOS so computed.

**SOS** (OpenGotha SOSM): the sum of the opponents' MMS over the player's rounds; "If the
player does not participate in a round, the opponent's score is replaced by the starting score
of the player himself" (OpenGotha help, and the source: every round without a game - bye,
absence, not paired - adds the player's own start score). "In handicap games, the opponent's
MMS is corrected according to the handicap": raised by the stones when the player had White
(gave the handicap), lowered when Black (OpenGotha `osmX2 += / -= 2 * handicap`). The stones
are the game's `GameStarted.handicap` (an LGC colour or handicap error is recorded as
played). A forfeited game still has its opponent (OpenGotha counts every game, whatever the
result).

**SOSOS** (OpenGotha SOSOSM): the sum of the opponents' SOS (each as the opponent's own SOS,
with their own handicap corrections; no further correction); a round without a game adds the
player's own start score times the rounds counted (a virtual opponent whose SOS is that start
score every round, OpenGotha `2 * smms * (r + 1)`).

**SODOS** (OpenGotha SODOSM): the sum of the (handicap-corrected) MMS of the opponents beaten,
half of it for a jigo; a forfeit win counts as a win. Rounds without a game add nothing.

**DC** (OpenGotha direct confrontation, `Tournament.fillDirScoringInfo`): among the players
level on every criterion before it, the games won between them (Matthieu Walraet's
`mw.go.confrontation` sort, cycles of wins level), the criteria after DC ordering the rest
(`direct_confrontation`). **Rating** (OpenGotha PLA_CRIT_RATING): the rating, higher first
(`rating_of`).

**OpenGotha's other criteria** (`PlacementParameterSet.allPlacementCriteria`, computed in
`fillBaseScoringInfoIfNecessary`; each function below cites its step): SOS-1/SOS-2 and
SOSW-1/SOSW-2 (SOS less its lowest one or two rounds, a round without a game counting as SOS
counts it; OpenGotha keeps SOSM-1/-2 at 0 before the third round and SOSW-1 is the higher
round after two), CUSS/CUSSW (the scores after each round, summed), STS/SOSTS (the Strasbourg
score: + 2 per knock-out round for the player on the bar's score who won every game; with
virtual scores OpenGotha's SOSTS keeps only the stones, its `stsVirtualX2` never being
filled), EXT/EXR (exploits: the opponents' NBW weighted by the handicap given against the
ranks), CPS (the cup score), SDC (simplified direct confrontation, with DC over the same
group: `ex_aequo_groups`), RANK and CAT (`category_of`).

Players still level after the chain share the place (OpenGotha ex aequo; rules/README "Shared
places"): the Go chains end with "shared-place". A Go McMahon tournament is ranked by the chain
alone (`mcmahon_ranked`, `rank`): MMS is its first criterion, not a grouping by game points.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal

from events_schema import events as ev
from events_schema.go import RANK_PATTERN, GoCriterion, GoSettings
from projections.tiebreaks.chain import Chain, Ranking, rank_by_chain_alone
from projections.tiebreaks.registry import Compute, Value, count_key, criterion, points_key

if TYPE_CHECKING:
    from projections.standings.crosstable import Crosstable, Unresulted

SOURCE = "OpenGotha (Tournament.fillBaseScoringInfoIfNecessary)"

#: OpenGotha `genMMZero`: 30k is McMahon score 0.
MCMAHON_ZERO = -30
#: OpenGotha's rank range (Gotha.MIN_RANK .. MAX_RANK): 30k .. 9d.
MIN_RANK, MAX_RANK = -30, 8

#: GoSettings.criteria (OpenGotha's names) -> the registered criterion.
CRITERION_OF: dict[GoCriterion, str] = {
    "MMS": "mms",
    "SOS": "sos",
    "SOSOS": "sosos",
    "SODOS": "sodos",
    "DC": "dc",
    "RATING": "rating",
    "NBW": "nbw",
    "SOSW": "sosw",
    "SOSOSW": "sososw",
    "SODOSW": "sodosw",
    "SOS-1": "sos-1",
    "SOS-2": "sos-2",
    "SOSW-1": "sosw-1",
    "SOSW-2": "sosw-2",
    "CUSS": "cuss",
    "CUSSW": "cussw",
    "STS": "sts",
    "SOSTS": "sosts",
    "EXT": "ext",
    "EXR": "exr",
    "SDC": "sdc",
    "RANK": "go-rank",
    "CAT": "go-category",
    "CPS": "cps",
}

Status = Literal["paired", "bye", "absent", "not_paired"]


# --- ranks, start scores, groups ----------------------------------------------------------------


def rank_value(rank: str) -> int:
    """OpenGotha `Player.convertKDPToInt`: 30k = -30 … 1k = -1, 1d = 0 … 9d = 8; 1p-3p = 6,
    4p-6p = 7, 7p-9p = 8. Raises ValueError for anything but a rank of `RANK_PATTERN`."""
    text = rank.strip().lower()
    if not re.fullmatch(RANK_PATTERN, text):
        raise ValueError(f"not a Go rank: {rank!r} (30k … 1k, 1d … 9d, 1p … 9p)")
    n, kind = int(text[:-1]), text[-1]
    if kind == "k":
        return -n
    if kind == "d":
        return n - 1
    return 6 if n <= 3 else 7 if n <= 6 else 8


def rank_name(value: int) -> str:
    """The amateur rank of a rank value (OpenGotha `convertIntToKD`): 0 -> "1d", -1 -> "1k"."""
    return f"{value + 1}d" if value >= 0 else f"{-value}k"


def start_score(settings: GoSettings, rank: str | None) -> int:
    """The McMahon start score of one rank (OpenGotha `Player.smms`, zero at 30k): rank value
    + 30, at least the floor's, at most the bar's; no rank: the floor's. Supergroups need the
    whole field: `start_scores`."""
    floor = rank_value(settings.mcmahon_floor)
    value = floor if rank is None else max(rank_value(rank), floor)
    if settings.mcmahon_bar is not None:
        value = min(value, rank_value(settings.mcmahon_bar))
    return value - MCMAHON_ZERO


def bar_score(settings: GoSettings) -> int | None:
    """The start score of the players on the bar (None: no bar)."""
    if settings.mcmahon_bar is None:
        return None
    return rank_value(settings.mcmahon_bar) - MCMAHON_ZERO


def supergroup(settings: GoSettings, ranks: Mapping[str, str | None]) -> frozenset[str]:
    """The players who start one point above the bar (see the module docstring)."""
    bar = settings.mcmahon_bar
    if bar is None or settings.supergroup_size <= 0:
        return frozenset()
    at_bar = rank_value(bar)
    by_rank: dict[int, list[str]] = {}
    for pid, rank in ranks.items():
        if rank is not None and rank_value(rank) >= at_bar:
            by_rank.setdefault(rank_value(rank), []).append(pid)
    chosen: list[str] = []
    for value in sorted(by_rank, reverse=True):
        if len(chosen) + len(by_rank[value]) > settings.supergroup_size:
            break
        chosen += by_rank[value]
    return frozenset(chosen)


def start_scores(settings: GoSettings, ranks: Mapping[str, str | None]) -> dict[str, int]:
    """Every player's start score: `start_score`, one point more for the supergroup, plus the
    player's own correction (OpenGotha `Player.smms`: `smms += smmsCorrection` after the
    floor and the bar; `GoSettings.start_score_corrections`)."""
    sg = supergroup(settings, ranks)
    corr = settings.start_score_corrections
    return {
        pid: start_score(settings, rank) + (pid in sg) + corr.get(pid, 0)
        for pid, rank in ranks.items()
    }


def top_group(settings: GoSettings, ranks: Mapping[str, str | None]) -> frozenset[str]:
    """LGC "Top groups": the supergroups, the group above the bar and the first
    `top_groups_below_bar` groups just below it, by start score (module docstring)."""
    starts = start_scores(settings, ranks)
    if not starts:
        return frozenset()
    bar = bar_score(settings)
    top = bar if bar is not None else max(starts.values())
    below = sorted({s for s in starts.values() if s < top}, reverse=True)
    k = settings.top_groups_below_bar
    if k == 0:
        lowest = top
    elif k <= len(below):
        lowest = below[k - 1]
    else:  # fewer groups below the bar than the setting names: all of them
        lowest = min(starts.values())
    return frozenset(pid for pid, s in starts.items() if s >= lowest)


def top_group_floor(settings: GoSettings, ranks: Mapping[str, str | None]) -> int | None:
    """The lowest start score of the top groups (None: nobody registered)."""
    starts = start_scores(settings, ranks)
    members = top_group(settings, ranks)
    return min((starts[p] for p in members), default=None)


# --- the scores ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GoRound:
    """One round from one player's side, as OpenGotha's participation sees it."""

    round: int
    status: Status
    opponent: str | None = None
    colour: Literal["white", "black"] | None = None
    outcome: Literal["win", "draw", "loss"] | None = None  # None: result not entered
    handicap: int = 0  # stones of the game (0: even)
    points: Fraction = Fraction(0)  # bye or absence points (before rounding)
    nbw_points: Fraction = Fraction(0)  # NBW (Swiss) points of a bye or absence
    # Played over the board (OpenGotha `gameWasPlayed`): False for a forfeit and for a
    # result not entered, and for every round without a game.
    over_the_board: bool = False


@dataclass(frozen=True)
class GoScores:
    """MMS, SOS, SOSOS and SODOS of every player, after `rounds` rounds (exact points)."""

    rounds: int
    start: Mapping[str, int]
    records: Mapping[str, tuple[GoRound, ...]]
    mms: Mapping[str, Fraction]
    sos: Mapping[str, Fraction]
    sosos: Mapping[str, Fraction]
    sodos: Mapping[str, Fraction]
    # The Swiss system's (OpenGotha steps 2, 4.1, 5: NBW, SOSW, SODOSW, SOSOSW).
    nbw: Mapping[str, Fraction]
    sosw: Mapping[str, Fraction]
    sososw: Mapping[str, Fraction]
    sodosw: Mapping[str, Fraction]
    # OpenGotha's other criteria (`Tournament.fillBaseScoringInfoIfNecessary` steps 2b, 3,
    # 4.1, 4.2, 6): SOS without the 1 or 2 lowest, the cumulative sums, the Strasbourg score
    # and its SOS, the exploits.
    sos_m1: Mapping[str, Fraction]
    sos_m2: Mapping[str, Fraction]
    sosw_m1: Mapping[str, Fraction]
    sosw_m2: Mapping[str, Fraction]
    cuss: Mapping[str, Fraction]
    cussw: Mapping[str, Fraction]
    sts: Mapping[str, Fraction]
    sosts: Mapping[str, Fraction]
    ext: Mapping[str, Fraction]
    exr: Mapping[str, Fraction]
    cps: Mapping[str, Fraction]

    def value(self, name: GoCriterion | str, pid: str) -> Fraction:
        table = {
            "MMS": self.mms,
            "SOS": self.sos,
            "SOSOS": self.sosos,
            "SODOS": self.sodos,
            "NBW": self.nbw,
            "SOSW": self.sosw,
            "SOSOSW": self.sososw,
            "SODOSW": self.sodosw,
            "SOS-1": self.sos_m1,
            "SOS-2": self.sos_m2,
            "SOSW-1": self.sosw_m1,
            "SOSW-2": self.sosw_m2,
            "CUSS": self.cuss,
            "CUSSW": self.cussw,
            "STS": self.sts,
            "SOSTS": self.sosts,
            "EXT": self.ext,
            "EXR": self.exr,
            "CPS": self.cps,
        }
        return table[name.upper()][pid]

    def corrected_mms(self, pid: str, r: GoRound) -> Fraction:
        """The opponent's MMS as `pid`'s SOS counts it: + stones when `pid` had White (gave
        the handicap), - stones when Black (OpenGotha SOSM)."""
        assert r.opponent is not None
        stones = r.handicap if r.colour == "white" else -r.handicap
        return self.mms[r.opponent] + stones


def settings_of(ct: Crosstable) -> GoSettings:
    return ct.go if ct.go is not None else GoSettings()


def _bye_points(settings: GoSettings, kind: str) -> Fraction:
    if kind == "bye":  # pairing-allocated (OpenGotha genMMS2ValueBye)
        return Fraction(settings.bye_points)
    if kind == "half_bye":
        return Fraction(1, 2)
    return Fraction(0)  # zero_bye, advance


def _nbw_bye_points(settings: GoSettings, kind: str) -> Fraction:
    if kind == "bye":  # pairing-allocated (OpenGotha genNBW2ValueBye)
        return Fraction(settings.nbw_bye_points)
    if kind == "half_bye":
        return Fraction(1, 2)
    return Fraction(0)


def records(ct: Crosstable, rounds: int) -> dict[str, tuple[GoRound, ...]]:
    """Each player's rounds 1..`rounds` (module docstring: paired, bye, absent, not paired)."""
    settings = settings_of(ct)
    pending: dict[str, list[Unresulted]] = {}
    if settings.unentered_results == "opengotha":  # OpenGotha RESULT_UNKNOWN: paired
        for u in ct.unresulted:
            pending.setdefault(u.white, []).append(u)
            pending.setdefault(u.black, []).append(u)
    out: dict[str, tuple[GoRound, ...]] = {}
    for pid in ct.players:
        by_round: dict[int, GoRound] = {}
        for e in ct.entries.get(pid, ()):
            if e.round > rounds or e.round in by_round:
                continue
            if e.game is not None and e.opponent is not None:
                by_round[e.round] = GoRound(
                    e.round,
                    "paired",
                    e.opponent,
                    e.colour,
                    e.outcome,
                    e.game.handicap,
                    over_the_board=e.game.played,
                )
            else:
                by_round[e.round] = GoRound(
                    e.round,
                    "bye",
                    points=_bye_points(settings, e.kind),
                    nbw_points=_nbw_bye_points(settings, e.kind),
                )
        for u in pending.get(pid, ()):
            if u.round > rounds or u.round in by_round:
                continue
            white = pid == u.white
            by_round[u.round] = GoRound(
                u.round,
                "paired",
                u.black if white else u.white,
                "white" if white else "black",
                None,
                u.handicap,
            )
        skipped = ct.skipped.get(pid, frozenset())
        row = []
        for r in range(1, rounds + 1):
            if r in by_round:
                row.append(by_round[r])
            elif r in skipped:  # LGC RoundSkipped; OpenGotha "absent"
                row.append(
                    GoRound(
                        r,
                        "absent",
                        points=Fraction(settings.absence_points),
                        nbw_points=Fraction(settings.nbw_absence_points),
                    )
                )
            else:
                row.append(GoRound(r, "not_paired"))
        out[pid] = tuple(row)
    return out


def _game_points(row: Sequence[GoRound], *, over_the_board_only: bool) -> Fraction:
    """1 per game won, ½ per jigo (OpenGotha step 2: a both-win is a win for each, a
    both-lose and a result not entered score nothing)."""
    return sum(
        (
            Fraction(1) if r.outcome == "win" else Fraction(1, 2)
            for r in row
            if r.status == "paired"
            and r.outcome in ("win", "draw")
            and (r.over_the_board or not over_the_board_only)
        ),
        Fraction(0),
    )


def _special(row: Sequence[GoRound], settings: GoSettings, *, nbw: bool) -> Fraction:
    """The bye and absence points, their sum rounded down with `round_down` (OpenGotha
    genRoundDownNBWMMS, for NBW and MMS alike)."""
    total = sum(
        ((r.nbw_points if nbw else r.points) for r in row if r.status in ("bye", "absent")),
        Fraction(0),
    )
    return Fraction(math.floor(total)) if settings.round_down else total


def virtual_mms(start: int, row: Sequence[GoRound]) -> Fraction:
    """OpenGotha's virtual McMahon score (`mmsVirtualX2`, read with
    `genCountNotPlayedGamesAsHalfPoint`): the start score + the points of the games played
    over the board + ½ for every other round (no game, bye, absence, forfeit, result not
    entered: `!gameWasPlayed(r)`); byes and absences score no points of their own here."""
    unplayed = sum(1 for r in row if not r.over_the_board)
    return start + _game_points(row, over_the_board_only=True) + Fraction(unplayed, 2)


def _after(
    settings: GoSettings, start: int, row: Sequence[GoRound], k: int
) -> tuple[Fraction, Fraction]:
    """(MMS, NBW) after the first `k` rounds of `row` (OpenGotha `mmsX2[k - 1]`,
    `nbwX2[k - 1]`: the bye and absence points of those rounds, their sum rounded down there
    with `round_down`); k < 1 reads 0 for both, as OpenGotha's `getMMSX2` of a round before
    the first (`ScoredPlayer.isValidRoundNumber`)."""
    if k < 1:
        return Fraction(0), Fraction(0)
    head = row[:k]
    games = _game_points(head, over_the_board_only=False)
    return (
        start + games + _special(head, settings, nbw=False),
        games + _special(head, settings, nbw=True),
    )


def _without_lowest(values: Sequence[Fraction], *, mcmahon: bool) -> tuple[Fraction, Fraction]:
    """(SOS-1, SOS-2) from the per-round values SOS sums (OpenGotha
    `fillBaseScoringInfoIfNecessary` steps 4.1 `soswM1X2`/`soswM2X2` and 4.2
    `sosmM1X2`/`sosmM2X2`): from the third round on, the SOS less its lowest value, and less
    its two lowest; every round counts, a round without a game with the value SOS gives it
    (the player's own start score in SOSM, 0 in SOSW), so such a round is the one dropped
    when it is lowest. After one round both are 0. After two rounds SOSW-1 is the higher of
    the two values and SOSW-2 is 0, while SOSM-1 and SOSM-2 stay 0 (OpenGotha stores them
    only from the third round on: `setSOSMM1X2` is inside the `else` branch)."""
    n = len(values)
    if n <= 1 or (n == 2 and mcmahon):
        return Fraction(0), Fraction(0)
    if n == 2:
        return max(values), Fraction(0)
    low = sorted(values)
    total = sum(values, Fraction(0))
    return total - low[0], total - low[0] - low[1]


def _exploit_coefficient(real: int, natural: int) -> int:
    """OpenGotha step 6 (EXT, EXR): the weight of a game by the handicap given (`realHd`:
    the stones, negative when the player had Black) against the ranks' difference
    (`naturalHd`: the player's rank - the opponent's): 0 below it, 1 at it, 2 one stone above,
    3 two or more above."""
    d = real - natural
    return 0 if d < 0 else 1 if d == 0 else 2 if d == 1 else 3


def compute(
    settings: GoSettings,
    start: Mapping[str, int],
    recs: Mapping[str, tuple[GoRound, ...]],
    rounds: int,
    *,
    ranks: Mapping[str, int] | None = None,
    total_rounds: int | None = None,
) -> GoScores:
    """The scores from start scores and records (module docstring: MMS, SOS, SOSOS, SODOS and
    the rest of OpenGotha's criteria). `ranks`: each player's rank value (EXT, EXR; 30k when
    missing); `total_rounds`: the tournament's rounds (OpenGotha `gps.getNumberOfRounds()`,
    STS; default `rounds`)."""
    rank = ranks or {}
    total = rounds if total_rounds is None else total_rounds
    mms: dict[str, Fraction] = {}
    nbw: dict[str, Fraction] = {}
    for pid, row in recs.items():
        games = _game_points(row, over_the_board_only=False)
        mms[pid] = start[pid] + games + _special(row, settings, nbw=False)
        nbw[pid] = games + _special(row, settings, nbw=True)
    # Step 3 (CUSSW, CUSSM): the sum of the scores after each round counted.
    cuss: dict[str, Fraction] = {}
    cussw: dict[str, Fraction] = {}
    for pid, row in recs.items():
        after = [_after(settings, start[pid], row, k) for k in range(1, rounds + 1)]
        cuss[pid] = sum((m for m, _ in after), Fraction(0))
        cussw[pid] = sum((w for _, w in after), Fraction(0))
    # Step 2 (CPS, the cup score): each round doubles the score so far and adds the round's
    # points (`cpsX2[r] = 2 * cpsX2[r - 1]` + the game's), so a later win never outweighs an
    # earlier one; the bye and absence NBW points so far (rounded down with `round_down`) are
    # added after, not doubled (OpenGotha adds them once the games of every round are in).
    cps: dict[str, Fraction] = {}
    for pid, row in recs.items():
        doubled = Fraction(0)
        for r in row:
            doubled = 2 * doubled + _game_points([r], over_the_board_only=False)
        cps[pid] = doubled + _special(row, settings, nbw=True)
    # Step 2b (STS, the Strasbourg score): the MMS, + 2 from round n-2 on for a player whose
    # MMS after n-2 rounds is the bar's start score + n-2 (every game won from the bar,
    # OpenGotha `2 * (30 + genMMBar + nbRounds - 2)`), + 2 more from round n-1 on when the MMS
    # after n-1 rounds is the bar's + n-1; n is the tournament's rounds. The test reads the
    # MMS alone (a supergroup player with one loss passes it too, as in OpenGotha); without a
    # bar, OpenGotha's is 9D (`export.py`).
    bar = rank_value(settings.mcmahon_bar or "9d") - MCMAHON_ZERO
    sts: dict[str, Fraction] = {}
    for pid, row in recs.items():
        bonus = Fraction(0)
        if rounds >= total - 2 and _after(settings, start[pid], row, total - 2)[0] == bar + (
            total - 2
        ):
            bonus += 2
        if rounds >= total - 1 and _after(settings, start[pid], row, total - 1)[0] == bar + (
            total - 1
        ):
            bonus += 2
        sts[pid] = mms[pid] + bonus
    # The opponents' scores SOS and SODOS read: the real MMS, or with
    # count_not_played_as_half_point OpenGotha's virtual one (step 4.2: `bVirtual`); the same
    # for NBW in SOSW and SODOSW (step 4.1). SOSTS reads the opponents' virtual STS then,
    # which OpenGotha never fills (`stsVirtualX2` stays 0): only the stones are left of them.
    virtual = settings.count_not_played_as_half_point
    seen = {pid: virtual_mms(start[pid], row) for pid, row in recs.items()} if virtual else mms
    seen_nbw = {pid: virtual_mms(0, row) for pid, row in recs.items()} if virtual else nbw
    seen_sts = {pid: Fraction(0) for pid in recs} if virtual else sts
    sos: dict[str, Fraction] = {}
    sodos: dict[str, Fraction] = {}
    sosw: dict[str, Fraction] = {}
    sodosw: dict[str, Fraction] = {}
    sosts: dict[str, Fraction] = {}
    sos_m1: dict[str, Fraction] = {}
    sos_m2: dict[str, Fraction] = {}
    sosw_m1: dict[str, Fraction] = {}
    sosw_m2: dict[str, Fraction] = {}
    ext: dict[str, Fraction] = {}
    exr: dict[str, Fraction] = {}
    for pid, row in recs.items():
        beaten = beaten_w = tried = achieved = Fraction(0)
        per_m: list[Fraction] = []
        per_w: list[Fraction] = []
        per_sts: list[Fraction] = []
        for r in row:
            if r.status != "paired" or r.opponent not in mms:
                # OpenGotha: the player's own start score (SOSW: 0)
                per_m.append(Fraction(start[pid]))
                per_w.append(Fraction(0))
                per_sts.append(Fraction(start[pid]))
                continue
            stones = r.handicap if r.colour == "white" else -r.handicap
            opp = seen[r.opponent] + stones
            opp_w = seen_nbw[r.opponent]  # step 4.1: no handicap correction
            per_m.append(opp)
            per_w.append(opp_w)
            per_sts.append(seen_sts[r.opponent] + stones)
            share = {"win": Fraction(1), "draw": Fraction(1, 2)}.get(r.outcome or "", Fraction(0))
            beaten += opp * share
            beaten_w += opp_w * share
            # Step 6 (EXT, EXR): the opponent's real NBW, weighted by the handicap given
            # against the ranks' difference; EXR counts the games won (a both-win and a
            # forfeit win too), EXT every game paired.
            weight = _exploit_coefficient(
                stones, rank.get(pid, MIN_RANK) - rank.get(r.opponent, MIN_RANK)
            )
            tried += nbw[r.opponent] * weight
            if r.outcome == "win":
                achieved += nbw[r.opponent] * weight
        sos[pid] = sum(per_m, Fraction(0))
        sosw[pid] = sum(per_w, Fraction(0))
        sosts[pid] = sum(per_sts, Fraction(0))
        sodos[pid], sodosw[pid], ext[pid], exr[pid] = beaten, beaten_w, tried, achieved
        sos_m1[pid], sos_m2[pid] = _without_lowest(per_m, mcmahon=True)
        sosw_m1[pid], sosw_m2[pid] = _without_lowest(per_w, mcmahon=False)
    sosos: dict[str, Fraction] = {}
    sososw: dict[str, Fraction] = {}
    for pid, row in recs.items():
        paired = [r.opponent for r in row if r.status == "paired" and r.opponent in sos]
        unpaired = len(row) - len(paired)
        sosos[pid] = sum((sos[o] for o in paired), Fraction(start[pid] * rounds * unpaired))
        sososw[pid] = sum((sosw[o] for o in paired), Fraction(0))  # step 5: 0 unpaired
    return GoScores(
        rounds,
        start,
        recs,
        mms,
        sos,
        sosos,
        sodos,
        nbw,
        sosw,
        sososw,
        sodosw,
        sos_m1=sos_m1,
        sos_m2=sos_m2,
        sosw_m1=sosw_m1,
        sosw_m2=sosw_m2,
        cuss=cuss,
        cussw=cussw,
        sts=sts,
        sosts=sosts,
        ext=ext,
        exr=exr,
        cps=cps,
    )


def go_scores(ct: Crosstable, rounds: int | None = None) -> GoScores:
    """The scores of the crosstable's players after `rounds` rounds (default: the rounds
    scheduled in the stage, or with `count_planned_rounds` the tournament's planned rounds if
    more, as OpenGotha's final standings count `numberOfRounds`), computed once per
    crosstable."""
    counted = ct.rounds if rounds is None else rounds
    if rounds is None and settings_of(ct).count_planned_rounds:
        counted = max(counted, ct.planned_rounds or 0)
    return ct.memo(("mcmahon.scores", counted), lambda: _go_scores(ct, counted))


def _go_scores(ct: Crosstable, rounds: int) -> GoScores:
    settings = settings_of(ct)
    ranks = {pid: info.go_rank for pid, info in ct.players.items()}
    start = start_scores(settings, ranks)
    values = {pid: rank_value(r) if r is not None else MIN_RANK for pid, r in ranks.items()}
    total = max(ct.planned_rounds or 0, ct.rounds)  # STS: OpenGotha numberOfRounds
    return compute(settings, start, records(ct, rounds), rounds, ranks=values, total_rounds=total)


def shown(value: Fraction) -> str:
    """Points as Go tables print them: 31, 31½, 7¼, -2½; other fractions as n/d."""
    if value < 0:
        return "-" + shown(-value)
    whole = math.floor(value)
    frac = value - whole
    marks = {Fraction(0): "", Fraction(1, 2): "½", Fraction(1, 4): "¼", Fraction(3, 4): "¾"}
    if frac in marks:
        return f"{whole}{marks[frac]}" if whole or not marks[frac] else marks[frac]
    return f"{value.numerator}/{value.denominator}"


def _values(table: Mapping[str, Fraction], group: Sequence[str]) -> dict[str, Value]:
    return {p: Value(table[p], shown(table[p])) for p in group if p in table}


# --- the criteria ------------------------------------------------------------------------------


def go_criterion(name: str, label: str, step: str, heading: str) -> Callable[[Compute], Compute]:
    """Register an OpenGotha criterion (`SOURCE`'s `step`): points, read over the whole field
    (`go_scores` computes every player's scores at once); `heading` its column heading in
    words (the label is OpenGotha's abbreviation)."""
    return criterion(
        name,
        label,
        f"{SOURCE} {step}",
        unit="points",
        reading=points_key,
        radius="field",
        heading=heading,
    )


@go_criterion("mms", "MMS", "step 2; LGC Top groups (McMahon)", "McMahon score")
def mms(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """McMahon score (OpenGotha MMS): the start score from the rank (floor, bar, supergroup)
    + 1 per win + ½ per jigo + the bye and absence points (their sum rounded down with
    `round_down`). Higher is better."""
    return _values(go_scores(ct).mms, group)


@go_criterion("sos", "SOS", "step 4.2 (SOSM)", "Opponents' scores (SOS)")
def sos(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """Sum of the opponents' McMahon scores (OpenGotha SOSM), each corrected by the handicap
    (+ stones when the player had White, - when Black); a round without a game (bye, absence,
    not paired) counts the player's own start score."""
    return _values(go_scores(ct).sos, group)


@go_criterion("sosos", "SOSOS", "step 5 (SOSOSM)", "Opponents' SOS (SOSOS)")
def sosos(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """Sum of the opponents' SOS (OpenGotha SOSOSM); a round without a game counts the
    player's own start score times the rounds counted."""
    return _values(go_scores(ct).sosos, group)


@go_criterion("sodos", "SODOS", "step 4.2 (SODOSM)", "Beaten opponents' scores (SODOS)")
def sodos(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """Sum of the (handicap-corrected) McMahon scores of the opponents beaten, half of it for
    a jigo (OpenGotha SODOSM); forfeit wins count, rounds without a game add nothing."""
    return _values(go_scores(ct).sodos, group)


@go_criterion("nbw", "NBW", "step 2 (NBW)", "Number of wins (NBW)")
def nbw(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """Number of wins (OpenGotha NBW, the Swiss system's main score): 1 per win, ½ per jigo,
    1 each for a win for both, + the NBW points of byes and absences (`nbw_bye_points`,
    `nbw_absence_points`; their sum rounded down with `round_down`). No start score."""
    return _values(go_scores(ct).nbw, group)


@go_criterion("sosw", "SOSW", "step 4.1 (SOSW)", "Opponents' wins (SOSW)")
def sosw(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """Sum of the opponents' NBW (OpenGotha SOSW), no handicap correction; a round without a
    game adds 0."""
    return _values(go_scores(ct).sosw, group)


@go_criterion("sososw", "SOSOSW", "step 5 (SOSOSW)", "Opponents' SOSW (SOSOSW)")
def sososw(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """Sum of the opponents' SOSW (OpenGotha SOSOSW); a round without a game adds 0."""
    return _values(go_scores(ct).sososw, group)


@go_criterion("sodosw", "SODOSW", "step 4.1 (SODOSW)", "Beaten opponents' wins (SODOSW)")
def sodosw(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """Sum of the NBW of the opponents beaten, half of it for a jigo (OpenGotha SODOSW)."""
    return _values(go_scores(ct).sodosw, group)


@go_criterion("sos-1", "SOS-1", "step 4.2 (SOSM-1)", "Opponents' scores less the lowest (SOS-1)")
def sos_m1(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """SOS less its lowest round (OpenGotha SOSM-1, "Sum of (n-1) Best Opponents Scores"):
    a round without a game counts the player's own start score and can be the one dropped;
    0 until the third round (`_without_lowest`)."""
    return _values(go_scores(ct).sos_m1, group)


@go_criterion(
    "sos-2", "SOS-2", "step 4.2 (SOSM-2)", "Opponents' scores less the two lowest (SOS-2)"
)
def sos_m2(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """SOS less its two lowest rounds (OpenGotha SOSM-2); 0 until the third round."""
    return _values(go_scores(ct).sos_m2, group)


@go_criterion("sosw-1", "SOSW-1", "step 4.1 (SOSW-1)", "Opponents' wins less the lowest (SOSW-1)")
def sosw_m1(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """SOSW less its lowest round (OpenGotha SOSW-1): a round without a game counts 0, so it
    is the one dropped; after two rounds the higher of the two."""
    return _values(go_scores(ct).sosw_m1, group)


@go_criterion(
    "sosw-2", "SOSW-2", "step 4.1 (SOSW-2)", "Opponents' wins less the two lowest (SOSW-2)"
)
def sosw_m2(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """SOSW less its two lowest rounds (OpenGotha SOSW-2); 0 until the third round."""
    return _values(go_scores(ct).sosw_m2, group)


@go_criterion("cuss", "CUSS", "step 3 (CUSSM)", "Cumulative McMahon scores (CUSS)")
def cuss(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """Cumulative sum of scores (OpenGotha CUSSM): the McMahon score after round 1 + after
    round 2 + … after the last round counted (each with the start score and the bye and
    absence points so far)."""
    return _values(go_scores(ct).cuss, group)


@go_criterion("cussw", "CUSSW", "step 3 (CUSSW)", "Cumulative numbers of wins (CUSSW)")
def cussw(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """Cumulative sum of scores (OpenGotha CUSSW): the NBW after each round counted, summed."""
    return _values(go_scores(ct).cussw, group)


@go_criterion("sts", "STS", "step 2b (STS)", "Strasbourg score (STS)")
def sts(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """Strasbourg score (OpenGotha STS, for a McMahon with a knock-out for the top group):
    the MMS, + 2 from round n-2 for a player on the bar's score + n-2 after n-2 rounds, + 2
    more from round n-1 for one on the bar's score + n-1 after n-1 rounds (n: the
    tournament's rounds)."""
    return _values(go_scores(ct).sts, group)


@go_criterion("sosts", "SOSTS", "step 4.2 (SOSTS)", "Opponents' Strasbourg scores (SOSTS)")
def sosts(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """Sum of the opponents' STS, handicap-corrected as SOS; a round without a game counts the
    player's own start score (OpenGotha SOSTS)."""
    return _values(go_scores(ct).sosts, group)


@go_criterion("cps", "CPS", "step 2 (CPS)", "Cup score (CPS)")
def cps(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """Cup score (OpenGotha CPS, the main score of its cup system, `initForCup`): after each
    round the score so far is doubled and the round's points added (1 a win, ½ a jigo), so
    the player who lost later ranks first; + the NBW points of byes and absences."""
    return _values(go_scores(ct).cps, group)


@go_criterion("ext", "EXT", "step 6 (EXT)", "Exploits attempted (EXT)")
def ext(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """Exploits attempted (OpenGotha EXT, "exploits tentés"): every game's opponent NBW times
    0, 1, 2 or 3 as the handicap given is below, at, one above or two or more above the
    ranks' difference."""
    return _values(go_scores(ct).ext, group)


@go_criterion("exr", "EXR", "step 6 (EXR)", "Exploits achieved (EXR)")
def exr(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """Exploits achieved (OpenGotha EXR, "exploits réussis"): EXT over the games won."""
    return _values(go_scores(ct).exr, group)


#: OpenGotha `Player.MIN_RATING`: the rating of a player with neither rating nor rank.
MIN_RATING = -900


def rating_of(ct: Crosstable, pid: str) -> int:
    """A player's rating as OpenGotha's Rating criterion reads it (`ScoredPlayer.getCritValue`
    PLA_CRIT_RATING: `getRating()`): the registered rating; without one, the rating
    OpenGotha gives a rank (`Player.ratingFromRank`: (rank + 30) x 100 - 900, origin "INI");
    without a rank either, `Player.MIN_RATING`."""
    info = ct.players[pid]
    if info.rating is not None:
        return info.rating
    if info.go_rank is not None:
        return (rank_value(info.go_rank) + 30) * 100 - 900
    return MIN_RATING


@criterion(
    "rating",
    "Rating",
    "OpenGotha (ScoredPlayer.getCritValue PLA_CRIT_RATING)",
    unit="rating",
    reading=count_key,
    radius=0,
    heading="Rating",
)
def rating(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """The player's rating, higher first (OpenGotha Rating criterion); a player without a
    rating has the one OpenGotha gives their rank ((rank + 30) x 100 - 900), and without a
    rank -900."""
    return {p: Value(rating_of(ct, p), str(rating_of(ct, p))) for p in group}


def rank_of(ct: Crosstable, pid: str) -> int:
    """A player's rank as OpenGotha's Rank criterion reads it (`ScoredPlayer.getCritValue`
    PLA_CRIT_RANK: `getRank()`, 30k = -30 … 9d = 8); without a rank, 30k."""
    go_rank = ct.players[pid].go_rank
    return rank_value(go_rank) if go_rank is not None else MIN_RANK


@criterion(
    "go-rank",
    "Rank",
    "OpenGotha (ScoredPlayer.getCritValue PLA_CRIT_RANK)",
    unit="count",
    reading=count_key,
    radius=0,
    heading="Rank",
)
def go_rank(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """The player's Go rank, stronger first (OpenGotha Rank criterion: 30k … 1k, 1d … 9d;
    professional ranks as OpenGotha folds them); a player without a rank as 30k."""
    return {p: Value(rank_of(ct, p), rank_name(rank_of(ct, p))) for p in group}


def category_of(settings: GoSettings, rank: str | None) -> int:
    """A player's category, 0 the first (OpenGotha `Player.category`): the first category
    whose lower limit the rank reaches (`rank >= lowerCategoryLimits[c]`), else the last;
    with one category (no limits) 0. A player without a rank as 30k."""
    value = rank_value(rank) if rank is not None else MIN_RANK
    limits = settings.category_lower_limits
    return next((c for c, low in enumerate(limits) if value >= rank_value(low)), len(limits))


@criterion(
    "go-category",
    "CAT",
    "OpenGotha (ScoredPlayer.getCritValue PLA_CRIT_CAT: - Player.category)",
    unit="count",
    reading=count_key,
    radius=0,
    heading="Category (CAT)",
)
def go_category(
    ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]
) -> dict[str, Value]:
    """The player's category (OpenGotha CAT, for a Swiss with categories): the first category
    first; the key is minus the category (OpenGotha `- category(gps)`), shown as its number
    from 1 (OpenGotha `formatScore`: `- value + 1`)."""
    settings = settings_of(ct)
    out = {}
    for p in group:
        cat = category_of(settings, ct.players[p].go_rank)
        out[p] = Value(-cat, str(cat + 1))
    return out


def criterion_value(ct: Crosstable, name: GoCriterion, pid: str) -> Fraction:
    """The value of one of `GoSettings.criteria` (OpenGotha names) for one player; DC and
    SDC have none outside their group (0, as OpenGotha's `dc` and `sdc` before
    `fillDirScoringInfo`)."""
    if name == "RATING":
        return Fraction(rating_of(ct, pid))
    if name == "RANK":
        return Fraction(rank_of(ct, pid))
    if name == "CAT":
        return Fraction(-category_of(settings_of(ct), ct.players[pid].go_rank))
    if name in ("DC", "SDC"):
        return Fraction(0)
    return go_scores(ct).value(name, pid)


def ex_aequo_groups(ct: Crosstable) -> dict[str, tuple[str, ...]]:
    """Each player's group for DC and SDC as OpenGotha forms it (`Tournament.
    fillDirScoringInfo`): every registered player (OpenGotha's `hmScoredPlayers`, those its
    standings hide included) level with them on each criterion before the first of DC and
    SDC in the chain. Both are computed over that one group (`defineDirForExAequoGroup` fills
    `sdc` and `dc` together), so a DC after an SDC reads the same group as the SDC, and a
    player's value does not depend on which players the standings ask about."""

    def groups() -> dict[str, tuple[str, ...]]:
        names = list(settings_of(ct).criteria)
        first = next((i for i, c in enumerate(names) if c in ("DC", "SDC")), len(names))
        keys = {p: tuple(criterion_value(ct, c, p) for c in names[:first]) for p in ct.players}
        members: dict[tuple[Fraction, ...], list[str]] = {}
        for p in sorted(keys):
            members.setdefault(keys[p], []).append(p)
        return {p: tuple(members[keys[p]]) for p in keys}

    return ct.memo("mcmahon.ex_aequo", groups)


def _per_ex_aequo_group(
    ct: Crosstable,
    group: Sequence[str],
    compute: Callable[[Crosstable, Sequence[str]], dict[str, int]],
) -> dict[str, Value]:
    """`compute` over each player's `ex_aequo_groups` group, read for the players of `group`
    (a player OpenGotha does not know, absent from the crosstable's players: over `group`)."""
    whole = ex_aequo_groups(ct)
    out: dict[str, Value] = {}
    done: dict[tuple[str, ...], dict[str, int]] = {}
    for p in group:
        members = whole.get(p) or tuple(sorted(group))
        if members not in done:
            done[members] = compute(ct, members)
        v = done[members][p]
        out[p] = Value(v, str(v))
    return out


def _net_wins(ct: Crosstable, members: Sequence[str]) -> dict[tuple[str, str], int]:
    """OpenGotha `defineAPairMatrix`: for each pair in the group, +1 per win over the other
    and -1 per loss, counting only RESULT_WHITEWINS and RESULT_BLACKWINS (no jigo, no forfeit
    "_BYDEF", no both-win or both-lose)."""
    net: dict[tuple[str, str], int] = {}
    for g in ct.games_between(members):
        if not g.played or g.result not in ("1-0", "0-1"):
            continue
        w, lo = (g.white, g.black) if g.result == "1-0" else (g.black, g.white)
        net[(w, lo)] = net.get((w, lo), 0) + 1
        net[(lo, w)] = net.get((lo, w), 0) - 1
    return net


def simplified_direct_confrontation(ct: Crosstable, group: Sequence[str]) -> dict[str, int]:
    """OpenGotha's SDC of a group of players level on every criterion before it
    (`Tournament.defineDirForExAequoGroup`, "SDC Algorithm"): the net wins between each pair
    (`_net_wins`) taken as +1, 0 or -1; only when every two players of the group have a
    non-zero net result (each pair met, and not only in games that cancel out) does each
    player count the players of the group they beat; otherwise every SDC is 0."""
    members = sorted(group)
    if len(members) <= 1:
        return {p: 0 for p in members}
    net = _net_wins(ct, members)
    if any(net.get((p, q), 0) == 0 for p in members for q in members if p != q):
        return {p: 0 for p in members}
    return {p: sum(1 for q in members if p != q and net[(p, q)] > 0) for p in members}


@criterion(
    "sdc",
    "SDC",
    "OpenGotha (Tournament.fillDirScoringInfo, defineDirForExAequoGroup: SDC Algorithm)",
    group_relative=True,
    unit="count",
    reading=count_key,
    radius="field",
    heading="Simplified direct confrontation (SDC)",
)
def sdc(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """Simplified direct confrontation (OpenGotha SDC) among the players level on every
    criterion before it: when each two of them have a net winner between them, the number of
    the others each beat; else 0 for all (`simplified_direct_confrontation`)."""
    return _per_ex_aequo_group(ct, group, simplified_direct_confrontation)


def confrontation_ranks(sc: Mapping[str, int], beat: Mapping[str, set[str]]) -> dict[str, int]:
    """Matthieu Walraet's direct confrontation sort as OpenGotha runs it
    (`mw.go.confrontation.Confrontation.topologicalSort(upWinners=true,
    preserveTransitivity=true)`): a rank per player, 1 best, level players sharing one.

    `beat[w]` are the players `w` beat; `sc` each player's secondary score (higher better).
    Players in a cycle of wins (A beat B, B beat C, C beat A: `detectCycles`) are one class:
    the games inside it are ignored (`removeCyclingEdges`) and every member stands for the
    whole class, beating whoever a member beat and losing to whoever a member lost to (the
    transitive "TR" edges). Then, from the bottom: among the players left who beat nobody left,
    those with the lowest `sc` take the lowest rank left (1 + players left - their number), and
    so on up. The graph of classes has no cycle, so some player always beats nobody left."""
    nodes = sorted(sc)

    def reach(start: str) -> set[str]:
        seen: set[str] = set()
        todo = [start]
        while todo:
            for q in beat.get(todo.pop(), ()):
                if q in sc and q not in seen:
                    seen.add(q)
                    todo.append(q)
        return seen

    reaches = {p: reach(p) for p in nodes}
    cls = {p: frozenset({p} | {q for q in reaches[p] if p in reaches[q]}) for p in nodes}
    beats: dict[str, set[str]] = {p: set() for p in nodes}
    for w in nodes:
        for loser in beat.get(w, ()):
            if loser not in sc or cls[loser] == cls[w]:
                continue  # a game inside a cycle is ignored
            for member in cls[w]:
                beats[member] |= cls[loser]
    ranks: dict[str, int] = {}
    left = set(nodes)
    while left:
        bottom = [p for p in left if not beats[p] & left] or sorted(left)
        low = min(sc[p] for p in bottom)
        chosen = {p for p in bottom if sc[p] == low}
        for p in chosen:
            ranks[p] = 1 + len(left) - len(chosen)
        left -= chosen
    return ranks


def direct_confrontation(ct: Crosstable, group: Sequence[str]) -> dict[str, int]:
    """OpenGotha's DC of a group of players level on every criterion before DC
    (`Tournament.defineDirForExAequoGroup`): max rank - the player's rank in
    `confrontation_ranks`, higher better.

    - the games: `defineAPairMatrix` sums, for each pair in the group, +1 per win over the
      other and -1 per loss, counting only RESULT_WHITEWINS and RESULT_BLACKWINS (no jigo,
      no forfeit "_BYDEF", no both-win or both-lose); a player "beat" another when the sum is
      exactly +1 (`pair[i][j] == 1`: two wins and no loss make no edge, as in OpenGotha);
    - the secondary score: the players ordered by the criteria after DC in
      `GoSettings.criteria` (`secCrit`), level players sharing a place;
      sc = players - place."""
    members = sorted(group)
    if len(members) <= 1:
        return {p: 0 for p in members}
    names = list(settings_of(ct).criteria)
    after = names[names.index("DC") + 1 :] if "DC" in names else []
    # An SDC after DC reads as OpenGotha filled it just before, over the same group.
    sdc_of = simplified_direct_confrontation(ct, members) if "SDC" in after else {}
    keys = {
        p: tuple(Fraction(sdc_of[p]) if c == "SDC" else criterion_value(ct, c, p) for c in after)
        for p in members
    }
    order = sorted(members, key=lambda p: keys[p], reverse=True)
    place: dict[str, int] = {}
    for i, p in enumerate(order):
        place[p] = place[order[i - 1]] if i and keys[p] == keys[order[i - 1]] else i
    sc = {p: len(members) - place[p] for p in members}
    net = _net_wins(ct, members)
    beat: dict[str, set[str]] = {p: set() for p in members}
    for (w, lo), n in net.items():
        if n == 1:
            beat[w].add(lo)
    ranks = confrontation_ranks(sc, beat)
    top = max(ranks.values())
    return {p: top - ranks[p] for p in members}


@criterion(
    "dc",
    "DC",
    "OpenGotha (Tournament.fillDirScoringInfo, defineDirForExAequoGroup; "
    "mw.go.confrontation.Confrontation)",
    group_relative=True,
    unit="count",
    reading=count_key,
    radius="field",
    heading="Direct confrontation (DC)",
)
def dc(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """Direct confrontation (OpenGotha DC) among the players level on every criterion before
    it: the games won between them place the winners above the losers (a cycle of wins
    counts as level), the criteria after DC ordering those the games leave apart; shown as
    the number of places above the group's last (`direct_confrontation`)."""
    return _per_ex_aequo_group(ct, group, direct_confrontation)


# --- the chain and the ranking ------------------------------------------------------------------


def chain_names(settings: GoSettings) -> tuple[str, ...]:
    """The registered criteria of `GoSettings.criteria`, then "shared-place"."""
    return (*(CRITERION_OF[c] for c in settings.criteria), "shared-place")


def mcmahon_ranked(created: ev.TournamentCreated | None) -> bool:
    """A tournament ranked by the Go chain alone: a Go McMahon tournament (format or
    pairing "mcmahon") or Go Swiss (pairing "go-swiss"), any under the "lgc" preset, and a
    Go tournament whose criteria start with NBW, CAT or CPS (OpenGotha's Swiss system,
    `PlacementParameterSet` initForSwiss, initForSwissCat, initForCup)."""
    if created is None:
        return False
    if created.rules_preset == "lgc":
        return True
    if (
        created.game == "go"
        and created.go is not None
        and created.go.criteria[0] in ("NBW", "CPS", "CAT")
    ):
        # OpenGotha's Swiss system for Go (NBW first), with categories (CAT first,
        # `initForSwissCat`) or its cup (CPS first, `initForCup`): the chain alone
        return True
    return created.game == "go" and (
        "mcmahon" in (created.format, created.pairing) or created.pairing == "go-swiss"
    )


def shown_players(ct: Crosstable) -> list[str]:
    """The players the standings show: everyone, or with `hide_players_never_paired` those
    paired in some round, for a game (with or without a result) or the pairing bye (OpenGotha
    `Tournament.isPlayerImplied`; its standings leave the others out unless
    `DPParameterSet.displayNPPlayers`). Their scores and places are computed as before; the
    places of the others are counted without them."""
    if not settings_of(ct).hide_players_never_paired:
        return sorted(ct.players)
    implied = {
        pid
        for pid, es in ct.entries.items()
        if any(e.game is not None or e.kind == "bye" for e in es)
    }
    implied |= {p for u in ct.unresulted for p in (u.white, u.black)}
    return sorted(p for p in ct.players if p in implied)


def rank(ct: Crosstable, chain: Chain, players: Sequence[str] | None = None) -> Ranking:
    """Order `players` (default: everyone) by the chain alone, with no grouping by game
    points first (OpenGotha: MMS is a placement criterion like the others). The chain's own
    ranker (`projections/tiebreaks/chain.py`) splits the field criterion by criterion."""
    return rank_by_chain_alone(ct, chain, sorted(players if players is not None else ct.players))
