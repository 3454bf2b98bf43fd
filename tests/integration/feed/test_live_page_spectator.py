"""The live page as a spectator expects it (issue 24 item 7), in headless Chromium on a real
`arbiter serve` (the helpers of tests_support.py): the tournament's name as its title, a move list
per board, the game's PGN to download, earlier rounds to step through, a board opened large
with both clocks and the evaluation, a 390 px layout whose pairings use the width they have
and whose standings scroll beside a sticky name column, and never a blank "connecting…" page
once data exists (the page renders the snapshot it is served with, even with its stream
blocked). `ARBITER_SCREENSHOTS=DIR` keeps the PNGs (live-spectator-*.png).
"""

from __future__ import annotations

import base64
import io
import time
from pathlib import Path
from typing import Any

import chess.pgn
import httpx
from bench.feed import ApiServer
from tests_support import BROWSER_TEST, Chromium, cmd, poster, screenshots, whole_page_shot

pytestmark = BROWSER_TEST

TID = "spring-open-2026"
NAME = "Spring Open 2026"
PLAYERS = [
    ("ana", "Ana Ortega", 2612),
    ("bram", "Bram de Vries", 2587),
    ("dara", "Dara Okafor", 2530),
    ("fen", "Fen Lindqvist", 2461),
]
MOVES = [  # round 2, board 1: (uci, san, clock after the move, evaluation)
    ("e2e4", "e4", 5_395_000, 35),
    ("e7e5", "e5", 5_381_000, 28),
    ("g1f3", "Nf3", 5_370_000, 31),
]


def _tournament(post: Any) -> None:
    post(
        {
            "commands": [
                cmd(
                    "TournamentCreated",
                    name=NAME,
                    format="swiss",
                    rounds=5,
                    rules_preset="fide-swiss",
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
                cmd(
                    "RoundScheduled",
                    round=2,
                    pairings=[
                        {"game_id": "main-r2-b1", "white": "bram", "black": "ana"},
                        {"game_id": "main-r2-b2", "white": "dara", "black": "fen"},
                    ],
                ),
                *(
                    cmd(
                        "MovePlayed",
                        game_id="main-r2-b1",
                        ply=i,
                        colour="white" if i % 2 else "black",
                        uci=uci,
                        san=san,
                        clock_ms=clock,
                        eval_cp=cp,
                        depth=20 + i,
                    )
                    for i, (uci, san, clock, cp) in enumerate(MOVES, start=1)
                ),
            ]
        }
    )


def _whole_page(browser: Chromium, width: int, out: Path) -> dict[str, int]:
    """A `width`-px wide screen: the whole page screenshot to `out`; the page's widths."""
    whole_page_shot(browser, width, out)
    widths = browser.evaluate(
        "({scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth})"
    )
    return dict(widths)


def _shot(browser: Chromium, width: int, out: Path) -> None:
    browser.send(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600},
    )
    time.sleep(0.3)
    shot = browser.send("Page.captureScreenshot", {"format": "png"})
    out.write_bytes(base64.b64decode(shot["data"]))


