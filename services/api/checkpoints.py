"""Checkpoint routes: the signed checkpoints of a tournament's stream
(services/audit/checkpoints/).

- `GET /tournaments/{id}/checkpoints`: `{"tournament_id", "checkpoints": [...], "count"}`, every
  stored checkpoint of the stream, newest last (empty when none was signed yet).
- `GET /tournaments/{id}/checkpoints/latest`: the newest signed checkpoint; 404 when none.
- `POST /tournaments/{id}/checkpoints` (admin only): verify the head, sign it now, store and
  return it (201); 404 when the stream has no events, 422 when signing is refused (a broken
  chain, or a head that does not extend the previous checkpoint: truncated or rewritten).

Each checkpoint is `{"checkpoint": {...}, "signature", "public_key", "key_id"}`, as
`arbiter verify --checkpoint URL` reads it. Reads need a token that may read the tournament
(as the feed: `Authorization: Bearer <token>` or `?token=`). Errors use the API's
`{"error": {rule, field, message}}` format.

The composition root may hand in a `CheckpointService` as `app.state.checkpoints` (`arbiter
serve` does, sharing it with the scheduled signer); else one is made on first use from the
settings it handed to `create_app` (`app.state.settings`: the data directory, the checkpoint
key and store).
"""

from __future__ import annotations

import threading
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from services.api.delayed import visible_upto, with_delay
from services.api.http import ApiError, json_response, principal, reader, stream_id
from services.commands.auth import TokenStore


def checkpoints_router(app: FastAPI) -> APIRouter:
    """The checkpoint routes for `app` (whose state holds the log and the token store)."""
    tokens: TokenStore = app.state.tokens
    router = APIRouter()
    lock = threading.Lock()

    def service(create: bool = True) -> Any:
        """The app's checkpoint service; made from the app's settings on first use. A read
        (`create=False`) makes none, and so no file, while no store exists: None."""
        from services.audit.checkpoints import CheckpointService, store_path

        with lock:
            svc = getattr(app.state, "checkpoints", None)
            if svc is None:
                if not create and not store_path(app.state.settings).exists():
                    return None
                svc = CheckpointService.from_settings(app.state.log, app.state.settings)
                app.state.checkpoints = svc
        return svc

    def stored(tid: str) -> list[Any]:
        svc = service(create=False)
        return svc.store.all(tid) if svc is not None else []

    def newest(tid: str) -> Any:
        svc = service(create=False)
        return svc.store.latest(tid) if svc is not None else None

    def readable(request: Request, tournament_id: str) -> str:
        return reader(tokens, request, tournament_id, query_token=True)

    # A broadcaster sees the checkpoints of its delayed view only (services/api/delayed.py):
    # those whose head is at or below the seq the delay lets it read, the ones the delayed
    # `GET …/events` verify against.
    def upto(found: list[Any], last: int | None) -> list[Any]:
        return found if last is None else [c for c in found if c.seq <= last]

    @router.get("/tournaments/{tournament_id}/checkpoints")
    async def list_checkpoints(tournament_id: str, request: Request) -> Response:
        tid = readable(request, tournament_id)
        last = await visible_upto(app, request, tid, query_token=True)
        found = upto(await run_in_threadpool(stored, tid), last)
        body = {
            "tournament_id": tid,
            "checkpoints": [c.as_dict() for c in found],
            "count": len(found),
        }
        return with_delay(app, json_response(body), tid, last)

    @router.get("/tournaments/{tournament_id}/checkpoints/latest")
    async def latest_checkpoint(tournament_id: str, request: Request) -> Response:
        tid = readable(request, tournament_id)
        last = await visible_upto(app, request, tid, query_token=True)
        if last is None:
            cp = await run_in_threadpool(newest, tid)
        else:
            seen = upto(await run_in_threadpool(stored, tid), last)
            cp = seen[-1] if seen else None
        if cp is None:
            raise ApiError(404, "checkpoint.not_found", "tournament_id", f"no checkpoint of {tid}")
        return with_delay(app, json_response(cp.as_dict()), tid, last)

    @router.post("/tournaments/{tournament_id}/checkpoints")
    async def sign_checkpoint(tournament_id: str, request: Request) -> Response:
        from services.audit.checkpoints import CheckpointError

        who = principal(tokens, request, query_token=True)
        tid = stream_id(tournament_id)
        if who.role != "admin":
            raise ApiError(
                403, "auth.forbidden", "tournament_id", f"{who.role} may not sign checkpoints"
            )
        try:
            cp = await run_in_threadpool(lambda: service().sign(tid))
        except CheckpointError as exc:
            raise ApiError(exc.status, exc.rule, exc.field, str(exc)) from None
        return json_response(cp.as_dict(), 201)

    return router
