"""FIDE Tie-Break Regulations (Handbook C.07), in the two texts applied since July 2023:
``fide-2024`` (the text approved in 2023, as applied from 1 July 2023 to 28 February 2026) and
``fide-2026`` (approved by the FIDE Council on 2 February 2026, in force from 1 March 2026);
article numbers as in both. Which one a tournament follows is a recorded fact of the
tournament (`Crosstable.edition`, `projections/tiebreaks/editions.py`), never a clock reading.

Every criterion below is a pure function of the crosstable and cites its article. The rules
they share:

* **Rounds** (Art. 16.1). A player's record has one slot per round 1..R, R being the last round
  in which anyone has a result or a bye. A round in which the player has neither (not paired,
  absent, or any round after a withdrawal, which C.07 16.1 makes a zero-point bye) is an
  *absent* slot worth 0 points.
* **Voluntarily unplayed rounds** (VUR, Art. 16.1): requested byes (half- or zero-point),
  absences and rounds after a withdrawal, and forfeit losses. A pairing-allocated bye, a
  forfeit win (and a knockout advance) are unplayed but not voluntary.
* **The player as someone's opponent** (Art. 16.3, categories of 16.2): every unplayed round
  counts with the points it gave, except a requested bye or absence that no later non-VUR round
  follows (category 16.2.5: the player did not come back, e.g. withdrew), which counts as a
  draw. `adjusted_score` is that score. Both texts read the same here.
* **The player's own unplayed rounds** (Art. 16.4): in Buchholz, fore-Buchholz and
  Sonneborn-Berger each unplayed round (byes, forfeits won or lost, absences) is a game against
  a dummy opponent (`Dummy`). Its score is the player's own final score; the 2026 text caps it
  (`dummy`):

  - 16.4.1, a forfeit won or lost (categories 16.2.2, 16.2.4): at most the adjusted score
    (16.3) of the opponent the player was paired with;
  - 16.4.2, any other unplayed round (a pairing-allocated bye, 16.2.1; a requested bye or an
    absence, 16.2.3 and 16.2.5): at most the points for a draw times the number of rounds R.
    "The number of rounds in the tournament" is read as R, the rounds so far: the tournament's
    rounds once it is over, and for standings after an earlier round the rounds played (FIDE's
    server reads it so).

  The pre-2023 "virtual opponent" is gone in both.
* **Modifiers** (Art. 14.1-14.4, with the VUR exception of 16.5): Cut-n drops the n least
  significant values, Median-n the n least and the n most significant. When the player has
  VURs, the cut takes the smallest VUR contribution instead of the least significant value,
  unless that contribution is below the least significant value's. A modified tie-break is a
  criterion of its own, named like FIDE's acronyms: `buchholz-cut1` is BH/C1, and so
  `buchholz-cut2`, `buchholz-median1`, `buchholz-median2`, `fide-sonneborn-berger-cut1`/`-cut2`,
  `fide-fore-buchholz-cut1`/`-cut2`/`-median1`/`-median2`, `fide-progressive-cut1`/`-cut2`,
  `fide-aro-cut1`/`-cut2`/`-median1`/`-median2`.
* **Pre-determined pairings** (round robins, Art. 16 applies to Swiss events): with the
  `predetermined` parameter, forfeits count as games against the scheduled opponent and no
  dummy opponents or adjusted scores are used (so the edition changes nothing there).
* **Ratings** (Art. 10): rating-based criteria use games played over the board only; when a
  player of the stage has no rating and the tournament gave no rating for unrated players
  (`unrated_rating`), the criterion is dropped: nobody gets a value.

Where the text leaves room we follow the FIDE Technical Commission's reference implementation
(gacrux / TieBreakServer: rules of 2024-08-01 for ``fide-2024``, of 2026-03-01 for
``fide-2026``), which the test-suite cross-checks under both texts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from events_schema.events import TiebreakSpec
from events_schema.numbers import TiebreakUnit
from projections.tiebreaks.chain import Chain
from projections.tiebreaks.common import count_rounds, fraction_shown
from projections.tiebreaks.editions import Edition, citation
from projections.tiebreaks.registry import (
    Compute,
    Criterion,
    Param,
    Radius,
    Reading,
    Value,
    count_key,
    criterion,
    half_points,
    half_points_key,
    points_key,
)

if TYPE_CHECKING:
    from projections.standings.crosstable import Crosstable, Entry

#: The regulations as a criterion's registered source names them: no edition, the article numbers
#: being the same in both; shown for a tournament, the source names its edition (`cite`).
SOURCE = "FIDE C.07"
NO_VALUE = "–"

# Round kinds that are voluntarily unplayed (Art. 16.1).
_VUR_KINDS = frozenset({"half_bye", "zero_bye", "forfeit_loss", "absent"})
# Requested byes and absences: the kinds that category 16.2.3 / 16.2.5 are about.
_REQUESTED_KINDS = frozenset({"half_bye", "zero_bye", "absent"})
# Forfeits, whose dummy the 2026 text caps by the scheduled opponent's score (16.4.1).
_FORFEIT_KINDS = frozenset({"forfeit_win", "forfeit_loss"})
# How an explanation names an unplayed round.
KIND_WORDS = {
    "bye": "pairing-allocated bye",
    "half_bye": "half-point bye",
    "zero_bye": "zero-point bye",
    "absent": "not paired (a zero-point bye, 16.1)",
    "withdrawn": "after the withdrawal (a zero-point bye, 16.1)",
    "forfeit_win": "forfeit win",
    "forfeit_loss": "forfeit loss",
    "advance": "advance without a game",
}

# FIDE B.02 (Rating Regulations) table 8.1(a): rating difference dp for a fractional score p,
# indexed by 100·p rounded (p = 0.00 .. 1.00).
# fmt: off
DP_TABLE: tuple[int, ...] = (
    -800, -677, -589, -538, -501, -470, -444, -422, -401, -383,
    -366, -351, -336, -322, -309, -296, -284, -273, -262, -251,
    -240, -230, -220, -211, -202, -193, -184, -175, -166, -158,
    -149, -141, -133, -125, -117, -110, -102, -95, -87, -80,
    -72, -65, -57, -50, -43, -36, -29, -21, -14, -7,
    0, 7, 14, 21, 29, 36, 43, 50, 57, 65,
    72, 80, 87, 95, 102, 110, 117, 125, 133, 141,
    149, 158, 166, 175, 184, 193, 202, 211, 220, 230,
    240, 251, 262, 273, 284, 296, 309, 322, 336, 351,
    366, 383, 401, 422, 444, 470, 501, 538, 589, 677,
    800,
)
# fmt: on


# --- registration and citation ------------------------------------------------------------------


def c07_criterion(
    name: str, label: str, source: str, **options: Any
) -> Callable[[Compute], Compute]:
    """Register a C.07 criterion (`registry.criterion`): `source` names the articles without an
    edition ("FIDE C.07, 8.1"); shown for a tournament, `cite` names the tournament's."""
    return criterion(name, label, source, cite=cite, **options)


