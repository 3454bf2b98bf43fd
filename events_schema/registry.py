"""Type name -> payload class, and decoding of stored envelopes into typed events."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import Field
from pydantic_core import SchemaValidator

from events_schema.envelope import Envelope, UnreadableEnvelope
from events_schema.events import EVENT_CLASSES, Event
from events_schema.upcasters import UPCASTERS, Upcaster

EVENT_TYPES: dict[str, type[Event]] = {cls.event_type: cls for cls in EVENT_CLASSES}


class UnknownEventType(LookupError):
    pass


def event_class(type_name: str) -> type[Event]:
    try:
        return EVENT_TYPES[type_name]
    except KeyError:
        raise UnknownEventType(f"unknown event type {type_name!r}") from None


_Decoder = tuple[tuple[Upcaster, ...], Callable[[Any], Event]]

#: (type, stored schema_version) -> its upcasters in order and its class's validator, found
#: once per pair (a replay decodes millions of events of a dozen pairs; issue 27).
_DECODERS: dict[tuple[str, int], _Decoder] = {}


def _decoder(type_name: str, schema_version: int) -> _Decoder:
    """The upcasters from `schema_version` to the current one and the validator; raises as
    `upcast` and `decode_payload` name it (unknown type, newer version, missing upcaster)."""
    cls = event_class(type_name)
    if schema_version > cls.schema_version:
        raise ValueError(
            f"{type_name} v{schema_version} is newer than this code (v{cls.schema_version})"
        )
    steps = []
    for version in range(schema_version, cls.schema_version):
        step = UPCASTERS.get((type_name, version))
        if step is None:
            raise LookupError(f"no upcaster for {type_name} v{version} -> v{version + 1}")
        steps.append(step)
    validator = cls.__pydantic_validator__
    if not isinstance(validator, SchemaValidator):  # not built yet (defer_build): next time
        return tuple(steps), cls.model_validate
    decoder = _DECODERS[(type_name, schema_version)] = (tuple(steps), validator.validate_python)
    return decoder


def decode_payload(type_name: str, schema_version: int, payload: dict[str, Any]) -> Event:
    """Upcast a stored payload to the current version and validate it into its class
    (`cls.model_validate`, through its validator)."""
    decoder = _DECODERS.get((type_name, schema_version))
    steps, validate = decoder if decoder is not None else _decoder(type_name, schema_version)
    for step in steps:
        payload = step(payload)
    event: Event = validate(payload)
    return event


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


def _reason(exc: Exception) -> str:
    """Why a payload cannot be decoded, in one line: a validation error names its first
    field and rule (`ValidationError: MovePlayed.ply: Input should be greater than or equal
    to 1`), any other error its first line."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            first = errors()[0]
            loc = ".".join(str(x) for x in (getattr(exc, "title", ""), *first.get("loc", ())) if x)
            return f"{type(exc).__name__}: {loc}: {first.get('msg', '')}"[:300]
        except Exception:
            pass
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"[:300]


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
        # (class identity, not `isinstance`: pydantic's metaclass makes that cost ~0.3 µs,
        # and every stored event passes here; neither class has subclasses)
        if envelope.__class__ is UnreadableEnvelope:
            return cls(envelope, Unreadable(stored_type=envelope.type, reason=envelope.reason))
        try:
            return cls(
                envelope,
                decode_payload(envelope.type, envelope.schema_version, envelope.payload),
            )
        except Exception as exc:
            return cls(envelope, Unreadable(stored_type=envelope.type[:64], reason=_reason(exc)))

    @property
    def unreadable(self) -> bool:
        return self.event.__class__ is Unreadable

    def __repr__(self) -> str:
        return f"Recorded({self.envelope.tournament_id}#{self.envelope.seq} {self.event!r})"
