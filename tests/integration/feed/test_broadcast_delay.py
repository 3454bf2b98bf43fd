"""The broadcast delay seen through two tokens (issue 25 items 3 and 6): an API served in this
process (uvicorn in a thread) with a clock the test moves by hand (no sleeping for the
delay). A broadcaster sees the state of N seconds ago, an arbiter the live state, on
snapshots, on the SSE stream, on a game's record and on the raw events; the broadcaster's
snapshot is byte for byte the auditor's replay of the log up to that time
(services/audit/replay.py); `POST /tournaments/{id}/delay` and `arbiter delay` change it and
the change takes effect; 0 is live."""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from bench.feed import SseEvent, SseReader
from tests_support import ThreadServer, cmd
from typer.testing import CliRunner

from events_schema import Envelope
from services.audit.replay import Point, replay_to, resolve_point
from services.cli.main import app as cli
from services.config import FeedSettings
from services.eventlog.sqlite import SQLiteEventLog

TID = "delay-2026"
DELAY = 60
SETUP = {
    "commands": [
        cmd("TournamentCreated", name="Delay Open", format="swiss", rounds=3),
        cmd("PlayerRegistered", player_id="a", name="Alice"),
        cmd("PlayerRegistered", player_id="b", name="Bob"),
        cmd("PlayerRegistered", player_id="c", name="Carol"),
        cmd("PlayerRegistered", player_id="d", name="Dan"),
        cmd(
            "RoundScheduled",
            round=1,
            pairings=[
                {"game_id": "g1", "white": "a", "black": "b"},
                {"game_id": "g2", "white": "c", "black": "d"},
            ],
        ),
    ]
}


@dataclass
class Clock:
    now: datetime

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Api:
    url: str
    clock: Clock
    log: SQLiteEventLog
    db: Path
    tokens: dict[str, str]
    app: Any

    def headers(self, who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[who]}"}

    def post(self, who: str, path: str, body: dict[str, Any]) -> httpx.Response:
        return httpx.post(
            f"{self.url}/tournaments/{TID}/{path}", json=body, headers=self.headers(who)
        )

    def get(self, who: str, path: str) -> httpx.Response:
        return httpx.get(f"{self.url}/tournaments/{TID}/{path}", headers=self.headers(who))

    def envelopes(self) -> list[Envelope]:
        return list(self.log.read(TID, 1))

    def result(self, game_id: str, res: str) -> Envelope:
        how = "agreement" if res == "1/2-1/2" else "resignation"
        r = self.post(
            "arbiter", "commands", cmd("GameEnded", game_id=game_id, result=res, termination=how)
        )
        assert r.status_code == 201, r.text
        return self.envelopes()[-1]

    def live_seq(self, name: str = "standings", at_least: int = 0) -> dict[str, Any]:
        """The arbiter's (live) snapshot once the live feed has folded `at_least`."""
        deadline = time.monotonic() + 10
        while True:
            r = self.get("arbiter", f"projections/{name}")
            if r.status_code == 200 and r.json()["as_of_seq"] >= at_least:
                return r.json()
            assert time.monotonic() < deadline, r.text
            time.sleep(0.02)


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    clock = Clock(datetime.now().astimezone())
    settings = FeedSettings(keepalive=0.2, reauth=60.0, delay_tick=0.05)
    with ThreadServer(tmp_path, feed=settings, clock=clock) as srv:
        tokens = {
            "admin": srv.token("admin", "chief"),
            "arbiter": srv.token("arbiter", "ref-1", [TID]),
            "broadcaster": srv.token("broadcaster", "tv"),
            "auditor": srv.token("auditor", "audit"),
        }
        api = Api(srv.url, clock, srv.log, tmp_path / "events.sqlite3", tokens, srv.app)
        r = api.post("admin", "commands", SETUP)
        assert r.status_code == 201, r.text
        yield api


def _between(a: Envelope, b: Envelope, delay: int) -> datetime:
    """A now whose now − delay falls after `a` was recorded and before `b` was."""
    assert a.recorded_at < b.recorded_at
    return a.recorded_at + (b.recorded_at - a.recorded_at) / 2 + timedelta(seconds=delay)