def cite(crit: Criterion, params: Mapping[str, Any], edition: Edition) -> tuple[str, str]:
    """(label, source) of a C.07 criterion as shown for a tournament following `edition`: the
    source names the edition ("FIDE C.07 2026, 8.1, 16.3-16.5"); so does the label when the
    criterion's values follow it (Art. 16.4: "Buchholz Cut-1 (C.07 2026)", the label `arbiter
    explain` gives the step), not when both texts give the same values ("wins")."""
    source = f"FIDE {citation(edition)}{crit.source.removeprefix(SOURCE)}"
    if follows_edition(crit.name, params):
        return f"{crit.label} ({citation(edition)})", source
    return crit.label, source


# --- the player's rounds ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Slot:
    """One round from one player's side, unplayed rounds included (Art. 16.1)."""

    round: int
    kind: str  # an Entry kind, or "absent"
    points: int  # half-points
    opponent: str | None = None
    entry: Entry | None = None

    @property
    def played(self) -> bool:
        """A game over the board (Art. 5: only these are 'games played')."""
        return self.kind == "played"

    @property
    def vur(self) -> bool:
        """Voluntarily unplayed round (Art. 16.1)."""
        return self.kind in _VUR_KINDS


def rounds_counted(ct: Crosstable) -> int:
    """R: the last round in which any player has a result or a bye."""
    return ct.last_round


def slots(ct: Crosstable, pid: str, rounds: int | None = None) -> list[Slot]:
    """The player's rounds 1..R in order; a round without an entry is an absent slot."""
    last = rounds_counted(ct) if rounds is None else rounds
    return ct.memo(("fide.slots", pid, last), lambda: _slots(ct, pid, last))


def _slots(ct: Crosstable, pid: str, last: int) -> list[Slot]:
    entries = [e for e in ct.entries.get(pid, ()) if e.round <= last]
    seen = {e.round for e in entries}
    out = [Slot(e.round, e.kind, e.points, e.opponent, e) for e in entries]
    out += [Slot(r, "absent", 0) for r in range(1, last + 1) if r not in seen]
    out.sort(key=lambda s: s.round)
    return out


def adjusted_score(ct: Crosstable, pid: str, rounds: int | None = None) -> int:
    """The player's score as an opponent sees it (Art. 16.3), in half-points.

    Unplayed rounds of categories 16.2.1-16.2.4 (pairing-allocated byes, forfeit wins, requested
    byes followed by a round that is not a VUR, forfeit losses) count for the points they gave;
    category 16.2.5 (a requested bye or absence followed only by VURs, e.g. every round after a
    withdrawal) counts as a draw.
    """
    last = rounds_counted(ct) if rounds is None else rounds
    return ct.memo(("fide.adjusted", pid, last), lambda: _adjusted_score(ct, pid, last))


def _adjusted_score(ct: Crosstable, pid: str, rounds: int) -> int:
    record = slots(ct, pid, rounds)
    back = max((s.round for s in record if not s.vur), default=0)
    draw = ct.scoring.draw
    return sum(draw if s.kind in _REQUESTED_KINDS and s.round > back else s.points for s in record)


# --- contributions and the cut modifiers --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Dummy:
    """The dummy opponent of one of the player's own unplayed rounds (Art. 16.4).

    `own` is the player's own final score (for fore-Buchholz, their score with the final
    round's game counted as a draw); under the 2026 text `cap` is what 16.4.1 (a forfeit: the
    scheduled opponent's adjusted score) or 16.4.2 (a bye or absence: the points for a draw
    times the number of rounds) allows, and the dummy's score is the lower of the two.
    """

    round: int
    kind: str  # the slot's kind: "bye", "forfeit_win", "absent", ...
    own: int  # half-points
    edition: Edition
    cap: int | None = None  # half-points; None under the 2024 text
    article: str = "16.4"  # "16.4", "16.4.1" or "16.4.2"

    @property
    def score(self) -> int:
        return self.own if self.cap is None else min(self.own, self.cap)

    @property
    def capped(self) -> bool:
        """The cap bites: the own score is above it (equal is not capped)."""
        return self.cap is not None and self.own > self.cap

    def text(self) -> str:
        """What an explanation says, e.g. "round 5: forfeit win, dummy capped at the opponent's
        adjusted score 0 (C.07 2026, 16.4.1)"."""
        what = f"round {self.round}: {KIND_WORDS.get(self.kind, self.kind)}"
        cite = f"({citation(self.edition)}, {self.article})"
        if self.cap is None:
            own = half_points(self.own)
            return f"{what}, dummy opponent with the player's own score {own} {cite}"
        limit = (
            f"the opponent's adjusted score {half_points(self.cap)}"
            if self.article == "16.4.1"
            else f"draw points × rounds {half_points(self.cap)}"
        )
        if self.capped:
            return f"{what}, dummy capped at {limit} {cite}"
        return (
            f"{what}, dummy with the player's own score {half_points(self.own)}, "
            f"not above {limit} {cite}"
        )


