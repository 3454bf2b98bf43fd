"""The organiser's entry path over HTTP (issue 24; /work/http-contract.md "Helper A"): what
`arbiter create`, `register`, `players`, `withdraw` and `bye` do, through the same use cases
(`services/commands/entries/`).

- `POST /tournaments/{id}/create` body `{"name", "format", "rounds"?, "preset"?, "start"?
  (YYYY-MM-DD), "end"?, "time_control"? ("90+30"), "game"? ("chess" | "go"), "pairing"?}`;
- `GET /tournaments/{id}/players` (any reader): `{"tournament_id", "players": [{"start_no",
  "player_id", "name", "rating", "title", "federation", "fide_id", "club", "go_rank",
  "status", "withdrawn_from", "byes": {"3": "half"}}]}`, in start-number order;
- `POST /tournaments/{id}/players`: one entry `{"name", "rating"?, "title"?, "federation"?,
  "fide_id"?, "club"?, "go_rank"?}`, or `{"entries": [entry, ...]}`, or a `text/csv` body (the
  CSV entry list of `services/interchange/entries/csv.py`), registered as one batch;
- `POST /tournaments/{id}/players/{player}/withdraw` body `{"from_round"?, "reason"?}`;
- `POST /tournaments/{id}/players/{player}/bye` body `{"round", "points"?, "cancel"?}` (points
  "0" | "½" | "0.5" | "1/2"; "1" is refused, `bye.full_point_not_offered`).

`{player}` is a PLAYER: a start number, a player id or a unique start of the name
(URL-encoded). Writes need an arbiter token for the tournament or an admin token (401/403
as every write) and answer as `POST /tournaments/{id}/commands` does (201, `{"tournament_id",
"duplicate", "last_seq", "events"}`); a refusal is `{"error": {rule, field, message}}` (422,
404 for a tournament never created), nothing appended.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from services.api.delayed import visible_upto, with_delay
from services.api.http import ApiError, json_response, reader
from services.api.routes import (
    WRITE_RESPONSES,
    actor_of,
    appended,
    bounded_body,
    parse_json,
    parse_model,
    run_use_case,
)
from services.commands.auth import TokenStore
from services.commands.entries import (
    create_tournament,
    entry_list,
    fold_tournament,
    register_entries,
    request_bye,
    withdraw_player,
)
from services.commands.service import CommandService
from services.interchange.entries import FIELDS, EntriesError, Entry, make_entry, parse_entries_csv


class CreateRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200)
    format: str = Field(min_length=1, max_length=32)
    rounds: int | None = Field(default=None, ge=1, le=10_000)
    preset: str | None = Field(default=None, min_length=1, max_length=64)
    start: str | None = Field(default=None, max_length=10)
    end: str | None = Field(default=None, max_length=10)
    time_control: str | None = Field(default=None, max_length=32)
    game: str | None = Field(default=None, max_length=16)
    pairing: str | None = Field(default=None, max_length=32)


class WithdrawRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    from_round: int | None = Field(default=None, ge=1, le=10_000)
    reason: str = Field(default="", max_length=2000)


class ByeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    round: int = Field(ge=1, le=10_000)
    points: str | float = Field(default="½", description='"0", "½", "0.5", "1/2" (or 0, 0.5)')
    cancel: bool = False


def _entry(value: Any, where: str) -> Entry:
    if not isinstance(value, dict):
        raise ApiError(422, "entries.invalid", where, "an entry is an object with a name")
    unknown = sorted(set(value) - set(FIELDS))
    if unknown:
        raise ApiError(
            422,
            "entries.invalid",
            f"{where}.{unknown[0]}",
            f"unknown field {unknown[0]!r}; an entry has {', '.join(FIELDS)}",
        )
    try:
        return make_entry(value, columns={f: f"{where}.{f}" for f in FIELDS})
    except EntriesError as exc:
        raise _invalid(exc) from None


def _invalid(exc: EntriesError) -> ApiError:
    """A bad entry list: the first problem as `error`, every bad row as `errors`."""
    found = [{"rule": r, "field": f, "message": m} for r, f, m in exc.problems()]
    return ApiError(422, "entries.invalid", exc.where, exc.message, found)


def _entries(raw: bytes, content_type: str) -> list[Entry]:
    """The entries a `POST …/players` body holds: CSV, `{"entries": [...]}` or one entry."""
    if content_type.split(";")[0].strip().lower() in ("text/csv", "application/csv"):
        try:
            return parse_entries_csv(raw)
        except EntriesError as exc:
            raise _invalid(exc) from None
    data = parse_json(raw)
    if isinstance(data, dict) and "entries" in data:
        if set(data) != {"entries"} or not isinstance(data["entries"], list):
            raise ApiError(422, "entries.invalid", "body", 'give {"entries": [entry, ...]} alone')
        return [_entry(e, f"body.entries[{i}]") for i, e in enumerate(data["entries"])]
    return [_entry(data, "body")]


def entries_router(app: FastAPI) -> APIRouter:
    tokens: TokenStore = app.state.tokens
    router = APIRouter()

    @router.post("/tournaments/{tournament_id}/create", responses=WRITE_RESPONSES)
    async def create(tournament_id: str, request: Request) -> Response:
        actor, tid = actor_of(tokens, request, tournament_id, "create")
        req = parse_model(CreateRequest, await bounded_body(app, request))
        service: CommandService = app.state.commands
        result = await run_use_case(
            lambda: create_tournament(
                service,
                tid,
                actor,
                name=req.name,
                format=req.format,
                rounds=req.rounds,
                preset=req.preset,
                start=req.start,
                end=req.end,
                time_control=req.time_control,
                game=req.game,
                pairing=req.pairing,
            )
        )
        return appended(tid, result)

    @router.get("/tournaments/{tournament_id}/players")
    async def players(tournament_id: str, request: Request) -> Response:
        tid = reader(tokens, request, tournament_id)
        upto = await visible_upto(app, request, tid)  # a broadcaster's: delayed
        service: CommandService = app.state.commands
        rows = await run_use_case(
            lambda: entry_list(fold_tournament(service, tid, "players", upto))
        )
        body = {"tournament_id": tid, "players": [r.as_dict() for r in rows]}
        return with_delay(app, json_response(body), tid, upto)

    @router.post("/tournaments/{tournament_id}/players", responses=WRITE_RESPONSES)
    async def register(tournament_id: str, request: Request) -> Response:
        actor, tid = actor_of(tokens, request, tournament_id, "register players in")
        entries = _entries(
            await bounded_body(app, request), request.headers.get("content-type", "")
        )
        service: CommandService = app.state.commands
        done = await run_use_case(lambda: register_entries(service, tid, entries, actor))
        return appended(tid, done.result)

    @router.post(
        "/tournaments/{tournament_id}/players/{player}/withdraw", responses=WRITE_RESPONSES
    )
    async def withdraw(tournament_id: str, player: str, request: Request) -> Response:
        actor, tid = actor_of(tokens, request, tournament_id, "withdraw players from")
        req = parse_model(WithdrawRequest, await bounded_body(app, request))
        service: CommandService = app.state.commands
        done = await run_use_case(
            lambda: withdraw_player(
                service, tid, player, actor, from_round=req.from_round, reason=req.reason
            )
        )
        return appended(tid, done.result)

    @router.post("/tournaments/{tournament_id}/players/{player}/bye", responses=WRITE_RESPONSES)
    async def bye(tournament_id: str, player: str, request: Request) -> Response:
        actor, tid = actor_of(tokens, request, tournament_id, "request byes in")
        req = parse_model(ByeRequest, await bounded_body(app, request))
        service: CommandService = app.state.commands
        done = await run_use_case(
            lambda: request_bye(
                service, tid, player, req.round, actor, points=str(req.points), cancel=req.cancel
            )
        )
        return appended(tid, done.result)

    return router
