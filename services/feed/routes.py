"""Feed routes: projection snapshots, the SSE stream and the live page of a tournament.

- `GET /tournaments/{id}/projections/{name}`: the latest message of a projection
  (`standings`, `tiebreaks`, `playoff`, `prizes`, `games`: the registry, `projections.names`);
  404 when none was published yet.
- `GET /tournaments/{id}/stream`: Server-Sent Events. `event:` is the projection name, `data:`
  the message JSON (with `as_of_seq`), `id:` its `as_of_seq` (written on the last event of each
  seq, see `services.feed.sse.frame`). Resume (`Last-Event-ID` header, or `?last_event_id=`)
  is a *state transfer*: on connect the server sends the latest version of each projection
  whose `as_of_seq` is greater than the id (not every intermediate version), then every live
  change; a (projection, as_of_seq) is never sent twice on one connection, and nothing at or
  below the id is sent. A `: keep-alive` comment goes out when nothing changed for a while
  (`ARBITER_FEED_KEEPALIVE` seconds, default 15). Bounded: at most `ARBITER_MAX_SUBSCRIBERS`
  open streams per server process (default 5,000; beyond, 503 `feed.too_many_subscribers`
  with `Retry-After`), and a connection that fell behind by more than
  `ARBITER_FEED_MAX_BACKLOG` bytes of messages (a slow reader; default 1 MiB) gets a state
  transfer (the latest version of each projection that changed) instead of every version, so
  a slow reader holds at most that, plus its socket's write buffer (nothing is written to it
  while its socket does not take bytes). Under uvicorn's httptools protocol (`arbiter serve`)
  the streams of a tournament that keep up are written by one broadcaster, each publish
  encoded once and written straight to their sockets; one that falls behind catches up on its
  own and rejoins (services/feed/broadcast.py states the rule).
  With `?patches=true`, a projection whose full message this connection already sent is then
  sent as `event: patch` (`services.feed.patch`: RFC 6902 operations that turn the message the
  client holds, `base_seq`, into the new one, `as_of_seq`) when that is smaller: on a live
  round of a large open a move changes one board, not the whole games document. The `id:`
  rule, resume and the state transfers are unchanged (a state transfer is sent whole).
- `GET /tournaments/{id}/live`: the broadcast page that renders the stream (`page.py`: boards,
  pairings and results, standings, crosstable, playoff, prizes; its assets are inlined, so it
  is one response under the same auth as the stream), titled with the tournament's name and
  carrying the latest message of each projection, rendered before the stream opens.
- `POST /tournaments/{id}/delay` `{"seconds": N, "reason": "…"}` (an arbiter of the
  tournament or an admin): the broadcast delay (`BroadcastDelaySet`,
  services/commands/broadcast.py); 201 with the event appended.
- `GET /tournaments/{id}/games/{game_id}.pgn`: one chess game as PGN, a download
  (`services/interchange/pgn/export.py`: the Seven Tag Roster, Elo, `[%clk]`, `[%eval]`);
  `GET /tournaments/{id}/games/{game_id}`: the same game as JSON (each move's SAN, the FEN
  after it, the mover's clock, the evaluation), what the page's move lists and large board
  read. Both fold the tournament's log; 404 `pgn.unknown_game`, 422 `pgn.not_chess` (Go: SGF).

The variables above are read by the process's composition root (`services.config.FeedSettings`,
`services/api/main.py`, `arbiter serve`), which hands their values to `create_app`.

Reads need a broadcaster, auditor or admin token, or an arbiter token naming the tournament:
`Authorization: Bearer <token>`, `?token=<token>` (EventSource cannot set headers) or the
page's cookie: the live page opened with `?token=` sets it (HttpOnly, SameSite=Strict) and
redirects to itself without the token, and its stream then goes with the cookie
(services/api/http.py `cookie_login`); access logs redact any `token=` (services/api/logs.py).
Hand pages a broadcaster token. Errors use the API's `{"error": {rule, field, message}}`
format (401, 403, 404, 422).

Broadcast delay (issue 25): a broadcaster token reads every route above as of the tournament's
delay ago (`services/feed/delay.py`): the snapshot is the replay of the log up to the last
event recorded by now − delay (byte for byte `arbiter replay T --until <that time>`, header
`Arbiter-Delay: N`), the stream and the live page follow the delayed hub, a game's record
stops at the same seq, and `GET /tournaments/{id}/events` too (services/api/app.py), and the
API's other reader routes (rounds, players, schedule, TRF, checkpoints: services/api/delayed.py).
Arbiters, auditors and admins read live.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Receive, Scope, Send

from events_schema import Actor, Recorded
from projections.names import PROJECTIONS
from services.api.http import (
    ApiError,
    cookie_login,
    error_response,
    json_response,
    principal,
    request_token,
    stream_id,
    writer,
)
from services.commands.auth import Principal, TokenStore
from services.config import FeedSettings
from services.eventlog.base import EventLog, utcnow
from services.feed import sse
from services.feed.broadcast import UvicornSink, direct_sink, next_check, serve_member
from services.feed.delay import Clock, DelayedFeed
from services.feed.hub import FeedHub, Source
from services.feed.page import live_page
from services.feed.sse import bounded, held_frame
from services.interchange.pgn.export import ExportRefused, export_pgn, game_record
from services.projection.embedded import EmbeddedRunner, KafkaProjectionSource

CATCH_UP_WAIT = 10.0  # seconds a first request waits for the source to read the existing log
RETRY_AFTER = 5  # seconds, on a 503 for too many subscribers


class Feed:
    """The hub and its source for one API app; the source starts on first use. Its settings
    come from the process's composition root (`services.config.FeedSettings`)."""

    def __init__(self, event_log: EventLog, settings: FeedSettings, clock: Clock = utcnow) -> None:
        self.event_log = event_log
        self.settings = settings
        self.keepalive = settings.keepalive
        self.reauth = settings.reauth
        self.max_subscribers = settings.max_subscribers
        self.max_backlog = settings.max_backlog
        self.subscribers = 0  # open streams (touched on the event loop only)
        # Set by a server's composition root (`arbiter serve`, services/api/main.py): the
        # embedded runner freezes the heap once it has folded the log
        # (services.projection.embedded).
        self.freeze_heap = False
        self.hub = FeedHub()
        self.source: Source | None = None
        self._lock = threading.Lock()
        # The broadcasters' view (services/feed/delay.py), woken by every live publish.
        self.delayed = DelayedFeed(event_log, clock, settings.delay_tick)
        self.hub.on_publish(self.delayed.nudge)

    def _make_source(self) -> Source:
        if self.event_log.backend == "kafka" and self.settings.source != "log":
            from services.projection.processors.config import ProcessorConfig

            bootstrap = str(getattr(self.event_log, "bootstrap", ""))
            # The processors' naming rule (ProcessorConfig.out_topic): `arbiter.projection.`
            # for the default events topic, `<events topic>.projection.` for any other.
            topic = str(getattr(self.event_log, "topic", ""))
            out = ProcessorConfig("standings", events_topic=topic).out_topic
            prefix = self.settings.projection_prefix
            if prefix is None:
                prefix = out.removesuffix("standings")
            return KafkaProjectionSource(bootstrap, self.hub, prefix=prefix)
        return EmbeddedRunner(self.event_log, self.hub, freeze_heap=self.freeze_heap)

    def started(self) -> FeedHub:
        with self._lock:
            if self.source is None:
                self.source = self._make_source()
                self.source.start()
                self.delayed.start()
        return self.hub

    async def ready(self) -> FeedHub:
        hub = self.started()
        if not hub.caught_up.is_set():
            await run_in_threadpool(hub.caught_up.wait, CATCH_UP_WAIT)
        return hub

    def stop(self) -> None:
        if self.source is not None:
            self.source.stop()
        self.delayed.stop()

    async def delayed_view(self, tid: str) -> DelayedFeed:
        """The broadcasters' view of `tid`, released up to now (services/feed/delay.py)."""
        await self.ready()
        await run_in_threadpool(self.delayed.release, tid)
        return self.delayed

    def admit(self) -> Callable[[], None] | None:
        """A slot for one more stream and its release, or None when all are taken."""
        if self.subscribers >= self.max_subscribers:
            return None
        self.subscribers += 1
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                self.subscribers -= 1

        return release


