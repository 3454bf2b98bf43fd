"""The Swiss system for Go as OpenGotha pairs it (its "Swiss" tournament type: a Go
tournament whose first placement criterion is NBW, OpenGotha
`TournamentParameterSet.tournamentType` TYPE_SWISS, set up by
`TournamentParameterSet.initForSwiss`).

`propose(ctx)` returns the next `RoundScheduled`, a pure function of the `PairingContext`. It
is McMahon's pairing (`projections/pairing/mcmahon.py`, `pair_go_round`: who is paired, the
exhaustive search without rematches, the bye, colours, boards and ids are the same code,
read the docstring there) on the Swiss settings of `initForSwiss`:

* Score groups by the main score, NBW (number of wins, OpenGotha `PLA_CRIT_NBW`), before the
  round: a win 1, a jigo ½, a pairing bye `nbw_bye_points` (OpenGotha `genNBW2ValueBye`, 1 by
  default), a round skipped `nbw_absence_points` (`genNBW2ValueAbsent`, 0 by default), the sum
  of those two rounded down with `round_down` (`genRoundDownNBWMMS`); computed in
  `projections/tiebreaks/mcmahon.py` (`GoScores.nbw`). No start score: every player starts in
  the same group, whatever their rank. The groups are the exact NBW values (OpenGotha
  `paiMaMinimizeScoreDifference` on the main score; the LGC rounding down of McMahon scores
  is a McMahon rule).
* Within a group, players are placed by the tournament's other criteria
  (`GoSettings.criteria` after NBW, those `GoScores` holds: SOSW, SOSOSW, SODOSW, ...; DC and
  SDC rank players level on the whole chain, a standings matter, and are not read here), then
  by rating (OpenGotha `PairingParameterSet.initForSwiss`:
  `paiMaAdditionalPlacementCritSystem1 = paiMaAdditionalPlacementCritSystem2 = RATING`), then
  rank and registration order.
* Split and slip within a group (`initForSwiss`: `paiMaSeedSystem1 = paiMaSeedSystem2 =
  PAIMA_SEED_SPLITANDSLIP`, every round): the group's upper half meets its lower half in order,
  the first the first of the lower half, the second the second, and so on; with an odd group
  its last player floats down and meets the first of the next group (as in McMahon). With no
  randomness, round 1 slips too (OpenGotha's round 1 system is also split and slip).
* No handicap (`HandicapParameterSet.initForSwiss`: `hdCeiling = 0`, `hdBasedOnMMS = false`,
  based on the ranks): an imported Swiss file has `handicap` "none" (its ceiling 0). When the
  settings say `handicap` "rank_difference", the stones are the difference of the players'
  ranks (OpenGotha `Tournament.gameBetween` with `hdBasedOnMMS` false), less
  `handicap_correction`, at most `handicap_ceiling`; GoSettings has no rank threshold of its
  own, so none is applied.
* The bye as McMahon chooses it (OpenGotha `Tournament.chooseAByePlayer` is the same for both
  systems: fewest byes, then the lowest rank + 2 x MMS), worth `nbw_bye_points` of NBW.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction

from events_schema.go import GoSettings
from projections.pairing.base import PairingContext, PairingSystem, Proposal
from projections.pairing.mcmahon import GoStyle, pair_go_round, rank_value
from projections.tiebreaks.mcmahon import GoScores, shown

__all__ = ["SWISS", "SYSTEM", "name", "propose"]

name = "go-swiss"


def _rank_handicap(
    ctx: PairingContext, settings: GoSettings, scores: GoScores
) -> tuple[Mapping[str, Fraction], Callable[[int, str, str], str]]:
    """Strength by rank (OpenGotha `gameBetween`, `hdBasedOnMMS` false); read only with
    `handicap` "rank_difference" (an OpenGotha Swiss has none: `hdCeiling` 0)."""
    ranks = {p: h.go_rank for p, h in ctx.players.items()}
    strength = {p: Fraction(rank_value(r) if r is not None else -31) for p, r in ranks.items()}

    def why(stones: int, stronger: str, weaker: str) -> str:
        return f"handicap {stones}: rank {ranks[stronger]} vs {ranks[weaker]}"

    return strength, why


def _groups_note(rnd: int, n: int, groups: Sequence[Fraction]) -> str:
    return (
        f"round {rnd}: {n} players in {len(groups)} NBW groups (NBW {shown(groups[0])} … "
        f"{shown(groups[-1])}); split and slip within each group, the odd one out floating "
        "down (OpenGotha Swiss, initForSwiss)"
    )


SWISS = GoStyle(
    code="go_swiss",
    label="Swiss",
    main="NBW",
    score=lambda scores: scores.nbw,
    group=lambda value: value,  # exact NBW
    seeding="slip",  # initForSwiss: paiMaSeedSystem1/2 = SPLITANDSLIP
    rating_first=True,  # initForSwiss: paiMaAdditionalPlacementCritSystem1/2 = RATING
    bye_points=lambda s: s.nbw_bye_points,  # genNBW2ValueBye
    absence_points=lambda s: s.nbw_absence_points,  # genNBW2ValueAbsent
    points="NBW",
    handicap=_rank_handicap,
    groups_note=_groups_note,
)


def propose(ctx: PairingContext) -> Proposal:
    """The next round of the Go Swiss tournament (see the module docstring)."""
    return pair_go_round(ctx, SWISS)


#: No fixed pairing numbers (each round is ordered by score group).
SYSTEM = PairingSystem(
    name=name,
    rule="OpenGotha Swiss (TournamentParameterSet.initForSwiss)",
    propose=propose,
)
