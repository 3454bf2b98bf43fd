"""What every HTTP route shares: the error type and its JSON answer, the token check and the
tournament-id check.

Errors are answered as `{"error": {"rule", "field", "message"}}` (401 adds
`WWW-Authenticate: Bearer`, 503 adds `Retry-After`). Used by the API (services/api/app.py),
its checkpoint routes (services/api/checkpoints.py) and the feed (services/feed/routes.py).

A token travels in `Authorization: Bearer <token>`; a page (the live page, the arbiter's
console) is opened once with `?token=`, which it trades for a cookie (`cookie_login`: HttpOnly,
SameSite=Strict, scoped to the tournament's path) and a redirect to its URL without the token,
so the token stays out of the address bar, the history, Referer headers and access logs (which
also redact it: services/api/logs.py). A write authorised by the cookie must carry the
`X-Arbiter-Console` header, which a page of another origin cannot send without a CORS
preflight this server never grants (cross-site request forgery; SameSite alone does not
separate two ports of one host).
"""

from __future__ import annotations

import re
from typing import Any, get_args
from urllib.parse import quote

from fastapi import Request
from fastapi.responses import RedirectResponse, Response

from events_schema.codec import dumps
from events_schema.ids import StreamId
from services.commands.auth import Principal, TokenStore
from services.eventlog.base import EventLogUnavailable
from services.eventlog.sqlite import StorageUnavailable


def _pattern(annotated: Any) -> str:
    """The regex of a constrained-string type (events_schema/ids.py), without its anchors."""
    for meta in get_args(annotated)[1:]:
        pattern = getattr(meta, "pattern", None)
        if pattern:
            return str(pattern).removeprefix("^").removesuffix("$")
    raise TypeError(f"{annotated!r} has no pattern")


#: A tournament (stream) id, as events_schema/ids.py defines it. Matched with `fullmatch` (a
#: `$` would accept a trailing newline).
STREAM_ID = re.compile(_pattern(StreamId))
STREAM_ID_HINT = "use 1–64 characters of A–Z, a–z, 0–9, '.', '_', '-', starting alphanumeric"