@dataclass(frozen=True, slots=True)
class Contribution:
    """What one round adds to Buchholz or Sonneborn-Berger."""

    round: int
    score: int  # the (adjusted or dummy) opponent's score, half-points
    quarters: int  # what it adds, in quarter-points (exact integers: no Fraction arithmetic)
    vur: bool
    dummy: Dummy | None = None  # an unplayed round of the player's own (Art. 16.4)

    @property
    def value(self) -> Fraction:
        """What it adds, in points."""
        return Fraction(self.quarters, 4)


@dataclass(frozen=True, slots=True)
class Modifier:
    """A modifier of Art. 14: drop the `low` least and the `high` most significant values."""

    suffix: str  # appended to the criterion's name: "buchholz-cut1"
    label: str  # "Cut-1"
    article: str
    low: int
    high: int
    words: str = ""  # in a column heading: "cut 1"


PLAIN = Modifier("", "", "", 0, 0)
CUT1 = Modifier("-cut1", "Cut-1", "14.1", 1, 0, "cut 1")
CUT2 = Modifier("-cut2", "Cut-2", "14.2", 2, 0, "cut 2")
MEDIAN1 = Modifier("-median1", "Median-1", "14.3", 1, 1, "median 1")
MEDIAN2 = Modifier("-median2", "Median-2", "14.4", 2, 2, "median 2")

Impl = Callable[["Crosstable", Sequence[str], Mapping[str, Any], Modifier], dict[str, Value]]
# criterion name -> (family, modifier), for every modified tie-break registered here.
_VARIANTS: dict[str, tuple[str, Modifier]] = {"fide-aob": ("fide-aob", PLAIN)}


def register_variants(
    name: str,
    label: str,
    source: str,
    doc: str,
    impl: Impl,
    modifiers: Sequence[Modifier],
    params: Mapping[str, Param] | None = None,
    *,
    unit: TiebreakUnit,
    reading: Reading,
    radius: Radius,
) -> None:
    """Register `name` and one criterion per modifier (`name-cut1`, ...), each documented and
    citing its article: FIDE names them as separate tie-breaks (BH, BH/C1, ...), and separate
    names keep them apart in the standings' columns and explanations."""
    for mod in modifiers:

        def compute(
            ct: Crosstable,
            group: Sequence[str],
            params: Mapping[str, Any],
            mod: Modifier = mod,
        ) -> dict[str, Value]:
            return impl(ct, group, params, mod)

        words = label[:1].upper() + label[1:]
        if mod is PLAIN:
            compute.__doc__ = doc
            full_label, full_source = label, source
        else:
            compute.__doc__ = (
                f"{label} {mod.label} (Art. {mod.article}): {label} leaving out "
                + (
                    f"the {mod.low} least significant value(s)"
                    if not mod.high
                    else f"the {mod.low} least and the {mod.high} most significant values"
                )
                + f".\n\n{doc}"
            )
            full_label, full_source = f"{label} {mod.label}", f"{source}, {mod.article}"
            words = f"{words} {mod.words}"
        compute.__name__ = (name + mod.suffix).replace("-", "_")
        c07_criterion(
            name + mod.suffix,
            full_label,
            full_source,
            params=params,
            unit=unit,
            reading=reading,
            radius=radius,
            heading=words,
        )(compute)
        _VARIANTS[name + mod.suffix] = (name, mod)


def apply_modifier(contribs: Sequence[Contribution], low: int, high: int) -> list[Contribution]:
    """Drop the `low` least and `high` most significant contributions (Art. 14.1-14.4).

    The least significant value is the contribution of the lowest-scored opponent (the smaller
    contribution among equals). Art. 16.5: while the player has VURs, the smallest VUR
    contribution is cut instead, unless it is below the least significant value. Median cuts at
    the top have no exception.
    """
    rest = list(contribs)
    low = min(low, len(rest))
    high = min(high, len(rest) - low)
    # Within one list every value is on one scale (quarter-points), so comparing `quarters`
    # orders as comparing the values in points.
    for _ in range(low):
        lsv = min(rest, key=lambda c: (c.score, c.quarters))
        vurs = [c for c in rest if c.vur]
        cut = lsv
        if vurs:
            smallest_vur = min(vurs, key=lambda c: (c.quarters, c.score))
            if not lsv.quarters > smallest_vur.quarters:
                cut = smallest_vur
        rest.remove(cut)
    for _ in range(high):
        rest.remove(max(rest, key=lambda c: (c.score, c.quarters)))
    return rest


def dummy(
    ct: Crosstable, pid: str, s: Slot, own: int, opponent_score: Callable[[str], int]
) -> Dummy:
    """The dummy opponent of the player's unplayed round `s` under the tournament's edition
    (Art. 16.4): the player's own score `own`, which the 2026 text caps at the scheduled
    opponent's adjusted score for a forfeit (16.4.1, `opponent_score`) and at the points for a
    draw times the number of rounds for any other unplayed round (16.4.2)."""
    edition = ct.edition.edition
    kind = s.kind
    if kind == "absent" and pid in ct.withdrawn:
        since = ct.withdrawn[pid]
        kind = "withdrawn" if since is None or s.round >= since else kind
    if edition == "fide-2024":
        return Dummy(s.round, kind, own, edition)
    if s.kind in _FORFEIT_KINDS and s.opponent is not None:
        return Dummy(s.round, kind, own, edition, opponent_score(s.opponent), "16.4.1")
    return Dummy(s.round, kind, own, edition, ct.scoring.draw * rounds_counted(ct), "16.4.2")


