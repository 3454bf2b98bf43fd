"""What the API answers when things go wrong (issue 9.3): a log outage is a 503 with
Retry-After on writes and reads alike, a body over the limit is a 413 before it is parsed, and
a committed append is always answered with its ids even if the full response fails."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from services.api.app import create_app
from services.commands.auth import TokenStore
from services.eventlog.base import AppendResult, EventLogUnavailable
from services.eventlog.sqlite import SQLiteEventLog

CREATE = {"type": "TournamentCreated", "payload": {"name": "X", "format": "swiss"}}


class DownLog(SQLiteEventLog):
    """A log whose backend is unreachable."""

    backend = "kafka"

    def _down(self, *a: Any, **k: Any) -> Any:
        raise EventLogUnavailable("no broker answered within 10 s")

    append = read = read_all = last_seq = find = stream_ids = _down  # type: ignore[assignment]


@dataclass
class Unprintable:
    """A stored envelope whose full JSON cannot be built (what an old bug would give)."""

    inner: Any

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def to_json_dict(self) -> dict[str, Any]:
        raise ValueError("Recursion limit reached")


class PartialLog(SQLiteEventLog):
    def append(self, *a: Any, **k: Any) -> AppendResult:
        res = super().append(*a, **k)
        return AppendResult([Unprintable(e) for e in res.envelopes], res.duplicate)  # type: ignore[misc]


def client(log: SQLiteEventLog, tmp_path: Path) -> tuple[TestClient, dict[str, str]]:
    tokens = TokenStore(tmp_path / "tokens.sqlite3")
    admin = tokens.create("admin", "chief")[0]
    app = create_app(log, tokens)
    return TestClient(app, raise_server_exceptions=False), {"Authorization": f"Bearer {admin}"}


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/tournaments"),
        ("GET", "/tournaments/tA/events"),
        ("POST", "/tournaments/tA/commands"),
    ],
)
def test_a_log_outage_is_a_503_with_retry_after(tmp_path: Path, method: str, path: str) -> None:
    c, h = client(DownLog(tmp_path / "e.sqlite3"), tmp_path)
    r = c.request(method, path, headers=h, json=CREATE if method == "POST" else None)
    assert r.status_code == 503, r.text
    assert r.headers["Retry-After"].isdigit()
    assert r.json()["error"]["rule"] == "eventlog.unavailable"


def test_a_committed_append_is_answered_even_if_the_full_body_fails(tmp_path: Path) -> None:
    log = PartialLog(tmp_path / "e.sqlite3")
    c, h = client(log, tmp_path)
    r = c.post("/tournaments/tA/commands", headers=h, json=CREATE)
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["partial"] is True and body["last_seq"] == 1
    stored = next(iter(SQLiteEventLog(tmp_path / "e.sqlite3").read("tA")))
    assert body["events"] == [
        {"event_id": str(stored.event_id), "seq": 1, "type": stored.type, "hash": stored.hash}
    ]


def test_a_body_over_the_limit_is_refused_before_parsing(tmp_path: Path) -> None:
    log = SQLiteEventLog(tmp_path / "e.sqlite3")
    c, h = client(log, tmp_path)
    huge = b'{"type": "TournamentCreated", "payload": {"name": "' + b"x" * (5 << 20) + b'"}}'
    r = c.post("/tournaments/tA/commands", headers=h, content=huge)
    assert r.status_code == 413
    assert r.json()["error"]["rule"] == "limits.body_bytes"
    assert log.last_seq("tA") == 0


def test_unexpected_errors_name_nothing_of_the_server(tmp_path: Path) -> None:
    class Broken(SQLiteEventLog):
        def stream_ids(self) -> list[str]:
            raise RuntimeError("secret path /srv/arbiter/db")

    c, h = client(Broken(tmp_path / "e.sqlite3"), tmp_path)
    r = c.get("/tournaments", headers=h)
    assert r.status_code == 500
    assert "secret" not in r.text and r.json()["error"]["rule"] == "internal"
