"""The projection processor's fold outside Faust: folding a batch into its projection, the
start-up restore (snapshots, then the tail of each assigned partition), checkpoints, and the
status it reports. The Kafka plumbing it reads with is `topic_reader.py`.

Synchronous and Faust-free so that the agent stays thin and the rebuild can run before the
worker starts.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kafka import KafkaAdminClient, KafkaProducer, TopicPartition
from kafka.errors import KafkaError

from events_schema import Envelope
from events_schema.codec import dumps, loads
from projections.documents import PROJECTIONS
from services.eventlog.kafka import create_topic, decode_record, durability_configs, partition_for
from services.projection.processors import snapshots
from services.projection.processors.config import SNAPSHOT_MAX_BYTES, ProcessorConfig
from services.projection.processors.folding import FoldingCore
from services.projection.processors.snapshots import SnapshotUnreadable
from services.projection.projector import GapDetected, Message, Projector

log = logging.getLogger("arbiter.processor")


class Superseded(Exception):
    """A restore abandoned because a rebalance began while it ran."""


@dataclass
class ProcessorCore(FoldingCore[list[Message]]):
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

    def _fold_one(self, env: Envelope, touched: list[str], partition: int | None = None) -> None:
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
            self.hold(tid, gap)
        except Exception as exc:  # a bug in a projection: hold this tournament, go on
            self.projector.fail(tid, f"folding seq {env.seq}: {type(exc).__name__}: {exc}")

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
                self._fold_one(decode_record(rec.key, rec.value), touched, p)
            if p in self.pos:
                self.pos[p] = max(self.pos[p], recs[-1].offset + 1)
        self.projector.duplicates += skipped
        self.stats["batches"] += 1
        self.stats["last_fold_at"] = time.time()
        return self._messages(touched)

    def _emit(self, touched: list[str]) -> list[Message]:
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
            self._fold_one(decode_record(rec.key, rec.value), touched, rec.partition)
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