def _contributions(
    ct: Crosstable, pid: str, sonneborn: bool, predetermined: bool
) -> tuple[Contribution, ...]:
    """What each of the player's rounds adds to Buchholz (or Sonneborn-Berger), computed once
    per player and crosstable (`Crosstable.memo`): every modifier of the family (plain, Cut-n,
    Median-n) and the explanations derive from the same contributions."""
    return ct.memo(
        ("fide.contributions", pid, sonneborn, predetermined),
        lambda: _compute_contributions(ct, pid, sonneborn, predetermined),
    )


def _compute_contributions(
    ct: Crosstable, pid: str, sonneborn: bool, predetermined: bool
) -> tuple[Contribution, ...]:
    if sonneborn:  # the same rounds, scores and dummies as Buchholz; only the value differs
        return tuple(
            Contribution(c.round, c.score, c.score * p, c.vur, c.dummy)
            for c, p in zip(
                _contributions(ct, pid, False, predetermined),
                _opponent_points(ct, pid, predetermined),
                strict=True,
            )
        )
    rounds = rounds_counted(ct)
    points = ct.points

    def adjusted(opponent: str) -> int:
        return adjusted_score(ct, opponent, rounds)

    own = points.get(pid, 0)
    out = []
    for s in slots(ct, pid, rounds):
        d = None
        if s.opponent is not None and (s.played or predetermined):
            score = points.get(s.opponent, 0) if predetermined else adjusted(s.opponent)
            vur = False
        elif predetermined:
            continue  # a round robin's bye: no opponent, nothing to add
        else:
            d = dummy(ct, pid, s, own, adjusted)  # Art. 16.4
            score, vur = d.score, s.vur
        out.append(Contribution(s.round, score, 2 * score, vur, d))
    return tuple(out)


def _opponent_points(ct: Crosstable, pid: str, predetermined: bool) -> list[int]:
    """The player's points (half-points) in each round `_compute_contributions` counts."""
    record = slots(ct, pid, rounds_counted(ct))
    return [s.points for s in record if not predetermined or s.opponent is not None]


_PREDETERMINED = Param(
    bool,
    False,
    doc="pre-determined pairings (round robins): forfeits count as games against the scheduled "
    "opponent, no dummy opponents or adjusted scores (Art. 16 is for Swiss events)",
)


# --- Buchholz, Sonneborn-Berger (Art. 8.1, 9.1) -------------------------------------------------


def _summed_scores(
    group: Sequence[str], mod: Modifier, contributions: Callable[[str], Sequence[Contribution]]
) -> dict[str, Value]:
    """Per player, the sum of the scores of their rounds' `contributions` that the modifier
    keeps (Art. 14): Buchholz and fore-Buchholz."""
    out = {}
    for p in group:
        kept = apply_modifier(contributions(p), mod.low, mod.high)
        total = sum((c.score for c in kept), 0)
        out[p] = Value(total, half_points(total))
    return out


def _buchholz(
    ct: Crosstable, group: Sequence[str], params: Mapping[str, Any], mod: Modifier
) -> dict[str, Value]:
    return _summed_scores(
        group, mod, lambda p: _contributions(ct, p, False, params["predetermined"])
    )


register_variants(
    "buchholz",
    "Buchholz",
    f"{SOURCE}, 8.1, 16.3-16.5",
    """Buchholz, BH (Art. 8.1): the sum of the scores of the player's opponents.

    Each opponent counts with their adjusted score (Art. 16.3: a withdrawn opponent's missing
    rounds count as draws); each of the player's own unplayed rounds counts the dummy opponent
    of Art. 16.4: the player's own score, which the 2026 text caps at the scheduled opponent's
    adjusted score for a forfeit (16.4.1) and at draw points × rounds for a bye or absence
    (16.4.2). With a modifier (Art. 14), the VUR exception of Art. 16.5 applies. Buchholz is
    not for round robins (Art. 8.1; the 2026 text says so for all of Art. 8).""",
    _buchholz,
    (PLAIN, CUT1, CUT2, MEDIAN1, MEDIAN2),
    {"predetermined": _PREDETERMINED},
    unit="points",
    reading=half_points_key,
    radius=1,  # the opponents' adjusted scores and the 16.4.1 cap read their rounds
)


def _sonneborn_berger(
    ct: Crosstable, group: Sequence[str], params: Mapping[str, Any], mod: Modifier
) -> dict[str, Value]:
    out = {}
    for p in group:
        contribs = _contributions(ct, p, True, params["predetermined"])
        kept = apply_modifier(contribs, mod.low, mod.high)
        total = Fraction(sum(c.quarters for c in kept), 4)
        out[p] = Value(total, fraction_shown(total))
    return out


register_variants(
    "fide-sonneborn-berger",
    "Sonneborn-Berger",
    f"{SOURCE}, 9.1, 16.3-16.5",
    """Sonneborn-Berger, SB (Art. 9.1): for each round, the opponent's score times the points
    the player scored in it (a win counts the full score, a draw half of it).

    Unlike the plain `sonneborn-berger`, the opponent's score is the adjusted one (Art. 16.3)
    and every unplayed round of the player is a game against the dummy opponent of Art. 16.4:
    a forfeit win or pairing-allocated bye adds the dummy's score, a half-point bye half of it,
    a zero-point bye, absence or forfeit loss nothing. The dummy's score is the player's own,
    capped under the 2026 text as in Buchholz (16.4.1 for a forfeit, 16.4.2 for a bye). The
    least significant value for a cut is the contribution of the lowest-scored opponent
    (Art. 14, VUR exception 16.5). In round robins use `predetermined`: forfeits are then games
    against the scheduled opponent.""",
    _sonneborn_berger,
    (PLAIN, CUT1, CUT2),
    {"predetermined": _PREDETERMINED},
    unit="points",
    reading=points_key,
    radius=1,  # the opponents' adjusted scores and the 16.4.1 cap read their rounds
)


