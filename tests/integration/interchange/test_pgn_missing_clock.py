"""Clocks when data is missing, on a real TCEC game (issue 25 item 4): Season 29 FRD 5 League
B Tiebreak game 1 (/work/shared/data/pgn), White mates at ply 165, with the comment of Black's
64... Qg1+ (ply 128) lost, as a recapture written without a comment would be. Black was at
6 656 ms and spent 6 692 ms on its next move (ply 130), the arena's `tl` saying 3 823 was left:
a derived clock that ignored the missing move (no time off, no increment) declared Black lost
on time at ply 130. Now the move earns its increment, Black's clock is unknown until ply 130
reports it again, no flag falls on it, and the game ends as the file says, by mate; `arbiter
games` says where the clock was unknown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.cli.main import app

runner = CliRunner()
PGN = Path(__file__).resolve().parents[4] / "shared" / "data" / "pgn"
S29 = PGN / "TCEC_Season_29_-_Frd_5_League_B_Tiebreak.pgn"


def _game_one_without_a_comment(tmp_path: Path) -> Path:
    if not S29.is_file():
        pytest.skip(f"{S29} is missing")
    text = S29.read_text(encoding="utf-8")
    first = text[: text.index("\n[Event ", 1)]  # game 1 (Round "1.1")
    at = first.index("Qg1+ {")
    cut = first[: at + len("Qg1+")] + first[first.index("}", at) + 1 :]
    path = tmp_path / "s29-g1-one-comment-lost.pgn"
    path.write_text(cut, encoding="utf-8")
    return path


def test_a_move_without_time_data_no_longer_loses_on_time(tmp_path: Path):
    pgn = _game_one_without_a_comment(tmp_path)
    db = tmp_path / "events.sqlite3"
    args = ["--rules", "tcec-frd", "--adjudicate", "--tournament", "s29", "--db", str(db)]
    res = runner.invoke(app, ["import", "pgn", str(pgn), "--json", *args])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["games", "s29", "--db", str(db), "--json"])
    assert res.exit_code == 0, res.output
    (game,) = json.loads(res.stdout)["games"]
    assert (game["result"], game["termination"], game["plies"]) == ("1-0", "checkmate", 165)
    assert not game["disagrees"]
    assert game["clock_unknown"] == [{"colour": "black", "from_ply": 128, "to_ply": 130}]
    res = runner.invoke(app, ["games", "s29", "--db", str(db)])
    assert "g0001: Black's clock unknown from ply 128 to ply 130" in res.output
