"""The production event log on Apache Kafka.

Layout: one topic (default `arbiter.events`), keyed by tournament id, so all of a tournament's
events live in one partition, in order. Infinite retention (`retention.ms=-1`). Created with
kafka-python's admin client.

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
  constructor's argument, else `ARBITER_KAFKA_GROUP_COMMIT_MS`, default 3 ms; 0 sends what is
  queued at once), or when it holds `group_max_events` events (`ARBITER_KAFKA_GROUP_MAX_EVENTS`,
  default 1000; a larger batch goes alone). While a transaction is in flight the next group
  gathers, so under load a group forms without any extra wait, and an append waits at most
  the window. A lone writer does not wait at all: the window applies only when more than one
  append is queued or the previous group held more than one, and an append that finds
  nothing committing or queued (after a group of one) commits in the caller's own thread.
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

The offset index (`_Partition.streams`: each stream's offsets by seq, last hash, and the
partition's event ids) is rebuilt once per partition per process, on first use, and then
extended incrementally: every read first asks the partition's last stable offset and indexes
only the records from its last indexed offset to there (so an index is never trusted stale:
another process's appends are always picked up), and the writer adds its own commits. It is
not persisted, because the writer must read its partition to the end after
`init_transactions()` anyway (the fencing handover: seqs, hashes and event ids of every
committed event); that one pass builds the offsets too. A persisted index (a compacted topic
written in the same transactions) would add a second partition to every transaction (more
coordinator work and markers per commit, the writer's bottleneck), would still have to be
extended from its end by scanning, and would be a second copy of the truth to keep
consistent. The cost is one scan of a partition the first time a process touches it.

`read()` of one tournament then fetches only its own offsets: runs of them with at most
`READ_SEEK_GAP` (128) other offsets between neighbours are read as one range, a larger gap
is skipped with a seek (a fetch of its own, about 1 ms here; scanning 128 records costs about
the same). Short ranges are read by a consumer of their own with small fetches (`READ_FETCH_BYTES`,
64 KiB), since after a seek the broker sends that much from the offset on; longer ranges
(over `READ_POINT_SPAN` offsets), catch-up and `read_all` scan with 1 MiB fetches. Each
consumer is assigned only the partition it reads.

Writers must all use this class (a producer that writes to the topic outside
this protocol would break the guarantee). On Kafka, event-id idempotency is checked within the
stream's partition (event ids are UUIDs); SQLite checks it globally.

Read after append: a commit returns once the coordinator has logged it, but a `read_committed`
reader only sees the batch once the commit markers are written to the partition (its last
stable offset moves past them), a moment later. An append therefore returns only when the
partition's last stable offset is past its batch, so any reader, in any process, that starts
after the append returned sees it.

Replication and availability (deploy/README.md): the topic is created with replication factor
min(3, brokers in the cluster) unless given (`replication_factor`, `ARBITER_KAFKA_REPLICATION`),
`min.insync.replicas` 2 from replication factor 3 on, and `max.message.bytes` from the limits
(`max_event_bytes` + 64 KiB, the producer's `max_request_size` too, so the limits refuse an
event before Kafka would). When the cluster cannot be reached, has no leader for the
partition or too few in-sync replicas, calls raise `EventLogUnavailable` (HTTP 503) in bounded
time: reads after `READ_TIMEOUT_S` without progress, appends once `APPEND_TIMEOUT_S` (retries
included) has passed. An append that raised `EventLogUnavailable` after its commit was sent
(`maybe_committed`) may still land: resending the same event ids is safe, as above.
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import orjson
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.errors import (
    KafkaConfigurationError,
    KafkaError,
    KafkaTimeoutError,
    MessageSizeTooLargeError,
    RecordListTooLargeError,
    TopicAlreadyExistsError,
)
from kafka.partitioner.default import murmur2

from events_schema import GENESIS_HASH, Envelope
from events_schema.envelope import read_envelope
from events_schema.limits import KIB, LimitExceeded, Limits
from services.eventlog.base import (
    AppendConflict,
    AppendResult,
    EventLog,
    EventLogUnavailable,
    NewEvent,
    Subscription,
    check_duplicates,
    content_digest,
    encode_checked,
    utcnow,
)

log = logging.getLogger("arbiter.eventlog.kafka")

#: The broker version the clients assume (deploy/kafka/pom.xml). Given, so that no client
#: probes the cluster when it is created (a probe against a dead cluster blocks for 30 s); each
#: connection still negotiates the versions the broker supports, this only caps them.
API_VERSION = (3, 9)
#: Headroom of a topic's `max.message.bytes` (and the producer's `max_request_size`) above the
#: largest event the limits allow: the record batch framing and headers.
MESSAGE_HEADROOM = 64 * KIB
#: Group commit: the longest an append waits for others to join its transaction
#: (`ARBITER_KAFKA_GROUP_COMMIT_MS`), and the most events one transaction takes
#: (`ARBITER_KAFKA_GROUP_MAX_EVENTS`).
DEFAULT_GROUP_COMMIT_MS = 3.0
DEFAULT_GROUP_MAX_EVENTS = 1000


def client_options(bootstrap: str, client_id: str, request_timeout_s: float) -> dict[str, Any]:
    """Settings every client of the log shares: no probing at start, bounded requests, a
    short reconnect backoff, so that a broker that comes back is used again within a second
    (kafka-python backs off up to 30 s by default), and metadata at most 5 s old:
    kafka-python 3.0's `end_offsets` retries a NOT_LEADER_OR_FOLLOWER answer without
    refreshing its metadata (the Java client's KAFKA-9535), so after a leader moved it would
    keep asking the old leader until the metadata expires (5 minutes by default)."""
    return {
        "bootstrap_servers": bootstrap,
        "client_id": client_id,
        "api_version": API_VERSION,
        "request_timeout_ms": int(request_timeout_s * 1000),
        "reconnect_backoff_max_ms": 1000,
        "metadata_max_age_ms": 5000,
    }


def replication_factor_for(admin: KafkaAdminClient, explicit: int | None = None) -> int:
    """`explicit`, else `ARBITER_KAFKA_REPLICATION`, else min(3, brokers in the cluster now)
    (a broker that is down is not counted: a topic created then has one replica fewer)."""
    if explicit is None and os.environ.get("ARBITER_KAFKA_REPLICATION"):
        explicit = int(os.environ["ARBITER_KAFKA_REPLICATION"])
    if explicit is not None:
        if explicit < 1:
            raise ValueError(f"replication factor must be at least 1, not {explicit}")
        return explicit
    brokers = len(admin.describe_cluster()["brokers"])
    # A node that has just started can be missing from another node's view for a moment:
    # with two of a cluster in sight, look again for a few seconds before settling on two.
    # (A single broker answers at once; production names the factor explicitly.)
    deadline = time.monotonic() + 5.0
    while brokers == 2 and time.monotonic() < deadline:
        time.sleep(0.25)
        brokers = max(brokers, len(admin.describe_cluster()["brokers"]))
    if 0 < brokers < 3:
        log.info(
            "%d broker(s) in the cluster: new topics get replication factor %d", brokers, brokers
        )
    return max(1, min(3, brokers))


def durability_configs(replication_factor: int) -> dict[str, str]:
    """What every topic of ours gets: acks=all needs 2 in-sync replicas from replication
    factor 3 on, and a replica that fell behind never becomes leader."""
    return {
        "min.insync.replicas": "2" if replication_factor >= 3 else "1",
        "unclean.leader.election.enable": "false",
    }


def events_topic_configs(replication_factor: int, limits: Limits) -> dict[str, str]:
    """The events topic: kept forever, and records as large as the limits allow."""
    return {
        "retention.ms": "-1",
        "retention.bytes": "-1",
        "cleanup.policy": "delete",
        "max.message.bytes": str(limits.max_event_bytes + MESSAGE_HEADROOM),
        **durability_configs(replication_factor),
    }


def create_topic(
    admin: KafkaAdminClient,
    name: str,
    partitions: int,
    replication_factor: int,
    configs: dict[str, str],
) -> None:
    """Create a topic (nothing if it exists) and wait until every partition has a leader."""
    with contextlib.suppress(TopicAlreadyExistsError):
        admin.create_topics(
            {
                name: {
                    "num_partitions": partitions,
                    "replication_factor": replication_factor,
                    "configs": configs,
                }
            },
            wait_for_metadata=True,
        )


class KafkaUnavailable(EventLogUnavailable):
    """`EventLogUnavailable` from the Kafka log. `maybe_committed`: the failed append had sent
    its commit and the cluster did not say whether it took it; the batch may still appear
    (resend the same event ids: it then comes back as a duplicate). False: nothing of it was
    stored."""

    def __init__(self, message: str, maybe_committed: bool = False) -> None:
        super().__init__(message)
        self.maybe_committed = maybe_committed


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


@dataclass
class _Stream:
    offsets: list[int] = field(default_factory=list)  # offsets[seq - 1]
    last_hash: str = GENESIS_HASH


@dataclass
class _Partition:
    number: int
    next_offset: int = 0  # first offset not yet read into the index
    streams: dict[str, _Stream] = field(default_factory=dict)
    ids: dict[UUID, tuple[str, int, str]] = field(default_factory=dict)  # id -> tid, seq, digest
    # Guards the index (streams, ids, next_offset) and the reader's catch-up of it.
    lock: threading.RLock = field(default_factory=threading.RLock)
    producer: KafkaProducer | None = None  # used by the committer thread only
    # The appends waiting for the committer (guarded by `cond`).
    queue: deque[_Request] = field(default_factory=deque)
    queued_events: int = 0
    last_group: int = 0  # requests in the group taken last
    busy: bool = False  # a group is being committed (by the committer or a lone writer)
    cond: threading.Condition = field(default_factory=threading.Condition)
    committer: threading.Thread | None = None
    watcher: KafkaConsumer | None = None  # the committer's: the last stable offset
    closing: bool = False
    # Committed by this process: transactions and the events in them (the benchmark's groups).
    transactions: int = 0
    events_written: int = 0


@dataclass(eq=False)
class _Request:
    """One caller's append, waiting for its group's transaction."""

    tournament_id: str
    events: list[NewEvent]
    expected_seq: int | None
    deadline: float
    arrived: float
    done: threading.Event = field(default_factory=threading.Event)
    result: AppendResult | None = None
    error: BaseException | None = None
    # Its batch was in a transaction whose commit was sent and not confirmed (until a new
    # writer has initialised and re-read the partition).
    in_doubt: bool = False

    def finish(
        self, result: AppendResult | None = None, error: BaseException | None = None
    ) -> None:
        if self.done.is_set():
            return  # answered already (e.g. refused when its commit was not yet visible)
        self.result, self.error = result, error
        self.done.set()

    def outcome(self) -> AppendResult:
        if self.error is not None:
            raise self.error
        assert self.result is not None
        return self.result


@dataclass(eq=False)
class _Planned:
    """What a group's plan decided for one request: a batch to write (`sealed`, `bodies`),
    a duplicate (`result`; `after`: the batches of the group it repeats, which must commit
    first), or a refusal (`error`)."""

    req: _Request
    sealed: list[Envelope] = field(default_factory=list)
    bodies: list[bytes] = field(default_factory=list)
    digests: list[str] = field(default_factory=list)
    result: AppendResult | None = None
    error: BaseException | None = None
    after: list[_Planned] = field(default_factory=list)


def _env_ms(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if not raw:
        return default
    value = float(raw)
    if value < 0:
        raise ValueError(f"{name} must be >= 0, not {raw}")
    return value


def _spans(offsets: Sequence[int], gap: int) -> list[tuple[int, int]]:
    """The [start, end) ranges to fetch for these ascending offsets: one range per run of
    offsets with at most `gap` other offsets between neighbours (reading past a few records
    of other streams costs less than a seek, which is a fetch request of its own)."""
    spans: list[tuple[int, int]] = []
    start = prev = offsets[0]
    for off in offsets[1:]:
        if off - prev - 1 > gap:
            spans.append((start, prev + 1))
            start = off
        prev = off
    spans.append((start, prev + 1))
    return spans


def partition_for(tournament_id: str, partitions: int) -> int:
    """The Java client's default partitioner (murmur2 of the key), so every client agrees."""
    return int(murmur2(tournament_id.encode()) & 0x7FFFFFFF) % partitions


class KafkaEventLog(EventLog):
    backend = "kafka"
    MAX_ATTEMPTS = 20
    #: An append that the cluster has not taken within this many seconds, retries included,
    #: raises `EventLogUnavailable`. Longer than a leader election after a broker dies (the
    #: controller waits broker.session.timeout.ms for it, then elects; deploy/README.md).
    APPEND_TIMEOUT_S = 15.0
    #: One attempt's wait for its records to be acknowledged, or for its commit. A producer
    #: whose partition leader died keeps trying the dead broker, so after this long it is
    #: replaced (the new one learns the new leader) and the append retried.
    ATTEMPT_TIMEOUT_S = 2.5
    #: A read that makes no progress for this long raises `EventLogUnavailable`; so does
    #: opening the log against a cluster that does not answer.
    READ_TIMEOUT_S = 8.0
    #: After a commit, how long to wait at most for the batch to become visible to readers
    #: (commit markers written) when the append's own time is up.
    VISIBLE_TIMEOUT_S = 3.0
    #: Producer transactions that hang (a writer that died mid-append) are aborted by the
    #: coordinator after this long, which unblocks `read_committed` readers of the partition.
    TRANSACTION_TIMEOUT_S = 20.0
    #: `read()` fetches a stream's own offsets from the index: runs of them with at most this
    #: many other offsets between neighbours are read as one range, larger gaps are skipped
    #: with a seek (a fetch request of its own).
    READ_SEEK_GAP = 128
    #: The point reader's fetch size (see `_point_reader`), and the longest range it reads;
    #: a longer one is read by the scan reader (1 MiB fetches).
    READ_FETCH_BYTES = 64 * KIB
    READ_POINT_SPAN = 256

    def __init__(
        self,
        bootstrap: str,
        topic: str = "arbiter.events",
        partitions: int = 8,
        client_id: str = "arbiter",
        replication_factor: int | None = None,
        limits: Limits | None = None,
        group_commit_ms: float | None = None,
        group_max_events: int | None = None,
    ) -> None:
        self.bootstrap = bootstrap
        if group_commit_ms is None:
            group_commit_ms = _env_ms("ARBITER_KAFKA_GROUP_COMMIT_MS", DEFAULT_GROUP_COMMIT_MS)
        if group_max_events is None:
            group_max_events = int(
                _env_ms("ARBITER_KAFKA_GROUP_MAX_EVENTS", DEFAULT_GROUP_MAX_EVENTS)
            )
        if group_commit_ms < 0 or group_max_events < 1:
            raise ValueError("group_commit_ms must be >= 0 and group_max_events >= 1")
        #: How long an append waits at most for others to join its transaction.
        self.group_window_s = group_commit_ms / 1000
        #: The most events one group (one transaction) takes; a larger batch goes alone.
        self.group_max_events = group_max_events
        self._closed = False
        self.topic = topic
        self.client_id = client_id
        if limits is not None:
            self.limits = limits
        try:
            found, self.replication_factor = self._ensure_topic(partitions, replication_factor)
        except KafkaConfigurationError:
            raise
        except KafkaError as exc:
            raise KafkaUnavailable(f"kafka at {bootstrap}: cannot open {topic}: {exc}") from exc
        self._reader = self._consumer(f"{client_id}-reader")  # scans: catch-up, read_all
        self._reader_lock = threading.RLock()  # the reader's and the point reader's
        self._seeker: KafkaConsumer | None = None
        self.partitions = found or partitions
        self._parts = [_Partition(n) for n in range(self.partitions)]
        self._tps = [TopicPartition(topic, n) for n in range(self.partitions)]

    # -- topic -----------------------------------------------------------------------------

    def _ensure_topic(self, partitions: int, replication_factor: int | None) -> tuple[int, int]:
        """Create the topic if it is missing; (its partition count, its replication factor)."""
        admin = KafkaAdminClient(
            **client_options(self.bootstrap, f"{self.client_id}-admin", self.READ_TIMEOUT_S),
            bootstrap_timeout_ms=int(self.READ_TIMEOUT_S * 1000),
        )
        try:
            deadline = time.monotonic() + self.READ_TIMEOUT_S
            while True:
                try:
                    info = admin.describe_topics([self.topic])[0]
                    if info["error_code"] == 0 and info["partitions"]:
                        replicas = len(info["partitions"][0]["replica_nodes"])
                        return len(info["partitions"]), replicas
                    if time.monotonic() > deadline:
                        raise KafkaTimeoutError(f"topic {self.topic} has no partitions (yet)")
                    rf = replication_factor_for(admin, replication_factor)
                    configs = events_topic_configs(rf, self.limits)
                    create_topic(admin, self.topic, partitions, rf, configs)
                except KafkaConfigurationError:
                    raise
                except KafkaError as exc:
                    # A broker that has just (re)started is not in every metadata view yet:
                    # UnknownBrokerIdError, NotControllerError, ... Try again for a while.
                    if time.monotonic() > deadline:
                        raise
                    log.info("opening %s: %s; retrying", self.topic, exc)
                    time.sleep(0.2)
        finally:
            admin.close()

    def _max_message_bytes(self) -> int:
        return self.limits.max_event_bytes + MESSAGE_HEADROOM

    @contextlib.contextmanager
    def _unavailable(self, what: str) -> Iterator[None]:
        """A Kafka client error while reading becomes `EventLogUnavailable`."""
        try:
            yield
        except KafkaError as exc:
            raise KafkaUnavailable(f"kafka at {self.bootstrap}: {what}: {exc}") from exc

    # -- index -----------------------------------------------------------------------------

    def _end_offset(
        self, tp: TopicPartition, timeout_s: float | None = None, part: _Partition | None = None
    ) -> int:
        """The partition's last stable offset (under read_committed nothing past it is
        visible), asked by the shared reader, or with `part` by that partition's committer's
        own consumer (no wait for the reader's lock)."""
        wait_s = self.READ_TIMEOUT_S if timeout_s is None else timeout_s
        deadline = time.monotonic() + max(wait_s, 0.5)
        lock: contextlib.AbstractContextManager[Any]
        if part is not None:
            if part.watcher is None:
                part.watcher = self._consumer(f"{self.client_id}-watch-p{part.number}")
            consumer, lock = part.watcher, contextlib.nullcontext()
        else:
            consumer, lock = self._reader, self._reader_lock
        with lock, self._unavailable(f"end of {tp.topic}[{tp.partition}]"):
            while True:
                step_ms = int(max(min(1.0, deadline - time.monotonic()), 0.1) * 1000)
                try:
                    return int(consumer.end_offsets([tp], timeout_ms=step_ms)[tp])
                except KafkaTimeoutError:
                    if time.monotonic() >= deadline:
                        raise
                    self._refresh_metadata(consumer)

    def _consumer(
        self, client_id: str, fetch_bytes: int = 1024 * KIB, fetch_wait_ms: int = 50
    ) -> KafkaConsumer:
        return KafkaConsumer(
            **client_options(self.bootstrap, client_id, self.READ_TIMEOUT_S),
            group_id=None,
            enable_auto_commit=False,
            isolation_level="read_committed",
            auto_offset_reset="earliest",
            fetch_max_wait_ms=fetch_wait_ms,
            max_poll_records=5000,
            # A fetch returns at least one whole record batch, however large.
            max_partition_fetch_bytes=fetch_bytes,
        )

    def _point_reader(self) -> KafkaConsumer:
        """The consumer `read()` fetches a stream's own offsets with: small fetches, since
        after each seek the broker sends up to this much from the offset on (the shared
        reader's 1 MiB suits whole-partition scans)."""
        with self._reader_lock:
            if self._seeker is None:
                # No wait at the partition's end: the fetch the consumer sends ahead after
                # each range would otherwise hold the next seek for fetch_max_wait_ms.
                self._seeker = self._consumer(
                    f"{self.client_id}-point", self.READ_FETCH_BYTES, fetch_wait_ms=0
                )
            return self._seeker

    @staticmethod
    def _refresh_metadata(consumer: KafkaConsumer) -> None:
        """Ask a consumer for fresh metadata: kafka-python 3.0's `end_offsets` keeps asking a
        partition's old leader (see `client_options`), so after a second without an answer
        the leader may have moved. (kafka-python internals; without them the metadata
        expires within `metadata_max_age_ms`.)"""
        cluster = getattr(getattr(consumer, "_manager", None), "cluster", None)
        if cluster is not None and hasattr(cluster, "request_update"):
            cluster.request_update()

    def _records(
        self,
        tp: TopicPartition,
        start: int,
        end: int,
        timeout_s: float | None = None,
        reader: KafkaConsumer | None = None,
    ) -> Iterator[tuple[int, bytes | None, bytes]]:
        """(offset, key, value) of the committed records in [start, end); markers are
        skipped. Raises `EventLogUnavailable` when no record comes for READ_TIMEOUT_S (the
        partition has no leader, or `end` is past its last stable offset)."""
        what = f"reading {tp.topic}[{tp.partition}] from {start} to {end}"
        stall_s = max(self.READ_TIMEOUT_S if timeout_s is None else timeout_s, 0.5)
        consumer = self._reader if reader is None else reader
        with self._reader_lock:
            if consumer.assignment() != {tp}:
                # Only this partition: a consumer fetches from every partition it is
                # assigned, and the others' records would be fetched for nothing.
                consumer.assign([tp])
            consumer.seek(tp, start)
            position = start
            progress_at = time.monotonic()
            while position < end:
                with self._unavailable(what):
                    batch = consumer.poll(timeout_ms=200, max_records=5000).get(tp, [])
                for rec in batch:
                    if rec.offset >= end:
                        return
                    yield rec.offset, rec.key, rec.value
                with self._unavailable(what):
                    now_at = consumer.position(tp, timeout_ms=1000)
                if now_at is not None and now_at > position:
                    position, progress_at = now_at, time.monotonic()
                elif time.monotonic() - progress_at > stall_s:
                    raise KafkaUnavailable(
                        f"kafka at {self.bootstrap}: {what}: stuck at {position} for "
                        f"{stall_s:.1f} s"
                    )

    def _catch_up(self, part: _Partition, timeout_s: float | None = None) -> None:
        tp = self._tps[part.number]
        # An append of this process may hold the partition while the cluster is down.
        if not part.lock.acquire(timeout=self.READ_TIMEOUT_S):
            raise KafkaUnavailable(
                f"kafka at {self.bootstrap}: {self.topic}[{part.number}] is busy with an "
                f"append of this process for {self.READ_TIMEOUT_S:.0f} s"
            )
        try:
            end = self._end_offset(tp, timeout_s)
            if part.next_offset >= end:
                return
            for offset, key, value in list(self._records(tp, part.next_offset, end, timeout_s)):
                self._index(part, offset, key, value)
            part.next_offset = end
        finally:
            part.lock.release()

    @staticmethod
    def _index(part: _Partition, offset: int, key: bytes | None, value: bytes) -> None:
        """Index one record. A record that does not decode (poison: a manual write, an old
        bug) is indexed at the next seq of its key's stream — a stream's records are its seqs
        in offset order — under the id every reader derives for it, so it can be read back
        as unreadable and retracted by that id."""
        try:
            raw = orjson.loads(value)
            tid = str(raw["tournament_id"])
            seq = int(raw["seq"])
            version = int(raw["schema_version"])
            digest = content_digest(tid, str(raw["type"]), version, raw["payload"])
            event_id = UUID(str(raw["event_id"]))
            last_hash = str(raw["hash"])
        except Exception:
            tid = key.decode(errors="replace") if key else "?"
            stream = part.streams.get(tid)
            env = read_envelope(
                value, tournament_id=tid, seq=len(stream.offsets) + 1 if stream else 1
            )
            seq, event_id, digest = env.seq, env.event_id, ""
            last_hash = env.hash
        stream = part.streams.setdefault(tid, _Stream())
        if seq != len(stream.offsets) + 1:
            return  # already indexed (our own write) — seqs are gapless per stream
        stream.offsets.append(offset)
        stream.last_hash = last_hash
        part.ids[event_id] = (tid, seq, digest)

    def _part(self, tournament_id: str) -> _Partition:
        return self._parts[partition_for(tournament_id, self.partitions)]

    # -- writing ---------------------------------------------------------------------------

    def _writer(self, part: _Partition, deadline: float) -> KafkaProducer:
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
            except BaseException:
                _discard(producer)
                raise
            part.producer = producer
            # Now complete: nobody else can commit here.
            self._catch_up(part, min(self.READ_TIMEOUT_S, deadline - time.monotonic()))
        return part.producer

    def _drop_writer(self, part: _Partition) -> None:
        if part.producer is not None:
            _discard(part.producer)
            part.producer = None

    def append(
        self, tournament_id: str, events: Sequence[NewEvent], expected_seq: int | None = None
    ) -> AppendResult:
        if not events:
            return AppendResult([])
        part = self._part(tournament_id)
        now = time.monotonic()
        req = _Request(tournament_id, list(events), expected_seq, now + self.APPEND_TIMEOUT_S, now)
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
            try:
                self._run_group(part, [req])
            finally:
                with part.cond:
                    part.busy = False
                    part.cond.notify_all()
            return req.outcome()
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

    def _committer(self, part: _Partition) -> None:
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
                group: list[_Request] = []
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

    def _run_group(self, part: _Partition, group: list[_Request]) -> None:
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

    def _commit_group(self, part: _Partition, group: list[_Request]) -> None:
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
        part: _Partition,
        req: _Request,
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

    def _plan(self, part: _Partition, live: list[_Request]) -> list[_Planned]:
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
        self, part: _Partition, producer: KafkaProducer, live: list[_Request], deadline: float
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
                    stream = part.streams.setdefault(tid, _Stream())
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

    def _await_visible(self, part: _Partition, last_offset: int, deadline: float) -> None:
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

    # -- reading ---------------------------------------------------------------------------

    def _get(self, tournament_id: str, seq: int) -> Envelope:
        return next(iter(self.read(tournament_id, seq, seq)))

    def read(
        self, tournament_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> Iterator[Envelope]:
        part = self._part(tournament_id)
        self._catch_up(part)  # the index extended to the partition's end, never trusted stale
        with part.lock:
            stream = part.streams.get(tournament_id)
            offsets = stream.offsets[max(from_seq, 1) - 1 : to_seq] if stream else []
        if not offsets:
            return iter(())
        seq_at = {off: seq for seq, off in enumerate(offsets, start=max(from_seq, 1))}
        tp = self._tps[part.number]
        out: list[Envelope] = []
        for start, end in _spans(offsets, self.READ_SEEK_GAP):
            # A long range is a scan: the scan reader's large fetches suit it better.
            reader = self._point_reader() if end - start <= self.READ_POINT_SPAN else None
            out += [
                read_envelope(value, tournament_id=tournament_id, seq=seq_at[off])
                for off, _key, value in self._records(tp, start, end, reader=reader)
                if off in seq_at
            ]
        return iter(out)

    def read_all(self) -> Iterator[Envelope]:
        for part in self._parts:
            tp = self._tps[part.number]
            end = self._end_offset(tp)
            start = 0
            while start < end:
                chunk = []
                for off, key, value in self._records(tp, start, end):
                    chunk.append((key, value))
                    start = off + 1
                    if len(chunk) >= 5000:
                        break
                else:
                    start = end
                yield from (_read(k, v) for k, v in chunk)

    def last_seq(self, tournament_id: str) -> int:
        part = self._part(tournament_id)
        self._catch_up(part)
        stream = part.streams.get(tournament_id)
        return len(stream.offsets) if stream else 0

    def find(self, event_id: UUID, tournament_id: str | None = None) -> Envelope | None:
        parts = [self._part(tournament_id)] if tournament_id is not None else self._parts
        for part in parts:
            self._catch_up(part)
            hit = part.ids.get(event_id)
            if hit is not None:
                return self._get(hit[0], hit[1])
        return None

    def stream_ids(self) -> list[str]:
        for part in self._parts:
            self._catch_up(part)
        return sorted(t for part in self._parts for t in part.streams)

    def subscribe(self, from_beginning: bool = False) -> Subscription:
        return _KafkaSubscription(self, from_beginning)

    def close(self) -> None:
        """Stop the committers (the groups under way finish; appends still queued are
        refused, nothing of them appended), then the producers and the reader."""
        with contextlib.suppress(AttributeError):  # a log whose __init__ failed
            self._closed = True
            for part in self._parts:
                with part.cond:
                    part.closing = True
                    part.cond.notify_all()
            for part in self._parts:
                if part.committer is not None:
                    part.committer.join(timeout=self.APPEND_TIMEOUT_S + self.VISIBLE_TIMEOUT_S)
                self._drop_writer(part)
                if part.watcher is not None:
                    part.watcher.close()
                    part.watcher = None
            self._reader.close()
            if self._seeker is not None:
                self._seeker.close()


def _read(key: bytes | None, value: bytes) -> Envelope:
    """A reader's decode of a record (never raises). An unreadable record whose bytes do not
    say its seq gets seq 0: the fold counts it as its stream's next event."""
    return read_envelope(value, tournament_id=key.decode(errors="replace") if key else None)


class _KafkaSubscription(Subscription):
    def __init__(self, log: KafkaEventLog, from_beginning: bool) -> None:
        super().__init__()
        self.consumer = KafkaConsumer(
            **client_options(log.bootstrap, f"{log.client_id}-tail", log.READ_TIMEOUT_S),
            group_id=None,
            enable_auto_commit=False,
            isolation_level="read_committed",
            fetch_max_wait_ms=10,
        )
        self.consumer.assign(log._tps)
        if from_beginning:
            self.consumer.seek_to_beginning(*log._tps)
        else:
            try:
                ends = self.consumer.end_offsets(log._tps)
            except KafkaError as exc:
                self.consumer.close()
                raise KafkaUnavailable(f"kafka at {log.bootstrap}: tail: {exc}") from exc
            for tp in log._tps:
                self.consumer.seek(tp, ends[tp])

    def poll(self, timeout: float = 1.0, max_events: int = 10_000) -> list[Envelope]:
        batches = self.consumer.poll(timeout_ms=int(timeout * 1000), max_records=max_events)
        return [_read(r.key, r.value) for recs in batches.values() for r in recs]

    def close(self) -> None:
        super().close()
        self.consumer.close()
