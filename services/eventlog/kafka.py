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
extra round trip. Writers must all use this class (a producer that writes to the topic outside
this protocol would break the guarantee). On Kafka, event-id idempotency is checked within the
stream's partition (event ids are UUIDs); SQLite checks it globally.
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from uuid import UUID

import orjson
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import NewTopic
from kafka.errors import KafkaError, TopicAlreadyExistsError
from kafka.partitioner.default import murmur2

from events_schema import GENESIS_HASH, Envelope
from events_schema.envelope import read_envelope
from services.eventlog.base import (
    AppendConflict,
    AppendResult,
    EventLog,
    NewEvent,
    Subscription,
    check_duplicates,
    content_digest,
    encode_checked,
    utcnow,
)


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
    lock: threading.RLock = field(default_factory=threading.RLock)
    producer: KafkaProducer | None = None


def partition_for(tournament_id: str, partitions: int) -> int:
    """The Java client's default partitioner (murmur2 of the key), so every client agrees."""
    return int(murmur2(tournament_id.encode()) & 0x7FFFFFFF) % partitions


class KafkaEventLog(EventLog):
    backend = "kafka"
    MAX_ATTEMPTS = 20

    def __init__(
        self,
        bootstrap: str,
        topic: str = "arbiter.events",
        partitions: int = 8,
        client_id: str = "arbiter",
    ) -> None:
        self.bootstrap = bootstrap
        self.topic = topic
        self.client_id = client_id
        self._ensure_topic(partitions)
        self._reader = KafkaConsumer(
            bootstrap_servers=bootstrap,
            client_id=f"{client_id}-reader",
            group_id=None,
            enable_auto_commit=False,
            isolation_level="read_committed",
            auto_offset_reset="earliest",
            fetch_max_wait_ms=50,
            max_poll_records=5000,
        )
        self._reader_lock = threading.RLock()
        found = self._reader.partitions_for_topic(topic) or set()
        self.partitions = len(found) or partitions
        self._parts = [_Partition(n) for n in range(self.partitions)]
        self._tps = [TopicPartition(topic, n) for n in range(self.partitions)]
        self._reader.assign(self._tps)

    # -- topic -----------------------------------------------------------------------------

    def _ensure_topic(self, partitions: int) -> None:
        admin = KafkaAdminClient(
            bootstrap_servers=self.bootstrap, client_id=f"{self.client_id}-admin"
        )
        try:
            admin.create_topics(
                [
                    NewTopic(
                        name=self.topic,
                        num_partitions=partitions,
                        replication_factor=1,
                        topic_configs={
                            "retention.ms": "-1",
                            "retention.bytes": "-1",
                            "cleanup.policy": "delete",
                            "min.insync.replicas": "1",
                        },
                    )
                ]
            )
        except TopicAlreadyExistsError:
            pass
        finally:
            admin.close()

    # -- index -----------------------------------------------------------------------------

    def _end_offset(self, tp: TopicPartition) -> int:
        # Under read_committed this is the last stable offset: nothing past it is visible.
        return int(self._reader.end_offsets([tp])[tp])

    def _records(
        self, tp: TopicPartition, start: int, end: int
    ) -> Iterator[tuple[int, bytes | None, bytes]]:
        """(offset, key, value) of the committed records in [start, end); markers are
        skipped."""
        with self._reader_lock:
            self._reader.seek(tp, start)
            position = start
            while position < end:
                batch = self._reader.poll(timeout_ms=200, max_records=5000).get(tp, [])
                for rec in batch:
                    if rec.offset >= end:
                        return
                    yield rec.offset, rec.key, rec.value
                position = self._reader.position(tp)

    def _catch_up(self, part: _Partition) -> None:
        tp = self._tps[part.number]
        with part.lock:
            end = self._end_offset(tp)
            if part.next_offset >= end:
                return
            for offset, key, value in list(self._records(tp, part.next_offset, end)):
                self._index(part, offset, key, value)
            part.next_offset = end

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

    def _writer(self, part: _Partition) -> KafkaProducer:
        if part.producer is None:
            producer = KafkaProducer(
                bootstrap_servers=self.bootstrap,
                client_id=f"{self.client_id}-writer-p{part.number}",
                transactional_id=f"{self.topic}-writer-p{part.number}",
                acks="all",
                enable_idempotence=True,
                linger_ms=5,  # commit_transaction() flushes: records go out in few requests
                # After a commit the coordinator answers the next transaction's first request
                # with CONCURRENT_TRANSACTIONS for a moment; kafka-python then sleeps the full
                # backoff (100 ms by default), which would cap a writer at ~9 commits/s.
                retry_backoff_ms=5,
            )
            producer.init_transactions()  # fences the previous holder of this partition
            part.producer = producer
            self._catch_up(part)  # now complete: nobody else can commit here
        return part.producer

    def _drop_writer(self, part: _Partition) -> None:
        if part.producer is not None:
            with contextlib.suppress(Exception):
                part.producer.close(timeout=1)
            part.producer = None

    def append(
        self, tournament_id: str, events: Sequence[NewEvent], expected_seq: int | None = None
    ) -> AppendResult:
        if not events:
            return AppendResult([])
        part = self._part(tournament_id)
        last_error: KafkaError | None = None
        with part.lock:
            for attempt in range(self.MAX_ATTEMPTS):
                if attempt:
                    # Two writers taking a partition from each other can fence each other
                    # forever; a jittered, growing pause lets one finish its transaction.
                    time.sleep(random.uniform(0, min(0.5, 0.005 * 2**attempt)))
                producer = self._writer(part)
                try:
                    return self._append_owned(part, producer, tournament_id, events, expected_seq)
                except KafkaError as exc:
                    # Fenced by another writer (ProducerFencedError, InvalidProducerEpochError,
                    # or kafka-python's generic "error state" KafkaError), or the broker failed
                    # mid-transaction. Either way nothing of ours is trusted: a fenced producer
                    # must be recreated; re-initialising completes or aborts our transaction,
                    # and the re-read plus the event-id check make the retry safe (a batch that
                    # did land comes back as a duplicate, never twice).
                    last_error = exc
                    self._drop_writer(part)
            raise KafkaError(
                f"partition {part.number}: append failed {self.MAX_ATTEMPTS} times: {last_error}"
            )

    def _append_owned(
        self,
        part: _Partition,
        producer: KafkaProducer,
        tournament_id: str,
        events: Sequence[NewEvent],
        expected_seq: int | None,
    ) -> AppendResult:
        stored = {
            e.event_id: (
                hit[2],
                self._get(tournament_id if hit[0] == tournament_id else hit[0], hit[1]),
            )
            for e in events
            if (hit := part.ids.get(e.event_id)) is not None
        }
        dup = check_duplicates(tournament_id, events, stored)
        if dup is not None:
            return dup
        stream = part.streams.get(tournament_id) or _Stream()
        last_seq = len(stream.offsets)
        if expected_seq is not None and expected_seq != last_seq:
            raise AppendConflict(tournament_id, expected_seq, last_seq)
        now = utcnow()
        sealed: list[Envelope] = []
        prev = stream.last_hash
        for i, e in enumerate(events, start=1):
            env = e.sealed(tournament_id, last_seq + i, prev, now)
            prev = env.hash
            sealed.append(env)
        bodies = encode_checked(sealed, self.limits)  # bounded, and reads back as itself
        producer.begin_transaction()
        try:
            futures = [
                producer.send(
                    self.topic,
                    key=tournament_id.encode(),
                    value=body,
                    partition=part.number,
                    headers=[("type", env.type.encode())],
                )
                for env, body in zip(sealed, bodies, strict=True)
            ]
            producer.commit_transaction()
            offsets = [f.get(timeout=10).offset for f in futures]
        except KafkaError:
            with contextlib.suppress(KafkaError):
                producer.abort_transaction()
            raise
        stream = part.streams.setdefault(tournament_id, stream)
        for env, e, off in zip(sealed, events, offsets, strict=True):
            stream.offsets.append(off)
            part.ids[env.event_id] = (tournament_id, env.seq, e.digest(tournament_id))
        stream.last_hash = sealed[-1].hash
        part.next_offset = max(part.next_offset, offsets[-1] + 1)
        return AppendResult(sealed)

    # -- reading ---------------------------------------------------------------------------

    def _get(self, tournament_id: str, seq: int) -> Envelope:
        return next(iter(self.read(tournament_id, seq, seq)))

    def read(
        self, tournament_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> Iterator[Envelope]:
        part = self._part(tournament_id)
        self._catch_up(part)
        with part.lock:
            stream = part.streams.get(tournament_id)
            offsets = stream.offsets[max(from_seq, 1) - 1 : to_seq] if stream else []
        if not offsets:
            return iter(())
        seq_at = {off: seq for seq, off in enumerate(offsets, start=max(from_seq, 1))}
        tp = self._tps[part.number]
        out = [
            read_envelope(value, tournament_id=tournament_id, seq=seq_at[off])
            for off, _key, value in self._records(tp, offsets[0], offsets[-1] + 1)
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
        for part in self._parts:
            self._drop_writer(part)
        self._reader.close()


def _read(key: bytes | None, value: bytes) -> Envelope:
    """A reader's decode of a record (never raises). An unreadable record whose bytes do not
    say its seq gets seq 0: the fold counts it as its stream's next event."""
    return read_envelope(value, tournament_id=key.decode(errors="replace") if key else None)


class _KafkaSubscription(Subscription):
    def __init__(self, log: KafkaEventLog, from_beginning: bool) -> None:
        super().__init__()
        self.consumer = KafkaConsumer(
            bootstrap_servers=log.bootstrap,
            client_id=f"{log.client_id}-tail",
            group_id=None,
            enable_auto_commit=False,
            isolation_level="read_committed",
            fetch_max_wait_ms=10,
        )
        self.consumer.assign(log._tps)
        if from_beginning:
            self.consumer.seek_to_beginning(*log._tps)
        else:
            ends = self.consumer.end_offsets(log._tps)
            for tp in log._tps:
                self.consumer.seek(tp, ends[tp])

    def poll(self, timeout: float = 1.0, max_events: int = 10_000) -> list[Envelope]:
        batches = self.consumer.poll(timeout_ms=int(timeout * 1000), max_records=max_events)
        return [_read(r.key, r.value) for recs in batches.values() for r in recs]

    def close(self) -> None:
        super().close()
        self.consumer.close()
