"""One-pass decode of a stored event at its type's current `schema_version` (issue 27 item 5).

The readers' decode is two passes: the envelope's JSON validated with `payload` a plain dict
(`read_envelope`), then that dict validated into its event class (`Recorded.of`). For a
stored body at its type's current version this module does both in ONE validation: a peek at
the body's last keys (canonical bytes sort their keys, so they end with
`"schema_version":N,"seq":S,"tournament_id":"T","type":"X"}`) picks the envelope model
specialised to that (type, version), whose `type` and `schema_version` are those literals
and whose `payload` is the event class itself (no union to dispatch on), validated in
pydantic's strict mode. The payload dict the envelope keeps (hashed, served, compared) is then
taken from the event's own values: in strict mode a field of a JSON-native type (str, int,
bool, None, a Literal of those, a list of those: `_kind`) holds exactly the JSON value it was
given, so the keys the body gave (`model_fields_set`) with their values are the stored dict,
equal to the one the two passes build. The dict (a `DecodedPayload`) carries the event, and
`Recorded.of` takes it instead of validating the dict again.

Anything else takes the two passes, unchanged, whose errors name the field and the rule: an
old version (upcast as before: the peek's key is not a current one, so no validation is
wasted), a type whose payload holds other values (nested models, UUIDs, dates, decimals:
`payload_plan` returns None; fields of such types that are optional are fine while null), a body
the peek misreads (not canonical: its literals refuse it) and any body the strict pass
refuses (a bad one, or one only lax mode accepts, e.g. `1.0` for an int). A stored body whose
`type` or `schema_version` disagrees with what the peek read cannot take this path: the
specialised model's literals refuse it, and the two passes decode it as they always did.

Pure: no I/O. The specialised models are built on first use (`defer_build`: importing this
costs nothing).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from typing import Any, Literal

import annotated_types
from pydantic import BaseModel, StringConstraints, create_model
from pydantic.fields import FieldInfo

from events_schema import envelope as _envelope
from events_schema.envelope import Envelope
from events_schema.events import EVENT_CLASSES, Event


class DecodedPayload(dict[str, Any]):
    """An envelope's payload dict decoded in the same pass as its event, which it carries in
    `event` (`Recorded.of` takes it). As a dict it is the plain dict the two-pass decode
    gives: equal to it, serialised (orjson, pydantic) and hashed as it."""

    __slots__ = ("event",)

    event: Event


# How a payload field's validated value relates to its JSON value (see the module docstring).
_SCALAR = 0  # str, int, bool, None or a Literal of those: the very JSON value
_LIST = 1  # a list of those: an equal list (copied, so the event's own is not shared)
_NULL_ONLY = 2  # anything else, optional: exact while null
_OTHER = 3  # anything else

_Plan = tuple[tuple[str, int], ...]
_Entry = tuple[Callable[..., Any], _Plan]


def _plain(meta: object) -> bool:
    """A constraint that only checks a value (length, bounds, pattern), never changes it."""
    if isinstance(meta, StringConstraints):
        return not (meta.strip_whitespace or meta.to_upper or meta.to_lower)
    if isinstance(meta, annotated_types.GroupedMetadata):
        return all(_plain(m) for m in meta)
    if isinstance(meta, annotated_types.BaseMetadata):
        return True
    if isinstance(meta, FieldInfo):
        return (
            meta.validation_alias is None and meta.alias is None and all(map(_plain, meta.metadata))
        )
    # pydantic's own carrier of `Field(pattern=..., strict=...)`
    if type(meta).__name__ == "_PydanticGeneralMetadata":
        return set(vars(meta)) <= {"pattern", "strict"}
    return False


def _kind(tp: Any) -> int:
    """How the validated value of a field typed `tp` relates to its JSON value."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        base, *meta = typing.get_args(tp)
        return _kind(base) if all(map(_plain, meta)) else _OTHER
    if tp in (str, int, bool, type(None)):
        return _SCALAR
    if origin is Literal:
        ok = all(v is None or type(v) in (str, int, bool) for v in typing.get_args(tp))
        return _SCALAR if ok else _OTHER
    if origin is list:
        (item,) = typing.get_args(tp)
        return _LIST if _kind(item) == _SCALAR else _OTHER
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        kinds = {_kind(a) for a in args if a is not type(None)}
        nullable = type(None) in args
        if kinds == {_SCALAR}:
            return _SCALAR
        if kinds == {_LIST} and nullable:
            return _LIST
        return _NULL_ONLY if nullable else _OTHER
    return _OTHER


