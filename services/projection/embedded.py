"""The sources of the in-process projection feed (they publish to a `services.feed.hub.FeedHub`).

- `EmbeddedRunner` is the embedded source: a daemon thread tails the event log
  (`subscribe(from_beginning=True)`), folds what each `poll` returns through one `Projector`
  as a batch and publishes the changed messages to the hub. Used on the SQLite log (and, as a
  fallback, over the Kafka event log's own `subscribe()`).
- `KafkaProjectionSource` is the Kafka source: it reads the processors' compacted output
  topics `arbiter.projection.<name>` (key: tournament id, value: the message JSON with
  `as_of_seq`) from the beginning and publishes them to the hub, never moving a projection
  backwards.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import threading
import time
from collections.abc import Iterable
from typing import Any

import orjson

from projections.names import PROJECTIONS
from services.eventlog.base import EventLog
from services.feed.hub import FeedHub
from services.projection.projector import Message, Projector

log = logging.getLogger("arbiter.feed")


class _Background:
    """A daemon thread running `_run` until `stop()`; `start()` is idempotent."""

    thread_name = "arbiter-feed"

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name=self.thread_name, daemon=True
                )
                self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        raise NotImplementedError


class EmbeddedRunner(_Background):
    """Tails the event log from the beginning and folds it through a `Projector` in a daemon
    thread; each `poll` is one batch (under load, a batch spans many events, so the projections
    are recomputed once per batch and tournament, not once per event). After a fold that took
    a while, the runner idles as long again, so the API keeps at least half the CPU under load
    (Python threads share one GIL) and the batches grow instead of the backlog."""

    IDLE_AFTER = 0.002  # seconds of folding after which the runner idles as long
    MAX_IDLE = 0.1

    def __init__(
        self,
        event_log: EventLog,
        hub: FeedHub | None = None,
        max_batch: int = 5_000,
        freeze_heap: bool = False,
    ) -> None:
        self.event_log, self.hub, self.max_batch = event_log, hub or FeedHub(), max_batch
        # A server process (`arbiter serve`) freezes the heap once the log is folded
        # (`_freeze_heap`); a process that runs other work too (tests) does not.
        self.freeze_heap = freeze_heap
        self.thread_name = "arbiter-feed-runner"
        self.projector = Projector()
        self.errors = 0
        super().__init__()

    def _run(self) -> None:
        sub = self.event_log.subscribe(from_beginning=True)
        # A polled batch is kept until it has been folded and published: a failure retries
        # it (the fold is idempotent by seq), it is never dropped. An unreadable event does
        # not fail a batch: the projector holds its tournament only.
        envelopes: list[Any] = []
        try:
            while not self._stop.is_set():
                try:
                    if not envelopes:
                        envelopes = sub.poll(timeout=0.25, max_events=self.max_batch)
                    polled = len(envelopes)
                    if envelopes:
                        began = time.perf_counter()
                        self.hub.publish(self.projector.run(envelopes))
                        self.hub.set_held(self.projector.held())
                        envelopes = []
                        spent = time.perf_counter() - began
                        if spent > self.IDLE_AFTER and self.hub.caught_up.is_set():
                            # Leave the GIL to the API for as long as the fold took (at most
                            # half the process's CPU): appends go on arriving, and the next
                            # poll folds them as one batch.
                            self._stop.wait(min(spent, self.MAX_IDLE))
                    if polled < self.max_batch and not self.hub.caught_up.is_set():
                        if self.freeze_heap:
                            _freeze_heap()
                        self.hub.caught_up.set()
                except Exception:  # keep serving what was folded; say what went wrong
                    self.errors += 1
                    log.exception("feed runner: batch failed")
                    self._stop.wait(0.5)
        finally:
            sub.close()


def _freeze_heap() -> None:
    """Once the log read at start is folded: what it built is long-lived (the fold states,
    the published messages), so it is moved out of the cyclic collector's sight (garbage
    collected first, so none is kept). A full collection then no longer walks it, which is
    what made the slowest live updates slow: a 500-player Swiss's incremental standings
    update, p99 54 ms -> 14 ms (tests/bench/standings.py, `incremental_swiss_gc_frozen`).
    Later objects are collected as usual."""
    gc.collect()
    gc.freeze()


class KafkaProjectionSource(_Background):
    """Reads the processors' output topics `<prefix><name>` (compacted, keyed by tournament id,
    JSON values with `as_of_seq`) from the beginning into the hub."""

    def __init__(
        self,
        bootstrap: str,
        hub: FeedHub | None = None,
        prefix: str = "arbiter.projection.",
        projections: Iterable[str] = PROJECTIONS,
    ) -> None:
        self.bootstrap, self.hub, self.prefix = bootstrap, hub or FeedHub(), prefix
        self.thread_name = "arbiter-feed-kafka"
        self.topics = [f"{prefix}{name}" for name in projections]
        super().__init__()

    def _consumer(self) -> Any:
        from kafka import KafkaConsumer

        return KafkaConsumer(
            *self.topics,
            bootstrap_servers=self.bootstrap,
            group_id=None,  # every feed process reads every message; no offsets committed
            auto_offset_reset="earliest",
            enable_auto_commit=False,
            isolation_level="read_committed",
            metadata_max_age_ms=5_000,
        )

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                consumer = self._consumer()
            except Exception:
                log.exception("feed: cannot reach Kafka at %s; retrying", self.bootstrap)
                self._stop.wait(2.0)
                continue
            try:
                while not self._stop.is_set():
                    batches = consumer.poll(timeout_ms=250, max_records=5_000)
                    msgs = [
                        m
                        for records in batches.values()
                        for r in records
                        if (m := self.decode(r.topic, r.key, r.value)) is not None
                    ]
                    if msgs:
                        self.hub.publish(msgs)
                    if not batches:
                        self.hub.caught_up.set()
            except Exception:
                log.exception("feed: Kafka source failed; reconnecting")
                self._stop.wait(1.0)
            finally:
                with contextlib.suppress(Exception):
                    consumer.close()

    def decode(self, topic: str, key: bytes | None, value: bytes | None) -> Message | None:
        if value is None:  # a tombstone: the feed keeps what it had
            return None
        try:
            doc = orjson.loads(value)
            name = doc.get("projection") or topic.removeprefix(self.prefix)
            tid = doc.get("tournament_id") or (key.decode() if key else None)
            seq = int(doc["as_of_seq"])
        except (ValueError, KeyError, TypeError, AttributeError):
            log.warning("feed: undecodable message on %s (key %r)", topic, key)
            return None
        if not tid:
            return None
        return Message(str(tid), str(name), seq, bytes(value))
