"""The embedded log's storage failing (issue 27 item 6): a full disk or an I/O error is a 503
with `Retry-After: 30` and the condition as the error's rule (`storage.full`, `storage.io`),
the transaction rolled back explicitly (a COMMIT that fails with SQLITE_FULL leaves it open),
nothing stored, every request of a burst answered, and appends resume once the storage is back.

The fault is injected where SQLite reports it: the connection's `execute` raises
`sqlite3.OperationalError` with SQLite's own message ("database or disk is full", "disk I/O
error"; https://sqlite.org/rescode.html SQLITE_FULL, SQLITE_IOERR)."""

from __future__ import annotations

import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from builders import created, new_event, player
from fastapi.testclient import TestClient

from services.api.app import create_app
from services.commands.auth import TokenStore
from services.eventlog.sqlite import SQLiteEventLog, StorageUnavailable

CREATE = {"type": "TournamentCreated", "payload": {"name": "X", "format": "swiss"}}
FULL = "database or disk is full"
IOERR = "disk I/O error"


class FaultyConnection:
    """A connection whose statements starting with one of `log.fail_on` raise `log.fault`."""

    def __init__(self, inner: sqlite3.Connection, log: FaultyLog) -> None:
        self.inner, self.log = inner, log

    def execute(self, sql: str, *args: Any) -> Any:
        if self.log.fault and sql.lstrip().upper().startswith(self.log.fail_on):
            raise sqlite3.OperationalError(self.log.fault)
        return self.inner.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def __enter__(self) -> sqlite3.Connection:
        return self.inner.__enter__()

    def __exit__(self, *exc: Any) -> Any:
        return self.inner.__exit__(*exc)


class FaultyLog(SQLiteEventLog):
    fault: str | None = None
    fail_on: tuple[str, ...] = ("COMMIT",)

    def _conn(self) -> Any:
        return FaultyConnection(super()._conn(), self)

    def open_transactions(self) -> bool:
        conn = getattr(self._local, "conn", None)
        return bool(conn is not None and conn.in_transaction)


def client(log: SQLiteEventLog, tmp_path: Path) -> tuple[TestClient, dict[str, str]]:
    tokens = TokenStore(tmp_path / "tokens.sqlite3")
    admin = tokens.create("admin", "chief")[0]
    return TestClient(create_app(log, tokens), raise_server_exceptions=False), {
        "Authorization": f"Bearer {admin}"
    }


def test_a_commit_on_a_full_disk_is_rolled_back_and_the_next_append_goes_through(
    tmp_path: Path,
) -> None:
    """Given the disk fills as an append commits, then the append raises StorageUnavailable
    `storage.full`, no transaction is left open on the connection, nothing is stored; once
    space is freed the same thread's next append takes seq 1."""
    log = FaultyLog(tmp_path / "e.sqlite3")
    log.fault = FULL
    with pytest.raises(StorageUnavailable) as exc:
        log.append("t", [new_event(created())])
    assert exc.value.rule == "storage.full"
    assert exc.value.retry_after == 30
    assert "disk holding the event log is full" in str(exc.value)
    assert not log.open_transactions()
    assert log.last_seq("t") == 0
    log.fault = None
    assert log.append("t", [new_event(created())]).last_seq == 1
    assert log.append("t", [new_event(player("p"))]).last_seq == 2


def test_an_io_error_while_reading_is_storage_io() -> None:
    log = FaultyLog(":memory:")
    log.fault, log.fail_on = IOERR, ("SELECT",)
    with pytest.raises(StorageUnavailable) as exc:
        list(log.read("t"))
    assert exc.value.rule == "storage.io"
    with pytest.raises(StorageUnavailable):
        log.last_seq("t")


def test_other_sqlite_errors_are_not_called_storage_faults(tmp_path: Path) -> None:
    log = FaultyLog(tmp_path / "e.sqlite3")
    log.fault = "no such table: events"
    with pytest.raises(sqlite3.OperationalError):
        log.append("t", [new_event(created())])
    assert not log.open_transactions()


def test_a_full_disk_answers_503_storage_full_with_retry_after_30(tmp_path: Path) -> None:
    log = FaultyLog(tmp_path / "e.sqlite3")
    c, h = client(log, tmp_path)
    log.fault = FULL
    r = c.post("/tournaments/tA/commands", headers=h, json=CREATE)
    assert r.status_code == 503, r.text
    assert r.headers["Retry-After"] == "30"
    error = r.json()["error"]
    assert error["rule"] == "storage.full"
    assert "full" in error["message"]
    log.fault = None
    assert c.get("/tournaments/tA/events", headers=h).json()["count"] == 0
    r = c.post("/tournaments/tA/commands", headers=h, json=CREATE)
    assert r.status_code < 300, r.text


def test_an_io_error_on_a_read_answers_503_storage_io(tmp_path: Path) -> None:
    log = FaultyLog(tmp_path / "e.sqlite3")
    c, h = client(log, tmp_path)
    log.fault, log.fail_on = IOERR, ("SELECT",)
    r = c.get("/tournaments/tA/events", headers=h)
    assert r.status_code == 503, r.text
    assert r.headers["Retry-After"] == "30"
    assert r.json()["error"]["rule"] == "storage.io"


def test_every_request_of_a_burst_on_a_full_disk_is_answered_503(tmp_path: Path) -> None:
    """40 concurrent appends to 8 tournaments while the disk is full: each one gets a 503
    `storage.full` (none dropped, none a 500), and afterwards every tournament is empty and
    takes its first event."""
    log = FaultyLog(tmp_path / "e.sqlite3")
    c, h = client(log, tmp_path)
    log.fault = FULL
    lock = threading.Lock()
    answers: list[tuple[int, str]] = []

    def post(i: int) -> None:
        r = c.post(f"/tournaments/b{i % 8}/commands", headers=h, json=CREATE)
        with lock:
            answers.append((r.status_code, r.json()["error"]["rule"]))

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(post, range(40)))
    assert answers == [(503, "storage.full")] * 40
    log.fault = None
    for i in range(8):
        assert c.post(f"/tournaments/b{i}/commands", headers=h, json=CREATE).status_code < 300
        assert c.get(f"/tournaments/b{i}/events", headers=h).json()["count"] == 1
