"""Results entered by board on the command line (issue 24): `arbiter round`, `arbiter result`,
`arbiter results` (a string or a CSV) and `arbiter correct --round`, on the embedded log, with
the round paired by `arbiter pair` as an organiser would."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests_support import append_events, cli_db, cli_run
from typer.testing import CliRunner

from events_schema import Recorded
from events_schema import events as ev
from projections.documents import corrections_after_pairing
from projections.standings import fold as standings_fold
from services.cli.main import app
from services.eventlog.sqlite import SQLiteEventLog

runner = CliRunner()
T = "open"
NAMES = [
    "Carlsen, Magnus",
    "Caruana, Fabiano",
    "Nakamura, Hikaru",
    "Ding, Liren",
    "Firouzja, Alireza",
    "Gukesh, D",
    "Giri, Anish",
]


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = cli_db(tmp_path, monkeypatch)
    players = [
        ev.PlayerRegistered(player_id=f"p{i}", name=n, rating=2850 - 10 * i)
        for i, n in enumerate(NAMES, start=1)
    ]
    append_events(path, T, ev.TournamentCreated(name="Open", format="swiss", rounds=5), *players)
    cli_run("pair", T, "--seed", "s")  # 7 players: 3 boards and the pairing-allocated bye
    return path


def _events(db: Path) -> list[dict[str, Any]]:
    log = SQLiteEventLog(db)
    try:
        return [e.to_json_dict() for e in log.read(T, 1)]
    finally:
        log.close()


def _round(n: int = 1) -> dict[str, Any]:
    res = runner.invoke(app, ["round", T, str(n), "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_round_shows_the_boards_with_names_and_start_numbers(db: Path) -> None:
    body = _round()
    assert [b["board"] for b in body["boards"]] == [1, 2, 3]
    first = body["boards"][0]
    assert first["white"] == {"player_id": "p1", "name": "Carlsen, Magnus", "start_no": 1}
    assert first["black"]["name"] == "Ding, Liren" and first["result"] is None
    assert body["byes"] == [{"player_id": "p7", "name": "Giri, Anish", "kind": "pairing_allocated"}]
    text = cli_run("round", T)  # the latest round by default
    assert "Carlsen, Magnus (1)" in text and "Giri, Anish (7)" in text and "bye" in text


def test_a_whole_round_in_one_batch_with_a_forfeit_and_the_bye_needing_none(db: Path) -> None:
    before = len(_events(db))
    out = cli_run("results", T, "--round", "1", "1-0 ½ +-")
    assert "board 1: Carlsen, Magnus 1-0 Ding, Liren (entered) appended at seq" in out
    assert "board 3: Nakamura, Hikaru +- Gukesh, D (forfeit)" in out
    new = _events(db)[before:]
    assert [e["type"] for e in new] == ["GameEnded"] * 3
    assert len({e["correlation_id"] for e in new}) == 3 and new[0]["seq"] == before + 1
    assert [(e["payload"]["result"], e["payload"]["termination"]) for e in new] == [
        ("1-0", "other"),
        ("1/2-1/2", "agreement"),
        ("1-0", "forfeit"),
    ]
    assert new[0]["payload"]["detail"] == "result entered by the arbiter"
    assert [b["result"] for b in _round()["boards"]] == ["1-0", "1/2-1/2", "1-0"]
    # Resent: nothing appended, and it says so.
    out = cli_run("results", T, "--round", "1", "1-0 1/2 +-")
    assert "nothing appended" in out and len(_events(db)) == before + 3


def test_a_count_mismatch_is_refused_naming_the_counts_and_nothing_is_appended(db: Path) -> None:
    before = len(_events(db))
    out = cli_run("results", T, "--round", "1", "1-0 ½ 0-1 1-0", code=1)
    assert "refused result.count_mismatch" in out and "4 result(s) for the 3 board(s)" in out
    out = cli_run("results", T, "--round", "1", "1-0 ½ 1-O", code=1)  # a bad third token
    assert "result.bad_notation (results[2])" in out and "'1-O'" in out
    assert len(_events(db)) == before  # all or nothing: boards 1 and 2 were not appended


def test_star_leaves_a_board_for_later(db: Path) -> None:
    out = cli_run("results", T, "--round", "1", "1-0 * 0-1")
    assert "board 2: left as it is" in out and "without a result yet: board(s) 2" in out
    cli_run("result", T, "--round", "1", "2", "=", "--how", "repetition")
    board = _round()["boards"][1]
    assert (board["result"], board["termination"]) == ("1/2-1/2", "threefold_repetition")


def test_one_board_resend_refusals_and_a_round_not_scheduled(db: Path) -> None:
    out = cli_run("result", T, "--round", "1", "2", "0-1", "--how", "time")
    assert "board 2: Firouzja, Alireza 0-1 Caruana, Fabiano (loss on time) appended" in out
    before = len(_events(db))
    out = cli_run("result", T, "--round", "1", "2", "0-1")
    assert "already entered, nothing appended" in out and len(_events(db)) == before
    out = cli_run("result", T, "--round", "1", "2", "1-0", code=1)
    assert "refused result.already_entered" in out and "arbiter correct open --round 1 2" in out
    out = cli_run("result", T, "--round", "1", "4", "1-0", code=1)
    assert "refused result.no_such_board" in out and "its boards are 1–3" in out
    out = cli_run("result", T, "--round", "2", "1", "1-0", code=1)
    assert "refused result.no_such_round" in out and "scheduled: 1" in out
    out = cli_run("result", T, "--round", "1", "1", "½", "--how", "resignation", code=1)
    assert "refused result.termination_mismatch" in out and "FIDE Laws 5.1.2" in out
    assert len(_events(db)) == before


def test_results_from_a_csv(db: Path, tmp_path: Path) -> None:
    before = len(_events(db))
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("board,result,how\n1,1-0,\n3,½,resignation\n", encoding="utf-8")
    out = cli_run("results", T, "--round", "1", "--file", str(wrong), code=1)
    assert "refused result.termination_mismatch (board[3].payload.termination): board 3:" in out
    assert len(_events(db)) == before  # board 1 was not appended either
    sheet = tmp_path / "r1.csv"
    sheet.write_text("board;result;how\n3;0-1;resignation\n1;½;\n2;--;\n", encoding="utf-8")
    cli_run("results", T, "--round", "1", "--file", str(sheet))
    got = [(b["result"], b["termination"]) for b in _round()["boards"]]
    assert got == [("1/2-1/2", "agreement"), ("0-0", "forfeit"), ("0-1", "resignation")]
    bad = tmp_path / "bad.csv"
    bad.write_text("board,result,colour\n1,1-0,w\n", encoding="utf-8")
    out = cli_run("results", T, "--round", "1", "--file", str(bad), code=1)
    assert "refused result.bad_csv (bad.csv:1)" in out and "unknown: colour" in out


def test_correct_by_board_after_the_next_round_is_paired_is_flagged(db: Path) -> None:
    cli_run("results", T, "--round", "1", "1-0 ½ 0-1")
    cli_run("pair", T, "--seed", "s")
    out = cli_run("correct", T, "--round", "1", "1", "½", "--reason", "score sheet: a draw")
    assert "board 1: Carlsen, Magnus ½-½ Ding, Liren (agreement), was 1-0" in out
    assert "ResultCorrected appended at seq" in out
    fixed = _events(db)[-1]
    assert fixed["type"] == "ResultCorrected"
    assert (fixed["payload"]["result"], fixed["payload"]["termination"]) == (
        "1/2-1/2",
        "agreement",  # "other" (entered) was the default of a win: a draw's default now
    )
    assert _round()["boards"][0]["corrected"] is True
    log = SQLiteEventLog(db)
    try:
        state = standings_fold([Recorded.of(e) for e in log.read(T, 1)])
    finally:
        log.close()
    flags = corrections_after_pairing(state)
    assert [(f["game_id"], f["rounds_paired_before"]) for f in flags] == [("main-r1-b1", [2])]
    # The same again changes nothing: refused by the decider.
    out = cli_run("correct", T, "--round", "1", "1", "1/2", "--reason", "again", code=1)
    assert "refused correction.no_change" in out
    assert "already 1/2-1/2 (agreement)" in out
    # A win typed without its ending, corrected to the other side's: "entered", as typed.
    out = cli_run("correct", T, "--round", "1", "3", "1-0", "--reason", "colours swapped")
    assert "board 3: Nakamura, Hikaru 1-0 Gukesh, D (entered), was 0-1" in out, out


def test_an_unknown_how_names_its_field_and_appends_nothing(db: Path) -> None:
    before = len(_events(db))
    out = cli_run("result", T, "--round", "1", "1", "1-0", "--how", "banana", code=1)
    assert "refused result.unknown_how (how): 'banana' names no ending" in out
    assert len(_events(db)) == before


def test_an_entered_result_corrected_to_itself_is_refused_in_words(db: Path) -> None:
    cli_run("result", T, "--round", "1", "1", "1-0")
    out = cli_run("correct", T, "--round", "1", "1", "1-0", "--reason", "same", code=1)
    assert "already 1-0 (entered without its ending, termination 'other')" in out
    assert "by other" not in out


def test_a_correction_from_a_win_by_resignation_to_a_draw_picks_a_draw_ending(db: Path) -> None:
    cli_run("result", T, "--round", "1", "3", "1-0", "--how", "resignation")
    cli_run("correct", T, "--round", "1", "3", "0-1", "--reason", "colours swapped")
    assert _events(db)[-1]["payload"]["termination"] == "resignation"  # kept
    cli_run("correct", T, "--round", "1", "3", "½", "--reason", "it was a draw")
    assert _events(db)[-1]["payload"]["termination"] == "agreement"  # not resignation
    out = cli_run(
        "correct", T, "--round", "1", "3", "1-0", "--how", "agreement", "--reason", "x", code=1
    )
    assert "result.termination_mismatch" in out


def test_correct_by_game_id_still_works(db: Path) -> None:
    cli_run("result", T, "--round", "1", "1", "+-")
    out = cli_run(
        "correct", T, "main-r1-b1", "--result", "0-1", "--how", "forfeit", "--reason", "x"
    )
    assert "main-r1-b1 1-0 -> 0-1" in out
    out = cli_run("correct", T, "main-r1-b1", "1-0", "--reason", "back")
    assert "main-r1-b1 0-1 -> 1-0" in out
    assert _events(db)[-1]["payload"]["termination"] == "forfeit"  # kept, as before
    cli_run("correct", T, "main-r1-b1", "--reason", "x", code=1)  # no result given


def test_games_reads_as_the_organiser_entered_them(db: Path) -> None:
    """`arbiter games` after results typed by board: the board, names, the result as typed
    (½-½, +-), the ending in words ("result entered by the arbiter", not "other"), the
    clocks when read; no empty source columns for games nobody imported."""
    state = standings_fold([Recorded.of(e) for e in SQLiteEventLog(db).read(T, 1)])
    g1 = next(g for g in state.games.values() if g.board == 1)
    clocks = ev.ClockReported(game_id=g1.game_id, white_ms=3_909_000, black_ms=247_000)
    append_events(db, T, clocks)  # read off the board's clock before the result
    cli_run("results", T, "--round", "1", "1-0 ½ +-")
    out = runner.invoke(app, ["games", T], terminal_width=200).output
    rows = [" ".join(line.replace("│", " ").split()) for line in out.splitlines() if "│" in line]
    white, black = state.players[g1.white].name, state.players[g1.black].name
    assert (
        rows[0]
        == f"1 1 {white} 1-0 {black} result entered by the arbiter 1:05:09 – 4:07 0 {g1.game_id}"
    )
    assert " ½-½ " in rows[1] and " agreement " in rows[1]
    assert " +- " in rows[2] and " forfeit " in rows[2]
    assert "other" not in out and "source" not in out and "agrees" not in out


def test_schedule_says_what_kind_of_bye(db: Path) -> None:
    """7 players: the pairing allocates a bye, said in words (not a bare "bye")."""
    out = cli_run("schedule", T)
    assert ": bye (a win, allocated by the pairing)" in out
