"""The broadcast delay (issue 25 item 3): what readers with a broadcaster token see.

A tournament's delay is a setting in its log (`BroadcastDelaySet`, the latest in force:
`projections/broadcast.py`; 0 or none: live). A broadcaster sees the projections **as of N
seconds ago**: the log replayed up to the last event whose `recorded_at` is at most now − N.
That is exactly `arbiter replay T --until <now − N>` (services/audit/replay.py `resolve_point`
and `replay_to`: the same prefix rule, the same `Projector`), so the delayed view is exact and
auditable. `recorded_at` (the log's append time), not `occurred_at`: the log sets it when it
stores the event, so the prefix it names is a state the live feed really published; the
client's `occurred_at` may be backdated (a result entered late) and does not follow the seqs.

`DelayedFeed` keeps, per tournament a broadcaster asked for (`follow`), a second `Projector`
that folds the log only as far as the events have aged, and publishes its messages to its own
`FeedHub` (`hub`), which the SSE stream and the live page of a broadcaster read exactly as
they read the live hub. `release` reads what the log appended since, takes the delay in force
now (read from the whole log read so far: a change takes effect at once), folds the events
recorded at or before now − delay and publishes what changed. A background thread (`start`)
releases when the next event is due (its `recorded_at` + delay), when the live hub publishes
(a new event may be due at once, e.g. with no delay), and at least every `tick` seconds; a
snapshot request releases first, so it is never behind its own clock.

The view never goes backwards: a longer delay holds it where it is until the events age past
the new delay (what a broadcaster was shown cannot be unshown; it stays a replay of a point
of the log, the one it last showed). The clock (`clock`, an aware UTC datetime) is the
process's, handed in by the composition root (services/api/main.py, `arbiter serve`); tests
hand in one they move by hand, and call `release` instead of waiting.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from events_schema import Envelope
from events_schema import events as ev
from events_schema.registry import Recorded
from projections.broadcast import BroadcastDelay
from services.eventlog.base import EventLog
from services.feed.hub import FeedHub
from services.projection.projector import Projector

log = logging.getLogger("arbiter.feed")

Clock = Callable[[], datetime]


@dataclass
class _Delayed:
    """One tournament's delayed view: the events read from the log and not yet released
    (`pending`, in seq order), the delay in force in the log read so far, the fold of what
    was released, and the memo of its snapshot (seq, documents)."""

    projector: Projector = field(default_factory=Projector)
    read_seq: int = 0
    pending: deque[Envelope] = field(default_factory=deque)
    delay: BroadcastDelay = field(default_factory=BroadcastDelay)
    snapshot: tuple[int, dict[str, bytes]] | None = None

    @property
    def seq(self) -> int:
        return self.read_seq - len(self.pending)


class DelayedFeed:
    """The broadcasters' view of every tournament they follow; thread-safe."""

    def __init__(self, event_log: EventLog, clock: Clock, tick: float = 1.0) -> None:
        self.event_log, self.clock, self.tick = event_log, clock, tick
        self.hub = FeedHub()
        self.hub.caught_up.set()  # filled by `release`, never waited for
        self._lock = threading.RLock()
        self._tournaments: dict[str, _Delayed] = {}
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # --- reading ---------------------------------------------------------------------------

    def follow(self, tournament_id: str) -> None:
        """Keep a delayed view of the tournament (from now on, released by the timer)."""
        with self._lock:
            self._tournaments.setdefault(tournament_id, _Delayed())

    def delay(self, tournament_id: str) -> int:
        """The delay in force (seconds) in the log read so far."""
        with self._lock:
            t = self._tournaments.get(tournament_id)
            return t.delay.seconds if t is not None else 0

    def seq(self, tournament_id: str) -> int:
        """The last seq the broadcasters' view has folded (0: nothing yet)."""
        with self._lock:
            t = self._tournaments.get(tournament_id)
            return t.seq if t is not None else 0

    def snapshot(self, tournament_id: str) -> dict[str, bytes]:
        """Every projection's message as of the view's seq: byte for byte
        `replay_to(log, tournament, seq)`, the auditor's replay (empty before the tournament's
        creation, or while an unreadable event holds it)."""
        with self._lock:
            t = self._tournaments.get(tournament_id)
            if t is None:
                return {}
            if t.snapshot is None or t.snapshot[0] != t.seq:
                t.snapshot = (t.seq, t.projector.snapshot(tournament_id))
            return t.snapshot[1]

    def held(self, tournament_id: str) -> dict[str, object] | None:
        with self._lock:
            t = self._tournaments.get(tournament_id)
            return t.projector.held().get(tournament_id) if t is not None else None

    # --- releasing -------------------------------------------------------------------------

    def release(self, tournament_id: str | None = None) -> float | None:
        """Release, for one tournament followed or all, the events aged past the delay in
        force; publish what changed to `hub`. Returns the seconds until the next pending event
        is due (None: nothing pending)."""
        with self._lock:
            ids = [tournament_id] if tournament_id is not None else list(self._tournaments)
            now = self.clock()
            due: float | None = None
            for tid in ids:
                self.follow(tid)
                wait = self._release(tid, self._tournaments[tid], now)
                if wait is not None and (due is None or wait < due):
                    due = wait
            return due

    def _release(self, tid: str, t: _Delayed, now: datetime) -> float | None:
        for env in self.event_log.read(tid, t.read_seq + 1):
            t.read_seq = env.seq
            t.pending.append(env)
            if env.type == "BroadcastDelaySet" or env.type == "EventRetracted":
                event = Recorded.of(env).event
                if isinstance(event, ev.BroadcastDelaySet):
                    t.delay.set(env.event_id, event.seconds)
                elif isinstance(event, ev.EventRetracted):
                    t.delay.retract(event.retracted_event_id)
        delay = timedelta(seconds=t.delay.seconds)
        cutoff = now - delay
        aged: list[Envelope] = []
        # a prefix of the stream (services/audit/replay.py `resolve_point`): it stops at the
        # first event recorded after the cutoff
        while t.pending and t.pending[0].recorded_at <= cutoff:
            aged.append(t.pending.popleft())
        if aged:
            messages = t.projector.run(aged)
            self.hub.publish(messages)
            self.hub.set_held(self._held_all())
        if not t.pending:
            return None
        return max((t.pending[0].recorded_at + delay - now).total_seconds(), 0.0)

    def _held_all(self) -> dict[str, dict[str, object]]:
        out: dict[str, dict[str, object]] = {}
        for t in self._tournaments.values():
            out.update(t.projector.held())
        return out

    # --- the timer -------------------------------------------------------------------------

    def nudge(self) -> None:
        """Wake the timer now (the live hub published: an event may be due). With no
        tournament followed there is nothing to release, so the timer sleeps on (a live move
        wakes no thread of the delayed view when no broadcaster reads one)."""
        if self._tournaments:
            self._wake.set()

    def start(self) -> None:
        with self._lock:
            if self._thread is None and self.tick > 0:
                self._thread = threading.Thread(
                    target=self._run, name="arbiter-feed-delay", daemon=True
                )
                self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                due = self.release()
            except Exception:  # the log is unavailable a moment: try again on the next tick
                log.exception("releasing the delayed feed failed")
                due = None
            wait = self.tick if due is None else min(max(due, 0.001), self.tick)
            self._wake.wait(wait)
            self._wake.clear()
