"""One-pass decode of a stored event at its type's current `schema_version` (issue 27 item 5):
the design measured by `tests.bench.decode`, NOT wired into the readers (it did not pay: see
the figures there).

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
equal to the one the two passes build; the event comes with it (`Recorded(envelope, event)`).

Anything else takes the two passes, unchanged, whose errors name the field and the rule: an
old version (upcast as before: the peek's key is not a current one, so no validation is
wasted), a type whose payload holds other values (nested models, UUIDs, dates, decimals:
`payload_plan` returns None; fields of such types that are optional are fine while null), a body
the peek misreads (not canonical: its literals refuse it) and any body the strict pass
refuses (a bad one, or one only lax mode accepts, e.g. `1.0` for an int). A stored body whose
`type` or `schema_version` disagrees with what the peek read cannot take this path: the
specialised model's literals refuse it, and the two passes decode it as they always did.

The specialised models are built on first use.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from typing import Any, Literal, NamedTuple

import annotated_types
from pydantic import BaseModel, StringConstraints, create_model
from pydantic.fields import FieldInfo

from events_schema import Recorded
from events_schema.envelope import Envelope
from events_schema.events import EVENT_CLASSES, Event

# How a payload field's validated value relates to its JSON value (see the module docstring).
_SCALAR = 0  # str, int, bool, None or a Literal of those: the very JSON value
_LIST = 1  # a list of those: an equal list (copied, so the event's own is not shared)
_NULL_ONLY = 2  # anything else, optional: exact while null
_OTHER = 3  # anything else

_Plan = tuple[tuple[str, int], ...]


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


#: A type's name, as a canonical body's last key says it -> its class.
_CURRENT: dict[bytes, type[Event]] = {cls.event_type.encode(): cls for cls in EVENT_CLASSES}


class _Entry(NamedTuple):
    marker: bytes  # `"schema_version":N,"seq":` of the type's current version
    validate: Callable[..., Any]  # the specialised envelope's `validate_json`
    names: tuple[str, ...]  # the payload's fields, sorted (the stored order)
    lists: tuple[str, ...]  # those whose values are lists (copied)
    nulls: tuple[str, ...]  # those exact only while null


#: The same names -> their entry, or None for a type whose dict cannot be taken from its
#: values (`payload_plan`); built on first use.
_BUILT: dict[bytes, _Entry | None] = {}

#: How far before its `"type"` a canonical body says its version: `"schema_version":N,
#: "seq":S,"tournament_id":"T",` with a stream id of at most 64 characters, a seq of 19 digits.
_TAIL = 200


def _build(name: bytes) -> _Entry | None:
    cls = _CURRENT[name]
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
        entry = _Entry(
            marker=f'"schema_version":{cls.schema_version},"seq":'.encode(),
            validate=model.__pydantic_validator__.validate_json,
            names=tuple(n for n, _ in plan),
            lists=tuple(n for n, k in plan if k == _LIST),
            nulls=tuple(n for n, k in plan if k == _NULL_ONLY),
        )
    _BUILT[name] = entry
    return entry


def decode_current(body: bytes) -> Recorded | None:
    """The envelope of a stored body at its type's current version and its event, in one
    validation; None when it takes the two passes (see the module docstring). Never raises."""
    # The peek: the type is the body's last value, its version a little before it. Two
    # searches from the end and a slice; an old version costs no more (a replay of old
    # streams must not pay for the new path).
    at = body.rfind(b'"type":"')
    name = body[at + 8 : -2]
    entry = _BUILT.get(name)
    if entry is None:
        if name in _BUILT or name not in _CURRENT:
            return None
        entry = _build(name)
        if entry is None:
            return None
    if body.rfind(entry.marker, at - _TAIL, at) < 0:
        return None  # another version: the two passes (and the upcasters)
    try:
        env = entry.validate(body, strict=True)
    except Exception:
        return None
    values = env.__dict__
    event = values["payload"]
    given = event.__pydantic_fields_set__
    held = event.__dict__
    payload: dict[str, Any] = {}
    for key in entry.names:
        if key in given:
            payload[key] = held[key]
    for key in entry.lists:
        if (value := payload.get(key)) is not None:
            payload[key] = list(value)
    for key in entry.nulls:
        if payload.get(key) is not None:
            return None
    values["payload"] = payload
    object.__setattr__(env, "__class__", Envelope)  # the same layout: the plain envelope
    return Recorded(env, event)
