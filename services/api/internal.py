"""The API processes' own endpoints for each other (issue 27 item 2): with
`ARBITER_KAFKA_OWNERSHIP=group`, an append to a partition another process owns is sent to
`POST /internal/log/append` there (services/eventlog/kafka/ownership.py). Only callers that
present the shared `ARBITER_FORWARD_SECRET` are served; elsewhere these answer 404."""

from __future__ import annotations

import asyncio
import hmac
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING
from uuid import UUID

from fastapi import APIRouter, FastAPI, Request, Response

if TYPE_CHECKING:  # the Kafka client is imported only by a process on the Kafka log
    from services.eventlog.kafka.log import KafkaEventLog


def internal_router(app: FastAPI) -> APIRouter:
    router = APIRouter(include_in_schema=False)
    # Forwarded appends run on their own threads, never on the request threads: two
    # processes whose request threads all wait on forwards to each other would otherwise
    # have none left to take the other's forwards (a deadlock under load).
    pool = ThreadPoolExecutor(max_workers=64, thread_name_prefix="arbiter-forwarded")

    def _log(request: Request) -> KafkaEventLog | None:
        log: KafkaEventLog = app.state.log
        if getattr(log, "backend", "") != "kafka" or getattr(log, "ownership", None) is None:
            return None
        from services.eventlog.kafka.log import FORWARD_HEADER

        given = request.headers.get(FORWARD_HEADER, "")
        if not hmac.compare_digest(given.encode(), log.forward_secret.encode()):
            return None
        return log

    @router.post("/internal/log/append")
    async def forwarded_append(request: Request) -> Response:
        log = _log(request)
        if log is None:
            return Response(status_code=404)
        raw = await request.body()
        status, body = await asyncio.get_running_loop().run_in_executor(
            pool, log.append_forwarded, raw
        )
        return Response(body, status_code=status, media_type="application/json")

    @router.post("/internal/commands/{tournament_id}")
    async def forwarded_command(tournament_id: str, request: Request) -> Response:
        """A command another process took for a stream this process writes (log.py
        `forward_command`): decided and appended here, for the actor that process
        authenticated (named in `x-arbiter-actor`; trusted with the secret only)."""
        log = _log(request)
        if log is None:
            return Response(status_code=404)
        from events_schema import Actor
        from services.eventlog.kafka.log import ACTOR_HEADER, MINTED_HEADER

        actor = Actor.model_validate_json(request.headers.get(ACTOR_HEADER, ""))
        minted_text = request.headers.get(MINTED_HEADER, "")
        try:
            minted = [UUID(i) for i in minted_text.split(",")] if minted_text else []
        except ValueError:
            return Response(status_code=400)
        raw = await request.body()
        response: Response = await app.state.run_command(tournament_id, actor, raw, minted)
        return response

    @router.get("/internal/log/ownership")
    def ownership(request: Request) -> Response:
        """Who owns what, and what this process wrote where (the scale-out test's counts)."""
        log = _log(request)
        if log is None or log.ownership is None:
            return Response(status_code=404)
        import orjson

        parts = {
            str(p.number): {
                "writer_inits": p.writer_inits,
                "events_written": p.events_written,
                "transactions": p.transactions,
            }
            for p in log._parts
        }
        body = {
            **log.ownership.describe(),
            "forwarded": log.forwarded,
            "forwarded_commands": log.forwarded_commands,
            "partitions": parts,
        }
        return Response(orjson.dumps(body), media_type="application/json")

    return router
