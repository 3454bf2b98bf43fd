"""The broadcaster of a tournament's streams (services/feed/broadcast.py, issue 27 item 4): a
publish is encoded once and written to every subscriber that keeps up; one whose socket stops
taking bytes is left out and catches up on its own when it drains (the rule in the module's
docstring), then rejoins; a stream that ends frees its place. The sinks here are the direct
writers' stand-ins: they keep the HTTP chunks written, and the test says when one is full."""

from __future__ import annotations

import asyncio

from events_schema.codec import dumps
from services.feed.broadcast import Broadcaster, chunked, direct_sink, serve_member
from services.feed.hub import FeedHub
from services.feed.routes import deliver_stream
from services.projection.projector import Message

FIRST = b"retry: 2000\n: connected\n\n"


class Flow:
    write_paused = False


class FakeSink:
    def __init__(self) -> None:
        self.wire: list[bytes] = []
        self.flow = Flow()
        self.closed = False
        self._writable = asyncio.Event()
        self._writable.set()

    def write(self, wire: bytes) -> None:
        assert not self.closed
        self.wire.append(wire)

    def is_closing(self) -> bool:
        return self.closed

    async def drain(self) -> None:
        await self._writable.wait()

    def fill(self) -> None:  # its write buffer goes above the high-water mark
        self.flow.write_paused = True
        self._writable.clear()

    def empty(self) -> None:
        self.flow.write_paused = False
        self._writable.set()

    def body(self) -> bytes:
        """The SSE bytes, out of their HTTP chunks (each chunk checked)."""
        out = b""
        for w in self.wire:
            size, _, rest = w.partition(b"\r\n")
            assert rest.endswith(b"\r\n") and len(rest) == int(size, 16) + 2, w
            out += rest[:-2]
        return out


async def _allowed() -> bool:
    return True


def _member(sink: FakeSink, hub: FeedHub, floor: int = 0, patches: bool = False) -> asyncio.Task:
    return asyncio.ensure_future(
        serve_member(sink, hub, "t1", floor, 3600.0, _allowed, 3600.0, 1 << 20, patches)
    )


async def _until(cond, what: str) -> None:  # type: ignore[no-untyped-def]
    for _ in range(2000):
        if cond():
            return
        await asyncio.sleep(0.005)
    raise AssertionError(what)


def _bc(hub: FeedHub) -> Broadcaster:
    (bc,) = hub.broadcasters.values()
    return bc  # type: ignore[no-any-return]


def _in(hub: FeedHub) -> int:
    """Streams in the broadcast of the hub's one broadcaster (0 before it exists)."""
    return _bc(hub).members() if hub.broadcasters else 0


def test_every_subscriber_gets_the_same_chunk_object_of_each_publish_in_order() -> None:
    hub = FeedHub()
    hub.publish([Message("t1", "standings", 1, b"{s1}")])
    sinks = [FakeSink() for _ in range(50)]

    async def scenario() -> None:
        # Given fifty streams of one tournament, all caught up
        tasks = [_member(s, hub) for s in sinks]
        await _until(lambda: _in(hub) == 50, "all in the broadcast")
        # When three publications go out, one after the other
        for n, batch in enumerate(
            [
                [Message("t1", "standings", 2, b"{s2}")],
                [Message("t1", "games", 3, b"{g3}"), Message("t1", "standings", 3, b"{s3}")],
                [Message("t1", "tiebreaks", 4, b"{t4}")],
            ]
        ):
            hub.publish(batch)
            await _until(lambda n=n: all(len(s.wire) == n + 2 for s in sinks), f"chunk {n + 2}")
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        # And when every stream ended, the broadcaster and its hub watcher are gone
        assert hub.broadcasters == {} and hub._watchers == {}

    asyncio.run(scenario())
    # Then each subscriber got the snapshot and then one chunk per publication, in order,
    # the HTTP chunk encoded once for all (the same object)
    expected = [
        chunked(FIRST + b"event: standings\nid: 1\ndata: {s1}\n\n"),
        chunked(b"event: standings\nid: 2\ndata: {s2}\n\n"),
        chunked(b"event: games\ndata: {g3}\n\nevent: standings\nid: 3\ndata: {s3}\n\n"),
        chunked(b"event: tiebreaks\nid: 4\ndata: {t4}\n\n"),
    ]
    for s in sinks:
        assert s.wire == expected
        assert all(a is b for a, b in zip(s.wire[1:], sinks[0].wire[1:], strict=True))


