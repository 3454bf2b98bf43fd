"""The processor's logic outside Faust: topics, the start-up rebuild, folding a batch, gaps.

Synchronous and Faust-free so that the agent stays thin and the rebuild can run before the
worker starts. Reads use kafka-python consumers without a group (isolation read_committed).
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.errors import KafkaError

from events_schema import Envelope
from events_schema.codec import dumps, loads
from events_schema.envelope import read_envelope
from events_schema.limits import Limits
from projections.documents import PROJECTIONS
from services.eventlog.kafka import (
    create_topic,
    durability_configs,
    events_topic_configs,
    partition_for,
    replication_factor_for,
)
from services.projector import GapDetected, Message, Projector

log = logging.getLogger("arbiter.processor")

DEFAULT_EVENTS_TOPIC = "arbiter.events"
#: The processor that is not a projection: it ends games by rule through the command path
#: (services/processors/adjudicator.py).
ADJUDICATOR = "adjudicator"
#: Every name `arbiter processor NAME` accepts.
PROCESSORS: tuple[str, ...] = (*PROJECTIONS, ADJUDICATOR)
READ_TIMEOUT_S = 120.0
GAP_RETRY_S = 2.0


@dataclass(frozen=True)
class ProcessorConfig:
    projection: str
    bootstrap: str = "127.0.0.1:19092"
    events_topic: str = DEFAULT_EVENTS_TOPIC
    output_topic: str | None = None  # default: see `out_topic`
    group: str | None = None  # default: see `group_id`
    partitions: int = 8  # only used to create a missing events topic
    # Of the topics this creates; None: ARBITER_KAFKA_REPLICATION, else min(3, brokers).
    replication_factor: int | None = None
    data_dir: Path = Path("arbiter-data/processors")
    web_port: int | None = None  # None: Faust's web server is disabled
    batch: int = 2000
    within: float = 0.05
    session_timeout: float = 10.0
    rebuild: bool = True  # False only for a fresh group (benchmarks): see run()
    # Restart the process when the events topic grew but nothing was folded for this long
    # (a Faust consumer that never resumes after a broker restart; faust #175/#640). The
    # rebuild on start makes the restart safe. 0 disables the watchdog.
    stall_after: float = 20.0

    # The adjudicator only (`arbiter processor adjudicator --tablebases DIR`): where its
    # tablebases are; None: no tablebase adjudication (never implicitly).
    tablebases: Path | None = None

    def __post_init__(self) -> None:
        if self.projection not in PROCESSORS:
            raise ValueError(f"projection must be one of {', '.join(PROCESSORS)}")

    @property
    def out_topic(self) -> str:
        if self.output_topic:
            return self.output_topic
        if self.events_topic == DEFAULT_EVENTS_TOPIC:
            return f"arbiter.projection.{self.projection}"
        return f"{self.events_topic}.projection.{self.projection}"

    @property
    def group_id(self) -> str:
        if self.group:
            return self.group
        if self.events_topic == DEFAULT_EVENTS_TOPIC:
            return f"arbiter-processor-{self.projection}"
        return f"arbiter-processor-{self.projection}-{self.events_topic}"

    @property
    def workdir(self) -> Path:
        return self.data_dir / self.projection


def decode_record(key: bytes | None, value: bytes) -> Envelope:
    """A reader's decode of an events-topic record: never raises (see `read_envelope`); the
    record's key names the tournament when the bytes cannot."""
    return read_envelope(value, tournament_id=key.decode(errors="replace") if key else None)


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
                # Limits from the environment, as the API's: the topic must take any event
                # they allow (max.message.bytes).
                create_topic(
                    admin,
                    self.cfg.events_topic,
                    self.cfg.partitions,
                    rf,
                    events_topic_configs(rf, Limits.from_env()),
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
            consumer.close()

    # -- liveness ---------------------------------------------------------------------------

    def events_end_total(self) -> int:
        """Sum of the events topic's end offsets (read_committed: the last stable offsets)."""
        consumer = self._consumer()
        try:
            parts = consumer.partitions_for_topic(self.cfg.events_topic) or set()
            tps = [TopicPartition(self.cfg.events_topic, p) for p in sorted(parts)]
            return sum(consumer.end_offsets(tps).values()) if tps else 0
        finally:
            consumer.close()

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

    def stalled(self, end_total: int, now: float) -> bool:
        """True when the topic grew at least `stall_after` seconds ago and no batch was folded
        since it grew. (A transaction marker alone can grow it too: a needless restart, never a
        wrong result.)"""
        if self.cfg.stall_after <= 0:
            return False
        if "watch_end_total" not in self.stats:  # first look: no growth seen yet
            self.stats["watch_end_total"] = end_total
            self.stats["watch_grew_at"] = 0.0
            return False
        if end_total != self.stats["watch_end_total"]:
            self.stats["watch_end_total"] = end_total
            self.stats["watch_grew_at"] = now
            return False
        grew_at = float(self.stats.get("watch_grew_at") or 0.0)
        folded_at = float(self.stats.get("last_fold_at") or 0.0)
        return bool(grew_at) and folded_at < grew_at and now - grew_at > self.cfg.stall_after

    # -- reading ---------------------------------------------------------------------------

    def _consumer(self) -> KafkaConsumer:
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

    def read(self, topic: str, upto: dict[int, int | None]) -> Iterator[Any]:
        """The records of each partition from its beginning up to `upto[p]` (exclusive; None:
        the current end), in offset order per partition."""
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
        finally:
            consumer.close()

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


@dataclass
class ProcessorCore(TopicReader):
    cfg: ProcessorConfig
    projector: Projector = field(init=False)
    partitions: int = 0
    held: dict[str, GapDetected] = field(default_factory=dict)  # tournament -> first gap
    last_recovery: float = 0.0
    stats: dict[str, Any] = field(
        default_factory=lambda: {
            "events": 0,  # envelopes seen by the agent (redeliveries included)
            "folded": 0,
            "gaps": 0,
            "recovered": 0,
            "published": 0,
            "batches": 0,
            "rebuild_events": 0,
            "rebuild_published": 0,
            "rebuild_s": 0.0,
            "agent_started_at": None,  # time.time() stamps, for the benchmark
            "last_fold_at": None,
        }
    )

    def __post_init__(self) -> None:
        if self.cfg.projection not in PROJECTIONS:
            raise ValueError(f"{self.cfg.projection!r} is not a projection")
        self.projector = Projector(projections=(self.cfg.projection,))

    # -- topics ----------------------------------------------------------------------------

    def _more_topics(self, admin: KafkaAdminClient, existing: set[str], rf: int) -> None:
        """The compacted output topic, as many partitions as the events topic."""
        if self.cfg.out_topic not in existing:
            create_topic(
                admin,
                self.cfg.out_topic,
                self.partitions,
                rf,
                {"cleanup.policy": "compact", "retention.ms": "-1", **durability_configs(rf)},
            )

    # -- folding ---------------------------------------------------------------------------

    def _apply(self, env: Envelope, touched: list[str]) -> None:
        tid = env.tournament_id
        if tid in self.projector.failed:
            return
        try:
            if self.projector.apply(env):
                self.stats["folded"] += 1
                if tid not in touched:
                    touched.append(tid)
        except GapDetected as gap:
            if tid not in self.held:
                self.held[tid] = gap
                self.stats["gaps"] += 1
                log.warning("gap detected: %s; tournament held, re-reading its partition", gap)
        except Exception as exc:  # a bug in a projection: hold this tournament, go on
            self.projector.fail(tid, f"folding seq {env.seq}: {type(exc).__name__}: {exc}")

    def fold(self, records: Iterable[tuple[bytes | None, bytes]]) -> list[Message]:
        """One batch from the agent, as (key, value) records: decode, fold, the messages to
        publish. A record that cannot be decoded holds its own tournament (the projector
        reports it in `held`), never the batch."""
        touched: list[str] = []
        for key, raw in records:
            self.stats["events"] += 1
            self._apply(decode_record(key, raw), touched)
        self.stats["batches"] += 1
        self.stats["last_fold_at"] = time.time()
        return self._messages(touched)

    def _messages(self, touched: Iterable[str]) -> list[Message]:
        out: list[Message] = []
        for tid in touched:
            if tid in self.projector.failed:
                continue
            try:
                out.extend(self.projector.messages(tid))
            except Exception as exc:  # a bug in a projection: hold this tournament, go on
                self.projector.fail(tid, f"building its projections: {exc}")
        self.stats["published"] += len(out)
        return out

    def rebuild(self) -> list[Message]:
        """Before the worker starts: fold every partition to its current end, learn what the
        output topic holds, and return what must be (re)published."""
        t0 = time.perf_counter()
        touched: list[str] = []
        for rec in self.read(self.cfg.events_topic, dict.fromkeys(range(self.partitions))):
            self.stats["rebuild_events"] += 1
            self._apply(decode_record(rec.key, rec.value), touched)
        out_parts = self._partition_count(self.cfg.out_topic)
        name = self.cfg.projection
        for rec in self.read(self.cfg.out_topic, dict.fromkeys(range(out_parts))):
            if rec.key is None or rec.value is None:
                continue
            try:
                doc = loads(rec.value)
                data = dumps(doc["data"])
            except (ValueError, KeyError, TypeError):
                continue  # not ours to read: it is republished from the fold
            self.projector.published[(rec.key.decode(), name)] = data
        msgs = self._messages(list(self.projector.states))
        self.stats["published"] -= len(msgs)  # counted as rebuild_published instead
        self.stats["rebuild_published"] = len(msgs)
        self.stats["rebuild_s"] = round(time.perf_counter() - t0, 3)
        log.info(
            "rebuilt %d events (to the end of the topic) in %.2fs; %d message(s) to republish",
            self.stats["rebuild_events"],
            self.stats["rebuild_s"],
            len(msgs),
        )
        return msgs

    def publish_sync(self, msgs: list[Message]) -> None:
        """Publish with a plain producer (used before the Faust worker starts)."""
        if not msgs:
            return
        producer = KafkaProducer(
            bootstrap_servers=self.cfg.bootstrap,
            client_id=f"{self.cfg.group_id}-rebuild",
            acks="all",
        )
        try:
            for m in msgs:
                producer.send(self.cfg.out_topic, key=m.tournament_id.encode(), value=m.body)
            producer.flush(timeout=60)
        finally:
            producer.close(timeout=5)

    # -- gaps ------------------------------------------------------------------------------

    def recovery_due(self, touched_held: bool = False) -> list[str]:
        if not self.held:
            return []
        if not touched_held and time.monotonic() - self.last_recovery < GAP_RETRY_S:
            return []
        self.last_recovery = time.monotonic()
        return sorted(self.held)

    def apply_recovered(self, tids: list[str], envs: list[Envelope]) -> list[Message]:
        touched: list[str] = []
        released = []
        for tid in tids:
            self.held.pop(tid, None)
        for env in envs:
            self._apply(env, touched)  # re-holds a tournament whose gap is still there
        for tid in tids:
            if tid not in self.held:
                released.append(tid)
                self.stats["recovered"] += 1
                log.warning("gap recovered: %s folded to seq %d", tid, self._seq(tid))
        return self._messages(touched)

    def _seq(self, tid: str) -> int:
        state = self.projector.states.get(tid)
        return state.seq if state else 0

    # -- status ----------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        return {
            "projection": self.cfg.projection,
            "pid": os.getpid(),
            "events_topic": self.cfg.events_topic,
            "output_topic": self.cfg.out_topic,
            "group": self.cfg.group_id,
            **self.stats,
            "duplicates": self.projector.duplicates,
            "held": {t: {"expected": g.expected, "got": g.got} for t, g in self.held.items()},
            # Tournaments held by a stored event that cannot be read (seq, event id to
            # retract, reason) or by a failure of the projection code.
            "unreadable": self.projector.held(),
            "tournaments": {t: s.seq for t, s in self.projector.states.items()},
        }
