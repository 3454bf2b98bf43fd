"""The arbiter's console in a real browser (issue 24 item 6): headless Chromium (the DevTools
pipe of test_page.py) opens `/tournaments/{id}/console?token=` on the API app served by
uvicorn in a thread, trades the token for its cookie, registers a player from the form, pairs
round 1 with the button, enters the round's results by clicking, and the events are appended
(read back from the log), the standings update on the page and on the live page's stream; a
correction by an arbiter shows the server's refusal with its rule and field, the same by the
admin is appended and raises the correction flag once round 2 is paired. Screenshots at
1,280 and 390 px wide are checked for horizontal overflow and result buttons out of view
(`ARBITER_SCREENSHOTS=DIR` keeps the PNGs).

The console calls the organiser routes (services/api/entries.py, services/api/results.py)
that `create_app` includes, as `arbiter serve` serves them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from bench.feed import SseReader
from tests_support import (
    BROWSER_TEST,
    Chromium,
    ThreadServer,
    click_result,
    cmd,
    fill_and_submit,
    points_js,
    screenshots,
    whole_page_shot,
)

from events_schema import Recorded
from projections.standings import fold as standings_fold

TID = "console-open-2026"

pytestmark = BROWSER_TEST  # a server and a browser, as test_page.py


def _layout(browser: Chromium, width: int, out: Path) -> dict[str, Any]:
    """Emulate a `width`-px screen, screenshot the whole page to `out`, and measure."""
    whole_page_shot(browser, width, out)
    return dict(
        browser.evaluate(
            """(() => {
        const right = [...document.querySelectorAll('#boards button')]
          .map(b => b.getBoundingClientRect().right);
        const tap = [...document.querySelectorAll('#boards button.res')]
          .map(b => b.getBoundingClientRect().height);
        return {
          scrollWidth: document.documentElement.scrollWidth,
          innerWidth: window.innerWidth,
          buttonsRight: Math.max(...right),
          smallestButton: Math.min(...tap),
          sideBySide: document.getElementById('sec-standings').getBoundingClientRect().top >
            document.getElementById('sec-round').getBoundingClientRect().top &&
            document.getElementById('sec-correct').getBoundingClientRect().left >
            document.getElementById('sec-round').getBoundingClientRect().right,
        };
    })()"""
        )
    )


PLAYERS = [  # registered through commands; a sixth comes through the page's form
    ("aronian", "Levon Aronian", 2735),
    ("caruana", "Fabiano Caruana", 2795),
    ("ding", "Ding Liren", 2745),
    ("giri", "Anish Giri", 2730),
    ("nepo", "Ian Nepomniachtchi", 2770),
]


def test_an_arbiter_runs_a_round_from_the_console(tmp_path: Path):
    shots = screenshots(tmp_path)
    with ThreadServer(tmp_path) as srv:
        admin = srv.tokens.create("admin", "chief")[0]
        arbiter = srv.tokens.create("arbiter", "deputy", [TID])[0]
        viewer = srv.tokens.create("broadcaster", "tv")[0]
        setup = [
            cmd(
                "TournamentCreated",
                name="Console Open 2026",
                format="swiss",
                rounds=3,
                rules_preset="fide-swiss",
            ),
            *(cmd("PlayerRegistered", player_id=p, name=n, rating=r) for p, n, r in PLAYERS),
        ]
        r = httpx.post(
            f"{srv.url}/tournaments/{TID}/commands",
            json={"commands": setup},
            headers={"Authorization": f"Bearer {admin}"},
        )
        assert r.status_code == 201, r.text
        stream = SseReader(
            f"{srv.url}/tournaments/{TID}/stream", {"Authorization": f"Bearer {viewer}"}
        ).start()
        browser = Chromium()
        try:
            browser.open(f"{srv.url}/tournaments/{TID}/console?token={arbiter}")
            browser.wait_for("document.querySelectorAll('#standings tbody tr').length", 5)
            # The token left the address bar for an HttpOnly cookie the page cannot read.
            assert browser.evaluate("location.search") == ""
            assert browser.evaluate("document.cookie") == ""
            cookies = browser.send(
                "Network.getCookies", {"urls": [f"{srv.url}/tournaments/{TID}/x"]}
            )
            (cookie,) = cookies["cookies"]
            assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
            assert browser.evaluate("document.getElementById('title').textContent") == (
                "Console Open 2026"
            )

            # A late entry from the form.
            fill_and_submit(
                browser, "register", {"name": "Wesley So", "rating": "2750", "federation": "USA"}
            )
            out = "document.querySelector('#register .out').textContent"
            browser.wait_for(f"['', '…'].includes({out})", False)  # answered
            assert browser.evaluate(out).startswith("appended PlayerRegistered (seq ")
            browser.wait_for("document.querySelectorAll('#standings tbody tr').length", 6)

            # A requested half-point bye and a withdrawal, both from round 3 on.
            fill_and_submit(browser, "bye", {"player": "giri", "round": "3", "points": "½"})
            bye = "document.querySelector('#bye .out').textContent"
            browser.wait_for(f"['', '…'].includes({bye})", False)
            assert browser.evaluate(bye).startswith("appended "), browser.evaluate(bye)
            fill_and_submit(
                browser, "withdraw", {"player": "ding", "from_round": "3", "reason": "ill"}
            )
            gone = "document.querySelector('#withdraw .out').textContent"
            browser.wait_for(f"['', '…'].includes({gone})", False)
            assert browser.evaluate(gone).startswith("appended PlayerWithdrew"), browser.evaluate(
                gone
            )
            # A bye for a round already asked for: the server's refusal, shown as it gives it.
            fill_and_submit(browser, "bye", {"player": "giri", "round": "3", "points": "1"})
            browser.wait_for(f"{bye}.startsWith('refused ')", True)
            entries = [e.type for e in srv.log.read(TID, 1)][6:]
            assert "PlayerWithdrew" in entries and len(entries) == 3, entries

            # Pair round 1 from the button.
            browser.evaluate("document.getElementById('pair').click()")
            browser.wait_for("document.querySelectorAll('#boards .bd').length", 3)
            assert browser.evaluate("document.getElementById('pair-out').textContent").startswith(
                "paired round 1, 3 boards"
            )
            board = "document.querySelector('#boards .bd[data-board=\"{}\"]').dataset.game"
            games = {b: browser.evaluate(board.format(b)) for b in (1, 2, 3)}
            state = standings_fold([Recorded.of(e) for e in srv.log.read(TID, 1)])
            sides = {b: (state.games[g].white, state.games[g].black) for b, g in games.items()}

            # Its results, by clicking: a win, a draw, a forfeit.
            for b, res in ((1, "1-0"), (2, "½"), (3, "-+")):
                click_result(browser, b, res)
            ended = "document.querySelectorAll('#boards .bd[data-status=\"ended\"]').length"
            browser.wait_for(ended, 3)
            envs = [e for e in srv.log.read(TID, 1) if e.type == "GameEnded"]
            got = {e.payload["game_id"]: e.payload["result"] for e in envs}
            assert got == {games[1]: "1-0", games[2]: "1/2-1/2", games[3]: "0-1"}
            (forfeit,) = [e for e in envs if e.payload["game_id"] == games[3]]
            assert forfeit.payload["termination"] == "forfeit"
            assert {e.actor.id for e in envs} == {"deputy"}  # the arbiter of the cookie
            expect = {
                sides[1][0]: "1",
                sides[1][1]: "0",
                sides[2][0]: "½",
                sides[2][1]: "½",
                sides[3][0]: "0",
                sides[3][1]: "1",
            }
            for pid, pts in expect.items():
                browser.wait_for(points_js(pid), pts)
            result = "document.querySelector('#boards .bd[data-board=\"2\"] .result').textContent"
            assert browser.evaluate(result) == "½–½"
            # Each finished board's ending in words, as the results route names it.
            how = "document.querySelector('#boards .bd[data-board=\"{}\"] .how').textContent"
            browser.wait_for(how.format(1), "result entered by the arbiter")
            assert [browser.evaluate(how.format(b)) for b in (2, 3)] == ["agreement", "forfeit"]

            # The live page's stream carried the same standings.
            seen = [e for e in stream.drain(quiet=1.0) if e.event == "standings"]
            rows = {
                row["player_id"]: row["score"]["display"] for row in seen[-1].data["data"]["rows"]
            }
            assert {p: rows[p] for p in expect} == expect

            # An arbiter's correction: the server's refusal, with its rule and field.
            fill_and_submit(
                browser,
                "correct",
                {
                    "round": "1",
                    "board": "1",
                    "result": "0-1",
                    "reason": "the scoresheets say Black won",
                },
            )
            out = "document.querySelector('#correct .out').textContent"
            browser.wait_for(f"{out}.startsWith('refused ')", True)
            refused = browser.evaluate(out)  # the server's words: rule (field): message
            assert refused.startswith("refused auth.admin_only ("), refused
            assert refused.endswith("only an admin may append ResultCorrected"), refused
            assert (
                browser.evaluate("document.querySelector('#correct .out').className") == "out bad"
            )

            # Round 2 paired, then the admin corrects round 1: appended and flagged.
            browser.evaluate("document.getElementById('pair').click()")
            browser.wait_for("document.body.dataset.round", "2")
            browser.open(f"{srv.url}/tournaments/{TID}/console?token={admin}")
            browser.wait_for("document.querySelectorAll('#boards .bd').length", 3)
            browser.wait_for(
                "document.querySelectorAll('#correct select[name=board] option').length", 3
            )
            fill_and_submit(
                browser,
                "correct",
                {
                    "round": "1",
                    "board": "1",
                    "result": "0-1",
                    "reason": "the scoresheets say Black won",
                },
            )
            browser.wait_for("document.querySelectorAll('#flags .flag').length", 1)
            assert browser.evaluate(out).startswith("appended ResultCorrected (seq ")
            flag = browser.evaluate("document.querySelector('#flags .flag').dataset.game")
            assert flag == games[1]
            names = {  # the late entry's id is the register route's
                e.payload["player_id"]: e.payload["name"]
                for e in srv.log.read(TID, 1)
                if e.type == "PlayerRegistered"
            }
            (fixed,) = [e for e in srv.log.read(TID, 1) if e.type == "ResultCorrected"]
            assert browser.evaluate("document.querySelector('#flags .flag').textContent") == (
                f"⚑ Round 1, {names[sides[1][0]]} – {names[sides[1][1]]}: corrected at event "
                f"{fixed.seq}, after round 2 was paired; check that pairing"
            )
            browser.wait_for(points_js(sides[1][1]), "1")

            click_result(browser, 1, "1-0")  # a board of round 2 ended, the others to play
            browser.wait_for("document.querySelector('#boards .bd .fix') !== null", True)
            # Its "Correct…" addresses the correction form to that board.
            browser.evaluate("document.querySelector('#boards .bd .fix').click()")
            form = "document.getElementById('correct').elements"
            browser.wait_for(f"[{form}.round.value, {form}.board.value]", ["2", "1"])
            browser.wait_for("document.activeElement.name", "reason")
            wide = _layout(browser, 1280, shots / "console-1280.png")
            assert wide["scrollWidth"] <= wide["innerWidth"], wide
            assert wide["buttonsRight"] <= wide["innerWidth"], wide
            assert wide["sideBySide"], wide  # the round beside the forms at 1,280
            narrow = _layout(browser, 390, shots / "console-390.png")
            assert narrow["scrollWidth"] <= narrow["innerWidth"], narrow
            assert narrow["buttonsRight"] <= narrow["innerWidth"], narrow
            assert narrow["smallestButton"] >= 36, narrow  # big enough to tap
            assert not narrow["sideBySide"], narrow  # one column on a phone
        finally:
            browser.close()
            stream.close()
