"""The group-commit writer of the Kafka log: the fenced single writer per partition, and the
groups of appends it commits as one transaction each.

How seq assignment and concurrency stay correct with several writer processes
("fenced single writer per partition"):

- Each partition has one transactional id, `<prefix>-writer-p<N>`. A process that wants to
  append to partition N creates a transactional producer with that id and calls
  `init_transactions()`. The broker bumps the producer epoch and *fences* every older producer
  with the same id: from then on their sends and commits fail with `ProducerFencedError`.
- Right after `init_transactions()` the new writer reads partition N to its end (isolation
  `read_committed`). `init_transactions()` only returns once any transaction of the previous
  holder is completed or aborted, so this read sees every committed event; from this moment it
  is the only process that can commit to partition N, and its in-memory index (last seq, last
  hash and event ids per tournament) is complete.
- It decides, checks `expected_seq` and event-id idempotency against that index, assigns
  seq/prev_hash/hash, and writes the batch in one transaction (acks=all, idempotent producer):
  a batch is visible whole or not at all.
- If another process took the partition over in between, the commit fails with
  `ProducerFencedError`; nothing of the batch becomes visible. The loser closes its producer,
  re-initialises (fencing the other in turn), re-reads, and checks again — now returning an
  `AppendConflict` if the stream moved, or appending if it did not.

So a duplicate or conflicting append is never written twice, and uncontended writers pay no
extra round trip.

Group commit (within one process). Appends to one partition are queued for that partition's
committer thread, which commits them in groups, one transaction per group:

- The window: a group closes when its oldest append has waited `group_commit_ms` (the
  constructor's argument; services/config.py gives `ARBITER_KAFKA_GROUP_COMMIT_MS`; default
  3 ms; 0 sends what is queued at once), or when it holds `group_max_events` events
  (`ARBITER_KAFKA_GROUP_MAX_EVENTS`, default 1000; a larger batch goes alone). While a
  transaction is in flight the next group gathers, so under load a group forms without any
  extra wait, and an append waits at most the window. A lone writer does not wait at all:
  the window applies only when more than one append is queued or the previous group held
  more than one, and an append that finds nothing committing or queued (after a group of
  one) commits in the caller's own thread.
- The plan: the group's appends are decided in arrival order against the index and the
  batches admitted ahead of them in the same group, exactly as if each had been appended
  alone in that order: a redelivery (stored, or ahead in the group) is a duplicate; an event
  id reused for other content is `EventIdConflict`; `expected_seq` is compared with the last
  seq *including* the batches ahead of it (`AppendConflict` otherwise); a batch beyond the
  limits or that would not read back is refused. Only admitted batches are written, so a
  refused caller's events are never in the transaction, and the others' seqs and hash chains
  are assigned as if it had not come.
- The answers: every caller gets its own result or refusal, and only once the transaction
  has committed and is visible (a conflict too: it never names a batch that did not land).
  If the transaction fails (fenced by another process, or the cluster failed), nothing of the
  group is trusted: a new writer initialises (fencing, completing or aborting ours), re-reads
  the partition, and the whole group is planned again; a batch that did land is then a
  duplicate. Each append keeps its own deadline (`APPEND_TIMEOUT_S` from its arrival) and its
  own `maybe_committed`. Should Kafka refuse the transaction as too large, each batch of the
  group is retried alone, so only the offending caller gets `LimitExceeded`.

Between processes nothing changes: each process's committer is one more writer of the
partition's transactional id, fenced and re-reading as above, so N processes with group
commit are as correct as N processes without it.

Read after append: a commit returns once the coordinator has logged it, but a `read_committed`
reader only sees the batch once the commit markers are written to the partition (its last
stable offset moves past them), a moment later. An append therefore returns only when the
partition's last stable offset is past its batch, so any reader, in any process, that starts
after the append returned sees it.

When the cluster cannot be reached, has no leader for the partition or too few in-sync
replicas, an append raises `EventLogUnavailable` (HTTP 503) once `APPEND_TIMEOUT_S` (retries
included) has passed. An append that raised `EventLogUnavailable` after its commit was sent
(`maybe_committed`) may still land: resending the same event ids is safe, as above.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from kafka import KafkaProducer
from kafka.errors import (
    KafkaConfigurationError,
    KafkaError,
    KafkaTimeoutError,
    MessageSizeTooLargeError,
    RecordListTooLargeError,
)

from events_schema import GENESIS_HASH, Envelope
from events_schema.limits import KIB, LimitExceeded, Limits
from services.eventlog.base import (
    AppendConflict,
    AppendResult,
    EventLogUnavailable,
    NewEvent,
    check_duplicates,
    encode_checked,
    utcnow,
)
from services.eventlog.kafka.admin import MESSAGE_HEADROOM
from services.eventlog.kafka.clients import KafkaUnavailable, client_options
from services.eventlog.kafka.ownership import NotOwner
from services.eventlog.kafka.partition import AppendRequest, Partition, StreamIndex
from services.eventlog.kafka.reader import IndexedReader

log = logging.getLogger("arbiter.eventlog.kafka")

#: Group commit: the longest an append waits for others to join its transaction
#: (`ARBITER_KAFKA_GROUP_COMMIT_MS`), and the most events one transaction takes
#: (`ARBITER_KAFKA_GROUP_MAX_EVENTS`).
DEFAULT_GROUP_COMMIT_MS = 3.0
DEFAULT_GROUP_MAX_EVENTS = 1000


def _begin_commit(producer: KafkaProducer) -> Any:
    """The first half of `commit_transaction()`: send the commit (EndTxn), return what
    `_await_commit` waits on. Raises, sending nothing, when the transaction failed already.

    kafka-python's `commit_transaction()` waits without a limit (it retries a commit whose
    coordinator is unreachable for ever); these two halves are its body with a timeout
    (kafka-python 3.x internals, pinned < 4 in pyproject). A commit that timed out may still
    complete: the caller discards the producer, and the next writer's `init_transactions()`
    completes or aborts it before anyone re-reads the partition."""
    manager = getattr(producer, "_transaction_manager", None)
    sender = getattr(producer, "_sender", None)
    if manager is None or sender is None or not hasattr(manager, "begin_commit"):
        return None  # pragma: no cover - another kafka-python: _await_commit commits
    result = manager.begin_commit()
    sender.wakeup()
    return result


def _await_commit(producer: KafkaProducer, result: Any, timeout_s: float) -> None:
    if result is None:
        producer.commit_transaction()  # pragma: no cover - another kafka-python
        return
    if not result.wait(timeout_ms=max(timeout_s, 0.1) * 1000):
        raise KafkaTimeoutError(f"commit not acknowledged within {timeout_s:.1f} s")


def _discard(producer: KafkaProducer) -> None:
    """Close a producer that may be stuck (a batch or a commit the cluster never answers).
    `close()` raises from its flush when batches are pending and then leaves its I/O thread
    running: stop that thread too."""
    try:
        producer.close(timeout=0.5)
    except Exception:
        sender = getattr(producer, "_sender", None)
        if sender is not None:
            sender.force_close()


class Pending:
    """What `submit` returns for an append queued for the partition's committer: calling it
    waits for the answer (in a thread); `when_done(callback)` has `callback` called from the
    committer once the answer is there, after which calling it does not wait. An API request
    awaits that instead of holding a thread for the whole commit (services/api/app.py)."""

    __slots__ = ("_wait", "final", "patience_s", "when_done")

    def __init__(
        self,
        wait: Callable[[], AppendResult],
        when_done: Callable[[Callable[[], None]], None],
        patience_s: float,
        final: bool = True,
    ) -> None:
        self._wait = wait
        self.when_done = when_done
        #: The committer answers by then (else calling it is the bounded wait of `_wait`).
        self.patience_s = patience_s
        #: Whether, once answered, calling it returns at once (False: it may still wait, e.g.
        #: route a batch whose partition moved: log.py; the caller then calls it on a thread).
        self.final = final

    def __call__(self) -> AppendResult:
        return self._wait()


@dataclass(eq=False)
class _Planned:
    """What a group's plan decided for one request: a batch to write (`sealed`, `bodies`),
    a duplicate (`result`; `after`: the batches of the group it repeats, which must commit
    first), or a refusal (`error`)."""

    req: AppendRequest
    sealed: list[Envelope] = field(default_factory=list)
    bodies: list[bytes] = field(default_factory=list)
    digests: list[str] = field(default_factory=list)
    result: AppendResult | None = None
    error: BaseException | None = None
    after: list[_Planned] = field(default_factory=list)


class GroupCommitWriter(IndexedReader):
    """The writing half of `KafkaEventLog` (which sets the attributes below)."""

    MAX_ATTEMPTS = 20
    #: An append that the cluster has not taken within this many seconds, retries included,
    #: raises `EventLogUnavailable`. Longer than a leader election after a broker dies (the
    #: controller waits broker.session.timeout.ms for it, then elects; deploy/README.md).
    APPEND_TIMEOUT_S = 15.0
    #: One attempt's wait for its records to be acknowledged, or for its commit. A producer
    #: whose partition leader died keeps trying the dead broker, so after this long it is
    #: replaced (the new one learns the new leader) and the append retried.
    ATTEMPT_TIMEOUT_S = 2.5
    #: After a commit, how long to wait at most for the batch to become visible to readers
    #: (commit markers written) when the append's own time is up.
    VISIBLE_TIMEOUT_S = 3.0
    #: Producer transactions that hang (a writer that died mid-append) are aborted by the
    #: coordinator after this long, which unblocks `read_committed` readers of the partition.
    TRANSACTION_TIMEOUT_S = 20.0

    limits: Limits
    #: Whether `submit` itself may wait; it never does here (nor with ownership by group:
    #: log.py), so the command path may call it on the event loop
    #: (services/commands/service.py `_step_on_loop`).
    submit_blocks = False
    #: How long an append waits at most for others to join its transaction.
    group_window_s: float
    #: The most events one group (one transaction) takes; a larger batch goes alone.
    group_max_events: int
    _closed: bool

    def _may_write(self, part: Partition) -> bool:
        """Whether this process may write the partition now (always, but with ownership by
        group: `KafkaEventLog`)."""
        return True

    def _max_message_bytes(self) -> int:
        return self.limits.max_event_bytes + MESSAGE_HEADROOM

    # -- writing ---------------------------------------------------------------------------

    def _writer(self, part: Partition, deadline: float) -> KafkaProducer:
        if part.producer is None:
            budget_ms = int(
                max(1.0, min(deadline - time.monotonic(), 2 * self.ATTEMPT_TIMEOUT_S)) * 1000
            )
            request_timeout_s = min(5.0, self.APPEND_TIMEOUT_S)
            producer = KafkaProducer(
                **client_options(
                    self.bootstrap, f"{self.client_id}-writer-p{part.number}", request_timeout_s
                ),
                transactional_id=f"{self.topic}-writer-p{part.number}",
                acks="all",
                enable_idempotence=True,
                linger_ms=5,  # commit_transaction() flushes: records go out in few requests
                # A group's records in few produce requests (kafka-python's default is 16 KiB).
                batch_size=256 * KIB,
                # After a commit the coordinator answers the next transaction's first request
                # with CONCURRENT_TRANSACTIONS for a moment; kafka-python then sleeps the full
                # backoff (100 ms by default), which would cap a writer at ~9 commits/s.
                retry_backoff_ms=5,
                # The limits decide what is too large (LimitExceeded), never Kafka.
                max_request_size=self._max_message_bytes(),
                max_block_ms=budget_ms,  # init_transactions() and metadata waits in send()
                # (at least linger_ms + request_timeout_ms, kafka-python checks)
                delivery_timeout_ms=int((self.APPEND_TIMEOUT_S + request_timeout_s) * 1000) + 5,
                transaction_timeout_ms=int(self.TRANSACTION_TIMEOUT_S * 1000),
            )
            try:
                producer.init_transactions()  # fences the previous holder of this partition
                part.writer_inits += 1
            except BaseException:
                _discard(producer)
                raise
            part.producer = producer
            # Now complete: nobody else can commit here.
            self._catch_up(part, min(self.READ_TIMEOUT_S, deadline - time.monotonic()))
        return part.producer

    def _drop_writer(self, part: Partition) -> None:
        if part.producer is not None:
            _discard(part.producer)
            part.producer = None

    def append(
        self, tournament_id: str, events: Sequence[NewEvent], expected_seq: int | None = None
    ) -> AppendResult:
        return self._submit(tournament_id, events, expected_seq)()

    def submit(
        self,
        tournament_id: str,
        events: Sequence[NewEvent],
        expected_seq: int | None = None,
        after: UUID | None = None,
    ) -> Callable[[], AppendResult]:
        """See `_submit` (a subclass may route a submission elsewhere: log.py)."""
        return self._submit(tournament_id, events, expected_seq, after)

    def _submit(
        self,
        tournament_id: str,
        events: Sequence[NewEvent],
        expected_seq: int | None = None,
        after: UUID | None = None,
    ) -> Callable[[], AppendResult]:
        """Take an append in its place in the partition's order without waiting for it, and
        return what waits for its answer (`append` is `submit(...)()`); the returned callable
        must be called. A caller that decides under its own lock submits under it and waits
        outside it, so the next decision can join the same transaction (the command path,
        services/commands/service.py). `after`: the id of the event the batch was decided
        after, when that event was still being appended itself: the batch is refused with
        `AppendConflict` unless that event is then the stream's last."""
        if not events:
            empty = AppendResult([])
            return lambda: empty
        part = self._part(tournament_id)
        now = time.monotonic()
        req = AppendRequest(
            tournament_id, list(events), expected_seq, now + self.APPEND_TIMEOUT_S, now
        )
        req.after = after
        with part.cond:
            if self._closed:
                raise KafkaUnavailable(f"{self.topic}: the log is closed; nothing was appended")
            # A lone writer (nothing committing or queued, and the last group was one append)
            # commits in its own thread: no hand-over to the committer and back.
            alone = not part.busy and not part.queue and part.last_group <= 1
            if alone:
                part.busy = True
                part.last_group = 1
        if alone:

            def run_alone() -> AppendResult:
                try:
                    self._run_group(part, [req])
                finally:
                    with part.cond:
                        part.busy = False
                        part.cond.notify_all()
                return req.outcome()

            return run_alone
        with part.cond:
            part.queue.append(req)
            part.queued_events += len(req.events)
            if part.committer is None or not part.committer.is_alive():
                part.committer = threading.Thread(
                    target=self._committer,
                    args=(part,),
                    name=f"arbiter-kafka-commit-{self.topic}-p{part.number}",
                    daemon=True,
                )
                part.committer.start()
            part.cond.notify()
        return Pending(
            lambda: self._wait(part, req),
            req.when_done,
            self.APPEND_TIMEOUT_S + self.VISIBLE_TIMEOUT_S + 1.0,
        )

    def _wait(self, part: Partition, req: AppendRequest) -> AppendResult:
        # The committer answers every request by its deadline (plus the wait for readers to
        # see a commit); a request still queued then is withdrawn, one being committed is
        # waited on a little longer, then reported as possibly committed.
        if not req.done.wait(self.APPEND_TIMEOUT_S + self.VISIBLE_TIMEOUT_S + 1.0):
            with part.cond:
                if req in part.queue:
                    part.queue.remove(req)
                    part.queued_events -= len(req.events)
                    raise KafkaUnavailable(
                        f"kafka at {self.bootstrap}: {self.topic}[{part.number}] did not take "
                        f"the append within {self.APPEND_TIMEOUT_S:.0f} s (the partition's "
                        "writer was busy); nothing was appended"
                    )
            if not req.done.wait(2 * self.ATTEMPT_TIMEOUT_S + self.VISIBLE_TIMEOUT_S):
                raise KafkaUnavailable(
                    f"kafka at {self.bootstrap}: {self.topic}[{part.number}] did not confirm "
                    "the append in time: it may still appear; resend it with the same event "
                    "ids (a batch that landed comes back as a duplicate)",
                    maybe_committed=True,
                )
        return req.outcome()

    # -- group commit ----------------------------------------------------------------------

    def _committer(self, part: Partition) -> None:
        """The partition's committer thread: gathers the queued appends into groups and
        commits each group as one transaction (see the module docstring)."""
        while True:
            with part.cond:
                while (not part.queue or part.busy) and not part.closing:
                    part.cond.wait()
                if not part.queue:
                    return  # closing
                # A request waits at most `group_window_s` for others to join it, and only
                # when others are appending too: a lone writer (one request queued, and the
                # previous group was one request) gains nothing from waiting.
                concurrent = len(part.queue) > 1 or part.last_group > 1
                flush_at = part.queue[0].arrived + (self.group_window_s if concurrent else 0.0)
                while not part.closing and part.queued_events < self.group_max_events:
                    left = flush_at - time.monotonic()
                    if left <= 0:
                        break
                    part.cond.wait(left)
                group: list[AppendRequest] = []
                n = 0
                while part.queue and (
                    not group or n + len(part.queue[0].events) <= self.group_max_events
                ):
                    req = part.queue.popleft()
                    group.append(req)
                    n += len(req.events)
                part.queued_events -= n
                part.last_group = len(group)
                closing = part.closing
                part.busy = not closing
            if closing:
                for req in group:
                    req.finish(
                        error=KafkaUnavailable(
                            f"{self.topic}: the log was closed; nothing was appended"
                        )
                    )
                continue
            try:
                self._run_group(part, group)
            finally:
                with part.cond:
                    part.busy = False

    def _run_group(self, part: Partition, group: list[AppendRequest]) -> None:
        try:
            self._commit_group(part, group)
        except BaseException as exc:  # a bug: never leave a caller waiting
            log.exception("kafka group commit failed")
            self._drop_writer(part)
            for req in group:
                req.finish(
                    error=KafkaUnavailable(
                        f"kafka at {self.bootstrap}: the append failed ({exc!r})",
                        maybe_committed=req.in_doubt,
                    )
                )
            if not isinstance(exc, Exception):
                raise  # KeyboardInterrupt, SystemExit: answered, then passed on

    def _commit_group(self, part: Partition, group: list[AppendRequest]) -> None:
        """Commit one group: plan it against the index, write every admitted batch in one
        transaction, then answer each caller. On a fenced producer or a failed transaction
        nothing of the group is trusted: a new writer is initialised (which completes or
        aborts the old transaction and re-reads the partition) and the whole group is planned
        again, so a batch that did land comes back as a duplicate, never twice."""
        live = list(group)
        last_error: Exception | None = None
        attempt = 0
        while True:
            now = time.monotonic()
            for req in live:
                if self._closed and attempt:
                    req.finish(error=self._timed_out(part, req, attempt, last_error, "closed"))
                elif now >= req.deadline or attempt >= self.MAX_ATTEMPTS:
                    req.finish(error=self._timed_out(part, req, attempt, last_error))
            live = [r for r in live if not r.done.is_set()]
            if not live:
                return
            deadline = max(r.deadline for r in live)
            if attempt:
                # Two writers taking a partition from each other can fence each other
                # forever; a jittered, growing pause lets one finish its transaction.
                pause = random.uniform(0, min(0.5, 0.005 * 2**attempt))
                time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
            attempt += 1
            if not self._may_write(part):
                # Ownership by group (ownership.py): the partition went to another process;
                # the caller sends the same batch there (a batch of ours that landed is then
                # a duplicate: the new owner re-read the partition after fencing us).
                self._drop_writer(part)
                for req in live:
                    req.finish(error=NotOwner(f"{self.topic}[{part.number}] moved"))
                return
            fresh = part.producer is None
            try:
                producer = self._writer(part, deadline)
            except KafkaConfigurationError as exc:  # a bug, not an outage
                for req in live:
                    req.finish(error=exc)
                return
            except (KafkaError, EventLogUnavailable) as exc:
                # No producer or no complete index: the cluster is unreachable, the
                # transaction coordinator has too few in-sync replicas, or the partition
                # has no leader yet (an election). Try again until the deadlines.
                last_error = exc
                self._drop_writer(part)
                continue
            if fresh:
                # init_transactions() completed or aborted any transaction of ours still
                # open, and the index now shows whether it landed (then the retry finds a
                # duplicate).
                for req in live:
                    req.in_doubt = False
            try:
                self._commit_once(part, producer, live, deadline)
                return
            except (MessageSizeTooLargeError, RecordListTooLargeError) as exc:
                # Never expected: the limits are checked first and the topic and producer
                # allow more. Nothing was committed (a record of the transaction failed).
                # Which batch was too large is not known: each is tried alone.
                self._drop_writer(part)
                if len(live) > 1:
                    for req in live:
                        self._commit_group(part, [req])
                    return
                live[0].finish(
                    error=LimitExceeded(
                        "event_bytes",
                        "commands",
                        f"Kafka refused the batch as too large ({exc}); is the topic's "
                        "max.message.bytes below ARBITER_MAX_EVENT_BYTES + 64 KiB?",
                        status=413,
                    )
                )
                return
            except KafkaError as exc:
                # Fenced by another writer (ProducerFencedError, InvalidProducerEpochError,
                # or kafka-python's generic "error state" KafkaError), or the cluster failed
                # mid-transaction (no leader, too few in-sync replicas, a commit that timed
                # out). Either way nothing of ours is trusted: the producer is discarded; the
                # next one's init_transactions() completes or aborts our transaction, and the
                # re-read plus the event-id check make the retry safe.
                last_error = exc
                self._drop_writer(part)

    def _timed_out(
        self,
        part: Partition,
        req: AppendRequest,
        attempts: int,
        last_error: Exception | None,
        why: str = "",
    ) -> KafkaUnavailable:
        when = (
            f"the log was closed after {attempts} attempt(s)"
            if why
            else (f"{attempts} attempt(s) in {self.APPEND_TIMEOUT_S:.1f} s")
        )
        return KafkaUnavailable(
            f"kafka at {self.bootstrap}: {self.topic}[{part.number}] did not take the append "
            f"({when}; last error: "
            f"{type(last_error).__name__}: {last_error}); "
            + (
                "its commit was sent but not confirmed: the batch may still appear; resend "
                "it with the same event ids (a batch that landed comes back as a duplicate)"
                if req.in_doubt
                else "nothing was appended"
            ),
            maybe_committed=req.in_doubt,
        )

    def _plan(self, part: Partition, live: list[AppendRequest]) -> list[_Planned]:
        """Decide each request of a group in order, against the index (complete: this process
        holds the partition's writer) and the batches admitted ahead of it in the group. A
        request that fails (conflict, reused id, limits) only gets its own error; a redelivery
        of a batch stored already, or admitted ahead of it in the group, its duplicate."""
        ahead: dict[str, tuple[int, str]] = {}  # tid -> (last seq, last hash) after the group
        pending: dict[UUID, tuple[str, Envelope, _Planned]] = {}  # id -> digest, env, writer
        plans: list[_Planned] = []
        now = utcnow()
        for req in live:
            plan = _Planned(req)
            plans.append(plan)
            tid = req.tournament_id
            try:
                stored: dict[UUID, tuple[str, Envelope]] = {}
                for e in req.events:
                    if (mine := pending.get(e.event_id)) is not None:
                        stored[e.event_id] = (mine[0], mine[1])
                        plan.after.append(mine[2])
                    elif (hit := part.ids.get(e.event_id)) is not None:
                        stored[e.event_id] = (hit[2], self._get(hit[0], hit[1]))
                dup = check_duplicates(tid, req.events, stored)
                if dup is not None:
                    plan.result = dup
                    continue
                plan.after.clear()
                if tid in ahead:
                    last_seq, prev = ahead[tid]
                else:
                    stream = part.streams.get(tid)
                    last_seq = len(stream.offsets) if stream else 0
                    prev = stream.last_hash if stream else GENESIS_HASH
                if req.expected_seq is not None and req.expected_seq != last_seq:
                    raise AppendConflict(tid, req.expected_seq, last_seq)
                if req.after is not None:  # decided after an event then in flight
                    mine = pending.get(req.after)
                    hit = part.ids.get(req.after)
                    at = (mine[1].tournament_id, mine[1].seq) if mine else hit and hit[:2]
                    if at != (tid, last_seq):
                        conflict = AppendConflict(tid, last_seq, last_seq)
                        conflict.args = (
                            f"{tid}: the event this batch was decided after ({req.after}) is "
                            f"not the stream's last (seq {last_seq}); re-read and retry",
                        )
                        raise conflict
                sealed: list[Envelope] = []
                for i, e in enumerate(req.events, start=1):
                    env = e.sealed(tid, last_seq + i, prev, now)
                    prev = env.hash
                    sealed.append(env)
                plan.bodies = encode_checked(sealed, self.limits)  # bounded, reads back
                plan.sealed = sealed
                plan.digests = [e.digest(tid) for e in req.events]
                ahead[tid] = (sealed[-1].seq, sealed[-1].hash)
                for env, e, digest in zip(sealed, req.events, plan.digests, strict=True):
                    pending[e.event_id] = (digest, env, plan)
            except EventLogUnavailable:
                raise  # a read of a stored event failed: the group is retried
            except Exception as exc:  # this request's refusal only
                plan.error = exc
                plan.after.clear()
        return plans

    def _commit_once(
        self, part: Partition, producer: KafkaProducer, live: list[AppendRequest], deadline: float
    ) -> None:
        with part.lock:
            plans = self._plan(part, live)
        writes = [p for p in plans if p.sealed]
        if writes:
            # On a KafkaError below the caller discards this producer without aborting (an
            # abort waits without limit when the cluster is down): the next writer's
            # init_transactions() aborts the open transaction, or completes a sent commit.
            producer.begin_transaction()
            futures = [
                [
                    producer.send(
                        self.topic,
                        key=p.req.tournament_id.encode(),
                        value=body,
                        partition=part.number,
                        headers=[("type", env.type.encode())],
                    )
                    for env, body in zip(p.sealed, p.bodies, strict=True)
                ]
                for p in writes
            ]
            # Every record acknowledged by the in-sync replicas before the commit is sent:
            # when that times out (KafkaTimeoutError), no commit was sent and nothing lands.
            producer.flush(timeout=self._attempt_time(deadline))
            for fs in futures:
                for f in fs:
                    if f.failed():  # e.g. MessageSizeTooLargeError: nothing is committed
                        raise f.exception
            sent = _begin_commit(producer)
            for p in plans:  # until confirmed, or a new writer resolved it
                p.req.in_doubt = bool(p.sealed or p.after)
            _await_commit(producer, sent, self._attempt_time(deadline))
            for p in plans:
                p.req.in_doubt = False
            last_offset = -1
            with part.lock:
                for p, fs in zip(writes, futures, strict=True):
                    tid = p.req.tournament_id
                    stream = part.streams.setdefault(tid, StreamIndex())
                    for env, digest, f in zip(p.sealed, p.digests, fs, strict=True):
                        off = f.get(timeout=10).offset
                        last_offset = max(last_offset, off)
                        part.ids[env.event_id] = (tid, env.seq, digest)
                        if env.seq == len(stream.offsets) + 1:  # a read may have indexed it
                            stream.offsets.append(off)
                            stream.last_hash = env.hash
                part.next_offset = max(part.next_offset, last_offset + 1)
                part.transactions += 1
                part.events_written += sum(len(p.sealed) for p in writes)
            try:
                self._await_visible(part, last_offset, deadline)
            except KafkaUnavailable as exc:
                for p in plans:
                    batch = p.sealed or (p.after[0].sealed if p.after else [])
                    if batch:
                        first, last = batch[0], batch[-1]
                        p.req.finish(
                            error=KafkaUnavailable(
                                f"kafka at {self.bootstrap}: {first.tournament_id} seq "
                                f"{first.seq}..{last.seq} was committed, but readers cannot see "
                                f"it yet ({exc}); resend it with the same event ids: it comes "
                                "back as a duplicate",
                                maybe_committed=True,
                            )
                        )
        for p in plans:
            if p.sealed:
                p.req.finish(result=AppendResult(p.sealed))
            elif p.result is not None:
                p.req.finish(result=p.result)
            else:
                p.req.finish(error=p.error)

    def _attempt_time(self, deadline: float) -> float:
        return max(min(deadline - time.monotonic(), self.ATTEMPT_TIMEOUT_S), 0.1)

    def _await_visible(self, part: Partition, last_offset: int, deadline: float) -> None:
        """Return once `read_committed` readers can see the committed batch ending at
        `last_offset`: the partition's last stable offset is past it (the commit markers are
        written, which the coordinator does after the commit returned)."""
        tp = self._tps[part.number]
        deadline = max(deadline, time.monotonic() + self.VISIBLE_TIMEOUT_S)
        pause = 0.0005
        try:
            while self._end_offset(tp, part=part) <= last_offset:
                if time.monotonic() >= deadline:
                    raise KafkaTimeoutError(f"last stable offset still at or below {last_offset}")
                time.sleep(pause)
                pause = min(pause * 2, 0.02)
        except (KafkaError, EventLogUnavailable) as exc:
            raise KafkaUnavailable(str(exc), maybe_committed=True) from exc
