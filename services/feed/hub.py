"""The feed hub: the projection messages published in this process, and who waits for them.

`FeedHub` keeps, per tournament, the latest message of each projection and a bounded
in-memory history of published messages (each with a hub-wide publication number), and wakes
waiters when a tournament changes: threads (`wait`) and asyncio tasks (`watch`). For a
`?patches=true` stream it computes each message's patch (`services.feed.patch`). A `Source`
fills it: the embedded runner or the Kafka projection source (`services.projection.embedded`).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import orjson

from projections.names import PROJECTIONS
from services.projection.projector import Message

#: Published messages kept per tournament for live delivery to lagging SSE connections.
HISTORY_PER_TOURNAMENT = 2_000


@dataclass(frozen=True)
class Published:
    number: int  # hub-wide publication order, 1-based
    message: Message


class _Watcher:
    """An asyncio subscriber to one tournament: `publish` (any thread) marks it changed and
    sets its event.

    The timeout of `wait` is one timer per watcher, kept across waits (a new timer per wake,
    as `asyncio.wait_for` makes, costs more than the rest of a delivery with a thousand
    connections): a timer due before the deadline asked for fires, and is set again."""

    def __init__(
        self,
        hub: FeedHub,
        tournament_id: str,
        patches: bool = False,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self.hub, self.tournament_id = hub, tournament_id
        self.patches = patches  # a `?patches=true` stream: the hub computes patches for it
        # Called on the loop at each change instead of waking `wait` (the broadcaster of
        # services/feed/broadcast.py: one watcher for every subscriber that keeps up).
        self.on_change = on_change
        self.loop = asyncio.get_running_loop()
        self.changed = False
        self._timer: asyncio.TimerHandle | None = None
        # The future `wait` awaits, resolved by a wake or the timer (a bare future: an
        # `asyncio.Event` costs a deque and a clear per wake, a thousand times per publish).
        self._waiter: asyncio.Future[None] | None = None

    def notify(self) -> None:
        _notify([self])

    def _wake(self) -> None:  # on the loop
        if self.on_change is not None:
            self.on_change()
            return
        self.changed = True
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _expire(self) -> None:  # on the loop
        self._timer = None
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def wait(self, timeout: float) -> bool:
        """True when the tournament changed since the last wait, False on timeout."""
        if not self.changed:
            deadline = self.loop.time() + timeout
            while not self.changed and self.loop.time() < deadline:
                if self._timer is None or self._timer.when() > deadline:
                    if self._timer is not None:
                        self._timer.cancel()
                    self._timer = self.loop.call_at(deadline, self._expire)
                self._waiter = self.loop.create_future()
                try:
                    await self._waiter
                finally:
                    self._waiter = None
        changed, self.changed = self.changed, False
        return changed

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.hub._unwatch(self)

    def __enter__(self) -> _Watcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _notify(watchers: Iterable[_Watcher]) -> None:
    """Wake watchers from any thread: one `call_soon_threadsafe` per event loop (one write to
    its self-pipe), which then wakes each of its watchers, so a publish to a thousand
    connections costs one wake-up of the loop, not a thousand."""
    by_loop: dict[asyncio.AbstractEventLoop, list[_Watcher]] = {}
    for w in watchers:
        by_loop.setdefault(w.loop, []).append(w)
    for loop, ws in by_loop.items():
        with contextlib.suppress(RuntimeError):  # the loop is closed: the connections are gone
            loop.call_soon_threadsafe(_wake_all, ws)


def _wake_all(watchers: list[_Watcher]) -> None:
    for w in watchers:
        w._wake()


@dataclass
class _Tournament:
    latest: dict[str, Message] = field(default_factory=dict)
    history: deque[Published] = field(default_factory=lambda: deque(maxlen=HISTORY_PER_TOURNAMENT))
    evicted: int = 0  # publication number of the last message dropped from the history


class FeedHub:
    """Thread-safe store of published messages; every method may be called from any thread."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._tournaments: dict[str, _Tournament] = {}
        self._watchers: dict[str, set[_Watcher]] = {}
        self._number = 0
        self.caught_up = threading.Event()  # the source has read what was there at its start
        # Tournaments whose projections the source holds (an unreadable event, a failure),
        # with the reason; set by the source after each batch.
        self._held: dict[str, dict[str, Any]] = {}
        # Per (tournament, projection) watched by a `?patches=true` stream: the latest message
        # parsed (its as_of_seq, its JSON), what the next one is diffed against.
        self._parsed: dict[tuple[str, str], tuple[int, Any]] = {}
        self._patch_lock = threading.Lock()
        self._patch_watchers: dict[str, int] = {}  # tournament -> open `?patches=true` streams
        # Called (no arguments, from the publishing thread) after a publish that recorded
        # something: the delayed feed's timer (services/feed/delay.py) wakes on it.
        self._listeners: list[Callable[[], None]] = []
        # The SSE frames encoded for the streams of this hub (services.feed.sse.frame): a
        # publish is encoded once for every connection that receives it the same way. Touched
        # on the event loop only.
        self.frames: dict[Any, bytes] = {}
        # Per tournament, the last answer of `since`: (after number, hub number, messages).
        self._since: dict[str, tuple[int, int, list[Message]]] = {}
        # The broadcasters of this hub's streams (services/feed/broadcast.py), by tournament,
        # stream flavour and event loop. Touched on the event loop only.
        self.broadcasters: dict[Any, Any] = {}

    def on_publish(self, listener: Callable[[], None]) -> None:
        """Call `listener` after every publish that recorded a message."""
        with self._cond:
            self._listeners.append(listener)

    def publish(self, messages: Iterable[Message]) -> int:
        """Record messages; a message older than (or as old as) the latest of its projection is
        ignored. Returns how many were recorded."""
        touched: set[str] = set()
        recorded = 0
        batch = self._patched(list(messages))
        with self._cond:
            for m in batch:
                t = self._tournaments.setdefault(m.tournament_id, _Tournament())
                current = t.latest.get(m.projection)
                if current is not None and current.as_of_seq >= m.as_of_seq:
                    continue
                if m.patch is not None and (current is None or current.as_of_seq != m.base_seq):
                    m = replace(m, patch=None)  # another publisher came between: send it whole
                self._number += 1
                recorded += 1
                t.latest[m.projection] = m
                if len(t.history) == t.history.maxlen:
                    t.evicted = t.history[0].number
                t.history.append(Published(self._number, m))
                touched.add(m.tournament_id)
            watchers = [w for tid in touched for w in self._watchers.get(tid, ())]
            listeners = list(self._listeners) if touched else []
            if touched:
                self._cond.notify_all()
        _notify(watchers)
        for listener in listeners:
            listener()
        return recorded

    def _patched(self, messages: list[Message]) -> list[Message]:
        """`messages`, each with its patch against the version of its projection before it
        (`services.feed.patch`), for the tournaments a `?patches=true` stream watches: once
        per message for all such streams, outside the hub's lock."""
        with self._cond:
            wanted = {m.tournament_id for m in messages if m.tournament_id in self._patch_watchers}
            if not wanted:
                return messages
            before: dict[tuple[str, str], Message] = {}
            for m in messages:
                t = self._tournaments.get(m.tournament_id)
                if m.tournament_id in wanted and t is not None and m.projection in t.latest:
                    before[(m.tournament_id, m.projection)] = t.latest[m.projection]
        from services.feed.patch import patch_message

        out = []
        with self._patch_lock:
            for m in messages:
                key = (m.tournament_id, m.projection)
                prev = before.get(key)
                if m.tournament_id not in wanted or prev is None or prev.as_of_seq >= m.as_of_seq:
                    out.append(m)
                    continue
                held = self._parsed.pop(key, None)
                doc = held[1] if held is not None and held[0] == prev.as_of_seq else None
                parsed, patch = patch_message(
                    doc if doc is not None else orjson.loads(prev.body), m.body
                )
                self._parsed[key] = (m.as_of_seq, parsed)
                before[key] = m
                out.append(m if patch is None else replace(m, base_seq=prev.as_of_seq, patch=patch))
        return out

    def set_held(self, held: dict[str, dict[str, Any]]) -> None:
        """Replace the held tournaments; watchers of every tournament whose entry changed
        are woken (the stream tells its clients)."""
        with self._cond:
            changed = {t for t in set(held) | set(self._held) if held.get(t) != self._held.get(t)}
            if not changed:
                return
            self._held = dict(held)
            watchers = [w for tid in changed for w in self._watchers.get(tid, ())]
            self._cond.notify_all()
        _notify(watchers)

    def held(self, tournament_id: str | None = None) -> dict[str, dict[str, Any]]:
        """All held tournaments, or the one asked for (empty if it is not held)."""
        with self._cond:
            if tournament_id is None:
                return dict(self._held)
            entry = self._held.get(tournament_id)
            return {tournament_id: entry} if entry is not None else {}

    def held_entry(self, tournament_id: str) -> dict[str, Any] | None:
        """Why the tournament is held, or None: read without the lock (`set_held` replaces
        the whole mapping), once per delivery of a stream."""
        return self._held.get(tournament_id)

    def latest(self, tournament_id: str, projection: str) -> Message | None:
        with self._cond:
            t = self._tournaments.get(tournament_id)
            return None if t is None else t.latest.get(projection)

    def snapshot(self, tournament_id: str, after_seq: int = 0) -> tuple[list[Message], int]:
        """The latest message of each projection newer than `after_seq` (in seq order), and the
        publication number to read live changes after — taken atomically."""
        with self._cond:
            t = self._tournaments.get(tournament_id)
            msgs = [] if t is None else [m for m in t.latest.values() if m.as_of_seq > after_seq]
            return sorted(msgs, key=_order), self._number

    def since(self, tournament_id: str, number: int) -> tuple[list[Message], int]:
        """Messages of a tournament published after publication `number`, and the new number.
        A reader that fell behind the history gets the latest of each projection instead
        (state transfer: nothing newer is lost, intermediate versions are skipped).

        The answer is kept per tournament until the next publish: the connections that keep
        up all ask with the same `number` after a publish, and the first one's answer (the same
        list, which no caller changes) serves the rest without the lock."""
        memo = self._since.get(tournament_id)
        # `_number` is read without the lock: a publish under way either has not raised it
        # (the answer is what it was a moment before, and that publish wakes the reader
        # again) or has (the memo does not match and the lock is taken).
        if memo is not None and memo[0] == number and memo[1] == self._number:
            return memo[2], memo[1]
        with self._cond:
            t = self._tournaments.get(tournament_id)
            if t is None:
                return [], self._number
            if t.evicted > number:
                # Fell behind: what was evicted cannot be replayed; send the latest.
                return sorted(t.latest.values(), key=_order), self._number
            # Newest first, stopping at the cursor: a reader that keeps up costs what it
            # reads, not the length of the history (numbers rise along the deque).
            newer: list[Message] = []
            for p in reversed(t.history):
                if p.number <= number:
                    break
                newer.append(p.message)
            newer.reverse()
            self._since[tournament_id] = (number, self._number, newer)
            return newer, self._number

    def wait(self, tournament_id: str, number: int, timeout: float) -> bool:
        """Block a thread until something of the tournament is published after `number`."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                t = self._tournaments.get(tournament_id)
                if t is not None and t.history and t.history[-1].number > number:
                    return True
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)

    def watch(
        self,
        tournament_id: str,
        patches: bool = False,
        on_change: Callable[[], None] | None = None,
    ) -> _Watcher:
        """An asyncio waiter for the tournament (call from the event loop; close it after);
        `patches`: for a `?patches=true` stream (the hub then computes patches); `on_change`:
        called on the loop at each change of the tournament instead of waking `wait`."""
        w = _Watcher(self, tournament_id, patches, on_change)
        with self._cond:
            self._watchers.setdefault(tournament_id, set()).add(w)
            if patches:
                self._patch_watchers[tournament_id] = self._patch_watchers.get(tournament_id, 0) + 1
        return w

    def _unwatch(self, w: _Watcher) -> None:
        with self._cond:
            ws = self._watchers.get(w.tournament_id)
            if ws is None or w not in ws:
                return
            ws.discard(w)
            if not ws:
                del self._watchers[w.tournament_id]
            if not w.patches:
                return
            left = self._patch_watchers[w.tournament_id] - 1
            if left:
                self._patch_watchers[w.tournament_id] = left
                return
            del self._patch_watchers[w.tournament_id]
        # The last `?patches=true` stream on it closed: its parsed messages go.
        with self._patch_lock:
            for key in [k for k in self._parsed if k[0] == w.tournament_id]:
                del self._parsed[key]

    def tournaments(self) -> list[str]:
        with self._cond:
            return sorted(self._tournaments)


def _order(m: Message) -> tuple[int, int]:
    return (m.as_of_seq, PROJECTIONS.index(m.projection) if m.projection in PROJECTIONS else 99)


class Source(Protocol):
    hub: FeedHub

    def start(self) -> None: ...

    def stop(self) -> None: ...