def test_a_full_subscriber_is_left_out_catches_up_in_one_chunk_and_rejoins() -> None:
    hub = FeedHub()
    hub.publish([Message("t1", "standings", 1, b"{s1}")])
    fast, slow = FakeSink(), FakeSink()
    reference: list[bytes] = []  # the per-connection path, for the same publications

    async def emit(chunk: bytes) -> None:
        reference.append(chunk)

    async def scenario() -> None:
        tasks = [_member(fast, hub), _member(slow, hub)]
        ref = asyncio.ensure_future(
            deliver_stream(emit, hub, "t1", 0, 3600.0, lambda: True, 3600.0, 1 << 20)
        )
        await _until(lambda: _in(hub) == 2 and reference, "both in the broadcast")
        # Given the slow subscriber's socket stops taking bytes
        slow.fill()
        # When three publications go out
        hub.publish([Message("t1", "standings", 2, b"{s2}")])
        await _until(lambda: len(fast.wire) == 2, "the fast one gets the first")
        # Then it is out of the broadcast and not written to; the other gets each one
        assert _bc(hub).members() == 1 and len(slow.wire) == 1
        hub.publish([Message("t1", "games", 3, b"{g3}")])
        await _until(lambda: len(fast.wire) == 3 and len(reference) == 3, "the fast one")
        hub.publish([Message("t1", "standings", 4, b"{s4}")])
        await _until(lambda: len(fast.wire) == 4 and len(reference) == 4, "the fast one")
        assert len(slow.wire) == 1
        # When its socket drains, it gets what it missed in one chunk and rejoins
        slow.empty()
        await _until(lambda: len(slow.wire) == 2, "the catch-up chunk")
        await _until(lambda: _in(hub) == 2, "rejoined")
        hub.publish([Message("t1", "games", 5, b"{g5}")])
        await _until(
            lambda: len(slow.wire) == 3 and len(fast.wire) == 5 and len(reference) == 5, "all"
        )
        for t in [*tasks, ref]:
            t.cancel()
        await asyncio.gather(*tasks, ref, return_exceptions=True)

    asyncio.run(scenario())
    assert slow.wire[1] == chunked(
        b"event: standings\nid: 2\ndata: {s2}\n\n"
        b"event: games\nid: 3\ndata: {g3}\n\n"
        b"event: standings\nid: 4\ndata: {s4}\n\n"
    )
    assert slow.wire[2] is fast.wire[4]
    # and both streams are byte for byte the per-connection path's
    assert fast.body() == slow.body() == b"".join(reference)


def test_streams_in_different_states_get_their_own_bytes_and_merge_when_alike() -> None:
    hub = FeedHub()
    hub.publish([Message("t1", "standings", 1, b"{s1}"), Message("t1", "games", 1, b"{g1}")])
    fresh, resumed = FakeSink(), FakeSink()

    async def scenario() -> None:
        # Given a stream from the start and one resuming at Last-Event-ID 1 (it has nothing)
        tasks = [_member(fresh, hub), _member(resumed, hub, floor=1)]
        await _until(lambda: _in(hub) == 2, "both in the broadcast")
        assert len(_bc(hub).cohorts) == 2
        # When standings change, then games
        hub.publish([Message("t1", "standings", 2, b"{s2}")])
        await _until(lambda: len(fresh.wire) == 2 and len(resumed.wire) == 2, "one each")
        hub.publish([Message("t1", "games", 3, b"{g3}")])
        await _until(lambda: len(fresh.wire) == 3 and len(resumed.wire) == 3, "two each")
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(scenario())
    # Then each got the changes once (the resumed one nothing at or below its id)
    assert resumed.body() == (
        FIRST + b"event: standings\nid: 2\ndata: {s2}\n\nevent: games\nid: 3\ndata: {g3}\n\n"
    )
    assert fresh.body().startswith(FIRST + b"event: standings\ndata: {s1}\n\nevent: games\nid: 1")
    assert fresh.wire[1:] == resumed.wire[1:]
    # and the two cohorts were written the same chunk object (encoded once)
    assert all(a is b for a, b in zip(fresh.wire[1:], resumed.wire[1:], strict=True))


def test_a_patches_stream_gets_the_patch_once_its_full_message_went() -> None:
    hub = FeedHub()
    doc1 = dumps({"as_of_seq": 1, "rows": [1, 2, 3], "pad": "x" * 200})
    doc2 = dumps({"as_of_seq": 2, "rows": [1, 2, 4], "pad": "x" * 200})
    sinks = [FakeSink(), FakeSink()]

    async def scenario() -> None:
        tasks = [_member(s, hub, patches=True) for s in sinks]
        await _until(lambda: _in(hub) == 2, "both in the broadcast")
        hub.publish([Message("t1", "standings", 1, doc1)])
        await _until(lambda: all(len(s.wire) == 2 for s in sinks), "one each")
        hub.publish([Message("t1", "standings", 2, doc2)])
        await _until(lambda: all(len(s.wire) == 3 for s in sinks), "two each")
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        assert hub._patch_watchers == {}

    asyncio.run(scenario())
    assert sinks[0].wire == sinks[1].wire
    assert sinks[0].body().startswith(FIRST + b"event: standings\nid: 1\ndata: " + doc1)
    assert (
        sinks[0]
        .body()
        .endswith(
            b'event: patch\nid: 2\ndata: {"as_of_seq":2,"base_seq":1,"ops":[{"op":"replace",'
            b'"path":"/as_of_seq","value":2},{"op":"replace","path":"/rows/2","value":4}],'
            b'"projection":null,"tournament_id":null,"version":null}\n\n'
        )
    )


def test_a_server_other_than_uvicorn_httptools_gets_no_direct_writer() -> None:
    # Given the `send` of another server (here a plain coroutine function, as Starlette's
    # test client or h11 hand over), the stream goes through `send` (routes.deliver_stream)
    async def send(message: dict[str, object]) -> None:
        pass

    class Cycle:  # a look-alike from elsewhere
        transport = flow = scope = None
        disconnected = False

        async def send(self, message: dict[str, object]) -> None:
            pass

    assert direct_sink(send) is None
    assert direct_sink(Cycle().send) is None
