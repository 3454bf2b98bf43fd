"""The checkpoint store: an append-only SQLite table of every checkpoint signed here
(`$ARBITER_DATA/checkpoints.sqlite3`, or `ARBITER_CHECKPOINTS_DB`)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from events_schema.codec import loads
from services.audit.checkpoints.record import SignedCheckpoint
from services.config import Settings

STORE_FILE = "checkpoints.sqlite3"


def store_path(settings: Settings) -> Path:
    """`settings.checkpoints_db` (ARBITER_CHECKPOINTS_DB), else the default under the data
    directory."""
    if settings.checkpoints_db is not None:
        return settings.checkpoints_db
    return settings.data_dir / STORE_FILE


_STORE_SCHEMA = """
CREATE TABLE IF NOT EXISTS checkpoints (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    tournament_id TEXT    NOT NULL,
    seq           INTEGER NOT NULL,
    head_hash     TEXT    NOT NULL,
    signed_at     TEXT    NOT NULL,
    key_id        TEXT    NOT NULL,
    body          BLOB    NOT NULL,
    signature     TEXT    NOT NULL,
    public_key    TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS checkpoints_by_stream ON checkpoints (tournament_id, id);
CREATE TRIGGER IF NOT EXISTS checkpoints_append_only_update BEFORE UPDATE ON checkpoints
BEGIN SELECT RAISE(ABORT, 'checkpoints are append-only'); END;
CREATE TRIGGER IF NOT EXISTS checkpoints_append_only_delete BEFORE DELETE ON checkpoints
BEGIN SELECT RAISE(ABORT, 'checkpoints are append-only'); END;
"""


class CheckpointStore:
    """Append-only: rows are added, never updated or deleted (triggers refuse both)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            self.path, check_same_thread=False, isolation_level=None, timeout=30.0
        )
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_STORE_SCHEMA)

    def add(self, cp: SignedCheckpoint) -> None:
        d = cp.as_dict()
        c = cp.checkpoint
        with self._lock:
            self._db.execute(
                "INSERT INTO checkpoints (tournament_id, seq, head_hash, signed_at, key_id, body, "
                "signature, public_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (c.tournament_id, c.seq, c.head_hash, c.signed_at, cp.key_id, cp.body,
                 d["signature"], d["public_key"]),
            )  # fmt: skip

    def _rows(self, where: str, args: tuple[object, ...]) -> list[SignedCheckpoint]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT body, signature, public_key, key_id FROM checkpoints {where}", args
            ).fetchall()
        out = []
        for body, signature, public_key, key_id in rows:
            data = {
                "checkpoint": loads(bytes(body)),
                "signature": signature,
                "public_key": public_key,
                "key_id": key_id,
            }
            out.append(SignedCheckpoint.from_dict(data))
        return out

    def all(self, tournament_id: str) -> list[SignedCheckpoint]:
        """Every checkpoint of a stream, oldest first (newest last)."""
        return self._rows("WHERE tournament_id = ? ORDER BY id", (tournament_id,))

    def latest(self, tournament_id: str) -> SignedCheckpoint | None:
        rows = self._rows("WHERE tournament_id = ? ORDER BY id DESC LIMIT 1", (tournament_id,))
        return rows[0] if rows else None

    def close(self) -> None:
        with self._lock:
            self._db.close()
