"""Exact numbers as the projection documents carry them (`events_schema.documents`): an
integer, an exact decimal string or "p/q", never a float; and the units of tiebreak values,
which every registered criterion declares (`projections.tiebreaks.registry.criterion`). Apart
from the document models, so the projections that write these numbers do not load the models
(CLI start-up)."""

from __future__ import annotations

from fractions import Fraction
from typing import Literal, get_args

EXACT_PATTERN = r"^-?[0-9]+(\.[0-9]+)?$|^-?[0-9]+/[0-9]+$"

Exact = int | str  # a JSON integer or an exact decimal / "p/q" string (EXACT_PATTERN)

#: Units of tiebreak values: points (a score, a sum or an average of scores, in points),
#: count (games, wins), rating (Elo), moves (an average game length), placings (a sum of
#: placings, lower better), outcome (1 won / 0 lost the deciding game).
TiebreakUnit = Literal["points", "count", "rating", "moves", "placings", "outcome"]
TIEBREAK_UNITS: tuple[str, ...] = get_args(TiebreakUnit)


def exact(value: Fraction | int) -> Exact:
    """An exact number as the documents carry it: an int, an exact decimal string ("8.5",
    "56.75") when the fraction's decimal expansion is finite, else "p/q" ("31/3")."""
    if isinstance(value, int):
        return value
    q = Fraction(value)
    if q.denominator == 1:
        return int(q.numerator)
    den, twos, fives = q.denominator, 0, 0
    while den % 2 == 0:
        den, twos = den // 2, twos + 1
    while den % 5 == 0:
        den, fives = den // 5, fives + 1
    if den != 1:
        return f"{q.numerator}/{q.denominator}"
    places = max(twos, fives)
    scaled = abs(q.numerator) * 10**places // q.denominator
    whole, frac = divmod(scaled, 10**places)
    sign = "-" if q < 0 else ""
    return f"{sign}{whole}.{frac:0{places}d}"


def exact_str(value: Fraction | int) -> str:
    """`exact` as a string always ("8.5", "8", "31/3"): points in a quantity object."""
    return str(exact(value))
