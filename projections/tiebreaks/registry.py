"""The tiebreak library's registry: every criterion is a named, documented pure function.

A criterion maps (crosstable, the tied group, its parameters) to one `Value` per player of the
group. `Value.key` orders players, higher is better (a criterion where lower is better negates
its key); `None` means "no value" and ranks after every value. `Value.shown` is what the
standings and explanations print.

A criterion of a rulebook published in editions (FIDE C.07: `projections/tiebreaks/editions.py`)
is registered naming none ("FIDE C.07, 8.1") and shown for a tournament as cited in the edition
it follows (`Criterion.cited`: "FIDE C.07 2026, 8.1"; `Chain.criteria` does so for the chain's
edition).

A criterion declares what its values read (`radius`: `Radius`), so that the incremental
standings (`projections.standings.incremental`) recompute after a changed result only the
players whose values it can change; a new criterion is its function and its `@criterion(...)`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final, Literal

from events_schema.numbers import TiebreakUnit
from projections.tiebreaks.editions import Edition

if TYPE_CHECKING:
    from projections.standings.crosstable import Crosstable


@dataclass(frozen=True, slots=True)
class Value:
    key: Any
    shown: str
    # When the key only ranks (FIDE direct encounter when not everyone met, Art. 6.2): the
    # number it stands for, and the best the player can still reach, in the criterion's
    # reading (`Criterion.reading`). None: the key is the number.
    number: Any = None
    best: Any = None


Reading = Callable[[Any], "Fraction | int"]


# How a criterion's key (or `Value.number`) reads as the exact number the documents carry.
def half_points_key(key: Any) -> Fraction:
    """A key in half-points: the points."""
    return Fraction(key) / 2


def points_key(key: Any) -> Fraction:
    """A key that is the number itself (points, an average)."""
    return Fraction(key)


def negated_key(key: Any) -> Fraction:
    """A key negated because lower is better."""
    return -Fraction(key)


def count_key(key: Any) -> int:
    """A whole number (a count, a rating, an outcome)."""
    return int(key)


def placings_key(key: Any) -> int:
    """`czech.cycle_placings_key`: the sum of placings, negated, first."""
    return -int(key[0])


#: What a criterion's values read, so whose values a changed game can change (the incremental
#: standings recompute only those):
#: - 0: the player's own rounds (and R): the game's two players;
#: - 1: and their opponents' rounds (an opponent's score, adjusted score, or a cap reading the
#:   opponent's rounds): the two players and their opponents;
#: - 2: and their opponents' opponents' rounds: the opponents' opponents too;
#: - `GROUP` (group-relative criteria only): only the games between the tied group's members;
#: - `FIELD`: anything in the crosstable: recomputed over the whole field.
Radius = Literal[0, 1, 2, "group", "field"]
GROUP: Final = "group"
FIELD: Final = "field"
ABSOLUTE_RADII: tuple[Radius, ...] = (0, 1, 2, FIELD)
GROUP_RADII: tuple[Radius, ...] = (GROUP, FIELD)


Compute = Callable[["Crosstable", Sequence[str], Mapping[str, Any]], dict[str, Value]]
# (criterion, its resolved parameters, the edition) -> (label, source) as shown for a tournament
# following that edition of the criterion's rulebook.
Cite = Callable[["Criterion", Mapping[str, Any], Edition], tuple[str, str]]


@dataclass(frozen=True)
class Param:
    """An allowed parameter: its type, default and a check returning an error or None."""

    type: type
    default: Any
    check: Callable[[Any], str | None] = lambda _v: None
    doc: str = ""


@dataclass(frozen=True)
class Criterion:
    name: str
    label: str
    source: str  # the rule it implements, e.g. "TCEC Leagues 11.1.2"
    compute: Compute
    doc: str = ""
    # The value depends on which players are tied (direct encounter, mini-tables): it is
    # computed per tied group, not once for the whole field.
    group_relative: bool = False
    # A group-relative criterion that is applied again to a sub-group it produced before the
    # chain moves on (Czech A2: the mini-table is re-applied).
    reapply: bool = False
    params: Mapping[str, Param] = field(default_factory=dict)
    # Terminal entries ("shared-place", "organisers-decide") end a chain; they compute nothing.
    terminal: bool = False
    # How the rulebook's edition is named when the criterion is shown (None: one text only).
    cite: Cite | None = None
    # What its values are (the documents' `unit`) and how a key reads as the exact number
    # (`half_points_key`, ...); terminal entries have none.
    unit: TiebreakUnit | None = None
    reading: Reading | None = None
    # What its values read (`Radius`); terminal entries read nothing.
    radius: Radius = FIELD
    # The column heading a spectator reads ("Buchholz cut 1", "Games with Black", "McMahon
    # score"): words, never the article (that is `source`, shown in the explanation and the
    # legend under a table). Empty: the label with a capital (`words`).
    heading: str = ""

    @property
    def words(self) -> str:
        """The criterion in words, as a column heads it (`heading`, else the label)."""
        return self.heading or self.label[:1].upper() + self.label[1:]

    def cited(self, params: Mapping[str, Any], edition: Edition | None) -> Criterion:
        """The criterion as shown for a tournament following `edition` of its rulebook: label
        and source naming the edition as `cite` says; as registered without an edition, or
        when the rulebook has one text."""
        if edition is None or self.cite is None:
            return self
        label, source = self.cite(self, params, edition)
        return dataclasses.replace(self, label=label, source=source)


REGISTRY: dict[str, Criterion] = {}


def criterion(
    name: str,
    label: str,
    source: str,
    *,
    group_relative: bool = False,
    reapply: bool = False,
    params: Mapping[str, Param] | None = None,
    cite: Cite | None = None,
    unit: TiebreakUnit,
    reading: Reading,
    radius: Radius,
    heading: str = "",
) -> Callable[[Compute], Compute]:
    """Register a criterion; its docstring is its documentation. `unit` and `reading` say what
    its values are and how a key reads as the exact number (see `half_points_key`); `radius`
    what its values read (`Radius`: 0, 1, 2 or `FIELD`; a group-relative one `GROUP` or
    `FIELD`); `heading` its column heading in words, when the label is not (`Criterion.words`)."""

    allowed = GROUP_RADII if group_relative else ABSOLUTE_RADII
    if radius not in allowed:
        raise ValueError(f"tiebreak {name!r}: radius {radius!r} is not one of {allowed}")

    def register(fn: Compute) -> Compute:
        if name in REGISTRY:
            raise ValueError(f"tiebreak {name!r} registered twice")
        REGISTRY[name] = Criterion(
            name=name,
            label=label,
            source=source,
            compute=fn,
            doc=(fn.__doc__ or "").strip(),
            group_relative=group_relative,
            reapply=reapply,
            params=dict(params or {}),
            cite=cite,
            unit=unit,
            reading=reading,
            radius=radius,
            heading=heading,
        )
        return fn

    return register


def _no_values(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    return {}


REGISTRY["shared-place"] = Criterion(
    "shared-place",
    "shared place",
    "rules/README 'Shared places'; TCEC Swiss 3.5",
    _no_values,
    doc="Players still level share the place; the next place skips (1, 2, 2, 4).",
    terminal=True,
)
REGISTRY["organisers-decide"] = Criterion(
    "organisers-decide",
    "organisers decide",
    "TCEC Leagues 11.1.7; GCT 4.12",
    _no_values,
    doc="Players still level stay unresolved until a RulingIssued with "
    '{"tiebreak_order": [player ids]} orders them.',
    terminal=True,
)


def resolve_params(crit: Criterion, given: Mapping[str, Any]) -> dict[str, Any]:
    """Defaults filled in; raises ValueError naming the parameter and the rule."""
    unknown = sorted(set(given) - set(crit.params))
    if unknown:
        allowed = ", ".join(sorted(crit.params)) or "none"
        raise ValueError(f"unknown parameter {unknown[0]!r} (allowed: {allowed})")
    out = {}
    for pname, spec in crit.params.items():
        value = given.get(pname, spec.default)
        if not isinstance(value, spec.type) or isinstance(value, bool) != (spec.type is bool):
            raise ValueError(f"parameter {pname!r} must be {spec.type.__name__}, not {value!r}")
        problem = spec.check(value)
        if problem:
            raise ValueError(f"parameter {pname!r}: {problem}")
        out[pname] = value
    return out


def half_points(value: int | Fraction) -> str:
    """Half-points shown as points: 7 -> 3½, 2 -> 1, 1 -> ½."""
    if isinstance(value, int):
        if value < 0:
            return "-" + half_points(-value)
        whole, half = divmod(value, 2)
        if not half:
            return str(whole)
        return f"{whole}½" if whole else "½"
    points = Fraction(value) / 2
    whole = int(points)
    frac = points - whole
    if frac == 0:
        return str(whole)
    if frac == Fraction(1, 2):
        return f"{whole}½" if whole else "½"
    return f"{float(points):.2f}".rstrip("0")
