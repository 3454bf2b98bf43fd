"""The embedded event log: one SQLite file in WAL mode, zero setup.

Writers serialise on `BEGIN IMMEDIATE`, so appends from several threads or processes keep
each stream gapless; the `(tournament_id, seq)` and `event_id` unique keys are the last line
of defence. `position` is the global append order that `subscribe` tails.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from uuid import UUID

from events_schema import GENESIS_HASH, Envelope
from events_schema.envelope import read_envelope
from services.eventlog.base import (
    AppendConflict,
    AppendResult,
    EventLog,
    EventLogUnavailable,
    NewEvent,
    StoredRow,
    Subscription,
    check_duplicates,
    encode_read_back,
    utcnow,
)

# Columns every read selects: the storage's own view of the record, so an event whose body
# cannot be decoded still has its stream, seq, id and hash (see `read_envelope`).
_COLS = "tournament_id, seq, event_id, hash, body"


def _env(row: tuple[str, int, str, str, bytes | str]) -> Envelope:
    tid, seq, event_id, hash_, body = row
    return read_envelope(body, tournament_id=tid, seq=seq, event_id=event_id, hash=hash_)


def _text(value: object) -> str | None:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return None if value is None else str(value)


#: SQLite's primary result codes for a storage fault (https://sqlite.org/rescode.html):
#: SQLITE_FULL (13, "database or disk is full": the disk, or a quota) and SQLITE_IOERR (10,
#: "disk I/O error", with its extended codes in the high bits), and their messages, for an
#: error raised without a code.
_STORAGE_CODES = {13: "storage.full", 10: "storage.io"}
_STORAGE_MESSAGES = {"database or disk is full": "storage.full", "disk i/o error": "storage.io"}
_STORAGE_WORDS = {
    "storage.full": "the disk holding the event log is full",
    "storage.io": "the disk holding the event log failed to read or write (an I/O error)",
}


class StorageUnavailable(EventLogUnavailable):
    """The embedded log's storage failed (issue 27 item 6): the disk is full (`storage.full`)
    or an I/O error (`storage.io`). The transaction was rolled back, so nothing of the failed
    append was stored; HTTP answers 503 with `Retry-After: 30` (freeing space takes a person)
    and the condition as the error's rule (services/api/http.py)."""

    retry_after = 30

    def __init__(self, condition: str, what: str, cause: sqlite3.Error) -> None:
        self.rule = condition
        super().__init__(
            f"{_STORAGE_WORDS[condition]} ({what}: {cause}); nothing was stored by this "
            "request, retry once the storage is fixed"
        )


def storage_condition(exc: BaseException) -> str | None:
    """`storage.full` or `storage.io` when `exc` is SQLite's report of that storage fault."""
    if not isinstance(exc, sqlite3.Error):
        return None
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int) and (code & 0xFF) in _STORAGE_CODES:
        return _STORAGE_CODES[code & 0xFF]
    text = str(exc).lower()
    return next((c for m, c in _STORAGE_MESSAGES.items() if m in text), None)


