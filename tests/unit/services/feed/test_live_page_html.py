"""The live page's HTML (services/feed/page.py): the tournament's name as its title and
heading, escaped; the snapshot it renders before its stream opens, inlined as JSON that
cannot end its script element; no value taken for a placeholder."""

from __future__ import annotations

import json
import re

from services.feed.page import live_page

NAME = '<b>Open "26"</b></script>__TID__ & co'
SNAPSHOT = [
    b'{"projection":"standings","as_of_seq":3,"data":{"note":"</script><script>alert(1)"}}',
    b'{"projection":"games","as_of_seq":4,"data":{"pairings":[]}}',
]


def test_the_title_is_the_tournaments_name_escaped():
    page = live_page("open-2026", NAME, SNAPSHOT)
    escaped = "&lt;b&gt;Open &quot;26&quot;&lt;/b&gt;&lt;/script&gt;__TID__ &amp; co"
    assert f"<title>{escaped} — live</title>" in page
    assert f'<h1 id="title">{escaped}</h1>' in page
    tname = re.search(r"const TNAME = (.*);", page)
    assert tname is not None and json.loads(tname.group(1)) == NAME
    assert 'const TID = "open-2026";' in page


def test_the_snapshot_is_inlined_as_json_that_cannot_end_its_script():
    page = live_page("open-2026", NAME, SNAPSHOT)
    # Every "</script>" is the end of one of the page's own script elements.
    assert page.count("</script>") == page.count("<script")
    inlined = re.search(r'<script type="application/json" id="snapshot">(.*?)</script>', page)
    assert inlined is not None
    assert json.loads(inlined.group(1)) == [json.loads(m) for m in SNAPSHOT]


def test_without_a_name_or_a_snapshot_the_id_and_nothing():
    page = live_page("open-2026")
    assert "<title>open-2026 — live</title>" in page
    assert '<script type="application/json" id="snapshot">[]</script>' in page


def test_the_standings_table_is_one_asset_both_pages_inline():
    """The live page and the console draw the standings with the same code (static/
    standings.js, inlined into each as board.js is): neither page's own script draws the
    table, and nothing is fetched for it."""
    from services.feed.console import console_page
    from services.feed.page import STATIC

    shared = (STATIC / "standings.js").read_text(encoding="utf-8")
    for page in (live_page("open-2026"), console_page("open-2026", "Open", "arbiter", "ruth")):
        assert page.count(shared) == 1
        # The table's header and legend are drawn once, by the shared asset.
        assert page.count("function columnHead(") == 1
        assert page.count("function legend(") == 1
        assert "<script src" not in page
    for own in ("live.js", "console.js"):
        text = (STATIC / own).read_text(encoding="utf-8")
        assert "ArbiterStandings.render(" in text
        assert "tb.data.columns" not in text and ".decided_by" not in text
