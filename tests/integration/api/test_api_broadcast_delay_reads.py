"""The broadcast delay on every reader route a broadcaster can call (services/api/delayed.py),
seen through two tokens: after a result and a withdrawal still under a 60 s delay, the
broadcaster's rounds, board view, entry list, schedule, TRF export, checkpoints and events are
byte for byte what the arbiter read before them (the state the delay shows), marked
`Arbiter-Delay: 60`; the arbiter reads them live. Nothing old enough yet: 404
`broadcast.delayed`. The clock is the test's (create_app's `clock`), moved by hand."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from services.api.app import create_app
from services.commands.auth import TokenStore
from services.config import FeedSettings, Settings
from services.eventlog.sqlite import SQLiteEventLog

TID = "open"
CSV = (
    "name;rating\nCarlsen, Magnus;2830\nAnand, Viswanathan;2750\nPolgar, Judit;2700\n"
    "Doe, Jane;1850\n"
)
# Every GET route of services/api/ a broadcaster may call about one tournament (the feed's
# own routes are tests/integration/feed/test_broadcast_delay.py's).
ROUTES = (
    "rounds",
    "rounds/1",
    "players",
    "schedule",
    "trf",
    "checkpoints",
    "events",
)


@dataclass
class Clock:
    now: datetime

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Env:
    client: TestClient
    log: SQLiteEventLog
    clock: Clock
    tokens: dict[str, str]

    def get(self, who: str, path: str):  # type: ignore[no-untyped-def]
        auth = {"Authorization": f"Bearer {self.tokens[who]}"}
        return self.client.get(f"/tournaments/{TID}/{path}", headers=auth)

    def post(self, who: str, path: str, **kw):  # type: ignore[no-untyped-def]
        auth = {"Authorization": f"Bearer {self.tokens[who]}", **kw.pop("headers", {})}
        r = self.client.post(f"/tournaments/{TID}/{path}", headers=auth, **kw)
        assert r.status_code in (200, 201), r.text
        return r


@pytest.fixture
def env(tmp_path: Path) -> Iterator[Env]:
    log = SQLiteEventLog(tmp_path / "events.sqlite3")
    store = TokenStore(tmp_path / "tokens.sqlite3")
    tokens = {
        "admin": store.create("admin", "chief")[0],
        "arbiter": store.create("arbiter", "ref-1", [TID])[0],
        "broadcaster": store.create("broadcaster", "tv")[0],
    }
    clock = Clock(datetime.now().astimezone())
    app = create_app(
        log,
        store,
        feed=FeedSettings(delay_tick=0),  # released on each read, no timer
        settings=Settings(data_dir=tmp_path),
        clock=clock,
    )
    yield Env(TestClient(app), log, clock, tokens)
    store.close()
    log.close()


def _setup(env: Env) -> None:
    create = {"name": "Club Open", "format": "swiss", "rounds": 5}
    env.post("arbiter", "create", json=create)
    env.post("arbiter", "players", content=CSV.encode(), headers={"Content-Type": "text/csv"})
    env.post("arbiter", "pair", json={})
    env.post("arbiter", "delay", json={"seconds": 60, "reason": "anti-cheating"})
    env.post("admin", "checkpoints")


def test_a_broadcaster_reads_every_route_as_of_the_delay_an_arbiter_live(env: Env):
    _setup(env)
    before = {path: env.get("arbiter", path) for path in ROUTES}
    for path, r in before.items():
        assert r.status_code == 200, (path, r.text)
    last_before = env.log.last_seq(TID)
    # Under the delay: a result, a withdrawal, and a checkpoint that signs them.
    env.post("arbiter", "rounds/1/boards/1/result", json={"result": "1-0"})
    env.post("arbiter", "players/4/withdraw", json={"reason": "ill"})
    env.post("admin", "checkpoints")
    envs = list(env.log.read(TID, 1))
    a, b = envs[last_before - 1], envs[last_before]
    # now − 60 s falls between the last event before and the result
    env.clock.now = a.recorded_at + (b.recorded_at - a.recorded_at) / 2 + timedelta(seconds=60)

    for path in ROUTES:
        tv, live = env.get("broadcaster", path), env.get("arbiter", path)
        assert tv.status_code == live.status_code == 200, (path, tv.text, live.text)
        assert tv.headers["Arbiter-Delay"] == "60", path
        assert "Arbiter-Delay" not in live.headers, path
        assert tv.content == before[path].content, path  # the state the delay shows
    # ... and the arbiter's are live: the result, the withdrawal, the second checkpoint.
    board = env.get("arbiter", "rounds/1").json()["boards"][0]
    assert board["result"] == "1-0"
    assert env.get("broadcaster", "rounds/1").json()["boards"][0]["result"] is None
    statuses = [p["status"] for p in env.get("arbiter", "players").json()["players"]]
    assert "withdrawn" in " ".join(map(str, statuses))
    assert env.get("arbiter", "checkpoints").json()["count"] == 2
    assert env.get("broadcaster", "checkpoints").json()["count"] == 1
    tv_latest = env.get("broadcaster", "checkpoints/latest").json()
    assert tv_latest["checkpoint"]["seq"] <= last_before
    assert env.get("broadcaster", "trf").text != env.get("arbiter", "trf").text

    # Once the events are 60 s old, the broadcaster reads them too.
    env.clock.now = envs[-1].recorded_at + timedelta(seconds=61)
    for path in ROUTES:
        assert env.get("broadcaster", path).content == env.get("arbiter", path).content, path


def test_nothing_old_enough_yet_is_a_404_naming_the_delay(env: Env):
    _setup(env)
    env.clock.now = next(iter(env.log.read(TID, 1))).recorded_at - timedelta(seconds=1)
    for path in ROUTES[:-1]:  # the raw events are an empty list instead
        r = env.get("broadcaster", path)
        assert r.status_code == 404, (path, r.text)
        err = r.json()["error"]
        assert err["rule"] == "broadcast.delayed" and "60 s ago" in err["message"], err
        assert env.get("arbiter", path).status_code == 200, path
    assert env.get("broadcaster", "events").json()["count"] == 0
