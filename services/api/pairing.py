"""Pairing routes: what `arbiter pair` and `arbiter schedule` do, over HTTP.

- `POST /tournaments/{id}/pair` (arbiter or admin of that tournament): body `{"stage"?,
  "round"?, "seed"?, "replace"?, "reason"?}` (all optional, at most 4 KiB). Pairs the next
  round with the tournament's system and appends the lots it needed and the `RoundScheduled`
  in one batch: 201 with the round, its lots and their seqs. With `round`, a resend of a
  request whose round is already scheduled answers 200 with that round and appends nothing.
  With `"replace": true` (and an optional `"reason"`), re-pair the latest round instead: its
  `EventRetracted`, the lots and the new round in one batch, by the re-pair rule
  (services/commands/repair.py): 422 `pairing.round_in_play` once any game of it has started
  or ended, nothing appended; 403 for a role other than arbiter or admin.
- `GET /tournaments/{id}/schedule?stage=`: the rounds so far, a round robin's rounds to come,
  a cup's bracket (any reader).
- `GET /tournaments/{id}/trf?order=&format=trf16|trf26`: the TRF-16 (or TRF26: write26.py)
  export (any reader), for an external pairing checker: by default the players are numbered
  by the pairing system's own pairing numbers (`order=pairing`; `registration` and `rating`
  on request), as `arbiter export trf --order`.

Errors use the API's `{"error": {rule, field, message}}` format: 422 when the round cannot be
paired (e.g. `pairing.round_unfinished`), 404 for an unknown tournament.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import PlainTextResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from events_schema import Recorded
from projections.pairing.base import PairingRefused
from projections.playoffs import playoff_view
from projections.standings import fold as standings_fold
from services.api.delayed import visible_upto, with_delay
from services.api.http import ApiError, json_response, reader
from services.api.routes import actor_of, parse_model
from services.commands.auth import TokenStore
from services.commands.pairing import pair_next, paired_json
from services.commands.repair import REASON_WITHOUT_REPLACE, reason_without_replace
from services.commands.schedule import schedule_of
from services.commands.service import CommandRejected, CommandService

MAX_PAIR_BODY = 4096


class PairRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    stage: str = Field(default="main", min_length=1, max_length=64)
    round: int | None = Field(default=None, ge=1, le=10_000)
    seed: str | None = Field(default=None, min_length=1, max_length=200)
    replace: bool = False
    reason: str | None = Field(default=None, min_length=1, max_length=2000)


def pairing_router(app: FastAPI) -> APIRouter:
    tokens: TokenStore = app.state.tokens
    router = APIRouter()

    @router.post("/tournaments/{tournament_id}/pair")
    async def pair(tournament_id: str, request: Request) -> Response:
        actor, tid = actor_of(tokens, request, tournament_id, "pair")
        raw = await request.body()
        if len(raw) > MAX_PAIR_BODY:
            raise ApiError(413, "limits.body_bytes", "body", f"at most {MAX_PAIR_BODY} bytes")
        body = parse_model(PairRequest, raw)
        if reason_without_replace(body.replace, body.reason):
            raise ApiError(422, REASON_WITHOUT_REPLACE, "body.reason", "reason goes with replace")
        service: CommandService = app.state.commands
        try:
            paired = await run_in_threadpool(
                lambda: pair_next(
                    service,
                    tid,
                    actor,
                    stage=body.stage,
                    expected_round=body.round,
                    seed=body.seed,
                    replace=body.replace,
                    reason=body.reason,
                )
            )
        except CommandRejected as exc:
            status = 404 if exc.rule == "pairing.unknown_tournament" else exc.status
            raise ApiError(status, exc.rule, exc.field, exc.message) from None
        return json_response(paired_json(paired), 201 if paired.result is not None else 200)

    @router.get("/tournaments/{tournament_id}/schedule")
    async def schedule(
        tournament_id: str,
        request: Request,
        stage: str = Query("main", min_length=1, max_length=64),
    ) -> Response:
        tid = reader(tokens, request, tournament_id)
        upto = await visible_upto(app, request, tid)  # a broadcaster's: delayed

        def build() -> dict[str, Any]:
            state = standings_fold([Recorded.of(e) for e in app.state.log.read(tid, 1, upto)])
            if state.created is None:
                raise ApiError(404, "pairing.unknown_tournament", "tournament_id", f"no {tid}")
            try:
                # The same document as `arbiter schedule --json`, next lots included (the
                # playoff view of the event; a tour playoff's needs its series, CLI only).
                return schedule_of(tid, state, playoff_view(state), stage)
            except PairingRefused as exc:
                raise ApiError(422, exc.rule, exc.field, exc.message) from None

        return with_delay(app, json_response(await run_in_threadpool(build)), tid, upto)

    @router.get("/tournaments/{tournament_id}/trf", response_class=PlainTextResponse)
    async def export_trf(
        tournament_id: str,
        request: Request,
        order: Literal["pairing", "registration", "rating"] = Query("pairing"),
        format: Literal["trf16", "trf26"] = Query("trf16"),
    ) -> Response:
        """The tournament as a FIDE TRF-16 file (XXR rounds, XXC first colour, byes and
        forfeits in the round columns), as `arbiter export trf` writes it: players numbered
        by the pairing system's own pairing numbers unless `order` says otherwise
        (services/interchange/trf/write.py)."""
        from services.interchange.trf import export_trf as write_trf
        from services.interchange.trf import export_trf26

        tid = reader(tokens, request, tournament_id)
        upto = await visible_upto(app, request, tid)  # a broadcaster's: delayed

        def build() -> str:
            records = [Recorded.of(e) for e in app.state.log.read(tid, 1, upto)]
            if not records:
                raise ApiError(404, "trf.unknown_tournament", "tournament_id", f"no {tid}")
            try:
                if format == "trf26":  # TRF26: 240/250/260 and the records kept (write26.py)
                    return export_trf26(records, order=order)
                return write_trf(records, order=order)
            except ValueError as exc:
                raise ApiError(422, "trf.unrepresentable", "tournament_id", str(exc)) from None

        text = await run_in_threadpool(build)
        return with_delay(app, PlainTextResponse(text), tid, upto)

    return router