# --- fore-Buchholz, average of opponents' Buchholz (Art. 8.3, 8.2) -----------------------------


def _fore_scores(ct: Crosstable, pid: str) -> tuple[int, int]:
    """(own, as an opponent) scores for fore-Buchholz (Art. 8.3): a player paired with an
    opponent in the final round R (a game or a forfeit) counts that round as a draw, and their
    earlier rounds as given; anyone else keeps their score and, as an opponent, their adjusted
    score (Art. 16.3)."""

    def compute() -> tuple[int, int]:
        rounds = rounds_counted(ct)
        record = slots(ct, pid, rounds)
        points = ct.points.get(pid, 0)
        last = record[-1] if record else None
        if last is not None and last.round == rounds and last.opponent is not None:
            fore = points - last.points + ct.scoring.draw
            return fore, fore
        return points, adjusted_score(ct, pid, rounds)

    return ct.memo(("fide.fore", pid), compute)


def _fore_contributions(ct: Crosstable, pid: str) -> tuple[Contribution, ...]:
    """What each round adds to fore-Buchholz, once per player and crosstable (`_contributions`)."""
    return ct.memo(("fide.fore-contributions", pid), lambda: _compute_fore(ct, pid))


def _compute_fore(ct: Crosstable, pid: str) -> tuple[Contribution, ...]:
    rounds = rounds_counted(ct)

    def adjusted(opponent: str) -> int:
        return _fore_scores(ct, opponent)[1]

    own = _fore_scores(ct, pid)[0]
    out = []
    for s in slots(ct, pid, rounds):
        d = None
        # The final round's paired games, forfeits included, are games ending in a draw.
        if s.opponent is not None and (s.played or s.round == rounds):
            score, vur = adjusted(s.opponent), False
        else:
            d = dummy(ct, pid, s, own, adjusted)  # Art. 16.4, with the fore scores
            score, vur = d.score, s.vur
        out.append(Contribution(s.round, score, 2 * score, vur, d))
    return tuple(out)


def _fore_buchholz(
    ct: Crosstable, group: Sequence[str], params: Mapping[str, Any], mod: Modifier
) -> dict[str, Value]:
    return _summed_scores(group, mod, lambda p: _fore_contributions(ct, p))


register_variants(
    "fide-fore-buchholz",
    "fore-Buchholz",
    f"{SOURCE}, 8.3, 16.3-16.5",
    """Fore-Buchholz, FB (Art. 8.3): Buchholz computed as if every game paired for the final
    round had ended in a draw, so that it is known before that round is played.

    A player paired with an opponent in the final round (a game or a forfeit: it counts as a
    drawn game against that opponent) has that round's result replaced by a draw, in their own
    score and in the score their opponents count for them; such a player's earlier rounds count
    as given (the final round is not a VUR). A pairing-allocated or requested bye in the final
    round keeps its points. Otherwise as Buchholz: adjusted scores of the opponents (Art. 16.3),
    the dummy opponent of Art. 16.4 for the player's own unplayed rounds (with the player's fore
    score; capped under the 2026 text, 16.4.1 and 16.4.2), the VUR exception of 16.5 for the
    modifiers. The final round is the last round with a result or a bye.""",
    _fore_buchholz,
    (PLAIN, CUT1, CUT2, MEDIAN1, MEDIAN2),
    unit="points",
    reading=half_points_key,
    radius=1,  # the opponents' fore scores and the 16.4.1 cap read their rounds
)


def decimal_shown(value: Fraction, places: int = 2) -> str:
    """An exact value shown rounded half up to `places` decimals: 40/3 -> 13.33."""
    scaled = math.floor(value * 10**places + Fraction(1, 2))
    whole, frac = divmod(scaled, 10**places)
    return f"{whole}.{frac:0{places}d}"


