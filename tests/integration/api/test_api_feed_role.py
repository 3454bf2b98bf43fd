"""`arbiter serve --role feed` (services/api/roles.py): a feed process answers reads and
refuses every write before any route runs, so nothing is appended through it. Kafka's side
(several feed processes converging to the replay) is tests/integration/feed/
test_kafka_feed_processes.py."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from tests_support import cmd
from typer.testing import CliRunner

from services.api.app import create_app
from services.api.roles import FeedOnly
from services.cli.main import app as cli
from services.commands.auth import TokenStore
from services.eventlog.sqlite import SQLiteEventLog


def test_a_feed_process_serves_reads_and_refuses_writes(tmp_path: Path) -> None:
    tokens = TokenStore(tmp_path / "tokens.sqlite3")
    admin = {"Authorization": f"Bearer {tokens.create('admin', 'chief')[0]}"}
    log = SQLiteEventLog(tmp_path / "events.sqlite3")
    writer = TestClient(create_app(log, tokens))
    created = cmd("TournamentCreated", name="Open", format="swiss")
    assert writer.post("/tournaments/t1/commands", json=created, headers=admin).status_code == 201

    feed_app = create_app(SQLiteEventLog(tmp_path / "events.sqlite3"), tokens)
    feed_app.add_middleware(FeedOnly)
    feed = TestClient(feed_app)
    player = cmd("PlayerRegistered", player_id="a", name="Alice")
    for method in ("POST", "PUT", "PATCH", "DELETE"):
        r = feed.request(method, "/tournaments/t1/commands", json=player, headers=admin)
        assert r.status_code == 405, (method, r.text)
        assert r.json()["error"]["rule"] == "serve.feed_only"
        assert r.json()["error"]["field"] == "method"
        assert r.headers["allow"] == "GET, HEAD, OPTIONS"
    assert log.last_seq("t1") == 1  # nothing appended
    events = feed.get("/tournaments/t1/events", headers=admin)
    assert events.status_code == 200 and events.json()["count"] == 1
    assert feed.get("/health").status_code == 200


def test_serve_refuses_an_unknown_role_naming_the_option() -> None:
    result = CliRunner().invoke(cli, ["serve", "--role", "writer"])
    assert result.exit_code != 0
    assert "--role" in result.output and "api, feed" in result.output
