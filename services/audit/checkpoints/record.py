"""The checkpoint record: what is signed (`Checkpoint`: stream, seq, head hash, time, key id)
and its published form (`SignedCheckpoint`: the signed bytes, the signature and the public key,
base64 in JSON), parsed strictly."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from events_schema.codec import dumps, loads
from services.audit.checkpoints.errors import CheckpointFormatError

_FIELDS = ("head_hash", "key_id", "seq", "signed_at", "tournament_id")


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
