"""The SSE broadcast through a real uvicorn (httptools, as `arbiter serve` runs it) in this
process, so the test sees the broadcaster (services/feed/broadcast.py, issue 27 item 4): many
subscribers get the same bytes, chunk for chunk, in order; a subscriber that stops reading is
left out while the others go on, holds no more than its socket's write buffer, catches up
(a state transfer past ARBITER_FEED_MAX_BACKLOG) when it reads again and rejoins; a client
that goes away frees its place, its slot and the hub's watcher. The messages are published
into the feed's hub by the test (what the embedded runner does after each append)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests_support import ThreadServer

from projections.names import PROJECTIONS
from services.config import FeedSettings
from services.feed.broadcast import Broadcaster
from services.projection.projector import Message

TID = "bcast-2026"
MAX_BACKLOG = 64 << 10


@pytest.fixture
def srv(tmp_path: Path) -> Iterator[tuple[ThreadServer, str]]:
    settings = FeedSettings(keepalive=3600.0, reauth=3600.0, max_backlog=MAX_BACKLOG)
    with ThreadServer(tmp_path, feed=settings) as server:
        yield server, server.token("admin", "chief")


class Client:
    """A raw HTTP connection to the stream; a thread keeps what arrives (after the headers)
    unless `reading` is cleared."""

    def __init__(self, url: str, token: str, rcvbuf: int | None = None) -> None:
        host, port = url.removeprefix("http://").split(":")
        self.sock = socket.socket()
        if rcvbuf is not None:  # before connecting: the window the server may fill
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.connect((host, int(port)))
        self.sock.sendall(
            f"GET /tournaments/{TID}/stream HTTP/1.1\r\nHost: {host}\r\n"
            f"Authorization: Bearer {token}\r\n\r\n".encode()
        )
        self._parts: list[bytes] = []
        self.reading = threading.Event()
        self.reading.set()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            self.reading.wait()
            try:
                data = self.sock.recv(1 << 16)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self._parts.append(data)

    @property
    def body(self) -> bytes:
        """The raw body: HTTP chunks, as written on the wire."""
        with self._lock:
            raw = self._parts[0] = b"".join(self._parts) if self._parts else b""
            del self._parts[1:]
        return raw.partition(b"\r\n\r\n")[2]

    def sse(self) -> bytes:
        """The body out of its chunks (each checked)."""
        out, body, at = bytearray(), self.body, 0
        while at < len(body):
            end = body.index(b"\r\n", at)
            n = int(body[at:end], 16)
            out += body[end + 2 : end + 2 + n]
            assert body[end + 2 + n : end + 4 + n] in (b"\r\n", b"\r", b""), "a bad chunk"
            at = end + 4 + n
        return bytes(out)

    def close(self) -> None:
        # shutdown first: a close alone does not end a socket another thread is in recv on
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()


def _until(cond: Callable[[], bool], what: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not cond():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def _bc(server: ThreadServer) -> Broadcaster | None:
    bcs = list(server.app.state.feed.hub.broadcasters.values())
    return bcs[0] if bcs else None


def _in(server: ThreadServer) -> int:
    bc = _bc(server)
    return bc.members() if bc is not None else 0


def _events(sse: bytes) -> list[tuple[str, int | None]]:
    """(event, id) of each event of a stream (the `id:` where one was written)."""
    out: list[tuple[str, int | None]] = []
    for block in sse.split(b"\n\n"):
        lines = dict(line.split(b": ", 1) for line in block.split(b"\n") if b": " in line)
        if b"event" in lines:
            ident = lines.get(b"id")
            out.append((lines[b"event"].decode(), int(ident) if ident else None))
    return out


def _publish(server: ThreadServer, seq: int, size: int = 10) -> None:
    body = b'{"as_of_seq":%d,"pad":"%s"}' % (seq, b"x" * size)
    server.app.state.feed.hub.publish([Message(TID, "standings", seq, body)])


def test_many_subscribers_get_the_same_bytes_chunk_for_chunk_in_order(srv: Any) -> None:
    server, token = srv
    # Given twenty subscribers of a tournament, in its broadcast
    clients = [Client(server.url, token) for _ in range(20)]
    try:
        _until(lambda: _in(server) == 20, "all in the broadcast")
        # When thirty versions are published, one after the other
        for seq in range(1, 31):
            _publish(server, seq)
        _until(lambda: all(c.sse().endswith(b"id: 30\n" + _data(30)) for c in clients), "30")
        # Then every subscriber received the same bytes, chunk for chunk
        assert len({c.body for c in clients}) == 1
        # each version once, in order, after the connection's first chunk
        events = _events(clients[0].sse())
        assert clients[0].sse().startswith(b"retry: 2000\n: connected\n\n")
        assert [i for _, i in events] == list(range(1, 31))
    finally:
        for c in clients:
            c.close()


def _data(seq: int, size: int = 10) -> bytes:
    return b'data: {"as_of_seq":%d,"pad":"%s"}\n\n' % (seq, b"x" * size)


@pytest.mark.slow
def test_a_subscriber_that_stops_reading_is_left_out_then_catches_up_and_rejoins(srv: Any) -> None:
    server, token = srv
    size = 200_000
    fast = [Client(server.url, token) for _ in range(5)]
    slow = Client(server.url, token, rcvbuf=4096)
    try:
        _until(lambda: _in(server) == 6, "all in the broadcast")
        # Given one subscriber stops reading
        slow.reading.clear()
        # When sixty versions of 200 kB are published (12 MB: more than its socket holds)
        for seq in range(1, 61):
            _publish(server, seq, size)
            time.sleep(0.005)
        # Then the others get them, in order, up to the last (each one, unless its reading
        # thread too fell a socket buffer behind on this busy machine: then it too caught up)
        _until(lambda: all(c.sse().endswith(b"id: 60\n" + _data(60, size)) for c in fast), "60")
        for c in fast:
            ids = [i for _, i in _events(c.sse())]
            assert ids == sorted(set(ids)) and ids[-1] == 60
        # and it is out of the broadcast, holding no more than its socket's write buffer:
        # the transport's high-water mark (64 KiB) and the chunk that went over it (at most
        # ARBITER_FEED_MAX_BACKLOG of messages, or one message per projection)
        _until(lambda: _in(server) == 5, "the slow one out of the broadcast")
        bc = _bc(server)
        assert bc is not None and len(bc.streams) == 6
        (behind,) = [m for m in bc.streams if m.cohort is None]
        assert behind.sink.buffered <= (64 << 10) + max(MAX_BACKLOG, len(PROJECTIONS) * size) + 500
        # When it reads again
        slow.reading.set()
        _until(lambda: b"id: 60\n" in slow.sse(), "the slow one catches up")
        # Then it got the latest version, having skipped what was past its backlog bound,
        # each version at most once and in order
        ids = [i for _, i in _events(slow.sse())]
        assert ids == sorted(set(ids)) and ids[-1] == 60 and len(ids) < 60
        # and it rejoins the broadcast: the next version goes to all six alike
        _until(lambda: _in(server) == 6, "rejoined")
        _publish(server, 61)
        _until(lambda: all(c.sse().endswith(_data(61)) for c in [*fast, slow]), "61")
        tails = {c.body[c.body.rindex(b"event: standings\nid: 61") - 6 :] for c in [*fast, slow]}
        assert len(tails) == 1
    finally:
        for c in [*fast, slow]:
            c.close()


def test_clients_that_go_away_free_their_place_slot_and_watcher(srv: Any) -> None:
    server, token = srv
    feed = server.app.state.feed
    # Given ten subscribers in the broadcast, one of them not reading
    clients = [Client(server.url, token) for _ in range(10)]
    clients[0].reading.clear()
    try:
        _until(lambda: _in(server) == 10, "all in the broadcast")
        assert feed.subscribers == 10 and TID in feed.hub._watchers
        _publish(server, 1)
    finally:
        # When they all go away
        for c in clients:
            c.close()
    # Then the broadcaster, its hub watcher and the subscriber slots are all gone
    _until(lambda: feed.hub.broadcasters == {}, "the broadcaster goes")
    _until(lambda: feed.subscribers == 0, "the slots come back")
    assert TID not in feed.hub._watchers


def test_a_revoked_token_ends_its_streams_and_the_others_stay_in_the_broadcast(
    tmp_path: Path,
) -> None:
    settings = FeedSettings(keepalive=3600.0, reauth=0.3, max_backlog=MAX_BACKLOG)
    with ThreadServer(tmp_path, feed=settings) as server:
        kept, revoked = server.token("auditor", "a1"), server.token("auditor", "a2")
        # Given five streams behind each of two tokens, all in the broadcast
        ours = [Client(server.url, revoked) for _ in range(5)]
        others = [Client(server.url, kept) for _ in range(5)]
        try:
            _until(lambda: _in(server) == 10, "all in the broadcast")
            # When one token is revoked
            assert server.tokens.revoke(revoked.split("_")[1])
            # Then its streams end with `revoked` (and the response's last chunk) ...
            end = b"event: revoked\ndata: {}\n\n\r\n0\r\n\r\n"
            _until(lambda: all(c.body.endswith(end) for c in ours), "ours end", 10)
            _until(lambda: _in(server) == 5, "ours leave the broadcast", 10)
            # ... and the others still get what is published
            _publish(server, 1)
            _until(lambda: all(c.sse().endswith(_data(1)) for c in others), "others get it")
            assert all(b"revoked" not in c.body for c in others)
        finally:
            for c in [*ours, *others]:
                c.close()
