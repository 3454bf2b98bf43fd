"""Type name -> payload class, and decoding of stored envelopes into typed events."""

from __future__ import annotations

from typing import Any

from events_schema.envelope import Envelope
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


class Recorded:
    """A stored envelope together with its decoded, upcast payload: what folds consume."""

    __slots__ = ("envelope", "event")

    def __init__(self, envelope: Envelope, event: Event) -> None:
        self.envelope = envelope
        self.event = event

    @classmethod
    def of(cls, envelope: Envelope) -> Recorded:
        return cls(envelope, decode(envelope))

    def __repr__(self) -> str:
        return f"Recorded({self.envelope.tournament_id}#{self.envelope.seq} {self.event!r})"