@c07_criterion(
    "fide-aob",
    "average of opponents' Buchholz",
    f"{SOURCE}, 8.2, 16",
    params={
        "fore": Param(
            bool,
            False,
            doc="average the opponents' fore-Buchholz instead (AOB/F: the 2026 text's Art. 8.2 "
            "names it)",
        )
    },
    unit="points",
    reading=points_key,
    radius=2,  # the opponents' Buchholz reads their opponents' rounds
)
def fide_aob(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """Average of opponents' Buchholz, AOB (Art. 8.2): the mean Buchholz (Art. 8.1, with its
    Art. 16 rules, so under the 2026 text with the capped dummies of 16.4) of the opponents met
    over the board; an opponent met twice counts twice (Art. 4.4). Exact: the standings show it
    rounded to two decimals (FIDE's tie-break server rounds it to two decimals for up to 8
    rounds, three up to 26). No value without a game played. With `fore`, the opponents'
    fore-Buchholz (Art. 8.3)."""
    rounds = rounds_counted(ct)
    family = "fide-fore-buchholz" if params["fore"] else "buchholz"
    bh = field_buchholz(ct, family)
    out = {}
    for p in group:
        met = [s.opponent for s in slots(ct, p, rounds) if s.played and s.opponent is not None]
        if not met:
            out[p] = Value(None, NO_VALUE)
            continue
        avg = Fraction(sum(bh[o] for o in met), 2 * len(met))
        out[p] = Value(avg, decimal_shown(avg))
    return out


def field_buchholz(ct: Crosstable, family: str) -> dict[str, int]:
    """Every player's Buchholz or fore-Buchholz (no modifier), in half-points."""

    def compute() -> dict[str, int]:
        return {p: buchholz_of(ct, family, p) for p in ct.players}

    return ct.memo(field_buchholz_key(family), compute)


def field_buchholz_key(family: str) -> tuple[str, str]:
    """The memo key of `field_buchholz`."""
    return ("fide.field", family)


def buchholz_of(ct: Crosstable, family: str, pid: str) -> int:
    """One player's Buchholz or fore-Buchholz (no modifier), in half-points."""
    contribs = _fore_contributions if family == "fide-fore-buchholz" else _bh_contributions
    return sum(c.score for c in contribs(ct, pid))


def _bh_contributions(ct: Crosstable, pid: str) -> tuple[Contribution, ...]:
    return _contributions(ct, pid, False, False)


def dummies(ct: Crosstable, pid: str) -> list[Dummy]:
    """The dummy opponents of the player's own unplayed rounds (Art. 16.4), as Buchholz and
    Sonneborn-Berger count them under the tournament's edition."""
    return [c.dummy for c in _contributions(ct, pid, False, False) if c.dummy is not None]


# --- what the edition changes, for the explanations ---------------------------------------------

#: Criteria whose values follow the tournament's C.07 edition (Art. 16.4), by family.
EDITION_FAMILIES = ("buchholz", "fide-sonneborn-berger", "fide-fore-buchholz", "fide-aob")


def family_of(name: str) -> tuple[str, Modifier] | None:
    """The criterion's family and modifier: "buchholz-cut1" -> ("buchholz", CUT1)."""
    return _VARIANTS.get(name)


def follows_edition(name: str, params: Mapping[str, Any]) -> bool:
    """The criterion's values depend on the C.07 edition (only through Art. 16.4, so not with
    pre-determined pairings)."""
    fam = family_of(name)
    return fam is not None and fam[0] in EDITION_FAMILIES and not params.get("predetermined")


def unplayed_notes(ct: Crosstable, pid: str, name: str, params: Mapping[str, Any]) -> list[str]:
    """The player's own unplayed rounds as the criterion counts them, each naming its dummy
    opponent and the cap that applied (Art. 16.4, with the edition's citation), then the rounds
    a modifier left out: what `arbiter explain` shows beside the value. For the average of
    opponents' Buchholz, the capped dummies in the opponents' Buchholz (`aob_notes`)."""
    fam = family_of(name)
    if fam is None or not follows_edition(name, params):
        return []
    family, mod = fam
    if family == "fide-aob":
        return aob_notes(ct, pid, params["fore"])
    if family == "fide-fore-buchholz":
        contribs = _fore_contributions(ct, pid)
    else:
        contribs = _contributions(ct, pid, family == "fide-sonneborn-berger", False)
    notes = [c.dummy.text() for c in contribs if c.dummy is not None]
    kept = apply_modifier(contribs, mod.low, mod.high)
    for c in contribs:
        if c not in kept:
            sb = family == "fide-sonneborn-berger"
            value = fraction_shown(c.value) if sb else half_points(c.score)
            why = f"{mod.label}, Art. {mod.article}" + (", a VUR, 16.5" if c.vur else "")
            notes.append(f"round {c.round}: {value} left out ({why})")
    return notes


def aob_notes(ct: Crosstable, pid: str, fore: bool = False) -> list[str]:
    """AOB (Art. 8.2) averages the Buchholz (AOB/F: the fore-Buchholz) of the opponents met
    over the board, each with its own dummy opponents (Art. 16.4): one note per dummy that a
    cap lowered, naming the opponent, e.g. "opponent e (E), Buchholz round 3: pairing-allocated
    bye, dummy capped at draw points × rounds 2 (C.07 2026, 16.4.2)". Opponents in the order
    first met, each once. Only the 2026 text caps (16.4.1, 16.4.2): under the 2024 text a dummy
    is never capped (`Dummy.capped`), so there is nothing to say; a dummy whose own score is
    not above its cap is not named (it counts as under 2024)."""
    rounds = rounds_counted(ct)
    met = [s.opponent for s in slots(ct, pid, rounds) if s.played and s.opponent is not None]
    what = "fore-Buchholz" if fore else "Buchholz"
    notes = []
    for opponent in dict.fromkeys(met):
        contribs = _fore_contributions(ct, opponent) if fore else _bh_contributions(ct, opponent)
        name = ct.players[opponent].name
        who = f"{opponent} ({name})" if name and name != opponent else opponent
        notes += [
            f"opponent {who}, {what} {c.dummy.text()}"
            for c in contribs
            if c.dummy is not None and c.dummy.capped
        ]
    return notes


# --- Direct encounter (Art. 6) ------------------------------------------------------------------


@c07_criterion(
    "fide-direct-encounter",
    "direct encounter",
    f"{SOURCE}, 6",
    group_relative=True,
    reapply=True,
    params={"predetermined": _PREDETERMINED},
    unit="points",
    reading=half_points_key,
    radius="group",
)
def fide_direct_encounter(
    ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]
) -> dict[str, Value]:
    """Direct encounter (Art. 6): the points each tied player scored in the games between them.

    Only games played over the board count (with `predetermined`, forfeits too). When two tied
    players met more than once, their score against each other is the average. If every tied
    player has met every other, the sums rank them. If not (Swiss), a player is ranked first
    only when they would stay alone on top whatever the missing games' results (their score is
    above every other's score with all their missing games won), then the same for second
    place, and so on; the others stay tied. The criterion is re-applied to every sub-group it
    separates.
    """
    members = sorted(group)
    games = [
        g
        for g in ct.games_between(members)
        if (g.played or params["predetermined"]) and g.white != g.black
    ]
    per_pair: dict[tuple[str, str], list[int]] = {}
    for g in games:
        for p in (g.white, g.black):
            per_pair.setdefault((p, g.opponent_of(p)), []).append(g.points_of(p))
    # Half-points: integers, unless two players met more than once (then the average, exact).
    score: dict[str, int | Fraction] = dict.fromkeys(members, 0)
    met = dict.fromkeys(members, 0)
    for (p, _q), pts in per_pair.items():
        score[p] += pts[0] if len(pts) == 1 else Fraction(sum(pts), len(pts))
        met[p] += 1
    others = len(members) - 1
    if params["predetermined"] or all(met[p] == others for p in members):
        return {p: Value(Fraction(score[p]), _half_points(score[p])) for p in members}
    best = {p: score[p] + (others - met[p]) * ct.scoring.win for p in members}
    ordered = sorted(members, key=lambda p: (-score[p], -best[p], p))
    key = dict.fromkeys(members, 0)
    for i, p in enumerate(ordered[:-1]):
        if not score[p] > max(best[q] for q in ordered[i + 1 :]):
            break
        key[p] = len(members) - i
    return {
        p: Value(
            key[p],
            f"{_half_points(score[p])} (max {_half_points(best[p])})",
            number=score[p],  # the key only ranks: the score and the best reachable, Art. 6.2
            best=best[p],
        )
        for p in members
    }


