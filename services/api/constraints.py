"""The pairing constraints over HTTP (issue 26): what `arbiter prohibit` and `arbiter
accelerate` do, through the same use cases (`services/commands/constraints.py`).

- `POST /tournaments/{id}/prohibitions` body `{"players": [PLAYER, ...], "reason"?,
  "first_round"?, "last_round"?}`: a `PairingsProhibited` (TRF26 record 260);
- `POST /tournaments/{id}/acceleration` body `{"method": "baku"}` (FIDE C.04.5.1, from the
  field) or `{"values": [{"player", "first_round", "last_round"?, "points"}]}` (points "1",
  "0.5", "½"; no values: the acceleration removed), `"reason"?`: an `AccelerationSet` (TRF26
  record 250).

A PLAYER is a start number, a player id or a unique start of the name. Writes need an arbiter
token for the tournament or an admin token and answer as `POST /tournaments/{id}/commands`
does (201 with the stored events); a refusal is `{"error": {rule, field, message}}` (422),
nothing appended.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from services.api.routes import (
    WRITE_RESPONSES,
    actor_of,
    appended,
    bounded_body,
    parse_model,
    run_use_case,
)
from services.commands.auth import TokenStore
from services.commands.constraints import ExplicitValue, prohibit_pairings, set_acceleration
from services.commands.service import CommandService


class ProhibitionRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    players: list[str] = Field(min_length=2, max_length=64)
    reason: str = Field(default="", max_length=2000)
    first_round: int = Field(default=1, ge=1, le=1000)
    last_round: int | None = Field(default=None, ge=1, le=1000)


class ValueRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    player: str = Field(min_length=1, max_length=200)
    first_round: int = Field(ge=1, le=1000)
    last_round: int | None = Field(default=None, ge=1, le=1000)
    points: str | float


class AccelerationRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    method: Literal["baku", "explicit"] = "explicit"
    values: list[ValueRequest] = Field(default_factory=list, max_length=10_000)
    reason: str = Field(default="", max_length=2000)


def constraints_router(app: FastAPI) -> APIRouter:
    tokens: TokenStore = app.state.tokens
    router = APIRouter()

    @router.post("/tournaments/{tournament_id}/prohibitions", responses=WRITE_RESPONSES)
    async def prohibitions(tournament_id: str, request: Request) -> Response:
        actor, tid = actor_of(tokens, request, tournament_id, "prohibit pairings in")
        req = parse_model(ProhibitionRequest, await bounded_body(app, request))
        service: CommandService = app.state.commands
        result = await run_use_case(
            lambda: prohibit_pairings(
                service,
                tid,
                req.players,
                actor,
                reason=req.reason,
                first_round=req.first_round,
                last_round=req.last_round,
            )
        )
        return appended(tid, result)

    @router.post("/tournaments/{tournament_id}/acceleration", responses=WRITE_RESPONSES)
    async def acceleration(tournament_id: str, request: Request) -> Response:
        actor, tid = actor_of(tokens, request, tournament_id, "accelerate")
        req = parse_model(AccelerationRequest, await bounded_body(app, request))
        values = [
            ExplicitValue(
                v.player,
                v.first_round,
                v.last_round if v.last_round is not None else v.first_round,
                str(v.points),
            )
            for v in req.values
        ]
        service: CommandService = app.state.commands
        result = await run_use_case(
            lambda: set_acceleration(
                service,
                tid,
                actor,
                baku=req.method == "baku",
                values=values,
                reason=req.reason,
            )
        )
        return appended(tid, result)

    return router
