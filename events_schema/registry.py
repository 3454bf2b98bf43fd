"""Type name -> payload class, and decoding of stored envelopes into typed events."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from events_schema.envelope import Envelope, UnreadableEnvelope
from events_schema.events import EVENT_CLASSES, Event
from events_schema.upcasters import upcast

EVENT_TYPES: dict[str, type[Event]] = {cls.event_type: cls for cls in EVENT_CLASSES}


class UnknownEventType(LookupError):
    pass


def event_class(type_name: str) -> type[Event]:
    try:
        return EVENT_TYPES[type_name]
    except KeyError:
        raise UnknownEventType(f"unknown event type {type_name!r}") from None


def decode_payload(type_name: str, schema_version: int, payload: dict[str, Any]) -> Event:
    """Upcast a stored payload to the current version and validate it into its class."""
    cls = event_class(type_name)
    if schema_version > cls.schema_version:
        raise ValueError(
            f"{type_name} v{schema_version} is newer than this code (v{cls.schema_version})"
        )
    if schema_version < cls.schema_version:
        payload = upcast(type_name, schema_version, payload, cls.schema_version)
    return cls.model_validate(payload)


def decode(envelope: Envelope) -> Event:
    return decode_payload(envelope.type, envelope.schema_version, envelope.payload)


def encode_payload(event: Event) -> dict[str, Any]:
    return event.model_dump(mode="json", exclude_none=True)


class Unreadable(Event):
    """What a reader folds where a stored event cannot be decoded (its envelope or its
    payload: unknown type, newer version, invalid or too deeply nested). Not a stored type:
    no command can propose it. Every fold records it and holds the tournament's
    projections until an `EventRetracted` names its event id."""

    event_type: ClassVar[str] = "(unreadable)"

    stored_type: str = Field(max_length=64)
    reason: str = Field(max_length=300)


class Recorded:
    """A stored envelope together with its decoded, upcast payload: what folds consume."""

    __slots__ = ("envelope", "event")

    def __init__(self, envelope: Envelope, event: Event) -> None:
        self.envelope = envelope
        self.event = event

    @classmethod
    def of(cls, envelope: Envelope) -> Recorded:
        """The reader's decode: never raises. An event that cannot be decoded comes back as
        `Unreadable` (poison tolerance: it holds its own tournament, nothing else)."""
        if isinstance(envelope, UnreadableEnvelope):
            return cls(envelope, Unreadable(stored_type=envelope.type, reason=envelope.reason))
        try:
            return cls(envelope, decode(envelope))
        except Exception as exc:
            lines = str(exc).strip().splitlines()
            reason = f"{type(exc).__name__}: {lines[0] if lines else ''}"[:300]
            return cls(envelope, Unreadable(stored_type=envelope.type[:64], reason=reason))

    @property
    def unreadable(self) -> bool:
        return isinstance(self.event, Unreadable)

    def __repr__(self) -> str:
        return f"Recorded({self.envelope.tournament_id}#{self.envelope.seq} {self.event!r})"
