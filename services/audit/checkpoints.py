"""Signed checkpoints: tamper evidence beyond the hash chain.

The chain catches an edited, removed, reordered or moved event, but not a cut-off end of a
stream (its last events deleted) nor a suffix that was edited and re-hashed from some seq on:
what is left is a self-consistent chain. A checkpoint closes that gap. It is a statement
"stream T had N events and the hash of event N was H, at time S", signed with an Ed25519 key:

    {"checkpoint": {"tournament_id", "seq", "head_hash", "signed_at", "key_id"},
     "signature": base64(Ed25519 over the canonical bytes of "checkpoint"),
     "public_key": base64(the raw 32-byte public key), "key_id"}

The signed bytes are `events_schema.codec.dumps(checkpoint)` (sorted keys, no whitespace);
`key_id` is the first 16 hex digits of SHA-256 of the raw public key. A checkpoint held
outside the log (published, mailed, printed) makes any later truncation or rewrite at or
before its seq visible: `verify_against` (and `arbiter verify T --checkpoint FILE|URL`).

Keys. The signing key is a PEM file (PKCS#8, mode 0600): `ARBITER_CHECKPOINT_KEY` (a path;
it must exist), else `$ARBITER_DATA/checkpoint-key.pem`, generated on first use. Rotation: a
new key has a new key_id; checkpoints signed with the old key stay verifiable as long as the
verifier trusts (pins) the old public key too. A verifier that pins no key trusts the key a
checkpoint embeds: that only proves the checkpoint was not altered after signing, not who
signed it (it is reported as self-asserted).

Store. Every checkpoint signed here goes into an append-only SQLite table
(`$ARBITER_DATA/checkpoints.sqlite3`, or `ARBITER_CHECKPOINTS_DB`), served by
`GET /tournaments/{id}/checkpoints`. The store sits next to the log, so whoever can rewrite
the log can rewrite the store too: checkpoints protect once they are copied elsewhere.

Signing refuses a head that does not extend the previous checkpoint of the same stream (the
stream got shorter, or the hash at the previous checkpoint's seq changed) or whose chain is
broken: a scheduled signer never blesses a rewritten history.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from events_schema.codec import dumps, loads
from services.audit import replay as audit
from services.config import Settings

log = logging.getLogger("arbiter.checkpoints")

KEY_FILE = "checkpoint-key.pem"
STORE_FILE = "checkpoints.sqlite3"
DEFAULT_EVERY = 60.0  # seconds between scheduled signing runs (ARBITER_CHECKPOINT_EVERY)
_FIELDS = ("head_hash", "key_id", "seq", "signed_at", "tournament_id")


# --------------------------------------------------------------------------------------------
# errors
# --------------------------------------------------------------------------------------------


class CheckpointError(Exception):
    """A refusal with the API's rule/field vocabulary."""

    rule = "checkpoint"
    field = "checkpoint"
    status = 422

    def __init__(self, message: str, rule: str | None = None, status: int | None = None) -> None:
        super().__init__(message)
        if rule is not None:
            self.rule = rule
        if status is not None:
            self.status = status


class CheckpointRefused(CheckpointError):
    """The head was not signed: no events, a broken chain, or a head that does not extend the
    stream's previous checkpoint."""

    rule = "checkpoint.refused"
    field = "tournament_id"


class CheckpointFormatError(CheckpointError):
    rule = "checkpoint.malformed"


class CheckpointKeyError(CheckpointError):
    rule = "checkpoint.key"
    field = "key"


# --------------------------------------------------------------------------------------------
# keys
# --------------------------------------------------------------------------------------------


def key_id_of(public_key: bytes) -> str:
    """The first 16 hex digits of SHA-256 of the raw 32-byte public key."""
    return hashlib.sha256(public_key).hexdigest()[:16]


