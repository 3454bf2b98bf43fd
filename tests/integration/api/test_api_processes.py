"""Two API processes (real uvicorn servers) writing to one tournament through HTTP, on the
embedded log and on the real broker: every event lands once, gapless, in a valid chain, and
racing conditional appends give exactly one winner."""

from __future__ import annotations

import os
import threading
import uuid
from pathlib import Path

import httpx
import pytest
from conftest import kafka_bootstrap
from tests_support import ApiProcesses, tail_logs

from events_schema import GENESIS_HASH
from services.commands.auth import TokenStore

pytestmark = pytest.mark.slow  # make test-fast leaves it out


@pytest.fixture(params=["sqlite", pytest.param("kafka", marks=pytest.mark.kafka)])
def servers(request, tmp_path: Path):
    env = dict(os.environ)
    env["ARBITER_TOKENS_DB"] = str(tmp_path / "tokens.sqlite3")
    if request.param == "kafka":
        env["ARBITER_LOG"] = "kafka"
        env["KAFKA_BOOTSTRAP"] = kafka_bootstrap() or ""
        env["ARBITER_TOPIC"] = f"arbiter.test.{uuid.uuid4().hex[:12]}"
        env["ARBITER_PARTITIONS"] = "2"
    else:
        env["ARBITER_LOG"] = "sqlite"
        env["ARBITER_DB"] = str(tmp_path / "events.sqlite3")
    token, _ = TokenStore(env["ARBITER_TOKENS_DB"]).create("admin", "chief")
    api = ApiProcesses(env, tmp_path)
    try:
        api.start(2)
        yield api.urls, {"Authorization": f"Bearer {token}"}, tmp_path
    finally:
        api.stop()


def _post(url: str, headers, body) -> httpx.Response:
    return httpx.post(f"{url}/tournaments/duel/commands", json=body, headers=headers, timeout=60)


def _events(url: str, headers) -> list[dict]:
    """The stream's events (the same 60 s as a post: httpx's default 5 s is too short for a
    read on a loaded machine)."""
    r = httpx.get(f"{url}/tournaments/duel/events", headers=headers, timeout=60)
    assert r.status_code == 200, r.text
    return list(r.json()["events"])


def test_two_api_processes_share_one_tournament(servers):
    (a, b), headers, logs = servers
    r = _post(
        a, headers, {"type": "TournamentCreated", "payload": {"name": "Duel", "format": "swiss"}}
    )
    assert r.status_code == 201, r.text + tail_logs(logs)

    errors: list[str] = []

    def register(url: str, prefix: str) -> None:
        for i in range(15):
            body = {
                "type": "PlayerRegistered",
                "payload": {"player_id": f"{prefix}{i}", "name": "X"},
            }
            resp = _post(url, headers, body)
            if resp.status_code != 201:
                errors.append(resp.text)

    threads = [threading.Thread(target=register, args=(u, p)) for u, p in ((a, "a"), (b, "b"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert errors == [], tail_logs(logs)

    # Conditional appends racing on the same expected seq: one wins, the other gets 409.
    for round_no in range(5):
        seq = len(_events(b, headers))
        statuses: list[int] = []

        def race(url: str, who: str, seq=seq, round_no=round_no, statuses=statuses) -> None:
            body = {
                "commands": [
                    {
                        "type": "RulingIssued",
                        "payload": {
                            "ruling_id": f"r{round_no}-{who}",
                            "by": who,
                            "subject": "race",
                            "text": "first one wins",
                        },
                    }
                ],
                "expected_seq": seq,
            }
            statuses.append(_post(url, headers, body).status_code)

        racers = [threading.Thread(target=race, args=(u, w)) for u, w in ((a, "a"), (b, "b"))]
        for t in racers:
            t.start()
        for t in racers:
            t.join(timeout=120)
        assert sorted(statuses) == [201, 409], tail_logs(logs)

    events = _events(a, headers)
    assert [e["seq"] for e in events] == list(range(1, 37))
    assert len({e["event_id"] for e in events}) == 36
    players = sorted(e["payload"]["player_id"] for e in events if e["type"] == "PlayerRegistered")
    assert players == sorted([f"a{i}" for i in range(15)] + [f"b{i}" for i in range(15)])
    prev = GENESIS_HASH
    for e in events:
        assert e["prev_hash"] == prev
        prev = e["hash"]
