"""The arbiter's console: `GET /tournaments/{id}/console`, a page to run a round from.

What it shows and does (issue 24 item 6), all through the HTTP API under the page's own
token, so every action is an event the decider checks and every refusal is shown with its
rule, field and message:
- the current round's boards (the `games` document) with a result button per board: 1-0,
  ½-½, 0-1 and the forfeits +−, −+, −− (`POST …/rounds/{n}/boards/{board}/result`), or the
  whole round typed at once (`POST …/rounds/{n}/results`); a board with a result offers its
  correction instead;
- a correction of any round's board with its reason (`POST …/boards/{board}/correction`: an
  admin's; another token's refusal is shown as the server gives it);
- "Pair next round" (`POST …/pair`);
- register (`POST …/players`), withdraw and bye (`POST …/players/{player}/withdraw|bye`);
- the correction flags (the standings document's `flags`: `corrections_after_pairing`) and
  the standings with their tie-break columns (`standings`, `tiebreaks`).
The documents come from the tournament's stream (`GET …/stream`, services/feed/routes.py);
the write routes are the organiser contract's (services/api/entries.py,
services/api/results.py) and the pairing route's (services/api/pairing.py).

Why here, beside the live page, and not in services/api/: it is a page of the feed's stack
(plain HTML, CSS and JS, no build step, its assets under `static/` inlined into one response,
nothing fetched from elsewhere) and renders the feed's documents; it only calls the API's
routes from the browser. It needs an arbiter token naming the tournament or an admin's
(403 `auth.forbidden` for a reader's). Opened once with `?token=`, it sets the HttpOnly
cookie and redirects to itself without the token (services/api/http.py `cookie_login`); its
scripts never see the token: they send the cookie (same-origin requests) and, on writes, the
`X-Arbiter-Console` header the cookie needs. Everything shown is set through `textContent`.
"""

from __future__ import annotations

import html
import json
from functools import cache

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from services.api.http import ApiError, cookie_login, principal, stream_id
from services.commands.auth import TokenStore
from services.eventlog.base import EventLog
from services.feed.page import STATIC

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>__TITLE__ — arbiter's console</title>
<style>
__CSS__
</style>
</head>
<body>
<header class="top">
<h1 id="title"></h1>
<span id="round-label"></span>
<span id="who"></span>
<span id="status">connecting…</span>
</header>
<main>
<div class="col" id="col-run">
<section id="sec-round"><h2>Round</h2>
<div class="bar">
<button type="button" id="pair" class="primary">Pair next round</button>
<span class="out" id="pair-out" aria-live="polite"></span>
</div>
<div id="boards"><p class="empty">No round paired yet.</p></div>
<div id="byes"></div>
<form id="whole" class="row" autocomplete="off">
<label>Whole round, one result per board <input name="results" placeholder="1-0 ½ 0-1 +- -+ --"
 required></label>
<button type="submit">Enter round</button>
<p class="out"></p>
</form>
</section>
<section id="sec-flags"><h2>Correction flags</h2><div id="flags"><p class="empty">None.</p></div>
</section>
<section id="sec-standings"><h2>Standings</h2>
<div class="scroll"><table id="standings"><thead></thead><tbody></tbody></table></div>
<div id="legend" class="legend"></div>
</section>
</div>
<div class="col" id="col-forms">
<section id="sec-correct"><h2>Correct a result</h2>
<form id="correct" class="grid" autocomplete="off">
<label>Round <select name="round" required></select></label>
<label>Result <select name="result" required>
<option value="1-0">1-0</option><option value="½">½-½</option><option value="0-1">0-1</option>
<option value="+-">+− (forfeit, White wins)</option>
<option value="-+">−+ (forfeit, Black wins)</option>
<option value="--">−− (double forfeit)</option></select></label>
<label class="wide">Board <select name="board" required></select></label>
<label class="wide">Reason <input name="reason" required maxlength="4000"
 placeholder="why the result changes"></label>
