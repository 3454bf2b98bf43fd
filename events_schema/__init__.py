"""Arbiter's event contract: envelope, event payloads, commands, upcasters, the codec.

No I/O lives here."""

from events_schema.commands import Command, CommandBatch
from events_schema.envelope import Actor, Envelope, chain_hash, seal
from events_schema.events import EVENT_CLASSES, Event
from events_schema.ids import GENESIS_HASH
from events_schema.registry import (
    EVENT_TYPES,
    Recorded,
    decode,
    decode_payload,
    encode_payload,
)

__all__ = [
    "EVENT_CLASSES",
    "EVENT_TYPES",
    "GENESIS_HASH",
    "Actor",
    "Command",
    "CommandBatch",
    "Envelope",
    "Event",
    "Recorded",
    "chain_hash",
    "decode",
    "decode_payload",
    "encode_payload",
    "seal",
]
