"""`/tournaments/{id}/checkpoints` (services/api/checkpoints.py) on the embedded log: who may
read and sign, the error format, and the scheduled signer `arbiter serve` attaches."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from builders import batch, created, player
from fastapi import FastAPI
from fastapi.testclient import TestClient
from tests_support import ADMIN_ACTOR

from services.api.app import create_app
from services.audit import checkpoints as cps
from services.commands.auth import TokenStore
from services.commands.service import CommandService
from services.config import Settings
from services.eventlog.sqlite import SQLiteEventLog

TID = "open-2026"
OTHER = "other-2026"


@pytest.fixture
def env(tmp_path: Path):
    log = SQLiteEventLog(tmp_path / "events.sqlite3")
    for tid in (TID, OTHER):
        CommandService(log).handle(tid, batch(created(), player("a"), player("b")), ADMIN_ACTOR)
    tokens = TokenStore(tmp_path / "tokens.sqlite3")
    t = {
        "admin": tokens.create("admin", "chief")[0],
        "arbiter": tokens.create("arbiter", "ref-1", [TID])[0],
        "arbiter_other": tokens.create("arbiter", "ref-2", [OTHER])[0],
        "broadcaster": tokens.create("broadcaster", "tv")[0],
        "auditor": tokens.create("auditor", "audit", [OTHER])[0],
    }
    yield log, tokens, t, tmp_path
    log.close()
    tokens.close()


@pytest.fixture
def api(env):
    log, tokens, t, tmp_path = env
    return TestClient(app_of(log, tokens, tmp_path)), t, log


def app_of(log: SQLiteEventLog, tokens: TokenStore, data: Path) -> FastAPI:
    """The app as a composition root makes it: the checkpoint key and store under `data`."""
    return create_app(log, tokens, settings=Settings(data_dir=data))


def H(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _error(r, status: int, rule: str) -> dict:
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert set(err) == {"rule", "field", "message"} and err["rule"] == rule
    return err


def test_sign_list_latest_and_verify(api, env):
    client, t, log = api
    url = f"/tournaments/{TID}/checkpoints"
    assert client.get(url, headers=H(t["admin"])).json() == {
        "tournament_id": TID,
        "checkpoints": [],
        "count": 0,
    }
    _error(client.get(f"{url}/latest", headers=H(t["admin"])), 404, "checkpoint.not_found")
    assert not list(env[3].glob("checkpoint*"))  # reads create no store and no key
    r = client.post(url, headers=H(t["admin"]))
    assert r.status_code == 201, r.text
    first = r.json()
    assert first["checkpoint"]["seq"] == 3
    assert first["checkpoint"]["head_hash"] == list(log.read(TID))[-1].hash
    CommandService(log).handle(TID, batch(player("c")), ADMIN_ACTOR)
    second = client.post(url, headers=H(t["admin"])).json()
    assert second["checkpoint"]["seq"] == 4
    body = client.get(url, headers=H(t["broadcaster"])).json()
    assert body["count"] == 2 and body["checkpoints"] == [first, second]  # newest last
    assert client.get(f"{url}/latest", headers=H(t["arbiter"])).json() == second
    # What the API serves verifies against the stream, with the served key pinned.
    key = cps.SignedCheckpoint.from_dict(second)
    report = cps.verify_against(
        TID,
        [e.to_bytes() for e in log.read(TID)],
        [(url, c) for c in cps.parse_published(body)],
        {key.key_id: key.public_key},
    )
    assert report.ok


@pytest.mark.parametrize(
    ("who", "read", "sign"),
    [
        ("admin", 200, 201),
        ("arbiter", 200, 403),  # its own tournament: reads, may not sign
        ("arbiter_other", 403, 403),  # an arbiter of another tournament
        ("auditor", 403, 403),  # an auditor scoped to another tournament
        ("broadcaster", 200, 403),
        (None, 401, 401),  # no token
        ("bogus", 401, 401),
    ],
)
def test_auth_matrix(api, who, read, sign):
    client, t, _ = api
    client.post(f"/tournaments/{TID}/checkpoints", headers=H(t["admin"]))
    token = t.get(who, "arb_bogus_secret") if who else None
    headers = H(token) if token else {}
    rules = {401: "auth.missing_token" if who is None else "auth.invalid_token"}
    rules[403] = "auth.forbidden"
    for path in ("", "/latest"):
        r = client.get(f"/tournaments/{TID}/checkpoints{path}", headers=headers)
        if read == 200:
            assert r.status_code == 200, r.text
        else:
            _error(r, read, rules[read])
    r = client.post(f"/tournaments/{TID}/checkpoints", headers=headers)
    if sign == 201:
        assert r.status_code == 201, r.text
    else:
        _error(r, sign, rules[sign])
    if token:  # the feed's ?token= works here too
        r = client.get(f"/tournaments/{TID}/checkpoints?token={token}")
        assert r.status_code == read


def test_refusals(api, env):
    client, t, _ = api
    tmp_path = env[3]
    err = _error(client.post("/tournaments/nobody/checkpoints", headers=H(t["admin"])), 404,
                 "checkpoint.no_events")  # fmt: skip
    assert "nobody" in err["message"]
    _error(client.get("/tournaments/-bad-/checkpoints", headers=H(t["admin"])), 422,
           "path.tournament_id")  # fmt: skip
    assert client.post(f"/tournaments/{TID}/checkpoints", headers=H(t["admin"])).status_code == 201
    conn = sqlite3.connect(tmp_path / "events.sqlite3")
    with conn:
        conn.execute("DELETE FROM events WHERE tournament_id = ? AND seq = 3", (TID,))
    conn.close()
    err = _error(client.post(f"/tournaments/{TID}/checkpoints", headers=H(t["admin"])), 422,
                 "checkpoint.truncated")  # fmt: skip
    assert "seq 3" in err["message"] and err["field"] == "tournament_id"


def test_serve_hook_signs_moved_heads_on_a_schedule(env):
    log, tokens, t, tmp_path = env
    app = app_of(log, tokens, tmp_path)
    scheduler = cps.attach_scheduler(app, every=0.05)
    assert scheduler is not None and app.state.checkpoints is scheduler.service

    def seqs() -> dict[str, list[int]]:
        body = {
            tid: client.get(f"/tournaments/{tid}/checkpoints", headers=H(t["admin"])).json()
            for tid in (TID, OTHER)
        }
        return {tid: [c["checkpoint"]["seq"] for c in b["checkpoints"]] for tid, b in body.items()}

    def wait_for(expected: dict[str, list[int]]) -> None:
        deadline = time.monotonic() + 20
        while seqs() != expected and time.monotonic() < deadline:
            time.sleep(0.05)
        assert seqs() == expected

    with TestClient(app) as client:  # startup starts the scheduler
        wait_for({TID: [3], OTHER: [3]})
        CommandService(log).handle(TID, batch(player("c")), ADMIN_ACTOR)
        wait_for({TID: [3, 4], OTHER: [3]})
        runs = scheduler.runs
        while scheduler.runs < runs + 3:
            time.sleep(0.02)
        assert seqs() == {TID: [3, 4], OTHER: [3]}  # unmoved heads are not signed again
    assert scheduler._thread is not None and not scheduler._thread.is_alive()  # shutdown
    assert (tmp_path / "checkpoint-key.pem").exists()


def test_serve_hook_can_be_disabled(env):
    log, tokens, _, tmp_path = env
    app = app_of(log, tokens, tmp_path)
    assert cps.attach_scheduler(app, every=0) is None
    assert app.state.checkpoints is not None  # the routes still sign on demand