class ApiError(Exception):
    """A refusal, answered as `{"error": {rule, field, message}}` with `status`; one that
    found several problems (an input with several mistakes) also answers them all,
    `"errors": [{rule, field, message}, ...]`, the first being `error`."""

    def __init__(
        self,
        status: int,
        rule: str,
        field: str,
        message: str,
        errors: list[dict[str, str]] | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.rule, self.field, self.message = status, rule, field, message
        self.errors = errors


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(dumps(body), status_code=status, media_type="application/json", headers=headers)


def error_response(
    status: int, rule: str, field: str, message: str, errors: list[dict[str, str]] | None = None
) -> Response:
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    body: dict[str, Any] = {"error": {"rule": rule, "field": field, "message": message}}
    if errors and len(errors) > 1:
        body["errors"] = errors
    return json_response(body, status, headers)


def unavailable_response(exc: Exception) -> Response:
    """503 with `Retry-After`: the event log is unavailable. Its storage failing (the
    embedded log's `StorageUnavailable`: the disk full, an I/O error) answers with the
    condition as the rule, `storage.full` or `storage.io`, and `Retry-After: 30`."""
    retry = getattr(exc, "retry_after", EventLogUnavailable.retry_after)
    if isinstance(exc, StorageUnavailable):
        resp = error_response(503, exc.rule, "", str(exc))
        resp.headers["Retry-After"] = str(retry)
        return resp
    resp = error_response(503, "eventlog.unavailable", "", f"the event log is unavailable: {exc}")
    resp.headers["Retry-After"] = str(retry)
    return resp


def is_log_outage(exc: BaseException) -> bool:
    """An error of the Kafka client that escaped the log's own mapping."""
    return type(exc).__module__.split(".")[0] in ("kafka", "aiokafka")


def stream_id(tournament_id: str) -> str:
    """`tournament_id` if it is a valid stream id; else 422 `path.tournament_id`."""
    if not STREAM_ID.fullmatch(tournament_id):
        raise ApiError(422, "path.tournament_id", "tournament_id", STREAM_ID_HINT)
    return tournament_id


#: The cookie a page's `?token=` is traded for (`cookie_login`).
TOKEN_COOKIE = "arbiter_token"
#: The header a write authorised by the cookie must carry (any value; the console sends "1").
COOKIE_WRITE_HEADER = "X-Arbiter-Console"
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def request_token(request: Request) -> str:
    """The token a request carries: `Authorization: Bearer <token>`, else `?token=`, else the
    page's cookie."""
    header = request.headers.get("authorization", "")
    if header:
        scheme, _, token = header.partition(" ")
        return token.strip() if scheme.lower() == "bearer" else ""
    return request.query_params.get("token", "") or request.cookies.get(TOKEN_COOKIE, "")


def principal(tokens: TokenStore, request: Request, *, query_token: bool = False) -> Principal:
    """Who sent the request: `Authorization: Bearer <token>`, or with `query_token` (routes
    that EventSource and plain links reach, which cannot set headers) `?token=<token>`, or the
    page's cookie (`TOKEN_COOKIE`; on a write only with the `COOKIE_WRITE_HEADER`, else 403
    `auth.cookie_write`). 401 `auth.missing_token` without a token, 401 `auth.invalid_token`
    for an unknown or revoked one."""
    header = request.headers.get("authorization", "")
    if header:
        scheme, _, token = header.partition(" ")
        who = tokens.authenticate(token.strip()) if scheme.lower() == "bearer" else None
        field = "Authorization"
    elif query_token and request.query_params.get("token", ""):
        who, field = tokens.authenticate(request.query_params["token"]), "token"
    elif cookie := request.cookies.get(TOKEN_COOKIE, ""):
        if request.method not in _SAFE_METHODS and COOKIE_WRITE_HEADER.lower() not in (
            request.headers
        ):
            raise ApiError(
                403,
                "auth.cookie_write",
                COOKIE_WRITE_HEADER,
                f"a write authorised by the {TOKEN_COOKIE} cookie needs the "
                f"{COOKIE_WRITE_HEADER} header (the console page sends it), or send "
                "'Bearer <token>'",
            )
        who, field = tokens.authenticate(cookie), TOKEN_COOKIE
    else:
        how = "send 'Bearer <token>' or ?token=" if query_token else "send 'Bearer <token>'"
        raise ApiError(401, "auth.missing_token", "Authorization", how)
    if who is None:
        raise ApiError(401, "auth.invalid_token", field, "unknown or revoked token")
    return who


def reader(
    tokens: TokenStore, request: Request, tournament_id: str, *, query_token: bool = False
) -> str:
    """The tournament id of a read, once the token is known (401), the id valid (422) and the
    token allowed to read it (403)."""
    who = principal(tokens, request, query_token=query_token)
    tid = stream_id(tournament_id)
    if not who.may_read(tid):
        raise ApiError(403, "auth.forbidden", "tournament_id", f"{who.role} may not read {tid}")
    return tid


def writer(
    tokens: TokenStore, request: Request, tournament_id: str, doing: str
) -> tuple[Principal, str]:
    """Who writes and to which tournament, once the token is known (401), the id valid (422)
    and the token allowed to write to it (403: "<role> <subject> may not <doing> <id>")."""
    who = principal(tokens, request)
    tid = stream_id(tournament_id)
    if not who.may_write(tid):
        raise ApiError(
            403,
            "auth.forbidden",
            "tournament_id",
            f"{who.role} {who.subject} may not {doing} {tid}",
        )
    return who, tid


def cookie_login(request: Request, tournament_id: str) -> Response | None:
    """For a page opened with `?token=` (already checked by the route): 303 to the same URL
    without the token, setting the `TOKEN_COOKIE` (HttpOnly: the page's scripts never see it;
    SameSite=Strict; Path the tournament's, so it goes to that tournament's routes only;
    Secure over HTTPS; for the browser's session). None when there is no `?token=`, or when
    the request was authorised by its `Authorization` header instead: then the `?token=` was
    not what the route checked, and whatever it holds is never stored (it stays out of the
    URL all the same: a 303 without it, no cookie)."""
    token = request.query_params.get("token", "")
    if not token:
        return None
    checked = "authorization" not in request.headers
    rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
    query = "&".join(f"{quote(k)}={quote(v)}" for k, v in rest)
    target = request.url.path + (f"?{query}" if query else "")
    resp = RedirectResponse(
        target, 303, headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
    )
    if checked:
        resp.set_cookie(
            TOKEN_COOKIE,
            token,
            path=f"/tournaments/{tournament_id}",
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
        )
    return resp
