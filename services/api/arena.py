"""`GET /tournaments/{id}/arena` (any reader): what `arbiter arena-status` shows, as JSON
(projections/arena.py `arena_status`): per game its players, moves so far, clocks, last
evaluation and state (pending, playing, finished with the ending's rule, crashed with what was
seen), and the run limits the arena played under.

Read as every reader route (services/api/results.py): a broadcaster, auditor or admin token,
or an arbiter's naming the tournament; a broadcaster reads it as of the tournament's broadcast
delay ago (services/api/delayed.py: the log up to the delayed view's seq, `Arbiter-Delay: N`;
nothing that old yet: 404 `broadcast.delayed`). 404 `arena.unknown_tournament` for a
tournament with no events.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from projections.arena import arena_status
from services.api.delayed import visible_upto, with_delay
from services.api.http import json_response, reader
from services.api.routes import tournament_records
from services.commands.auth import TokenStore
from services.eventlog.base import EventLog


def arena_router(app: FastAPI) -> APIRouter:
    tokens: TokenStore = app.state.tokens
    router = APIRouter()

    @router.get("/tournaments/{tournament_id}/arena")
    async def arena(tournament_id: str, request: Request) -> Response:
        tid = reader(tokens, request, tournament_id)
        upto = await visible_upto(app, request, tid)  # a broadcaster's: delayed
        event_log: EventLog = app.state.log

        def build() -> dict[str, Any]:
            return arena_status(
                tournament_records(
                    event_log, tid, upto, "arena.unknown_tournament", f"{tid!r} has no events"
                )
            )

        return with_delay(app, json_response(await run_in_threadpool(build)), tid, upto)

    return router
