"""FastAPI app: `POST /tournaments/{id}/commands` appends, `GET /tournaments/{id}/events` reads.

Errors are `{"error": {"rule", "field", "message"}}`: 401 no or bad token, 403 wrong role or
tournament, 413 too large (body, event or batch: see events_schema/limits.py), 422 invalid or
refused command, 409 concurrency or event-id conflict, 503 log unavailable (with
`Retry-After`). A refused request appends nothing. No client input is answered with a 500: an
unexpected failure is logged and answered with a 500 that names nothing of the server.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

import orjson
from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import ValidationError

from events_schema import Actor, CommandBatch, Event
from events_schema.codec import dumps, loads
from events_schema.limits import LimitExceeded, Limits
from services.api.arena import arena_router
from services.api.checkpoints import checkpoints_router
from services.api.constraints import constraints_router
from services.api.entries import entries_router
from services.api.exports import exports_router
from services.api.http import (
    ApiError,
    error_response,
    is_log_outage,
    json_response,
    principal,
    reader,
    unavailable_response,
)
from services.api.internal import internal_router
from services.api.openapi import command_openapi, document
from services.api.opengotha import opengotha_router
from services.api.pairing import pairing_router
from services.api.relay import relay_router
from services.api.results import results_router
from services.api.routes import actor_of
from services.commands.auth import TokenStore
from services.commands.parse import validate_once
from services.commands.service import CommandRejected, CommandService, run_sync
from services.config import FeedSettings, Settings
from services.eventlog.base import (
    AppendConflict,
    AppendResult,
    EventIdConflict,
    EventLog,
    EventLogError,
    EventLogUnavailable,
    ForwardUnanswered,
    utcnow,
)
from services.feed.console import console_router
from services.feed.routes import feed_router

log = logging.getLogger("arbiter.api")

#: Largest seq a query may name (the JSON-safe integer range, see events_schema/limits.py).
MAX_SEQ = 2**53 - 1
#: Most events one `GET …/events` returns; `next_from_seq` says where to go on.
MAX_READ = 10_000


def create_app(
    event_log: EventLog,
    tokens: TokenStore,
    limits: Limits | None = None,
    feed: FeedSettings | None = None,
    settings: Settings | None = None,
    clock: Callable[[], datetime] = utcnow,
) -> FastAPI:
    """The composition root hands in the log, the token store, the feed's settings and the
    process's settings (where the checkpoint key and store are: services/api/main.py,
    `arbiter serve`; without them, the defaults), and the clock of the broadcast delay
    (services/feed/delay.py; tests hand in one they move)."""
    limits = limits if limits is not None else event_log.limits
    app = FastAPI(title="Arbiter", version="0.1.0")
    commands = CommandService(event_log, limits=limits)
    app.state.log, app.state.tokens, app.state.commands = event_log, tokens, commands
    app.state.limits = limits
    app.state.settings = settings if settings is not None else Settings()
    document(app)  # the served OpenAPI: command body, error statuses, tokens

    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> Response:
        return error_response(exc.status, exc.rule, exc.field, exc.message, exc.errors)

    @app.exception_handler(LimitExceeded)
    async def _limit(_: Request, exc: LimitExceeded) -> Response:
        return error_response(exc.status, exc.rule, exc.field, exc.message)

    @app.exception_handler(EventLogUnavailable)
    async def _log_down(_: Request, exc: EventLogUnavailable) -> Response:
        return unavailable_response(exc)

    @app.exception_handler(RequestValidationError)
    async def _bad_request(_: Request, exc: RequestValidationError) -> Response:
        err = exc.errors()[0] if exc.errors() else {}
        loc = ".".join(str(x) for x in err.get("loc", ())) or "request"
        return error_response(422, "request.invalid", loc, str(err.get("msg", "invalid request")))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> Response:
        if is_log_outage(exc):
            return unavailable_response(exc)
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return error_response(500, "internal", "", "internal error; it was logged")

    @app.get("/health")
    def health() -> Response:
        return json_response({"status": "ok", "backend": event_log.backend})

    @app.get("/tournaments")
    def list_tournaments(request: Request) -> Response:
        who = principal(tokens, request)
        ids = [t for t in event_log.stream_ids() if who.may_read(t)]
        return json_response({"tournaments": ids})

    @app.get("/tournaments/{tournament_id}/events")
    def read_events(
        tournament_id: str,
        request: Request,
        from_seq: int = Query(1, ge=1, le=MAX_SEQ),
        to_seq: int | None = Query(None, ge=1, le=MAX_SEQ),
        limit: int = Query(MAX_READ, ge=1, le=MAX_READ),
    ) -> Response:
        """Events in seq order, at most `limit`; `next_from_seq` is set when more follow.
        A stored event that cannot be decoded is listed as a marker with `unreadable` (its
        seq, event id and why) in its place."""
        tid = reader(tokens, request, tournament_id)
        upper = min(to_seq if to_seq is not None else MAX_SEQ, from_seq + limit - 1)
        broadcaster = principal(tokens, request).role == "broadcaster"
        if broadcaster:  # the broadcast delay holds here too
            delayed = app.state.feed.delayed
            delayed.release(tid)
            upper = min(upper, delayed.seq(tid))
            to_seq = min(to_seq if to_seq is not None else MAX_SEQ, upper)
        events = [e.to_json_dict() for e in event_log.read(tid, from_seq, upper)]
        more = upper < (to_seq if to_seq is not None else MAX_SEQ) and len(events) == (
            upper - from_seq + 1
        )
        body: dict[str, Any] = {"tournament_id": tid, "events": events, "count": len(events)}
        if more and event_log.last_seq(tid) > upper:
            body["next_from_seq"] = upper + 1
        resp = json_response(body)
        if broadcaster:  # as every delayed read (services/api/delayed.py)
            resp.headers["Arbiter-Delay"] = str(app.state.feed.delayed.delay(tid))
        return resp

    @app.post("/tournaments/{tournament_id}/commands", openapi_extra=command_openapi())
    async def append(tournament_id: str, request: Request) -> Response:
        actor, tid = actor_of(tokens, request, tournament_id, "append to")
        raw = await _read_body(request, limits.max_body_bytes)
        # With ownership by group, the command is decided where its stream is written
        # (issue 27: processes deciding on one stream each kept refusing the others'
        # appends, and a client without expected_seq could get a 409). Should the owner not
        # answer, it is decided here, and its events forwarded (log.py).
        owner = getattr(event_log, "command_owner", None)
        url = owner(tid) if owner is not None else None
        minted = mint_ids(raw) if url is not None else None
        if url is None or minted is None:  # decided here (an unreadable body: refused here)
            return await run_command(tid, actor, raw)
        forward = event_log.forward_command  # type: ignore[attr-defined]
        actor_json = actor.model_dump_json()
        try:
            answer = await run_sync(forward, url, tid, actor_json, raw, minted)
        except ForwardUnanswered as exc:
            # Sent, not answered (the owner died or stalled): it may have been appended
            # there. Resent with the ids it was sent with, as a client resends: found if it
            # was stored, else decided once, by whoever owns the stream now.
            raw = with_ids(raw, minted)
            deadline = time.monotonic() + event_log.APPEND_TIMEOUT_S  # type: ignore[attr-defined]
            answer = None
            while time.monotonic() < deadline:
                url = owner(tid) if owner is not None else None
                if url is None:
                    break
                try:
                    answer = await run_sync(forward, url, tid, actor_json, raw)
                except ForwardUnanswered:
                    await asyncio.sleep(0.5)
                    continue
                except EventLogUnavailable as again:
                    return unavailable_response(again)
                break
            else:
                return unavailable_response(exc)
            if answer is not None:
                return first_send(minted, *answer)
            resp = await run_command(tid, actor, raw)
            keep = {k: v for k, v in resp.headers.items() if k.lower() == "retry-after"}
            return first_send(minted, resp.status_code, bytes(resp.body), keep)
        except EventLogUnavailable as exc:
            return unavailable_response(exc)
        if answer is not None:
            status, body, headers = answer
            return Response(body, status, headers, media_type="application/json")
        return await run_command(tid, actor, raw)

    async def run_command(
        tid: str, actor: Actor, raw: bytes, minted: Sequence[UUID] = ()
    ) -> Response:
        """Decide and append one command body for `actor` (already allowed to append to
        `tid`): the answer `POST …/commands` gives, here or forwarded by another process
        (services/api/internal.py; `minted`: the ids that process chose for the commands
        naming none)."""
        batch, proposed = _parse_batch(raw, limits)
        if minted and len(minted) != sum(c.event_id is None for c in batch.commands):
            raise ApiError(400, "forward.minted_ids", "", "one minted id per command without one")
        try:
            result = await commands.handle_async(tid, batch, actor, proposed, minted)
        except CommandRejected as exc:
            errors = exc.errors_as_dicts()
            raise ApiError(exc.status, exc.rule, exc.field, exc.message, errors) from None
        except (AppendConflict, EventIdConflict) as exc:
            raise ApiError(409, exc.rule, exc.field, str(exc)) from None
        except EventLogUnavailable as exc:
            return unavailable_response(exc)
        except EventLogError as exc:
            raise ApiError(422, exc.rule, exc.field, str(exc)) from None
        except LimitExceeded as exc:
            raise ApiError(exc.status, exc.rule, exc.field, exc.message) from None
        except Exception as exc:  # the log is down: nothing was appended
            if is_log_outage(exc):
                return unavailable_response(exc)
            raise
        return appended_response(tid, result)

    app.state.run_command = run_command

    # live projections: snapshots, SSE, the live page
    app.include_router(feed_router(app, feed or FeedSettings(), clock))
    app.include_router(checkpoints_router(app))  # signed checkpoints
    app.include_router(pairing_router(app))  # arbiter pair / schedule over HTTP
    app.include_router(entries_router(app))  # arbiter create / register / withdraw / bye
    app.include_router(constraints_router(app))  # arbiter prohibit / accelerate
    app.include_router(results_router(app))  # results by board, arbiter round over HTTP
    app.include_router(console_router(app))  # the arbiter's console page (services/feed)
    app.include_router(relay_router(app))  # the relay's push: POST /tournaments/{id}/relay
    app.include_router(opengotha_router(app))  # OpenGotha files in and out (issue 26)
    app.include_router(internal_router(app))  # forwarded appends (ARBITER_KAFKA_OWNERSHIP)
    app.include_router(arena_router(app))  # the arena's status: GET /tournaments/{id}/arena
    app.include_router(exports_router(app))  # PGN, EGF h9, AGA files (services/interchange)
    return app


def mint_ids(raw: bytes) -> list[UUID] | None:
    """Fresh event ids for a body's commands that name none, in order, before it is
    forwarded to its stream's owner (so a resend after a lost answer is found); None when
    the body is not a command or a batch of them (then refused here, with the rule it
    breaks). A body is a batch `{"commands": [...]}` or one command (`_parse_batch`)."""
    try:
        commands = _commands_of(orjson.loads(raw))
    except orjson.JSONDecodeError:
        return None
    if commands is None:
        return None
    return [uuid.uuid4() for c in commands if c.get("event_id") is None]


def with_ids(raw: bytes, minted: Sequence[UUID]) -> bytes:
    """The body with the minted ids written into the commands that named none: a resend."""
    doc = orjson.loads(raw)
    fresh = iter(minted)
    for c in _commands_of(doc) or []:
        if c.get("event_id") is None:
            c["event_id"] = str(next(fresh))
    return orjson.dumps(doc)


def first_send(
    minted: Sequence[UUID], status: int, body: bytes, headers: dict[str, str]
) -> Response:
    """The answer to a command resent with the ids its receiver minted (`mint_ids`): a
    duplicate there means the first send was stored, the client's one append, so it is
    answered as that append was (201, `duplicate` false). Ids are minted only for commands
    that named none and are fresh, and a batch is found stored whole or not at all
    (`EventIdConflict`), so the duplicate cannot be a resend of the client's own."""
    if minted and status == 200:
        doc = orjson.loads(body)
        if isinstance(doc, dict) and doc.get("duplicate") is True:
            doc["duplicate"] = False
            return Response(orjson.dumps(doc), 201, headers, media_type="application/json")
    return Response(body, status, headers, media_type="application/json")