def _replayed(api: Api, name: str, delay: int) -> tuple[int, bytes]:
    """The auditor's replay of the log up to now − delay: its seq and the projection."""
    envs = api.envelopes()
    seq = resolve_point(Point("time", time=api.clock.now - timedelta(seconds=delay)), envs).seq
    return seq, replay_to(envs, TID, seq)[name]


def test_a_broadcaster_sees_n_seconds_ago_and_an_arbiter_live_on_snapshots(api: Api):
    r = api.post("arbiter", "delay", {"seconds": DELAY, "reason": "anti-cheating"})
    assert r.status_code == 201, r.text
    assert r.json()["event"]["type"] == "BroadcastDelaySet" and r.json()["event"]["seq"] == 7
    first = api.result("g1", "1-0")  # seq 8
    second = api.result("g2", "0-1")  # seq 9
    live = api.live_seq(at_least=9)
    assert live["as_of_seq"] == 9  # the arbiter: live

    api.clock.now = _between(first, second, DELAY)  # g1's result is 60 s old, g2's is not
    r = api.get("broadcaster", "projections/standings")
    assert r.status_code == 200, r.text
    assert r.headers["Arbiter-Delay"] == str(DELAY) and r.headers["ETag"] == '"8"'
    seq, replayed = _replayed(api, "standings", DELAY)
    assert seq == 8 and r.content == replayed  # byte for byte the auditor's replay
    games = api.get("broadcaster", "projections/games").json()["data"]["pairings"]
    assert [g["result"] for g in games] == ["1-0", None]
    for who in ("arbiter", "auditor", "admin"):  # everyone else: live
        games = api.get(who, "projections/games").json()["data"]["pairings"]
        assert [g["result"] for g in games] == ["1-0", "0-1"], who
    # the raw events and the feed status stop at the same seq for the broadcaster
    events = api.get("broadcaster", "events").json()["events"]
    assert [e["seq"] for e in events][-1] == 8
    assert len(api.get("auditor", "events").json()["events"]) == 9
    status = api.get("broadcaster", "feed-status").json()
    assert max(status["projections"].values()) == 8

    api.clock.now = second.recorded_at + timedelta(seconds=DELAY)  # now g2's is 60 s old
    r = api.get("broadcaster", "projections/standings")
    seq, replayed = _replayed(api, "standings", DELAY)
    assert seq == 9 and r.content == replayed


def test_changing_the_delay_takes_effect_and_0_is_live(api: Api):
    assert api.post("arbiter", "delay", {"seconds": 3_600, "reason": "final"}).status_code == 201
    api.result("g1", "1/2-1/2")  # seq 8
    api.clock.now = datetime.now().astimezone() + timedelta(seconds=1)
    r = api.get("broadcaster", "projections/games")
    assert r.status_code == 404 and r.json()["error"]["rule"] == "feed.not_found"  # an hour ago
    # `arbiter delay` on the same log (the server's process reads it at once)
    res = CliRunner().invoke(
        cli, ["delay", TID, "0", "--reason", "round over", "--db", str(api.db)]
    )
    assert res.exit_code == 0, res.output
    assert "live" in res.output
    api.clock.now = datetime.now().astimezone() + timedelta(seconds=1)
    mine = api.get("broadcaster", "projections/games")
    assert mine.status_code == 200 and mine.headers["Arbiter-Delay"] == "0"
    live = api.live_seq("games", at_least=8)
    assert mine.json()["as_of_seq"] == 9  # the whole log, the delay's own event included
    assert mine.json()["data"] == live["data"]  # 0: what the arbiter sees
    # a broadcaster may not set it; a delay out of range is refused naming the field
    assert api.post("broadcaster", "delay", {"seconds": 5}).status_code == 403
    r = api.post("arbiter", "delay", {"seconds": 86_401})
    assert r.status_code == 422 and r.json()["error"]["field"].endswith("seconds")
    r = api.post("arbiter", "delay", {"seconds": 0})
    assert r.status_code == 422 and r.json()["error"]["rule"] == "delay.unchanged"


