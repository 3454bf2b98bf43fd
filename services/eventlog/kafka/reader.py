"""The indexed reader of the Kafka log: catch-up of each partition's offset index
(`partition.py`) and the reads it serves (`read`, `read_all`, `last_seq`, `find`,
`stream_ids`).

`read()` of one tournament fetches only its own offsets: runs of them with at most
`READ_SEEK_GAP` (128) other offsets between neighbours are read as one range, a larger gap
is skipped with a seek (a fetch of its own, about 1 ms here; scanning 128 records costs about
the same). Short ranges are read by a consumer of their own with small fetches
(`READ_FETCH_BYTES`, 64 KiB), since after a seek the broker sends that much from the offset on;
longer ranges (over `READ_POINT_SPAN` offsets), catch-up and `read_all` scan with 1 MiB
fetches. Each consumer is assigned only the partition it reads.

Every range is read in fetch rounds (`fetch_round`): one fetch request and its answer, after
which the reader looks at its position. The range's end is known first (the last stable offset,
asked with `end_offsets` under read_committed, commit markers included), so a range whose last
offsets are commit markers (after every transaction of the writer: the marker takes the offset
after the batch) ends on the round that skips them, instead of waiting out a poll for a record
that cannot come (issue 27 item 1: that wait was 200 ms after every commit).

When the cluster cannot be reached or the partition has no leader, reads raise
`EventLogUnavailable` after `READ_TIMEOUT_S` without progress."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any
from uuid import UUID

from kafka import KafkaConsumer, TopicPartition
from kafka.consumer.fetcher import ConsumerRecord
from kafka.errors import KafkaError, KafkaTimeoutError
from kafka.util import Timer

from events_schema import Envelope
from events_schema.envelope import read_envelope
from events_schema.limits import KIB
from services.eventlog.kafka.clients import (
    KafkaUnavailable,
    client_options,
    decode_record,
    partition_for,
)
from services.eventlog.kafka.partition import Partition


def spans(offsets: Sequence[int], gap: int) -> list[tuple[int, int]]:
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


class IndexedReader:
    """The reading half of `KafkaEventLog` (which sets the attributes below)."""

    #: A read that makes no progress for this long raises `EventLogUnavailable`; so does
    #: opening the log against a cluster that does not answer.
    READ_TIMEOUT_S = 8.0
    #: `read()` fetches a stream's own offsets from the index: runs of them with at most this
    #: many other offsets between neighbours are read as one range, larger gaps are skipped
    #: with a seek (a fetch request of its own).
    READ_SEEK_GAP = 128
    #: The point reader's fetch size (see `_point_reader`), and the longest range it reads;
    #: a longer one is read by the scan reader (1 MiB fetches).
    READ_FETCH_BYTES = 64 * KIB
    READ_POINT_SPAN = 256

    #: The longest one fetch round waits for the broker's answer.
    FETCH_ROUND_MS = 200

    bootstrap: str
    topic: str
    client_id: str
    partitions: int
    _parts: list[Partition]
    _tps: list[TopicPartition]
    _reader: KafkaConsumer  # scans: catch-up, read_all
    _reader_lock: threading.RLock  # the reader's and the point reader's
    _seeker: KafkaConsumer | None
    #: Fetch rounds made by `_records` (under `_reader_lock`): what the no-stall test counts.
    fetch_rounds: int

    @contextlib.contextmanager
    def _unavailable(self, what: str) -> Iterator[None]:
        """A Kafka client error while reading becomes `EventLogUnavailable`."""
        try:
            yield
        except KafkaError as exc:
            raise KafkaUnavailable(f"kafka at {self.bootstrap}: {what}: {exc}") from exc

    # -- index -----------------------------------------------------------------------------

    def _end_offset(
        self, tp: TopicPartition, timeout_s: float | None = None, part: Partition | None = None
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

    def fetch_round(
        self, consumer: KafkaConsumer, tp: TopicPartition, timeout_ms: int
    ) -> list[ConsumerRecord]:
        """One fetch round of `consumer` (the caller holds `_reader_lock`): the records already
        buffered, else one fetch request sent and its answer awaited (at most `timeout_ms`).
        Unlike `poll(timeout_ms)`, which fetches again until a record comes or the time is up,
        it returns after that one answer even when it held only commit markers: the caller
        then sees the position moved past them. (kafka-python 3.0 internals:
        `KafkaConsumer._poll_once` is one round of its `poll` loop; without it, `poll`.)"""
        self.fetch_rounds += 1
        poll_once = getattr(consumer, "_poll_once", None)
        if poll_once is None:  # pragma: no cover - another kafka-python
            records = consumer.poll(timeout_ms=timeout_ms, max_records=5000)
        else:
            records = poll_once(Timer(timeout_ms), 5000)
        return list(records.get(tp, []))

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
                    batch = self.fetch_round(consumer, tp, self.FETCH_ROUND_MS)
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

    def _catch_up(self, part: Partition, timeout_s: float | None = None) -> None:
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
                part.index(offset, key, value)
            part.next_offset = end
        finally:
            part.lock.release()

    def _part(self, tournament_id: str) -> Partition:
        return self._parts[partition_for(tournament_id, self.partitions)]

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
        for start, end in spans(offsets, self.READ_SEEK_GAP):
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
                yield from (decode_record(k, v) for k, v in chunk)

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
