"""Issue 25, done when: a TCEC-style round robin of four UCI engines, one crashing on purpose,
runs from `arbiter arena` to final standings, every move visible live on the page as it is
played, each ending naming its rule.

As a user does it: `arbiter serve` (its own process, the embedded SQLite log) serves the live
page to a broadcaster's token in headless Debian Chromium (tests_support.py `Chromium`), and
`arbiter arena` is started as a command line in another process on the same log, with
Stockfish (Debian's, `apt-get install stockfish`) at two fixed node counts, a test engine that
thinks 100 ms a move, and a test engine that crashes at its 4th move (tests/engines/). While
the arena runs the page is read again and again: a game's move count grows between two reads
while the page shows it in progress (the moves reach the page while the game is played, not
after). When the arena is done: every game finished by a rule of the preset (`arbiter
arena-status --json`: the ending in words with its citation; the crash by TCEC Leagues 14.2
with the exit code the arena saw), the last round's endings named in words on the page, and
the final standings complete on the page (four rows, three games each, six points in all).
A screenshot of the page at 1,280 px is kept (`ARBITER_SCREENSHOTS=DIR`, else tmp_path)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from bench.feed import ApiServer
from tests_support import (
    BROWSER_TEST,
    Chromium,
    append_events,
    screenshots,
    whole_page_shot,
)

from events_schema import events as ev

STOCKFISH = "/usr/games/stockfish"
ENGINE = Path(__file__).resolve().parents[2] / "engines" / "uci_engine.py"
T = "tcec-live"
ENGINES = [
    ("sf-big", "Stockfish 20k"),
    ("sf-small", "Stockfish 2k"),
    ("paced", "Paced Random"),
    ("crasher", "Crasher"),
]
CRASH_RULE = "engine crash (tcec-rules Leagues 14.2)"

pytestmark = [
    *BROWSER_TEST,
    pytest.mark.skipif(
        not Path(STOCKFISH).exists(), reason="no Stockfish (apt-get install stockfish)"
    ),
]

# Every game card of the round the page shows: id, status, plies; and the pairings' endings.
READ_PAGE = """(() => ({
  cards: [...document.querySelectorAll('#boards .game')].map(c => ({
    game: c.dataset.game, status: c.dataset.status, plies: Number(c.dataset.plies)})),
  endings: [...document.querySelectorAll('#pairings tr.game-row')].map(tr => ({
    game: tr.dataset.game, result: tr.querySelector('td.result').textContent,
    words: tr.querySelector('td.status').textContent})),
  banners: [...document.querySelectorAll('#boards .game .banner')].map(b => b.textContent),
}))()"""
STANDINGS = """[...document.querySelectorAll('#standings tbody tr')].map(tr => ({
  player: tr.dataset.player, points: tr.querySelector('td.points').textContent,
  played: tr.children[3].textContent}))"""


def _points(text: str) -> Fraction:
    """ "1½" → 3/2, "½" → 1/2, "2" → 2: the standings' points as the page writes them."""
    half = Fraction(1, 2) if text.endswith("½") else Fraction(0)
    whole = text.removesuffix("½")
    return Fraction(int(whole) if whole else 0) + half


def _arbiter() -> list[str]:
    """The `arbiter` command as a user types it (the venv's console script)."""
    script = Path(sys.executable).parent / "arbiter"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from services.cli.main import app; app()"]


def _grown_while_played(reads: list[dict[str, Any]]) -> list[tuple[str, int, int]]:
    """(game, plies, later plies) where two reads of the page showed one game in progress
    with more moves the second time."""
    seen: dict[str, int] = {}
    grown = []
    for read in reads:
        for card in read["cards"]:
            if card["status"] != "in_progress":
                continue
            before = seen.get(card["game"])
            if before is not None and card["plies"] > before:
                grown.append((card["game"], before, card["plies"]))
            seen[card["game"]] = card["plies"]
    return grown


