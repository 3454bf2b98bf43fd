"""The event envelope: the metadata every stored event carries, and the hash chain.

Each tournament (or series) stream is a hash chain: `hash` is the SHA-256 of the canonical
orjson bytes of the envelope without its own `hash` field, and `prev_hash` is the previous
event's `hash` (the first event's is 64 zeros). Altering, removing or reordering a stored event
breaks the chain at that point.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any, Literal
from uuid import UUID

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from events_schema.codec import dumps
from events_schema.ids import GENESIS_HASH, Sha256Hex, StreamId

Role = Literal["admin", "arbiter", "broadcaster", "auditor", "system"]


class Actor(BaseModel):
    """Who caused the event: a token's subject and role, or a system process."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, max_length=128)
    role: Role


class Envelope(BaseModel):
    """A stored event: metadata plus the type's payload (a plain dict, decoded lazily)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

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
    return Envelope.model_validate_json(data)