<button type="submit">Correct</button>
<p class="out"></p>
</form>
<p class="note" id="correct-note"></p>
</section>
<section id="sec-register"><h2>Register a player</h2>
<form id="register" class="grid" autocomplete="off">
<label class="wide">Name
<input name="name" required maxlength="200" placeholder="Surname, First"></label>
<label>Rating <input name="rating" type="number" min="0" max="4000" inputmode="numeric"></label>
<label>Title <input name="title" maxlength="8" placeholder="GM"></label>
<label>Federation <input name="federation" maxlength="8" placeholder="NOR"></label>
<label>FIDE id <input name="fide_id" type="number" min="1" inputmode="numeric"></label>
<label>Club <input name="club" maxlength="200"></label>
<label>Go rank <input name="go_rank" maxlength="4" placeholder="3k"></label>
<button type="submit">Register</button>
<p class="out"></p>
</form>
</section>
<section id="sec-withdraw"><h2>Withdraw a player</h2>
<form id="withdraw" class="grid" autocomplete="off">
<label class="wide">Player <select name="player" class="players" required></select></label>
<label>From round <input name="from_round" type="number" min="1" inputmode="numeric"
 placeholder="next"></label>
<label class="wide">Reason <input name="reason" maxlength="2000"></label>
<button type="submit">Withdraw</button>
<p class="out"></p>
</form>
</section>
<section id="sec-bye"><h2>Requested bye</h2>
<form id="bye" class="grid" autocomplete="off">
<label class="wide">Player <select name="player" class="players" required></select></label>
<label>Round <input name="round" type="number" min="1" required inputmode="numeric"></label>
<label>Points <select name="points"><option value="½">½</option><option value="0">0</option>
<option value="1">1</option></select></label>
<button type="submit">Request bye</button>
<p class="out"></p>
</form>
</section>
<section id="sec-log"><h2>Activity</h2><ol id="log"></ol></section>
</div>
</main>
<script>
"use strict";
const TID = __TID__;
const WHO = __WHO__;
</script>
<script>
__STANDINGS_JS__
</script>
<script>
__CONSOLE_JS__
</script>
</body>
</html>
"""


@cache
def _template() -> str:
    def asset(name: str) -> str:
        return (STATIC / name).read_text(encoding="utf-8")

    # The assets are ours and hold no "</script>" or "</style>"; the data goes in as JSON.
    # The standings table is the live page's (standings.js), inlined here as there.
    return (
        _PAGE.replace("__CSS__", asset("console.css"))
        .replace("__STANDINGS_JS__", asset("standings.js"))
        .replace("__CONSOLE_JS__", asset("console.js"))
    )


def _script_json(value: object) -> str:
    """`value` as a JS literal that cannot end its <script> ("<" escaped)."""
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c")


def console_page(tournament_id: str, name: str | None, role: str, subject: str) -> str:
    who = {"role": role, "subject": subject, "name": name}
    return (
        _template()
        .replace("__TITLE__", html.escape(name or tournament_id))
        .replace("__TID__", _script_json(tournament_id))
        .replace("__WHO__", _script_json(who))
    )


def _tournament_name(event_log: EventLog, tid: str) -> str | None:
    """The name its `TournamentCreated` gave (the stream's first event), if any."""
    for envelope in event_log.read(tid, 1, 1):
        if envelope.type == "TournamentCreated":
            name = envelope.payload.get("name")
            return name if isinstance(name, str) else None
    return None


def console_router(app: FastAPI) -> APIRouter:
    """`GET /tournaments/{id}/console` for `app` (whose state holds the log and the tokens)."""
    tokens: TokenStore = app.state.tokens
    event_log: EventLog = app.state.log
    router = APIRouter()

    @router.get("/tournaments/{tournament_id}/console")
    async def console(tournament_id: str, request: Request) -> Response:
        who = principal(tokens, request, query_token=True)
        tid = stream_id(tournament_id)
        if not who.may_write(tid):
            raise ApiError(
                403,
                "auth.forbidden",
                "tournament_id",
                f"{who.role} {who.subject} may not run {tid} (an arbiter or admin token)",
            )
        if (login := cookie_login(request, tid)) is not None:
            return login
        name = await run_in_threadpool(_tournament_name, event_log, tid)
        page = console_page(tid, name, who.role, who.subject)
        return HTMLResponse(
            page, headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
        )

    return router
