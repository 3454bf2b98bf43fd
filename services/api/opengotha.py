"""OpenGotha files over HTTP: what `arbiter import opengotha` and `arbiter export opengotha`
do (services/interchange/opengotha/).

- `POST /tournaments/{id}/opengotha` (arbiter or admin of that tournament): the body is an
  OpenGotha tournament file (XML, at most `MAX_UPLOAD` bytes), recorded as tournament `id`
  with its rounds as played (nothing re-paired). 201 with the import's report
  (`tournament_id`, `players`, `rounds`, `games`, `results`, `appended`, `last_seq`, and
  `not_expressed`: the OpenGotha conventions Arbiter cannot express yet, by name); the same
  file again answers 200 with `duplicate: true`, appending nothing. A malformed file is 422
  naming the element and the rule (`opengotha.*`), a refused event 422 with the decider's
  rule and the element it records; nothing appended either way.
- `GET /tournaments/{id}/opengotha`: the tournament as an OpenGotha file
  (`application/xml`), any reader, delayed for a broadcaster as every reader route is.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from services.api.delayed import visible_upto, with_delay
from services.api.http import ApiError, json_response, reader
from services.api.routes import actor_of, tournament_records
from services.commands.auth import TokenStore
from services.interchange.opengotha import OpenGothaError, import_opengotha, plan_file
from services.interchange.opengotha.export import ExportRefused, export_opengotha
from services.interchange.opengotha.parse import MAX_BYTES
from services.interchange.pipeline import ImportRefused

#: The largest upload: the file reader's own bound (the API's body limit, 4 MiB by default,
#: `ARBITER_MAX_BODY_BYTES`, answers 413 before it).
MAX_UPLOAD = MAX_BYTES

UPLOAD_RESPONSES: dict[int | str, dict[str, Any]] = {
    201: {"description": "Imported: the report, with the conventions not expressed by name."},
    200: {"description": "The same file was imported already: nothing appended."},
    413: {"description": f"The body is over {MAX_UPLOAD} bytes."},
    422: {"description": "A malformed file (the element and the rule) or a refused event."},
}

#: The request body as the OpenAPI document names it: the file as OpenGotha saves it.
UPLOAD_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "application/xml": {
                "schema": {"type": "string", "description": "an OpenGotha tournament file"}
            }
        },
    }
}


def opengotha_router(app: FastAPI) -> APIRouter:
    tokens: TokenStore = app.state.tokens
    router = APIRouter()

    @router.post(
        "/tournaments/{tournament_id}/opengotha",
        responses=UPLOAD_RESPONSES,
        openapi_extra=UPLOAD_BODY,
    )
    async def upload(tournament_id: str, request: Request) -> Response:
        actor, tid = actor_of(tokens, request, tournament_id, "import an OpenGotha file into")
        raw = await request.body()
        if len(raw) > MAX_UPLOAD:
            raise ApiError(413, "limits.body_bytes", "body", f"at most {MAX_UPLOAD} bytes")

        def run() -> dict[str, Any]:
            try:
                _, plan = plan_file(raw, name=tid, file_name="body")
                report = import_opengotha(
                    app.state.log, raw, tournament_id=tid, actor=actor, plan=plan
                )
            except OpenGothaError as exc:
                raise ApiError(422, exc.rule, f"body {exc.where}", exc.message) from None
            except ImportRefused as exc:
                raise ApiError(422, exc.rule, exc.where, exc.message) from None
            except ValueError as exc:  # an event field out of range
                raise ApiError(422, "opengotha.invalid", "body", str(exc)) from None
            return report.as_dict()

        body = await run_in_threadpool(run)
        return json_response(body, 200 if body["duplicate"] else 201)

    @router.get("/tournaments/{tournament_id}/opengotha")
    async def download(tournament_id: str, request: Request) -> Response:
        """The tournament as an OpenGotha tournament file, as `arbiter export opengotha`
        writes it (services/interchange/opengotha/export.py)."""
        tid = reader(tokens, request, tournament_id)
        upto = await visible_upto(app, request, tid)  # a broadcaster's: delayed

        def build() -> bytes:
            records = tournament_records(
                app.state.log, tid, upto, "opengotha.unknown_tournament", f"no {tid}"
            )
            try:
                return export_opengotha(records)
            except ExportRefused as exc:
                raise ApiError(422, exc.rule, "tournament_id", exc.message) from None

        data = await run_in_threadpool(build)
        return with_delay(app, Response(data, media_type="application/xml"), tid, upto)

    return router
