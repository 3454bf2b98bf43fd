"""The event envelope: the metadata every stored event carries, and the hash chain.

Each tournament (or series) stream is a hash chain: `hash` is the SHA-256 of the canonical
orjson bytes of the envelope without its own `hash` field, and `prev_hash` is the previous
event's `hash` (the first event's is 64 zeros). Altering, removing or reordering a stored event
breaks the chain at that point.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime
from typing import Any, Literal
from uuid import UUID

import orjson
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from events_schema.codec import dumps
from events_schema.ids import GENESIS_HASH, Sha256Hex, StreamId

Role = Literal["admin", "arbiter", "broadcaster", "auditor", "system"]


class Actor(BaseModel):
    """Who caused the event: a token's subject and role, or a system process."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    id: str = Field(min_length=1, max_length=128)
    role: Role


class Envelope(BaseModel):
    """A stored event: metadata plus the type's payload (a plain dict, decoded lazily)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    event_id: UUID
    tournament_id: StreamId
    seq: int = Field(ge=1)
    type: str = Field(min_length=1, max_length=64)
    schema_version: int = Field(ge=1)
    occurred_at: AwareDatetime
    recorded_at: AwareDatetime
    actor: Actor
    causation_id: UUID | None = None
    correlation_id: UUID | None = None
    payload: dict[str, Any]
    prev_hash: Sha256Hex
    hash: Sha256Hex

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def to_bytes(self) -> bytes:
        """The canonical stored form."""
        return dumps(self.to_json_dict())

    def computed_hash(self) -> str:
        return chain_hash(self.to_json_dict())


def chain_hash(envelope_json: dict[str, Any]) -> str:
    """SHA-256 over the canonical bytes of the envelope without its `hash` field."""
    body = {k: v for k, v in envelope_json.items() if k != "hash"}
    return hashlib.sha256(dumps(body)).hexdigest()


def seal(
    *,
    event_id: UUID,
    tournament_id: str,
    seq: int,
    type: str,
    schema_version: int,
    occurred_at: datetime,
    recorded_at: datetime,
    actor: Actor,
    causation_id: UUID | None,
    correlation_id: UUID | None,
    payload: dict[str, Any],
    prev_hash: str,
) -> Envelope:
    """Build an envelope at its position in the stream and compute its hash."""
    for name, value in (("occurred_at", occurred_at), ("recorded_at", recorded_at)):
        if value.tzinfo is None:
            # A naive time would be read as the host's local time: the stored instant and
            # the hash would depend on the machine's TZ.
            raise ValueError(f"{name} must carry a timezone (e.g. 2026-11-21T12:00:00Z)")
    unsealed = Envelope(
        event_id=event_id,
        tournament_id=tournament_id,
        seq=seq,
        type=type,
        schema_version=schema_version,
        occurred_at=occurred_at.astimezone(UTC),
        recorded_at=recorded_at.astimezone(UTC),
        actor=actor,
        causation_id=causation_id,
        correlation_id=correlation_id,
        payload=payload,
        prev_hash=prev_hash,
        hash=GENESIS_HASH,
    )
    return unsealed.model_copy(update={"hash": unsealed.computed_hash()})


def envelope_from_bytes(data: bytes) -> Envelope:
    """Strict decode: raises on bytes that are not a valid envelope (the write path's check,
    see `services.eventlog.base.encode_checked`). Readers use `read_envelope`."""
    return Envelope.model_validate_json(data)


#: Namespace of the ids given to stored events whose own id cannot be read.
UNREADABLE_NS = UUID("0b5c1d0e-6a43-4d55-9d1e-5e2f6c1a7e90")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class UnreadableEnvelope(Envelope):
    """Stands, in a reader, where a stored event's bytes cannot be decoded as an envelope
    (a manual edit, or an event stored by an older bug, e.g. nested deeper than the parser
    allows). It keeps its place: the stream, seq, event id and hash as far as they can be
    read from the stored record (else: the seq the reader counted, an id derived from the
    bytes, `stored_sha256`), and why it is unreadable. Folds treat it as `Unreadable`: it
    holds its tournament's projections, nothing else, until an admin retracts it by its
    `event_id` (which needs no decoding). It is never written back: `to_json_dict` is the
    honest marker the API shows in its place."""

    reason: str
    stored_sha256: str
    stored_bytes: int

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "tournament_id": self.tournament_id,
            "seq": self.seq,
            "event_id": str(self.event_id),
            "type": self.type,
            "hash": self.hash,
            "unreadable": self.reason,
            "stored_sha256": self.stored_sha256,
            "stored_bytes": self.stored_bytes,
        }


def unreadable_id(tournament_id: str, stored_sha256: str) -> UUID:
    """The id of an event whose own id cannot be read: every reader derives the same."""
    return uuid.uuid5(UNREADABLE_NS, f"{tournament_id}:{stored_sha256}")


def read_envelope(
    data: bytes | bytearray | memoryview | str,
    *,
    tournament_id: str | None = None,
    seq: int | None = None,
    event_id: str | UUID | None = None,
    hash: str | None = None,
) -> Envelope:
    """A reader's decode: never raises. Bytes that are not a valid envelope come back as an
    `UnreadableEnvelope`; what the storage knows of the record (SQLite's columns, Kafka's
    key) fills in what the bytes do not say. `seq=None` and unreadable bytes: seq 0, which
    the caller replaces by the position it counted."""
    body = (
        data if data.__class__ is bytes else data.encode() if isinstance(data, str) else bytes(data)
    )
    try:
        # `Envelope.model_validate_json` without its wrapper (a replay reads millions)
        return Envelope.__pydantic_validator__.validate_json(body)  # type: ignore[no-any-return]
    except Exception as exc:
        reason = _first_line(exc)
    raw: dict[str, Any] = {}
    try:
        loaded = orjson.loads(body)  # deeper than pydantic's parser, if it is JSON at all
        if isinstance(loaded, dict):
            raw = loaded
    except orjson.JSONDecodeError:
        pass
    digest = hashlib.sha256(body).hexdigest()
    tid = _str(raw.get("tournament_id")) or tournament_id or "?"
    if tournament_id is not None and tid != tournament_id:
        tid = tournament_id  # the storage's key is what readers group by
    eid = _uuid(event_id) or _uuid(raw.get("event_id")) or unreadable_id(tid, digest)
    number = seq if seq is not None else raw.get("seq")
    return UnreadableEnvelope.model_construct(
        event_id=eid,
        tournament_id=tid,
        seq=_int(number, 0),
        type=(_str(raw.get("type")) or "(unreadable)")[:64],
        schema_version=_int(raw.get("schema_version"), 1),
        occurred_at=_time(raw.get("occurred_at")),
        recorded_at=_time(raw.get("recorded_at")),
        actor=Actor(id="?", role="system"),
        causation_id=None,
        correlation_id=None,
        payload={},
        prev_hash=_hex(raw.get("prev_hash")) or GENESIS_HASH,
        hash=hash or _hex(raw.get("hash")) or digest,
        reason=reason,
        stored_sha256=digest,
        stored_bytes=len(body),
    )


def _first_line(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            first = errors()[0]
            loc = ".".join(str(x) for x in first.get("loc", ())) or "envelope"
            return f"{loc}: {first.get('msg', '')}"[:300]
        except Exception:
            pass
    text = str(exc).strip().splitlines()
    return (f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__)[:300]


def _int(v: Any, default: int) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else default


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) and v else None


def _uuid(v: Any) -> UUID | None:
    if isinstance(v, UUID):
        return v
    try:
        return UUID(v) if isinstance(v, str) else None
    except ValueError:
        return None


def _hex(v: Any) -> str | None:
    ok = isinstance(v, str) and len(v) == 64 and all(c in "0123456789abcdef" for c in v)
    return v if ok else None


def _time(v: Any) -> datetime:
    if isinstance(v, str):
        try:
            t = datetime.fromisoformat(v)
            if t.tzinfo is not None:
                return t.astimezone(UTC)
        except (ValueError, OverflowError):
            pass
    return _EPOCH
