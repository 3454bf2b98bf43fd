"""A command whose payload has several mistakes (the Go settings of a `TournamentCreated`, a
prize table) is answered with all of them (issue 24 item 5): `errors` lists every problem with
its place, and `error`, as before, is the first."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from services.api.app import create_app
from services.commands.auth import TokenStore
from services.eventlog.sqlite import SQLiteEventLog


def _client(tmp_path: Path) -> tuple[TestClient, dict[str, str], SQLiteEventLog]:
    log = SQLiteEventLog(tmp_path / "events.sqlite3")
    tokens = TokenStore(tmp_path / "tokens.sqlite3")
    admin = tokens.create("admin", "chief")[0]
    return TestClient(create_app(log, tokens)), {"Authorization": f"Bearer {admin}"}, log


def test_every_mistake_of_a_payload_is_answered_the_first_as_error(tmp_path: Path) -> None:
    client, auth, log = _client(tmp_path)
    payload = {
        "name": "LGC Open",
        "game": "go",
        "format": "mcmahon",
        "go": {"mcmahon_bar": "10d", "handicap": "always", "late_forfeit_minutes": 0},
        "prize_table": {"currency": "pounds", "prizes": []},
    }
    res = client.post(
        "/tournaments/lgc/commands",
        json={"type": "TournamentCreated", "payload": payload},
        headers=auth,
    )
    assert res.status_code == 422
    body = res.json()
    fields = [e["field"] for e in body["errors"]]
    assert fields == [
        "commands[0].payload.prize_table.currency",
        "commands[0].payload.go.mcmahon_bar",
        "commands[0].payload.go.handicap",
        "commands[0].payload.go.late_forfeit_minutes",
    ]
    assert body["error"] == body["errors"][0]
    assert {e["rule"] for e in body["errors"]} == {"payload.invalid"}
    assert list(log.read("lgc", 1)) == []


def test_a_single_mistake_is_answered_as_before(tmp_path: Path) -> None:
    client, auth, _ = _client(tmp_path)
    res = client.post(
        "/tournaments/x/commands",
        json={"type": "TournamentCreated", "payload": {"name": "X", "format": "chess"}},
        headers=auth,
    )
    assert res.status_code == 422
    assert set(res.json()) == {"error"}
    assert res.json()["error"]["field"] == "commands[0].payload.format"


def test_a_ruling_with_a_bad_prize_table_is_answered_with_every_mistake(tmp_path: Path) -> None:
    """The decider checks a prize table in a `RulingIssued` whole, as `arbiter prize-table`
    checks its file: every mistake with its place, nothing appended."""
    client, auth, log = _client(tmp_path)
    created = {"name": "Open", "format": "swiss", "rounds": 5}
    res = client.post(
        "/tournaments/o/commands",
        json={"type": "TournamentCreated", "payload": created},
        headers=auth,
    )
    assert res.status_code == 201, res.text
    table = {"currency": "EUR", "prizes": [{"place": 0, "amount": "-5"}]}
    ruling = {
        "ruling_id": "prizes-1",
        "by": "chief",
        "subject": "prize_table",
        "text": "the sponsor's table",
        "decision": {"prize_table": table},
    }
    res = client.post(
        "/tournaments/o/commands",
        json={"type": "RulingIssued", "payload": ruling},
        headers=auth,
    )
    assert res.status_code == 422
    body = res.json()
    where = "commands[0].payload.decision.prize_table.prizes.0."
    assert [(e["rule"], e["field"]) for e in body["errors"]] == [
        ("ruling.invalid_table", where + "place"),
        ("ruling.invalid_table", where + "amount"),
    ]
    assert body["error"] == body["errors"][0]
    assert [e.type for e in log.read("o", 1)] == ["TournamentCreated"]
