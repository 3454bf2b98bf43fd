"""Issue 24's "Done when", the second half: "the same through the console page in Chromium". A
10-player FIDE Swiss of 3 rounds run from the arbiter's console (services/feed/console.py) in
headless Chromium, on the API app `arbiter serve` serves (tests_support.py's
`ThreadServer`): the tournament created and eight players entered over HTTP as an organiser's
tools do (`POST …/create`, the CSV entry list as `text/csv` to `POST …/players`: no event
written by hand), two late-comers from the page's register form (one unrated), a requested
half-point bye and a withdrawal from its forms, every round paired with its button and every
result entered by clicking (a forfeit among them), and a result of round 1 corrected by the
chief arbiter (an admin) after round 2 was paired and played, which raises the correction
flag on the page.

The TRF export (`GET /tournaments/{id}/trf`) is then re-paired round by round by FIDE's
pairing checker (gacrux `pairingchecker -c -p -m dutch`, as test_dutch_crosscheck.py runs it):
rounds 1-2 from the file fetched before the correction, rounds 1 and 3 from the final file (a
published round stands: round 2 was paired from the result in force then), as
tests/integration/cli/test_organiser_swiss.py does on the command line. The page's standings
are checked against the results clicked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from test_dutch_crosscheck import gacrux_rounds, numbers
from tests_support import (
    BROWSER_TEST,
    Chromium,
    ThreadServer,
    click_result,
    fill_and_submit,
    points_js,
)

TID = "console-swiss-2026"

pytestmark = BROWSER_TEST  # a server, a browser and gacrux

ENTRIES = """name;rating;title;federation;fide_id;club
"Aronian, Levon";2735;GM;USA;13300474;Saint Louis
"Caruana, Fabiano";2795;GM;USA;2020009;Saint Louis
"Ding, Liren";2745;GM;CHN;8603677;
"Giri, Anish";2730;GM;NED;24116068;HSG Hilversum
"Nepomniachtchi, Ian";2770;GM;FID;4168119;
"Ó Briain, Niamh";1980;WFM;IRL;;"Galway; Bohermore"
"Dalton, Kate";2105;;IRL;;Gonzaga
"Larsen, Bent";2395;FM;DEN;;Aarhus
"""
#: Every round's results, clicked board by board (round 1 board 4 a forfeit won by White).
CLICKS = {
    1: ["1-0", "½", "0-1", "+-", "1-0"],
    2: ["0-1", "1-0", "½", "1-0"],
    3: ["½", "1-0", "0-1", "1-0"],
}
HALVES = {"1-0": (2, 0), "0-1": (0, 2), "½": (1, 1), "+-": (2, 0), "-+": (0, 2)}
BYES = {"pairing_allocated": 2, "half": 1, "zero": 0}


def text_of(browser: Chromium, form: str) -> str:
    """A form's answer, once the server gave it."""
    out = f"document.querySelector('#{form} .out').textContent"
    browser.wait_for(f"['', '…'].includes({out})", False)
    return str(browser.evaluate(out))


def play_round(browser: Chromium, rnd: int) -> None:
    """Pair round `rnd` with the button and click its results, board by board."""
    browser.evaluate("document.getElementById('pair').click()")
    browser.wait_for("document.body.dataset.round", str(rnd))
    boards = "document.querySelectorAll('#boards .bd').length"
    browser.wait_for(boards, len(CLICKS[rnd]))
    assert browser.evaluate("document.getElementById('pair-out').textContent").startswith(
        f"paired round {rnd}, {len(CLICKS[rnd])} boards"
    )
    for board, result in enumerate(CLICKS[rnd], start=1):
        click_result(browser, board, result)
    ended = "document.querySelectorAll('#boards .bd[data-status=\"ended\"]').length"
    browser.wait_for(ended, len(CLICKS[rnd]))


def scheduled(srv: ThreadServer) -> dict[int, dict[str, Any]]:
    """Each round's RoundScheduled payload, from the log."""
    return {
        e.payload["round"]: e.payload for e in srv.log.read(TID, 1) if e.type == "RoundScheduled"
    }


def checked(text: str, num: dict[str, int], rounds: dict[int, dict[str, Any]]) -> dict[int, Any]:
    """gacrux's pairs of each round from the TRF `text`, beside ours, by round."""
    theirs = gacrux_rounds(text)
    assert [c["round"] for c in theirs] == sorted(rounds)
    out = {}
    for c in theirs:
        body = rounds[c["round"]]
        ours = [(num[p["white"]], num[p["black"]]) for p in body["pairings"]]
        ours += [(num[b["player_id"]], 0) for b in body["byes"] if b["kind"] == "pairing_allocated"]
        out[c["round"]] = ([(int(w), int(b)) for w, b in c["pairs"]], ours)
    return out


