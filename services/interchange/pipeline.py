"""The import pipeline every format shares (`arbiter import pgn`, `sgf`, `trf`): a format
parses its file (refusing with the place: line, node, column), plans the events it records,
and hands them here. Each command, with the place in its file, is decided first against an
in-memory log (`DryRun`: a refusal names the file and the place, and nothing is appended),
then appended to the real log in batches within the limits, chained by `expected_seq`
(`append_steps`); what the append did goes on the import's report (`AppendReport`).

Two ways in: a plan known in full before deciding (a tournament report such as TRF: a list
of `Planned` events) goes through `import_planned`; an import whose later commands depend on
what the decider did with earlier ones (PGN, SGF: a game the rules end stops taking moves)
decides them itself in `decide_then_append`'s callback. Event ids are derived from a
namespace of the importer, the import's key and the command's place, so the same import run
twice appends nothing the second time.

A new format (TRF26, OpenGotha XML, EGF h9, …) is a package `services/interchange/<format>/`
as `trf/` is: `parse.py` (the file read, refused with its place), `plan.py` (the `Planned`
events), `importer.py` (its `Target`, its report, `import_planned`); game records share more
in `game_import.py` (rounds, the loop over games, a game's moves, the report rows)."""

from __future__ import annotations

import re
import tempfile
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

import orjson

from events_schema import Actor, Command, CommandBatch, Envelope, encode_payload
from events_schema import events as ev
from events_schema.codec import dumps
from events_schema.limits import Limits
from projections.tournament.state import TournamentState
from services.commands.service import CommandRejected, CommandService
from services.eventlog.base import EventLog, NewEvent
from services.eventlog.sqlite import SQLiteEventLog

Progress = Callable[[str, int, int], None]  # (stage, done, total)


class ImportRefused(Exception):
    """The decider refused a command of the import (nothing was appended)."""

    def __init__(self, rule: str, where: str, message: str, index: int | None = None) -> None:
        super().__init__(f"{rule} ({where}): {message}")
        self.rule, self.where, self.message = rule, where, message
        self.index = index  # the refused command's place in its batch


def tournament_id_for(path: str | Path) -> str:
    """A tournament id from a file name: its stem in the stream-id alphabet."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", Path(path).stem)
    stem = re.sub(r"^[^A-Za-z0-9]+", "", stem)[:64]
    if not stem:
        raise ValueError(f"cannot make a tournament id from {str(path)!r}: give --tournament")
    return stem


@dataclass
class Step:
    command: Command
    where: str  # the place in the file of what it records (FILE:LINE, FILE node N)
    events: int = 1  # events it appends (the decider may add a GameEnded)


@dataclass(frozen=True, slots=True)
class Planned:
    """One event of a plan known in full before deciding: its key among the import's (its
    event id is derived from it) and the place in the file of what it records."""

    key: str
    event: ev.Event
    where: str


@dataclass(frozen=True, slots=True)
class Target:
    """Where an import goes and how its event ids are made: `id_namespace` the importer's
    (a uuid of its own), `namespace` the import's key (the tournament, the file's digest, the
    options); no key: random ids (an import run twice is refused or records twice)."""

    log: EventLog
    tournament_id: str
    actor: Actor
    id_namespace: uuid.UUID
    namespace: str | None


@dataclass(kw_only=True)
class AppendReport:
    """What the append did, on every importer's report (`append_steps` records it)."""

    appended: int = 0  # events appended now (0 when the import was stored already)
    duplicate: bool = False  # every command was already recorded: nothing appended
    last_seq: int = 0
    batches: int = 0


class Runner(Protocol):
    """What decides a game's commands: the import's dry run (`DryRun`, all or nothing) or the
    relay's live run (services/relay/, appended game by game)."""

    limits: Limits

    def command(self, key: str, event: ev.Event, where: str) -> Step: ...

    def run(self, steps: Sequence[Step]) -> list[Envelope]: ...

    def state(self) -> TournamentState: ...