_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    position      INTEGER PRIMARY KEY AUTOINCREMENT,
    tournament_id TEXT    NOT NULL,
    seq           INTEGER NOT NULL,
    event_id      TEXT    NOT NULL UNIQUE,
    digest        TEXT    NOT NULL,
    hash          TEXT    NOT NULL,
    body          BLOB    NOT NULL,
    UNIQUE (tournament_id, seq)
);
"""


#: Durability of a committed append (`PRAGMA synchronous`). FULL: the WAL is fsynced at every
#: commit, so an acknowledged event survives a power cut or an OS crash, not only a killed
#: process — what an audit log promises. NORMAL fsyncs only at checkpoints (a power cut can
#: lose the last commits; a process kill cannot). The constructor's `synchronous` (services/
#: config.py gives `ARBITER_SQLITE_SYNCHRONOUS`); the cost is measured by `make bench`
#: (`sqlite.durability`).
SYNCHRONOUS_MODES = ("FULL", "NORMAL", "EXTRA")

#: How many of this process's latest appended envelopes the log keeps for its tails
#: (`SQLiteEventLog._recent`): a tail further behind reads the rows.
RECENT = 1024


class SQLiteEventLog(EventLog):
    backend = "sqlite"

    def __init__(self, path: str | Path, synchronous: str = "FULL") -> None:
        self.synchronous = synchronous.upper()
        if self.synchronous not in SYNCHRONOUS_MODES:
            raise ValueError(f"synchronous must be one of {SYNCHRONOUS_MODES}")
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._appended = threading.Condition()
        # This process's appends so far (under `_appended`): a tail that saw the count
        # unchanged since its last read may wait, any other needs to read again.
        self._appends = 0
        # The envelopes this process appended lately, by position (under `_appended`), as a
        # reader decodes their stored bytes (`encode_read_back`): a tail takes the next
        # positions from here when they follow its own without a gap, instead of reading
        # and decoding the rows it was just told of.
        self._recent: dict[int, Envelope] = {}
        self._newest = 0  # the latest position appended by this process
        with self._conn() as conn:
            conn.executescript(_SCHEMA)

    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=30.0)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"PRAGMA synchronous={self.synchronous}")
            conn.execute("PRAGMA busy_timeout=30000")
            self._local.conn = conn
        return conn

    @contextlib.contextmanager
    def _storage(self, what: str) -> Iterator[None]:
        """A storage fault (disk full, I/O error) becomes `StorageUnavailable`; any other
        error passes unchanged."""
        try:
            yield
        except sqlite3.Error as exc:
            condition = storage_condition(exc)
            if condition is None:
                raise
            raise StorageUnavailable(condition, what, exc) from exc

    def _rollback(self, conn: sqlite3.Connection) -> None:
        """Roll the open transaction back, explicitly: after a failed COMMIT (SQLITE_FULL, an
        I/O error) SQLite leaves it open, and the thread's next BEGIN would fail. When even
        the rollback fails, the connection is dropped (closing it rolls back) and the next
        call opens a fresh one."""
        if not conn.in_transaction:
            return
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:
            with contextlib.suppress(sqlite3.Error):
                conn.close()
            if getattr(self._local, "conn", None) is conn:
                self._local.conn = None

    def append(
        self, tournament_id: str, events: Sequence[NewEvent], expected_seq: int | None = None
    ) -> AppendResult:
        if not events:
            return AppendResult([])
        with self._storage(f"append to {tournament_id}"):
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                result, first, backs = self._append_locked(
                    conn, tournament_id, events, expected_seq
                )
                conn.execute("COMMIT")
            except BaseException:
                self._rollback(conn)
                raise
        if not result.duplicate:
            with self._appended:
                self._appends += 1
                recent = self._recent
                for i, back in enumerate(backs):
                    recent[first + i] = back
                self._newest = max(self._newest, first + len(backs) - 1)
                while len(recent) > RECENT:  # the oldest first (insertion order)
                    del recent[next(iter(recent))]
                self._appended.notify_all()
        return result

    def _append_locked(
        self,
        conn: sqlite3.Connection,
        tournament_id: str,
        events: Sequence[NewEvent],
        expected_seq: int | None,
    ) -> tuple[AppendResult, int, list[Envelope]]:
        """The append inside the write transaction: the result, the position of its first
        row and its envelopes as read back from their bytes (none for a duplicate)."""
        ids = [str(e.event_id) for e in events]
        marks = ",".join("?" * len(ids))
        rows = conn.execute(
            f"SELECT digest, {_COLS} FROM events WHERE event_id IN ({marks})", ids
        ).fetchall()
        stored = {UUID(r[3]): (r[0], _env(r[1:])) for r in rows}
        dup = check_duplicates(tournament_id, events, stored)
        if dup is not None:
            return dup, 0, []
        last = conn.execute(
            "SELECT seq, hash FROM events WHERE tournament_id = ? ORDER BY seq DESC LIMIT 1",
            (tournament_id,),
        ).fetchone()
        last_seq, prev_hash = (last[0], last[1]) if last else (0, GENESIS_HASH)
        if expected_seq is not None and expected_seq != last_seq:
            raise AppendConflict(tournament_id, expected_seq, last_seq)
        now = utcnow()
        out: list[Envelope] = []
        for e in events:
            last_seq += 1
            env = e.sealed(tournament_id, last_seq, prev_hash, now)
            prev_hash = env.hash
            out.append(env)
        bodies, backs = encode_read_back(out, self.limits)  # bounded, and reads back as itself
        rows_in = [
            (tournament_id, env.seq, str(env.event_id), e.digest(tournament_id), env.hash, body)
            for env, e, body in zip(out, events, bodies, strict=True)
        ]
        insert = (
            "INSERT INTO events (tournament_id, seq, event_id, digest, hash, body) "
            "VALUES (?, ?, ?, ?, ?, ?)"
        )
        if len(rows_in) == 1:
            last = conn.execute(insert, rows_in[0]).lastrowid
        else:
            conn.executemany(insert, rows_in)
            last = conn.execute("SELECT last_insert_rowid()").fetchone()[0]
        # AUTOINCREMENT under the write lock: the batch's positions follow one another.
        assert last is not None
        return AppendResult(out, bodies=bodies), int(last) - len(rows_in) + 1, backs

    def read(
        self, tournament_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> Iterator[Envelope]:
        upper = to_seq if to_seq is not None else 2**62
        with self._storage(f"read of {tournament_id}"):
            cur = self._conn().execute(
                f"SELECT {_COLS} FROM events WHERE tournament_id = ? AND seq >= ? AND seq <= ? "
                "ORDER BY seq",
                (tournament_id, max(from_seq, 1), min(upper, 2**62)),
            )
            for row in cur:
                yield _env(row)

    def read_raw(self, tournament_id: str) -> Iterator[bytes]:
        """Stored bytes exactly as written (for `verify` and the benchmarks)."""
        cur = self._conn().execute(
            "SELECT body FROM events WHERE tournament_id = ? ORDER BY seq", (tournament_id,)
        )
        for (body,) in cur:
            # A body edited into TEXT by hand is still handed over (as its UTF-8 bytes).
            yield body.encode() if isinstance(body, str) else bytes(body)

    def stored_rows(self, tournament_id: str, from_seq: int = 1) -> Iterator[StoredRow]:
        """The stream as stored, from `from_seq`, for the audit: each row's own columns (seq,
        event id, hash) with its body, read through a separate read-only connection, bodies as
        bytes whatever their storage class (a body edited into TEXT, or not UTF-8, is still
        handed over). Nothing when the file cannot be opened that way (`:memory:`, an error)."""
        if self.path == ":memory:":
            return
        from urllib.parse import quote

        try:
            conn = sqlite3.connect(f"file:{quote(self.path)}?mode=ro", uri=True, timeout=30.0)
            cur = conn.execute(
                "SELECT seq, CAST(event_id AS BLOB), CAST(hash AS BLOB), CAST(body AS BLOB) "
                "FROM events WHERE tournament_id = ? AND seq >= ? ORDER BY seq, position",
                (tournament_id, from_seq),
            )
        except sqlite3.Error:
            return
        try:
            for seq, event_id, hash_, body in cur:
                yield StoredRow(
                    body=bytes(body) if body is not None else None,
                    seq=seq,
                    event_id=_text(event_id),
                    hash=_text(hash_),
                )
        finally:
            conn.close()

    def read_all(self) -> Iterator[Envelope]:
        with self._storage("read of the log"):
            for row in self._conn().execute(f"SELECT {_COLS} FROM events ORDER BY position"):
                yield _env(row)

    def last_seq(self, tournament_id: str) -> int:
        with self._storage(f"last seq of {tournament_id}"):
            row = (
                self._conn()
                .execute("SELECT MAX(seq) FROM events WHERE tournament_id = ?", (tournament_id,))
                .fetchone()
            )
        return int(row[0] or 0)

    def find(self, event_id: UUID, tournament_id: str | None = None) -> Envelope | None:
        with self._storage(f"find {event_id}"):
            row = (
                self._conn()
                .execute(f"SELECT {_COLS} FROM events WHERE event_id = ?", (str(event_id),))
                .fetchone()
            )
        return _env(row) if row else None

    def stream_ids(self) -> list[str]:
        with self._storage("list of streams"):
            rows = self._conn().execute("SELECT DISTINCT tournament_id FROM events ORDER BY 1")
            return [r[0] for r in rows]

    def subscribe(self, from_beginning: bool = False) -> Subscription:
        start = 0
        if not from_beginning:
            row = self._conn().execute("SELECT MAX(position) FROM events").fetchone()
            start = int(row[0] or 0)
        return SQLiteSubscription(self, start)

    def _after(self, position: int, limit: int) -> list[tuple[int, Envelope]]:
        with self._storage("tail of the log"):
            rows = (
                self._conn()
                .execute(
                    f"SELECT position, {_COLS} FROM events WHERE position > ? "
                    "ORDER BY position LIMIT ?",
                    (position, limit),
                )
                .fetchall()
            )
        return [(r[0], _env(r[1:])) for r in rows]

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None


class SQLiteSubscription(Subscription):
    """This process's appends wake the tail at once (`SQLiteEventLog._appended`) and are
    handed over as they were appended (`SQLiteEventLog._recent`: the envelopes a read of their
    rows would decode) when they follow the tail's position without a gap; anything else is
    read from the log. Another process's appends are seen by polling, every `POLL_INTERVAL`
    at first, then, while the polls find none, at intervals doubling up to
    `MAX_POLL_INTERVAL` (issue 27 item 3: an idle server's tail no longer reads the log 200
    times a second, and a live server's moves, appended in this process, are neither polled
    for nor read back). A read that finds another process's appends goes back to
    `POLL_INTERVAL`."""

    POLL_INTERVAL = 0.005
    MAX_POLL_INTERVAL = 0.05

    def __init__(self, log: SQLiteEventLog, position: int) -> None:
        super().__init__()
        self.log = log
        self.position = position
        self._interval = self.POLL_INTERVAL
        self._next_read = 0.0  # when the log is read next (monotonic), if not woken before

    def _handed_over(self, max_events: int) -> list[Envelope]:
        """The envelopes of this process's appends that follow the tail's position, in order
        (under the log's `_appended`)."""
        recent = self.log._recent
        out: list[Envelope] = []
        position = self.position
        while len(out) < max_events:
            env = recent.get(position + 1)
            if env is None:
                break
            out.append(env)
            position += 1
        self.position = position
        return out

    def poll(self, timeout: float = 1.0, max_events: int = 10_000) -> list[Envelope]:
        deadline = time.monotonic() + timeout
        log = self.log
        while not self.closed:
            with log._appended:
                seen = log._appends
                handed = self._handed_over(max_events)
                # A later append of this process than the tail has: the positions between
                # are another process's (or not handed over yet): read them.
                behind = log._newest > self.position
            if handed:
                return handed
            now = time.monotonic()
            if behind or now >= self._next_read:
                rows = log._after(self.position, max_events)
                self._next_read = now + self._interval
                if rows:
                    envelopes = [env for _, env in rows]  # decoded (never raises) first
                    with log._appended:
                        theirs = any(p not in log._recent for p, _ in rows)
                    self.position = rows[-1][0]
                    if theirs:  # another process appends: poll for it often again
                        self._interval = self.POLL_INTERVAL
                        self._next_read = now + self._interval
                    return envelopes
                self._interval = min(self._interval * 2, self.MAX_POLL_INTERVAL)
            left = deadline - now
            if left <= 0:
                return []
            with log._appended:
                if log._appends == seen:  # no append of this process since the look above
                    log._appended.wait(min(left, max(self._next_read - now, 0.0)))
        return []