def _commands_of(doc: Any) -> list[dict[str, Any]] | None:
    if not isinstance(doc, dict):
        return None
    commands = doc.get("commands", [doc])
    if not isinstance(commands, list) or not all(isinstance(c, dict) for c in commands):
        return None
    return commands


def appended_response(tid: str, result: AppendResult) -> Response:
    """The answer to a committed append. The events are stored whatever happens here, so if
    the full body cannot be built the client still gets its ids and seqs."""
    status = 200 if result.duplicate else 201
    try:
        stored = result.bodies
        body = {
            "tournament_id": tid,
            "duplicate": result.duplicate,
            "last_seq": result.last_seq,
            # Each event as stored: its canonical bytes as they are (the same bytes as
            # serialising the envelope again), when the log handed them back.
            "events": [orjson.Fragment(b) for b in stored]
            if stored is not None and len(stored) == len(result.envelopes)
            else [e.to_json_dict() for e in result.envelopes],
        }
        return json_response(body, status)
    except Exception:
        log.exception("%s: appended, but the full response could not be built", tid)
        short = {
            "tournament_id": tid,
            "duplicate": result.duplicate,
            "last_seq": result.last_seq,
            "events": [
                {"event_id": str(e.event_id), "seq": e.seq, "type": e.type, "hash": e.hash}
                for e in result.envelopes
            ],
            "partial": True,
        }
        return json_response(short, status)