Emit = Callable[[bytes], Awaitable[None]]

#: Where `raw_send` keeps the server's own `send` in the ASGI scope.
RAW_SEND = "arbiter.feed.send"


def raw_send(app: FastAPI) -> None:
    """Keep the server's `send` of each HTTP request in its scope, under `RAW_SEND`, before
    the middleware stack wraps it: a stream writes its frames there directly (one call per
    frame into the server, not one through every middleware), while the response start, the
    auth, the routing and the error handlers go through the stack once per connection as for
    any other route (issue 27, item 4)."""
    build = app.build_middleware_stack

    def outermost() -> ASGIApp:
        inner = build()

        async def keep_send(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == "http":
                scope[RAW_SEND] = send
            await inner(scope, receive, send)

        return keep_send

    app.build_middleware_stack = outermost  # type: ignore[method-assign]


class _Stream(Response):
    """The SSE response: a raw ASGI response whose body is written by `deliver` (one
    coroutine per connection, no generator and no streaming response between it and the
    server). Under uvicorn's httptools protocol `deliver` gets a direct writer onto the
    connection (`broadcast.direct_sink`) and the stream joins its tournament's broadcaster
    (services/feed/broadcast.py); elsewhere it writes frame by frame to the server's `send`
    (`raw_send`). It stops when the client goes away (the server's `http.disconnect`, as
    Starlette's streaming response listens for it) or `deliver` returns (a revoked token),
    and gives its subscriber slot back however it ends."""

    media_type = "text/event-stream"

    def __init__(
        self,
        deliver: Callable[[Emit, UvicornSink | None], Awaitable[None]],
        release: Callable[[], None],
    ):
        self.status_code = 200
        self.background = None
        self.init_headers({"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
        self._deliver = deliver
        self._release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            out: Send = scope.get(RAW_SEND, send)

            async def emit(chunk: bytes) -> None:
                await out({"type": "http.response.body", "body": chunk, "more_body": True})

            task = asyncio.ensure_future(self._deliver(emit, direct_sink(out)))
            gone = asyncio.ensure_future(_disconnected(receive))
            try:
                await asyncio.wait((task, gone), return_when=asyncio.FIRST_COMPLETED)
            finally:
                for t in (task, gone):
                    t.cancel()
                await asyncio.gather(task, gone, return_exceptions=True)
            if task.done() and not task.cancelled() and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]
            if not gone.done() or gone.cancelled():
                await out({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            self._release()


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


def _last_event_id(request: Request) -> int:
    raw = request.headers.get("last-event-id") or request.query_params.get("last_event_id") or "0"
    try:
        value = int(raw.strip())
    except ValueError:
        value = -1
    if value < 0:
        raise ApiError(422, "feed.last_event_id", "Last-Event-ID", "an as_of_seq (integer ≥ 0)")
    return value


def feed_router(app: FastAPI, settings: FeedSettings, clock: Clock = utcnow) -> APIRouter:
    """The feed's routes for `app` (whose state holds the log and the token store); `clock`:
    the process's (the broadcast delay's now), from the composition root."""
    event_log: EventLog = app.state.log
    tokens: TokenStore = app.state.tokens
    feed = Feed(event_log, settings, clock)
    app.state.feed = feed
    raw_send(app)  # the streams write their frames below the middleware stack
    auth = SharedAuth(tokens.authenticate, feed.reauth)  # the streams' token re-checks
    # Started with the server (uvicorn runs the lifespan: `arbiter serve` folds the embedded log
    # from its start), else on the first feed request.
    router = APIRouter(on_startup=[feed.started], on_shutdown=[feed.stop])

    def viewer(request: Request, tournament_id: str) -> tuple[str, bool]:
        """The tournament id of a read (401, 422, 403 as `services.api.http.reader`) and
        whether the reader sees it delayed (a broadcaster token)."""
        who = principal(tokens, request, query_token=True)
        tid = stream_id(tournament_id)
        if not who.may_read(tid):
            raise ApiError(403, "auth.forbidden", "tournament_id", f"{who.role} may not read {tid}")
        return tid, who.role == "broadcaster"

    @router.get("/tournaments/{tournament_id}/projections/{name}")
    async def projection(tournament_id: str, name: str, request: Request) -> Response:
        tid, delayed = viewer(request, tournament_id)
        if name not in PROJECTIONS:
            raise ApiError(
                404, "feed.unknown_projection", "name", f"one of {', '.join(PROJECTIONS)}"
            )
        if delayed:
            return await delayed_projection(tid, name)
        hub = await feed.ready()
        msg = hub.latest(tid, name)
        held = hub.held(tid).get(tid)
        if msg is None:
            if held is not None:
                raise ApiError(
                    409, "feed.held", "tournament_id", f"{tid} is held: {_held_text(held)}"
                )
            raise ApiError(404, "feed.not_found", "tournament_id", f"no {name} for {tid} yet")
        headers = {"Cache-Control": "no-cache", "ETag": f'"{msg.as_of_seq}"'}
        if held is not None:  # the last version published before the hold
            headers["Arbiter-Held"] = _held_text(held)
        return Response(msg.body, media_type="application/json", headers=headers)

    async def delayed_projection(tid: str, name: str) -> Response:
        """A broadcaster's snapshot: the replay of the log up to the delayed view's seq."""
        view = await feed.delayed_view(tid)
        docs = await run_in_threadpool(view.snapshot, tid)
        body = docs.get(name)
        if body is None:
            held = view.held(tid)
            if held is not None:
                raise ApiError(
                    409, "feed.held", "tournament_id", f"{tid} is held: {_held_text(held)}"
                )
            raise ApiError(
                404,
                "feed.not_found",
                "tournament_id",
                f"no {name} for {tid} as of {view.delay(tid)} s ago",
            )
        headers = {
            "Cache-Control": "no-cache",
            "ETag": f'"{view.seq(tid)}"',
            "Arbiter-Delay": str(view.delay(tid)),
        }
        return Response(body, media_type="application/json", headers=headers)

    @router.post("/tournaments/{tournament_id}/delay")
    async def set_delay(tournament_id: str, request: Request) -> Response:
        """The broadcast delay: `{"seconds": 0..86400, "reason": "…"}` (an arbiter of the
        tournament or an admin); broadcasters then see the projections that long ago."""
        from services.commands.broadcast import set_broadcast_delay
        from services.commands.service import CommandRejected

        who, tid = writer(tokens, request, tournament_id, "set the broadcast delay of")
        try:
            body = orjson.loads(await request.body())
        except orjson.JSONDecodeError as exc:
            raise ApiError(422, "body.not_json", "body", f"not JSON: {exc}") from None
        seconds = body.get("seconds") if isinstance(body, dict) else None
        if not isinstance(seconds, int) or isinstance(seconds, bool):
            raise ApiError(422, "body.invalid", "seconds", "an integer, 0 to 86400")
        reason = body.get("reason", "")
        if not isinstance(reason, str):
            raise ApiError(422, "body.invalid", "reason", "a text")
        actor = Actor(id=who.subject, role=who.role)
        try:
            result = await run_in_threadpool(
                set_broadcast_delay, app.state.commands, tid, seconds, reason, actor
            )
        except CommandRejected as exc:
            errors = exc.errors_as_dicts()
            raise ApiError(exc.status, exc.rule, exc.field, exc.message, errors) from None
        feed.delayed.nudge()
        env = result.envelopes[0]
        return json_response(
            {"tournament_id": tid, "seconds": seconds, "event": env.to_json_dict()}, 201
        )

    @router.get("/tournaments/{tournament_id}/feed-status")
    async def feed_status(tournament_id: str, request: Request) -> Response:
        """Whether the feed publishes this tournament, the version of each projection it
        holds, and, if held, why (the unreadable event's seq and id)."""
        tid, delayed = viewer(request, tournament_id)
        hub = (await feed.delayed_view(tid)).hub if delayed else await feed.ready()
        held = hub.held(tid).get(tid)
        versions = {n: m.as_of_seq for n in PROJECTIONS if (m := hub.latest(tid, n)) is not None}
        body = {"tournament_id": tid, "held": held, "projections": versions}
        return Response(orjson.dumps(body), media_type="application/json")

    @router.get("/tournaments/{tournament_id}/stream")
    async def stream(
        tournament_id: str,
        request: Request,
        patches: bool = Query(
            False,
            description="after a projection's full message, send its later versions as "
            "`event: patch` (RFC 6902 operations on the message held) when smaller",
        ),
    ) -> Response:
        tid, delayed = viewer(request, tournament_id)
        floor = _last_event_id(request)
        hub = (await feed.delayed_view(tid)).hub if delayed else await feed.ready()
        token = request_token(request)

        async def still_allowed() -> bool:
            who = await auth.principal(token)
            return who is not None and who.may_read(tid)

        release = feed.admit()
        if release is None:
            resp = error_response(
                503,
                "feed.too_many_subscribers",
                "",
                f"this server has {feed.max_subscribers} open streams (ARBITER_MAX_SUBSCRIBERS);"
                " retry later",
            )
            resp.headers["Retry-After"] = str(RETRY_AFTER)
            return resp

        async def deliver(emit: Emit, sink: UvicornSink | None) -> None:
            stream = (hub, tid, floor, feed.keepalive, still_allowed)
            limits = (feed.reauth, feed.max_backlog, patches)
            if sink is not None:  # written by the tournament's broadcaster
                await serve_member(sink, *stream, *limits)
            else:
                await deliver_stream(emit, *stream, *limits)

        return _Stream(deliver, release)

    @router.get("/tournaments/{tournament_id}/live")
    async def live(tournament_id: str, request: Request) -> Response:
        tid, delayed = viewer(request, tournament_id)
        # Opened with ?token=: traded for a cookie and a redirect without it (http.py).
        if (login := cookie_login(request, tid)) is not None:
            return login
        hub = (await feed.delayed_view(tid)).hub if delayed else await feed.ready()
        snapshot, _ = hub.snapshot(tid)  # rendered at once; the stream resumes after it
        name = await run_in_threadpool(_tournament_name, event_log, tid)
        page = live_page(tid, name, [m.body for m in snapshot])
        return HTMLResponse(page, headers={"Cache-Control": "no-cache"})

    async def upto(tid: str, delayed: bool) -> int | None:
        """The last seq a reader may see: the delayed view's for a broadcaster."""
        return (await feed.delayed_view(tid)).seq(tid) if delayed else None

    def game_records(tid: str, last: int | None = None) -> list[Recorded]:
        if last == 0:
            raise ApiError(404, "pgn.unknown_tournament", "tournament_id", f"no {tid}")
        records = [Recorded.of(e) for e in event_log.read(tid, 1, last)]
        if not records:
            raise ApiError(404, "pgn.unknown_tournament", "tournament_id", f"no {tid}")
        return records

    def refused(exc: ExportRefused) -> ApiError:
        status = 422 if exc.rule == "pgn.not_chess" else 404
        return ApiError(
            status, exc.rule, "game_id" if exc.field == "GAME" else "tournament_id", exc.message
        )

    @router.get("/tournaments/{tournament_id}/games/{game_id}.pgn")
    async def game_pgn(tournament_id: str, game_id: str, request: Request) -> Response:
        """One chess game as PGN (services/interchange/pgn/export.py), as a download."""
        tid, delayed = viewer(request, tournament_id)
        last = await upto(tid, delayed)

        def build() -> str:
            try:
                return export_pgn(game_records(tid, last), game_id)
            except ExportRefused as exc:
                raise refused(exc) from None

        text = await run_in_threadpool(build)
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in f"{tid}-{game_id}")
        headers = {"Content-Disposition": f'attachment; filename="{safe}.pgn"'}
        return Response(text, media_type="application/x-chess-pgn", headers=headers)

    @router.get("/tournaments/{tournament_id}/games/{game_id}")
    async def game(tournament_id: str, game_id: str, request: Request) -> Response:
        """One chess game's moves in force (SAN, FEN after each, clocks, evaluations), its
        players and result: the live page's move list and large board."""
        tid, delayed = viewer(request, tournament_id)
        last = await upto(tid, delayed)

        def build() -> dict[str, Any]:
            try:
                return game_record(game_records(tid, last), game_id)
            except ExportRefused as exc:
                raise refused(exc) from None

        body = await run_in_threadpool(build)
        return Response(orjson.dumps(body), media_type="application/json")

    return router


def _tournament_name(event_log: EventLog, tid: str) -> str | None:
    """The name its `TournamentCreated` gives (the first event of a tournament's stream)."""
    for envelope in event_log.read(tid, 1, 1):
        name = envelope.payload.get("name") if envelope.type == "TournamentCreated" else None
        return name if isinstance(name, str) and name else None
    return None


def _held_text(held: dict[str, object]) -> str:
    if held.get("reason") == "unreadable_event":
        return (
            f"the event at seq {held.get('seq')} ({held.get('event_id')}) cannot be read; "
            "projections are held until an admin retracts it"
        )
    return "its projections failed to build; see the server log"


async def deliver_stream(
    emit: Emit,
    hub: FeedHub,
    tid: str,
    floor: int,
    keepalive: float,
    still_allowed: Callable[[], bool] | Callable[[], Awaitable[bool]],
    reauth: float,
    max_backlog: int,
    patches: bool = False,
) -> None:
    """Write one connection's stream with `emit` until its token is revoked (the caller
    stops it when the client goes away). The frames of a publish are encoded once per hub for
    every connection that receives them alike (`sse.frame`'s cache, `FeedHub.frames`).

    `still_allowed` is asked at the multiples of `reauth` on the monotonic clock (a coroutine
    function on the loop, else in a worker thread), the same instants for every connection, so
    the connections of one token share one check (`SharedAuth`)."""
    with hub.watch(
        tid, patches
    ) as watcher:  # registered before the snapshot: no change slips between
        sent: dict[str, int] = {}
        snapshot, cursor = hub.snapshot(tid, floor)
        held = hub.held(tid).get(tid)
        first = b"retry: 2000\n" + b": connected\n\n" + sse.frame(snapshot, sent, floor)
        await emit(first + (held_frame(held) if held is not None else b""))
        next_auth = next_check(reauth)
        frames = hub.frames
        while True:
            wait = min(keepalive, max(0.0, next_auth - time.monotonic()))
            changed = await watcher.wait(wait)
            if time.monotonic() >= next_auth:
                if asyncio.iscoroutinefunction(still_allowed):
                    allowed = await still_allowed()
                else:
                    allowed = await run_in_threadpool(still_allowed)
                if not allowed:
                    await emit(b"event: revoked\ndata: {}\n\n")
                    return
                next_auth = next_check(reauth)
            if not changed:
                await emit(sse.KEEPALIVE)
                continue
            # Everything pending for this connection goes as one ASGI message (one chunk on
            # the wire): a hold and the changes published since the last wake, however many
            # (a reader that fell behind, several projections at once). SSE frames delimit
            # themselves, so the bytes and their order are those of one message per frame.
            now_held = hub.held_entry(tid)
            changes, cursor = hub.since(tid, cursor)
            chunk = sse.frame(bounded(changes, max_backlog), sent, floor, patches, frames)
            if now_held != held:
                held = now_held
                chunk = held_frame(held) + chunk
            if chunk:
                await emit(chunk)


class SharedAuth:
    """The periodic token re-checks of the open streams, one per token and period for all the
    connections that carry it: a thousand spectators behind one broadcaster token cost one
    token look-up (a SQLite read in a worker thread) per `every` seconds, not a thousand.

    A check made in the period [k·every, (k+1)·every) of the monotonic clock answers every
    connection that re-checks in that period; `deliver_stream` re-checks at the start of each
    period, so a token revoked is still seen within `every` seconds (ARBITER_FEED_REAUTH)."""

    def __init__(self, authenticate: Callable[[str | None], Principal | None], every: float):
        self._authenticate = authenticate
        self.every = every
        self._period = -1
        self._checks: dict[str | None, tuple[Any, int, asyncio.Future[Principal | None]]] = {}

    async def principal(self, token: str | None) -> Principal | None:
        if self.every <= 0:
            return await run_in_threadpool(self._authenticate, token)
        period = int(time.monotonic() // self.every)
        if period != self._period:  # a new period: the checks of the older ones go
            self._period = period
            self._checks = {k: v for k, v in self._checks.items() if v[1] >= period}
        loop = asyncio.get_running_loop()
        entry = self._checks.get(token)
        if entry is None or entry[0] is not loop or entry[1] != period:
            check = asyncio.ensure_future(run_in_threadpool(self._authenticate, token))
            self._checks[token] = entry = (loop, period, check)
        # shielded: a connection that goes away while waiting does not cancel the others' check
        return await asyncio.shield(entry[2])