def _half_points(value: int | Fraction) -> str:
    """`half_points` of an exact score as it shows a Fraction (a negative whole number too)."""
    if isinstance(value, int) and value >= 0:
        return half_points(value)  # the same text as for Fraction(value), without Fractions
    return half_points(Fraction(value))


# --- the player's own results (Art. 7) ----------------------------------------------------------


def own_count(name: str, label: str, article: str) -> Callable[[Compute], Compute]:
    """Register a count of the player's own rounds (Art. 7): a whole number, which a changed
    game changes for its two players only (radius 0)."""
    return c07_criterion(
        name, label, f"{SOURCE}, {article}", unit="count", reading=count_key, radius=0
    )


@own_count("fide-wins", "wins", "7.1")
def fide_wins(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """Number of wins, WIN (Art. 7.1): rounds in which the player scored as many points as a
    win gives, with or without playing (games won, forfeit wins, byes worth a win)."""
    win = ct.scoring.win
    return count_rounds(ct, group, lambda e: e.points == win)


@own_count("fide-games-won", "games won", "7.2")
def fide_games_won(
    ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]
) -> dict[str, Value]:
    """Number of games won over the board, WON (Art. 7.2): forfeits and byes do not count."""
    return count_rounds(ct, group, lambda e: e.kind == "played" and e.outcome == "win")


@own_count("fide-black-games", "games with Black", "7.3")
def fide_black_games(
    ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]
) -> dict[str, Value]:
    """Number of games played with Black, BPG (Art. 7.3): over the board only (a forfeit is
    not a game played)."""
    return count_rounds(ct, group, lambda e: e.kind == "played" and e.colour == "black")


@own_count("fide-black-wins", "wins with Black", "7.4")
def fide_black_wins(
    ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]
) -> dict[str, Value]:
    """Number of games won with Black, BWG (Art. 7.4): over the board only."""
    return count_rounds(
        ct, group, lambda e: e.kind == "played" and e.colour == "black" and e.outcome == "win"
    )


def _progressive(
    ct: Crosstable, group: Sequence[str], params: Mapping[str, Any], mod: Modifier
) -> dict[str, Value]:
    rounds = rounds_counted(ct)
    out = {}
    for p in group:
        running = total = 0
        for s in slots(ct, p, rounds):
            running += s.points
            if s.round > mod.low:
                total += running
        out[p] = Value(total, half_points(total))
    return out


register_variants(
    "fide-progressive",
    "progressive score",
    f"{SOURCE}, 7.5",
    """(Sum of) progressive scores, PS (Art. 7.5): the player's running score after each
    round, summed over the rounds (every round counts what it gave: byes and forfeits
    included, an absence or a round after a withdrawal 0). For this criterion the least
    significant values are the first rounds': Cut-n leaves out the running scores of rounds
    1..n.""",
    _progressive,
    (PLAIN, CUT1, CUT2),
    unit="points",
    reading=half_points_key,
    radius=0,
)


# --- opponents' scores and the player's own (Art. 9.2) ------------------------------------------


