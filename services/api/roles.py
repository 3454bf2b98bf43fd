"""What an `arbiter serve` process does: `api` (the default: every route, the writer of the
log) or `feed` (a feed process: the reads and the live feed only).

Several feed processes carry one tournament's broadcast past one machine (issue 27, item 4):
on Kafka each reads the processors' compacted projection topics `arbiter.projection.<name>`
from the beginning with no consumer group (`services.projection.embedded.KafkaProjectionSource`),
so every one of them holds the latest version of every projection, byte for byte what the
processors published, however late it started, and a load balancer may spread the
subscribers over them. A feed process never writes: it opens the log as a reader (it does not
join the writers' group, `ARBITER_KAFKA_OWNERSHIP=group`, so it never owns a partition), signs no
checkpoints, and answers every request that is not a read with 405 `serve.feed_only`
(`FeedOnly`), naming where writes go. deploy/README.md, "Several feed processes".
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from services.api.http import error_response

ROLES = ("api", "feed")
#: The methods a feed process answers (RFC 9110 §9.2.1, the safe methods).
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class FeedOnly:
    """ASGI middleware of a feed process: a request with another method than a safe one is
    refused (405, `Allow: GET, HEAD, OPTIONS`) before any route runs, so nothing is appended
    through it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in SAFE_METHODS:
            resp = error_response(
                405,
                "serve.feed_only",
                "method",
                f"{scope['method']} refused: this is a feed process (arbiter serve --role feed),"
                " it serves reads and the live feed only; send writes to an API process",
            )
            resp.headers["Allow"] = "GET, HEAD, OPTIONS"
            await resp(scope, receive, send)
            return
        await self.app(scope, receive, send)
