"""The prize and points tables in force: the creation's, or the latest correction ruling's.

A correction is an event like any other (no new event type): a `RulingIssued` with

* `subject: "prize_table"` and `decision: {"prize_table": {<PrizeTable>}}`, or
* `subject: "points_table"` and `decision: {"points_table": ["13", "10", ...]}`

replaces the table from `TournamentCreated`. The latest such ruling still in force wins
(`EventRetracted` of a ruling removes it from the fold, so the previous one applies again).
A ruling whose decision does not validate is skipped and named in the notes; the decider
should refuse it at append time (see the report on `projections/tournament/decide.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated, Generic, TypeVar

from pydantic import Field, TypeAdapter, ValidationError

from events_schema.events import PrizeTable
from projections.standings.state import StandingsState

PRIZE_TABLE_SUBJECT = "prize_table"
POINTS_TABLE_SUBJECT = "points_table"

T = TypeVar("T")

_POINTS: TypeAdapter[list[Decimal]] = TypeAdapter(list[Annotated[Decimal, Field(ge=0)]])


@dataclass(frozen=True)
class InForce(Generic[T]):
    value: T
    source: str  # "TournamentCreated" or "RulingIssued <ruling_id>"
    notes: tuple[str, ...] = ()


def prize_table_in_force(state: StandingsState) -> InForce[PrizeTable | None]:
    created = state.created
    value: PrizeTable | None = created.prize_table if created is not None else None
    source = "TournamentCreated"
    notes: list[str] = []
    for ruling in state.rulings.values():  # stream order
        if ruling.subject != PRIZE_TABLE_SUBJECT or "prize_table" not in ruling.decision:
            continue
        try:
            value = PrizeTable.model_validate(ruling.decision["prize_table"])
        except ValidationError as exc:
            notes.append(f"ruling {ruling.ruling_id} ignored: invalid prize_table ({exc})")
            continue
        source = f"RulingIssued {ruling.ruling_id}"
    return InForce(value, source, tuple(notes))


def points_table_in_force(state: StandingsState) -> InForce[tuple[Decimal, ...]]:
    created = state.created
    value = tuple(created.points_table) if created is not None else ()
    source = "TournamentCreated"
    notes: list[str] = []
    for ruling in state.rulings.values():
        if ruling.subject != POINTS_TABLE_SUBJECT or "points_table" not in ruling.decision:
            continue
        try:
            value = tuple(_POINTS.validate_python(ruling.decision["points_table"]))
        except ValidationError as exc:
            notes.append(f"ruling {ruling.ruling_id} ignored: invalid points_table ({exc})")
            continue
        source = f"RulingIssued {ruling.ruling_id}"
    return InForce(value, source, tuple(notes))
