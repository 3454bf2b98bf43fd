"""Result routes: what `arbiter round`, `arbiter result`, `arbiter results` and `arbiter correct
--round` do, over HTTP (services/commands/results.py; the organiser HTTP contract of issue 24).

- `GET /tournaments/{id}/rounds?stage=` (any reader): `{"tournament_id", "current_round",
  "rounds": [n, ...]}`, the rounds of the stage ("main") scheduled and in force.
- `GET /tournaments/{id}/rounds/{n}?stage=` (any reader): `{"tournament_id", "round", "stage",
  "boards": [{"board", "game_id", "white": {"player_id", "name", "start_no"}, "black": {…},
  "result", "termination", "ending" (the ending in words: "resignation", "result entered by
  the arbiter"), "corrected"}], "byes": [{"player_id", "name", "kind"}]}`.
- `POST /tournaments/{id}/rounds/{n}/boards/{board}/result` (arbiter or admin): body
  `{"result", "how"?, "stage"?}`, the result in any organiser notation
  (services/commands/notation.py).
- `POST /tournaments/{id}/rounds/{n}/results` (arbiter or admin): body `{"results": "1-0 ½ 0-1
  +- -+ 0-0", "stage"?}` (one token per board in board order, or a list of tokens), or a
  `text/csv` body (columns board,result[,how]); all or nothing, in one batch.
- `POST /tournaments/{id}/rounds/{n}/boards/{board}/correction` (admin): body `{"result",
  "reason", "how"?, "stage"?}`.

A write answers as `POST /tournaments/{id}/commands` does: `{"tournament_id", "duplicate",
"last_seq", "events": [...]}`, 201 when something was appended, 200 with `"duplicate": true`
and no events when every board had that result already (a resend). Errors are
`{"error": {rule, field, message}}`: 401/403 for the token, 404 for an unknown tournament,
round or board, 409 for a board that has another result (`result.already_entered`: correct
it), 422 for a bad notation or a refusal by the decider (nothing appended).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import orjson
from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.concurrency import run_in_threadpool

from services.api.delayed import visible_upto, with_delay
from services.api.http import ApiError, json_response, reader
from services.api.routes import actor_of, appended
from services.commands.auth import TokenStore
from services.commands.results import (
    correct_board,
    enter_csv,
    enter_result,
    enter_round,
    fold_tournament,
    rounds_of,
    view_of,
)
from services.commands.service import CommandRejected, CommandService
from services.eventlog.base import (
    AppendConflict,
    AppendResult,
    EventIdConflict,
    EventLogError,
    EventLogUnavailable,
)

#: The largest body a result route reads (a round's results, a CSV of them).
MAX_RESULTS_BODY = 64 * 1024

T = TypeVar("T")
Stage = Field(default="main", min_length=1, max_length=64)


class ResultBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    result: str = Field(min_length=1, max_length=32)
    how: str | None = Field(default=None, min_length=1, max_length=64)
    stage: str = Stage


class ResultsBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    results: str | list[str] = Field(max_length=10_000)
    stage: str = Stage


class CorrectionBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    result: str = Field(min_length=1, max_length=32)
    reason: str = Field(min_length=1, max_length=4000)
    how: str | None = Field(default=None, min_length=1, max_length=64)
    stage: str = Stage


M = TypeVar("M", bound=BaseModel)


async def _body(request: Request, model: type[M]) -> M:
    raw = await request.body()
    if len(raw) > MAX_RESULTS_BODY:
        raise ApiError(413, "limits.body_bytes", "body", f"at most {MAX_RESULTS_BODY} bytes")
    try:
        return model.model_validate(orjson.loads(raw) if raw.strip() else {})
    except orjson.JSONDecodeError as exc:
        raise ApiError(422, "request.malformed_json", "body", str(exc)) from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise ApiError(422, "request.invalid", f"body.{where}", first["msg"]) from None


async def _run(fn: Callable[[], T]) -> T:
    """`fn` off the event loop; a refusal as the API's error."""
    try:
        return await run_in_threadpool(fn)
    except CommandRejected as exc:
        # The CLI's argument names ("TOURNAMENT") as this API's ("tournament_id").
        field = {"TOURNAMENT": "tournament_id"}.get(exc.field, exc.field)
        raise ApiError(exc.status, exc.rule, field, exc.message) from None
    except (AppendConflict, EventIdConflict) as exc:
        raise ApiError(409, exc.rule, exc.field, str(exc)) from None
    except EventLogUnavailable:
        raise  # 503 with Retry-After (services/api/app.py)
    except EventLogError as exc:
        raise ApiError(422, exc.rule, exc.field, str(exc)) from None


