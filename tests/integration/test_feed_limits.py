"""The feed's bounds: the count of open streams (`ARBITER_MAX_SUBSCRIBERS`, 503 beyond it, the
slot given back when a stream ends) and what a slow reader is sent (a state transfer once it
fell behind by more than `ARBITER_FEED_MAX_BACKLOG` bytes), and the hub's live reads."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx
import pytest
from bench.feed import ApiServer, SseReader

from projections.documents import PROJECTIONS
from services.embedded import HISTORY_PER_TOURNAMENT, FeedHub
from services.feed import routes, sse
from services.projector import Message

TID = "limits-2026"


def _m(seq: int, name: str = "standings", size: int = 10) -> Message:
    return Message("t", name, seq, b'{"as_of_seq":%d,"pad":"%s"}' % (seq, b"x" * size))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    srv = ApiServer(
        Path(tmp_path_factory.mktemp("feed-limits")),
        keepalive=0.3,
        env={"ARBITER_MAX_SUBSCRIBERS": "2"},
    )
    token = srv.token("broadcaster", "tv")
    admin = srv.token("admin", "chief")
    with srv:
        body = {
            "commands": [{"type": "TournamentCreated", "payload": {"name": "L", "format": "swiss"}}]
        }
        r = httpx.post(
            f"{srv.url}/tournaments/{TID}/commands",
            json=body,
            headers={"Authorization": f"Bearer {admin}"},
        )
        assert r.status_code == 201, r.text
        yield srv, token


def test_open_streams_are_bounded_and_slots_come_back(server) -> None:
    srv, token = server
    url = f"{srv.url}/tournaments/{TID}/stream"
    headers = {"Authorization": f"Bearer {token}"}
    first = SseReader(url, headers).start()
    second = SseReader(url, headers).start()
    try:
        assert first.status == second.status == 200
        r = httpx.get(url, headers=headers, timeout=10)
        assert r.status_code == 503
        assert r.json()["error"]["rule"] == "feed.too_many_subscribers"
        assert "ARBITER_MAX_SUBSCRIBERS" in r.json()["error"]["message"]
        assert int(r.headers["Retry-After"]) > 0
        # Snapshots are not streams: they are still served.
        snap = httpx.get(f"{srv.url}/tournaments/{TID}/feed-status", headers=headers)
        assert snap.status_code == 200
    finally:
        first.close()
    # The reader drops its connection at the next keep-alive; the slot is then free.
    deadline = time.monotonic() + 15
    while True:
        third = SseReader(url, headers).start()
        third.close()
        if third.status == 200:
            break
        assert third.status == 503
        assert time.monotonic() < deadline, "the closed stream's slot did not come back"
        time.sleep(0.3)
    second.close()


def test_a_reader_far_behind_gets_the_latest_of_each_projection() -> None:
    small = [_m(3), _m(3, "tiebreaks"), _m(4), _m(5, "tiebreaks")]
    assert routes._bounded(small, 10) == small  # as many as there are projections: as is
    many = [_m(s, name, 100) for s in range(1, 50) for name in ("standings", "tiebreaks")]
    assert routes._bounded(many, 1 << 20) == many  # under the bound: every version
    latest = routes._bounded(many, 1_000)
    assert [(m.projection, m.as_of_seq) for m in latest] == [("standings", 49), ("tiebreaks", 49)]
    # What goes on the wire is what a state transfer sends: each once, ids in order.
    sent: dict[str, int] = {}
    frame = sse.frame(latest, sent, 0)
    assert frame.count(b"event: ") == 2 and frame.count(b"id: 49\n") == 1
    assert sent == {"standings": 49, "tiebreaks": 49}
    assert PROJECTIONS.index("standings") < PROJECTIONS.index("tiebreaks")


def test_hub_since_reads_only_what_is_new_and_falls_back_when_evicted() -> None:
    hub = FeedHub()
    hub.publish([_m(1)])
    _, cursor = hub.snapshot("t")
    hub.publish([_m(s) for s in range(2, 6)])
    changes, cursor2 = hub.since("t", cursor)
    assert [m.as_of_seq for m in changes] == [2, 3, 4, 5]
    assert hub.since("t", cursor2) == ([], cursor2)
    hub.publish([_m(s) for s in range(6, 6 + HISTORY_PER_TOURNAMENT + 1)])
    changes, _ = hub.since("t", cursor2)  # fell behind the history: the latest only
    assert [m.as_of_seq for m in changes] == [5 + HISTORY_PER_TOURNAMENT + 1]


def test_one_publish_wakes_every_watcher_of_the_tournament() -> None:
    async def main() -> list[bool]:
        hub = FeedHub()
        watchers = [hub.watch("t") for _ in range(50)]
        other = hub.watch("u")
        hub.publish([_m(1)])
        woken = await asyncio.gather(*(w.wait(2.0) for w in watchers))
        assert not await other.wait(0.05)
        for w in [*watchers, other]:
            w.close()
        assert hub._watchers == {}
        return list(woken)

    assert all(asyncio.run(main()))


def _ids(chunk: bytes) -> list[int]:
    """The SSE `id:` lines of a chunk, in order."""
    return [int(line[4:]) for line in chunk.split(b"\n") if line.startswith(b"id: ")]


def _stream_chunks(linger: float, publish_gap: float) -> list[bytes]:
    """The live chunks one stream (`routes._events`) yields while versions 2-7 are published,
    one every `publish_gap` seconds, the stream lingering `linger` seconds after each wake."""

    async def main() -> list[bytes]:
        hub = FeedHub()
        hub.publish([_m(1)])
        stream = routes._events(hub, "t", 0, keepalive=5.0, linger=lambda: linger)
        assert _ids(await anext(stream)) == [1]  # the state transfer on connect

        async def publish() -> None:
            for seq in range(2, 8):
                await asyncio.sleep(publish_gap)
                hub.publish([_m(seq)])

        task = asyncio.create_task(publish())
        chunks: list[bytes] = []
        while not chunks or _ids(chunks[-1])[-1:] != [7]:
            chunks.append(await asyncio.wait_for(anext(stream), 5))
        await task
        await stream.aclose()
        return chunks

    return asyncio.run(main())


def test_a_lingering_stream_sends_what_was_published_meanwhile_in_one_chunk() -> None:
    """Coalescing (`Feed.linger`): versions published while a woken stream lingers go out
    together, each once and in order; without a linger each goes out as it comes."""
    lingering = _stream_chunks(linger=0.3, publish_gap=0.01)
    assert [i for c in lingering for i in _ids(c)] == [2, 3, 4, 5, 6, 7]
    assert len(lingering) <= 2  # 6 publications 10 ms apart: one or two chunks
    eager = _stream_chunks(linger=0.0, publish_gap=0.05)
    assert [_ids(c) for c in eager] == [[2], [3], [4], [5], [6], [7]]


def test_the_linger_grows_with_the_open_streams_and_is_bounded(tmp_path: Path) -> None:
    from services.eventlog.sqlite import SQLiteEventLog

    feed = routes.Feed(SQLiteEventLog(str(tmp_path / "log.sqlite3")))  # not started
    feed.subscribers = 10
    assert feed.linger() == pytest.approx(10 * routes.LINGER_PER_SUBSCRIBER)  # 0.5 ms
    feed.subscribers = 1_000
    assert feed.linger() == routes.LINGER_MAX == 0.05
