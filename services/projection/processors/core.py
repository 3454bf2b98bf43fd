"""The processor's logic outside Faust: topics, the start-up rebuild, folding a batch, gaps.

Synchronous and Faust-free so that the agent stays thin and the rebuild can run before the
worker starts. Reads use kafka-python consumers without a group (isolation read_committed).
"""

from __future__ import annotations

import json
import logging
import os
import socket
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
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
from services.projection.processors import snapshots
from services.projection.processors.snapshots import SnapshotUnreadable
from services.projection.projector import GapDetected, Message, Projector

log = logging.getLogger("arbiter.processor")

DEFAULT_EVENTS_TOPIC = "arbiter.events"
#: The processor that is not a projection: it ends games by rule through the command path
#: (services/projection/processors/adjudicator.py).
ADJUDICATOR = "adjudicator"
#: Every name `arbiter processor NAME` accepts.
PROCESSORS: tuple[str, ...] = (*PROJECTIONS, ADJUDICATOR)
READ_TIMEOUT_S = 120.0
GAP_RETRY_S = 2.0
#: Largest snapshot record (the snapshot topic's max.message.bytes and the producers' limit).
SNAPSHOT_MAX_BYTES = 64 * 1024 * 1024


def _snapshot_every() -> float:
    return float(os.environ.get("ARBITER_SNAPSHOT_EVERY", "30"))


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
    # Seconds between checkpoints of the fold to the snapshot topic (ARBITER_SNAPSHOT_EVERY,
    # default 30; 0: write none, but still restore from what is there). Only with `rebuild`.
    snapshot_every: float = field(default_factory=_snapshot_every)

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
    def snapshot_topic(self) -> str:
        """The compacted topic of this processor's checkpoints (snapshots.py), named after
        its output topic (a fresh output topic starts without snapshots):
        `arbiter.snapshot.<name>` beside `arbiter.projection.<name>`, outside the prefix the
        feed readers may read."""
        if ".projection." in self.out_topic:
            return self.out_topic.replace(".projection.", ".snapshot.", 1)
        return f"{self.out_topic}.snapshots"

    @property
    def workdir(self) -> Path:
        return self.data_dir / self.projection


class Superseded(Exception):
    """A restore abandoned because a rebalance began while it ran."""


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


