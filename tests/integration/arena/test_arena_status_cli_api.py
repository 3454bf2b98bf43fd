"""The arena's status for a person (issue 25): after `arbiter arena` played a TCEC league's
round with a crashing engine, `arbiter arena-status` names each game's state and ending with
its rule (the crash by TCEC Leagues 14.2, with the exit code and stderr seen) and the run
limit; `--json` is byte for byte the body of `GET /tournaments/{id}/arena`, which any reader
may call and a broadcaster reads as of the broadcast delay (two tokens, the test's clock)."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests_support import append_events, cli_db, cli_ok, cli_run, cli_words

from events_schema import Recorded
from events_schema import events as ev
from projections.arena import arena_status
from services.api.app import create_app
from services.commands.auth import TokenStore
from services.config import FeedSettings, Settings
from services.eventlog.sqlite import SQLiteEventLog

ENGINE = Path(__file__).resolve().parents[2] / "engines" / "uci_engine.py"
T = "arena-status"


@dataclass
class Clock:
    now: datetime

    def __call__(self) -> datetime:
        return self.now


def _played(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    db = cli_db(tmp_path, monkeypatch)
    created = ev.TournamentCreated(
        name="Arena Status", format="round_robin", rules_preset="tcec-league"
    )
    players = [
        ev.PlayerRegistered(player_id=p, name=p.title(), kind="engine") for p in ("good", "crasher")
    ]
    append_events(db, T, created, *players)
    cli_ok(
        "arena",
        T,
        "--engine",
        f"good={sys.executable} {ENGINE} random",
        "--engine",
        f"crasher={sys.executable} {ENGINE} crash 2",
        "--nodes",
        "10",
    )
    return db


def test_arena_status_names_each_ending_its_rule_the_crash_seen_and_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _played(tmp_path, monkeypatch)
    words = cli_words("arena-status", T)
    assert "1 finished" in words
    assert "engine crash (tcec-rules Leagues 14.2)" in words
    assert "Crasher's engine crashed at ply" in words and "exit code 3" in words
    assert "limit in force:" in words and "10 nodes a move" in words
    status = json.loads(cli_ok("arena-status", T, "--json"))
    (game,) = status["games"]
    assert game["state"] == "finished" and game["rule"] == "tcec-rules Leagues 14.2"
    assert game["plies"] >= 1 and game["crashes"][0]["player_id"] == "crasher"
    assert status["limits"]["in_force"]["decision"] == {"nodes": 10}
    # as it was before the game started: pending
    scheduled = status["seq"] - game["plies"] - 3  # the start, the crash and its ending
    early = json.loads(cli_ok("arena-status", T, "--json", "--at", str(scheduled)))
    assert early["games"][0]["state"] == "pending", early
    assert "arena.unknown_tournament" in cli_run("arena-status", "nope", code=1)


def test_get_arena_is_the_same_json_for_readers_and_delayed_for_a_broadcaster(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = _played(tmp_path, monkeypatch)
    cli_body = json.loads(cli_ok("arena-status", T, "--json"))
    log = SQLiteEventLog(db)
    store = TokenStore(tmp_path / "tokens.sqlite3")
    tokens = {
        "admin": store.create("admin", "chief")[0],
        "arbiter": store.create("arbiter", "ref-1", [T])[0],
        "other": store.create("arbiter", "ref-2", ["elsewhere"])[0],
        "broadcaster": store.create("broadcaster", "tv")[0],
    }
    clock = Clock(datetime.now().astimezone())
    app = create_app(
        log,
        store,
        feed=FeedSettings(delay_tick=0),
        settings=Settings(data_dir=tmp_path),
        clock=clock,
    )
    try:
        client = TestClient(app)

        def get(who: str, tid: str = T):  # type: ignore[no-untyped-def]
            auth = {"Authorization": f"Bearer {tokens[who]}"}
            return client.get(f"/tournaments/{tid}/arena", headers=auth)

        live = get("arbiter")
        assert live.status_code == 200 and live.json() == cli_body
        assert get("other").status_code == 403
        assert client.get(f"/tournaments/{T}/arena").status_code == 401
        assert get("admin", "nope").json()["error"]["rule"] == "arena.unknown_tournament"

        r = client.post(
            f"/tournaments/{T}/delay",
            json={"seconds": 60, "reason": "anti-cheating"},
            headers={"Authorization": f"Bearer {tokens['arbiter']}"},
        )
        assert r.status_code == 201, r.text
        # nothing 60 s old yet
        assert get("broadcaster").json()["error"]["rule"] == "broadcast.delayed"
        envs = list(log.read(T, 1))
        moves = [e for e in envs if e.type == "MovePlayed"]
        first = moves[0]
        after = envs[first.seq]  # the event after the first move
        # now − 60 s falls between the first move and the event after it
        clock.now = first.recorded_at + (after.recorded_at - first.recorded_at) / 2
        clock.now += timedelta(seconds=60)
        tv = get("broadcaster")
        assert tv.status_code == 200 and tv.headers["Arbiter-Delay"] == "60"
        expected = arena_status([Recorded.of(e) for e in envs[: first.seq]])
        assert tv.json() == json.loads(json.dumps(expected))
        (game,) = tv.json()["games"]
        assert game["state"] == "playing" and game["plies"] == 1  # the crash is not seen yet
        assert get("arbiter").json()["games"][0]["state"] == "finished"  # live
    finally:
        store.close()
        log.close()
