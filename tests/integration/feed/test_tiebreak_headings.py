"""Tie-break columns headed in words on the live page and the arbiter's console (issue 24 item
4), in headless Chromium on a real `arbiter serve` (the helpers of tests_support.py): "Buchholz cut
1", not "Buchholz Cut-1 (C.07 2026)"; the article is the header's tooltip and the legend under
the table, and "Decided by" names the criterion in the same words.
`ARBITER_SCREENSHOTS=DIR` keeps the PNGs (tiebreak-headings-*.png).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from bench.feed import ApiServer
from tests_support import BROWSER_TEST, Chromium, cmd, screenshots, whole_page_shot

pytestmark = BROWSER_TEST

TID = "headings-2026"
PLAYERS = [
    ("ana", "Ana Ortega", 2612),
    ("bram", "Bram de Vries", 2587),
    ("dara", "Dara Okafor", 2530),
    ("fen", "Fen Lindqvist", 2461),
]
# What the page shows for the 2026 fide-swiss chain: heading, the article in its tooltip.
EXPECTED = [
    ("Buchholz cut 1", "FIDE C.07 2026, 8.1, 16.3-16.5, 14.1"),
    ("Buchholz", "FIDE C.07 2026, 8.1, 16.3-16.5"),
    ("Direct encounter", "FIDE C.07 2026, 6"),
    ("Sonneborn-Berger", "FIDE C.07 2026, 9.1, 16.3-16.5"),
    ("Wins", "FIDE C.07 2026, 7.1"),
]
HEADS = "[...document.querySelectorAll('#standings th.tb')].map(t => [t.textContent, t.title])"
LEGEND = "[...document.querySelectorAll('#legend .cite')].map(p => p.textContent)"


def _setup(srv: ApiServer) -> None:
    r = httpx.post(
        f"{srv.url}/tournaments/{TID}/commands",
        json={
            "commands": [
                cmd(
                    "TournamentCreated",
                    name="Headings Open 2026",
                    format="swiss",
                    rounds=5,
                    rules_preset="fide-swiss",
                    starts_on="2026-05-01",  # ranked by the 2026 text: labels cite it
                ),
                *(cmd("PlayerRegistered", player_id=p, name=n, rating=r) for p, n, r in PLAYERS),
                cmd(
                    "RoundScheduled",
                    round=1,
                    pairings=[
                        {"game_id": "main-r1-b1", "white": "ana", "black": "dara"},
                        {"game_id": "main-r1-b2", "white": "fen", "black": "bram"},
                    ],
                ),
                cmd("GameEnded", game_id="main-r1-b1", result="1-0", termination="resignation"),
                cmd("GameEnded", game_id="main-r1-b2", result="0-1", termination="resignation"),
            ]
        },
        headers={"Authorization": f"Bearer {srv.token('admin', 'chief')}"},
    )
    assert r.status_code == 201, r.text


def _shot(browser: Chromium, name: str, tmp: Path) -> None:
    whole_page_shot(browser, 1280, screenshots(tmp) / f"tiebreak-headings-{name}.png")


def _check_headings(browser: Chromium) -> dict[str, Any]:
    browser.wait_for("document.querySelectorAll('#standings tbody tr').length", 4)
    browser.wait_for(f"{HEADS}.length", len(EXPECTED))
    assert [tuple(h) for h in browser.evaluate(HEADS)] == EXPECTED
    heads = " ".join(h for h, _ in browser.evaluate(HEADS))
    assert "C.07" not in heads and "Cut-1" not in heads
    assert browser.evaluate(LEGEND) == [f"{h}: {s}" for h, s in EXPECTED]
    return {"heads": heads}


def test_tiebreak_columns_are_headed_in_words_on_the_live_page_and_the_console(tmp_path: Path):
    with ApiServer(tmp_path) as srv:
        _setup(srv)
        viewer = srv.token("broadcaster", "tv")
        arbiter = srv.token("arbiter", "deputy", [TID])
        browser = Chromium()
        try:
            browser.open(f"{srv.url}/tournaments/{TID}/live?token={viewer}")
            _check_headings(browser)
            # "Decided by" in the column's words, the article its tooltip (the document says
            # it with the criterion's label, "Buchholz Cut-1 2–1½").
            cell = browser.evaluate(
                "(() => { const cols = docs.tiebreaks.data.columns;"
                " const why = {decided_by: 'Buchholz Cut-1 2–1½'};"
                " const td = ArbiterStandings.decidedCell(why, cols);"
                " return [td.textContent, td.title]; })()"
            )
            assert cell == ["Buchholz cut 1 2–1½", "FIDE C.07 2026, 8.1, 16.3-16.5, 14.1"]
            _shot(browser, "live", tmp_path)
        finally:
            browser.close()
        browser = Chromium()
        try:
            browser.open(f"{srv.url}/tournaments/{TID}/console?token={arbiter}")
            _check_headings(browser)
            _shot(browser, "console", tmp_path)
        finally:
            browser.close()
