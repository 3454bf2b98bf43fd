"""The live broadcast page: plain HTML, CSS and vanilla JS on `EventSource`.

It renders the tournament's stream (`GET /tournaments/{id}/stream`): the current round's
pairings and results and its games in progress (the `games` document: a board with the last
move, both clocks, an evaluation bar for engine events or whenever an evaluation is
recorded), the standings with their tiebreak columns (the `tiebreaks` document's `columns`
and each value's `display`), the crosstable (the standings document's `crosstable`), the
playoff's state and stages, and the prize split. Laid out for 1,280 px and up (two columns,
names on one line) down to 390 px (one column; wide tables scroll inside their own box, the
page never scrolls sideways); `tests/integration/feed/test_page.py` checks both in Chromium.

Boards are plain SVG drawn by our own `static/board.js` from the published FEN (chess: the
Unicode chess glyphs, in the DejaVu font Debian ships) or stones (Go), not a board widget from
npm. Why: the maintained widget, chessground, is GPL-3.0, and vendoring it into the page
served by Arbiter would put that licence's terms on what we ship; the page only shows
positions (no move input, no drag, no animation needed), which ~150 lines of SVG do; and the
same code draws the Go board, which chessground cannot. Nothing is fetched at run time: the
assets under `services/feed/static/` (board.js, standings.js, live.js, live.css) are read once
and inlined into the page, so it is one response under the same auth as the stream. The
standings table (standings.js: tie-breaks headed in words, the legend citing their articles,
the correction flags in names) is the console's too (services/feed/console.py): one code for
both pages, each inlining it.

Its token is never kept in the URL: opened with `?token=`, the route trades it for an
HttpOnly, SameSite=Strict cookie scoped to the tournament and redirects to the URL without it
(services/api/http.py `cookie_login`); the stream and the game routes are then authorised by
that cookie (EventSource cannot set headers). A `?token=` still in the URL (a page saved
before) is passed on as before. Everything shown is set through `textContent` (or SVG
attributes), never parsed as HTML.

What a spectator expects of a broadcast (issue 24): the tournament's name as the page's title
and heading (read from its `TournamentCreated` by the route; the id when there is none); the
latest message of each projection inlined as JSON (`snapshot`, the hub's atomic snapshot), so
the page renders what exists before its stream opens (a page that waited for the stream's
first message showed a blank "connecting…" while the feed caught up, or for good when the
stream could not open), then follows the stream (whose first whole messages its patches
apply to); a move list per board and the game opened
large (board, both clocks, the evaluation, the moves to step through, the PGN to download:
`GET /tournaments/{id}/games/{game_id}` and `.pgn`, services/interchange/pgn/export.py);
earlier rounds to step through (their pairings and results from the standings document's
crosstable: the games document holds the current round only).
"""

from __future__ import annotations

import html
import json
import re
from functools import cache
from pathlib import Path

from projections.names import PROJECTIONS

STATIC = Path(__file__).resolve().parent / "static"
_PLACEHOLDER = re.compile(r"__(TITLE|TNAME|TID|SNAPSHOT)__")

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__ — live</title>
<style>
__CSS__
</style>
</head>
<body>
<header class="top">
<h1 id="title">__TITLE__</h1>
<span id="round-label"></span>
<span id="status">connecting…</span>
</header>
<main>
<section id="sec-boards"><h2>Live boards</h2><div id="boards"><p class="empty">—</p></div>
</section>
<section id="sec-pairings"><h2>Pairings &amp; results</h2>
<nav class="rounds" aria-label="rounds">
<button type="button" id="round-prev" aria-label="previous round">‹</button>
<select id="round-select" aria-label="round"></select>
<button type="button" id="round-next" aria-label="next round">›</button>
<button type="button" id="round-live" class="follow">current round</button></nav>
<div class="scroll"><table id="pairings"><thead></thead><tbody></tbody></table></div></section>
<section id="sec-standings"><h2>Standings</h2>
<div class="scroll"><table id="standings"><thead></thead><tbody></tbody></table></div>
<div id="legend" class="legend"></div>
<div id="flags"></div></section>
<section id="sec-playoff"><h2>Playoff</h2><div id="playoff">—</div></section>
<section id="sec-prizes"><h2>Prizes</h2><div id="prizes">—</div></section>
<section id="sec-crosstable"><h2>Crosstable</h2>
<div class="scroll"><table id="crosstable"><thead></thead><tbody></tbody></table></div></section>
</main>
<div id="viewer" hidden></div>
<script type="application/json" id="snapshot">__SNAPSHOT__</script>
<script>
"use strict";
const TID = __TID__;
const TNAME = __TNAME__;
const PROJECTIONS = __PROJECTIONS__;
</script>
<script>
__BOARD_JS__
</script>
<script>
__STANDINGS_JS__
</script>
<script>
__LIVE_JS__
</script>
</body>
</html>
"""


@cache
def _template() -> str:
    def asset(name: str) -> str:
        return (STATIC / name).read_text(encoding="utf-8")

    # The assets are ours and hold no "</script>" or "</style>"; the data never enters here.
    # The projections the page listens for are the registry's (projections/names.py).
    return (
        _PAGE.replace("__PROJECTIONS__", json.dumps(list(PROJECTIONS)))
        .replace("__CSS__", asset("live.css"))
        .replace("__BOARD_JS__", asset("board.js"))
        .replace("__STANDINGS_JS__", asset("standings.js"))
        .replace("__LIVE_JS__", asset("live.js"))
    )


def _script_json(value: object) -> str:
    """JSON that cannot end the script element it is written in ("<" only occurs inside JSON
    strings, where "\\u003c" means the same)."""
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c")


def live_page(
    tournament_id: str, name: str | None = None, snapshot: list[bytes] | None = None
) -> str:
    """The page of `tournament_id`, titled `name` (the id when None), with `snapshot` (the
    latest message of each projection, JSON bytes) to render before the stream opens."""
    # The id matches the API's stream-id pattern (no markup characters); the name is the
    # organiser's text: escaped for HTML, JSON-quoted for JS.
    messages = b"[" + b",".join(snapshot or []) + b"]"
    values = {
        "TITLE": html.escape(name or tournament_id),
        "TNAME": _script_json(name or tournament_id),
        "TID": json.dumps(tournament_id),
        "SNAPSHOT": messages.decode("utf-8").replace("<", "\\u003c"),
    }
    # One pass: a value never has its own text taken for a placeholder.
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], _template())
