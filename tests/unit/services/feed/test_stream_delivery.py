"""One connection's stream as `services.feed.routes.deliver_stream` writes it (the raw ASGI path of
issue 27, item 4): the first chunk (retry, `: connected`, the snapshot above Last-Event-ID),
the live changes, a hold and its release, and the end on a revoked token, byte for byte."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from services.commands.auth import Principal
from services.feed.hub import FeedHub
from services.feed.routes import SharedAuth, deliver_stream
from services.projection.projector import Message

HELD = {"reason": "unreadable_event", "seq": 3, "event_id": "e3"}


async def _until(chunks: list[bytes], n: int) -> None:
    for _ in range(2000):
        if len(chunks) >= n:
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"{len(chunks)} chunks, expected {n}: {chunks}")


def test_a_stream_sends_snapshot_changes_holds_and_ends_when_revoked() -> None:
    hub = FeedHub()
    hub.publish([Message("t1", "standings", 1, b"{1}"), Message("t1", "standings", 2, b"{2}")])
    allowed = [True]
    chunks: list[bytes] = []

    async def emit(chunk: bytes) -> None:
        if chunk != b": keep-alive\n\n":  # a quiet re-authentication sends one
            chunks.append(chunk)

    async def scenario() -> None:
        # Given a connection resumed at Last-Event-ID 1, re-authenticated every 50 ms
        task = asyncio.ensure_future(
            deliver_stream(emit, hub, "t1", 1, 3600.0, lambda: allowed[0], 0.05, 1 << 20)
        )
        await _until(chunks, 1)
        # When a change is published, the tournament is held, released, and the token revoked
        hub.publish([Message("t1", "standings", 3, b"{3}")])
        await _until(chunks, 2)
        hub.set_held({"t1": HELD})
        await _until(chunks, 3)
        hub.set_held({})
        await _until(chunks, 4)
        allowed[0] = False  # seen at the next re-authentication
        await asyncio.wait_for(task, 10)

    asyncio.run(scenario())
    # Then each goes out as its own frame, and the stream ends after `revoked`
    assert chunks == [
        b"retry: 2000\n: connected\n\nevent: standings\nid: 2\ndata: {2}\n\n",
        b"event: standings\nid: 3\ndata: {3}\n\n",
        b'event: held\ndata: {"reason":"unreadable_event","seq":3,"event_id":"e3"}\n\n',
        b"event: held\ndata: null\n\n",
        b"event: revoked\ndata: {}\n\n",
    ]


def _ids(stream: bytes) -> list[int]:
    return [int(line[4:]) for line in stream.split(b"\n") if line.startswith(b"id: ")]


def test_a_connection_behind_gets_its_pending_frames_in_one_chunk_byte_equal_and_resumable() -> (
    None
):
    hub = FeedHub()
    hub.publish([Message("t1", "standings", 1, b"{s1}")])
    later = [
        [Message("t1", "standings", 2, b"{s2}")],
        [Message("t1", "games", 3, b"{g3}")],
        [Message("t1", "standings", 4, b"{s4}"), Message("t1", "tiebreaks", 4, b"{t4}")],
        [Message("t1", "games", 5, b"{g5}")],
    ]
    keeping_up: list[bytes] = []
    behind: list[bytes] = []
    blocked = asyncio.Event()
    unblock = asyncio.Event()

    async def emit_up(chunk: bytes) -> None:
        keeping_up.append(chunk)

    async def emit_behind(chunk: bytes) -> None:
        # Given a reader whose socket stops taking bytes after its first chunk (the server's
        # `send` waits while the client does not read)
        behind.append(chunk)
        if len(behind) == 1:
            blocked.set()
            await unblock.wait()

    async def scenario() -> None:
        up = asyncio.ensure_future(
            deliver_stream(emit_up, hub, "t1", 0, 3600.0, lambda: True, 3600.0, 1 << 20)
        )
        slow = asyncio.ensure_future(
            deliver_stream(emit_behind, hub, "t1", 0, 3600.0, lambda: True, 3600.0, 1 << 20)
        )
        await _until(keeping_up, 1)
        await asyncio.wait_for(blocked.wait(), 10)
        # When four publications go out, the reader that keeps up taking each as it comes
        for i, batch in enumerate(later):
            hub.publish(batch)
            await _until(keeping_up, i + 2)
        # and the slow reader's socket drains only then
        unblock.set()
        await _until(behind, 2)
        await asyncio.sleep(0.05)  # nothing more is pending for it
        for t in (up, slow):
            t.cancel()
        await asyncio.gather(up, slow, return_exceptions=True)

    asyncio.run(scenario())
    # Then the slow reader gets everything it lacked as one chunk (one ASGI message), the
    # same bytes in the same order as the reader that got one chunk per publication
    assert len(keeping_up) == 1 + len(later)
    assert len(behind) == 2
    assert b"".join(behind) == b"".join(keeping_up)
    assert behind[1] == (
        b"event: standings\nid: 2\ndata: {s2}\n\n"
        b"event: games\nid: 3\ndata: {g3}\n\n"
        b"event: standings\ndata: {s4}\n\n"  # no id before the last event of seq 4
        b"event: tiebreaks\nid: 4\ndata: {t4}\n\n"
        b"event: games\nid: 5\ndata: {g5}\n\n"
    )
    assert _ids(behind[1]) == [2, 3, 4, 5]

    # And a reader resuming from an id inside that chunk (Last-Event-ID 3) gets the latest
    # version of each projection above it, once, and nothing at or below it
    resumed: list[bytes] = []

    async def emit_resumed(chunk: bytes) -> None:
        resumed.append(chunk)

    async def resume() -> None:
        task = asyncio.ensure_future(
            deliver_stream(emit_resumed, hub, "t1", 3, 3600.0, lambda: True, 3600.0, 1 << 20)
        )
        await _until(resumed, 1)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    asyncio.run(resume())
    assert resumed == [
        b"retry: 2000\n: connected\n\n"
        b"event: standings\ndata: {s4}\n\n"
        b"event: tiebreaks\nid: 4\ndata: {t4}\n\n"
        b"event: games\nid: 5\ndata: {g5}\n\n"
    ]


def test_connections_of_one_token_share_each_re_check_and_all_end_when_it_is_revoked() -> None:
    hub = FeedHub()
    hub.publish([Message("t1", "standings", 1, b"{1}")])
    revoked = [False]
    checks: list[int] = []  # the period of each token look-up
    every = 0.05

    def authenticate(token: str | None) -> Principal | None:
        checks.append(int(time.monotonic() // every))
        return None if revoked[0] else Principal("tok", "b", "broadcaster", None)

    auth = SharedAuth(authenticate, every)
    streams: list[list[bytes]] = [[] for _ in range(3)]

    def emitter(chunks: list[bytes]) -> Callable[[bytes], Awaitable[None]]:
        async def emit(chunk: bytes) -> None:
            chunks.append(chunk)

        return emit

    async def scenario() -> None:
        async def still_allowed() -> bool:
            who = await auth.principal("arb_tok_secret")
            return who is not None and who.may_read("t1")

        # Given three connections behind one token, re-checked every 50 ms
        tasks = [
            asyncio.ensure_future(
                deliver_stream(emitter(c), hub, "t1", 0, 3600.0, still_allowed, every, 1 << 20)
            )
            for c in streams
        ]
        for _ in range(2000):
            if len(checks) >= 4:
                break
            await asyncio.sleep(0.005)
        # When the token is revoked
        revoked[0] = True
        await asyncio.wait_for(asyncio.gather(*tasks), 10)

    asyncio.run(scenario())
    # Then each period saw one look-up for the three of them, not one per connection
    # (counted over the periods spanned, one spare: a look-up may run in its worker thread
    # just after its period ended)
    assert len(checks) >= 4
    assert len(checks) <= max(checks) - min(checks) + 2
    # and every connection ended with `revoked`
    for chunks in streams:
        assert chunks[-1] == b"event: revoked\ndata: {}\n\n"


def test_readers_at_one_cursor_share_the_answer_of_since_until_the_next_publish() -> None:
    hub = FeedHub()
    hub.publish([Message("t1", "standings", 1, b"{1}")])
    _, cursor = hub.snapshot("t1")
    hub.publish([Message("t1", "standings", 2, b"{2}")])
    # Given two readers at the same cursor after a publish
    first, after = hub.since("t1", cursor)
    second, again = hub.since("t1", cursor)
    # Then the second gets the first's answer (the same list)
    assert second is first and again == after
    assert [m.as_of_seq for m in first] == [2]
    # When another tournament publishes, and then this one
    hub.publish([Message("t2", "standings", 1, b"{x}")])
    assert hub.since("t1", cursor) == (first, after + 1)
    hub.publish([Message("t1", "games", 3, b"{g}")])
    # Then a reader at the old cursor gets every change since, not the kept answer
    changes, _ = hub.since("t1", cursor)
    assert [(m.projection, m.as_of_seq) for m in changes] == [("standings", 2), ("games", 3)]
    assert hub.since("t1", after + 2) == ([], after + 2)
