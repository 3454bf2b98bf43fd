"""What the fuzz tests share: the seeded tournament, request counting, and `FuzzApi`, the
client every fuzz test sends through (it fails on any status ≥ 500, naming the request)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import quote

import httpx
from fastapi import FastAPI
from fastapi.testclient import TestClient
from tests_support import cmd

from events_schema.limits import Limits
from services.commands.auth import TokenStore
from services.eventlog.sqlite import SQLiteEventLog

TID = "open-2026"
LIMITS = Limits()


SETUP = {
    "commands": [
        cmd("TournamentCreated", name="Open 2026", format="swiss", rounds=5),
        cmd("PlayerRegistered", player_id="a", name="A", rating=2500),
        cmd("PlayerRegistered", player_id="b", name="B"),
        cmd("RoundScheduled", round=1, pairings=[{"game_id": "g1", "white": "a", "black": "b"}]),
    ]
}


@dataclass
class Stats:
    requests: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    server_errors: list[str] = field(default_factory=list)
    seconds: float = 0.0


def path_segment(value: str) -> str:
    """`value` as one path segment: everything percent-encoded, dots included (so that `.`
    and `..` are not normalised away by the client)."""
    return quote(value, safe="").replace(".", "%2E")


@dataclass
class FuzzApi:
    app: FastAPI
    client: TestClient
    log: SQLiteEventLog
    tokens: TokenStore
    admin: str
    arbiter: str
    stats: Stats
    _serial: int = 0

    def auth(self, token: str | None) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"} if token else {}

    def call(
        self,
        method: str,
        path: str,
        *,
        token: str | None = "admin",
        headers: dict[str, str] | None = None,
        **kwargs: Any,
    ) -> httpx.Response:
        """One request; `token` is a role (`admin`, `arbiter`), a raw token, or None."""
        raw = {"admin": self.admin, "arbiter": self.arbiter}.get(token or "", token)
        sent = {**self.auth(raw), **(headers or {})}
        response: httpx.Response = self.client.request(method, path, headers=sent, **kwargs)
        self.record(method, path, response.status_code, response.text, kwargs)
        return response

    def record(
        self, method: str, path: str, status: int, text: str, sent: Any = None, fail: bool = True
    ) -> None:
        """Count a request; a 5xx is noted and (with `fail`) fails the test, naming it."""
        self.stats.requests += 1
        self.stats.statuses[status] += 1
        if status >= 500:
            what = f"{method} {path} {str(sent)[:500]} -> {status} {text[:300]}"
            self.stats.server_errors.append(what)
            if fail:
                raise AssertionError(f"server error: {what}")

    def post(self, tid: str, body: Any, token: str | None = "admin") -> httpx.Response:
        if isinstance(body, bytes | str):
            return self.call(
                "POST",
                f"/tournaments/{path_segment(tid)}/commands",
                token=token,
                content=body,
                headers={"Content-Type": "application/json"},
            )
        return self.call(
            "POST", f"/tournaments/{path_segment(tid)}/commands", token=token, json=body
        )

    def last_seq(self, tid: str) -> int:
        return self.log.last_seq(tid)

    def create(self, tid: str) -> None:
        """A tournament like `open-2026` under `tid`, if not there yet."""
        if self.last_seq(tid) == 0:
            r = self.post(tid, SETUP)
            assert r.status_code == 201, r.text

    def assert_healthy(self, tid: str) -> None:
        """The tournament reads back (every stored event decodes, within the limits) and still
        takes a command."""
        r = self.call("GET", f"/tournaments/{path_segment(tid)}/events")
        assert r.status_code == 200, r.text
        body = r.json()
        unreadable = [e for e in body["events"] if "unreadable" in e]
        assert not unreadable, unreadable
        assert body["count"] == self.last_seq(tid)
        for e in body["events"]:
            LIMITS.check_value(e["payload"], f"seq {e['seq']}")
            LIMITS.check_datetime(datetime.fromisoformat(e["occurred_at"]), f"seq {e['seq']}")
        self._serial += 1
        ruling = cmd(
            "RulingIssued", ruling_id=f"fuzz-{self._serial}", by="chief", subject="x", text="ok"
        )
        before = self.last_seq(tid)
        r = self.post(tid, ruling)
        assert r.status_code == 201, r.text
        assert self.last_seq(tid) == before + 1