class DryRun:
    """Decides every command against an in-memory log, batch by batch, keeping the steps that
    were accepted: the plan of the real append. An import into an existing tournament starts
    from a copy of its stream (`seed`)."""

    def __init__(
        self,
        target: Target,
        seed: bool = False,
        scratch: str | Path = ":memory:",
        spill: IO[bytes] | None = None,
    ) -> None:
        self.tid = target.tournament_id
        self.namespace = target.namespace
        self.id_namespace = target.id_namespace
        self.limits = limits = target.log.limits
        self.actor = target.actor
        self.scratch = SQLiteEventLog(scratch, synchronous="NORMAL")
        if seed:  # (stored already: appended again under the default limits)
            copy = [_new_event(env) for env in target.log.read(self.tid)]
            for chunk in range(0, len(copy), 500):
                self.scratch.append(self.tid, copy[chunk : chunk + 500])
        self.scratch.limits = limits
        self.service = CommandService(self.scratch, limits=limits)
        self.steps: list[Step] = []
        self.spill = spill  # the accepted steps written there, not kept (`spill_step`)
        self.spilled = 0

    def state(self) -> TournamentState:
        """The tournament as decided so far (the stream, then the accepted steps)."""
        return self.service.state(self.tid)

    def close(self) -> None:
        self.scratch.close()

    def command(self, key: str, event: ev.Event, where: str) -> Step:
        """The step recording `event`; without a namespace its event id is random (an import
        run twice then records everything twice, or is refused)."""
        eid = event_id(self.id_namespace, self.namespace, key)
        return Step(
            Command(type=event.event_type, payload=encode_payload(event), event_id=eid), where
        )

    def run_all(self, steps: Sequence[Step]) -> None:
        """Decide `steps` in batches within the limits (`chunks`)."""
        for chunk in chunks(steps, self.limits):
            self.run(chunk)

    def run(self, steps: Sequence[Step]) -> list[Envelope]:
        """Decide `steps` as one batch; refused: `ImportRefused` naming the step."""
        envelopes = handle_steps(self.service, self.tid, steps, self.actor)
        ids = {s.command.event_id: s for s in steps}
        for env in envelopes:
            if env.event_id not in ids and env.causation_id in ids:
                ids[env.causation_id].events += 1
        if self.spill is None:
            self.steps.extend(steps)
        else:
            for step in steps:
                spill_step(self.spill, step)
            self.spilled += len(steps)
        return envelopes


def handle_steps(
    service: CommandService, tournament_id: str, steps: Sequence[Step], actor: Actor
) -> list[Envelope]:
    """`steps` as one batch through `service`; refused: `ImportRefused` naming the step (its
    place in its file) and its index in the batch."""
    try:
        result = service.handle(
            tournament_id, CommandBatch(commands=[s.command for s in steps]), actor
        )
    except CommandRejected as exc:
        m = re.match(r"^commands\[(\d+)\]\.?(.*)$", exc.field)
        if m is None:
            raise ImportRefused(exc.rule, exc.field, exc.message) from None
        i = int(m.group(1))
        what = f"{m.group(2)}: " if m.group(2) else ""
        raise ImportRefused(exc.rule, steps[i].where, f"{what}{exc.message}", i) from None
    return list(result.envelopes)


def _new_event(env: Envelope) -> NewEvent:
    """A stored event appended again as it was (a seed of the dry run's scratch log)."""
    return NewEvent(
        event_id=env.event_id,
        type=env.type,
        schema_version=env.schema_version,
        occurred_at=env.occurred_at,
        actor=env.actor,
        payload=env.payload,
        causation_id=env.causation_id,
        correlation_id=env.correlation_id,
    )


def event_id(id_namespace: uuid.UUID, namespace: str | None, key: str) -> uuid.UUID:
    """The event id of the command at `key` of an import (random without a namespace)."""
    if namespace is None:
        return uuid.uuid4()
    return uuid.uuid5(id_namespace, f"{namespace}:{key}")


def ended_payload(envelopes: Iterable[Envelope], game_id: str) -> dict[str, Any] | None:
    """The payload of the GameEnded of `game_id` among `envelopes`, if any."""
    for env in envelopes:
        if env.type == "GameEnded" and env.payload.get("game_id") == game_id:
            return dict(env.payload)
    return None


def chunks(steps: Sequence[Step], limits: Limits, spare: int = 0) -> list[list[Step]]:
    """Batches within the limits: commands and events per batch (`spare` events left free),
    and bytes (estimated at twice the payload's and an envelope's, within half the bound)."""
    return list(iter_chunks(steps, limits, spare))


