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
assets under `services/feed/static/` (board.js, live.js, live.css) are read once and inlined
into the page, so it is one response under the same auth as the stream.

It reads its token from its own `?token=` and passes it on to the stream (EventSource cannot
set headers). Everything shown is set through `textContent` (or SVG attributes), never parsed
as HTML.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from projections.names import PROJECTIONS

STATIC = Path(__file__).resolve().parent / "static"

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
<h1 id="title"></h1>
<span id="round-label"></span>
<span id="status">connecting…</span>
</header>
<main>
<section id="sec-boards"><h2>Live boards</h2><div id="boards"><p class="empty">—</p></div>
</section>
<section id="sec-pairings"><h2>Pairings &amp; results</h2>
<div class="scroll"><table id="pairings"><thead></thead><tbody></tbody></table></div></section>
<section id="sec-standings"><h2>Standings</h2>
<div class="scroll"><table id="standings"><thead></thead><tbody></tbody></table></div>
<div id="flags"></div></section>
<section id="sec-playoff"><h2>Playoff</h2><div id="playoff">—</div></section>
<section id="sec-prizes"><h2>Prizes</h2><div id="prizes">—</div></section>
<section id="sec-crosstable"><h2>Crosstable</h2>
<div class="scroll"><table id="crosstable"><thead></thead><tbody></tbody></table></div></section>
</main>
<script>
"use strict";
const TID = __TID__;
const PROJECTIONS = __PROJECTIONS__;
</script>
<script>
__BOARD_JS__
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
        .replace("__LIVE_JS__", asset("live.js"))
    )


def live_page(tournament_id: str) -> str:
    # The id matches the API's stream-id pattern (no markup characters); JSON-quote it for JS.
    return (
        _template()
        .replace("__TITLE__", tournament_id)
        .replace("__TID__", json.dumps(tournament_id))
    )
