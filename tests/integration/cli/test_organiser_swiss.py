"""Issue 24's "Done when", at full size: a 40-player FIDE Swiss of 7 rounds run from a CSV entry
list to final standings and a TRF export with the organiser's commands only (no `append`, no
JSON written by hand): `create`, `register --file` (semicolons, unrated players, titles,
federations, a quoted club holding a semicolon), `bye` (a requested half-point bye), `withdraw`,
`pair`, `results` (a whole round per command, a forfeit among them), `correct --round` (a
result of round 3 corrected after round 4 was paired and played), `standings`, `crosstable`,
`export trf`.

FIDE's pairing checker (gacrux `pairingchecker -c -p -m dutch`, as
tests/integration/commands/test_dutch_crosscheck.py runs it) then pairs every round again from
the exported file, and every round must equal ours. A published round stands (FIDE C.04.1 and
the arbiter's practice: a correction does not re-pair a round already paired), so round 4,
paired from the uncorrected result, is checked from the file exported just before the
correction (rounds 1-4), and the final file is checked for rounds 1-3 and 5-7 (round 5 on
were paired from the corrected result); the standings carry the correction flag that tells
the arbiter so.

The final standings are checked against the results entered, computed here from the tokens
typed: every player's points, games, wins, draws, losses and forfeits, the places in order of
points, and the total (one point per board, a pairing-allocated bye a point, the requested
bye a half). The crosstable's cells for the forfeit (+/-), the half-point bye (=) and the
withdrawal (-) are checked in its JSON and in its text. tests/integration/cli/
test_cli_entries_checker.py is the small version (13 players, 4 rounds, a late entry, a zero-point
bye, no correction).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from test_dutch_crosscheck import gacrux_rounds, numbers
from tests_support import cli_db
from typer.testing import CliRunner

from services.cli.main import app

pytestmark = pytest.mark.slow  # gacrux re-pairs eleven rounds from two files

TID = "weekend-open"
ROUNDS = 7

#: (name, rating or "" for unrated, title, federation, club): forty entries as an organiser's
#: spreadsheet exports them, with semicolons (a club holding one is quoted).
ENTRIES = [
    ("Adams, Michael", "2690", "GM", "ENG", "Wood Green"),
    ("Baker, Ann", "1850", "WFM", "USA", ""),
    ("Carter, Bob", "", "", "", ""),
    ("Ó Súilleabháin, Seán", "", "", "IRL", "Galway; Bohermore"),
    ("Dalton, Kate", "2105", "", "IRL", "Gonzaga"),
    ("Evans, Gareth", "1988", "", "WLS", "Cardiff"),
    ("Fischer, Lena", "2301", "WIM", "GER", "SK Berlin"),
    ("García, Lucía", "2240", "WFM", "ESP", "Club Ajedrez Madrid"),
    ("Horvath, Péter", "2150", "CM", "HUN", "Budapest"),
    ("Ivanov, Dmitri", "2455", "IM", "RUS", ""),
    ("Jensen, Mads", "2012", "", "DEN", "Aarhus"),
    ("Kowalski, Jan", "", "", "POL", ""),
    ("Larsen, Bent", "2395", "FM", "DEN", "Aarhus"),
    ("Moreau, Claire", "1760", "", "FRA", "Lyon"),
    ("Novak, Tomas", "2210", "", "CZE", "Praha"),
    ("Olsen, Ingrid", "1705", "", "NOR", ""),
    ("Petrov, Ivan", "2520", "GM", "BUL", "Sofia"),
    ("Quinn, Aoife", "1650", "", "IRL", "Dublin"),
    ("Rossi, Marco", "2330", "FM", "ITA", "Milano"),
    ("Schmidt, Anna", "1899", "", "AUT", "Wien"),
    ("Tanaka, Hiro", "", "", "JPN", ""),
    ("Ueda, Mei", "2055", "", "JPN", "Tokyo"),
    ("Varga, Zoltán", "2415", "IM", "HUN", "Budapest"),
    ("Weber, Max", "2180", "", "GER", "SK Berlin"),
    ("Xu, Yang", "2275", "CM", "CHN", ""),
    ("Young, Ellen", "1590", "", "SCO", "Edinburgh"),
    ("Zielinski, Piotr", "2365", "FM", "POL", "Warszawa"),
    ("Almeida, João", "2130", "", "POR", "Lisboa"),
    ("Bianchi, Sara", "2020", "WCM", "ITA", "Milano"),
    ("Costa, Rui", "", "", "POR", ""),
    ("Dubois, Henri", "1945", "", "FRA", "Lyon"),
    ("Eriksson, Sven", "2480", "IM", "SWE", "Stockholm"),
    ("Fontaine, Amélie", "1815", "", "FRA", ""),
    ("Gruber, Lukas", "2090", "", "AUT", "Graz"),
    ("Hansen, Nils", "2180", "", "NOR", "Oslo"),
    ("Ibarra, Diego", "1920", "", "ARG", ""),
    ("Jovanović, Milan", "2540", "GM", "SRB", "Beograd"),
    ("Keller, Ruth", "1777", "", "SUI", "Zürich"),
    ("Lindqvist, Erik", "", "", "SWE", ""),
    ("Nagy, Eszter", "2310", "WGM", "HUN", "Budapest"),
]

FORFEIT = (2, 4)  # round 2, board 4: won by White without a game (+-)
HALF_BYE = ("Horvath", 3)  # requested before round 3 is paired
WITHDRAWN = ("Weber", 5)  # withdrawn after round 4, from round 5 on
CORRECTED = (3, 2, "1-0", "0-1")  # round 3 board 2 entered 1-0, corrected to 0-1 after round 4

#: A token's half points for (White, Black).
HALVES = {"1-0": (2, 0), "0-1": (0, 2), "½": (1, 1), "+-": (2, 0), "-+": (0, 2)}
#: A bye's half points by its kind (FIDE C.04.1: a pairing-allocated bye scores a win).
BYE_HALVES = {"pairing_allocated": 2, "half": 1, "zero": 0}


def entries_csv() -> str:
    lines = ["name;rating;title;federation;fide_id;club"]
    for i, (name, rating, title, fed, club) in enumerate(ENTRIES):
        fide_id = "" if not rating else str(1_000_000 + i)
        club = f'"{club}"' if ";" in club else club
        lines.append(f'"{name}";{rating};{title};{fed};{fide_id};{club}')
    return "\n".join(lines) + "\n"


def run(*args: str) -> str:
    res = CliRunner().invoke(app, list(args))
    assert res.exit_code == 0, f"arbiter {' '.join(args)}\n{res.output}"
    return res.stdout


def checked_rounds(text: str, num: dict[str, int], rounds: list[dict[str, Any]]) -> dict[int, Any]:
    """gacrux's pairing of each round from the TRF `text`, and ours in its numbers, by round."""
    checked = gacrux_rounds(text)
    assert [c["round"] for c in checked] == [r["round"] for r in rounds]
    out = {}
    for c, body in zip(checked, rounds, strict=True):
        ours = [(num[p["white"]], num[p["black"]]) for p in body["pairings"]]
        ours += [(num[b["player_id"]], 0) for b in body["byes"] if b["kind"] == "pairing_allocated"]
        out[body["round"]] = ([(int(w), int(b)) for w, b in c["pairs"]], ours)
    return out


