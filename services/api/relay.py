"""The relay's push route (issue 25 item 2): `POST /tournaments/{id}/relay`, a PGN body of
one or more games (a DGT board operator's or a broadcaster's software pushing each update, as
to lichess's `POST /api/broadcast/round/{id}/push`), brought into the tournament by the same
poll as `arbiter relay` (services/relay/relay.py: games placed and synced, idempotent, a
take-back retracted, a failing game held while the others go on). A pushed game is known by
its round and players (`GameSource.file` "push: round R, White - Black"), not by its place in
the body: a pusher may send each board on its own, or every board at once.

Answer (200), in the shape of lichess's push answer: `{"games": [{"tags": {…}, "moves": N} or
{"tags": {…}, "error": "…"}, …]}`, each game also with Arbiter's `game_id`, `appended`,
`retracted`, `result`, `termination`, `rule` (why held) and `notes`; and `tournament_id`,
`appended` (events appended by this push). Errors are `{"error": {rule, field, message}}`:
401 without a valid token, 403 for a token that may not write to the tournament (arbiter or
admin), 404 for an unknown tournament, 413 over `MAX_PUSH_BODY`, 422 for a body with no PGN
game (no game with tag pairs).
A take-back is an `EventRetracted`, which only an admin may append: pushed with an arbiter's
token the game is held (`auth.admin_only`) and reported."""

from __future__ import annotations

import threading
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from events_schema import Actor
from services.api.http import ApiError, json_response
from services.api.routes import actor_of
from services.commands.auth import TokenStore
from services.commands.service import CommandService
from services.interchange.pgn.parse import decode
from services.interchange.pipeline import ImportRefused
from services.relay.relay import PollReport, Relay

#: The largest PGN a push may carry (a round of many boards with clocks).
MAX_PUSH_BODY = 4 * 1024 * 1024
PUSH_SOURCE = "push"

PUSH_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"description": "Per game: its tags and moves in force, or the error that holds it."},
    413: {"description": f"The body is over {MAX_PUSH_BODY} bytes."},
}


def relay_router(app: FastAPI) -> APIRouter:
    tokens: TokenStore = app.state.tokens
    router = APIRouter()
    # One relay per tournament and pusher, kept between pushes (what it has read of the
    # stream and of the games), pushes to a tournament one at a time.
    relays: dict[tuple[str, str, str], tuple[Relay, threading.Lock]] = {}
    guard = threading.Lock()

    def relay_for(tid: str, actor: Actor) -> tuple[Relay, threading.Lock]:
        commands: CommandService = app.state.commands
        with guard:
            key = (tid, actor.id, actor.role)
            if key not in relays:
                lock = next((lk for (t, _, _), (_, lk) in relays.items() if t == tid), None)
                relay = Relay(app.state.log, tid, actor, PUSH_SOURCE, commands, by_tags=True)
                relays[key] = (relay, lock or threading.Lock())
            return relays[key]

    @router.post("/tournaments/{tournament_id}/relay", responses=PUSH_RESPONSES)
    async def push(tournament_id: str, request: Request) -> Response:
        actor, tid = actor_of(tokens, request, tournament_id, "relay games into")
        raw = await request.body()
        if len(raw) > MAX_PUSH_BODY:
            raise ApiError(413, "limits.body_bytes", "body", f"at most {MAX_PUSH_BODY} bytes")
        relay, lock = relay_for(tid, actor)

        def poll() -> PollReport:
            with lock:
                return relay.poll(decode(raw))

        try:
            report = await run_in_threadpool(poll)
        except ImportRefused as exc:
            status = 404 if exc.rule == "relay.unknown_tournament" else 422
            raise ApiError(status, exc.rule, exc.where, exc.message) from None
        if report.error is not None or not any(g.tags for g in report.games):
            why = report.error or next((g.error for g in report.games if g.error), "no games")
            raise ApiError(422, "relay.no_games", "body", f"no PGN game in the body: {why}")
        body = report.as_dict()
        return json_response(
            {"tournament_id": tid, "appended": report.appended, "games": body["games"]}
        )

    return router
