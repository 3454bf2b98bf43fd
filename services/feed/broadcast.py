"""One broadcaster per tournament and stream flavour: a publish written once to every
subscriber that keeps up (issue 27, item 4).

A stream served by uvicorn's httptools protocol (what `arbiter serve` runs) writes its body
straight to its connection's transport (`direct_sink`: after the response start went through
the middleware stack as for any route). Each such stream is a `Member` of the `Broadcaster` of
its (hub, tournament, `?patches=`) on the event loop. The broadcaster is one hub watcher for
all of them: on each change it reads what was published once (`FeedHub.since`), encodes the
SSE frames once per *cohort* (members that hold the same state: the same versions sent of each
projection, the same Last-Event-ID, the same hold told, so the same bytes are due to each;
`sse.frame`) and the HTTP chunk around them once, and writes that one `bytes` to each member's
transport: no task woken, no generator and no ASGI message per subscriber.

The rule for a subscriber that does not keep up: a member whose transport stopped taking bytes
(its write buffer is above the transport's high-water mark, 64 KiB by default: uvicorn's
`FlowControl.write_paused`) when a publish goes out is not written to; it leaves the broadcast
and its own task catches it up: it waits until the socket drains (to the low-water mark), then
sends in one chunk everything published since the last chunk it took (a state transfer, the
latest version of each projection, once that backlog exceeds `ARBITER_FEED_MAX_BACKLOG` or the
hub's history; `sse.bounded`), and rejoins the broadcast once nothing is pending and its socket
takes bytes. A reader that stops reading therefore holds at most its write buffer: the
high-water mark plus one chunk (a publish, or a catch-up of at most ARBITER_FEED_MAX_BACKLOG
bytes of messages or one message per projection), never a queue of frames. A member that resumes
(Last-Event-ID) starts the same way: its snapshot goes first, then it joins.

The bytes a member receives are those `routes.deliver_stream` would write for it, chunk for
chunk: the same `sse.frame` over the same messages from the same state, and the HTTP chunk is
the one uvicorn writes for an `http.response.body` message (`chunked`). Its own task still
re-checks the token at the multiples of ARBITER_FEED_REAUTH (`routes.SharedAuth`: one look-up
per token and period) and writes `: keep-alive` after ARBITER_FEED_KEEPALIVE seconds without a
byte to it; it leaves the broadcast when it ends (a revoked token, the client gone), and the
broadcaster goes with its last member.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import orjson

from services.feed import sse
from services.feed.hub import FeedHub

log = logging.getLogger("arbiter.feed")

REVOKED = b"event: revoked\ndata: {}\n\n"


def chunked(chunk: bytes) -> bytes:
    """`chunk` as one HTTP/1.1 chunk (RFC 9112 §7.1), the bytes uvicorn writes for one
    `http.response.body` message of a chunked response."""
    return b"%x\r\n" % len(chunk) + chunk + b"\r\n"


class Flow(Protocol):
    write_paused: bool  # the write buffer went above the high-water mark (not yet below low)


class Sink(Protocol):
    """Where a member's bytes go: a chunked HTTP response body, written without awaiting.
    `flow`, `write` and `is_closing` are read once per delivery by the broadcaster."""

    flow: Flow

    def write(self, wire: bytes) -> None: ...

    def is_closing(self) -> bool: ...  # the client went away

    async def drain(self) -> None: ...  # until it takes bytes again (or is closed)


class UvicornSink:
    """The transport of a uvicorn httptools connection whose response is chunked."""

    __slots__ = ("_transport", "flow", "is_closing", "write")

    def __init__(self, cycle: Any) -> None:
        self.flow: Flow = cycle.flow
        self._transport = cycle.transport
        self.write: Callable[[bytes], None] = cycle.transport.write
        # connection_lost closes the transport (and sets the cycle's `disconnected`)
        self.is_closing: Callable[[], bool] = cycle.transport.is_closing

    async def drain(self) -> None:
        await self.flow.drain()  # type: ignore[attr-defined]  # set again when drained or lost

    @property
    def buffered(self) -> int:
        """Bytes written and not yet taken by the socket."""
        return int(self._transport.get_write_buffer_size())


def direct_sink(send: Any) -> UvicornSink | None:
    """A direct writer for the response `send` started (the server's own `send`, below the
    middleware stack: `routes.raw_send`), or None when the server is not uvicorn's httptools
    protocol or the response is not chunked (the stream then goes through `send`).

    ASGI gives an application no transport; uvicorn's `send` is the bound method of its
    request-response cycle, which holds the transport, its flow control and the chunked
    encoding it chose in the response start (uvicorn 0.54: httptools_impl.RequestResponseCycle;
    anything else, h11 included, takes the `send` path)."""
    cycle = getattr(send, "__self__", None)
    if cycle is None or type(cycle).__module__ != "uvicorn.protocols.http.httptools_impl":
        return None
    if not all(hasattr(cycle, a) for a in ("transport", "flow", "disconnected", "scope")):
        return None
    if cycle.chunked_encoding is not True or not cycle.response_started:
        return None
    if cycle.response_complete or cycle.scope.get("method") == "HEAD":
        return None
    return UvicornSink(cycle)


class Member:
    """One stream of a broadcaster: its sink, its Last-Event-ID, and, while it catches up on
    its own, what it sent (`sent`, `held`) and the hub publication it read up to (`cursor`);
    while it is in a cohort, the cohort holds them."""

    __slots__ = (
        "_waiter",
        "cohort",
        "cursor",
        "floor",
        "flow",
        "held",
        "is_closing",
        "joined",
        "last",
        "sent",
        "sink",
        "write",
    )

    def __init__(self, sink: Sink, floor: int) -> None:
        self.sink, self.floor = sink, floor
        self.flow, self.write, self.is_closing = sink.flow, sink.write, sink.is_closing
        self.sent: dict[str, int] = {}
        self.held: dict[str, Any] | None = None
        self.cursor = 0
        self.cohort: _Cohort | None = None
        self.last = 0.0  # monotonic time of the last chunk it wrote itself
        self.joined = 0.0  # monotonic time it joined its cohort
        self._waiter: asyncio.Future[bool] | None = None

    def quiet_since(self) -> float:
        """When the last byte went to this member (its own or its cohort's while in it)."""
        c = self.cohort
        return max(self.last, c.last) if c is not None and c.last >= self.joined else self.last

    async def sleep(self, deadline: float) -> bool:
        """Wait, in the broadcast, until `deadline` (monotonic): False; or until the
        broadcaster puts it out (it fell behind): True."""
        if self.cohort is None:
            return True
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[bool] = loop.create_future()
        self._waiter = fut
        timer = loop.call_later(max(0.0, deadline - time.monotonic()), _settle, fut, False)
        try:
            return await fut
        finally:
            timer.cancel()
            self._waiter = None

    def _out(self) -> None:
        if self._waiter is not None:
            _settle(self._waiter, True)


def _settle(fut: asyncio.Future[bool], value: bool) -> None:
    if not fut.done():
        fut.set_result(value)


def _held_key(held: dict[str, Any] | None) -> bytes | None:
    return None if held is None else orjson.dumps(held, option=orjson.OPT_SORT_KEYS)


class _Cohort:
    """Members in the same state, to whom the same bytes are due: one `sent` for all."""

    __slots__ = ("floor", "held", "key", "last", "members", "sent")

    def __init__(self, floor: int, sent: dict[str, int], held: dict[str, Any] | None) -> None:
        self.floor, self.sent, self.held = floor, sent, held
        self.key = _key(floor, sent, held)
        self.members: dict[Member, None] = {}  # in the order they joined
        self.last = 0.0  # monotonic time of its last chunk


def _key(floor: int, sent: dict[str, int], held: dict[str, Any] | None) -> Any:
    return (floor, tuple(sorted(sent.items())), _held_key(held))


class Broadcaster:
    """The streams of one tournament (one flavour, one event loop) of a hub. Use `attach` to get
    it with a member attached, and `detach` the member when its stream ends."""

    def __init__(self, hub: FeedHub, tid: str, patches: bool, max_backlog: int, key: Any) -> None:
        self.hub, self.tid, self.patches, self.max_backlog = hub, tid, patches, max_backlog
        self._key = key
        self.cursor = 0  # the hub publication the cohorts are at
        self.cohorts: dict[Any, _Cohort] = {}
        self.streams: dict[Member, None] = {}  # every member, in the broadcast or catching up
        self.watcher = hub.watch(tid, patches, on_change=self._changed)

    @classmethod
    def attach(
        cls, hub: FeedHub, tid: str, patches: bool, max_backlog: int, m: Member
    ) -> Broadcaster:
        """The broadcaster of `tid` on this loop, created if need be, with `m` attached (not
        yet in the broadcast: `join`)."""
        key = (tid, patches, asyncio.get_running_loop())
        bc = hub.broadcasters.get(key)
        if bc is None:
            bc = hub.broadcasters[key] = cls(hub, tid, patches, max_backlog, key)
        bc.streams[m] = None
        return bc

    def detach(self, m: Member) -> None:
        """`m`'s stream ended: out of the broadcast; the broadcaster goes with its last."""
        self.leave(m)
        self.streams.pop(m, None)
        if not self.streams:
            self.watcher.close()
            if self.hub.broadcasters.get(self._key) is self:
                del self.hub.broadcasters[self._key]

    def members(self) -> int:
        """Members in the broadcast now (not catching up on their own)."""
        return sum(len(c.members) for c in self.cohorts.values())

    def join(self, m: Member) -> bool:
        """Put `m` in the broadcast, if it has read the hub as far as the broadcast has and its
        socket takes bytes; else False (it catches up first)."""
        if m.cohort is not None:
            return True
        if (self.cohorts and m.cursor < self.cursor) or m.flow.write_paused or m.is_closing():
            return False
        if not self.cohorts:
            self.cursor = m.cursor  # nothing is due to anyone before it
        key = _key(m.floor, m.sent, m.held)
        c = self.cohorts.get(key)
        if c is None:
            c = self.cohorts[key] = _Cohort(m.floor, m.sent, m.held)
        c.members[m] = None
        m.cohort, m.joined = c, time.monotonic()
        return True

    def leave(self, m: Member) -> None:
        """Take `m` out of the broadcast, with the state its cohort holds now."""
        c = m.cohort
        if c is None:
            return
        del c.members[m]
        m.sent, m.held, m.cursor, m.cohort = dict(c.sent), c.held, self.cursor, None
        if not c.members:
            del self.cohorts[c.key]

    def _changed(self) -> None:  # on the loop, once per publish or hold change
        if not self.cohorts:
            return
        try:
            self._fan_out()
        except Exception:  # each member catches up on its own instead
            log.exception("feed: the broadcast of %s failed", self.tid)
            for c in list(self.cohorts.values()):
                for m in list(c.members):
                    self.leave(m)
                    m._out()

    def _fan_out(self) -> None:
        before = self.cursor
        changes, self.cursor = self.hub.since(self.tid, before)
        held = self.hub.held_entry(self.tid)
        if not changes and all(c.held == held for c in self.cohorts.values()):
            return
        changes = sse.bounded(changes, self.max_backlog)
        now = time.monotonic()
        out: list[Member] = []
        # The HTTP chunk of each frame, once for the cohorts that get the same frame (the
        # frames come from the hub's cache: one object); the frame is kept with it, so its id
        # is not reused while this pass runs.
        wires: dict[int, tuple[bytes, bytes]] = {}
        for c in list(self.cohorts.values()):
            sent_before, held_before = dict(c.sent), c.held
            chunk = sse.frame(changes, c.sent, c.floor, self.patches, self.hub.frames)
            if held != c.held:
                c.held = held
                chunk = sse.held_frame(held) + chunk
            if not chunk:
                continue
            kept = wires.get(id(chunk))
            if kept is None:
                kept = wires[id(chunk)] = (chunk, chunked(chunk))
            wire = kept[1]
            c.last = now
            behind: list[Member] | None = None
            for m in c.members:
                if m.flow.write_paused or m.is_closing():
                    if behind is None:
                        behind = []
                    behind.append(m)
                else:
                    m.write(wire)
            if behind is not None:  # not written to: they resume from before this publish
                for m in behind:
                    del c.members[m]
                    m.sent, m.held, m.cursor = dict(sent_before), held_before, before
                    m.cohort = None
                out.extend(behind)
        self._regroup()
        for m in out:
            m._out()

    def _regroup(self) -> None:
        """Key the cohorts by their new state; cohorts now alike become one."""
        cohorts: dict[Any, _Cohort] = {}
        for c in self.cohorts.values():
            if not c.members:
                continue
            c.key = _key(c.floor, c.sent, c.held)
            into = cohorts.get(c.key)
            if into is None:
                cohorts[c.key] = c
                continue
            into.last = min(into.last, c.last)  # an early keep-alive rather than a late one
            for m in c.members:
                into.members[m] = None
                m.cohort = into
        self.cohorts = cohorts


Allowed = Callable[[], Awaitable[bool]]


def next_check(every: float) -> float:
    """The next multiple of `every` seconds on the monotonic clock (now + `every` if not > 0):
    every stream re-checks its token at the same instants (`routes.SharedAuth`)."""
    now = time.monotonic()
    return (now // every + 1) * every if every > 0 else now + every


async def serve_member(
    sink: Sink,
    hub: FeedHub,
    tid: str,
    floor: int,
    keepalive: float,
    still_allowed: Allowed,
    reauth: float,
    max_backlog: int,
    patches: bool,
) -> None:
    """One stream written to `sink` (a direct writer) until its token is revoked or its client
    goes (the caller cancels it then): its first chunk, then the broadcast of its tournament,
    catching up on its own whenever it falls behind; `routes.deliver_stream`'s bytes."""
    m = Member(sink, floor)
    bc = Broadcaster.attach(hub, tid, patches, max_backlog, m)
    try:
        snapshot, m.cursor = hub.snapshot(tid, floor)
        m.held = hub.held(tid).get(tid)
        first = b"retry: 2000\n" + b": connected\n\n" + sse.frame(snapshot, m.sent, floor)
        sink.write(chunked(first + (sse.held_frame(m.held) if m.held is not None else b"")))
        m.last = time.monotonic()
        next_auth = next_check(reauth)
        while True:
            if time.monotonic() >= next_auth:
                if not await still_allowed():
                    bc.leave(m)
                    if not sink.is_closing():
                        sink.write(chunked(REVOKED))
                    return
                next_auth = next_check(reauth)
            if m.cohort is None:  # catching up on its own
                if sink.flow.write_paused:
                    wait = max(0.0, next_auth - time.monotonic())
                    try:
                        await asyncio.wait_for(sink.drain(), wait)
                    except TimeoutError:
                        continue  # re-check the token, then wait again
                if sink.is_closing():
                    return
                if not bc.join(m):
                    changes, m.cursor = hub.since(tid, m.cursor)
                    chunk = sse.frame(
                        sse.bounded(changes, max_backlog), m.sent, floor, patches, hub.frames
                    )
                    held = hub.held_entry(tid)
                    if held != m.held:
                        m.held = held
                        chunk = sse.held_frame(held) + chunk
                    if chunk:
                        sink.write(chunked(chunk))
                        m.last = time.monotonic()
                    continue
            if await m.sleep(min(m.quiet_since() + keepalive, next_auth)):
                continue  # put out of the broadcast: catch up
            now = time.monotonic()
            if (
                now >= m.quiet_since() + keepalive
                and not sink.flow.write_paused
                and not sink.is_closing()
            ):
                sink.write(chunked(sse.KEEPALIVE))
                m.last = now
    finally:
        bc.detach(m)
