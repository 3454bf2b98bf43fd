"""Reading what the playoff, prizes and series commands show: folds over one or more streams.

The projections are pure; this module only reads the log (a tournament up to --at, or every
tournament of a series) and hands the folds to them (the order of a series' tournaments to
projections/series/order.py).

A series' tournaments are its events (counted in its table once their main stage is complete)
and, for a GCT tour, its §4 tour playoff: a tournament of its own
(`TournamentCreated(format="playoff", rules_preset="gct-tour-playoff", series_id=...)`) that
takes the series' overall table as its input. The tour playoff is never an event of the table;
it is done when its playoff machine has a final order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from events_schema import Recorded
from events_schema import events as ev
from projections.playoffs import gct_tour as tour_playoff
from projections.playoffs import playoff_view
from projections.playoffs.base import PlayoffView
from projections.prizes import PrizeSplit, classical_preset, event_prizes, tour_bonus_split
from projections.series import TourTable, czech_series_table, gct_tour_table
from projections.series.order import SeriesEntry, order_series
from projections.standings import StandingsState
from projections.standings import fold as standings_fold
from services.cli.common import Refusal
from services.eventlog.base import EventLog

TOUR_PLAYOFF = tour_playoff.PRESET
PREMIUMS = {"rapid-blitz": False, "classical": True}  # `arbiter prizes --premium`


def series_created(log: EventLog, series_id: str, at: int | None = None) -> ev.SeriesCreated | None:
    for env in log.read(series_id, 1, at):
        rec = Recorded.of(env)
        if isinstance(rec.event, ev.SeriesCreated):
            return rec.event
    return None


def is_tour_playoff(state: StandingsState) -> bool:
    created = state.created
    return created is not None and created.rules_preset == TOUR_PLAYOFF


@dataclass
class SeriesStreams:
    """The tournaments of a series: its events, counted (main stage complete, in order of
    completion) or in progress (ids, sorted), and its tour playoffs (ids with their folds)."""

    counted: list[tuple[str, StandingsState]] = field(default_factory=list)
    running: list[str] = field(default_factory=list)
    playoffs: list[tuple[str, StandingsState]] = field(default_factory=list)


def series_streams(log: EventLog, series_id: str) -> SeriesStreams:
    entries: list[SeriesEntry] = []
    playoffs: list[tuple[str, StandingsState]] = []
    for tid in log.stream_ids():
        first = next(iter(log.read(tid, 1, 1)), None)
        if first is None or first.type != "TournamentCreated":
            continue
        if first.payload.get("series_id") != series_id:
            continue
        envs = list(log.read(tid))
        state = standings_fold([Recorded.of(e) for e in envs])
        if is_tour_playoff(state):
            playoffs.append((tid, state))
        else:
            entries.append(SeriesEntry(tid, envs[-1].recorded_at, state))
    counted, running = order_series(entries)
    return SeriesStreams(counted, running, sorted(playoffs, key=lambda p: p[0]))


def series_tournaments(
    log: EventLog, series_id: str
) -> tuple[list[tuple[str, StandingsState]], list[str]]:
    """The series' completed events in order of completion (the time their last event was
    recorded), and the ids of those still in progress (see projections/series/order.py). A tour
    playoff is not an event of the series and is in neither list."""
    streams = series_streams(log, series_id)
    return streams.counted, streams.running


def _tour_view(table: TourTable, state: StandingsState) -> PlayoffView:
    rows = [tour_playoff.OverallRow(r.player_id, r.points) for r in table.rows]
    return tour_playoff.view(rows, state)


def playoff_for(log: EventLog, tid: str, state: StandingsState) -> PlayoffView | None:
    created = state.created
    if created is not None and created.rules_preset == TOUR_PLAYOFF:
        # GCT §4: the tour playoff takes the series' overall table as its input.
        if created.series_id is None:
            return None
        series = series_created(log, created.series_id)
        if series is None:
            return None
        tournaments, _ = series_tournaments(log, created.series_id)
        table = gct_tour_table(series, tournaments, series_id=created.series_id)
        return _tour_view(table, state)
    return playoff_view(state)


def prizes_for(
    log: EventLog, tid: str, state: StandingsState, premium: str | None = None
) -> PrizeSplit:
    """The prize split of a GCT event (2.6–2.8 / 3.6–3.8), or for the tour playoff the GCT
    4.2 tour bonus by the overall places before the playoff. `premium` ("rapid-blitz" or
    "classical") says which premium applies when the rules preset names neither."""
    created = state.created
    if created is not None and created.rules_preset == TOUR_PLAYOFF:
        return _tour_bonus(log, tid, created.series_id)
    classical = PREMIUMS.get(premium or "")
    by_preset = classical_preset(created)
    if classical is None and premium is not None:
        raise Refusal(
            "prizes.invalid",
            "--premium",
            f"--premium {premium!r}: give one of {', '.join(PREMIUMS)}",
        )
    if classical is not None and by_preset is not None and classical != by_preset:
        raise Refusal(
            "prizes.invalid",
            "--premium",
            f"{tid!r} has rules_preset {created.rules_preset if created else None!r}, which "
            f"says the premium: leave out --premium {premium}",
        )
    if classical is None and by_preset is None:
        preset = created.rules_preset if created is not None else None
        raise Refusal(
            "prizes.premium_unknown",
            "--premium",
            f"{tid!r} has rules_preset {preset!r}, which names no GCT prize split (GCT 2.6 "
            "rapid & blitz, 3.6 classical): run `arbiter prizes "
            f"{tid} --premium rapid-blitz` or `--premium classical` to split its prize table "
            "the GCT way",
        )
    view = playoff_for(log, tid, state)
    winner = view.winner if view is not None else None
    series_points: tuple[Decimal, ...] = ()
    if created is not None and created.series_id is not None:
        series = series_created(log, created.series_id)
        if series is not None:
            series_points = tuple(series.points_table)
    return event_prizes(
        state, playoff_winner=winner, classical=classical, series_points=series_points
    )


def _tour_bonus(log: EventLog, tid: str, series_id: str | None) -> PrizeSplit:
    """GCT 4.2: the tour playoff does not change the bonus payment; it is split by the overall
    places before the playoff, tied places sharing."""
    series = series_created(log, series_id) if series_id is not None else None
    if series_id is None or series is None:
        raise Refusal(
            "prizes.no_series",
            "TOURNAMENT",
            f"{tid!r} is a GCT tour playoff without a series to read the overall table from "
            f"(series_id {series_id!r} has no SeriesCreated): see `arbiter series SERIES` for "
            "the tour's bonus split",
        )
    tournaments, _ = series_tournaments(log, series_id)
    table = gct_tour_table(series, tournaments, series_id=series_id)
    return tour_bonus_split(table.rows, series.bonus)


def series_table(log: EventLog, series_id: str, at: int | None = None) -> dict[str, Any]:
    series = series_created(log, series_id, at)
    if series is None:
        raise LookupError(_not_a_series(log, series_id))
    if series.kind == "tcec-season":
        raise ValueError(
            f"{series_id!r} is a TCEC season: its stages advance by rule, see "
            f"`arbiter season show {series_id}`"
        )
    streams = series_streams(log, series_id)
    tournaments = streams.counted
    # The players' names as their tournaments registered them (the ids stay the keys).
    names = {
        pid: info.name
        for _, state in (*tournaments, *streams.playoffs)
        for pid, info in state.players.items()
    }
    out: dict[str, Any] = {
        "series_id": series_id,
        "name": series.name,
        "kind": series.kind,
        "tournaments_counted": [tid for tid, _ in tournaments],
        "tournaments_in_progress": list(streams.running),
        "names": dict(sorted(names.items())),
    }
    if series.kind == "czech-series":
        out["table"] = czech_series_table(series, tournaments, series_id=series_id).as_dict()
    else:
        table = gct_tour_table(series, tournaments, series_id=series_id)
        out["table"] = table.as_dict()
        out["bonus"] = tour_bonus_split(table.rows, series.bonus).as_dict()
        playoffs = []
        for tid, state in streams.playoffs:
            view = _tour_view(table, state)
            done = bool(view.final_order)
            if not done:
                out["tournaments_in_progress"].append(tid)
            playoffs.append(
                {
                    "tournament_id": tid,
                    "status": view.status,
                    "done": done,
                    "final_order": [list(block) for block in view.final_order],
                }
            )
        out["tournaments_in_progress"].sort()
        out["tour_playoffs"] = playoffs
    return out


def _not_a_series(log: EventLog, given: str) -> str:
    first = next(iter(log.read(given, 1, 1)), None)
    if first is not None and first.type == "TournamentCreated":
        of = first.payload.get("series_id")
        if of:
            return (
                f"{given!r} is a tournament of the series {of!r}, not a series: run "
                f"`arbiter series {of}` (or `arbiter standings {given}`)"
            )
        return f"{given!r} is a tournament, not a series: run `arbiter standings {given}`"
    return (
        f"{given!r} has no SeriesCreated: create the series with `arbiter append {given} "
        '--type SeriesCreated --payload \'{"name": "...", "kind": "gct-tour"}\'` (or kind '
        '"czech-series") and give its tournaments series_id ' + repr(given)
    )


def playoff_tournament(log: EventLog, given: str, at: int | None = None) -> str:
    """The tournament `arbiter playoff GIVEN` shows: GIVEN itself, or, when GIVEN is a
    series', its tour playoff tournament (refused, saying what a series is and what to run,
    when it has none or several)."""
    first = next(iter(log.read(given, 1, 1)), None)
    if first is None or first.type != "SeriesCreated":
        return given
    series = series_created(log, given)
    assert series is not None
    what = (
        f"{given!r} is a series ({series.kind} {series.name!r}), not a tournament: a series "
        f"groups tournaments (each created with series_id {given!r}) and ranks them together "
        f"in its table, `arbiter series {given}`"
    )
    if series.kind == "tcec-season":
        raise Refusal(
            "playoff.series",
            "TOURNAMENT",
            f"{given!r} is a TCEC season (a series of stages, each a tournament of its own): "
            f"see `arbiter season show {given}`, then `arbiter playoff STAGE_TOURNAMENT`",
        )
    if series.kind != "gct-tour":
        raise Refusal(
            "playoff.series",
            "TOURNAMENT",
            f"{what}; it has no playoff of its own: run `arbiter playoff TOURNAMENT` on one of "
            "its tournaments",
        )
    playoffs = [tid for tid, _ in series_streams(log, given).playoffs]
    if len(playoffs) == 1:
        if at is not None:
            raise Refusal(
                "playoff.series",
                "--at",
                f"{what}; --at is a seq of a tournament's stream: run `arbiter playoff "
                f"{playoffs[0]} --at {at}` (its tour playoff)",
            )
        return playoffs[0]
    if playoffs:
        raise Refusal(
            "playoff.series",
            "TOURNAMENT",
            f"{what}; it has {len(playoffs)} tour playoff tournaments ({', '.join(playoffs)}): "
            f"run `arbiter playoff {playoffs[0]}`",
        )
    raise Refusal(
        "playoff.series",
        "TOURNAMENT",
        f"{what}. Its §4 tour playoff (GCT 4.1: a tie including 1st place, or straddling 3rd) "
        f"is a tournament of its own and none exists yet: the ties are listed by `arbiter "
        f"series {given}`; to play one off, create it with `arbiter append PLAYOFF --type "
        f'TournamentCreated --payload \'{{"name": "Tour playoff", "format": "playoff", '
        f'"rules_preset": "{TOUR_PLAYOFF}", "series_id": "{given}"}}\'`, register the tied '
        "players (PlayerRegistered), then run `arbiter playoff PLAYOFF`",
    )
