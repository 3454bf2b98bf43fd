"""FastAPI app: `POST /tournaments/{id}/commands` appends, `GET /tournaments/{id}/events` reads.

Errors are `{"error": {"rule", "field", "message"}}`: 401 no or bad token, 403 wrong role or
tournament, 422 invalid or refused command, 409 concurrency or event-id conflict, 503 log
unavailable. A refused request appends nothing.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import FastAPI, Query, Request
from fastapi.responses import Response
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from events_schema import Actor, Command, CommandBatch
from events_schema.codec import dumps, loads
from services.auth import Principal, TokenStore
from services.commands import CommandRejected, CommandService
from services.eventlog.base import AppendConflict, EventIdConflict, EventLog, EventLogError

_STREAM_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class ApiError(Exception):
    def __init__(self, status: int, rule: str, field: str, message: str) -> None:
        super().__init__(message)
        self.status, self.rule, self.field, self.message = status, rule, field, message


def _json(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(dumps(body), status_code=status, media_type="application/json", headers=headers)


def _error(status: int, rule: str, field: str, message: str) -> Response:
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return _json({"error": {"rule": rule, "field": field, "message": message}}, status, headers)


def create_app(log: EventLog, tokens: TokenStore) -> FastAPI:
    """The composition root hands in the log and the token store (services/api/main.py)."""
    app = FastAPI(title="Arbiter", version="0.1.0")
    commands = CommandService(log)
    app.state.log, app.state.tokens, app.state.commands = log, tokens, commands

    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> Response:
        return _error(exc.status, exc.rule, exc.field, exc.message)

    def principal(request: Request) -> Principal:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if not header:
            raise ApiError(401, "auth.missing_token", "Authorization", "send 'Bearer <token>'")
        who = tokens.authenticate(token.strip()) if scheme.lower() == "bearer" else None
        if who is None:
            raise ApiError(401, "auth.invalid_token", "Authorization", "unknown or revoked token")
        return who

    def stream_id(tournament_id: str) -> str:
        if not _STREAM_ID.match(tournament_id):
            raise ApiError(
                422,
                "path.tournament_id",
                "tournament_id",
                "use 1–64 characters of A–Z, a–z, 0–9, '.', '_', '-', starting alphanumeric",
            )
        return tournament_id

    @app.get("/health")
    def health() -> Response:
        return _json({"status": "ok", "backend": log.backend})

    @app.get("/tournaments")
    def list_tournaments(request: Request) -> Response:
        who = principal(request)
        ids = [t for t in log.stream_ids() if who.may_read(t)]
        return _json({"tournaments": ids})

    @app.get("/tournaments/{tournament_id}/events")
    def read_events(
        tournament_id: str,
        request: Request,
        from_seq: int = Query(1, ge=1),
        to_seq: int | None = Query(None, ge=1),
    ) -> Response:
        who = principal(request)
        tid = stream_id(tournament_id)
        if not who.may_read(tid):
            raise ApiError(403, "auth.forbidden", "tournament_id", f"{who.role} may not read {tid}")
        events = [e.to_json_dict() for e in log.read(tid, from_seq, to_seq)]
        return _json({"tournament_id": tid, "events": events, "count": len(events)})

    @app.post("/tournaments/{tournament_id}/commands")
    async def append(tournament_id: str, request: Request) -> Response:
        who = principal(request)
        tid = stream_id(tournament_id)
        if not who.may_write(tid):
            raise ApiError(
                403,
                "auth.forbidden",
                "tournament_id",
                f"{who.role} {who.subject} may not append to {tid}",
            )
        raw = await request.body()
        batch = _parse_batch(raw)
        actor = Actor(id=who.subject, role=who.role)
        try:
            result = await run_in_threadpool(commands.handle, tid, batch, actor)
        except CommandRejected as exc:
            raise ApiError(exc.status, exc.rule, exc.field, exc.message) from None
        except (AppendConflict, EventIdConflict) as exc:
            raise ApiError(409, exc.rule, exc.field, str(exc)) from None
        except EventLogError as exc:
            raise ApiError(422, exc.rule, exc.field, str(exc)) from None
        except Exception as exc:  # the log is down: nothing was appended
            if type(exc).__module__.startswith("kafka"):
                raise ApiError(503, "eventlog.unavailable", "", str(exc)) from None
            raise
        body = {
            "tournament_id": tid,
            "duplicate": result.duplicate,
            "last_seq": result.last_seq,
            "events": [e.to_json_dict() for e in result.envelopes],
        }
        return _json(body, 200 if result.duplicate else 201)

    from services.feed import feed_router  # live projections: snapshots, SSE, the live page

    app.include_router(feed_router(app))
    return app


def _parse_batch(raw: bytes) -> CommandBatch:
    """A body is either a batch `{"commands": [...], "expected_seq": n}` or one command."""
    try:
        data = loads(raw)
    except ValueError as exc:
        raise ApiError(422, "body.not_json", "body", f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ApiError(422, "body.not_object", "body", "send a JSON object")
    try:
        if "commands" in data:
            return CommandBatch.model_validate(data)
        expected = data.pop("expected_seq", None)
        return CommandBatch(commands=[Command.model_validate(data)], expected_seq=expected)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"]) or "body"
        raise ApiError(422, "body.invalid", loc, err["msg"]) from None
