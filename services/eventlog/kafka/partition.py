"""One partition of the events topic as a process sees it: its offset index (each stream's
offsets by seq, last hash, and the partition's event ids) and its writer's state (producer,
queue of appends (`AppendRequest`), committer thread, counters).

The offset index (`Partition.streams`) is rebuilt once per partition per process, on first use,
and then extended incrementally: every read first asks the partition's last stable offset and
indexes only the records from its last indexed offset to there (so an index is never trusted
stale: another process's appends are always picked up), and the writer adds its own commits.
It is not persisted, because the writer must read its partition to the end after
`init_transactions()` anyway (the fencing handover: seqs, hashes and event ids of every
committed event); that one pass builds the offsets too. A persisted index (a compacted topic
written in the same transactions) would add a second partition to every transaction (more
coordinator work and markers per commit, the writer's bottleneck), would still have to be
extended from its end by scanning, and would be a second copy of the truth to keep
consistent. The cost is one scan of a partition the first time a process touches it."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from uuid import UUID

import orjson
from kafka import KafkaConsumer, KafkaProducer

from events_schema import GENESIS_HASH
from events_schema.envelope import read_envelope
from services.eventlog.base import AppendResult, NewEvent, content_digest


@dataclass(eq=False)
class AppendRequest:
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
    # The id of the event this batch was decided after, when that event was itself still
    # being appended (a pipelined command path): the batch is admitted only if that event is
    # then the stream's last (writer.py `_plan`).
    after: UUID | None = None
    # Called once answered (`when_done`): how an awaiting caller learns it without a thread.
    callbacks: list[Callable[[], None]] = field(default_factory=list)
    guard: threading.Lock = field(default_factory=threading.Lock)

    def finish(
        self, result: AppendResult | None = None, error: BaseException | None = None
    ) -> None:
        with self.guard:
            if self.done.is_set():
                return  # answered already (e.g. refused when its commit was not yet visible)
            self.result, self.error = result, error
            self.done.set()
            callbacks, self.callbacks = self.callbacks, []
        for callback in callbacks:
            callback()

    def when_done(self, callback: Callable[[], None]) -> None:
        """Call `callback` (no argument, quick, from the answering thread) once answered; at
        once if answered already."""
        with self.guard:
            if not self.done.is_set():
                self.callbacks.append(callback)
                return
        callback()

    def outcome(self) -> AppendResult:
        if self.error is not None:
            raise self.error
        assert self.result is not None
        return self.result


@dataclass
class StreamIndex:
    """One stream's place in its partition."""

    offsets: list[int] = field(default_factory=list)  # offsets[seq - 1]
    last_hash: str = GENESIS_HASH


@dataclass
class Partition:
    number: int
    next_offset: int = 0  # first offset not yet read into the index
    streams: dict[str, StreamIndex] = field(default_factory=dict)
    ids: dict[UUID, tuple[str, int, str]] = field(default_factory=dict)  # id -> tid, seq, digest
    # Guards the index (streams, ids, next_offset) and the reader's catch-up of it.
    lock: threading.RLock = field(default_factory=threading.RLock)
    producer: KafkaProducer | None = None  # used by the committer thread only
    # The appends waiting for the committer (guarded by `cond`).
    queue: deque[AppendRequest] = field(default_factory=deque)
    queued_events: int = 0
    last_group: int = 0  # requests in the group taken last
    busy: bool = False  # a group is being committed (by the committer or a lone writer)
    cond: threading.Condition = field(default_factory=threading.Condition)
    committer: threading.Thread | None = None
    watcher: KafkaConsumer | None = None  # the committer's: the last stable offset
    closing: bool = False
    # Committed by this process: transactions and the events in them (the benchmark's groups).
    transactions: int = 0
    # Transactional producers initialised here (each fences the partition's previous writer).
    writer_inits: int = 0
    # Ownership by group: the period of ownership the producer belongs to (ownership.py).
    writer_generation: int = -1
    events_written: int = 0

    def index(self, offset: int, key: bytes | None, value: bytes) -> None:
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
            stream = self.streams.get(tid)
            env = read_envelope(
                value, tournament_id=tid, seq=len(stream.offsets) + 1 if stream else 1
            )
            seq, event_id, digest = env.seq, env.event_id, ""
            last_hash = env.hash
        stream = self.streams.setdefault(tid, StreamIndex())
        if seq != len(stream.offsets) + 1:
            return  # already indexed (our own write) — seqs are gapless per stream
        stream.offsets.append(offset)
        stream.last_hash = last_hash
        self.ids[event_id] = (tid, seq, digest)
