"""A command body validated once (issue 27, item 3: "the request path validates a command
once").

`POST /tournaments/{id}/commands` used to decode the body, re-encode it, validate it as a
`CommandBatch` (payloads as plain dicts), then re-encode each payload and validate it again as
its event type (`services.commands.service.parse_command`). Here the raw body is validated in
one strict JSON pass against a model whose `payload` is the event class its `type` names: a
single command's body against that type's `<Type>Command` model (the command's fields, its
typed payload, `expected_seq`), a batch against a union of them discriminated by `type`.

Only the accepted case takes this path. A body that fails here (an unknown type, a bad field
anywhere) returns None, and the caller runs the two-step validation, whose refusals name the
field and the rule exactly as before (`body.invalid`, `command.unknown_type`,
`payload.invalid` with every error of the payload). Both passes are strict JSON validations of
the same values against the same models, so they accept the same bodies.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model

from events_schema import Command, CommandBatch, Event
from events_schema.registry import UnknownEventType, event_class


class _TypedCommand(BaseModel):
    """`Command`'s fields with the payload typed; built per event type by `_command_model`."""

    model_config = ConfigDict(frozen=True, extra="forbid")


@cache
def _command_model(type_name: str, single: bool) -> type[BaseModel]:
    """`Command` for one event type: `type` is that name, `payload` that event class (a single
    command's body also carries the batch's `expected_seq`)."""
    cls = event_class(type_name)
    fields: dict[str, Any] = {
        name: (info.annotation, info)
        for name, info in Command.model_fields.items()
        if name not in ("type", "payload")
    }
    fields["type"] = (Literal[type_name], ...)
    fields["payload"] = (cls, ...)  # absent: the two-step path names it
    if single:
        seq = CommandBatch.model_fields["expected_seq"]
        fields["expected_seq"] = (seq.annotation, seq)
    name = f"{cls.__name__}{'Body' if single else 'Command'}"
    return create_model(name, __base__=_TypedCommand, **fields)


@lru_cache(maxsize=64)  # bounded: a client chooses the mix of types
def _batch_adapter(types: tuple[str, ...]) -> TypeAdapter[Any]:
    """A batch whose commands are of `types`, each validated as its own type's command."""
    models = tuple(_command_model(t, False) for t in types)
    item: Any = models[0]
    if len(models) > 1:
        item = Annotated[Union[models], Field(discriminator="type")]  # noqa: UP007
    fields: dict[str, Any] = {
        name: (list[item] if name == "commands" else info.annotation, info)
        for name, info in CommandBatch.model_fields.items()
    }
    batch = create_model("TypedCommandBatch", __base__=_TypedCommand, **fields)
    return TypeAdapter(batch)


def _command(typed: Any, payload: dict[str, Any]) -> Command:
    """The plain `Command` (already validated: built without a second pass)."""
    return Command.model_construct(
        type=typed.type,
        payload=payload,
        event_id=typed.event_id,
        occurred_at=typed.occurred_at,
        causation_id=typed.causation_id,
        correlation_id=typed.correlation_id,
    )


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
            one: Any = _command_model(types[0], True).model_validate_json(raw, strict=True)
            typed, expected = [one], one.expected_seq
        else:
            whole: Any = _batch_adapter(tuple(sorted(set(types)))).validate_json(raw, strict=True)
            typed, expected = whole.commands, whole.expected_seq
    except (UnknownEventType, ValidationError):
        return None
    batch = CommandBatch.model_construct(
        commands=[_command(t, c.get("payload", {})) for t, c in zip(typed, commands, strict=True)],
        expected_seq=expected,
    )
    return batch, [t.payload for t in typed]