def test_a_swiss_run_from_the_console_exports_a_trf_the_fide_checker_pairs_alike(tmp_path: Path):
    with ThreadServer(tmp_path) as srv:
        chief = srv.tokens.create("admin", "chief")[0]
        deputy = srv.tokens.create("arbiter", "deputy", [TID])[0]
        api = httpx.Client(base_url=f"{srv.url}/tournaments/{TID}", timeout=30)
        as_chief = {"Authorization": f"Bearer {chief}"}
        r = api.post(
            "/create",
            json={
                "name": "Console Swiss 2026",
                "format": "swiss",
                "rounds": 3,
                "preset": "fide-swiss",
                "start": "2026-11-27",
                "time_control": "90+30",
            },
            headers=as_chief,
        )
        assert r.status_code == 201, r.text
        r = api.post(
            "/players", content=ENTRIES.encode(), headers={**as_chief, "Content-Type": "text/csv"}
        )
        assert r.status_code == 201, r.text
        assert len(r.json()["events"]) == 8

        browser = Chromium()
        try:
            browser.open(f"{srv.url}/tournaments/{TID}/console?token={deputy}")
            browser.wait_for("document.querySelectorAll('#standings tbody tr').length", 8)
            # Two late-comers at the desk, one unrated.
            fill_and_submit(
                browser,
                "register",
                {"name": "So, Wesley", "rating": "2750", "title": "GM", "federation": "USA"},
            )
            assert text_of(browser, "register").startswith("appended PlayerRegistered"), text_of(
                browser, "register"
            )
            fill_and_submit(browser, "register", {"name": "Newcomer, Pat", "federation": "IRL"})
            browser.wait_for("document.querySelectorAll('#standings tbody tr').length", 10)
            players = {
                p["name"]: p for p in api.get("/players", headers=as_chief).json()["players"]
            }
            assert players["Newcomer, Pat"]["rating"] is None
            assert players["Ó Briain, Niamh"]["club"] == "Galway; Bohermore"
            ids = {name: p["player_id"] for name, p in players.items()}
            # A half-point bye asked for round 2; a withdrawal from round 3.
            fill_and_submit(
                browser, "bye", {"player": ids["Giri, Anish"], "round": "2", "points": "½"}
            )
            assert text_of(browser, "bye").startswith("appended "), text_of(browser, "bye")
            fill_and_submit(
                browser,
                "withdraw",
                {"player": ids["Ding, Liren"], "from_round": "3", "reason": "ill"},
            )
            assert text_of(browser, "withdraw").startswith("appended PlayerWithdrew")

            play_round(browser, 1)
            play_round(browser, 2)
            before = api.get("/trf", headers=as_chief)
            assert before.status_code == 200, before.text

            # The chief arbiter corrects round 1 board 1 after round 2 was paired and played.
            browser.open(f"{srv.url}/tournaments/{TID}/console?token={chief}")
            browser.wait_for("document.querySelectorAll('#boards .bd').length", len(CLICKS[2]))
            browser.wait_for(
                "document.querySelectorAll('#correct select[name=board] option').length", 4
            )
            fill_and_submit(
                browser,
                "correct",
                {"round": "1", "board": "1", "result": "0-1", "reason": "scoresheets: Black won"},
            )
            browser.wait_for("document.querySelectorAll('#flags .flag').length", 1)
            assert text_of(browser, "correct").startswith("appended ResultCorrected")
            CLICKS[1][0] = "0-1"
            rounds = scheduled(srv)
            assert (
                browser.evaluate("document.querySelector('#flags .flag').dataset.game")
                == (rounds[1]["pairings"][0]["game_id"])
            )

            play_round(browser, 3)
            rounds = scheduled(srv)
            final = api.get("/trf", headers=as_chief)
            assert final.status_code == 200, final.text

            # The requested bye and the withdrawal are in the pairings as asked.
            assert (ids["Giri, Anish"], "half") in {
                (b["player_id"], b["kind"]) for b in rounds[2]["byes"]
            }
            assert ids["Ding, Liren"] not in {
                s for p in rounds[3]["pairings"] for s in (p["white"], p["black"])
            }

            # FIDE's checker: rounds 1-2 before the correction, 1 and 3 from the final file.
            names = {p["player_id"]: name for name, p in players.items()}
            num = numbers(final.text, names)
            assert num == {p["player_id"]: p["start_no"] for p in players.values()}
            early = checked(before.text, num, {r: rounds[r] for r in (1, 2)})
            assert all(early[r][0] == early[r][1] for r in (1, 2)), early
            late = checked(final.text, num, rounds)
            assert all(late[r][0] == late[r][1] for r in (1, 3)), late

            # The page's standings: each player's points, as the clicks and byes give them.
            halves: dict[str, int] = dict.fromkeys(names, 0)
            for rnd, body in rounds.items():
                for p, result in zip(body["pairings"], CLICKS[rnd], strict=True):
                    halves[p["white"]] += HALVES[result][0]
                    halves[p["black"]] += HALVES[result][1]
                for b in body["byes"]:
                    halves[b["player_id"]] += BYES[b["kind"]]
            for pid, h in halves.items():
                want = f"{h // 2 or ''}{'½' if h % 2 else ''}" or "0"
                browser.wait_for(points_js(pid), want)
            row = f'#standings tr[data-player="{ids["Ding, Liren"]}"]'
            assert browser.evaluate(f"document.querySelector('{row}').className") == "withdrawn"
        finally:
            browser.close()
            api.close()
