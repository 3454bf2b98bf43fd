"""API tokens with roles, stored hashed.

A token reads `arb_<id>_<secret>`; only SHA-256 of the secret is stored (the secret is 256
random bits, so a fast hash is the right tool, as for GitHub's tokens). Roles:
- admin: everything, including corrections (ResultCorrected, EventRetracted);
- arbiter: appends to, and reads, the tournaments it is given;
- broadcaster, auditor: read only (all tournaments, or those given).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import sqlite3
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import orjson

ROLES = ("admin", "arbiter", "broadcaster", "auditor")
READ_ROLES = frozenset(ROLES)
WRITE_ROLES = frozenset({"admin", "arbiter"})


@dataclass(frozen=True)
class Principal:
    token_id: str
    subject: str
    role: str
    tournaments: frozenset[str] | None  # None: every tournament

    def may_read(self, tournament_id: str) -> bool:
        return self.role in READ_ROLES and self._covers(tournament_id)

    def may_write(self, tournament_id: str) -> bool:
        return self.role in WRITE_ROLES and self._covers(tournament_id)

    def _covers(self, tournament_id: str) -> bool:
        return self.role == "admin" or self.tournaments is None or tournament_id in self.tournaments


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class TokenStore:
    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS tokens (token_id TEXT PRIMARY KEY, secret_sha256 TEXT "
            "NOT NULL, role TEXT NOT NULL, subject TEXT NOT NULL, tournaments TEXT, "
            "created_at TEXT NOT NULL, revoked_at TEXT)"
        )

    def create(
        self, role: str, subject: str, tournaments: list[str] | None = None
    ) -> tuple[str, Principal]:
        if role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}, not {role!r}")
        if role == "arbiter" and not tournaments:
            raise ValueError("an arbiter token names the tournaments it may append to")
        token_id = secrets.token_hex(6)
        secret = secrets.token_urlsafe(32)
        scope = orjson.dumps(sorted(tournaments)).decode() if tournaments else None
        with self._lock:
            self._db.execute(
                "INSERT INTO tokens VALUES (?, ?, ?, ?, ?, ?, NULL)",
                (token_id, _digest(secret), role, subject, scope, datetime.now(UTC).isoformat()),
            )
        principal = Principal(
            token_id, subject, role, frozenset(tournaments) if tournaments else None
        )
        return f"arb_{token_id}_{secret}", principal

    def authenticate(self, token: str | None) -> Principal | None:
        if not token or not token.startswith("arb_") or token.count("_") < 2:
            return None
        _, token_id, secret = token.split("_", 2)
        with self._lock:
            row = self._db.execute(
                "SELECT secret_sha256, role, subject, tournaments, revoked_at FROM tokens "
                "WHERE token_id = ?",
                (token_id,),
            ).fetchone()
        if row is None or row[4] is not None:
            return None
        if not hmac.compare_digest(row[0], _digest(secret)):
            return None
        scope = frozenset(orjson.loads(row[3])) if row[3] else None
        return Principal(token_id, row[2], row[1], scope)

    def revoke(self, token_id: str) -> bool:
        with self._lock:
            cur = self._db.execute(
                "UPDATE tokens SET revoked_at = ? WHERE token_id = ? AND revoked_at IS NULL",
                (datetime.now(UTC).isoformat(), token_id),
            )
        return cur.rowcount == 1

    def list(self) -> list[dict[str, object]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT token_id, role, subject, tournaments, created_at, revoked_at FROM tokens "
                "ORDER BY created_at"
            ).fetchall()
        keys = ("token_id", "role", "subject", "tournaments", "created_at", "revoked_at")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def close(self) -> None:
        self._db.close()
