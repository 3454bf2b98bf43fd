"""projections/series/order.py: which tournaments of a series count, and in what order."""

from __future__ import annotations

from datetime import UTC, datetime

from builders import created, player, recorded, result, round_

from projections.series.order import SeriesEntry, order_series
from projections.standings import StandingsState
from projections.standings import fold as standings_fold


def _state(tid: str, finished: bool) -> StandingsState:
    events = [created(rounds=1), player("a"), player("b"), round_(1, ("g1", "a", "b"))]
    if finished:
        events.append(result("g1", "1-0"))
    return standings_fold(recorded(tid, events))


def _at(minute: int) -> datetime:
    return datetime(2026, 5, 1, 12, minute, tzinfo=UTC)


def test_completed_tournaments_count_in_order_of_completion_and_the_rest_are_in_progress():
    entries = [
        SeriesEntry("t-late", _at(30), _state("t-late", True)),
        SeriesEntry("t-running-b", _at(1), _state("t-running-b", False)),
        SeriesEntry("t-early", _at(10), _state("t-early", True)),
        SeriesEntry("t-running-a", _at(50), _state("t-running-a", False)),
        SeriesEntry("t-same-time", _at(10), _state("t-same-time", True)),
    ]
    done, running = order_series(entries)
    assert [tid for tid, _ in done] == ["t-early", "t-same-time", "t-late"]
    assert done[0][1] is entries[2].state
    assert running == ["t-running-a", "t-running-b"]


def test_no_tournaments():
    assert order_series([]) == ([], [])
