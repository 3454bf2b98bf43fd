"""The broadcast delay on the API's reads (issue 25 item 3, issue 24): a broadcaster token sees
a tournament as of its delay ago on EVERY route it may read, not only on the feed's.

The delayed view is the feed's (services/feed/delay.py `DelayedFeed`, `app.state.feed.delayed`):
the prefix of the log recorded at or before now − delay, exactly what `arbiter replay T --until
<that time>` folds. A reader route asks `visible_upto` for the last seq its reader may see
(None: everything, for an arbiter, auditor or admin) and reads the log only that far, so what it
answers (the entry list, the rounds and their results, the schedule, the TRF export, the
checkpoints) is the state the broadcasters' stream shows, never a result still under the delay.
The feed's own routes (snapshots, stream, live page, a game's record and PGN) and
`GET /tournaments/{id}/events` read the same view.

Served delayed rather than refused: each of these routes answers a question about a point of
the log, and the delayed prefix is a point of the log (a broadcaster's TRF, schedule or round
view agrees with the standings it broadcasts; its checkpoints are the ones its events verify
against). A tournament with nothing old enough yet is 404 `broadcast.delayed`, naming the
delay. The one route left live is `GET /tournaments` (ids only, no state of any tournament).
Responses to a broadcaster carry `Arbiter-Delay: N` (seconds), as the feed's snapshot does.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from services.api.http import ApiError, principal

DELAY_HEADER = "Arbiter-Delay"


async def visible_upto(
    app: FastAPI, request: Request, tid: str, *, query_token: bool = False
) -> int | None:
    """The last seq of `tid` the request's reader may see: None (the whole log) for any role
    but a broadcaster; for a broadcaster, the delayed view's seq, released up to now. Raises
    404 `broadcast.delayed` when the tournament exists but none of it is old enough."""
    who = principal(app.state.tokens, request, query_token=query_token)
    if who.role != "broadcaster":
        return None
    delayed = app.state.feed.delayed
    await run_in_threadpool(delayed.release, tid)
    seq: int = delayed.seq(tid)
    if seq == 0 and await run_in_threadpool(app.state.log.last_seq, tid) > 0:
        delay = delayed.delay(tid)
        raise ApiError(
            404,
            "broadcast.delayed",
            "tournament_id",
            f"broadcasters see {tid} as of {delay} s ago (its broadcast delay): nothing of it "
            "is that old yet",
        )
    return seq


def with_delay(app: FastAPI, response: Response, tid: str, upto: int | None) -> Response:
    """`response`, marked `Arbiter-Delay: N` when it is a broadcaster's delayed view."""
    if upto is not None:
        response.headers[DELAY_HEADER] = str(app.state.feed.delayed.delay(tid))
    return response
