"""A tournament's files for other programs and rating bodies, over HTTP (any reader; a
broadcaster's view is delayed as every reader route's is):

- `GET /tournaments/{id}/games.pgn?round=`: every chess game as PGN, as `arbiter export pgn`
  writes it (services/interchange/pgn/export.py), a download (`?token=` taken, as the one
  game's `games/{game_id}.pgn`).
- `GET /tournaments/{id}/h9?class=&place=`: a Go tournament's results as the EGF h9 file
  (services/interchange/egf/h9.py), as `arbiter export h9` writes it.
- `GET /tournaments/{id}/aga?place=&rules=`: a Go tournament's results as the AGA results
  file (services/interchange/egf/aga.py), as `arbiter export aga` writes it.

Errors use the API's `{"error": {rule, field, message}}` format: 404 for an unknown
tournament or round, 422 for a tournament the format cannot hold (a Go tournament's PGN, a
chess tournament's h9 or AGA file).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from events_schema import Recorded
from services.api.delayed import visible_upto, with_delay
from services.api.http import ApiError, reader
from services.api.routes import tournament_records
from services.commands.auth import TokenStore


def exports_router(app: FastAPI) -> APIRouter:
    tokens: TokenStore = app.state.tokens
    router = APIRouter()

    async def download(
        request: Request,
        tournament_id: str,
        kind: str,
        build: Callable[[Sequence[Recorded]], str],
        media_type: str,
        suffix: str,
        query_token: bool = False,
    ) -> Response:
        tid = reader(tokens, request, tournament_id, query_token=query_token)
        upto = await visible_upto(app, request, tid, query_token=query_token)  # delayed view

        def run() -> str:
            return build(
                tournament_records(
                    app.state.log, tid, upto, f"{kind}.unknown_tournament", f"no {tid}"
                )
            )

        text = await run_in_threadpool(run)
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in tid)
        headers = {"Content-Disposition": f'attachment; filename="{safe}{suffix}"'}
        return with_delay(app, Response(text, media_type=media_type, headers=headers), tid, upto)

    @router.get("/tournaments/{tournament_id}/games.pgn")
    async def games_pgn(
        tournament_id: str,
        request: Request,
        round_: int | None = Query(None, alias="round", ge=1, le=10_000),
    ) -> Response:
        """Every chess game of the tournament as PGN (`arbiter export pgn`)."""
        from services.interchange.pgn.export import ExportRefused, export_tournament_pgn

        def build(records: Sequence[Recorded]) -> str:
            try:
                return export_tournament_pgn(records, round_)
            except ExportRefused as exc:
                status = 422 if exc.rule == "pgn.not_chess" else 404
                field = "round" if exc.field == "--round" else "tournament_id"
                raise ApiError(status, exc.rule, field, exc.message) from None

        return await download(
            request, tournament_id, "pgn", build, "application/x-chess-pgn", ".pgn", True
        )

    def results_file(
        kind: str, write: Callable[[Sequence[Recorded]], str]
    ) -> Callable[[Sequence[Recorded]], str]:
        from services.interchange.egf.common import ResultsFileRefused

        def build(records: Sequence[Recorded]) -> str:
            try:
                return write(records)
            except ResultsFileRefused as exc:
                status = 404 if exc.rule.endswith("unknown_tournament") else 422
                raise ApiError(status, exc.rule, "tournament_id", exc.message) from None

        return build

    @router.get("/tournaments/{tournament_id}/h9")
    async def h9(
        tournament_id: str,
        request: Request,
        egf_class: Literal["A", "B", "C", "D"] | None = Query(None, alias="class"),
        place: str = Query(",", max_length=200),
    ) -> Response:
        """The Go tournament's results as the EGF h9 file (`arbiter export h9`)."""
        from services.interchange.egf.h9 import export_h9

        build = results_file("h9", lambda r: export_h9(r, egf_class=egf_class, place=place))
        return await download(request, tournament_id, "h9", build, "text/plain", ".h9")

    @router.get("/tournaments/{tournament_id}/aga")
    async def aga(
        tournament_id: str,
        request: Request,
        place: str = Query("", max_length=200),
        rules: str = Query("AGA", min_length=1, max_length=64),
    ) -> Response:
        """The Go tournament's results as the AGA results file (`arbiter export aga`)."""
        from services.interchange.egf.aga import export_aga

        build = results_file("aga", lambda r: export_aga(r, place=place, rules=rules))
        return await download(request, tournament_id, "aga", build, "text/plain", ".txt")

    return router
