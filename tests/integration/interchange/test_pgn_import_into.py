"""`arbiter import pgn --tournament T` into a tournament that exists (issue 25 item 2): games
matched to the round's pairings by their players' names, or created in a round the tournament
has not scheduled (players registered, a `RoundScheduled`), a game in progress continued from
its last move in force, a file that does not continue it or a game the paired round does not
have refused naming the line, and the tournament's rules kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests_support import PGN_DIR, cli_db, cli_json, cli_run, log_events
from typer.testing import CliRunner

runner = CliRunner()

CUP4 = "TCEC_Cup_4_Bronze.pgn"


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return cli_db(tmp_path, monkeypatch)


def _game(rnd: str, white: str, black: str, moves: str, result: str) -> str:
    return (
        f'[Event "Club"]\n[Round "{rnd}"]\n[White "{white}"]\n[Black "{black}"]\n'
        f'[Result "{result}"]\n\n{moves} {result}\n\n'
    )


def test_games_are_matched_to_the_round_s_pairings_by_their_players(db: Path, tmp_path: Path):
    cli_run("create", "club", "--name", "Club", "--format", "swiss", "--rounds", "3")
    for name in ("Carlsen, Magnus", "Nakamura, Hikaru", "Dvořák, Jan", "Smith, Anna"):
        cli_run("register", "club", name)
    cli_run("pair", "club")
    names = {p["player_id"]: p["name"] for p in cli_json("players", "club")["players"]}
    pairings = next(r for r in cli_json("schedule", "club")["rounds"] if r["round"] == 1)[
        "pairings"
    ]
    (a, b) = pairings
    text = _game("1", names[a["white"]], names[a["black"]], "1. e4 e5 2. Qh5 Nc6", "*")
    # a name written with other case and spacing is the same player
    text += _game("1", names[b["white"]].upper(), "  " + names[b["black"]], "1. d4 d5", "1/2-1/2")
    path = tmp_path / "round1.pgn"
    path.write_text(text, encoding="utf-8")
    before = len(log_events(db, "club"))
    report = cli_json("import", "pgn", str(path), "--tournament", "club")
    assert [r["game_id"] for r in report["game_rows"]] == [a["game_id"], b["game_id"]]
    assert report["players"] == 0 and report["rounds"] == 0
    types = [e.type for e in log_events(db, "club")[before:]]
    assert "RoundScheduled" not in types and "PlayerRegistered" not in types
    assert report["in_progress"] == [a["game_id"]]
    assert report["game_rows"][1]["result"] == "1/2-1/2"

    # the first game goes on in a longer copy of the file: continued from its last move
    longer = tmp_path / "round1-later.pgn"
    longer.write_text(
        _game(
            "1",
            names[a["white"]],
            names[a["black"]],
            "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7#",
            "1-0",
        ),
        encoding="utf-8",
    )
    report = cli_json("import", "pgn", str(longer), "--tournament", "club")
    row = report["game_rows"][0]
    assert (row["game_id"], row["plies"], row["result"]) == (a["game_id"], 7, "1-0")
    moves = [e for e in log_events(db, "club") if e.type == "MovePlayed"]
    assert [e.payload["ply"] for e in moves if e.payload["game_id"] == a["game_id"]] == list(
        range(1, 8)
    )

    # a game the paired round does not have, and a file that does not continue the game
    stranger = tmp_path / "stranger.pgn"
    stranger.write_text(_game("1", "Nobody, Known", names[a["white"]], "1. e4", "*"), "utf-8")
    out = cli_run("import", "pgn", str(stranger), "--tournament", "club", code=1)
    assert "pgn.no_pairing (stranger.pgn:1)" in out and "unknown player 'Nobody, Known'" in out
    other = tmp_path / "other.pgn"
    other.write_text(_game("1", names[b["white"]], names[b["black"]], "1. c4", "*"), "utf-8")
    out = cli_run("import", "pgn", str(other), "--tournament", "club", code=1)
    assert f"pgn.moves_differ (other.pgn:1): {b['game_id']} (round 1, the same players)" in out
    assert "ply 1 is d2d4 there, c2c4 in the file" in out
    # the same file (name) again with another first move: the game it follows differs
    path.write_text(text.replace("1. e4 e5 2. Qh5", "1. e4 e6 2. Qh5"), encoding="utf-8")
    out = cli_run("import", "pgn", str(path), "--tournament", "club", code=1)
    assert "pgn.moves_differ (round1.pgn:7)" in out and "ply 2 is e7e5 in" in out


def _cup4() -> Path:
    path = PGN_DIR / CUP4
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    return path


def test_a_cut_file_then_the_whole_file_records_what_the_whole_file_does(db: Path, tmp_path: Path):
    """Half of TCEC Cup 4 imported, then the whole file into the same tournament: the games
    in progress are continued, the rest created, and every move, clock and ending is the same
    as the whole file imported at once."""
    whole = _cup4()
    text = whole.read_text(encoding="utf-8")
    cut = tmp_path / CUP4
    cut.write_text(text[: len(text) // 2], encoding="utf-8")
    opts = ("--format", "match")
    first = cli_json("import", "pgn", str(cut), "--tournament", "live", *opts)
    assert len(first["in_progress"]) == 1
    cli_json("import", "pgn", str(whole), "--tournament", "live")
    cli_json("import", "pgn", str(whole), "--tournament", "at-once", *opts)

    def facts(tid: str) -> list[tuple[Any, ...]]:
        """Moves and endings by the game's place in the file (ids differ: "g0003", "3.1")."""
        out: list[tuple[Any, ...]] = []
        index: dict[str, int] = {}
        for e in log_events(db, tid):
            p = e.payload
            if e.type == "GameStarted":
                index[p["game_id"]] = p["source"]["index"]
            elif e.type == "MovePlayed":
                n = index[p["game_id"]]
                out.append((n, p["ply"], p["uci"], p.get("clock_ms"), p.get("eval_cp")))
            elif e.type == "GameEnded":
                out.append((index[p["game_id"]], p["result"], p["termination"], p.get("rule")))
        return sorted(out, key=str)

    assert facts("live") == facts("at-once")

    def rounds(tid: str) -> list[int]:
        return [e.payload["round"] for e in log_events(db, tid) if e.type == "RoundScheduled"]

    assert rounds("live") == rounds("at-once") == list(range(1, 9))  # a match: a game a round
    again = cli_json("import", "pgn", str(whole), "--tournament", "live")
    assert again["appended"] == 0


def test_a_tournament_without_players_gets_the_file_s_players_and_rounds(db: Path, tmp_path: Path):
    cli_run("create", "rr", "--name", "RR", "--format", "round_robin", "--rounds", "3")
    path = tmp_path / "rr.pgn"
    path.write_text(
        _game("1", "Ann", "Bob", "1. e4 e5", "1-0") + _game("2", "Bob", "Cid", "1. d4", "0-1"),
        encoding="utf-8",
    )
    report = cli_json("import", "pgn", str(path), "--tournament", "rr")
    assert (report["players"], report["rounds"]) == (3, 2)
    assert [r["game_id"] for r in report["game_rows"]] == ["1.1", "2.1"]
    names = sorted(p["name"] for p in cli_json("players", "rr")["players"])
    assert names == ["Ann", "Bob", "Cid"]
    out = cli_run("import", "pgn", str(path), "--tournament", "rr", "--format", "swiss", code=1)
    assert "pgn.tournament_exists (--format)" in out