@dataclass
class ProcessorCore(TopicReader):
    cfg: ProcessorConfig
    projector: Projector = field(init=False)
    partitions: int = 0
    held: dict[str, GapDetected] = field(default_factory=dict)  # tournament -> first gap
    last_recovery: float = 0.0
    # Per events partition: every record below this offset is folded into the state (set by
    # the start-up read, advanced by each batch); what a checkpoint says it covers.
    pos: dict[int, int] = field(default_factory=dict)
    # Per events partition: records below this offset were folded before the worker started;
    # the agent counts them as duplicates without decoding them.
    skip_below: dict[int, int] = field(default_factory=dict)
    part_of: dict[str, int] = field(default_factory=dict)  # tournament -> events partition
    # Restored tournaments not needed yet: (snapshot header, state bytes), thawed on their
    # first event (or when what was published differs from the snapshot's).
    frozen: dict[str, tuple[dict[str, Any], bytes]] = field(default_factory=dict)
    dirty: set[str] = field(default_factory=set)  # changed since their last snapshot
    manifested: dict[int, int] = field(default_factory=dict)  # partition -> offset written
    last_checkpoint: float = 0.0
    restored: int = 0  # tournaments restored from snapshots on start
    # The events partitions this worker owns and has restored (issue 11 item 3): only their
    # records are folded, only they are checkpointed. `scoped` once the first assignment
    # (or `rebuild`, every partition) was restored; before that nothing is filtered.
    owned: set[int] = field(default_factory=set)
    scoped: bool = False
    # The consumer group generation of the current assignment, and an epoch bumped on every
    # revocation and assignment: a checkpoint prepared in one epoch is not sent in another.
    generation: int = -1
    epoch: int = 0
    suspended: bool = False  # between a revocation and the next assignment: no checkpoint
    worker: str = field(default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}")
    stats: dict[str, Any] = field(
        default_factory=lambda: {
            "events": 0,  # envelopes seen by the agent (redeliveries included)
            "folded": 0,
            "gaps": 0,
            "recovered": 0,
            "published": 0,
            "batches": 0,
            "rebuild_events": 0,  # events read on start (only the tail after a restore)
            "rebuild_published": 0,
            "rebuild_s": 0.0,
            "assignments": 0,  # partition assignments restored (rebalances)
            "agent_started_at": None,  # time.time() stamps, for the benchmark
            "first_batch_at": None,
            "last_fold_at": None,
            # How the start went: "mode" restore (every partition from its snapshot),
            # partial (some rebuilt from offset 0: "rebuilt" says why) or rebuild.
            "start": None,
            # Tournament records written, their bytes, checkpoints completed (every partition
            # due written), the time of the last record.
            "snapshots": {"written": 0, "bytes": 0, "checkpoints": 0, "last_at": None},
        }
    )

    def __post_init__(self) -> None:
        if self.cfg.projection not in PROJECTIONS:
            raise ValueError(f"{self.cfg.projection!r} is not a projection")
        self.projector = Projector(projections=(self.cfg.projection,))

    # -- topics ----------------------------------------------------------------------------

    def _more_topics(self, admin: KafkaAdminClient, existing: set[str], rf: int) -> None:
        """The compacted output and snapshot topics, as many partitions as the events topic."""
        compact = {"cleanup.policy": "compact", "retention.ms": "-1", **durability_configs(rf)}
        if self.cfg.out_topic not in existing:
            create_topic(admin, self.cfg.out_topic, self.partitions, rf, compact)
        if self.cfg.snapshot_topic not in existing:
            create_topic(
                admin,
                self.cfg.snapshot_topic,
                self.partitions,
                rf,
                {**compact, "max.message.bytes": str(SNAPSHOT_MAX_BYTES)},
            )

    # -- folding ---------------------------------------------------------------------------

    def _thaw(self, tid: str) -> bool:
        """Install a restored tournament's state; False (and the tournament held as failed,
        nothing published for it) if its bytes cannot be read back."""
        header, blob = self.frozen.pop(tid)
        try:
            state, positioned = snapshots.thaw(blob)
        except SnapshotUnreadable as exc:
            self.projector.fail(tid, f"its snapshot at seq {header.get('seq')}: {exc}")
            return False
        self.projector.restore_tournament(tid, state, positioned)
        return True

    def _apply(self, env: Envelope, touched: list[str], partition: int | None = None) -> None:
        tid = env.tournament_id
        if tid in self.frozen and not self._thaw(tid):
            return
        if tid in self.projector.failed:
            return
        if partition is not None:
            self.part_of[tid] = partition
        elif tid not in self.part_of and self.partitions:
            self.part_of[tid] = partition_for(tid, self.partitions)
        try:
            if self.projector.apply(env):
                self.stats["folded"] += 1
                self.dirty.add(tid)
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
        """One batch as (key, value) records: decode, fold, the messages to publish. A record
        that cannot be decoded holds its own tournament (the projector reports it in `held`),
        never the batch."""
        touched: list[str] = []
        for key, raw in records:
            self.stats["events"] += 1
            self._apply(decode_record(key, raw), touched)
        self.stats["batches"] += 1
        self.stats["last_fold_at"] = time.time()
        return self._messages(touched)

    def fold_partitions(self, parts: Mapping[int, list[Any]]) -> list[Message]:
        """One fetch of the agent (transport.py's batch path): per events partition, its
        records (`offset`, `key`, `value`) in offset order. Records below `skip_below` were
        folded on start and are only counted; the partition's `pos` moves past the batch."""
        touched: list[str] = []
        skipped = 0
        for p, recs in parts.items():
            if not recs:
                continue
            if self.scoped and p not in self.owned:
                # Revoked (a batch fetched before the rebalance) or not restored yet: its
                # restore reads the partition to an end past these records.
                self.stats["not_owned"] = self.stats.get("not_owned", 0) + len(recs)
                continue
            skip = self.skip_below.get(p, 0)
            self.stats["events"] += len(recs)
            for rec in recs:
                if rec.offset < skip:
                    skipped += 1
                    continue
                self._apply(decode_record(rec.key, rec.value), touched, p)
            if p in self.pos:
                self.pos[p] = max(self.pos[p], recs[-1].offset + 1)
        self.projector.duplicates += skipped
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

    # -- start: restore from the snapshots, fold the tail (or everything) ------------------

    def rebuild(self) -> list[Message]:
        """Restore every partition (one worker, or a tool): `assign` of them all."""
        return self.assign(range(self.partitions))

    def owns(self, tid: str) -> bool:
        """Whether the tournament's partition is this worker's (always, before `scoped`)."""
        if not self.scoped:
            return True
        return self.part_of.get(tid, partition_for(tid, self.partitions)) in self.owned

    def assign(
        self, parts: Iterable[int], generation: int = -1, epoch: int | None = None
    ) -> list[Message]:
        """The partitions `parts` were assigned to this worker (blocking: run it in an
        executor under the fold lock): restore each new one from its snapshot where one is
        usable (else from offset 0), fold it from there to its current end, learn what the
        output topic holds for its tournaments, and return what must be (re)published.
        Raises `Superseded` (the new partitions forgotten again) as soon as `epoch` is no
        longer the core's: a rebalance began meanwhile."""
        if epoch is None:
            self.epoch += 1
            epoch = self.epoch
        self.generation = generation
        new = sorted(set(parts) - self.owned)
        if not self.cfg.rebuild:  # a fresh group (benchmarks): fold what the agent reads
            self.owned |= set(new)
            self.scoped = True
            self.suspended = False
            self.stats["start"] = {"mode": "none", "assigned": sorted(self.owned)}
            return []
        if not new and self.stats["start"] is not None:  # nothing new: the last start stands
            self.stats["start"].update(assigned=sorted(self.owned), generation=generation)
            self.scoped = True
            self.suspended = False
            return []
        try:
            with self.shared_consumer():
                msgs = self._rebuild(new, epoch)
        except Superseded:
            self.revoke(new)
            raise
        self.suspended = False
        return msgs

    def revoke(self, parts: Iterable[int]) -> None:
        """Forget the partitions `parts` (revoked, or assigned elsewhere): their tournaments'
        state, what was published for them, their positions and manifests. Nothing of them
        is folded or checkpointed until they are assigned (and restored) again."""
        gone = set(parts)
        self.epoch += 1
        if not gone:
            return
        n = self.partitions
        tids = {
            t
            for t in (*self.part_of, *self.projector.states, *self.frozen, *self.held)
            if self.part_of.get(t, partition_for(t, n)) in gone
        }
        for tid in tids:
            self.part_of.pop(tid, None)
            self.frozen.pop(tid, None)
            self.held.pop(tid, None)
            self.dirty.discard(tid)
        self.projector.forget(lambda t: t in tids or partition_for(t, n) in gone)
        for p in gone:
            self.pos.pop(p, None)
            self.skip_below.pop(p, None)
            self.manifested.pop(p, None)
        self.owned -= gone
        log.info("partitions %s revoked: %d tournament(s) dropped", sorted(gone), len(tids))

    def _rebuild(self, parts: list[int], epoch: int) -> list[Message]:
        t0 = time.perf_counter()
        start: dict[int, int] = dict.fromkeys(parts, 0)
        rebuilt: dict[int, str] = {}
        if parts:
            rebuilt = self._restore(start)
        restored_s = round(time.perf_counter() - t0, 3)
        touched: list[str] = []
        reached: dict[int, int] = {}
        upto: dict[int, int | None] = dict.fromkeys(parts)
        tail = 0
        for rec in self.read(self.cfg.events_topic, upto, start, reached):
            if self.epoch != epoch:
                raise Superseded
            tail += 1
            self._apply(decode_record(rec.key, rec.value), touched, rec.partition)
        if self.epoch != epoch:
            raise Superseded
        self.stats["rebuild_events"] += tail
        for p in parts:
            self.pos[p] = reached.get(p, start[p])
            self.skip_below[p] = self.pos[p]
        self.owned |= set(parts)
        self.scoped = True
        mine = set(parts)
        n = self.partitions
        name = self.cfg.projection
        on_topic: dict[str, bytes] = {}
        out_parts = self._partition_count(self.cfg.out_topic) if parts else 0
        # The output topic is keyed by tournament with the same partitioner and count as
        # the events topic: its partitions `parts` hold these tournaments' documents.
        read_parts = parts if out_parts == n else list(range(out_parts))
        for rec in self.read(self.cfg.out_topic, dict.fromkeys(read_parts)):
            if rec.key is None or rec.value is None:
                continue
            tid = rec.key.decode()
            if partition_for(tid, n) not in mine:
                continue
            try:
                doc = loads(rec.value)
                data = dumps(doc["data"])
            except (ValueError, KeyError, TypeError):
                continue  # not ours to read: it is republished from the fold
            on_topic[tid] = data
        for tid, data in on_topic.items():
            self.projector.published[(tid, name)] = data
        # A restored tournament whose publication differs from its snapshot's (a message
        # lost in a kill -9, an output topic emptied, another worker's later publication) is
        # thawed and compared in full.
        for tid, (header, _blob) in list(self.frozen.items()):
            if self.part_of.get(tid) not in mine:
                continue
            if header.get("published", {}).get(name) != (
                on_topic[tid].decode() if tid in on_topic else None
            ):
                self._thaw(tid)
        ours = [t for t in self.projector.states if self.part_of.get(t) in mine]
        msgs = self._messages(ours)
        self.dirty.update(m.tournament_id for m in msgs)
        self.stats["published"] -= len(msgs)  # counted as rebuild_published instead
        self.stats["rebuild_published"] += len(msgs)
        self.stats["rebuild_s"] = round(time.perf_counter() - t0, 3)
        self.stats["assignments"] += 1
        restored = [p for p in parts if p not in rebuilt]
        self.stats["start"] = {
            "mode": "none"
            if not parts
            else "rebuild"
            if not restored
            else "partial"
            if rebuilt
            else "restore",
            "assigned": sorted(self.owned),
            "new_partitions": parts,
            "generation": self.generation,
            "restored_partitions": restored,
            "rebuilt": {str(p): why for p, why in sorted(rebuilt.items())},
            "restored_tournaments": self.restored,
            "restore_s": restored_s,
            "tail_events": tail,
        }
        if rebuilt:
            log.warning("partitions rebuilt from offset 0: %s", rebuilt)
        log.info(
            "assigned %s (new: %s): %s; %d events folded to the end in %.2fs; %d message(s) "
            "to republish",
            sorted(self.owned),
            parts,
            self.stats["start"]["mode"],
            tail,
            self.stats["rebuild_s"],
            len(msgs),
        )
        return msgs

    def _restore(self, start: dict[int, int]) -> dict[int, str]:
        """Read the snapshot topic; for each partition whose manifest and tournaments are
        readable, set `start[p]` and keep its tournaments frozen. Returns the partitions to
        rebuild from 0, with why."""
        latest: dict[bytes, bytes | None] = {}
        try:
            parts = self._partition_count(self.cfg.snapshot_topic)
            for rec in self.read(self.cfg.snapshot_topic, dict.fromkeys(range(parts))):
                if rec.key is not None:
                    latest[rec.key] = rec.value
        except (KafkaError, RuntimeError, TimeoutError) as exc:
            log.warning("snapshot topic unreadable (%s): rebuilding", exc)
            return dict.fromkeys(start, f"snapshot topic unreadable: {exc}")
        ends = self._end_offsets(self.cfg.events_topic)
        rebuilt: dict[int, str] = {}
        for p in start:
            cand: dict[str, tuple[dict[str, Any], bytes]] = {}
            try:
                if snapshots.partition_key(p) not in latest:
                    raise SnapshotUnreadable("no snapshot")
                manifest, _ = snapshots.decode(latest[snapshots.partition_key(p)])
                offset = int(manifest["offset"])
                if offset > ends.get(p, 0):
                    raise SnapshotUnreadable("beyond the end of the events partition")
                for tid, seq in manifest["tournaments"].items():
                    key = snapshots.tournament_key(tid)
                    if key not in latest:
                        raise SnapshotUnreadable(f"snapshot of {tid} missing")
                    try:
                        header, blob = snapshots.decode(latest[key])
                    except SnapshotUnreadable as exc:
                        raise SnapshotUnreadable(f"snapshot of {tid}: {exc}") from None
                    if header.get("tournament") != tid or header.get("partition") != p:
                        raise SnapshotUnreadable(f"snapshot of {tid}: another partition's")
                    if int(header.get("seq", -1)) < int(seq):
                        raise SnapshotUnreadable(f"snapshot of {tid} older than the manifest")
                    cand[tid] = (header, blob)
            except (SnapshotUnreadable, KeyError, TypeError, ValueError, AttributeError) as exc:
                rebuilt[p] = str(exc) if isinstance(exc, SnapshotUnreadable) else f"bad: {exc}"
                continue
            start[p] = offset
            self.manifested[p] = offset
            self.restored += len(cand)
            for tid, (header, blob) in cand.items():
                self.frozen[tid] = (header, blob)
                self.part_of[tid] = p
                if header.get("unreadable"):  # held: reported in status from the start
                    self._thaw(tid)
        return rebuilt

    def _end_offsets(self, topic: str) -> dict[int, int]:
        consumer = self._consumer()
        try:
            tps = [TopicPartition(topic, p) for p in range(self.partitions)]
            return {tp.partition: off for tp, off in consumer.end_offsets(tps).items()}
        finally:
            self._release(consumer)

    # -- checkpoints -----------------------------------------------------------------------

    def checkpoint_due(self, now: float) -> bool:
        if self.cfg.snapshot_every <= 0 or not self.cfg.rebuild or not self.pos:
            return False
        if self.suspended:  # a rebalance is under way: the partitions may be another's
            return False
        if now - self.last_checkpoint < self.cfg.snapshot_every:
            return False
        return bool(self.dirty) or any(self.manifested.get(p) != o for p, o in self.pos.items())

    def checkpoint_partitions(self) -> list[int]:
        """The partitions a checkpoint starting now writes (one at a time: `checkpoint`)."""
        self.last_checkpoint = time.monotonic()
        dirty_parts = {self.part_of.get(t) for t in self.dirty}
        return [
            p
            for p, offset in sorted(self.pos.items())
            if p in dirty_parts or self.manifested.get(p) != offset
        ]

    def checkpoint(
        self, only: Iterable[int] | None = None
    ) -> tuple[list[tuple[bytes, bytes]], list[tuple[bytes, bytes]], set[str]]:
        """The snapshot records of a checkpoint of the partitions `only` (default: all;
        blocking: pickles, so run it in an executor under the fold lock, a partition at a
        time to keep the lock short): the changed tournaments' records, then the manifests
        of the partitions they cover (send those only once the first are acknowledged), and
        the tournaments written. A partition with a held or failed tournament is skipped."""
        wanted = set(self.pos) if only is None else set(only)
        blocked = {self.part_of.get(t) for t in (*self.held, *self.projector.failed)}
        by_part: dict[int, dict[str, int]] = {}
        for tid, p in self.part_of.items():
            by_part.setdefault(p, {})[tid] = self._seq(tid)
        tours: list[tuple[bytes, bytes]] = []
        manifests: list[tuple[bytes, bytes]] = []
        written: set[str] = set()
        name = self.cfg.projection
        for p, offset in sorted(self.pos.items()):
            if p in blocked or p not in wanted:
                continue
            tids = by_part.get(p, {})
            changed = [t for t in tids if t in self.dirty and t not in self.frozen]
            if not changed and self.manifested.get(p) == offset:
                continue
            for tid in changed:
                state, positioned = self.projector.export_tournament(tid)
                published = self.projector.published.get((tid, name))
                header = {
                    "tournament": tid,
                    "partition": p,
                    "offset": offset,
                    "seq": state.seq,
                    "published": {name: published.decode()} if published is not None else {},
                    "unreadable": bool(state.unreadable),
                    "owner": self.worker,
                    "generation": self.generation,
                }
                blob = snapshots.encode(header, snapshots.freeze(state, positioned))
                if len(blob) > SNAPSHOT_MAX_BYTES:
                    log.warning(
                        "snapshot of %s is %d bytes: partition %d not checkpointed",
                        tid,
                        len(blob),
                        p,
                    )
                    break
                tours.append((snapshots.tournament_key(tid), blob))
                written.add(tid)
            else:
                manifest = {
                    "partition": p,
                    "offset": offset,
                    "tournaments": tids,
                    "owner": self.worker,
                    "generation": self.generation,
                }
                manifests.append((snapshots.partition_key(p), snapshots.encode(manifest)))
        self.dirty -= written  # put back by `checkpoint_failed`
        return tours, manifests, written

    def checkpoint_failed(self, written: set[str]) -> None:
        self.dirty |= {t for t in written if t in self.part_of}  # not what was revoked since

    def checkpoint_done(
        self, manifests: list[tuple[bytes, bytes]], written: set[str], size: int
    ) -> None:
        """After every record of a checkpoint was acknowledged."""
        for _key, value in manifests:
            header, _ = snapshots.decode(value)
            self.manifested[int(header["partition"])] = int(header["offset"])
        snap = self.stats["snapshots"]
        snap["written"] += len(written)
        snap["bytes"] += size
        snap["last_at"] = time.time()

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
        for tid in tids:
            self.held.pop(tid, None)
        for env in envs:
            if not self.owns(env.tournament_id):
                continue  # its partition was revoked while it was being read
            self._apply(env, touched)  # re-holds a tournament whose gap is still there
        for tid in tids:
            if tid not in self.held:
                self.stats["recovered"] += 1
                log.warning("gap recovered: %s folded to seq %d", tid, self._seq(tid))
        return self._messages(touched)

    def _seq(self, tid: str) -> int:
        if tid in self.frozen:
            return int(self.frozen[tid][0]["seq"])
        state = self.projector.states.get(tid)
        return state.seq if state else 0

    # -- status ----------------------------------------------------------------------------

    def watched(self) -> frozenset[int] | None:
        return frozenset(self.owned) if self.scoped else None

    def status(self) -> dict[str, Any]:
        tournaments = {t: s.seq for t, s in self.projector.states.items()}
        tournaments.update({t: int(h["seq"]) for t, (h, _) in self.frozen.items()})
        return {
            "projection": self.cfg.projection,
            "pid": os.getpid(),
            "events_topic": self.cfg.events_topic,
            "output_topic": self.cfg.out_topic,
            "snapshot_topic": self.cfg.snapshot_topic,
            "group": self.cfg.group_id,
            "worker": self.worker,
            "generation": self.generation,
            "assigned": sorted(self.owned),
            **self.stats,
            # Per events partition, the offset its last manifest (written or restored) covers.
            "snapshot_covers": {str(p): o for p, o in sorted(self.manifested.items())},
            "duplicates": self.projector.duplicates,
            "held": {t: {"expected": g.expected, "got": g.got} for t, g in self.held.items()},
            # Tournaments held by a stored event that cannot be read (seq, event id to
            # retract, reason) or by a failure of the projection code.
            "unreadable": self.projector.held(),
            "tournaments": tournaments,
        }