def payload_plan(cls: type[Event]) -> _Plan | None:
    """The payload fields of `cls` in sorted order (the stored order) with their kinds, or None
    when the dict cannot be taken from its values (a required field of another type, an
    alias, a validator, a config that changes strings, extra keys kept)."""
    config = cls.model_config
    if config.get("extra") != "forbid" or any(
        config.get(k) for k in ("str_strip_whitespace", "str_to_lower", "str_to_upper")
    ):
        return None
    decorators = cls.__pydantic_decorators__
    if (
        decorators.validators
        or decorators.field_validators
        or decorators.root_validators
        or decorators.model_validators
    ):
        return None
    plan = []
    for name, field in sorted(cls.model_fields.items()):
        if field.alias is not None or field.validation_alias is not None:
            return None
        kind = _kind(field.annotation) if all(map(_plain, field.metadata)) else _OTHER
        if kind == _NULL_ONLY and field.is_required():
            kind = _OTHER
        if kind == _OTHER:
            return None
        plan.append((name, kind))
    return tuple(plan)


#: (type, current schema_version), as the bytes of a canonical body say them -> the class.
_CURRENT: dict[tuple[bytes, bytes], type[Event]] = {
    (cls.event_type.encode(), str(cls.schema_version).encode()): cls for cls in EVENT_CLASSES
}
#: The same keys -> (the strict `validate_json` of the specialised envelope, the plan), or
#: None for a type whose dict cannot be taken from its values; built on first use.
_BUILT: dict[tuple[bytes, bytes], _Entry | None] = {}


def _build(key: tuple[bytes, bytes]) -> _Entry | None:
    cls = _CURRENT[key]
    plan = payload_plan(cls)
    entry: _Entry | None = None
    if plan is not None:
        type_literal: Any = Literal[cls.event_type]
        version_literal: Any = Literal[cls.schema_version]
        model: type[BaseModel] = create_model(
            f"Stored{cls.event_type}V{cls.schema_version}",
            __base__=Envelope,
            __module__=__name__,
            type=(type_literal, ...),
            schema_version=(version_literal, ...),
            payload=(cls, ...),
        )
        model.model_rebuild()
        entry = (model.__pydantic_validator__.validate_json, plan)
    _BUILT[key] = entry
    return entry


def _peek(body: bytes) -> tuple[bytes, bytes]:
    """(type, schema_version) as the end of a canonical body says them; any bytes otherwise."""
    t = body.rfind(b'"type":"')
    v = body.rfind(b'"schema_version":', 0, t)
    return body[t + 8 : -2], body[v + 17 : body.find(b",", v)]


def decode_current(body: bytes) -> Envelope | None:
    """The envelope of a stored body at its type's current version, its payload a
    `DecodedPayload` carrying the event, in one validation; None when it takes the two passes
    (see the module docstring). Never raises."""
    key = _peek(body)
    entry = _BUILT.get(key)
    if entry is None:
        if key not in _CURRENT or key in _BUILT:
            return None
        entry = _build(key)
        if entry is None:
            return None
    validate, plan = entry
    try:
        env = validate(body, strict=True)
    except Exception:
        return None
    values = env.__dict__
    event = values["payload"]
    given = event.__pydantic_fields_set__
    held = event.__dict__
    payload = DecodedPayload()
    for name, kind in plan:
        if name in given:
            value = held[name]
            if kind == _SCALAR or value is None:
                payload[name] = value
            elif kind == _LIST:
                payload[name] = list(value)
            else:
                return None
    payload.event = event
    values["payload"] = payload
    object.__setattr__(env, "__class__", Envelope)  # the same layout: the plain envelope
    return env  # type: ignore[no-any-return]


_envelope.one_pass = decode_current
