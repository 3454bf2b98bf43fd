"""Sessions on the live feed (issue 9.6): an open SSE stream ends once its token is revoked
(or no longer covers the tournament), and a held tournament is announced on the stream."""

from __future__ import annotations

import queue
import time
from pathlib import Path

import httpx
import pytest
from bench.feed import ApiServer, SseReader

from services.commands.auth import TokenStore

pytestmark = pytest.mark.slow  # make test-fast leaves it out


TID = "sess-2026"
SETUP = {
    "commands": [
        {"type": "TournamentCreated", "payload": {"name": "S", "format": "swiss", "rounds": 3}},
        {"type": "PlayerRegistered", "payload": {"player_id": "a", "name": "A"}},
    ]
}


def H(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    srv = ApiServer(Path(tmp_path_factory.mktemp("sessions")), keepalive=0.5)
    srv.env["ARBITER_FEED_REAUTH"] = "0.5"  # re-check tokens every half second
    admin = srv.token("admin", "chief")
    with srv:
        r = httpx.post(f"{srv.url}/tournaments/{TID}/commands", json=SETUP, headers=H(admin))
        assert r.status_code == 201, r.text
        yield srv, admin


def wait_for(reader: SseReader, name: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            ev = reader.events.get(timeout=0.2)
        except queue.Empty:
            continue
        if ev.event == name:
            return
    raise AssertionError(f"no `{name}` event within {timeout} s")


def test_a_stream_closes_after_its_token_is_revoked(server) -> None:
    srv, _ = server
    token = srv.token("broadcaster", "tv")
    with SseReader(f"{srv.url}/tournaments/{TID}/stream", H(token)) as reader:
        assert reader.status == 200
        wait_for(reader, "standings")
        store = TokenStore(srv.env["ARBITER_TOKENS_DB"])
        try:
            assert store.revoke(token.split("_")[1])
        finally:
            store.close()
        wait_for(reader, "revoked", timeout=30)
        reader._thread.join(10)
        assert not reader._thread.is_alive(), "the server closed the stream"
    # And it cannot reconnect.
    r = httpx.get(f"{srv.url}/tournaments/{TID}/projections/standings", headers=H(token))
    assert r.status_code == 401


def test_a_stream_with_a_valid_token_stays_open(server) -> None:
    srv, admin = server
    token = srv.token("auditor", "audit")
    with SseReader(f"{srv.url}/tournaments/{TID}/stream", H(token)) as reader:
        wait_for(reader, "standings")
        time.sleep(2.0)  # several re-checks pass
        r = httpx.post(
            f"{srv.url}/tournaments/{TID}/commands",
            json={"type": "PlayerRegistered", "payload": {"player_id": "b", "name": "B"}},
            headers=H(admin),
        )
        assert r.status_code == 201
        wait_for(reader, "standings")
        assert reader._thread.is_alive()