async def _read_body(request: Request, limit: int) -> bytes:
    """The request body, refused with 413 as soon as it exceeds `limit` bytes (before it is
    parsed, and without reading the rest)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise ApiError(
            413, "limits.body_bytes", "body", f"{declared} bytes; at most {limit} (max_body_bytes)"
        )
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ApiError(413, "limits.body_bytes", "body", f"over {limit} bytes (max_body_bytes)")
        chunks.append(chunk)
    return b"".join(chunks)


def _parse_batch(raw: bytes, limits: Limits) -> tuple[CommandBatch, list[Event] | None]:
    """A body is either a batch `{"commands": [...], "expected_seq": n}` or one command.
    Bounded first (limits on the decoded value), then validated strictly as JSON (no
    string-to-number coercion: `"expected_seq": "5"` is refused), payloads included, in one
    pass (services/commands/parse.py); the events it proposes come back beside the batch. A
    body that pass refuses is validated again in two steps, the batch here and each payload
    in the command service, so the refusal names its field and rule."""
    try:
        data = loads(raw)
    except ValueError as exc:
        raise ApiError(422, "body.not_json", "body", f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ApiError(422, "body.not_object", "body", "send a JSON object")
    try:
        limits.check_value(data, "body")
    except LimitExceeded as exc:
        raise ApiError(exc.status, exc.rule, exc.field, exc.message) from None
    once = validate_once(raw, data)
    if once is not None:
        return once
    if "commands" not in data:
        expected = data.pop("expected_seq", None)
        data = {"commands": [data], "expected_seq": expected}
    try:
        return CommandBatch.model_validate_json(dumps(data), strict=True), None
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"]) or "body"
        raise ApiError(422, "body.invalid", loc, err["msg"]) from None
