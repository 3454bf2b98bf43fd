"""The command path: parse -> idempotency check -> decide -> append (optimistic concurrency).

One `CommandService` per process; it keeps each tournament's decider state in memory and
catches it up from the log before every decision, so several API processes can write to the
same log: the log's `expected_seq` check makes the loser of a race re-read and decide again.

On a log that can `submit` (Kafka, with group commit), a command is decided and submitted
under its tournament's lock and answered outside it: the next command is decided against the
state after the ones still in flight and joins their transaction (issue 27: through the API
each transaction held one event, because the lock was held across the whole commit). The
writer admits it only right after the batch it was decided after (`after`), so a command is
still checked against the state it is appended after.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from typing import Any, TypeVar
from uuid import UUID

import anyio.to_thread
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

T = TypeVar("T")
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
class _Submitted:
    """A batch decided and submitted under its tournament's lock, its answer awaited outside
    it (`CommandService._step`)."""

    waiter: Callable[[], AppendResult]
    done: threading.Event  # set once it is out of the tournament's batches in flight
    gen: int  # the tournament's generation when it was decided
    chained: bool  # decided after batches still in flight


#: `CommandService._step`: the log moved under the decision; decide again.
_DECIDE_AGAIN = object()
#: `CommandService._step_on_loop`: refused on the speculative state; decide again on the
#: committed one.
_DRAIN = object()


async def run_sync(fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` on a worker thread of the running loop's pool (anyio's, as FastAPI's)."""
    return await anyio.to_thread.run_sync(functools.partial(fn, *args))


async def _outcome(waiter: Callable[[], AppendResult]) -> AppendResult:
    """`waiter()` without holding a thread while the append commits, when the log says when
    it is answered (the Kafka writer's `Pending.when_done`: its committer wakes the loop);
    else (a waiter that does the work itself: a lone writer, a forwarded append) on a worker
    thread."""
    when_done = getattr(waiter, "when_done", None)
    if when_done is None:
        return await run_sync(waiter)
    loop = asyncio.get_running_loop()
    answered = loop.create_future()

    def wake() -> None:
        if not answered.done():
            answered.set_result(None)

    def from_committer() -> None:  # quick, and never raises into the committer
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
            loop.call_soon_threadsafe(wake)

    when_done(from_committer)
    patience = getattr(waiter, "patience_s", None)
    try:
        await asyncio.wait_for(answered, patience)
    except TimeoutError:  # never answered (a committer gone): the waiter's own bounded wait
        return await run_sync(waiter)
    if not getattr(waiter, "final", True):
        return await run_sync(waiter)  # answered, but may still route the batch elsewhere
    return waiter()  # answered: does not wait


