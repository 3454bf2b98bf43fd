"""A PGN game ends only where its moves say it does (issue 25 item 5): a game without a final
token in its movetext is in progress (no `GameEnded`, the import says so); a `Result` tag that
contradicts the final token, and a tag given twice, are refused naming the line; a file cut
inside a move or a move's comment is the game up to its last complete move; a result that
contradicts the ending the file shows (1-0 in a stalemate) is recorded and reported as a
disagreement instead of failing the whole import. On small files written here and on the real
TCEC files of ../shared/data/pgn cut in mid-game."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests_support import cli_db, pgn_sample
from typer.testing import CliRunner

from services.cli.main import app
from services.eventlog.sqlite import SQLiteEventLog
from services.interchange.pgn import PgnError, read_pgn

runner = CliRunner()

CUP4 = "TCEC_Cup_4_Bronze.pgn"
S28 = "TCEC_Season_28_-_Entrance_League_Tiebreak_1.pgn"

HEAD = '[Event "Club"]\n[Round "1"]\n[White "Ann"]\n[Black "Bob"]\n'
# Sam Loyd's ten-move stalemate: White has stalemated Black.
STALEMATE = (
    "1. e3 a5 2. Qh5 Ra6 3. Qxa5 h5 4. h4 Rah6 5. Qxc7 f6 6. Qxd7+ Kf7 7. Qxb7 Qd3 "
    "8. Qxb8 Qh7 9. Qxc8 Kg6 10. Qe6"
)


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return cli_db(tmp_path, monkeypatch)


def _import(db: Path, file: Path, *args: str, code: int = 0) -> Any:
    res = runner.invoke(app, ["import", "pgn", str(file), "--db", str(db), "--json", *args])
    assert res.exit_code == code, res.output
    return json.loads(res.stdout) if code == 0 else res


def _types(db: Path, tid: str) -> list[str]:
    if not db.exists():
        return []
    log = SQLiteEventLog(db)
    try:
        return [e.type for e in log.read(tid, 1)]
    finally:
        log.close()


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- read ----------------------------------------------------------------------------------


def test_the_final_token_is_the_result_and_its_absence_a_game_in_progress():
    live = read_pgn(HEAD + '[Result "*"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n')[0]
    assert (live.result, live.in_progress, live.token_line) == ("1-0", False, 7)
    cut = read_pgn(HEAD + '[Result "1-0"]\n\n1. e4 e5 2. Nf3\n')[0]
    assert (cut.result, cut.in_progress, len(cut.moves)) == ("*", True, 3)
    star = read_pgn(HEAD + '[Result "1-0"]\n\n1. e4 e5 *\n')[0]
    assert star.in_progress


@pytest.mark.parametrize(
    ("text", "plies"),
    [
        ("1. e4 e5 2. Nf", 2),  # a SAN cut short (python-chess skips the fragment)
        ("1. e4 e5 2. Nf3 Nc6 3. a4 b5 4. axb5 a6 5. bxa6 h6 6. a7 h5 7. a8=", 12),
        ("1. e4 {[%clk 0:10:00]} e5 {[%clk 0:09:5", 1),  # e5's comment cut: e5 not complete
        ("1. e4 {[%clk 0:10:00]} e5 {[%clk 0:09:58]}", 2),
    ],
)
def test_a_file_cut_inside_a_move_is_the_game_up_to_its_last_complete_move(text: str, plies: int):
    game = read_pgn(HEAD + '[Result "0-1"]\n\n' + text)[0]
    assert len(game.moves) == plies
    assert game.in_progress and game.final is None


def test_a_result_tag_against_the_final_token_is_refused_naming_the_line():
    with pytest.raises(PgnError) as exc:
        read_pgn(HEAD + '[Result "1-0"]\n\n1. e4 e5 0-1\n')
    assert exc.value.line == 5
    assert "contradicts the movetext's final '0-1' (line 7)" in exc.value.reason


def test_a_tag_given_twice_is_refused_naming_the_second():
    with pytest.raises(PgnError) as exc:
        read_pgn('[Event "Club"]\n[White "Ann"]\n[White "Zoe"]\n[Black "Bob"]\n\n1. e4 *\n')
    assert exc.value.line == 3
    assert "tag White given twice (first at line 2)" in exc.value.reason


def test_a_move_after_the_final_token_is_refused():
    with pytest.raises(PgnError) as exc:
        read_pgn(HEAD + '[Result "1-0"]\n\n1. e4 e5 1-0\n2. Nf3\n')
    assert exc.value.line == 8 and "after the result 1-0" in exc.value.reason


# --- import --------------------------------------------------------------------------------


def test_an_import_stores_no_ending_for_a_game_in_progress(db: Path, tmp_path: Path):
    text = HEAD + '[Result "1/2-1/2"]\n[Termination "3-Fold repetition"]\n\n1. e4 e5 2. Nf3 Nc6\n'
    report = _import(db, _write(tmp_path, "live.pgn", text), "--tournament", "live")
    assert report["in_progress"] == ["g0001"]
    row = report["game_rows"][0]
    assert row["in_progress"] and row["result"] is None and row["plies"] == 4
    assert row["source"]["result"] == "*"
    assert row["disagrees"]  # the tag's 1/2-1/2 is never reported as agreeing
    assert "Result tag says 1/2-1/2 but the movetext has no final result" in row["why"]
    assert report["matched"] == 0
    assert "GameEnded" not in _types(db, "live")
    res = runner.invoke(app, ["import", "pgn", str(tmp_path / "live.pgn"), "--db", str(db)])
    assert "in progress (no final result in the movetext" in res.stdout


def test_a_contradiction_or_a_repeated_tag_appends_nothing(db: Path, tmp_path: Path):
    bad = _write(tmp_path, "bad.pgn", HEAD + '[Result "1-0"]\n\n1. e4 e5 1/2-1/2\n')
    res = _import(db, bad, "--tournament", "bad", code=1)
    assert "pgn.malformed" in res.output and "bad.pgn:5" in res.output
    twice = _write(tmp_path, "twice.pgn", HEAD + '[White "Zoe"]\n[Result "1-0"]\n\n1. e4 1-0\n')
    res = _import(db, twice, "--tournament", "twice", code=1)
    assert "twice.pgn:5" in res.output and "given twice" in res.output
    assert _types(db, "bad") == [] and _types(db, "twice") == []


def test_a_win_in_a_drawn_final_position_is_a_disagreement_not_a_failure(db: Path, tmp_path: Path):
    path = _write(tmp_path, "loyd.pgn", HEAD + f'[Result "1-0"]\n\n{STALEMATE} 1-0\n')
    report = _import(db, path, "--tournament", "loyd")
    row = report["game_rows"][0]
    assert (row["result"], row["termination"]) == ("1-0", "other")
    assert "contradicts its ending" in row["why"] and "FIDE Laws 5.2.1" in row["why"]
    assert report["matched"] == 0


def _cut(path: Path, game: int, keep_lines: int) -> str:
    """The file up to `keep_lines` lines into game `game`'s movetext (1-based)."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.startswith("[Event ")]
    body = next(i for i in range(starts[game - 1], len(lines)) if lines[i].startswith("1. "))
    return "".join(lines[: body + keep_lines])


