"""The steps an importer records (`arbiter import pgn`, `arbiter import sgf`): each command
with the place in its file, decided first against an in-memory log (`DryRun`: a refusal
names the file and the place, and nothing is appended), then appended to the real log in
batches within the limits, chained by `expected_seq` (`append_steps`). Event ids are
derived from a namespace of the importer, the import's key and the command's place, so the
same import run twice appends nothing the second time."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from events_schema import Actor, Command, CommandBatch, Envelope, encode_payload
from events_schema import events as ev
from events_schema.codec import dumps
from events_schema.limits import Limits
from services.commands.service import CommandRejected, CommandService
from services.eventlog.base import EventLog
from services.eventlog.sqlite import SQLiteEventLog

Progress = Callable[[str, int, int], None]  # (stage, done, total)


class ImportRefused(Exception):
    """The decider refused a command of the import (nothing was appended)."""

    def __init__(self, rule: str, where: str, message: str, index: int | None = None) -> None:
        super().__init__(f"{rule} ({where}): {message}")
        self.rule, self.where, self.message = rule, where, message
        self.index = index  # the refused command's place in its batch


@dataclass
class Step:
    command: Command
    where: str  # the place in the file of what it records (FILE:LINE, FILE node N)
    events: int = 1  # events it appends (the decider may add a GameEnded)


class DryRun:
    """Decides every command against an in-memory log, batch by batch, keeping the steps that
    were accepted: the plan of the real append."""

    def __init__(
        self,
        tournament_id: str,
        namespace: str,
        limits: Limits,
        actor: Actor,
        id_namespace: uuid.UUID,
    ) -> None:
        self.tid = tournament_id
        self.namespace = namespace
        self.id_namespace = id_namespace
        self.limits = limits
        self.actor = actor
        self.scratch = SQLiteEventLog(":memory:")
        self.scratch.limits = limits
        self.service = CommandService(self.scratch, limits=limits)
        self.steps: list[Step] = []

    def close(self) -> None:
        self.scratch.close()

    def command(self, key: str, event: ev.Event, where: str) -> Step:
        eid = uuid.uuid5(self.id_namespace, f"{self.namespace}:{key}")
        return Step(
            Command(type=event.event_type, payload=encode_payload(event), event_id=eid), where
        )

    def run(self, steps: Sequence[Step]) -> list[Envelope]:
        """Decide `steps` as one batch; refused: `ImportRefused` naming the step."""
        try:
            result = self.service.handle(
                self.tid, CommandBatch(commands=[s.command for s in steps]), self.actor
            )
        except CommandRejected as exc:
            m = re.match(r"^commands\[(\d+)\]\.?(.*)$", exc.field)
            if m is None:
                raise ImportRefused(exc.rule, exc.field, exc.message) from None
            i = int(m.group(1))
            what = f"{m.group(2)}: " if m.group(2) else ""
            raise ImportRefused(exc.rule, steps[i].where, f"{what}{exc.message}", i) from None
        ids = {s.command.event_id: s for s in steps}
        for env in result.envelopes:
            if env.event_id not in ids and env.causation_id in ids:
                ids[env.causation_id].events += 1
        self.steps.extend(steps)
        return list(result.envelopes)


def ended_payload(envelopes: Iterable[Envelope], game_id: str) -> dict[str, Any] | None:
    """The payload of the GameEnded of `game_id` among `envelopes`, if any."""
    for env in envelopes:
        if env.type == "GameEnded" and env.payload.get("game_id") == game_id:
            return dict(env.payload)
    return None


def chunks(steps: Sequence[Step], limits: Limits, spare: int = 0) -> list[list[Step]]:
    """Batches within the limits: commands and events per batch (`spare` events left free),
    and bytes (estimated at twice the payload's and an envelope's, within half the bound)."""
    max_events = max(1, limits.max_batch_events - spare)
    max_bytes = limits.max_batch_bytes // 2
    out: list[list[Step]] = []
    cur: list[Step] = []
    events = size = 0
    for s in steps:
        est = (2 * len(dumps(s.command.payload)) + 600) * s.events
        if cur and (len(cur) >= 1000 or events + s.events > max_events or size + est > max_bytes):
            out.append(cur)
            cur, events, size = [], 0, 0
        cur.append(s)
        events += s.events
        size += est
    if cur:
        out.append(cur)
    return out


class Report(Protocol):
    """What `append_steps` records on an importer's report."""

    appended: int
    duplicate: bool
    last_seq: int
    batches: int


class GameRow(Protocol):
    """What an importer's per-game report says for the summary (`summary`)."""

    @property
    def plies(self) -> int: ...

    @property
    def disagrees(self) -> bool: ...


def summary(
    games: Sequence[GameRow], disagreements: list[dict[str, Any]], report: Report
) -> dict[str, Any]:
    """The part of an import report's JSON the importers share: counts, the disagreements
    (each importer names its own places), and what the append did."""
    return {
        "games": len(games),
        "moves": sum(g.plies for g in games),
        "matched": sum(1 for g in games if not g.disagrees),
        "disagreements": disagreements,
        "appended": report.appended,
        "duplicate": report.duplicate,
        "last_seq": report.last_seq,
        "batches": report.batches,
    }


def decide_then_append(
    log: EventLog,
    tournament_id: str,
    namespace: str,
    actor: Actor,
    id_namespace: uuid.UUID,
    report: Report,
    decide: Callable[[DryRun], None],
    progress: Progress | None,
) -> None:
    """Decide every command of an import in a dry run (`decide` records them; a refusal
    raises before anything is stored), then append them all to `log` (`append_steps`)."""
    limits = log.limits
    dry = DryRun(tournament_id, namespace, limits, actor, id_namespace)
    try:
        decide(dry)
        steps = dry.steps
    finally:
        dry.close()
    service = CommandService(log, limits=limits)
    append_steps(service, tournament_id, steps, limits, actor, report, progress)


def append_steps(
    service: CommandService,
    tournament_id: str,
    steps: Sequence[Step],
    limits: Limits,
    actor: Actor,
    report: Report,
    progress: Progress | None,
) -> None:
    """The decided steps, appended in batches chained by `expected_seq`."""
    batches = chunks(steps, limits)
    expected: int | None = None
    duplicate = True
    done = 0
    for chunk in batches:
        try:
            result = service.handle(
                tournament_id,
                CommandBatch(commands=[s.command for s in chunk], expected_seq=expected),
                actor,
            )
        except CommandRejected as exc:
            m = re.match(r"^commands\[(\d+)\]", exc.field)
            where = chunk[int(m.group(1))].where if m is not None else exc.field
            raise ImportRefused(exc.rule, where, exc.message) from None
        if not result.duplicate:
            report.appended += len(result.envelopes)
            duplicate = False
        report.last_seq = expected = result.last_seq
        done += len(chunk)
        if progress is not None:
            progress("append", done, len(steps))
    report.duplicate = duplicate
    report.batches = len(batches)