def iter_chunks(steps: Iterable[Step], limits: Limits, spare: int = 0) -> Iterator[list[Step]]:
    """`chunks`, one batch at a time (the steps read as the batches are taken)."""
    max_events = max(1, limits.max_batch_events - spare)
    max_bytes = limits.max_batch_bytes // 2
    cur: list[Step] = []
    events = size = 0
    for s in steps:
        est = (2 * len(dumps(s.command.payload)) + 600) * s.events
        if cur and (len(cur) >= 1000 or events + s.events > max_events or size + est > max_bytes):
            yield cur
            cur, events, size = [], 0, 0
        cur.append(s)
        events += s.events
        size += est
    if cur:
        yield cur


def spill_step(out: IO[bytes], step: Step) -> None:
    """A decided step written as one line (read back by `read_spilled`)."""
    doc = {"c": step.command.model_dump(mode="json"), "w": step.where, "e": step.events}
    out.write(orjson.dumps(doc) + b"\n")


def read_spilled(src: IO[bytes]) -> Iterator[Step]:
    """The steps `spill_step` wrote, in order."""
    for line in src:
        doc = orjson.loads(line)
        yield Step(Command.model_validate(doc["c"]), doc["w"], doc["e"])


def import_planned(
    target: Target,
    report: AppendReport,
    planned: Sequence[Planned],
    progress: Progress | None = None,
) -> None:
    """Record a plan known in full: every event decided in a dry run (`ImportRefused`
    naming its place, nothing appended), then all appended (`decide_then_append`)."""
    decide_then_append(
        target,
        report,
        lambda dry: dry.run_all([dry.command(p.key, p.event, p.where) for p in planned]),
        progress,
    )


def decide_then_append(
    target: Target,
    report: AppendReport,
    decide: Callable[[DryRun], None],
    progress: Progress | None,
    seed: bool = False,
    spill: bool = False,
) -> None:
    """Decide every command of an import in a dry run (`decide` records them; a refusal
    raises before anything is stored; `seed`: starting from the tournament's stream), then
    append them all to the target's log (`append_steps`). `spill`: the dry run's log and
    its decided steps in a temporary directory, not in memory, the steps read back as they
    are appended (a big file: memory does not grow with it)."""
    if not spill:
        dry = DryRun(target, seed)
        try:
            decide(dry)
            steps = dry.steps
        finally:
            dry.close()
        limits = target.log.limits
        service = CommandService(target.log, limits=limits)
        append_steps(service, target.tournament_id, steps, limits, target.actor, report, progress)
        return
    with (
        tempfile.TemporaryDirectory(prefix="arbiter-import-") as tmp,
        open(Path(tmp) / "steps.jsonl", "w+b") as out,
    ):
        dry = DryRun(target, seed, scratch=Path(tmp) / "dry.sqlite3", spill=out)
        try:
            decide(dry)
        finally:
            dry.close()
        spilled = dry.spilled
        del dry  # (its decider's state is not kept beside the real log's while appending)
        out.seek(0)
        limits = target.log.limits
        service = CommandService(target.log, limits=limits)
        append_stream(
            service,
            target.tournament_id,
            read_spilled(out),
            spilled,
            limits,
            target.actor,
            report,
            progress,
        )


def append_steps(
    service: CommandService,
    tournament_id: str,
    steps: Sequence[Step],
    limits: Limits,
    actor: Actor,
    report: AppendReport,
    progress: Progress | None,
) -> None:
    """The decided steps, appended in batches chained by `expected_seq`."""
    append_stream(service, tournament_id, steps, len(steps), limits, actor, report, progress)


def append_stream(
    service: CommandService,
    tournament_id: str,
    steps: Iterable[Step],
    total: int,
    limits: Limits,
    actor: Actor,
    report: AppendReport,
    progress: Progress | None,
) -> None:
    """`append_steps` over steps read as they are appended (`total` of them)."""
    expected: int | None = None
    duplicate = True
    done = batches = 0
    for chunk in iter_chunks(steps, limits):
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
        batches += 1
        if progress is not None:
            progress("append", done, total)
    report.duplicate = duplicate
    report.batches = batches