def test_a_tcec_round_robin_of_four_engines_plays_live_on_the_page_to_final_standings(
    tmp_path: Path,
) -> None:
    players = [ev.PlayerRegistered(player_id=p, name=n, kind="engine") for p, n in ENGINES]
    created = ev.TournamentCreated(
        name="TCEC Live League", format="round_robin", rules_preset="tcec-league"
    )
    with ApiServer(tmp_path) as srv:
        append_events(Path(srv.env["ARBITER_DB"]), T, created, *players)
        viewer = srv.token("broadcaster", "tv")
        browser = Chromium()
        arena: subprocess.Popen[bytes] | None = None
        try:
            browser.open(f"{srv.url}/tournaments/{T}/live?token={viewer}")
            browser.wait_for("document.querySelectorAll('#standings tbody tr').length", 4)
            command = [
                *_arbiter(),
                "arena",
                T,
                "--engine",
                f"sf-big={STOCKFISH}",
                "option.Threads=1",
                "nodes=20000",
                "--engine",
                f"Stockfish 2k={STOCKFISH}",  # by the player's name
                "option.Threads=1",
                "--engine",
                f"paced={sys.executable} {ENGINE} paced 100",
                "--engine",
                f"crasher={sys.executable} {ENGINE} crash 4",
                "--nodes",
                "2000",
            ]
            env = {**srv.env, "COLUMNS": "200"}
            arena = subprocess.Popen(
                command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
            )
            reads: list[dict[str, Any]] = []
            while arena.poll() is None:  # the page, read again and again while it plays
                reads.append(browser.evaluate(READ_PAGE))
                time.sleep(0.05)
            output = arena.stdout.read().decode() if arena.stdout else ""
            assert arena.returncode == 0, output
            assert "pairing.round_robin_complete" in " ".join(output.split()), output

            grown = _grown_while_played(reads)
            assert len(grown) >= 1, reads[-5:]  # two reads, one game, more moves, still live
            assert len({g for g, _, _ in grown}) >= 2, grown  # and so for more than one game

            status = json.loads(
                subprocess.run(
                    [*_arbiter(), "arena-status", T, "--json"],
                    env=env,
                    capture_output=True,
                    check=True,
                ).stdout
            )
            games = status["games"]
            assert len(games) == 6 and status["counts"]["finished"] == 6, status["counts"]
            for g in games:  # each ending in words with the rule that ended it
                assert g["ending"] and g["rule"] and g["rule"].startswith("tcec-rules"), g
            crashed = [g for g in games if g["crashes"]]
            assert len(crashed) == 3  # the crasher's three games, each lost by the crash rule
            for g in crashed:
                assert g["ending"] == CRASH_RULE, g
                assert g["crashes"][0]["player_id"] == "crasher"
                assert "exit code 3" in g["crashes"][0]["detail"]
                lost = "1-0" if g["black"]["player_id"] == "crasher" else "0-1"
                assert g["result"] == lost, g
            assert status["limits"]["in_force"]["decision"] == {
                "nodes": 2000,
                "engine_nodes": {"sf-big": 20000},
            }

            # The page: the last round's endings in words, the final standings complete.
            browser.wait_for(
                "document.getElementById('round-label').textContent", "Round 3 · 2/2 finished"
            )
            page = browser.evaluate(READ_PAGE)
            last_round = {g["game_id"]: g for g in games if g["round"] == 3}
            assert {e["game"] for e in page["endings"]} == set(last_round)
            for ending in page["endings"]:
                words = last_round[ending["game"]]["termination"].replace("_", " ")
                assert ending["words"] == words, ending  # "engine crash", "checkmate", ...
            assert any("engine crash" in b for b in page["banners"]), page["banners"]
            rows = browser.evaluate(STANDINGS)
            assert {r["player"] for r in rows} == {p for p, _ in ENGINES}
            assert all(r["played"] == "3" for r in rows), rows
            assert sum(_points(r["points"]) for r in rows) == 6, rows
            assert rows[-1]["player"] == "crasher" and rows[-1]["points"] == "0", rows

            shot = screenshots(tmp_path) / "arena-tcec-live-1280.png"
            whole_page_shot(browser, 1280, shot)
            assert shot.stat().st_size > 10_000
        finally:
            if arena is not None and arena.poll() is None:
                arena.kill()
                arena.wait(timeout=10)
            browser.close()
