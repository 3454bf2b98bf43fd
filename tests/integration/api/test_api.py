"""The HTTP API end to end (FastAPI TestClient), on both event logs."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests_support import cmd

from services.api.app import create_app
from services.commands.auth import TokenStore


@pytest.fixture
def api(log_factory, tmp_path: Path):
    tokens = TokenStore(tmp_path / "tokens.sqlite3")
    log = log_factory()
    client = TestClient(create_app(log, tokens))
    t = {
        "admin": tokens.create("admin", "chief")[0],
        "arbiter": tokens.create("arbiter", "ref-1", ["open-2026"])[0],
        "broadcaster": tokens.create("broadcaster", "tv")[0],
        "auditor": tokens.create("auditor", "audit")[0],
    }
    return client, t, log


def H(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


SETUP = {
    "commands": [
        cmd("TournamentCreated", name="Open 2026", format="swiss", rounds=5),
        cmd("PlayerRegistered", player_id="a", name="A"),
        cmd("PlayerRegistered", player_id="b", name="B"),
        cmd(
            "RoundScheduled",
            round=1,
            pairings=[{"game_id": "g1", "white": "a", "black": "b"}],
        ),
    ]
}


def _setup(client, t):
    r = client.post("/tournaments/open-2026/commands", json=SETUP, headers=H(t["admin"]))
    assert r.status_code == 201, r.text
    return r.json()


def test_append_through_the_api_and_read_back_in_order(api):
    client, t, log = api
    body = _setup(client, t)
    assert [e["seq"] for e in body["events"]] == [1, 2, 3, 4]
    moves = ["e2e4", "c7c5", "g1f3", "d7d6"]
    for i, uci in enumerate(moves, start=1):
        r = client.post(
            "/tournaments/open-2026/commands",
            json=cmd(
                "MovePlayed", game_id="g1", ply=i, colour="white" if i % 2 else "black", uci=uci
            ),
            headers=H(t["arbiter"]),
        )
        assert r.status_code == 201, r.text
    r = client.post(
        "/tournaments/open-2026/commands",
        json=cmd("GameEnded", game_id="g1", result="1/2-1/2", termination="agreement"),
        headers=H(t["arbiter"]),
    )
    assert r.status_code == 201
    for reader in ("broadcaster", "auditor", "arbiter", "admin"):
        r = client.get("/tournaments/open-2026/events", headers=H(t[reader]))
        assert r.status_code == 200
        events = r.json()["events"]
        assert [e["seq"] for e in events] == list(range(1, 10))
        assert [e["payload"].get("san") for e in events[4:8]] == ["e4", "c5", "Nf3", "d6"]
        assert events[4]["actor"] == {"id": "ref-1", "role": "arbiter"}
    r = client.get("/tournaments/open-2026/events?from_seq=8", headers=H(t["auditor"]))
    assert [e["type"] for e in r.json()["events"]] == ["MovePlayed", "GameEnded"]
    assert log.last_seq("open-2026") == 9


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer nope"},
        {"Authorization": "Basic abc"},
        {"Authorization": "Bearer arb_000000000000_forged"},
    ],
)
def test_no_or_bad_token_gets_401_and_nothing(api, headers):
    client, _t, log = api
    r = client.post("/tournaments/open-2026/commands", json=SETUP, headers=headers)
    assert r.status_code == 401
    assert r.headers["www-authenticate"] == "Bearer"
    assert r.json()["error"]["rule"].startswith("auth.")
    assert client.get("/tournaments/open-2026/events", headers=headers).status_code == 401
    assert log.last_seq("open-2026") == 0


def test_wrong_role_or_tournament_gets_403_and_nothing(api):
    client, t, log = api
    _setup(client, t)
    one = cmd("GameEnded", game_id="g1", result="1-0", termination="resignation")
    for role in ("broadcaster", "auditor"):
        r = client.post("/tournaments/open-2026/commands", json=one, headers=H(t[role]))
        assert r.status_code == 403, role
    r = client.post("/tournaments/other/commands", json=SETUP, headers=H(t["arbiter"]))
    assert r.status_code == 403
    assert client.get("/tournaments/other/events", headers=H(t["arbiter"])).status_code == 403
    assert log.last_seq("open-2026") == 4 and log.last_seq("other") == 0


def test_corrections_are_for_admins_only(api):
    client, t, log = api
    _setup(client, t)
    r = client.post(
        "/tournaments/open-2026/commands",
        json=cmd("GameEnded", game_id="g1", result="1-0", termination="resignation"),
        headers=H(t["arbiter"]),
    )
    ended = r.json()["events"][0]["event_id"]
    fix = cmd(
        "ResultCorrected",
        corrects_event_id=ended,
        game_id="g1",
        result="0-1",
        termination="resignation",
        reason="colours were swapped on the scoresheet",
    )
    r = client.post("/tournaments/open-2026/commands", json=fix, headers=H(t["arbiter"]))
    assert r.status_code == 403
    assert r.json()["error"] == {
        "rule": "auth.admin_only",
        "field": "commands[0].type",
        "message": "only an admin may append ResultCorrected",
    }
    assert log.last_seq("open-2026") == 5
    r = client.post("/tournaments/open-2026/commands", json=fix, headers=H(t["admin"]))
    assert r.status_code == 201 and log.last_seq("open-2026") == 6


def test_bad_input_names_field_and_rule_and_changes_nothing(api):
    client, t, log = api
    _setup(client, t)
    cases = [
        (
            cmd("GameEnded", game_id="g1", result="2-0", termination="resignation"),
            "payload.invalid",
            "commands[0].payload.result",
        ),
        (
            cmd("GameEnded", game_id="g9", result="1-0", termination="resignation"),
            "game.unknown",
            "commands[0].payload.game_id",
        ),
        (cmd("NoSuchThing"), "command.unknown_type", "commands[0].type"),
        (
            cmd("MovePlayed", game_id="g1", ply=1, colour="black", uci="e7e5"),
            "move.out_of_turn",
            "commands[0].payload.colour",
        ),
        ({"commands": []}, "body.invalid", "commands"),
    ]
    for body, rule, field in cases:
        r = client.post("/tournaments/open-2026/commands", json=body, headers=H(t["admin"]))
        assert r.status_code == 422, (body, r.text)
        assert (r.json()["error"]["rule"], r.json()["error"]["field"]) == (rule, field)
    r = client.post("/tournaments/open-2026/commands", content=b"{not json", headers=H(t["admin"]))
    assert r.status_code == 422 and r.json()["error"]["rule"] == "body.not_json"
    r = client.post("/tournaments/bad%20id/commands", json=SETUP, headers=H(t["admin"]))
    assert r.status_code == 422 and r.json()["error"]["rule"] == "path.tournament_id"
    # A batch whose last command is refused appends none of it.
    batch = {
        "commands": [
            cmd("GameStarted", game_id="g1"),
            cmd("MovePlayed", game_id="g1", ply=1, colour="white", uci="e2e4"),
            cmd("MovePlayed", game_id="g1", ply=2, colour="black", uci="e7e4"),
        ]
    }
    r = client.post("/tournaments/open-2026/commands", json=batch, headers=H(t["admin"]))
    assert r.status_code == 422
    assert r.json()["error"]["field"] == "commands[2].payload.uci"
    assert log.last_seq("open-2026") == 4


def test_redelivered_command_is_accepted_once(api):
    client, t, log = api
    _setup(client, t)
    one = cmd(
        "GameEnded",
        event_id=str(uuid.uuid4()),
        game_id="g1",
        result="1-0",
        termination="time_forfeit",
    )
    first = client.post("/tournaments/open-2026/commands", json=one, headers=H(t["arbiter"]))
    again = client.post("/tournaments/open-2026/commands", json=one, headers=H(t["arbiter"]))
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["duplicate"] is True
    assert again.json()["events"] == first.json()["events"]
    assert log.last_seq("open-2026") == 5


def test_stale_expected_seq_is_a_409(api):
    client, t, _log = api
    _setup(client, t)
    body = {
        "commands": [cmd("GameEnded", game_id="g1", result="1-0", termination="resignation")],
        "expected_seq": 3,
    }
    r = client.post("/tournaments/open-2026/commands", json=body, headers=H(t["admin"]))
    assert r.status_code == 409
    assert r.json()["error"]["rule"] == "concurrency.expected_seq"
    body["expected_seq"] = 4
    r = client.post("/tournaments/open-2026/commands", json=body, headers=H(t["admin"]))
    assert r.status_code == 201


def test_tokens_are_stored_hashed(tmp_path: Path):
    store = TokenStore(tmp_path / "t.sqlite3")
    token, who = store.create("auditor", "aud")
    secret = token.split("_", 2)[2]
    raw = (tmp_path / "t.sqlite3").read_bytes() + (
        (tmp_path / "t.sqlite3-wal").read_bytes() if (tmp_path / "t.sqlite3-wal").exists() else b""
    )
    assert secret.encode() not in raw
    assert store.authenticate(token) == who
    assert store.revoke(who.token_id)
    assert store.authenticate(token) is None
    with pytest.raises(ValueError):
        store.create("arbiter", "x")  # an arbiter token must name its tournaments
