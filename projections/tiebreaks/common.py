"""Criteria shared by several rulebooks: direct encounter and Sonneborn-Berger; and the
counting the rulebooks' criteria share (points in the games between a group, rounds counted)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from projections.tiebreaks.registry import (
    Param,
    Value,
    criterion,
    half_points,
    half_points_key,
    points_key,
)

if TYPE_CHECKING:
    from projections.standings.crosstable import Crosstable, Entry, Game


#: Quarter points as the score column writes halves (½): Sonneborn-Berger adds half an
#: opponent's score for a draw, so its values are quarters.
_QUARTERS = {1: "¼", 2: "½", 3: "¾"}


def fraction_shown(value: Fraction) -> str:
    """Exact value in the notation of the score column: whole, half and quarter points with
    the vulgar fractions (8¾, 5½, ¼: Sonneborn-Berger beside a score of 3½), other finite
    decimals as decimals (2.2), else as a fraction (1/3)."""
    if value.denominator in (1, 2, 4):
        if value < 0:
            return "-" + fraction_shown(-value)
        whole, quarters = divmod(value.numerator * (4 // value.denominator), 4)
        if not quarters:
            return str(whole)
        return f"{whole or ''}{_QUARTERS[quarters]}"
    return exact_shown(value)


def exact_shown(value: Fraction) -> str:
    """Exact value as a short decimal when it has one, else as a fraction: 8.75, 1/3."""
    if value.denominator in (1, 2, 4, 5, 8, 10, 16, 20, 25, 40, 50, 100):
        text = f"{float(value):.4f}".rstrip("0").rstrip(".")
        return text
    return f"{value.numerator}/{value.denominator}"


def mutual_points(group: Sequence[str], games: Iterable[Game]) -> dict[str, Value]:
    """Each player of `group`'s points (half-points) in `games`, games between the group's
    members: the score of a direct encounter or mini-table."""
    score = dict.fromkeys(group, 0)
    for g in games:
        score[g.white] += g.white_points
        score[g.black] += g.black_points
    return {p: Value(score[p], half_points(score[p])) for p in group}


def count_rounds(
    ct: Crosstable, group: Sequence[str], keep: Callable[[Entry], bool]
) -> dict[str, Value]:
    """Per player, the number of their rounds (crosstable entries) that `keep` accepts: wins,
    games with Black, ..."""
    counts = {p: sum(1 for e in ct.entries.get(p, ()) if keep(e)) for p in group}
    return {p: Value(n, str(n)) for p, n in counts.items()}


@criterion(
    "direct-encounter",
    "direct encounter",
    "TCEC Leagues 11.1.1 / Swiss 3.4 / FRD 3.1 (FIDE's DE: fide-direct-encounter)",
    group_relative=True,
    params={
        "require_all_met": Param(
            bool,
            False,
            doc="only when every tied player has met every other (else no value)",
        )
    },
    unit="points",
    reading=half_points_key,
    radius="group",
)
def direct_encounter(
    ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]
) -> dict[str, Value]:
    """Points scored in the games played between the tied players only (all cycles).

    TCEC: "the direct encounter(s) between the tied engines decides". Unplayed games (forfeits)
    do not count. With `require_all_met`, the criterion separates nobody unless every pair of
    tied players has met (FIDE's own, subtler rule is `fide-direct-encounter`).
    """
    games = [g for g in ct.games_between(group) if g.played]
    if params["require_all_met"]:
        met = {frozenset((g.white, g.black)) for g in games}
        members = sorted(group)
        pairs = {frozenset((a, b)) for i, a in enumerate(members) for b in members[i + 1 :]}
        if not pairs <= met:
            return {p: Value(None, "–") for p in group}
    return mutual_points(group, games)


@criterion(
    "sonneborn-berger",
    "Sonneborn-Berger",
    "TCEC Leagues 11.1.2 / Swiss 3.1 / FRD 3.2 (FIDE's SB: fide-sonneborn-berger)",
    params={
        "count_forfeits": Param(bool, False, doc="count games won or lost by forfeit"),
    },
    unit="points",
    reading=points_key,
    radius=1,  # the opponents' scores
)
def sonneborn_berger(
    ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]
) -> dict[str, Value]:
    """Sum over the games of the opponent's final score times the points the player took from
    that game (in points: a win counts the opponent's full score, a draw half of it)."""
    points = ct.points
    out = {}
    for p in group:
        total = Fraction(0)
        for e in ct.entries.get(p, ()):
            if e.opponent is None or e.game is None:
                continue
            if not e.game.played and not params["count_forfeits"]:
                continue
            total += Fraction(points.get(e.opponent, 0) * e.points, 4)
        out[p] = Value(total, fraction_shown(total))
    return out
