"""What a series table needs from each tournament of the series, and the shared-place order.

A series projection takes the series' `SeriesCreated` and, for each tournament of the series
in order of completion, either its `StandingsState` (with the tournament id) or an
`EventStanding` already read from one. Reading a fold means ranking its main stage with the
tournament's own chain (`standings(state)`) and taking the prize and points tables in force.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, Protocol

from events_schema.events import PrizeTable
from projections.prizes.common import points_str
from projections.prizes.corrections import points_table_in_force, prize_table_in_force
from projections.standings.state import StandingsState
from projections.standings.table import standings


@dataclass(frozen=True)
class Placing:
    place: int
    player_id: str


@dataclass(frozen=True)
class EventStanding:
    """One finished tournament of a series, as the series tables read it."""

    tournament_id: str
    name: str
    cycles: int
    rows: tuple[Placing, ...]  # final table, shared places numbered 1, 2, 2, 4
    rules_preset: str | None = None
    points_table: tuple[Decimal, ...] = ()
    prize_table: PrizeTable | None = None
    series_id: str | None = None
    sources: tuple[tuple[str, str], ...] = ()

    @property
    def participants(self) -> int:
        return len(self.rows)


Entry = EventStanding | tuple[str, StandingsState]


class _Result(Protocol):
    def as_dict(self) -> dict[str, Any]: ...


class SeriesRow(Protocol):
    """What every series table's row has (`CzechRow`, `TourRow`)."""

    @property
    def place(self) -> int: ...
    @property
    def shared(self) -> bool: ...
    @property
    def player_id(self) -> str: ...
    @property
    def points(self) -> Fraction: ...
    @property
    def decided_by(self) -> str: ...
    @property
    def results(self) -> Sequence[_Result]: ...


def row_dict(row: SeriesRow, middle: dict[str, Any]) -> dict[str, Any]:
    """A series table's row as published: its place, player and points, then `middle` (what
    that table adds), then what decided it against the row above and its results."""
    return {
        "place": row.place,
        "shared": row.shared,
        "player_id": row.player_id,
        "points": points_str(row.points),
        **middle,
        "decided_by": row.decided_by,
        "results": [r.as_dict() for r in row.results],
    }


def event_standing(tournament_id: str, state: StandingsState) -> EventStanding:
    created = state.created
    if created is None:
        raise ValueError(f"tournament {tournament_id!r}: no TournamentCreated in the stream")
    prize = prize_table_in_force(state)
    points = points_table_in_force(state)
    return EventStanding(
        tournament_id=tournament_id,
        name=created.name,
        cycles=created.cycles,
        rows=tuple(Placing(r.place, r.player_id) for r in standings(state).rows),
        rules_preset=created.rules_preset,
        points_table=points.value,
        prize_table=prize.value,
        series_id=created.series_id,
        sources=(("prize_table", prize.source), ("points_table", points.source)),
    )


def read_entries(entries: Sequence[Entry], series_id: str | None) -> list[EventStanding]:
    """The entries as `EventStanding`s; with `series_id`, a tournament created for another
    series is refused."""
    out: list[EventStanding] = []
    ids: set[str] = set()
    for entry in entries:
        es = entry if isinstance(entry, EventStanding) else event_standing(*entry)
        if es.tournament_id in ids:
            raise ValueError(f"tournament {es.tournament_id!r} given twice")
        ids.add(es.tournament_id)
        if series_id is not None and es.series_id not in (None, series_id):
            raise ValueError(
                f"tournament {es.tournament_id!r} belongs to series {es.series_id!r}, "
                f"not {series_id!r}"
            )
        out.append(es)
    return out


def ordered_blocks(
    players: Iterable[str], key: Callable[[str], tuple[Any, ...]]
) -> list[list[str]]:
    """Players in blocks of equal `key` (smaller key = better), best block first; a block
    lists its players by id."""
    out: list[list[str]] = []
    last: tuple[Any, ...] | None = None
    for p in sorted(players, key=lambda p: (key(p), p)):
        k = key(p)
        if out and k == last:
            out[-1].append(p)
        else:
            out.append([p])
        last = k
    return out