def appended_json(tid: str, result: AppendResult | None, last_seq: int) -> Response:
    """The answer to a write, as `POST …/commands` gives it; `result` None: nothing was
    appended (200, `duplicate`, no events, the stream's `last_seq`)."""
    if result is None:
        body = {"tournament_id": tid, "duplicate": True, "last_seq": last_seq, "events": []}
        return json_response(body, 200)
    return appended(tid, result)


#: What a write answers besides its errors (the OpenAPI document: services/api/openapi.py adds
#: the error statuses).
WRITE_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"description": "Nothing appended: every board had that result already (a resend)."},
    201: {"description": "Appended: the stored events."},
    413: {"description": f"The body is over {MAX_RESULTS_BODY} bytes."},
}


def results_router(app: FastAPI) -> APIRouter:
    tokens: TokenStore = app.state.tokens
    router = APIRouter()

    def service() -> CommandService:
        commands: CommandService = app.state.commands
        return commands

    @router.get("/tournaments/{tournament_id}/rounds")
    async def rounds(
        tournament_id: str,
        request: Request,
        stage: str = Query("main", min_length=1, max_length=64),
    ) -> Response:
        tid = reader(tokens, request, tournament_id)
        upto = await visible_upto(app, request, tid)  # a broadcaster's: delayed

        def build() -> dict[str, Any]:
            scheduled = rounds_of(fold_tournament(service(), tid, upto), stage)
            return {
                "tournament_id": tid,
                "current_round": scheduled[-1] if scheduled else None,
                "rounds": scheduled,
            }

        return with_delay(app, json_response(await _run(build)), tid, upto)

    @router.get("/tournaments/{tournament_id}/rounds/{rnd}")
    async def round_boards(
        tournament_id: str,
        rnd: int,
        request: Request,
        stage: str = Query("main", min_length=1, max_length=64),
    ) -> Response:
        tid = reader(tokens, request, tournament_id)
        upto = await visible_upto(app, request, tid)  # a broadcaster's: delayed
        view = await _run(lambda: view_of(fold_tournament(service(), tid, upto), tid, rnd, stage))
        return with_delay(app, json_response(view.as_json()), tid, upto)

    @router.post(
        "/tournaments/{tournament_id}/rounds/{rnd}/boards/{board}/result", responses=WRITE_RESPONSES
    )
    async def board_result(tournament_id: str, rnd: int, board: int, request: Request) -> Response:
        actor, tid = actor_of(tokens, request, tournament_id, "enter results in")
        body = await _body(request, ResultBody)
        entries = await _run(
            lambda: enter_result(
                service(), tid, rnd, board, body.result, actor, body.how, body.stage
            )
        )
        return appended_json(tid, entries.result, app.state.log.last_seq(tid))

    @router.post("/tournaments/{tournament_id}/rounds/{rnd}/results", responses=WRITE_RESPONSES)
    async def round_results(tournament_id: str, rnd: int, request: Request) -> Response:
        actor, tid = actor_of(tokens, request, tournament_id, "enter results in")
        if request.headers.get("content-type", "").split(";")[0].strip() == "text/csv":
            raw = await request.body()
            if len(raw) > MAX_RESULTS_BODY:
                raise ApiError(413, "limits.body_bytes", "body", f"at most {MAX_RESULTS_BODY}")
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ApiError(422, "result.bad_csv", "body", f"not UTF-8: {exc}") from None
            stage = request.query_params.get("stage", "main")
            entries = await _run(lambda: enter_csv(service(), tid, rnd, text, actor, stage, "body"))
        else:
            body = await _body(request, ResultsBody)
            entries = await _run(
                lambda: enter_round(service(), tid, rnd, body.results, actor, body.stage)
            )
        return appended_json(tid, entries.result, app.state.log.last_seq(tid))

    @router.post(
        "/tournaments/{tournament_id}/rounds/{rnd}/boards/{board}/correction",
        responses=WRITE_RESPONSES,
    )
    async def board_correction(
        tournament_id: str, rnd: int, board: int, request: Request
    ) -> Response:
        actor, tid = actor_of(tokens, request, tournament_id, "correct results in")
        if actor.role != "admin":  # as every ResultCorrected (services/commands/service.py)
            raise ApiError(
                403,
                "auth.admin_only",
                "Authorization",
                f"{actor.role} {actor.id} may not correct a result: only an admin may "
                "append ResultCorrected",
            )
        body = await _body(request, CorrectionBody)
        fix = await _run(
            lambda: correct_board(
                service(), tid, rnd, board, body.result, body.reason, actor, body.how, body.stage
            )
        )
        return appended_json(tid, fix.result, fix.result.last_seq)

    return router