def test_title_moves_pgn_rounds_large_board_and_phone_layout(tmp_path: Path):
    shots = screenshots(tmp_path)
    with ApiServer(tmp_path) as srv:
        post, viewer = poster(srv, TID)
        _tournament(post)
        browser = Chromium()
        try:
            browser.open(f"{srv.url}/tournaments/{TID}/live?token={viewer}")
            browser.send(
                "Emulation.setDeviceMetricsOverride",
                {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False},
            )
            browser.wait_for("document.querySelectorAll('#standings tbody tr').length", 4)
            # The tournament's name, not its id.
            assert browser.evaluate("document.title") == f"{NAME} — live"
            assert browser.evaluate("document.getElementById('title').textContent") == NAME

            # A move list per board, from the moves appended through the API.
            card = "document.querySelector('#boards .game[data-game=\"main-r2-b1\"]')"
            listed = f"({card} || {{querySelector: () => null}}).querySelector('.moves')"
            browser.wait_for(f"({listed} || {{dataset: {{}}}}).dataset.plies", "3")
            sans = f"[...{listed}.querySelectorAll('.mv')].map(m => m.textContent)"
            assert browser.evaluate(sans) == ["e4", "e5", "Nf3"]
            post(
                cmd(
                    "MovePlayed",
                    game_id="main-r2-b1",
                    ply=4,
                    colour="black",
                    uci="b8c6",
                    san="Nc6",
                    clock_ms=5_302_000,
                    eval_cp=30,
                    depth=24,
                )
            )
            browser.wait_for(f"({listed} || {{dataset: {{}}}}).dataset.plies", "4")
            assert browser.evaluate(sans) == ["e4", "e5", "Nf3", "Nc6"]

            # Earlier rounds: round 1's pairings and results, then back.
            assert browser.evaluate("document.getElementById('pairings').dataset.round") == "2"
            browser.evaluate("document.getElementById('round-prev').click()")
            assert browser.evaluate("document.getElementById('pairings').dataset.round") == "1"
            rows = (
                "[...document.querySelectorAll('#pairings tbody tr')].map(t => "
                "[...t.querySelectorAll('td')].slice(0, 4).map(d => d.firstChild ? "
                "[...d.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent)"
                ".join('') || d.textContent : ''))"
            )
            assert browser.evaluate(rows) == [
                ["1", "Ana Ortega", "1–0", "Dara Okafor"],
                ["2", "Fen Lindqvist", "0–1", "Bram de Vries"],
            ]
            assert browser.evaluate("document.getElementById('round-live').hidden") is False
            browser.evaluate("document.getElementById('round-next').click()")
            assert browser.evaluate("document.getElementById('pairings').dataset.round") == "2"

            # The board opened large: both clocks, the evaluation, the moves, the PGN.
            browser.evaluate(f"{card}.click()")
            browser.wait_for("document.getElementById('viewer').hidden", False)
            view = "document.getElementById('viewer')"
            assert browser.evaluate(f"{view}.dataset.game") == "main-r2-b1"
            clocks = f"[...{view}.querySelectorAll('.vclock')].map(c => c.textContent)"
            assert browser.evaluate(clocks) == ["1:28:22", "1:29:30"]  # black on top
            assert browser.evaluate(f"{view}.querySelector('.vclock.running.white') !== null")
            assert browser.evaluate(f"{view}.querySelector('.veval').textContent") == "+0.30 d24"
            assert browser.evaluate(f"{view}.querySelector('.evalbar').dataset.cp") == "30"
            big = browser.evaluate(
                f"{view}.querySelector('svg.board').getBoundingClientRect().width"
            )
            small = browser.evaluate(
                f"{card}.querySelector('svg.board').getBoundingClientRect().width"
            )
            assert big > small * 1.3, (big, small)
            browser.evaluate(f"{view}.querySelector('.moves .mv[data-ply=\"1\"]').click()")
            assert browser.evaluate(f"{view}.dataset.ply") == "1"
            after_e4 = chess.Board()
            after_e4.push_uci("e2e4")
            title = f"{view}.querySelector('svg.board title').textContent"
            assert browser.evaluate(title) == after_e4.fen()
            assert browser.evaluate(clocks) == ["–:––", "1:29:55"]  # as after 1. e4
            _shot(browser, 1280, shots / "live-spectator-board-1280.png")
            _shot(browser, 390, shots / "live-spectator-board-390.png")
            href = browser.evaluate(f"{view}.querySelector('a.pgn').getAttribute('href')")
            # The page was opened with ?token= and redirected without it (the token traded
            # for its cookie), so the link carries no token: the cookie authorises it.
            assert href == f"/tournaments/{TID}/games/main-r2-b1.pgn"
            assert "token" not in browser.evaluate("location.href")

            # The PGN route: python-chess reads back the same moves and tags.
            res = httpx.get(srv.url + href, headers={"Authorization": f"Bearer {viewer}"})
            assert res.status_code == 200, res.text
            assert res.headers["content-type"].startswith("application/x-chess-pgn")
            assert "attachment" in res.headers["content-disposition"]
            game = chess.pgn.read_game(io.StringIO(res.text))
            assert game is not None
            assert [n.san() for n in game.mainline()] == ["e4", "e5", "Nf3", "Nc6"]
            assert [n.clock() for n in game.mainline()] == [5395.0, 5381.0, 5370.0, 5302.0]
            h = game.headers
            assert (h["Event"], h["Round"], h["White"], h["Black"]) == (
                NAME,
                "2.1",  # round.board
                "Bram de Vries",
                "Ana Ortega",
            )
            assert (h["WhiteElo"], h["BlackElo"], h["Result"]) == ("2587", "2612", "*")
            missing = httpx.get(f"{srv.url}/tournaments/{TID}/games/nope.pgn?token={viewer}")
            assert missing.status_code == 404
            assert missing.json()["error"]["rule"] == "pgn.unknown_game"
            assert httpx.get(f"{srv.url}/tournaments/{TID}/games/main-r2-b1.pgn").status_code == 401

            browser.evaluate(f"{view}.querySelector('.close').click()")
            assert browser.evaluate("document.getElementById('viewer').hidden") is True

            # 1,280 px: as before, nothing overflows. 390 px: the pairings use their width,
            # the names are not cut, the standings scroll beside their sticky names.
            wide = _whole_page(browser, 1280, shots / "live-spectator-1280.png")
            assert wide["scrollWidth"] <= wide["innerWidth"], wide
            narrow = _whole_page(browser, 390, shots / "live-spectator-390.png")
            assert narrow["scrollWidth"] <= narrow["innerWidth"], narrow
            phone = browser.evaluate(
                """(() => {
                const table = document.getElementById('pairings');
                const cells = [...table.querySelectorAll('td.name')];
                const scroller = document.getElementById('standings').parentElement;
                scroller.scrollLeft = scroller.scrollWidth;
                const box = scroller.getBoundingClientRect();
                const name = document.querySelector('#standings tbody td.name')
                  .getBoundingClientRect();
                const ths = document.querySelectorAll('#standings th');
                const last = ths[ths.length - 1].getBoundingClientRect();
                return {
                  cut: cells.filter(c => c.scrollWidth > c.clientWidth).map(c => c.textContent),
                  tableWidth: table.getBoundingClientRect().width,
                  room: table.parentElement.clientWidth,
                  scrolls: scroller.scrollWidth > scroller.clientWidth,
                  scrolled: scroller.scrollLeft > 0,
                  nameVisible: name.left >= box.left - 1 && name.right <= box.right + 1,
                  lastVisible: last.right <= box.right + 1 && last.left >= box.left,
                };
            })()"""
            )
            assert phone["cut"] == [], phone
            assert phone["tableWidth"] >= 0.98 * phone["room"], phone
            assert phone["scrolls"] and phone["scrolled"], phone
            assert phone["nameVisible"] and phone["lastVisible"], phone
            browser.evaluate("document.getElementById('standings').parentElement.scrollLeft = 0")
        finally:
            browser.close()


