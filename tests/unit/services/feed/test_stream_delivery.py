"""One connection's stream as `services.feed.routes.deliver_stream` writes it (the raw ASGI path of
issue 27, item 4): the first chunk (retry, `: connected`, the snapshot above Last-Event-ID),
the live changes, a hold and its release, and the end on a revoked token, byte for byte."""

from __future__ import annotations

import asyncio

from services.feed.hub import FeedHub
from services.feed.routes import deliver_stream
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
