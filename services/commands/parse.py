"""A command body validated once (issue 27, item 3: "the request path validates a command
once").

`POST /tournaments/{id}/commands` used to decode the body, re-encode it, validate it as a
`CommandBatch` (payloads as plain dicts), then re-encode each payload and validate it again as
its event type (`services.commands.service.parse_command`). Here the raw body is validated in
one strict JSON pass against a `Command` whose `payload` is the event class its `type` names:
a single command's body against that type's `<Type>Body` (the command's fields, its typed
payload, `expected_seq`), a batch against a `CommandBatch` of `<Type>Command`s discriminated
by `type`. The batch handed on holds these commands, their payloads the events themselves (the
service decides on them: `CommandService.handle(..., events)`).

Only the accepted case takes this path. A body that fails here (an unknown type, a bad field
anywhere) returns None, and the caller runs the two-step validation, whose refusals name the
field and the rule exactly as before (`body.invalid`, `command.unknown_type`,
`payload.invalid` with every error of the payload). Both passes are strict JSON validations of
the same values against the same models, so they accept the same bodies.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Annotated, Any, Literal, Union

from pydantic import Field, TypeAdapter, ValidationError, create_model

from events_schema import Command, CommandBatch, Event
from events_schema.registry import UnknownEventType, event_class


@cache
def _command_model(type_name: str, single: bool) -> type[Command]:
    """`Command` for one event type: `type` is that name, `payload` that event class (a single
    command's body also carries the batch's `expected_seq`)."""
    cls = event_class(type_name)
    fields: dict[str, Any] = {"type": (Literal[type_name], ...)}
    fields["payload"] = (cls, ...)  # absent: the two-step path names it
    if single:
        seq = CommandBatch.model_fields["expected_seq"]
        fields["expected_seq"] = (seq.annotation, seq)
    name = f"{cls.__name__}{'Body' if single else 'Command'}"
    return create_model(name, __base__=Command, **fields)


@lru_cache(maxsize=64)  # bounded: a client chooses the mix of types
def _batch_adapter(types: tuple[str, ...]) -> TypeAdapter[Any]:
    """A batch whose commands are of `types`, each validated as its own type's command."""
    models = tuple(_command_model(t, False) for t in types)
    item: Any = models[0]
    if len(models) > 1:
        item = Annotated[Union[models], Field(discriminator="type")]  # noqa: UP007
    info = CommandBatch.model_fields["commands"]
    batch = create_model("TypedCommandBatch", __base__=CommandBatch, commands=(list[item], info))
    return TypeAdapter(batch)


def validate_once(raw: bytes, data: dict[str, Any]) -> tuple[CommandBatch, list[Event]] | None:
    """The batch and its typed events from the body `raw` (already decoded as `data`, a JSON
    object within the limits), in one strict JSON validation; None if that validation fails
    (the caller then validates in two steps, for the refusal's exact field and rule)."""
    commands = data.get("commands") if "commands" in data else [data]
    if not isinstance(commands, list) or not commands:
        return None
    types: list[str] = []
    for c in commands:
        t = c.get("type") if isinstance(c, dict) else None
        if not isinstance(t, str):
            return None
        types.append(t)
    try:
        if "commands" not in data:
            typed: Any = _command_model(types[0], True).model_validate_json(raw, strict=True)
        else:
            typed = _batch_adapter(tuple(sorted(set(types)))).validate_json(raw, strict=True)
    except (UnknownEventType, ValidationError):
        return None
    if not isinstance(typed, CommandBatch):  # a single command's body
        typed = CommandBatch.model_construct(commands=[typed], expected_seq=typed.expected_seq)
    return typed, [c.payload for c in typed.commands]
