"""PGN export (services/interchange/pgn/export.py): one chess game of the log as PGN text that
python-chess reads back with the same tags, moves, clocks and evaluations; the same game as
the record the live page draws from (SAN and the FEN after each move)."""

from __future__ import annotations

import io
from datetime import date

import chess
import chess.pgn
import pytest
from builders import T0, created, eid, move, recorded, result, round_

from events_schema import events as ev
from services.interchange.pgn.export import ExportRefused, export_pgn, game_record

TID = "open-2026"


def _players() -> list[ev.Event]:
    return [
        ev.PlayerRegistered(player_id="ana", name="Ana Ortega", rating=2612, title="GM"),
        ev.PlayerRegistered(player_id="bram", name="Bram de Vries", rating=2587, fide_id=1503014),
    ]


def _game(*extra: ev.Event) -> list[ev.Event]:
    return [
        created(fmt="swiss", rounds=5, starts_on=date(2026, 4, 3)).model_copy(
            update={"name": "Spring Open 2026"}
        ),
        *_players(),
        round_(1, ("main-r1-b1", "ana", "bram")),
        move("main-r1-b1", 1, "e2e4", san="e4", clock_ms=5_395_000, eval_cp=35, depth=24),
        move("main-r1-b1", 2, "e7e5", san="e5", clock_ms=5_381_000, eval_cp=28, depth=25),
        move("main-r1-b1", 3, "g1f3", clock_ms=5_370_500),
        move("main-r1-b1", 4, "b8c6", clock_ms=5_302_000, mate_in=-7, depth=40),
        *extra,
    ]


def _read(text: str) -> chess.pgn.Game:
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and not game.errors, text
    return game


def test_the_pgn_reads_back_with_the_tags_moves_clocks_and_evaluations():
    text = export_pgn(
        recorded(TID, _game(result("main-r1-b1", "1-0", "resignation"))), "main-r1-b1"
    )
    game = _read(text)
    h = game.headers
    assert (h["Event"], h["Site"], h["Round"]) == ("Spring Open 2026", "?", "1.1")  # round.board
    assert (h["White"], h["Black"], h["Result"]) == ("Ana Ortega", "Bram de Vries", "1-0")
    assert (h["WhiteElo"], h["BlackElo"], h["WhiteTitle"]) == ("2612", "2587", "GM")
    assert h["BlackFideId"] == "1503014" and "WhiteFideId" not in h
    assert (h["Board"], h["GameId"], h["Termination"]) == ("1", "main-r1-b1", "normal")
    assert h["Date"] == T0.strftime("%Y.%m.%d")  # the day the first move occurred
    nodes = list(game.mainline())
    assert [n.san() for n in nodes] == ["e4", "e5", "Nf3", "Nc6"]
    assert [n.clock() for n in nodes] == [5395.0, 5381.0, 5370.5, 5302.0]
    evals = [n.eval() for n in nodes]
    assert evals[0] is not None and evals[0].white() == chess.engine.Cp(35)
    assert evals[2] is None  # no evaluation recorded with that move
    assert evals[3] is not None and evals[3].white() == chess.engine.Mate(-7)
    assert [n.eval_depth() for n in nodes] == [24, 25, None, 40]
    assert text.rstrip().endswith("1-0")


def test_the_result_in_force_and_the_moves_in_force_are_written():
    # The last move (the 8th event) is retracted; a corrected result replaces the 9th.
    events = _game(
        ev.EventRetracted(retracted_event_id=eid(8), reason="entered by mistake"),
        result("main-r1-b1", "1-0", "resignation"),
    )
    game = _read(export_pgn(recorded(TID, events), "main-r1-b1"))
    assert [n.san() for n in game.mainline()] == ["e4", "e5", "Nf3"]
    corrected = [
        *_game(result("main-r1-b1", "1-0", "resignation")),
        ev.ResultCorrected(
            corrects_event_id=eid(9),
            game_id="main-r1-b1",
            result="0-1",
            termination="time_forfeit",
            reason="the flag fell first",
        ),
    ]
    game = _read(export_pgn(recorded(TID, corrected), "main-r1-b1"))
    assert game.headers["Result"] == "0-1"
    assert game.headers["Termination"] == "time forfeit"


def test_a_game_without_a_result_and_a_double_forfeit_are_written_as_unfinished():
    game = _read(export_pgn(recorded(TID, _game()), "main-r1-b1"))
    assert game.headers["Result"] == "*" and "Termination" not in game.headers
    events = [*_game()[:4], result("main-r1-b1", "0-0", "forfeit")]
    game = _read(export_pgn(recorded(TID, events), "main-r1-b1"))
    assert game.headers["Result"] == "*"  # PGN has no double loss
    assert game.headers["Termination"] == "abandoned"
    assert list(game.mainline()) == []


def test_the_record_gives_the_san_and_the_position_after_each_move():
    rec = game_record(recorded(TID, _game()), "main-r1-b1")
    assert rec["tournament"] == "Spring Open 2026" and rec["round"] == 1
    assert [m["san"] for m in rec["moves"]] == ["e4", "e5", "Nf3", "Nc6"]
    assert rec["moves"][2]["san"] == "Nf3"  # SAN computed where the event had none
    board = chess.Board()
    for m in rec["moves"]:
        board.push_uci(m["uci"])
        assert m["fen"] == board.fen()
    assert rec["start_fen"] == chess.STARTING_FEN
    assert rec["white"]["name"] == "Ana Ortega" and rec["black"]["rating"] == 2587


def test_a_go_game_and_an_unknown_game_are_refused():
    with pytest.raises(ExportRefused) as err:
        export_pgn(recorded(TID, _game()), "main-r9-b1")
    assert (err.value.rule, err.value.field) == ("pgn.unknown_game", "GAME")
    go = [created(game="go", fmt="mcmahon"), *_players(), round_(1, ("g1", "ana", "bram"))]
    with pytest.raises(ExportRefused) as err:
        export_pgn(recorded(TID, go), "g1")
    assert err.value.rule == "pgn.not_chess"
