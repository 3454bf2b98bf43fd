"""The live page in a real browser: headless Debian Chromium (/usr/bin/chromium, installed by
scripts/test when missing) loads `/tournaments/{id}/live` from a real `arbiter serve` on
127.0.0.1, and a result appended through the API shows up on the page.

The broadcast page (issue 12 item 4): moves appended through the API (with clocks and engine
evaluations) show on the board (FEN, last move highlighted, both clocks, the evaluation bar),
a result shows in the pairings, the standings and the crosstable; a screenshot at 1,280 and at
390 px wide is checked for horizontal overflow, names that wrap in the standings at 1,280 and
a standings table that needs scrolling at 1,280 (`ARBITER_SCREENSHOTS=DIR` keeps the PNGs). A
Go game is drawn as stones on the plain-SVG board.

Chromium is driven over the Chrome DevTools protocol on a pipe (tests_support.py `Chromium`,
shared by every page test), so no Python package and no chromedriver are needed.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from bench.feed import ApiServer
from tests_support import BROWSER_TEST, Chromium, cmd, poster, screenshots, whole_page_shot

TID = "live-2026"

pytestmark = BROWSER_TEST


def test_a_result_appended_through_the_api_appears_on_the_live_page(tmp_path: Path):
    with ApiServer(tmp_path) as srv:
        post, viewer = poster(srv, TID)

        post(
            {
                "commands": [
                    cmd(
                        "TournamentCreated",
                        name="Live 2026",
                        format="swiss",
                        rounds=3,
                        rules_preset="fide-swiss",
                    ),
                    cmd("PlayerRegistered", player_id="alice", name="Alice"),
                    cmd("PlayerRegistered", player_id="bob", name="Bob"),
                    cmd(
                        "RoundScheduled",
                        round=1,
                        pairings=[{"game_id": "g1", "white": "alice", "black": "bob"}],
                    ),
                ]
            }
        )
        browser = Chromium()
        try:
            browser.open(f"{srv.url}/tournaments/{TID}/live?token={viewer}")
            rows = "document.querySelectorAll('#standings tbody tr').length"
            browser.wait_for(rows, 2)
            points = (
                "(document.querySelector('#standings tbody tr[data-player=\"alice\"] td.points')"
                " || {}).textContent"
            )
            assert browser.evaluate(points) == "0"
            headers_js = "[...document.querySelectorAll('#standings th')].map(t => t.textContent)"
            columns = browser.evaluate(headers_js)
            assert columns[-1] == "Decided by" and "Points" in columns
            assert len(columns) > 8, columns  # the tiebreak columns
            assert browser.evaluate("document.getElementById('playoff').textContent") != "—"
            assert browser.evaluate("document.getElementById('prizes').textContent") != "—"

            post(cmd("GameEnded", game_id="g1", result="1-0", termination="resignation"))
            browser.wait_for(points, "1")
            first = "document.querySelector('#standings tbody tr').dataset.player"
            assert browser.evaluate(first) == "alice"
            assert "live" in browser.evaluate("document.getElementById('status').textContent")
        finally:
            browser.close()


# --- the broadcast page: boards, clocks, evaluation, pairings, layout at 1,280 and 390 px ------

BROADCAST = "broadcast-2026"
# Long names: at 1,280 px they must stay on one line in the standings.
PLAYERS = [
    ("carlsen", "Magnus Carlsen", 2830, "GM"),
    ("nakamura", "Hikaru Nakamura", 2802, "GM"),
    ("firouzja", "Alireza Firouzja", 2760, "GM"),
    ("gukesh", "Dommaraju Gukesh", 2794, "GM"),
    ("praggnanandhaa", "Rameshbabu Praggnanandhaa", 2741, "GM"),
    ("vachier", "Maxime Vachier-Lagrave", 2732, "GM"),
]
START_AFTER_E4_E5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"


def _layout(browser: Chromium, width: int, out: Path) -> dict[str, Any]:
    """Emulate a `width`-px wide screen, screenshot the whole page to `out`, and measure."""
    whole_page_shot(browser, width, out)
    png = out.read_bytes()
    measures = browser.evaluate(
        """(() => {
        const lines = td => {  // lines of a cell's text: boxes that share no vertical extent
          const r = document.createRange(); r.selectNodeContents(td);
          const boxes = [...r.getClientRects()].filter(x => x.width > 0);
          let n = 0, bottom = -1;
          for (const b of boxes.sort((a, c) => a.top - c.top)) {
            if (b.top >= bottom) n += 1;
            bottom = Math.max(bottom, b.bottom);
          }
          return n;
        };
        const scroller = document.querySelector('#standings').parentElement;
        return {
          scrollWidth: document.documentElement.scrollWidth,
          innerWidth: window.innerWidth,
          bodyScroll: document.body.scrollWidth,
          nameLines: [...document.querySelectorAll('#standings td.name')].map(lines),
          standingsFit: scroller.scrollWidth <= scroller.clientWidth,
          boardWidth: document.querySelector('#boards svg.board')?.getBoundingClientRect().width,
        };
    })()"""
    )
    measures["png_width"] = int.from_bytes(png[16:20], "big")
    return dict(measures)


def test_broadcast_page_shows_moves_clocks_eval_results_and_fits_1280_and_390(tmp_path: Path):
    shots = screenshots(tmp_path)
    with ApiServer(tmp_path) as srv:
        post, viewer = poster(srv, BROADCAST)

        post(
            {
                "commands": [
                    cmd(
                        "TournamentCreated",
                        name="Broadcast 2026",
                        format="swiss",
                        rounds=5,
                        rules_preset="fide-swiss",
                    ),
                    *(
                        cmd("PlayerRegistered", player_id=pid, name=n, rating=r, title=t)
                        for pid, n, r, t in PLAYERS
                    ),
                    cmd(
                        "RoundScheduled",
                        round=1,
                        pairings=[
                            {"game_id": "r1-b1", "white": "carlsen", "black": "nakamura"},
                            {"game_id": "r1-b2", "white": "firouzja", "black": "gukesh"},
                            {"game_id": "r1-b3", "white": "praggnanandhaa", "black": "vachier"},
                        ],
                    ),
                ]
            }
        )
        browser = Chromium()
        try:
            browser.open(f"{srv.url}/tournaments/{BROADCAST}/live?token={viewer}")
            browser.wait_for("document.querySelectorAll('#standings tbody tr').length", 6)
            browser.wait_for("document.querySelectorAll('#pairings tbody tr').length", 3)
            assert browser.evaluate("document.querySelectorAll('#crosstable tbody tr').length") == 6
            board = "document.querySelector('#boards .game[data-game=\"r1-b1\"]')"
            # Not started: its start position, no clock running.
            assert browser.evaluate(f"{board}.dataset.status") == "scheduled"
            assert browser.evaluate(f"{board}.querySelector('.clock.running')") is None

            # Two moves with clocks and engine evaluations (White's point of view).
            post(
                {
                    "commands": [
                        cmd(
                            "MovePlayed",
                            game_id="r1-b1",
                            ply=1,
                            colour="white",
                            uci="e2e4",
                            san="e4",
                            clock_ms=5_395_000,
                            eval_cp=35,
                            depth=24,
                        ),
                        cmd(
                            "MovePlayed",
                            game_id="r1-b1",
                            ply=2,
                            colour="black",
                            uci="e7e5",
                            san="e5",
                            clock_ms=5_381_000,
                            eval_cp=28,
                            depth=25,
                        ),
                    ]
                }
            )
            browser.wait_for(f"({board} || {{dataset: {{}}}}).dataset.fen", START_AFTER_E4_E5)
            assert browser.evaluate(f"{board}.dataset.lastMove") == "e7e5"
            # The moves came as patches of the games document (`?patches=true`).
            assert int(browser.evaluate("document.body.dataset.patches || '0'")) >= 1
            assert browser.evaluate(f"{board}.querySelector('.meta .lm').textContent") == "1… e5"
            clocks = f"[...{board}.querySelectorAll('.clock')].map(c => c.textContent)"
            assert browser.evaluate(clocks) == ["1:29:41", "1:29:55"]  # black on top, white below
            running = f"{board}.querySelector('.clock.running').classList.contains('white')"
            assert browser.evaluate(running) is True  # White to move
            assert browser.evaluate(f"{board}.querySelector('.evalbar').dataset.cp") == "28"
            assert browser.evaluate(f"{board}.querySelector('.meta .ev').textContent") == (
                "+0.28 d25"
            )
            highlighted = f"{board}.querySelectorAll('rect.last').length"
            assert browser.evaluate(highlighted) == 2  # e7 and e5
            row = "document.querySelector('#pairings tr[data-game=\"r1-b1\"] td.result')"
            assert browser.evaluate(f"{row}.textContent") == "live"

            # A result: the pairings, the standings and the crosstable follow.
            post(cmd("GameEnded", game_id="r1-b2", result="0-1", termination="resignation"))
            row2 = "document.querySelector('#pairings tr[data-game=\"r1-b2\"] td.result')"
            browser.wait_for(f"{row2}.textContent", "0–1")
            points = (
                "(document.querySelector('#standings tbody tr[data-player=\"gukesh\"] td.points')"
                " || {}).textContent"
            )
            browser.wait_for(points, "1")
            assert browser.evaluate(
                "document.querySelector('#standings tbody tr').dataset.player"
            ) == ("gukesh")
            cross = (
                "document.querySelector('#crosstable tr[data-player=\"gukesh\"] td.x').textContent"
            )
            assert browser.evaluate(cross).endswith("1")
            label = browser.evaluate("document.getElementById('round-label').textContent")
            assert label == "Round 1 · 1/3 finished · 1 live"

            wide = _layout(browser, 1280, shots / "live-1280.png")
            assert wide["png_width"] == 1280
            assert wide["scrollWidth"] <= wide["innerWidth"], wide
            assert wide["nameLines"] and set(wide["nameLines"]) == {1}, wide  # no name wraps
            assert wide["standingsFit"], wide  # every tiebreak column visible, no scrolling
            narrow = _layout(browser, 390, shots / "live-390.png")
            assert narrow["png_width"] == 390
            assert narrow["scrollWidth"] <= narrow["innerWidth"], narrow
            assert narrow["bodyScroll"] <= narrow["innerWidth"], narrow
            assert narrow["boardWidth"] >= 250, narrow  # the board stays readable
        finally:
            browser.close()


def test_a_go_game_is_drawn_as_stones_on_a_plain_svg_board(tmp_path: Path):
    tid = "go-live-2026"
    with ApiServer(tmp_path) as srv:
        post, viewer = poster(srv, tid)

        post(
            {
                "commands": [
                    cmd("TournamentCreated", name="Go", game="go", format="mcmahon", board_size=9),
                    cmd("PlayerRegistered", player_id="b", name="Black Stone", go_rank="2d"),
                    cmd("PlayerRegistered", player_id="w", name="White Stone", go_rank="1d"),
                    cmd(
                        "RoundScheduled",
                        round=1,
                        pairings=[{"game_id": "g1", "white": "w", "black": "b"}],
                    ),
                ]
            }
        )
        # Black takes White's stone at E5 (LGC: a stone without liberties is removed).
        points = ["D5", "E5", "E4", "A1", "F5", "A2", "E6"]
        post(
            {
                "commands": [
                    cmd(
                        "MovePlayed",
                        game_id="g1",
                        ply=i,
                        colour="black" if i % 2 else "white",
                        point=p,
                        clock_ms=600_000 - i * 1000,
                    )
                    for i, p in enumerate(points, start=1)
                ]
            }
        )
        browser = Chromium()
        try:
            browser.open(f"{srv.url}/tournaments/{tid}/live?token={viewer}")
            game = "document.querySelector('#boards .game[data-game=\"g1\"]')"
            browser.wait_for(f"({game} || {{dataset: {{}}}}).dataset.plies", "7")
            stones = f"[...{game}.querySelectorAll('svg.go circle.stone')].map(c => c.classList[1])"
            assert sorted(browser.evaluate(stones)) == ["black"] * 4 + ["white"] * 2
            assert browser.evaluate(f"{game}.querySelectorAll('svg.go .lastmark').length") == 1
            assert browser.evaluate(f"{game}.dataset.lastMove") == "E6"
            assert browser.evaluate(f"{game}.querySelector('.meta .lm').textContent") == (
                "Move 7: B E6"
            )
            assert browser.evaluate(f"{game}.querySelector('.evalbar')") is None  # no engine
            narrow = _layout(browser, 390, tmp_path / "go-390.png")
            assert narrow["scrollWidth"] <= narrow["innerWidth"], narrow
            if "ARBITER_SCREENSHOTS" in os.environ:
                shutil.copy(tmp_path / "go-390.png", Path(os.environ["ARBITER_SCREENSHOTS"]))
        finally:
            browser.close()
