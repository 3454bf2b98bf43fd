"""The Kafka plumbing every processor shares, outside Faust: the topics it needs, reads of the
events topic from the beginning (kafka-python consumers without a group, isolation
read_committed), the watchdog's view of the topic's end, and status.json."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from kafka import KafkaAdminClient, KafkaConsumer, TopicPartition
from kafka.errors import KafkaError

from events_schema import Envelope
from services.eventlog.kafka import (
    create_topic,
    decode_record,
    durability_configs,
    events_topic_configs,
    partition_for,
    replication_factor_for,
)
from services.projection.processors.config import ProcessorConfig

log = logging.getLogger("arbiter.processor")

READ_TIMEOUT_S = 120.0


class TopicReader:
    """What every processor does with the events topic outside Faust (kafka-python clients
    without a group, isolation read_committed): partition counts, reads from the beginning,
    the watchdog's view of the topic's end, and status.json. Subclasses set `cfg` and
    `stats` and define `status()`."""

    cfg: ProcessorConfig
    stats: dict[str, Any]
    partitions: int

    def status(self) -> dict[str, Any]:
        raise NotImplementedError

    # -- topics ----------------------------------------------------------------------------

    def ensure_topics(self) -> int:
        """Create the events topic if missing (same settings as KafkaEventLog), Faust's
        assignor topic and the processor's own (`_more_topics`); return the events topic's
        partition count."""
        admin = KafkaAdminClient(
            bootstrap_servers=self.cfg.bootstrap, client_id=f"{self.cfg.group_id}-admin"
        )
        try:
            existing = set(admin.list_topics())
            rf = replication_factor_for(admin, self.cfg.replication_factor)
            if self.cfg.events_topic not in existing:
                # The API's limits: the topic must take any event they allow
                # (max.message.bytes).
                create_topic(
                    admin,
                    self.cfg.events_topic,
                    self.cfg.partitions,
                    rf,
                    events_topic_configs(rf, self.cfg.limits),
                )
            self.partitions = self._partition_count(self.cfg.events_topic)
            # Faust's one internal topic; created here (with the retry in app.run) so that a
            # broker that is briefly not ready cannot kill the worker at start.
            leader = f"{self.cfg.group_id}-__assignor-__leader"
            if leader not in existing:
                create_topic(admin, leader, 1, rf, durability_configs(rf))
            self._more_topics(admin, existing, rf)
        finally:
            admin.close()
        return self.partitions

    def _more_topics(self, admin: KafkaAdminClient, existing: set[str], rf: int) -> None:
        """Topics of this processor besides the events topic (none by default)."""

    def _partition_count(self, topic: str) -> int:
        consumer = self._consumer()
        try:
            deadline = time.monotonic() + 30
            while not (found := consumer.partitions_for_topic(topic)):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"topic {topic} has no partitions")
                time.sleep(0.1)
            return len(found)
        finally:
            self._release(consumer)

    # -- liveness ---------------------------------------------------------------------------

    def watched(self) -> frozenset[int] | None:
        """The events partitions the watchdog watches: those this worker owns (a worker of a
        group must not take another's growth for its own stall); None: every partition."""
        return None

    def events_end_total(self, scope: Iterable[int] | None = None) -> int:
        """Sum of the events topic's end offsets (read_committed: the last stable offsets),
        over the partitions `scope` (None: all)."""
        consumer = self._consumer()
        try:
            parts = consumer.partitions_for_topic(self.cfg.events_topic) or set()
            if scope is not None:
                parts = set(parts) & set(scope)
            tps = [TopicPartition(self.cfg.events_topic, p) for p in sorted(parts)]
            return sum(consumer.end_offsets(tps).values()) if tps else 0
        finally:
            self._release(consumer)

    def watch_from_here(self) -> None:
        """Take the watchdog's baseline before the rebuild: growth of the topic beyond this
        point that no batch folds is a stall. (Without it the first look was the baseline,
        and a topic that grew before that look, e.g. while the broker restarted a moment
        after the start, was never seen to grow: the consumer stayed stuck.)"""
        try:
            self.stats["watch_end_total"] = self.events_end_total()
        except KafkaError as exc:  # the first look of the watchdog takes it instead
            log.warning("watchdog: cannot read the events topic's end (%s)", exc)
            return
        self.stats["watch_grew_at"] = 0.0

    def stalled(self, end_total: int, now: float, scope: Iterable[int] | None = None) -> bool:
        """True when the topic grew at least `stall_after` seconds ago and no batch was folded
        since it grew. (A transaction marker alone can grow it too: a needless restart, never a
        wrong result.) `scope`: the partitions `end_total` sums (None: all); when it differs
        from the baseline's (a rebalance), this look is a new baseline."""
        if self.cfg.stall_after <= 0:
            return False
        key = None if scope is None else sorted(scope)
        if "watch_end_total" not in self.stats or self.stats.get("watch_scope") != key:
            self.stats["watch_end_total"] = end_total  # first look: no growth seen yet
            self.stats["watch_grew_at"] = 0.0
            self.stats["watch_scope"] = key
            return False
        if end_total != self.stats["watch_end_total"]:
            self.stats["watch_end_total"] = end_total
            self.stats["watch_grew_at"] = now
            return False
        grew_at = float(self.stats.get("watch_grew_at") or 0.0)
        # A checkpoint holds the fold lock while it pickles: busy, not stalled.
        if self.stats.get("checkpointing"):
            return False
        folded_at = max(
            float(self.stats.get("last_fold_at") or 0.0),
            float(self.stats.get("checkpoint_ended_at") or 0.0),
        )
        return bool(grew_at) and folded_at < grew_at and now - grew_at > self.cfg.stall_after

    # -- reading ---------------------------------------------------------------------------

    _shared: KafkaConsumer | None = None

    @contextmanager
    def shared_consumer(self) -> Iterator[None]:
        """One reader for every read inside the block (the start: each new client costs a
        bootstrap and a metadata round trip, ~0.1 s here)."""
        self._shared = self._new_consumer()
        try:
            yield
        finally:
            consumer, self._shared = self._shared, None
            consumer.close()

    def _consumer(self) -> KafkaConsumer:
        return self._shared if self._shared is not None else self._new_consumer()

    def _release(self, consumer: KafkaConsumer) -> None:
        if self._shared is not None and consumer is self._shared:
            self._shared.unsubscribe()
        else:
            consumer.close()

    def _new_consumer(self) -> KafkaConsumer:
        return KafkaConsumer(
            bootstrap_servers=self.cfg.bootstrap,
            client_id=f"{self.cfg.group_id}-reader",
            group_id=None,
            enable_auto_commit=False,
            isolation_level="read_committed",
            auto_offset_reset="earliest",
            fetch_max_wait_ms=50,
            max_poll_records=10_000,
        )

    def read(
        self,
        topic: str,
        upto: dict[int, int | None],
        start: Mapping[int, int] | None = None,
        reached: dict[int, int] | None = None,
    ) -> Iterator[Any]:
        """The records of each partition from `start[p]` (default: its beginning) up to
        `upto[p]` (exclusive; None: the current end), in offset order per partition; the
        offset each partition was read to goes into `reached`."""
        consumer = self._consumer()
        try:
            tps = {p: TopicPartition(topic, p) for p in upto}
            if not tps:
                return
            consumer.assign(list(tps.values()))
            ends = consumer.end_offsets(list(tps.values()))
            goal = {
                tp: ends[tp] if upto[p] is None else min(int(upto[p] or 0), ends[tp])
                for p, tp in tps.items()
            }
            consumer.seek_to_beginning(*tps.values())
            for p, tp in tps.items():
                if start and start.get(p):
                    consumer.seek(tp, min(start[p], goal[tp]))
            pending = {tp for tp in goal if consumer.position(tp) < goal[tp]}
            deadline = time.monotonic() + READ_TIMEOUT_S
            while pending:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"reading {topic}: no progress to {goal}")
                for tp, records in consumer.poll(timeout_ms=200).items():
                    for rec in records:
                        if rec.offset < goal[tp]:
                            yield rec
                done = {tp for tp in pending if consumer.position(tp) >= goal[tp]}
                if done:
                    consumer.pause(*done)
                    pending -= done
            if reached is not None:
                reached.update({tp.partition: off for tp, off in goal.items()})
        finally:
            self._release(consumer)

    def read_tournaments(self, tids: list[str]) -> list[Envelope]:
        """Blocking I/O (run in an executor): the held tournaments' events, from their
        partitions' beginning to the current end."""
        wanted = set(tids)
        parts = {partition_for(t, self.partitions) for t in tids}
        return [
            env
            for rec in self.read(self.cfg.events_topic, dict.fromkeys(parts))
            if (env := decode_record(rec.key, rec.value)).tournament_id in wanted
        ]

    def write_status(self) -> None:
        path = self.cfg.workdir / "status.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.status(), sort_keys=True))
        tmp.replace(path)
