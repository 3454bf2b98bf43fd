"""The order of a series' tournaments: which count, and in what order.

Pure (no log, no I/O): the CLI (services/cli/tables.py) and any API hand it each tournament
of the series with its standings fold and the time its last event was recorded.

Note for the lead: this is projection logic and could later move to `projections/series/`.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import NamedTuple

from projections.playoffs.base import main_stage_complete
from projections.standings import StandingsState


class SeriesEntry(NamedTuple):
    """One tournament of a series: its id, when its last event was recorded, its fold."""

    tournament_id: str
    last_recorded_at: datetime
    state: StandingsState


def order_series(
    entries: Iterable[SeriesEntry],
) -> tuple[list[tuple[str, StandingsState]], list[str]]:
    """The completed tournaments (main stage complete) in order of completion, the time
    their last event was recorded, ties by id; and the ids of those still in progress,
    sorted."""
    done: list[SeriesEntry] = []
    running: list[str] = []
    for entry in entries:
        if main_stage_complete(entry.state):
            done.append(entry)
        else:
            running.append(entry.tournament_id)
    done.sort(key=lambda e: (e.last_recorded_at, e.tournament_id))
    return [(e.tournament_id, e.state) for e in done], sorted(running)
