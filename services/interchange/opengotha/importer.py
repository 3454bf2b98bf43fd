"""`arbiter import opengotha`: an OpenGotha tournament file recorded as a tournament on the
shared import pipeline (`services/interchange/pipeline.py`): parsed (`parse`,
`OpenGothaError` naming the element and the rule), planned (`plan.to_plan`: nothing
re-paired), every event decided in a dry run (`ImportRefused` naming the element, nothing
appended), then appended in batches. Event ids derive from the tournament id and the file's
digest, so importing the same file again appends nothing."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from events_schema import Actor
from services.eventlog.base import EventLog
from services.interchange.opengotha.parse import OgFile, read_opengotha
from services.interchange.opengotha.plan import NAMESPACE, Convention, OgPlan, to_plan
from services.interchange.pipeline import (
    AppendReport,
    ImportRefused,
    Progress,
    Target,
    import_planned,
)


@dataclass
class OpenGothaImportReport(AppendReport):
    tournament_id: str
    players: int
    rounds: int  # rounds played
    games: int
    results: int  # games with a result recorded
    conventions: list[Convention] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "tournament_id": self.tournament_id,
            "players": self.players,
            "rounds": self.rounds,
            "games": self.games,
            "results": self.results,
            "appended": self.appended,
            "duplicate": self.duplicate,
            "last_seq": self.last_seq,
            "not_expressed": [{"name": c.name, "what": c.what} for c in self.conventions],
        }


def plan_file(raw: bytes, *, name: str | None, file_name: str) -> tuple[OgFile, OgPlan]:
    """Parse and plan (`OpenGothaError` before any log is opened)."""
    og = read_opengotha(raw)
    return og, to_plan(og, name=name, file_name=file_name)


def import_opengotha(
    log: EventLog,
    raw: bytes,
    *,
    tournament_id: str,
    actor: Actor,
    name: str | None = None,
    file_name: str = "OpenGotha",
    plan: OgPlan | None = None,
    progress: Progress | None = None,
) -> OpenGothaImportReport:
    """Record the OpenGotha file `raw` as tournament `tournament_id` (all or nothing; the
    same file again appends nothing)."""
    if plan is None:
        _, plan = plan_file(raw, name=name, file_name=file_name)
    digest = hashlib.sha256(raw).hexdigest()
    report = OpenGothaImportReport(
        tournament_id=tournament_id,
        players=plan.players,
        rounds=plan.rounds,
        games=plan.games,
        results=plan.results,
        conventions=list(plan.conventions),
    )
    target = Target(log, tournament_id, actor, NAMESPACE, f"{tournament_id}:{digest}")
    try:
        import_planned(target, report, plan.planned, progress)
    except ImportRefused as exc:
        if exc.rule != "stream.already_created":
            raise
        raise ImportRefused(
            exc.rule,
            exc.where,
            f"{exc.message}: an OpenGotha file is recorded as a new tournament (give another "
            "--tournament; a later save of an imported file is not merged into it)",
            exc.index,
        ) from None
    return report
