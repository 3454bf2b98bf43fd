"""What the use-case routers share (entries, constraints, OpenGotha, exports, arena): who
writes, the bounded body, the JSON body as a model, a use case run off the event loop with its
refusals as the API's errors, the answer to a write, and a tournament's records for a reader.

Errors are `ApiError`s (services/api/http.py), answered as `{"error": {rule, field, message}}`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import Response
from pydantic import BaseModel, ValidationError
from starlette.concurrency import run_in_threadpool

from events_schema import Actor, Recorded
from services.api.http import ApiError, json_response, writer
from services.commands.auth import TokenStore
from services.commands.service import CommandRejected
from services.eventlog.base import AppendConflict, AppendResult, EventIdConflict, EventLog

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

#: A refusal's field as the CLI names it -> as the API does.
FIELDS = {"PLAYER": "player", "TOURNAMENT": "tournament_id"}

#: What a write answers besides the errors (services/api/openapi.py documents those).
WRITE_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"description": "Nothing appended: already recorded (a resend)."},
    201: {"description": "Appended: the stored events."},
    413: {"description": "The body is too large (max_body_bytes)."},
}


def actor_of(
    tokens: TokenStore, request: Request, tournament_id: str, doing: str
) -> tuple[Actor, str]:
    """The actor of a write and its tournament id (401, 422, 403 as `writer`)."""
    who, tid = writer(tokens, request, tournament_id, doing)
    return Actor(id=who.subject, role=who.role), tid


async def bounded_body(app: FastAPI, request: Request) -> bytes:
    """The request body, 413 `limits.body_bytes` over `max_body_bytes`."""
    limit = app.state.limits.max_body_bytes
    raw = await request.body()
    if len(raw) > limit:
        raise ApiError(413, "limits.body_bytes", "body", f"over {limit} bytes")
    return raw


def parse_json(raw: bytes) -> Any:
    """The JSON body (`{}` when empty), 422 `request.malformed_json` when it is not JSON."""
    try:
        return orjson.loads(raw) if raw.strip() else {}
    except orjson.JSONDecodeError as exc:
        raise ApiError(422, "request.malformed_json", "body", str(exc)) from None


def parse_model(model: type[M], raw: bytes) -> M:
    """The JSON body as `model`, 422 `request.invalid` naming the first bad field."""
    try:
        return model.model_validate(parse_json(raw))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise ApiError(422, "request.invalid", f"body.{where}", first["msg"]) from None


async def run_use_case(call: Callable[[], T]) -> T:
    """Run a use case off the event loop: a decider's refusal is its status with the rule and
    the field (as the API names it), a lost race or a reused event id 409."""
    try:
        return await run_in_threadpool(call)
    except CommandRejected as exc:
        raise ApiError(
            exc.status, exc.rule, FIELDS.get(exc.field, exc.field), exc.message
        ) from None
    except (AppendConflict, EventIdConflict) as exc:
        raise ApiError(409, exc.rule, exc.field, str(exc)) from None


def appended(tid: str, result: AppendResult) -> Response:
    """The answer to a committed write, as `POST /tournaments/{id}/commands` gives it."""
    body = {
        "tournament_id": tid,
        "duplicate": result.duplicate,
        "last_seq": result.last_seq,
        "events": [e.to_json_dict() for e in result.envelopes],
    }
    return json_response(body, 200 if result.duplicate else 201)


def tournament_records(
    log: EventLog, tid: str, upto: int | None, rule: str, missing: str
) -> list[Recorded]:
    """The tournament's records up to seq `upto` (a broadcaster's delayed view; None: all),
    404 `rule` with the message `missing` when it has none."""
    records = [Recorded.of(e) for e in log.read(tid, 1, upto)]
    if not records:
        raise ApiError(404, rule, "tournament_id", missing)
    return records