def test_a_real_tcec_file_cut_in_mid_game(db: Path, tmp_path: Path):
    """Cup 4 cut in its second game (the 3-fold and fifty-move games were stored as finished
    from their tags): game 1 ends as the file says, game 2 is in progress up to the cut."""
    text = _cut(pgn_sample(CUP4), 2, 30)
    path = _write(tmp_path, "cup4-cut.pgn", text)
    report = _import(db, path, "--tournament", "cut")
    first, second = report["game_rows"]
    assert first["result"] == "1/2-1/2" and not first["in_progress"]
    assert second["in_progress"] and second["result"] is None
    assert second["plies"] == len(read_pgn(text)[1].moves) > 20
    assert _types(db, "cut").count("GameEnded") == 1


def test_a_real_tcec_file_cut_inside_a_comment_and_inside_a_move(db: Path, tmp_path: Path):
    whole = pgn_sample(S28).read_text(encoding="utf-8")
    full = read_pgn(whole)[0]
    mid = whole.index("tl=", whole.index("\n30. ")) + 5  # inside a comment's clock
    inside = read_pgn(whole[:mid])[0]
    assert inside.cut and inside.in_progress
    assert [m.uci for m in inside.moves] == [m.uci for m in full.moves[: len(inside.moves)]]
    assert inside.moves[-1].comment == full.moves[len(inside.moves) - 1].comment  # all there
    at_move = whole.index("\n31. ") + 6  # "31. R" (a move cut after its first letter)
    cut = read_pgn(whole[:at_move])[0]
    assert len(cut.moves) == 60 and cut.in_progress
    report = _import(db, _write(tmp_path, "s28-cut.pgn", whole[:mid]), "--tournament", "c")
    assert report["in_progress"] == ["g0001"] and "GameEnded" not in _types(db, "c")