def _raw_public(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def public_pem(public_key: bytes) -> bytes:
    key = Ed25519PublicKey.from_public_bytes(public_key)
    return key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


@dataclass(frozen=True)
class SigningKey:
    private: Ed25519PrivateKey
    path: Path | None = None

    @property
    def public_key(self) -> bytes:
        return _raw_public(self.private.public_key())

    @property
    def key_id(self) -> str:
        return key_id_of(self.public_key)

    @classmethod
    def generate(cls) -> SigningKey:
        return cls(Ed25519PrivateKey.generate())

    def pem(self) -> bytes:
        return self.private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )

    def sign(
        self, tournament_id: str, seq: int, head_hash: str, now: datetime | None = None
    ) -> SignedCheckpoint:
        when = (now or datetime.now(UTC)).astimezone(UTC)
        body = {
            "tournament_id": tournament_id,
            "seq": seq,
            "head_hash": head_hash,
            "signed_at": when.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "key_id": self.key_id,
        }
        data = dumps(body)
        return SignedCheckpoint(
            checkpoint=Checkpoint.parse(body),
            body=data,
            signature=self.private.sign(data),
            public_key=self.public_key,
            key_id=self.key_id,
        )


def public_key_path(directory: Path, key_id: str) -> Path:
    return directory / f"checkpoint-{key_id}.pub.pem"


def write_key_files(key: SigningKey, private_path: Path) -> Path:
    """Write the private key (PEM, mode 0600, never over an existing file) and its public key
    next to it (`checkpoint-<key_id>.pub.pem`); returns the public key's path."""
    private_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, key.pem())
    finally:
        os.close(fd)
    pub = public_key_path(private_path.parent, key.key_id)
    pub.write_bytes(public_pem(key.public_key))
    return pub


