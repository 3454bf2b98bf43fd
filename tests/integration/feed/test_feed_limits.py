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
from services.feed import routes, sse
from services.feed.hub import HISTORY_PER_TOURNAMENT, FeedHub
from services.projection.projector import Message

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


@pytest.mark.slow
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
    assert routes.bounded(small, 10) == small  # as many as there are projections: as is
    many = [_m(s, name, 100) for s in range(1, 50) for name in ("standings", "tiebreaks")]
    assert routes.bounded(many, 1 << 20) == many  # under the bound: every version
    latest = routes.bounded(many, 1_000)
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


@pytest.mark.parametrize("freeze", [False, True])
def test_a_server_runner_freezes_the_folded_heap_once_caught_up(
    tmp_path: Path, freeze: bool
) -> None:
    """`arbiter serve`'s runner (`freeze_heap=True`) moves what the start-up fold built out of
    the cyclic collector's sight once, when it has caught up; any other runner leaves the
    heap alone (a test process, for one)."""
    import gc

    from services.eventlog.sqlite import SQLiteEventLog
    from services.projection.embedded import EmbeddedRunner

    gc.unfreeze()
    runner = EmbeddedRunner(SQLiteEventLog(tmp_path / "events.sqlite3"), freeze_heap=freeze)
    runner.start()
    try:
        assert runner.hub.caught_up.wait(10)
        assert (gc.get_freeze_count() > 0) is freeze
    finally:
        runner.stop()
        gc.unfreeze()


def test_serve_and_the_api_root_ask_for_the_freeze() -> None:
    import ast
    import inspect

    from services.cli import server

    source = inspect.getsource(server.serve)
    assert "api.state.feed.freeze_heap = True" in source
    root = Path(routes.__file__).resolve().parents[1] / "api" / "main.py"
    assert "app.state.feed.freeze_heap = True" in ast.unparse(ast.parse(root.read_text()))
