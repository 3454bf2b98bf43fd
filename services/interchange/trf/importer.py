"""`arbiter import trf`: a TRF-16 file recorded as a new tournament on the shared import
pipeline (`services/interchange/pipeline.py`): parsed (`parse`, `TrfError` naming the line
and columns), planned (`plan.to_events`), every event decided in a dry run
(`ImportRefused` naming the place, nothing appended), then appended in batches chained by
`expected_seq`. All or nothing; with an `id_namespace` (the CLI's: the tournament id and the
file's digest) importing the same file again appends nothing, and an import cut short is
completed by running it again."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from events_schema import Actor
from services.eventlog.base import EventLog
from services.interchange.pipeline import (
    AppendReport,
    ImportRefused,
    Planned,
    Progress,
    Target,
    import_planned,
)
from services.interchange.trf.parse import TrfFile
from services.interchange.trf.plan import NAMESPACE, to_events


@dataclass
class TrfImportReport(AppendReport):
    tournament_id: str
    players: int
    rounds: int  # rounds played (with entries)


def import_trf(
    log: EventLog,
    trf: TrfFile,
    *,
    tournament_id: str,
    actor: Actor,
    name: str | None = None,
    fmt: str = "swiss",
    rules_preset: str | None = None,
    id_namespace: str | None = None,
    file_name: str = "TRF",
    planned: Sequence[Planned] | None = None,
    progress: Progress | None = None,
) -> TrfImportReport:
    """Record `trf` as tournament `tournament_id` (`to_events` for `name`, `fmt`,
    `rules_preset`; `file_name` names the places of refusals). With `id_namespace` every
    event id is derived from it and the event's index, so the same import again appends
    nothing; without, the ids are random. `planned`: the plan, when the caller made it
    already (to refuse a malformed file before opening the log)."""
    if not trf.players:  # (issue 26 item 6: not "imported 0 players, 0 rounds")
        raise ImportRefused(
            "trf.no_players", f"{file_name}:1", "no player records (001): nothing to import"
        )
    if planned is None:
        planned = to_events(trf, name=name, fmt=fmt, rules_preset=rules_preset, file_name=file_name)
    report = TrfImportReport(tournament_id, len(trf.players), trf.played_rounds)
    target = Target(log, tournament_id, actor, NAMESPACE, id_namespace)
    import_planned(target, report, planned, progress)
    return report