@dataclass
class _Cached:
    state: TournamentState
    lock: threading.Lock
    # Pipelined appends (a log with `submit`, e.g. Kafka): the batches decided and submitted
    # but not yet answered, by the ids of their commands' events (a resend of one waits for
    # its answer), and the last event folded into `state` by them (the next decision is
    # admitted only after it: the writer's `after` check). `idle` is notified when the
    # last one is answered.
    inflight: dict[UUID, threading.Event] = field(default_factory=dict)
    tail: UUID | None = None
    idle: threading.Condition | None = None
    # Counts the resets: a batch that fails resets the state only if its fold is still in it
    # (no reset since it was decided), so one failure does not cascade over the batches
    # decided after the reset.
    generation: int = 0
    # Commands refused on a speculative state, waiting to be decided again on the committed
    # one: no new command is decided meanwhile (`_decide_locked`).
    draining: int = 0

    def reset(self) -> None:
        """Drop the speculative fold: the next decision re-reads the log."""
        self.state = TournamentState()
        self.tail = None
        self.generation += 1


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
                lock = threading.Lock()
                entry = self._cache[tournament_id] = _Cached(TournamentState(), lock)
                entry.idle = threading.Condition(lock)
            return entry

    def _catch_up(self, tournament_id: str, entry: _Cached) -> TournamentState:
        for env in self.log.read(tournament_id, from_seq=entry.state.seq + 1):
            evolve(entry.state, Recorded.of(env))
        return entry.state

    def state(self, tournament_id: str) -> TournamentState:
        """The tournament's state as committed: waits for this process's appends in flight
        (whose events the speculative fold holds) to be answered."""
        entry = self._entry(tournament_id)
        with entry.lock:
            assert entry.idle is not None
            entry.idle.wait_for(lambda: not entry.inflight)
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
        proposed = self._prepare(batch, actor, events)
        first_ids = [c.event_id or uuid.uuid4() for c in batch.commands]
        entry = self._entry(tournament_id)
        attempt = 0.0
        while attempt < self.max_retries:
            step = self._step(tournament_id, entry, batch, proposed, first_ids, actor)
            if isinstance(step, AppendResult):
                return step
            if step is _DECIDE_AGAIN:
                attempt += 1
                continue
            if isinstance(step, threading.Event):
                step.wait()
                continue
            assert isinstance(step, _Submitted)
            try:
                result = step.waiter()
            except AppendConflict:
                self._answered(entry, first_ids, step.done, step.gen, reset=True)
                if batch.expected_seq is not None:
                    raise
                # Refused because a batch it was decided after failed: not contention of its
                # own, so it counts a quarter of an attempt.
                attempt += 0.25 if step.chained else 1
                continue
            except BaseException:
                self._answered(entry, first_ids, step.done, step.gen, reset=True)
                raise
            self._answered(entry, first_ids, step.done, step.gen, reset=result.duplicate)
            return result
        raise self._exhausted(tournament_id)

    async def handle_async(
        self,
        tournament_id: str,
        batch: CommandBatch,
        actor: Actor,
        events: Sequence[Event] | None = None,
        minted: Sequence[UUID] = (),
    ) -> AppendResult:
        """`handle` for an event loop (the API's `POST …/commands`): the decision runs on a
        worker thread, but the wait for the commit does not hold one: the log's committer
        wakes the loop when the answer is there (writer.py `Pending.when_done`). Every step,
        its retries and answers are `handle`'s; only where the waiting happens differs.
        `minted`: the ids to give, in order, to the commands that name no event id (chosen
        by the API process that forwarded the command, which resends it with them should
        this process not answer; fresh, so nothing is looked up for them)."""
        fresh = iter(minted)
        first_ids = [c.event_id or next(fresh, None) or uuid.uuid4() for c in batch.commands]
        entry = self._entry(tournament_id)
        proposed: list[Event] | None = None

        drain = False

        def attempt_step() -> tuple[list[Event], object]:
            prepared = proposed if proposed is not None else self._prepare(batch, actor, events)
            return prepared, self._step(
                tournament_id, entry, batch, prepared, first_ids, actor, drain
            )

        attempt = 0.0
        while attempt < self.max_retries:
            # One hop to a worker thread per attempt: the checks (the first time) and the
            # decision under the tournament's lock.
            fast = self._step_on_loop(tournament_id, entry, batch, first_ids, actor, events)
            if fast is not None and fast[1] is not _DRAIN:
                proposed, step = fast
            else:
                drain = fast is not None  # refused on the speculative state: see _step
                proposed, step = await self._off_loop(entry, first_ids, attempt_step)
            if isinstance(step, AppendResult):
                return step
            if step is _DECIDE_AGAIN:
                attempt += 1
                continue
            if isinstance(step, threading.Event):
                await run_sync(step.wait)
                continue
            assert isinstance(step, _Submitted)
            try:
                result = await _outcome(step.waiter)
            except AppendConflict:
                await self._answered_async(entry, first_ids, step, reset=True)
                if batch.expected_seq is not None:
                    raise
                attempt += 0.25 if step.chained else 1  # as in `handle`
                continue
            except asyncio.CancelledError:
                # The request went away; its append goes on: answered in a thread, so the
                # commands decided after it are not left waiting on it.
                ran = getattr(step.waiter, "when_done", None) is None  # it ran on a worker
                threading.Thread(
                    target=self._settle, args=(step, entry, first_ids, ran), daemon=True
                ).start()
                raise
            except BaseException:
                await self._answered_async(entry, first_ids, step, reset=True)
                raise
            await self._answered_async(entry, first_ids, step, reset=result.duplicate)
            return result
        raise self._exhausted(tournament_id)

    def _prepare(
        self, batch: CommandBatch, actor: Actor, events: Sequence[Event] | None
    ) -> list[Event]:
        """The checks before any decision (limits, payloads, who may append what): the
        events the batch proposes."""
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
        return proposed

    def _step(
        self,
        tournament_id: str,
        entry: _Cached,
        batch: CommandBatch,
        proposed: Sequence[Event],
        first_ids: Sequence[UUID],
        actor: Actor,
        drain: bool = False,
    ) -> AppendResult | threading.Event | _Submitted | object:
        """One attempt under the tournament's lock: the answer (a log without `submit`, a
        redelivery), a batch of the same ids still in flight to wait for (then try again), or
        the submitted append whose answer is awaited outside the lock; `_DECIDE_AGAIN` when
        the log moved under the decision (without `expected_seq`). `drain`: the batch was
        refused on the speculative state (`_step_on_loop`): it is decided again once the
        batches in flight are answered, as `_decide_locked` does."""
        with entry.lock:
            assert entry.idle is not None
            if drain:
                entry.draining += 1
                try:
                    entry.idle.wait_for(lambda: not entry.inflight)
                finally:
                    entry.draining -= 1
                    entry.idle.notify_all()
            entry.idle.wait_for(lambda: not entry.draining)  # see _decide_locked
            # A resend of a batch still in flight waits for its answer, then is found
            # stored (a redelivery) or decided again.
            busy = [entry.inflight[f] for f in first_ids if f in entry.inflight]
            if busy:
                return busy[0]
            chained = entry.tail is not None
            try:
                outcome = self._decide_locked(
                    tournament_id, entry, batch, proposed, first_ids, actor
                )
            except AppendConflict:
                entry.reset()  # re-read from the log and decide again
                if batch.expected_seq is not None:
                    raise
                return _DECIDE_AGAIN
            except BaseException:
                entry.reset()  # the speculative fold is discarded
                raise
            if isinstance(outcome, AppendResult):
                return outcome
            done = threading.Event()
            for f in first_ids:
                entry.inflight[f] = done
            # Submitted under the lock, answered outside it: the next command of this
            # tournament is decided (after this one) and joins the same transaction.
            return _Submitted(outcome, done, entry.generation, chained)

    async def _answered_async(
        self, entry: _Cached, first_ids: Sequence[UUID], step: _Submitted, reset: bool
    ) -> None:
        """`_answered` on the event loop when the tournament's lock is free at once (it is
        held only for decisions), else on a worker thread: the loop never waits on it."""
        if not self._answered(entry, first_ids, step.done, step.gen, reset, blocking=False):
            await run_sync(self._answered, entry, first_ids, step.done, step.gen, reset)

    def _step_on_loop(
        self,
        tournament_id: str,
        entry: _Cached,
        batch: CommandBatch,
        first_ids: Sequence[UUID],
        actor: Actor,
        events: Sequence[Event] | None,
    ) -> tuple[list[Event], object] | None:
        """`_step` on the event loop itself when it cannot wait on anything (issue 27: under
        load, the hop to a worker thread and back, and the tournament's lock handed between
        threads, took longer than the commit): the lock is free at once, the tournament has
        batches in flight (the decision is made on their fold, without reading the log), the
        batch names no event id (no redelivery to look up), and the log's `submit` returns at
        once (not a forwarded append: `submit_blocks`). Else None: the caller takes the
        worker thread. A refusal on the speculative state also goes back to the worker
        thread, which decides again on the committed state (`_DRAIN`)."""
        if (
            events is None
            or getattr(self.log, "submit", None) is None
            or getattr(self.log, "submit_blocks", True)
            or any(c.event_id is not None for c in batch.commands)
            or not (entry.inflight and entry.tail is not None)
        ):
            return None
        if not entry.lock.acquire(blocking=False):
            return None
        try:
            if (
                entry.draining
                or not entry.inflight
                or entry.tail is None
                or any(f in entry.inflight for f in first_ids)
            ):
                return None
            proposed = self._prepare(batch, actor, events)
            chained = True
            try:
                outcome = self._decide_and_append(
                    tournament_id, entry, batch, proposed, first_ids, actor
                )
            except CommandRejected:
                # The speculative fold is discarded; decided again off the loop once the
                # batches in flight are answered (`_step` with `drain`).
                entry.reset()
                return proposed, _DRAIN
            except AppendConflict:
                entry.reset()  # re-read from the log and decide again
                if batch.expected_seq is not None:
                    raise
                return proposed, _DECIDE_AGAIN
            except BaseException:
                entry.reset()
                raise
            if isinstance(outcome, AppendResult):
                return proposed, outcome
            done = threading.Event()
            for f in first_ids:
                entry.inflight[f] = done
            return proposed, _Submitted(outcome, done, entry.generation, chained)
        finally:
            entry.lock.release()

    async def _off_loop(
        self,
        entry: _Cached,
        first_ids: Sequence[UUID],
        fn: Callable[[], tuple[list[Event], object]],
    ) -> tuple[list[Event], object]:
        """`fn()` (checks and one `_step`) on a worker thread. Should the request be cancelled
        meanwhile, a batch the step submitted is still answered (in a thread), so the
        tournament's next commands are not left waiting on it."""
        task = asyncio.ensure_future(run_sync(fn))
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:

            def settle(t: asyncio.Future[tuple[list[Event], object]]) -> None:
                if t.cancelled() or t.exception() is not None:
                    return
                step = t.result()[1]
                if isinstance(step, _Submitted):
                    threading.Thread(
                        target=self._settle, args=(step, entry, first_ids), daemon=True
                    ).start()

            task.add_done_callback(settle)
            raise

    def _settle(
        self, step: _Submitted, entry: _Cached, first_ids: Sequence[UUID], ran: bool = False
    ) -> None:
        """Answer a submitted batch nobody awaits any more (`ran`: its waiter ran already,
        its result lost: the state is re-read)."""
        try:
            result = None if ran else step.waiter()
        except BaseException:
            result = None
        reset = result is None or result.duplicate
        self._answered(entry, first_ids, step.done, step.gen, reset=reset)

    def _exhausted(self, tournament_id: str) -> CommandRejected:
        return CommandRejected(
            "concurrency.retries_exhausted",
            "expected_seq",
            f"{tournament_id} kept changing under {self.max_retries} attempts; retry",
            status=409,
        )

    def _decide_locked(
        self,
        tournament_id: str,
        entry: _Cached,
        batch: CommandBatch,
        proposed: Sequence[Event],
        first_ids: Sequence[UUID],
        actor: Actor,
    ) -> AppendResult | Callable[[], AppendResult]:
        """`_decide_and_append`, under the tournament's lock. A refusal names committed state
        only: a command refused against a state holding batches still in flight waits until
        they are answered (new commands of the tournament wait meanwhile) and is decided
        again, on the log's state."""
        try:
            return self._decide_and_append(tournament_id, entry, batch, proposed, first_ids, actor)
        except CommandRejected:
            entry.reset()  # the speculative fold is discarded
            if not entry.inflight:
                raise
        assert entry.idle is not None
        entry.draining += 1
        try:
            entry.idle.wait_for(lambda: not entry.inflight)  # returns holding the lock
        finally:
            entry.draining -= 1
            entry.idle.notify_all()
        return self._decide_and_append(tournament_id, entry, batch, proposed, first_ids, actor)

    @staticmethod
    def _answered(
        entry: _Cached,
        first_ids: Sequence[UUID],
        done: threading.Event,
        gen: int,
        reset: bool,
        blocking: bool = True,
    ) -> bool:
        """Take an answered batch out of the ones in flight. With `blocking=False`, only if
        the tournament's lock is free at once (False: nothing was done)."""
        if not entry.lock.acquire(blocking):
            return False
        try:
            for i in first_ids:
                if entry.inflight.get(i) is done:
                    del entry.inflight[i]
            if reset and entry.generation == gen:  # failed, or raced with a redelivery
                entry.reset()
            if not entry.inflight:
                entry.tail = None  # everything folded is committed: expected_seq suffices
                assert entry.idle is not None
                entry.idle.notify_all()
        finally:
            entry.lock.release()
        done.set()
        return True

    def _decide_and_append(
        self,
        tournament_id: str,
        entry: _Cached,
        batch: CommandBatch,
        proposed: Sequence[Event],
        first_ids: Sequence[UUID],
        actor: Actor,
    ) -> AppendResult | Callable[[], AppendResult]:
        """Decide under the tournament's lock and append: on a log that can `submit`, return
        what waits for the answer (called outside the lock); else the answer."""
        if entry.inflight and entry.tail is not None:
            # Decided after batches still in flight: their fold is the state to decide on,
            # and reading the log first (a round trip to its end, under the lock) could only
            # find another process's append, which fails this batch at the writer anyway
            # (`after`) and makes it decide again on a fresh read.
            state = entry.state
        else:
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
        submit = getattr(self.log, "submit", None)
        if submit is not None and new:
            # The batch is decided against the state after the batches still in flight
            # (`entry.tail`); the writer admits it only right after them (`after`), or, with
            # none in flight, only at `base_seq` (the log's expected_seq check).
            waiter: Callable[[], AppendResult] = submit(
                tournament_id, new, expected_seq=base_seq, after=entry.tail
            )
            entry.tail = new[-1].event_id
            return waiter
        result = self.log.append(tournament_id, new, expected_seq=base_seq)
        if result.duplicate:  # raced with a redelivery of the same commands
            entry.reset()
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
