"""A finished game's chess board is parked (projections/tournament/state.py `park_board`):
dropped from the decider's state when the game ends, and replayed from its start position and
moves when it is read again. Every decision stays the one the kept board gave."""

from __future__ import annotations

import chess
import pytest
from builders import move, recorded, result, small_tournament
from given_when_then import given

from events_schema import Event
from events_schema import events as ev
from projections.rejection import Rejected
from projections.tournament import decide, fold

OPENING = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "e1g1"]  # castles at ply 7


def _moves(ucis: list[str], game_id: str = "r1g1") -> list[Event]:
    return [move(game_id, i, u) for i, u in enumerate(ucis, start=1)]


def _result_id(events: list[Event]) -> ev.EventRetracted:
    recs = recorded("t1", events)
    (ended,) = [r for r in recs if isinstance(r.event, ev.GameEnded)]
    return ev.EventRetracted(retracted_event_id=ended.envelope.event_id, reason="wrong board")


def test_given_a_finished_game_its_board_is_parked_and_read_back_as_it_was():
    played = [*small_tournament(), *_moves(OPENING)]
    kept = given(*played).games["r1g1"].board
    assert kept is not None
    game = given(*played, result("r1g1", "1/2-1/2")).games["r1g1"]
    assert game.board_parked and game.chess_board is None  # the move stack is not held
    board = game.board  # read again: replayed
    assert board is not None and not game.board_parked
    assert board.fen() == kept.fen() and board.move_stack == kept.move_stack


def test_given_the_result_retracted_when_play_goes_on_then_the_decisions_are_the_kept_boards():
    played = [*small_tournament(), *_moves(OPENING)]
    ended = [*played, result("r1g1", "1/2-1/2")]
    reopened = given(*ended, _result_id(ended))
    never_ended = given(*played)
    legal = move("r1g1", 8, "f8c5")
    assert decide(reopened, legal) == decide(never_ended, legal)
    assert decide(reopened, legal)[0].san == "Bc5"  # type: ignore[attr-defined]
    illegal = move("r1g1", 8, "e1g1")  # White's king, Black to move
    refusals = []
    for state in (given(*ended, _result_id(ended)), never_ended):
        with pytest.raises(Rejected) as info:
            decide(state, illegal)
        refusals.append((info.value.rule, info.value.field, str(info.value)))
    assert refusals[0] == refusals[1]  # the same refusal, naming the same position


def test_a_chess960_start_is_replayed_in_chess960_mode():
    fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
    start = ev.GameStarted(game_id="r1g1", fen=fen)
    played = [*small_tournament(), start, *_moves(["a3a4", "a7a6"])]
    kept = given(*played).games["r1g1"].board
    game = given(*played, result("r1g1", "1-0")).games["r1g1"]
    assert game.board_parked
    board = game.board
    assert board is not None and kept is not None
    assert board.chess960 and board.fen() == kept.fen() and board.move_stack == kept.move_stack


def test_a_board_that_stopped_tracking_is_not_parked():
    # an illegal move in the history (a fold never fails): the board is no longer tracked,
    # nothing to park, and it stays untracked
    events = [*small_tournament(), *_moves(["e2e4", "e2e4"]), result("r1g1", "1-0")]
    game = fold(recorded("t1", events)).games["r1g1"]
    assert game.board is None and not game.board_parked


def test_parking_keeps_a_board_the_moves_do_not_rebuild():
    game = given(*small_tournament(), *_moves(["e2e4"])).games["r1g1"]
    game.moves.append("?")  # a move the board never pushed
    game.park_board()
    assert not game.board_parked and isinstance(game.board, chess.Board)