def expected(rounds: list[dict[str, Any]], tokens: dict[int, list[str]]) -> dict[str, Counter[str]]:
    """Each player's half points, games, wins, draws, losses, forfeits and byes, from the
    pairings and the tokens typed (the correction applied)."""
    tally: dict[str, Counter[str]] = {}
    for body in rounds:
        for p, token in zip(body["pairings"], tokens[body["round"]], strict=True):
            for side, halves in zip((p["white"], p["black"]), HALVES[token], strict=True):
                t = tally.setdefault(side, Counter())
                t["half_points"] += halves
                if token in ("+-", "-+"):
                    t["forfeits_won" if halves else "forfeits_lost"] += 1
                else:
                    t["played"] += 1
                    t[{2: "won", 1: "drawn", 0: "lost"}[halves]] += 1
        for b in body["byes"]:
            t = tally.setdefault(b["player_id"], Counter())
            t["half_points"] += BYE_HALVES[b["kind"]]
            t["byes"] += 1
    return tally


def test_a_40_player_swiss_from_a_csv_to_a_trf_the_fide_checker_pairs_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    cli_db(tmp_path, monkeypatch)
    monkeypatch.setenv("ARBITER_ACTOR", "Chief Arbiter")
    entries = tmp_path / "entries.csv"
    entries.write_text(entries_csv(), encoding="utf-8")
    run(
        "create", TID, "--name", "Weekend Open 2026", "--format", "swiss", "--rounds",
        str(ROUNDS), "--preset", "fide-swiss", "--start", "2026-11-27", "--time-control", "90+30",
    )  # fmt: skip
    assert "registered 40 players" in run("register", TID, "--file", str(entries))
    players = {p["player_id"]: p for p in json.loads(run("players", TID, "--json"))["players"]}
    by_name = {p["name"]: pid for pid, p in players.items()}
    seán = players[by_name["Ó Súilleabháin, Seán"]]
    assert (seán["rating"], seán["club"], seán["federation"]) == (None, "Galway; Bohermore", "IRL")
    assert players[by_name["Nagy, Eszter"]]["title"] == "WGM"
    horvath, weber = by_name["Horvath, Péter"], by_name["Weber, Max"]

    rng = random.Random(7)
    rounds: list[dict[str, Any]] = []
    tokens: dict[int, list[str]] = {}
    before_correction = ""
    for rnd in range(1, ROUNDS + 1):
        if rnd == HALF_BYE[1]:
            run("bye", TID, HALF_BYE[0], "--round", str(rnd), "--points", "½")
        if rnd == WITHDRAWN[1]:
            run("withdraw", TID, WITHDRAWN[0], "--from-round", str(rnd), "--reason", "ill")
        body = json.loads(run("pair", TID, "--json", "--seed", f"r{rnd}"))
        assert (body["round"], body["system"]) == (rnd, "dutch")
        rounds.append(body)
        typed = [rng.choice(["1-0", "½", "0-1", "1-0", "0-1"]) for _ in body["pairings"]]
        if rnd == FORFEIT[0]:
            typed[FORFEIT[1] - 1] = "+-"
        if rnd == CORRECTED[0]:
            typed[CORRECTED[1] - 1] = CORRECTED[2]
        tokens[rnd] = typed
        run("results", TID, "--round", str(rnd), " ".join(typed))
        if rnd == CORRECTED[0] + 1:  # round 4 paired and played: round 3 board 2 corrected
            before_correction = run("export", "trf", TID)
            fixed = run(
                "correct", TID, "--round", str(CORRECTED[0]), str(CORRECTED[1]), CORRECTED[3],
                "--reason", "scoresheet misread",
            )  # fmt: skip
            assert f"{CORRECTED[3]}" in fixed and f"was {CORRECTED[2]}" in fixed, fixed
            tokens[CORRECTED[0]][CORRECTED[1] - 1] = CORRECTED[3]

    # The requested bye and the withdrawal are in the pairings as asked.
    assert {(b["player_id"], b["kind"]) for b in rounds[2]["byes"]} >= {(horvath, "half")}
    for body in rounds[WITHDRAWN[1] - 1 :]:
        paired = {s for p in body["pairings"] for s in (p["white"], p["black"])}
        assert weber not in paired | {b["player_id"] for b in body["byes"]}
    assert [len(body["pairings"]) for body in rounds] == [20, 20, 19, 20, 19, 19, 19]

    # FIDE's checker pairs every round as we did: 1-4 from the file exported before the
    # correction, 1-3 and 5-7 from the final one.
    final = run("export", "trf", TID)
    num = numbers(final, {pid: p["name"] for pid, p in players.items()})
    assert num == {pid: p["start_no"] for pid, p in players.items()}  # the CLI's numbers
    assert numbers(before_correction, {pid: p["name"] for pid, p in players.items()}) == num
    early = checked_rounds(before_correction, num, rounds[:4])
    for rnd in (1, 2, 3, 4):
        assert early[rnd][0] == early[rnd][1], f"round {rnd} before the correction"
    late = checked_rounds(final, num, rounds)
    for rnd in (1, 2, 3, 5, 6, 7):
        assert late[rnd][0] == late[rnd][1], f"round {rnd} of the final file"
    # The correction matters: re-paired from the corrected file, round 4 would differ.
    assert late[4][0] != late[4][1]

    # The standings: the results entered, the places in order of points, the correction flag.
    doc = json.loads(run("standings", TID, "--json"))
    rows = {r["player_id"]: r for r in doc["rows"]}
    assert len(rows) == 40
    want = expected(rounds, tokens)
    for pid, row in rows.items():
        got = {k: row[k] for k in ("played", "won", "drawn", "lost", "forfeits_won", "byes")}
        got |= {"half_points": row["score"]["half_points"], "forfeits_lost": row["forfeits_lost"]}
        assert got == {k: want.get(pid, Counter())[k] for k in got}, players[pid]["name"]
    boards = sum(len(body["pairings"]) for body in rounds)
    byes = sum(BYE_HALVES[b["kind"]] for body in rounds for b in body["byes"])
    assert sum(r["score"]["half_points"] for r in doc["rows"]) == 2 * boards + byes
    halves = [r["score"]["half_points"] for r in doc["rows"]]
    assert halves == sorted(halves, reverse=True)
    for i, row in enumerate(doc["rows"]):  # 1, 2, 3=, 3=, 5: a shared place, then a gap
        assert row["place"] == i + 1 or (row["shared"] and row["place"] < i + 1), row
    assert doc["chain"][0] == "buchholz-cut1"  # decided by FIDE C.07's tie-breaks
    assert rows[weber]["withdrawn"] and not rows[horvath]["withdrawn"]
    (flag,) = doc["flags"]
    board = rounds[CORRECTED[0] - 1]["pairings"][CORRECTED[1] - 1]
    assert (flag["kind"], flag["round"], flag["game_id"]) == (
        "correction_after_pairing",
        CORRECTED[0],
        board["game_id"],
    )
    assert flag["rounds_paired_before"] == [CORRECTED[0] + 1]
    text = " ".join(run("standings", TID).split())
    white, black = players[board["white"]]["name"], players[board["black"]]["name"]
    assert f"correction after pairing: round 3, {white} – {black}" in text, text

    # The crosstable's cells: the forfeit (+/-), the half-point bye (=), the withdrawal (-).
    grid = {r["player_id"]: r for r in json.loads(run("crosstable", TID, "--json"))["rows"]}
    ff = rounds[FORFEIT[0] - 1]["pairings"][FORFEIT[1] - 1]
    won, lost = grid[ff["white"]]["rounds"][1], grid[ff["black"]]["rounds"][1]
    assert (won["kind"], won["text"]) == ("forfeit_win", f"{num[ff['black']]}w+")
    assert (lost["kind"], lost["text"]) == ("forfeit_loss", f"{num[ff['white']]}b-")
    bye = grid[horvath]["rounds"][HALF_BYE[1] - 1]
    assert (bye["kind"], bye["text"], bye["half_points"]) == ("half_bye", "=", 1)
    gone = grid[weber]["rounds"][WITHDRAWN[1] - 1 :]
    assert [(c["kind"], c["text"], c["half_points"]) for c in gone] == [("none", "-", 0)] * 3
    assert grid[weber]["withdrawn"]
    table = run("crosstable", TID)  # # | no | name | title, fed, rating, club | 1..7 | pts
    cells, first = {}, None
    for line in table.splitlines():
        cols = [c.strip() for c in line.replace("┃", "│").split("│")][1:-1]
        if cols and cols[0] == "#":  # the header: round 1's column follows the identity ones
            first = cols.index("1")
            assert {"title", "fed", "club"} <= set(cols[3:first]), cols
        elif cols and cols[1].isdigit():
            assert first is not None
            cells[cols[2]] = cols[first : first + ROUNDS]
    assert len(cells) == 40
    name = {pid: p["name"] for pid, p in players.items()}
    assert cells[name[ff["white"]]][1] == f"{num[ff['black']]}w+"
    assert cells[name[ff["black"]]][1] == f"{num[ff['white']]}b-"
    assert cells[name[horvath]][2] == "="
    assert cells[f"{name[weber]} (withdrawn)"][4:] == ["-", "-", "-"]
    assert "= a half-point bye" in " ".join(table.split())