def test_the_page_renders_what_exists_at_once_five_times_even_without_its_stream(
    tmp_path: Path,
):
    with ApiServer(tmp_path) as srv:
        post, viewer = poster(srv, TID)
        _tournament(post)
        url = f"{srv.url}/tournaments/{TID}/live?token={viewer}"
        state = """(() => ({
            ready: document.readyState,
            rows: document.querySelectorAll('#standings tbody tr').length,
            pairings: document.querySelectorAll('#pairings tbody tr').length,
            boards: document.querySelectorAll('#boards .game').length,
            status: document.getElementById('status').textContent,
        }))()"""
        browser = Chromium()
        try:
            for attempt in range(5):
                browser.open("about:blank")
                browser.send("Network.enable")
                # The stream cannot open: what shows is what the page was served with.
                browser.send("Network.setBlockedURLs", {"urls": ["*/stream*"]})
                browser.send("Page.navigate", {"url": url})
                browser.wait_for("document.readyState", "complete")
                seen = browser.evaluate(state)
                assert seen["rows"] == 4, (attempt, seen)
                assert seen["pairings"] == 2 and seen["boards"] == 2, (attempt, seen)
                assert seen["status"].startswith("as of event "), (attempt, seen)
                assert seen["status"] != "connecting…", (attempt, seen)
            # With its stream, the page goes live from there.
            browser.open(url)
            browser.wait_for(
                "document.getElementById('status').textContent.startsWith('live')", True
            )
            assert browser.evaluate(state)["rows"] == 4
        finally:
            browser.close()


def test_a_go_board_opens_large_with_its_stones_and_clocks(tmp_path: Path):
    with ApiServer(tmp_path) as srv:
        post, viewer = poster(srv, TID)
        post(
            {
                "commands": [
                    cmd(
                        "TournamentCreated",
                        name="Go Cup",
                        game="go",
                        format="mcmahon",
                        board_size=9,
                    ),
                    cmd("PlayerRegistered", player_id="b", name="Black Stone", go_rank="2d"),
                    cmd("PlayerRegistered", player_id="w", name="White Stone", go_rank="1d"),
                    cmd(
                        "RoundScheduled",
                        round=1,
                        pairings=[{"game_id": "g1", "white": "w", "black": "b"}],
                    ),
                    *(
                        cmd(
                            "MovePlayed",
                            game_id="g1",
                            ply=i,
                            colour="black" if i % 2 else "white",
                            point=p,
                            clock_ms=600_000 - i * 1000,
                        )
                        for i, p in enumerate(["D5", "E5", "E4"], start=1)
                    ),
                ]
            }
        )
        browser = Chromium()
        try:
            browser.open(f"{srv.url}/tournaments/{TID}/live?token={viewer}")
            browser.wait_for("document.title", "Go Cup — live")
            game = "document.querySelector('#boards .game[data-game=\"g1\"]')"
            browser.wait_for(f"({game} || {{dataset: {{}}}}).dataset.plies", "3")
            browser.evaluate(f"{game}.click()")
            view = "document.getElementById('viewer')"
            browser.wait_for(f"{view}.hidden", False)
            stones = f"{view}.querySelectorAll('svg.go circle.stone').length"
            assert browser.evaluate(stones) == 3
            clocks = f"[...{view}.querySelectorAll('.vclock')].map(c => c.textContent)"
            assert browser.evaluate(clocks) == ["9:57", "9:58"]  # Black moved last
            assert browser.evaluate(f"{view}.querySelector('a.pgn')") is None  # SGF, not PGN
            pgn = httpx.get(f"{srv.url}/tournaments/{TID}/games/g1.pgn?token={viewer}")
            assert pgn.status_code == 422 and pgn.json()["error"]["rule"] == "pgn.not_chess"
        finally:
            browser.close()
