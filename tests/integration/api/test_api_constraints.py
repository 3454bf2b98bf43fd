"""The pairing constraints over HTTP and on the command line (services/api/constraints.py,
services/cli/constraints.py): prohibitions and the acceleration through the command path,
refusals with their rule and field and nothing appended, 403 for a reader, and `arbiter pair`
honouring both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests_support import cli_db, cli_run, log_events

from services.api.app import create_app
from services.commands.auth import TokenStore

CREATE = {"name": "Club Open", "format": "swiss", "rounds": 5}
CSV = "".join(f"Player {c};{2500 - 10 * i}\n" for i, c in enumerate("ABCDEFGH"))


@pytest.fixture
def api(log_factory, tmp_path: Path):
    tokens = TokenStore(tmp_path / "tokens.sqlite3")
    log = log_factory()
    client = TestClient(create_app(log, tokens))
    t = {
        "arbiter": tokens.create("arbiter", "ref-1", ["open"])[0],
        "broadcaster": tokens.create("broadcaster", "tv")[0],
    }
    r = client.post("/tournaments/open/create", json=CREATE, headers=H(t["arbiter"]))
    assert r.status_code == 201, r.text
    r = client.post(
        "/tournaments/open/players",
        content=("name;rating\n" + CSV).encode(),
        headers=H(t["arbiter"], **{"Content-Type": "text/csv"}),
    )
    assert r.status_code == 201, r.text
    return client, t, log


def H(token: str, **more: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", **more}


def test_prohibitions_over_http(api):
    client, t, log = api
    url = "/tournaments/open/prohibitions"
    body = {"players": ["1", "player e"], "reason": "brothers"}
    assert client.post(url, json=body, headers=H(t["broadcaster"])).status_code == 403
    r = client.post(url, json=body, headers=H(t["arbiter"]))
    assert r.status_code == 201, r.text
    (event,) = r.json()["events"]
    assert event["type"] == "PairingsProhibited"
    assert event["payload"]["players"] == ["player-a", "player-e"]
    before = r.json()["last_seq"]
    r = client.post(url, json=body, headers=H(t["arbiter"]))
    assert r.status_code == 422
    assert r.json()["error"]["rule"] == "prohibition.unchanged"
    r = client.post(url, json={"players": ["1", "nobody"]}, headers=H(t["arbiter"]))
    assert (r.status_code, r.json()["error"]["rule"]) == (422, "player.unknown")
    r = client.post(url, json={"players": ["1", "2"], "last_round": 9}, headers=H(t["arbiter"]))
    assert r.json()["error"] == {
        "rule": "prohibition.round_beyond",
        "field": "commands[0].payload.last_round",
        "message": "the tournament has 5 rounds; round 9 is not one of them",
    }
    assert log.last_seq("open") == before  # nothing appended by the refusals


def test_acceleration_over_http(api):
    client, t, _log = api
    url = "/tournaments/open/acceleration"
    r = client.post(url, json={"method": "baku"}, headers=H(t["arbiter"]))
    assert r.status_code == 201, r.text
    payload = r.json()["events"][0]["payload"]
    # FIDE C.04.5.1: GA = 2 * ceil(8 / 4) = 4 players; 5 rounds: 3 accelerated, 2 at 1 point
    assert payload["method"] == "baku"
    assert {v["player_id"] for v in payload["values"]} == {
        "player-a",
        "player-b",
        "player-c",
        "player-d",
    }
    assert [(v["first_round"], v["last_round"], v["points"]) for v in payload["values"][:2]] == [
        (1, 2, 2),
        (3, 3, 1),
    ]
    values = [{"player": "1", "first_round": 1, "last_round": 2, "points": "½"}]
    r = client.post(url, json={"values": values}, headers=H(t["arbiter"]))
    assert r.status_code == 201, r.text
    assert r.json()["events"][0]["payload"]["values"] == [
        {"player_id": "player-a", "first_round": 1, "last_round": 2, "points": 1}
    ]
    bad = [{"player": "1", "first_round": 1, "points": "0.3"}]
    r = client.post(url, json={"values": bad}, headers=H(t["arbiter"]))
    assert (r.status_code, r.json()["error"]["rule"]) == (422, "acceleration.points")


def test_prohibit_and_accelerate_on_the_command_line_then_pair(tmp_path: Path, monkeypatch):
    db = cli_db(tmp_path, monkeypatch)
    monkeypatch.setenv("ARBITER_ACTOR", "ref")
    cli_run("create", "open", "--name", "Open", "--format", "swiss", "--rounds", "5")
    entries = tmp_path / "entries.csv"
    entries.write_text("name;rating\n" + CSV, encoding="utf-8")
    cli_run("register", "open", "--file", str(entries))
    text = cli_run("prohibit", "open", "1", "3", "--reason", "club mates")
    assert "PairingsProhibited player-a, player-c from round 1: club mates" in text
    assert "prohibition.duplicate_player" in cli_run("prohibit", "open", "1", "1", code=1)
    assert "AccelerationSet baku: 8 values for 4 players" in cli_run("accelerate", "open", "--baku")
    values = tmp_path / "acc.txt"
    values.write_text("# rounds points player\n1-2 1 Player H\n", encoding="utf-8")
    assert "acceleration.choose" in cli_run("accelerate", "open", code=1)
    cli_run("pair", "open")
    (rnd,) = [e for e in log_events(db, "open") if e.type == "RoundScheduled"]
    pairs = {(p["white"], p["black"]) for p in rnd.payload["pairings"]}
    # Baku: GA (A-D) among themselves; A-C (1-3) prohibited, so A meets another GA player.
    a_pair = next(p for p in pairs if "player-a" in p)
    assert set(a_pair) & {"player-b", "player-d"}
    assert not {("player-a", "player-c"), ("player-c", "player-a")} & pairs
    assert json.dumps(rnd.payload)  # stored
    text = cli_run("accelerate", "open", "--file", str(values))
    assert "AccelerationSet explicit: 1 values for 1 players" in text


def test_the_trf26_export_over_http_carries_the_constraints(api):
    client, t, _log = api
    h = H(t["arbiter"])
    client.post("/tournaments/open/prohibitions", json={"players": ["1", "2"]}, headers=h)
    client.post("/tournaments/open/acceleration", json={"method": "baku"}, headers=h)
    r = client.get("/tournaments/open/trf?format=trf26", headers=h)
    assert r.status_code == 200, r.text
    lines = r.text.splitlines()
    assert "260   1   5    1    2" in lines
    assert "250  1.0  1.0   1   2    1    4" in lines
    r = client.get("/tournaments/open/trf", headers=h)  # TRF-16 by default: none of them
    assert not [line for line in r.text.splitlines() if line[:3] in ("250", "260")]
    assert client.get("/tournaments/open/trf?format=trf9", headers=h).status_code == 422