@c07_criterion(
    "fide-koya",
    "Koya",
    f"{SOURCE}, 9.2",
    params={
        "limit": Param(
            int,
            50,
            lambda v: None if 0 <= v <= 100 else "a percentage, 0 to 100",
            doc="opponents count when their score is at least this % of the maximum possible",
        )
    },
    unit="points",
    reading=half_points_key,
    radius="field",  # the maximum possible score reads who took part
)
def fide_koya(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """Koya system, KS (Art. 9.2), for round robins: the points scored against the opponents
    who finished with at least 50 % (the `limit`) of the maximum possible score.

    The maximum possible score is a win for each game of a complete round robin among the
    players who took part: (players - 1) x cycles wins. Games against the scheduled opponent
    count, forfeits included (pre-determined pairings).
    """
    points = ct.points
    active = [p for p, es in ct.entries.items() if any(e.opponent for e in es)]
    cycles = max((e.cycle for es in ct.entries.values() for e in es), default=1)
    maximum = max(len(active) - 1, 0) * cycles * ct.scoring.win
    limit = params["limit"]
    out = {}
    for p in group:
        total = sum(
            e.points
            for e in ct.entries.get(p, ())
            if e.opponent is not None and 100 * points.get(e.opponent, 0) >= limit * maximum
        )
        out[p] = Value(total, half_points(total))
    return out


# --- ratings (Art. 10) --------------------------------------------------------------------------


def _round_half_up(x: Fraction) -> int:
    return math.floor(x + Fraction(1, 2))


def _ratings(ct: Crosstable, params: Mapping[str, Any]) -> dict[str, int] | None:
    """Each player's rating for Art. 10, or None when the criterion must be dropped (an unrated
    player and no rating given to unrated players)."""
    default = params["unrated_rating"] or None
    out = {}
    for pid, info in ct.players.items():
        rating = info.rating if info.rating else default
        if rating is None:
            return None
        out[pid] = rating
    return out


def _played(ct: Crosstable, pid: str) -> list[Entry]:
    """Games played over the board (Art. 10: forfeits are excluded)."""
    return [e for e in ct.entries.get(pid, ()) if e.kind == "played" and e.opponent is not None]


def average_rating(ratings: Sequence[int]) -> int | None:
    """ARO arithmetic (Art. 10.1): the mean rounded to the nearest integer, .5 up."""
    if not ratings:
        return None
    return _round_half_up(Fraction(sum(ratings), len(ratings)))


def performance(ratings: Sequence[int], score2: int) -> int | None:
    """TPR arithmetic (Art. 10.2): ARO + dp(p), p = score / games rounded to a hundredth (.5
    up), dp from FIDE B.02 table 8.1(a). `score2` is the score in half-points."""
    aro = average_rating(ratings)
    if aro is None:
        return None
    return aro + DP_TABLE[_round_half_up(Fraction(50 * score2, len(ratings)))]


_RATING_OUTCOME = {"win": 2, "draw": 1, "loss": 0}  # rating regulations score 1 / ½ / 0

_UNRATED = Param(
    int,
    0,
    lambda v: None if v >= 0 else "a rating, or 0 for none",
    doc="rating used for unrated players, as the tournament regulations set it (Art. 10); "
    "0: none, so the criterion is dropped when a player is unrated",
)


def _tpr_all(ct: Crosstable, params: Mapping[str, Any]) -> dict[str, int | None] | None:
    ratings = _ratings(ct, params)
    if ratings is None:
        return None
    out = {}
    for p in ct.players:
        games = _played(ct, p)
        score2 = sum(_RATING_OUTCOME[e.outcome] for e in games)
        out[p] = performance([ratings[e.opponent] for e in games if e.opponent], score2)
    return out


def _rating_value(v: int | None) -> Value:
    return Value(v, str(v) if v is not None else NO_VALUE)


def _aro(
    ct: Crosstable, group: Sequence[str], params: Mapping[str, Any], mod: Modifier
) -> dict[str, Value]:
    ratings = _ratings(ct, params)
    out = {}
    for p in group:
        if ratings is None:
            out[p] = _rating_value(None)
            continue
        opp = sorted(ratings[e.opponent] for e in _played(ct, p) if e.opponent)
        opp = opp[mod.low : len(opp) - mod.high]
        out[p] = _rating_value(average_rating(opp))
    return out


register_variants(
    "fide-aro",
    "average rating of opponents",
    f"{SOURCE}, 10.1",
    """Average rating of opponents, ARO (Art. 10.1): the mean rating of the opponents met
    over the board (forfeits excluded), rounded to the nearest integer (.5 up). With a modifier
    (Art. 14) the lowest (and highest) rated opponents are left out. No value without a game,
    or when the criterion is dropped for an unrated player (Art. 10).""",
    _aro,
    (PLAIN, CUT1, CUT2, MEDIAN1, MEDIAN2),
    {"unrated_rating": _UNRATED},
    unit="rating",
    reading=count_key,
    radius=0,  # the ratings of the player's opponents: no result changes them
)


@c07_criterion(
    "fide-tpr",
    "performance rating",
    f"{SOURCE}, 10.2; FIDE B.02 8.1(a)",
    params={"unrated_rating": _UNRATED},
    unit="rating",
    reading=count_key,
    radius=0,
)
def fide_tpr(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """Tournament performance rating, TPR (Art. 10.2): ARO + dp, where dp comes from the FIDE
    rating regulations' table (B.02 8.1(a)) for the fraction p of the points scored in the games
    played over the board (rating scoring 1 / ½ / 0), p rounded to a hundredth. Exact integer
    arithmetic. No value without a game, or when dropped for an unrated player (Art. 10)."""
    tpr = _tpr_all(ct, params)
    return {p: _rating_value(tpr[p] if tpr is not None else None) for p in group}


@c07_criterion(
    "fide-apro",
    "average performance of opponents",
    f"{SOURCE}, 10.4",
    params={"unrated_rating": _UNRATED},
    unit="rating",
    reading=count_key,
    radius=1,  # the opponents' TPR reads their rounds
)
def fide_apro(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """Average performance rating of opponents, APRO (Art. 10.4): the mean TPR (Art. 10.2) of
    the opponents met over the board, rounded to the nearest integer (.5 up)."""
    tpr = _tpr_all(ct, params)
    out = {}
    for p in group:
        if tpr is None:
            out[p] = _rating_value(None)
            continue
        values = [t for e in _played(ct, p) if e.opponent and (t := tpr[e.opponent]) is not None]
        out[p] = _rating_value(average_rating(values))
    return out


# --- presets ------------------------------------------------------------------------------------


def _spec(name: str, **params: Any) -> TiebreakSpec:
    return TiebreakSpec(name=name, params=params)


#: Presets this rulebook defines (merged into projections.tiebreaks.presets.PRESETS).
#:
#: C.07 Art. 4.1 (in both editions) leaves the ordered list to the organiser and publishes no
#: default one, so these are our reading, built only from C.07 criteria: no rating-based
#: criterion (Art. 10 would drop it as soon as one player is unrated), no Buchholz in round
#: robins (Art. 8.1), and ties still level at the end share the place (Art. 2.1 lets the
#: regulations say so).
PRESETS: dict[str, Chain] = {
    # Individual Swiss: opponents' strength first (Buchholz Cut-1, then full), then the games
    # between the tied players, Sonneborn-Berger, and wins.
    "fide-swiss": Chain(
        (
            _spec("buchholz-cut1"),
            _spec("buchholz"),
            _spec("fide-direct-encounter"),
            _spec("fide-sonneborn-berger"),
            _spec("fide-wins"),
            _spec("shared-place"),
        )
    ),
    # Individual round robin (pre-determined pairings: forfeits are games): direct encounter,
    # wins, Sonneborn-Berger, Koya.
    "fide-round-robin": Chain(
        (
            _spec("fide-direct-encounter", predetermined=True),
            _spec("fide-wins"),
            _spec("fide-sonneborn-berger", predetermined=True),
            _spec("fide-koya"),
            _spec("shared-place"),
        )
    ),
}
