"""One-pass decode of stored events (issue 27 item 5): the envelope and its payload validated
by one pydantic `validate_json` over a discriminated union, instead of the envelope first (its
payload a plain dict) and then the payload dict again into its class.

The union is tagged twice: by `type`, then by `schema_version`. For the current version of a
type the member's `payload` is the event class itself (and, under the same JSON key, `raw`: the
plain dict the `Envelope` keeps, which hashes and serialises as stored). An older version's
member keeps the payload a dict: it is upcast and validated as before (`decode_payload`), so
upcasting is unchanged. Anything else (an unknown type, a newer version, an invalid envelope or
payload) fails here and the reader falls back to the two-pass path, which says why
(`read_envelope`, `Recorded.of`): the outcome is the same, only slower.

The decoded event rides on the envelope (`Envelope.decoded`), where `Recorded.of` takes it,
keyed by the payload object it was decoded from: an envelope copied with another payload or
type is decoded again.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal, Union

from pydantic import Field, TypeAdapter, create_model

from events_schema.envelope import Envelope
from events_schema.events import EVENT_CLASSES, Event
from events_schema.upcasters import UPCASTERS


def _member(cls: type[Event], version: int) -> type[Envelope]:
    """The union's member for one type and version: an `Envelope` with `type`,
    `schema_version` and `payload` narrowed (same layout, so a validated member becomes an
    `Envelope` by its class alone, see `decode_stored`)."""
    fields: dict[str, Any] = {
        "type": (Literal[cls.event_type], ...),
        "schema_version": (Literal[version], ...),
    }
    if version == cls.schema_version:
        fields["payload"] = (cls, ...)
        fields["raw"] = (dict[str, Any], Field(validation_alias="payload"))
    return create_model(f"Stored{cls.event_type}V{version}", __base__=Envelope, **fields)


@cache
def _adapter() -> TypeAdapter[Any]:
    """Built on first use (about 35 types × versions: not at import, which the CLI's start-up
    would pay)."""
    per_type: list[Any] = []
    for cls in EVENT_CLASSES:
        olds = sorted(v for (t, v) in UPCASTERS if t == cls.event_type)
        members = [_member(cls, v) for v in (*olds, cls.schema_version)]
        if len(members) == 1:
            per_type.append(members[0])
        else:
            per_type.append(
                Annotated[Union[tuple(members)], Field(discriminator="schema_version")]  # noqa: UP007
            )
    union: Any = Annotated[Union[tuple(per_type)], Field(discriminator="type")]  # noqa: UP007
    return TypeAdapter(union)


def decode_stored(body: bytes) -> Envelope | None:
    """The envelope of stored bytes in one validation, with its event when the payload is of
    the type's current version (`Envelope.decoded`); None when the bytes are not a valid
    envelope of a known type and version (the caller's two-pass path then says why)."""
    try:
        env: Envelope = _adapter().validate_json(body)
    except Exception:  # ValidationError, or what the two-pass path will name
        return None
    # The member becomes the Envelope it stands for: `raw` (its last field) takes `payload`'s
    # place, the event is kept beside it, and its class is Envelope's (the same layout: a
    # subclass that adds no slots), as `Envelope.model_validate_json` would have built it.
    values = env.__dict__
    if "raw" in values:
        event = values["payload"]
        payload = values["payload"] = values.pop("raw")
        env.__pydantic_fields_set__.discard("raw")
        kept = (values["type"], values["schema_version"], payload, event)
        object.__setattr__(env, "__pydantic_private__", {"decoded": kept})
    object.__setattr__(env, "__class__", Envelope)
    return env
