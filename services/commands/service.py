"""The command path: parse -> idempotency check -> decide -> append (optimistic concurrency).

One `CommandService` per process; it keeps each tournament's decider state in memory and
catches it up from the log before every decision, so several API processes can write to the
same log: the log's `expected_seq` check makes the loser of a race re-read and decide again.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any
from uuid import UUID

from pydantic import BaseModel, ValidationError

from events_schema import Actor, Command, CommandBatch, Envelope, Event, Recorded
from events_schema import events as ev
from events_schema.codec import dumps
from events_schema.inputs import Problem
from events_schema.limits import LimitExceeded, Limits
from events_schema.registry import UnknownEventType, encode_payload, event_class
from projections.rejection import Rejected
from projections.tournament import TournamentState, decide, evolve
from services.eventlog.base import (
    AppendConflict,
    AppendResult,
    EventIdConflict,
    EventLog,
    NewEvent,
    reused_id_message,
    utcnow,
)

_DERIVED = uuid.UUID("6b1d4c8e-6c1f-4f3e-9a57-1c7d3e0f2a11")
# Events only an admin may append (DEVELOPERS.md: admins append corrections).
ADMIN_ONLY = frozenset({"ResultCorrected", "EventRetracted"})
# Payload fields the decider fills in (absent from a resent command, present when stored).
DERIVED_FIELDS = {
    "MovePlayed": frozenset({"san"}),
    "TournamentCreated": frozenset({"tiebreak_edition"}),  # the decider fills it in
}


class CommandRejected(Exception):
    """A refused command batch: nothing was appended."""

    def __init__(
        self,
        rule: str,
        field: str,
        message: str,
        status: int = 422,
        errors: Sequence[Problem] = (),
    ) -> None:
        super().__init__(f"{rule}: {field}: {message}")
        self.rule, self.field, self.message, self.status = rule, field, message, status
        # Every problem found (an input file is refused with all its mistakes at once);
        # the first is the refusal's own rule, field and message.
        self.errors: tuple[Problem, ...] = tuple(errors) or (Problem(rule, field, message),)

    @classmethod
    def of(cls, found: Sequence[Problem], status: int = 422) -> CommandRejected:
        """A refusal naming every problem in `found` (at least one), the first in front."""
        first = found[0]
        return cls(first.rule, first.field, first.message, status, found)

    def as_dict(self) -> dict[str, str]:
        return {"rule": self.rule, "field": self.field, "message": self.message}

    def errors_as_dicts(self) -> list[dict[str, str]]:
        return [p.as_dict() for p in self.errors]


def parse_command(cmd: Command, where: str) -> Event:
    """Turn a command into its typed proposed event, naming the bad field on failure.

    Strict, as JSON: a number where the schema says string (or `"2500"` where it says
    integer, or `true` for a number) is refused, not coerced; dates and ids are given as
    JSON strings."""
    try:
        cls = event_class(cmd.type)
    except UnknownEventType as exc:
        raise CommandRejected("command.unknown_type", f"{where}.type", str(exc)) from None
    try:
        return cls.model_validate_json(dumps(cmd.payload), strict=True)
    except ValidationError as exc:
        found = []
        for err in exc.errors():  # every error of the payload, not the first only
            loc = ".".join(str(x) for x in err["loc"])
            found.append(
                Problem(
                    "payload.invalid",
                    f"{where}.payload.{loc}" if loc else f"{where}.payload",
                    f"{err['msg']} ({cls.event_type} v{cls.schema_version})",
                )
            )
        raise CommandRejected.of(found) from None


def derived_event_id(first: UUID, index: int) -> UUID:
    """Events a command derives get ids fixed by the command's id, so a resent command is
    recognised whole."""
    return first if index == 0 else uuid.uuid5(_DERIVED, f"{first}:{index}")


@dataclass
class _Cached:
    state: TournamentState
    lock: threading.Lock


def check_limits(batch: CommandBatch, limits: Limits, payloads: bool = True) -> None:
    """Every command within the limits (events_schema/limits.py), before anything is
    decided: structure of the payload (unless `payloads` is False: the API bounded the whole
    body before validating it), and every datetime in range."""
    if len(batch.commands) > limits.max_batch_events:
        raise LimitExceeded(
            "batch_events",
            "commands",
            f"{len(batch.commands)} commands; at most {limits.max_batch_events}",
            status=413,
        )
    for i, cmd in enumerate(batch.commands):
        if payloads:
            limits.check_value(cmd.payload, f"commands[{i}].payload")
        if cmd.occurred_at is not None:
            limits.check_datetime(cmd.occurred_at, f"commands[{i}].occurred_at")


#: Core-schema types a datetime may come out of: a datetime, anything (`Any`, `object`), or a
#: value a plain or wrap validator function builds.
_MAY_BE_DATETIME = frozenset({"datetime", "any", "function-plain", "function-wrap"})


@cache
def holds_datetimes(model: type[BaseModel]) -> bool:
    """Whether a payload of `model` can hold a datetime anywhere: its validation schema (nested
    models included) names one, or a value of any type. Most cannot (a move, a clock), and
    their check is skipped."""
    schema: Any = model.__pydantic_core_schema__
    if not isinstance(schema, dict):  # built lazily (defer_build): build it now
        model.model_rebuild()
        schema = model.__pydantic_core_schema__
        if not isinstance(schema, dict):
            return True
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("type") in _MAY_BE_DATETIME:
                return True
            stack.extend(node.values())
        elif isinstance(node, list | tuple):
            stack.extend(node)
    return False


def _check_datetimes(value: Any, where: str, limits: Limits) -> None:
    """Datetimes inside a typed payload (e.g. RoundScheduled.scheduled_at) in range."""
    if isinstance(value, datetime):
        limits.check_datetime(value, where)
    elif isinstance(value, dict):
        for k, v in value.items():
            _check_datetimes(v, f"{where}.{k}", limits)
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            _check_datetimes(v, f"{where}[{i}]", limits)


def _provisional(ne: NewEvent, tournament_id: str, seq: int, now: datetime) -> Envelope:
    """The envelope the speculative fold sees: as the log will seal it, but unhashed (its
    place in the chain is not known yet; `hash` and `prev_hash` are zeros) and built without a
    second validation (every field comes from the validated command and the decider)."""
    zeros = "0" * 64
    return Envelope.model_construct(
        event_id=ne.event_id,
        tournament_id=tournament_id,
        seq=seq,
        type=ne.type,
        schema_version=ne.schema_version,
        occurred_at=ne.occurred_at.astimezone(UTC),
        recorded_at=now.astimezone(UTC),
        actor=ne.actor,
        causation_id=ne.causation_id,
        correlation_id=ne.correlation_id,
        payload=ne.payload,
        prev_hash=zeros,
        hash=zeros,
    )


def _repairing(proposed: Sequence[Event]) -> int | None:
    """The index of a re-pair's retraction, if the batch has the re-pair's shape: it starts
    with one `EventRetracted` and schedules a round (`RoundScheduled`), with no other
    admin-only event. Issue 14: "the arbiter may re-pair explicitly (a new event that
    supersedes the round, refused once any game of it has started)"; the round it retracts is
    checked against the state in `_check_repair`."""
    if not proposed or not isinstance(proposed[0], ev.EventRetracted):
        return None
    rest = proposed[1:]
    if any(p.event_type in ADMIN_ONLY for p in rest):
        return None
    if sum(isinstance(p, ev.RoundScheduled) for p in rest) != 1:
        return None
    return 0


def _check_repair(state: TournamentState, proposed: Sequence[Event]) -> None:
    """An arbiter's retraction is allowed only as a re-pair: it retracts a `RoundScheduled` in
    force and the batch schedules that same round (stage and number) again. Anything else an
    arbiter tries to retract stays admin-only."""
    if _repairing(proposed) is None:
        return
    retraction = proposed[0]
    assert isinstance(retraction, ev.EventRetracted)
    rnd = next(p for p in proposed if isinstance(p, ev.RoundScheduled))
    target = state.events.get(retraction.retracted_event_id)
    if (
        target is None
        or target.type != "RoundScheduled"
        or target.round_key != (rnd.stage, rnd.round)
    ):
        raise CommandRejected(
            "auth.admin_only",
            "commands[0].type",
            "an arbiter may retract only the round the same batch schedules again (a re-pair); "
            "any other EventRetracted is for an admin",
            status=403,
        )


class CommandService:
    def __init__(self, log: EventLog, max_retries: int = 5, limits: Limits | None = None) -> None:
        self.log = log
        self.max_retries = max_retries
        self.limits = limits if limits is not None else log.limits
        self._cache: dict[str, _Cached] = {}
        self._cache_lock = threading.Lock()

    # -- state -----------------------------------------------------------------------------

    def _entry(self, tournament_id: str) -> _Cached:
        with self._cache_lock:
            entry = self._cache.get(tournament_id)
            if entry is None:
                entry = self._cache[tournament_id] = _Cached(TournamentState(), threading.Lock())
            return entry

    def _catch_up(self, tournament_id: str, entry: _Cached) -> TournamentState:
        for env in self.log.read(tournament_id, from_seq=entry.state.seq + 1):
            evolve(entry.state, Recorded.of(env))
        return entry.state

    def state(self, tournament_id: str) -> TournamentState:
        entry = self._entry(tournament_id)
        with entry.lock:
            return self._catch_up(tournament_id, entry)

    # -- commands --------------------------------------------------------------------------

    def handle(
        self,
        tournament_id: str,
        batch: CommandBatch,
        actor: Actor,
        events: Sequence[Event] | None = None,
    ) -> AppendResult:
        """Decide `batch` and append what it decides. `events`: its payloads already
        validated as the events they propose, the body bounded by the limits before (the
        API's one pass, services/commands/parse.py); without them each payload is bounded
        and validated here."""
        check_limits(batch, self.limits, payloads=events is None)
        proposed = (
            list(events)
            if events is not None
            else [parse_command(c, f"commands[{i}]") for i, c in enumerate(batch.commands)]
        )
        for i, p in enumerate(proposed):
            if holds_datetimes(type(p)):
                _check_datetimes(p.model_dump(), f"commands[{i}].payload", self.limits)
        if actor.role != "admin":
            exempt = _repairing(proposed) if actor.role == "arbiter" else None
            for i, p in enumerate(proposed):
                if p.event_type in ADMIN_ONLY and i != exempt:
                    raise CommandRejected(
                        "auth.admin_only",
                        f"commands[{i}].type",
                        f"only an admin may append {p.event_type}",
                        status=403,
                    )
        first_ids = [c.event_id or uuid.uuid4() for c in batch.commands]
        entry = self._entry(tournament_id)
        for _attempt in range(self.max_retries):
            with entry.lock:
                try:
                    return self._decide_and_append(
                        tournament_id, entry, batch, proposed, first_ids, actor
                    )
                except AppendConflict:
                    entry.state = TournamentState()  # re-read from the log and decide again
                    if batch.expected_seq is not None:
                        raise
                except BaseException:
                    entry.state = TournamentState()  # the speculative fold is discarded
                    raise
        raise CommandRejected(
            "concurrency.retries_exhausted",
            "expected_seq",
            f"{tournament_id} kept changing under {self.max_retries} attempts; retry",
            status=409,
        )

    def _decide_and_append(
        self,
        tournament_id: str,
        entry: _Cached,
        batch: CommandBatch,
        proposed: Sequence[Event],
        first_ids: Sequence[UUID],
        actor: Actor,
    ) -> AppendResult:
        state = self._catch_up(tournament_id, entry)
        # The redelivery check runs under the tournament's lock, after the catch-up (and
        # again after a lost race): whatever the state holds, `find` sees too, so identical
        # resends racing each other — in this process or others — get one append and the
        # stored result for the rest, never a refusal by the decider.
        redelivered = self._redelivery(tournament_id, batch.commands, proposed, first_ids)
        if redelivered is not None:
            return redelivered
        base_seq = state.seq
        if batch.expected_seq is not None and batch.expected_seq != base_seq:
            raise AppendConflict(tournament_id, batch.expected_seq, base_seq)
        if actor.role == "arbiter":
            _check_repair(state, proposed)
        now = utcnow()
        new: list[NewEvent] = []
        for i, (cmd, event) in enumerate(zip(batch.commands, proposed, strict=True)):
            try:
                decided = decide(state, event)
            except Rejected as r:
                raise CommandRejected.of(
                    [Problem(p.rule, f"commands[{i}].{p.field}", p.message) for p in r.errors]
                ) from None
            for k, out in enumerate(decided):
                eid = derived_event_id(first_ids[i], k)
                ne = NewEvent(
                    event_id=eid,
                    type=out.event_type,
                    schema_version=out.schema_version,
                    occurred_at=cmd.occurred_at or now,
                    actor=actor,
                    payload=encode_payload(out),
                    causation_id=cmd.causation_id if k == 0 else first_ids[i],
                    correlation_id=cmd.correlation_id or first_ids[i],
                )
                new.append(ne)
                # Fold speculatively so the next command in the batch sees this one.
                evolve(state, Recorded(_provisional(ne, tournament_id, state.seq + 1, now), out))
        result = self.log.append(tournament_id, new, expected_seq=base_seq)
        if result.duplicate:  # raced with a redelivery of the same commands
            entry.state = TournamentState()
        return result

    def _redelivery(
        self,
        tournament_id: str,
        commands: Sequence[Command],
        proposed: Sequence[Event],
        first_ids: Sequence[UUID],
    ) -> AppendResult | None:
        """A batch resent with the same event ids returns what was stored the first time."""
        found: list[Envelope] = []
        hits = 0
        for cmd, event, first in zip(commands, proposed, first_ids, strict=True):
            if cmd.event_id is None:
                continue
            env = self.log.find(first, tournament_id)
            if env is None:
                continue
            hits += 1
            sent: dict[str, Any] = encode_payload(event)
            derived = DERIVED_FIELDS.get(event.event_type, frozenset())
            same = (
                env.tournament_id == tournament_id
                and env.type == event.event_type
                and all(env.payload.get(k) == v for k, v in sent.items())
                and set(env.payload) - set(sent) <= derived
            )
            if not same:
                raise EventIdConflict(reused_id_message(first, tournament_id, env))
            found.append(env)
            k = 1
            while (more := self.log.find(derived_event_id(first, k), tournament_id)) is not None:
                found.append(more)
                k += 1
        if hits == 0:
            return None
        if hits != len(commands):
            raise EventIdConflict(
                "part of this batch is stored already; resend exactly the original batch"
            )
        return AppendResult(found, duplicate=True)
