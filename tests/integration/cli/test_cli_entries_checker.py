"""Issue 24's "done when", small: a Swiss run only with the organiser's commands (a CSV entry
list, a requested half-point bye, a zero-point bye, a withdrawal, a late entry, each round's
results typed with `arbiter results`) exports a TRF
that FIDE's pairing checker (gacrux's `pairingchecker`, the checker the Dutch cross-check
uses) pairs round by round exactly as we paired it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_dutch_crosscheck import gacrux_rounds
from tests_support import cli_db
from typer.testing import CliRunner

from services.cli.main import app

runner = CliRunner()
RESULTS = ("1-0", "½", "0-1", "1-0", "1-0", "0-1", "1/2")


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return cli_db(tmp_path, monkeypatch)


def _run(*args: str) -> str:
    res = runner.invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res.stdout


def test_a_swiss_run_with_the_entry_commands_is_paired_as_the_checker_pairs_it(
    db: Path, tmp_path: Path
):
    entries = tmp_path / "entries.csv"
    rows = [f'"Player{i:02d}, Test",{2450 - 23 * i},{"GM" if i < 2 else ""}' for i in range(13)]
    entries.write_text("name,rating,title\n" + "\n".join(rows) + "\n", encoding="utf-8")
    _run("create", "s", "--name", "Checked Open", "--rounds", "4", "--start", "2026-05-01")
    _run("register", "s", "--file", str(entries), "--as", "Entry Desk")
    _run("bye", "s", "player03", "--round", "2", "--points", "½")
    _run("bye", "s", "player07", "--round", "3", "--points", "0")
    rounds = []
    for rnd in range(1, 5):
        if rnd == 2:
            _run("register", "s", "Late, Comer", "--rating", "2300")
        if rnd == 3:
            _run("withdraw", "s", "player10", "--reason", "left")
        paired = json.loads(_run("pair", "s", "--json", "--seed", f"s{rnd}"))
        rounds.append(paired)
        typed = [RESULTS[(i + rnd) % len(RESULTS)] for i in range(len(paired["pairings"]))]
        _run("results", "s", "--round", str(rnd), " ".join(typed))
    number = {
        p["player_id"]: p["start_no"] for p in json.loads(_run("players", "s", "--json"))["players"]
    }
    kinds = {(r["round"], b["player_id"], b["kind"]) for r in rounds for b in r["byes"]}
    assert {(2, "player03-test", "half"), (3, "player07-test", "zero")} <= kinds
    text = _run("export", "trf", "s")
    checked = gacrux_rounds(text)
    assert [c["round"] for c in checked] == [1, 2, 3, 4]
    for c, paired in zip(checked, rounds, strict=True):
        ours = [(number[p["white"]], number[p["black"]]) for p in paired["pairings"]]
        ours += [
            (number[b["player_id"]], 0) for b in paired["byes"] if b["kind"] == "pairing_allocated"
        ]
        assert [(int(w), int(b)) for w, b in c["pairs"]] == ours, paired["round"]