def _drain(reader: SseReader) -> list[SseEvent]:
    out = []
    while True:
        try:
            out.append(reader.events.get_nowait())
        except queue.Empty:
            return out


def _until_seq(reader: SseReader, seq: int, timeout: float = 10) -> list[SseEvent]:
    """Events until the games document of `seq` (or later) arrived."""
    out: list[SseEvent] = []
    deadline = time.monotonic() + timeout
    while not any(e.event == "games" and e.data["as_of_seq"] >= seq for e in out):
        left = deadline - time.monotonic()
        seen = [(e.event, e.data.get("as_of_seq")) for e in out]
        assert left > 0, f"seq {seq} not delivered: {seen}"
        try:
            out.append(reader.events.get(timeout=min(left, 0.5)))
        except queue.Empty:
            continue
    return out


def test_the_stream_of_a_broadcaster_is_delayed_and_an_arbiter_s_is_live(api: Api):
    assert api.post("arbiter", "delay", {"seconds": DELAY}).status_code == 201  # seq 7
    api.clock.now = api.envelopes()[-1].recorded_at + timedelta(seconds=DELAY)  # 1-7 out
    url = f"{api.url}/tournaments/{TID}/stream"
    with (
        SseReader(url, api.headers("broadcaster")) as tv,
        SseReader(url, api.headers("arbiter")) as ref,
    ):
        _until_seq(tv, 6)  # the games document last changed at seq 6
        _until_seq(ref, 6)
        first = api.result("g1", "1-0")  # seq 8
        second = api.result("g2", "0-1")  # seq 9
        live = _until_seq(ref, 9)  # the arbiter: at once
        assert any(e.event == "games" and e.data["as_of_seq"] == 9 for e in live)
        # the broadcaster: nothing of 8 or 9 while they are younger than the delay
        api.app.state.feed.delayed.release()
        assert api.app.state.feed.delayed.seq(TID) == 7
        assert all(e.data.get("as_of_seq", 0) <= 7 for e in _drain(tv))
        api.clock.now = _between(first, second, DELAY)
        api.app.state.feed.delayed.nudge()  # the timer would find it due on its own
        got = _until_seq(tv, 8)
        assert max(e.data["as_of_seq"] for e in got) == 8
        games = [e for e in got if e.event == "games"][-1].data["data"]["pairings"]
        assert [g["result"] for g in games] == ["1-0", None]
        seq, replayed = _replayed(api, "games", DELAY)
        assert seq == 8
        assert [e for e in got if e.event == "games"][-1].data == httpx.Response(
            200, content=replayed
        ).json()
        api.clock.now = second.recorded_at + timedelta(seconds=DELAY)
        api.app.state.feed.delayed.nudge()
        got = _until_seq(tv, 9)
        games = [e for e in got if e.event == "games"][-1].data["data"]["pairings"]
        assert [g["result"] for g in games] == ["1-0", "0-1"]


def test_the_live_page_and_a_game_record_of_a_broadcaster_are_delayed(api: Api):
    assert api.post("arbiter", "delay", {"seconds": DELAY}).status_code == 201  # seq 7
    r = api.post(
        "arbiter", "commands", cmd("MovePlayed", game_id="g1", ply=1, colour="white", uci="e2e4")
    )
    assert r.status_code == 201, r.text
    move = api.envelopes()[-1]  # seq 8
    api.clock.now = move.recorded_at + timedelta(seconds=DELAY) - timedelta(milliseconds=1)
    page = api.get("broadcaster", "live")
    assert page.status_code == 200 and '"as_of_seq":8' not in page.text
    assert '"as_of_seq":7' in page.text or '"as_of_seq":6' in page.text
    assert api.get("broadcaster", "games/g1").json()["moves"] == []
    assert len(api.get("arbiter", "games/g1").json()["moves"]) == 1
    api.clock.now = move.recorded_at + timedelta(seconds=DELAY)
    assert len(api.get("broadcaster", "games/g1").json()["moves"]) == 1
