"""Reading what the playoff, prizes and series commands show: folds over one or more streams.

The projections are pure; this module only reads the log (a tournament up to --at, or every
tournament of a series) and hands the folds to them (the order of a series' tournaments to
services/series_order.py)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from events_schema import Recorded
from events_schema import events as ev
from projections.playoffs import gct_tour as tour_playoff
from projections.playoffs import playoff_view
from projections.playoffs.base import PlayoffView
from projections.prizes import PrizeSplit, event_prizes, tour_bonus_split
from projections.series import czech_series_table, gct_tour_table
from projections.standings import StandingsState
from projections.standings import fold as standings_fold
from services.eventlog.base import EventLog
from services.series_order import SeriesEntry, order_series


def series_created(log: EventLog, series_id: str, at: int | None = None) -> ev.SeriesCreated | None:
    for env in log.read(series_id, 1, at):
        rec = Recorded.of(env)
        if isinstance(rec.event, ev.SeriesCreated):
            return rec.event
    return None


def series_tournaments(
    log: EventLog, series_id: str
) -> tuple[list[tuple[str, StandingsState]], list[str]]:
    """The series' completed tournaments in order of completion (the time their last event
    was recorded), and the ids of those still in progress (see services/series_order.py)."""
    entries: list[SeriesEntry] = []
    for tid in log.stream_ids():
        first = next(iter(log.read(tid, 1, 1)), None)
        if first is None or first.type != "TournamentCreated":
            continue
        if first.payload.get("series_id") != series_id:
            continue
        envs = list(log.read(tid))
        state = standings_fold([Recorded.of(e) for e in envs])
        entries.append(SeriesEntry(tid, envs[-1].recorded_at, state))
    return order_series(entries)


def playoff_for(log: EventLog, tid: str, state: StandingsState) -> PlayoffView | None:
    created = state.created
    if created is not None and created.rules_preset == "gct-tour-playoff":
        # GCT §4: the tour playoff takes the series' overall table as its input.
        if created.series_id is None:
            return None
        series = series_created(log, created.series_id)
        if series is None:
            return None
        tournaments, _ = series_tournaments(log, created.series_id)
        table = gct_tour_table(series, tournaments, series_id=created.series_id)
        rows = [tour_playoff.OverallRow(r.player_id, r.points) for r in table.rows]
        return tour_playoff.view(rows, state)
    return playoff_view(state)


def prizes_for(log: EventLog, tid: str, state: StandingsState) -> PrizeSplit:
    view = playoff_for(log, tid, state)
    winner = None
    if view is not None and view.status == "decided" and view.final_order:
        top = view.final_order[0]
        winner = top[0] if len(top) == 1 else None
    series_points: tuple[Decimal, ...] = ()
    created = state.created
    if created is not None and created.series_id is not None:
        series = series_created(log, created.series_id)
        if series is not None:
            series_points = tuple(series.points_table)
    return event_prizes(state, playoff_winner=winner, series_points=series_points)


def series_table(log: EventLog, series_id: str, at: int | None = None) -> dict[str, Any]:
    series = series_created(log, series_id, at)
    if series is None:
        raise LookupError(f"{series_id!r} has no SeriesCreated")
    if series.kind == "tcec-season":
        raise ValueError(
            f"{series_id!r} is a TCEC season: its stages advance by rule, see "
            f"`arbiter season show {series_id}`"
        )
    tournaments, running = series_tournaments(log, series_id)
    out: dict[str, Any] = {
        "series_id": series_id,
        "name": series.name,
        "kind": series.kind,
        "tournaments_counted": [tid for tid, _ in tournaments],
        "tournaments_in_progress": running,
    }
    if series.kind == "czech-series":
        out["table"] = czech_series_table(series, tournaments, series_id=series_id).as_dict()
    else:
        table = gct_tour_table(series, tournaments, series_id=series_id)
        out["table"] = table.as_dict()
        out["bonus"] = tour_bonus_split(table.rows, series.bonus).as_dict()
    return out
