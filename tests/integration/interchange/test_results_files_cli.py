"""`arbiter export h9|aga` and `GET /tournaments/{id}/h9|aga` (issue 26 item 4): the files of
services/interchange/egf/ from the log, on the command line and over HTTP, the same text."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests_support import append_events, cli_db, cli_ok, cli_run

from services.api.app import create_app
from services.commands.auth import TokenStore
from services.eventlog.sqlite import SQLiteEventLog
from services.interchange.egf import read_aga, read_h9

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "services" / "interchange"))
from test_egf_results import paris_go_open


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = cli_db(tmp_path, monkeypatch)
    append_events(path, "paris", *paris_go_open())
    return path


def test_the_cli_and_the_route_write_the_same_files(db: Path, tmp_path: Path):
    out = tmp_path / "paris.h9"
    cli_ok("export", "h9", "paris", "--class", "C", "--place", "FR,Paris", "-o", str(out))
    h9 = read_h9(out.read_text())
    assert h9.header["CL"] == "C" and len(h9.players) == 3
    aga_text = cli_ok("export", "aga", "paris", "--place", "Paris")
    assert len(read_aga(aga_text).games) == 2
    assert "h9.invalid" in cli_run("export", "h9", "paris", "--class", "E", code=1)
    cli_ok("create", "open", "--name", "Open")
    assert "aga.not_go" in cli_run("export", "aga", "open", code=1)

    tokens = TokenStore(tmp_path / "tokens.sqlite3")
    reader = {"Authorization": f"Bearer {tokens.create('auditor', 'audit')[0]}"}
    log = SQLiteEventLog(db)
    try:
        client = TestClient(create_app(log, tokens))
        res = client.get(
            "/tournaments/paris/h9", params={"class": "C", "place": "FR,Paris"}, headers=reader
        )
        assert res.status_code == 200, res.text
        assert res.text == out.read_text()
        assert 'filename="paris.h9"' in res.headers["content-disposition"]
        aga = client.get("/tournaments/paris/aga", params={"place": "Paris"}, headers=reader)
        assert aga.status_code == 200 and aga.text == aga_text
        chess = client.get("/tournaments/open/h9", headers=reader)
        assert chess.status_code == 422 and chess.json()["error"]["rule"] == "h9.not_go"
        assert client.get("/tournaments/nobody/aga", headers=reader).status_code == 404
        assert (
            client.get("/tournaments/paris/h9", params={"class": "Z"}, headers=reader).status_code
            == 422
        )
        assert client.get("/tournaments/paris/h9").status_code == 401
    finally:
        log.close()