def load_signing_key(path: Path, warn: Callable[[str], None] | None = None) -> SigningKey:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CheckpointKeyError(f"cannot read the signing key {path}: {exc}") from None
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise CheckpointKeyError(f"{path} is not an unencrypted PEM private key ({exc})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise CheckpointKeyError(f"{path} is not an Ed25519 key ({type(key).__name__})")
    mode = path.stat().st_mode & 0o777
    if mode & 0o077 and warn is not None:
        warn(f"the signing key {path} is readable by others (mode {mode:o}): chmod 600 it")
    return SigningKey(key, path)


def load_or_create_key(
    path: Path, create: bool = True, announce: Callable[[str], None] | None = None
) -> SigningKey:
    """The signing key at `path`; with `create`, a new one is generated there (and its public
    key written next to it) if the file does not exist yet, and `announce`d."""
    say = announce or log.warning
    if path.exists() or not create:
        return load_signing_key(path, say)
    key = SigningKey.generate()
    try:
        pub = write_key_files(key, path)
    except FileExistsError:  # another signer created it first
        return load_signing_key(path, say)
    say(
        f"generated a checkpoint signing key (Ed25519, key_id {key.key_id}) at {path}; "
        f"its public key is {pub}: publish it so that verifiers can pin it "
        "(arbiter verify --public-key), and back the private key up"
    )
    return SigningKey(key.private, path)


def key_path(settings: Settings | None = None) -> tuple[Path, bool]:
    """The signing key's path and whether it was configured (`ARBITER_CHECKPOINT_KEY`: it
    must exist) or is the default under ARBITER_DATA (generated on first use)."""
    configured = os.environ.get("ARBITER_CHECKPOINT_KEY")
    if configured:
        return Path(configured), True
    return (settings or Settings.from_env()).data_dir / KEY_FILE, False


def store_path(settings: Settings | None = None) -> Path:
    configured = os.environ.get("ARBITER_CHECKPOINTS_DB")
    if configured:
        return Path(configured)
    return (settings or Settings.from_env()).data_dir / STORE_FILE


def load_public_key(path: Path) -> bytes:
    """A trusted public key from a file: PEM (public, or a private key whose public half is
    taken), or the base64 of the raw 32 bytes (as in a checkpoint's `public_key`)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CheckpointKeyError(f"cannot read the public key {path}: {exc}") from None
    try:
        if b"PRIVATE KEY-----" in data:
            private = serialization.load_pem_private_key(data, password=None)
            if isinstance(private, Ed25519PrivateKey):
                return _raw_public(private.public_key())
        elif b"-----BEGIN" in data:
            public = serialization.load_pem_public_key(data)
            if isinstance(public, Ed25519PublicKey):
                return _raw_public(public)
        else:
            raw = base64.b64decode(data.strip(), validate=True)
            if len(raw) == 32:
                return raw
    except (ValueError, TypeError, binascii.Error):
        pass
    raise CheckpointKeyError(
        f"{path} is not an Ed25519 public key (PEM, or base64 of the raw 32 bytes)"
    )


# --------------------------------------------------------------------------------------------
# checkpoints
# --------------------------------------------------------------------------------------------


def _hex(value: object, length: int) -> bool:
    return (
        isinstance(value, str)
        and len(value) == length
        and all(c in "0123456789abcdef" for c in value)
    )


@dataclass(frozen=True)
class Checkpoint:
    tournament_id: str
    seq: int
    head_hash: str
    signed_at: str
    key_id: str

    @classmethod
    def parse(cls, data: object) -> Checkpoint:
        if not isinstance(data, dict):
            raise CheckpointFormatError("'checkpoint' is not an object")
        if sorted(data) != list(_FIELDS):
            raise CheckpointFormatError(
                f"'checkpoint' has the fields {sorted(data)}, not {list(_FIELDS)}"
            )
        tid, seq, head = data["tournament_id"], data["seq"], data["head_hash"]
        at, kid = data["signed_at"], data["key_id"]
        if not isinstance(tid, str) or not tid:
            raise CheckpointFormatError("checkpoint.tournament_id is not a stream id")
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
            raise CheckpointFormatError(f"checkpoint.seq {seq!r} is not a seq (an integer ≥ 1)")
        if not _hex(head, 64):
            raise CheckpointFormatError("checkpoint.head_hash is not 64 lowercase hex digits")
        if not isinstance(at, str) or not _aware(at):
            raise CheckpointFormatError(f"checkpoint.signed_at {at!r} is not an ISO UTC time")
        if not _hex(kid, 16):
            raise CheckpointFormatError("checkpoint.key_id is not 16 lowercase hex digits")
        return cls(tid, seq, head, at, kid)

    @property
    def signed_time(self) -> datetime:
        return datetime.fromisoformat(self.signed_at)


def _aware(text: str) -> bool:
    try:
        return datetime.fromisoformat(text).tzinfo is not None
    except ValueError:
        return False


def _b64(value: object, name: str, length: int) -> bytes:
    if not isinstance(value, str):
        raise CheckpointFormatError(f"'{name}' is not a base64 string")
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise CheckpointFormatError(f"'{name}' is not valid base64") from None
    if len(raw) != length:
        raise CheckpointFormatError(f"'{name}' is {len(raw)} bytes, not {length}")
    return raw


@dataclass(frozen=True)
class SignedCheckpoint:
    checkpoint: Checkpoint
    body: bytes  # the exact signed bytes: dumps(checkpoint object)
    signature: bytes
    public_key: bytes
    key_id: str

    @property
    def tournament_id(self) -> str:
        return self.checkpoint.tournament_id

    @property
    def seq(self) -> int:
        return self.checkpoint.seq

    @property
    def head_hash(self) -> str:
        return self.checkpoint.head_hash

    def describe(self) -> str:
        return f"(key {self.checkpoint.key_id}, signed at {self.checkpoint.signed_at})"

    def as_dict(self) -> dict[str, Any]:
        return {
            "checkpoint": loads(self.body),
            "signature": base64.b64encode(self.signature).decode(),
            "public_key": base64.b64encode(self.public_key).decode(),
            "key_id": self.key_id,
        }

    def to_json(self) -> bytes:
        return dumps(self.as_dict())

    @classmethod
    def from_dict(cls, data: object) -> SignedCheckpoint:
        """Strict: the published form, as `as_dict` writes it."""
        if not isinstance(data, dict):
            raise CheckpointFormatError("a signed checkpoint is a JSON object")
        missing = [k for k in ("checkpoint", "signature", "public_key", "key_id") if k not in data]
        if missing:
            raise CheckpointFormatError(f"a signed checkpoint has no {', '.join(missing)}")
        checkpoint = Checkpoint.parse(data["checkpoint"])
        key_id = data["key_id"]
        if not _hex(key_id, 16):
            raise CheckpointFormatError("key_id is not 16 lowercase hex digits")
        return cls(
            checkpoint=checkpoint,
            body=dumps(data["checkpoint"]),
            signature=_b64(data["signature"], "signature", 64),
            public_key=_b64(data["public_key"], "public_key", 32),
            key_id=key_id,
        )


def parse_published(data: object) -> list[SignedCheckpoint | CheckpointFormatError]:
    """The checkpoints in a published document: one signed checkpoint, a list of them, or the
    API's `{"checkpoints": [...]}`. Each entry parses or is its error (the rest still count)."""
    if isinstance(data, dict) and "checkpoints" in data and "checkpoint" not in data:
        data = data["checkpoints"]
    items = data if isinstance(data, list) else [data]
    out: list[SignedCheckpoint | CheckpointFormatError] = []
    for item in items:
        try:
            out.append(SignedCheckpoint.from_dict(item))
        except CheckpointFormatError as exc:
            out.append(exc)
    return out


# --------------------------------------------------------------------------------------------
# the store
# --------------------------------------------------------------------------------------------

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


# --------------------------------------------------------------------------------------------
# signing
# --------------------------------------------------------------------------------------------


def verified_head(log: Any, tournament_id: str, since: SignedCheckpoint | None) -> tuple[int, str]:
    """The stream's last seq and hash, after checking its chain: from seq 1, or, given the
    stream's previous checkpoint, from that checkpoint's seq on (the head must extend it:
    same hash at its seq, and an intact chain from there). Raises `CheckpointRefused`."""
    if since is not None:
        last = log.last_seq(tournament_id)
        if last < since.seq:
            raise CheckpointRefused(
                f"{tournament_id}: the stream ends at seq {last}, but seq {since.seq} is "
                f"signed in checkpoint {since.describe()}: events were removed from its end",
                rule="checkpoint.truncated",
            )
        stored = audit.stored_records(log, tournament_id, from_seq=since.seq)
        v = audit.verify_chain(
            tournament_id,
            stored,
            from_seq=since.seq,
            prev_hash=None,
            at_seqs=(since.seq,),
            check_decode=False,
        )
        if v.ok and v.hashes.get(since.seq) != since.head_hash:
            raise CheckpointRefused(
                f"{tournament_id}: the hash at seq {since.seq} is {v.hashes.get(since.seq)}, "
                f"not the head_hash {since.head_hash} signed in checkpoint {since.describe()}: "
                "the stream was rewritten",
                rule="checkpoint.rewritten",
            )
    else:
        v = audit.verify_chain(
            tournament_id, audit.stored_records(log, tournament_id), check_decode=False
        )
    if v.events == 0:
        raise CheckpointRefused(
            f"{tournament_id!r} has no events", rule="checkpoint.no_events", status=404
        )
    if not v.ok:
        b = v.broken or {}
        raise CheckpointRefused(
            f"{tournament_id}: the chain is broken at seq {b.get('seq')} ({b.get('kind')}: "
            f"{b.get('detail')}); not signed",
            rule="checkpoint.chain_broken",
        )
    return v.head_seq, v.head_hash


def _check_own(store_latest: SignedCheckpoint | None) -> None:
    """The previous checkpoint a signer builds on must carry a valid signature."""
    if store_latest is None:
        return
    result = check_signature(store_latest, None)
    if result.status != "ok":
        raise CheckpointRefused(
            f"{store_latest.tournament_id}: the stored checkpoint at seq {store_latest.seq} "
            f"{store_latest.describe()} fails its signature check ({result.detail}): the "
            "checkpoint store was tampered with",
            rule="checkpoint.store_tampered",
        )


def sign_head(
    log: Any,
    store: CheckpointStore,
    key: SigningKey,
    tournament_id: str,
    now: datetime | None = None,
) -> SignedCheckpoint:
    """Verify the head of a stream (extending its previous checkpoint), sign it and store the
    checkpoint. Raises `CheckpointRefused`."""
    previous = store.latest(tournament_id)
    _check_own(previous)
    seq, head_hash = verified_head(log, tournament_id, previous)
    cp = key.sign(tournament_id, seq, head_hash, now)
    store.add(cp)
    return cp


@dataclass
class DueResult:
    signed: list[SignedCheckpoint] = field(default_factory=list)
    refused: dict[str, CheckpointError] = field(default_factory=dict)
    unchanged: int = 0


def _hash_at(log: Any, tournament_id: str, seq: int) -> str | None:
    env = next(iter(log.read(tournament_id, seq, seq)), None) if seq else None
    return env.hash if env is not None else None


def sign_due(
    log: Any,
    store: CheckpointStore,
    key: SigningKey,
    *,
    every_events: int = 1,
    every_seconds: float = 0.0,
    now: datetime | None = None,
) -> DueResult:
    """Sign every stream whose head moved since its last checkpoint (its last seq, or the hash
    at that checkpoint's seq, differ), when it moved by at least `every_events` events or its
    last checkpoint is at least `every_seconds` old (0: no time rule). A stream that got
    shorter or was rewritten is always due: signing it is refused, and reported in
    `refused`."""
    now = now or datetime.now(UTC)
    result = DueResult()
    for tid in log.stream_ids():
        try:
            last = store.latest(tid)
            seq = log.last_seq(tid)
            # Unmoved: same last seq, same hash there. Extended: longer, and the hash at the
            # last checkpoint's seq unchanged (else it was rewritten: due, and refused).
            if last is not None and seq >= last.seq:
                if _hash_at(log, tid, last.seq) != last.head_hash:
                    seq = -1
                elif seq == last.seq:
                    result.unchanged += 1
                    continue
            if last is not None and seq > last.seq:
                moved = seq - last.seq >= max(every_events, 1)
                old = every_seconds > 0 and (
                    (now - last.checkpoint.signed_time).total_seconds() >= every_seconds
                )
                if not (moved or old):
                    continue
            result.signed.append(sign_head(log, store, key, tid, now))
        except CheckpointError as exc:  # refused, or a stored checkpoint that does not parse
            result.refused[tid] = exc
    return result


class CheckpointService:
    """The log, the store and the (lazily loaded or generated) signing key, for one process:
    the API, the scheduler and the CLI share it. Signing is serialised per service."""

    def __init__(
        self,
        log: Any,
        store: CheckpointStore,
        key_file: Path,
        *,
        create_key: bool = True,
        announce: Callable[[str], None] | None = None,
    ) -> None:
        self.log, self.store, self.key_file = log, store, key_file
        self.create_key = create_key
        self.announce = announce
        self._key: SigningKey | None = None
        self._lock = threading.Lock()

    @classmethod
    def from_settings(
        cls,
        log: Any,
        settings: Settings | None = None,
        announce: Callable[[str], None] | None = None,
    ) -> CheckpointService:
        settings = settings or Settings.from_env()
        path, configured = key_path(settings)
        return cls(
            log,
            CheckpointStore(store_path(settings)),
            path,
            create_key=not configured,
            announce=announce,
        )

    def key(self) -> SigningKey:
        if self._key is None:
            self._key = load_or_create_key(self.key_file, self.create_key, self.announce)
        return self._key

    def sign(self, tournament_id: str, now: datetime | None = None) -> SignedCheckpoint:
        with self._lock:
            return sign_head(self.log, self.store, self.key(), tournament_id, now)

    def sign_due(
        self, every_events: int = 1, every_seconds: float = 0.0, now: datetime | None = None
    ) -> DueResult:
        with self._lock:
            return sign_due(
                self.log,
                self.store,
                self.key(),
                every_events=every_events,
                every_seconds=every_seconds,
                now=now,
            )

    def close(self) -> None:
        self.store.close()


class CheckpointScheduler:
    """A daemon thread that runs `sign_due` at once and then every `interval` seconds until
    `stop()`; a failed run is logged and the next one tried."""

    thread_name = "arbiter-checkpoints"

    def __init__(
        self,
        service: CheckpointService,
        interval: float = DEFAULT_EVERY,
        every_events: int = 1,
        every_seconds: float = 0.0,
    ) -> None:
        self.service, self.interval = service, interval
        self.every_events, self.every_seconds = every_events, every_seconds
        self.runs = 0
        self.errors = 0
        self.last: DueResult | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> CheckpointScheduler:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def tick(self) -> DueResult | None:
        try:
            result = self.service.sign_due(self.every_events, self.every_seconds)
        except Exception:  # keep the server up; say what went wrong, try again next time
            self.errors += 1
            log.exception("checkpoints: scheduled signing failed")
            return None
        self.runs += 1
        self.last = result
        for cp in result.signed:
            log.info("checkpoint %s#%s %s signed (key %s)", cp.tournament_id, cp.seq,
                     cp.head_hash, cp.key_id)  # fmt: skip
        for tid, exc in result.refused.items():
            log.error("checkpoint of %s refused: %s: %s", tid, exc.rule, exc)
        return result

    def _run(self) -> None:
        while not self._stop.is_set():
            self.tick()
            if self._stop.wait(self.interval):
                return


def scheduler_interval(environ: Mapping[str, str] | None = None) -> float:
    """`ARBITER_CHECKPOINT_EVERY`: seconds between scheduled signing runs (default 60; 0 or
    less disables)."""
    env = os.environ if environ is None else environ
    raw = env.get("ARBITER_CHECKPOINT_EVERY", "").strip() or str(DEFAULT_EVERY)
    try:
        return float(raw)
    except ValueError:
        raise ValueError(
            f"ARBITER_CHECKPOINT_EVERY must be seconds (0 disables), not {raw!r}"
        ) from None


def attach_scheduler(
    app: Any, settings: Settings | None = None, environ: Mapping[str, str] | None = None
) -> CheckpointScheduler | None:
    """The serve hook: give an API app (`services.api.app.create_app`) its checkpoint service
    (shared with its checkpoint routes) and, unless `ARBITER_CHECKPOINT_EVERY` is 0, scheduled
    signing of its log, started and stopped with the server (the app's startup and shutdown).
    Returns the scheduler (None when disabled)."""
    every = scheduler_interval(environ)
    service = CheckpointService.from_settings(app.state.log, settings)
    app.state.checkpoints = service
    if every <= 0:
        return None
    scheduler = CheckpointScheduler(service, every)
    app.state.checkpoint_scheduler = scheduler
    app.router.on_startup.append(scheduler.start)
    app.router.on_shutdown.append(scheduler.stop)
    return scheduler


# --------------------------------------------------------------------------------------------
# verifying
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SignatureCheck:
    status: str  # ok | bad_signature | unknown_key
    detail: str = ""
    self_asserted: bool = False  # checked with the key the checkpoint embeds (none pinned)


def check_signature(cp: SignedCheckpoint, pinned: Mapping[str, bytes] | None) -> SignatureCheck:
    """Check a checkpoint's signature with a pinned key (its key_id among `pinned`), or, when
    nothing is pinned, with the key it embeds (self-asserted)."""
    if cp.key_id != cp.checkpoint.key_id:
        return SignatureCheck(
            "bad_signature",
            f"the outer key_id {cp.key_id} is not the signed key_id {cp.checkpoint.key_id}",
        )
    if pinned:
        key = pinned.get(cp.key_id)
        if key is None:
            return SignatureCheck(
                "unknown_key",
                f"key {cp.key_id} is not among the trusted keys ({', '.join(sorted(pinned))})",
            )
        self_asserted = False
    else:
        key = cp.public_key
        if key_id_of(key) != cp.key_id:
            return SignatureCheck(
                "bad_signature",
                f"the embedded public key has key_id {key_id_of(key)}, not {cp.key_id}",
            )
        self_asserted = True
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(cp.signature, cp.body)
    except InvalidSignature:
        return SignatureCheck(
            "bad_signature", f"the signature does not verify with key {cp.key_id}"
        )
    return SignatureCheck("ok", "", self_asserted)


@dataclass
class CheckpointResult:
    source: str
    status: str  # ok | truncated | rewritten | bad_signature | unknown_key | malformed |
    # other_tournament | unchecked
    detail: str = ""
    checkpoint: SignedCheckpoint | None = None
    self_asserted: bool = False

    @property
    def problem(self) -> bool:
        return self.status not in ("ok", "unchecked")

    def as_dict(self) -> dict[str, Any]:
        cp = self.checkpoint
        return {
            "source": self.source,
            "status": self.status,
            "detail": self.detail,
            "seq": cp.seq if cp else None,
            "head_hash": cp.head_hash if cp else None,
            "key_id": cp.key_id if cp else None,
            "signed_at": cp.checkpoint.signed_at if cp else None,
            "trust": None if cp is None else ("self-asserted" if self.self_asserted else "pinned"),
        }


@dataclass
class Report:
    """`verify` with checkpoints: the chain's verdict, each checkpoint's result, and the first
    problem (signature problems, then the chain, then the stream against the checkpoints in
    seq order)."""

    verdict: audit.Verdict
    checkpoints: list[CheckpointResult]
    problems: list[dict[str, Any]]
    warnings: list[str]

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_dict(self) -> dict[str, Any]:
        out = self.verdict.as_dict()
        out["ok"] = self.ok
        out["checkpoints"] = [c.as_dict() for c in self.checkpoints]
        out["problem"] = self.problems[0] if self.problems else None
        out["warnings"] = self.warnings
        return out


def verify_against(
    tournament_id: str,
    stored: Iterable[Any],
    checkpoints: Sequence[tuple[str, SignedCheckpoint | CheckpointFormatError]],
    pinned: Mapping[str, bytes] | None = None,
) -> Report:
    """Verify a stream's chain and check it against signed checkpoints, each (source, parsed
    checkpoint or its format error). A checkpoint is trusted once its signature verifies
    (with a pinned key, or, when none is pinned, its embedded key: then a warning says so);
    then the stream's event at its seq must exist and carry its head_hash, with the chain
    intact from seq 1 up to there."""
    results: list[CheckpointResult] = []
    problems: list[dict[str, Any]] = []
    warnings: list[str] = []
    trusted: list[CheckpointResult] = []
    for source, item in checkpoints:
        if isinstance(item, CheckpointFormatError):
            r = CheckpointResult(source, "malformed", f"{source}: {item}")
            results.append(r)
            problems.append({"seq": None, "kind": "malformed", "detail": r.detail})
            continue
        sig = check_signature(item, pinned)
        r = CheckpointResult(source, sig.status, sig.detail, item, sig.self_asserted)
        results.append(r)
        if sig.status != "ok":
            r.detail = f"checkpoint {source} at seq {item.seq} {item.describe()}: {sig.detail}"
            problems.append({"seq": item.seq, "kind": sig.status, "detail": r.detail})
            continue
        if item.tournament_id != tournament_id:
            r.status = "other_tournament"
            r.detail = f"checkpoint {source} is of {item.tournament_id!r}, not {tournament_id!r}"
            problems.append({"seq": item.seq, "kind": r.status, "detail": r.detail})
            continue
        trusted.append(r)
    for kid in sorted({r.checkpoint.key_id for r in trusted if r.self_asserted and r.checkpoint}):
        warnings.append(
            f"checkpoint key {kid} is self-asserted (the public key embedded in the "
            "checkpoint): it proves the checkpoint is unaltered, not who signed it; pin the "
            "signer's key with --public-key"
        )
    at = {r.checkpoint.seq for r in trusted if r.checkpoint}
    verdict = audit.verify_chain(tournament_id, stored, at_seqs=at)
    if not verdict.ok:
        b = verdict.broken or {}
        problems.append({"seq": b.get("seq"), "kind": b.get("kind"), "detail": b.get("detail")})
    stream_problems: list[dict[str, Any]] = []
    for r in trusted:
        cp = r.checkpoint
        assert cp is not None
        if not verdict.ok and cp.seq >= int((verdict.broken or {}).get("seq") or 0):
            r.status = "unchecked"
            r.detail = f"the chain is broken at seq {(verdict.broken or {}).get('seq')}"
        elif cp.seq > verdict.head_seq:
            r.status = "truncated"
            r.detail = (
                f"seq {cp.seq} is signed in checkpoint {r.source} {cp.describe()} but the "
                f"stream ends at {verdict.head_seq}"
            )
        elif verdict.hashes.get(cp.seq) != cp.head_hash:
            r.status = "rewritten"
            r.detail = (
                f"seq {cp.seq}: the stream's hash {verdict.hashes.get(cp.seq)} is not the "
                f"head_hash {cp.head_hash} signed in checkpoint {r.source} {cp.describe()}: "
                f"the stream was rewritten at or before seq {cp.seq} and re-hashed"
            )
        else:
            r.detail = f"seq {cp.seq} {cp.head_hash} matches checkpoint {r.source} {cp.describe()}"
        if r.problem:
            stream_problems.append({"seq": cp.seq, "kind": r.status, "detail": r.detail})
    problems.extend(sorted(stream_problems, key=lambda p: int(p["seq"])))
    return Report(verdict, results, problems, warnings)
