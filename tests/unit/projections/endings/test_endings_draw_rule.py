"""The TCEC draw rule exactly as written (tcec-rules Swiss 6.b / Leagues 10.2 / FRD 6.b):
≤ 6 non-pawn men (kings counted), the move's eval in [−0.25, 0.25], 8 consecutive plies; the
counter resets on a 7th piece from a promotion or an eval outside / missing; not on captures
or pawn moves; no minimum move number."""

from __future__ import annotations

import chess
import pytest

from projections.endings import Adjudicator, GameFacts, MoveFacts, adjudicate, draw_rule

# Two kings walking along their back ranks: 8 plies, all positions different (no repetition).
WALK = ["e1d1", "e8d8", "d1c1", "d8c8", "c1b1", "c8b8", "b1a1", "b8a8"]
FOUR_MEN = "4k2r/8/8/8/8/8/8/4K2R w - - 0 1"
SIX_MEN = "4k1br/8/8/8/8/8/8/4K1BR w - - 0 1"
SEVEN_MEN = "4k1br/7n/8/8/8/8/8/4K1BR w - - 0 1"


def _game(fen: str, moves: list[str], evals: list[int | None]) -> GameFacts:
    return GameFacts(tuple(MoveFacts(u, e) for u, e in zip(moves, evals, strict=True)), fen)


def test_fires_on_the_eighth_consecutive_ply_not_the_seventh():
    ending = adjudicate(_game(FOUR_MEN, WALK, [0] * 8), "tcec-league")
    assert ending is not None
    assert (ending.result, ending.termination, ending.ply) == ("1/2-1/2", "tcec_draw_rule", 8)
    assert ending.rule == "tcec-rules Leagues 10.2"
    assert ending.detail == (
        "TCEC draw rule: 8 plies with ≤6 pieces and |eval| ≤ 0.25 (tcec-rules Leagues 10.2)"
    )
    assert adjudicate(_game(FOUR_MEN, WALK[:7], [0] * 7), "tcec-league") is None


def test_no_minimum_move_number_and_each_event_cites_its_own_article():
    for preset, article in [
        ("tcec-swiss", "tcec-rules Swiss 6.b"),
        ("tcec-cup", "tcec-rules Cup 6.b"),
        ("tcec-frd", "tcec-rules FRD 6.b"),
        ("tcec-premier", "tcec-rules Leagues 10.2"),
    ]:
        ending = adjudicate(_game(FOUR_MEN, WALK, [0] * 8), preset)
        assert ending is not None and ending.rule == article and ending.ply == 8


def test_4k_and_human_chess_have_no_draw_rule():
    assert adjudicate(_game(FOUR_MEN, WALK, [0] * 8), "tcec-4k") is None
    assert adjudicate(_game(FOUR_MEN, WALK, [0] * 8), "fide") is None


@pytest.mark.parametrize(("edge", "fires"), [(25, True), (-25, True), (26, False), (-26, False)])
def test_the_bounds_are_inclusive(edge: int, fires: bool):
    evals: list[int | None] = [0, 0, 0, edge, 0, 0, 0, 0]
    ending = adjudicate(_game(FOUR_MEN, WALK, evals), "tcec-league")
    assert (ending is not None) is fires


def test_a_missing_eval_or_a_mate_score_resets():
    evals: list[int | None] = [0, 0, 0, 0, 0, 0, 0, 0]
    evals[1] = None  # a book move
    assert adjudicate(_game(FOUR_MEN, WALK, evals), "tcec-league") is None
    adj = Adjudicator("tcec-league", start_fen=FOUR_MEN)
    for i, uci in enumerate(WALK):
        assert adj.push(uci, 0, mate_in=12 if i == 3 else None) is None
    assert adj.draw_rule_count == 4


def test_six_pieces_count_seven_do_not():
    assert adjudicate(_game(SIX_MEN, WALK, [0] * 8), "tcec-league") is not None
    assert adjudicate(_game(SEVEN_MEN, WALK, [0] * 8), "tcec-league") is None


def test_pawns_are_not_pieces_and_pawn_moves_and_captures_do_not_reset():
    # 6 pieces and 6 pawns; a pawn move, a pawn capture and a piece capture inside the 8 plies.
    fen = "4k2r/ppp5/8/3p4/2P5/8/PP3n2/4K2R w - - 0 1"
    moves = ["c4d5", "e8d8", "a2a3", "f2d3", "e1f1", "d3b2", "f1g1", "b2d1"]
    board = chess.Board(fen)
    for uci in moves:
        board.push_uci(uci)
    assert draw_rule.non_pawn_men(board) == 5
    ending = adjudicate(_game(fen, moves, [0] * 8), "tcec-league")
    assert ending is not None and ending.ply == 8 and ending.termination == "tcec_draw_rule"


def test_a_promotion_making_a_seventh_piece_resets():
    fen = "4k1br/P7/8/8/8/8/8/4K1BR w - - 0 1"  # 6 pieces and a pawn about to promote
    moves = ["e1d1", "e8d8", "d1c1", "d8c8", "c1b1", "c8b7", "a7a8q", "b7a8"]
    adj = Adjudicator("tcec-league", start_fen=fen)
    counts = []
    for uci in moves:
        assert adj.push(uci, 0) is None
        counts.append(adj.draw_rule_count)
    # the promotion (ply 7) makes 7 pieces: reset; the king takes the queen back to 6
    assert counts == [1, 2, 3, 4, 5, 6, 0, 1]


def test_step_is_the_counter_the_adjudicator_keeps():
    cases: list[tuple[int, int | None, int | None]] = [
        (6, 0, None),
        (6, 25, None),
        (6, 26, None),
        (7, 0, None),
        (6, None, None),
        (3, 0, 5),
        (2, -25, None),
    ]
    count = 0
    expected = []
    for men, ev, mate in cases:
        count = draw_rule.step(count, men, ev, mate)
        expected.append(count)
    assert expected == [1, 2, 0, 0, 0, 0, 1]
    assert draw_rule.fires(8) and not draw_rule.fires(7)


def test_the_arena_display_reading_differs_only_where_the_text_says_no_reset():
    # ARENA_DISPLAY (≤ 6 pieces without kings, reset on captures / pawn moves) reproduces the
    # `Rd` field of TCEC PGNs; the written rule does not reset on a capture.
    written = draw_rule.step(3, 6, 0, None, zeroing=True)
    display = draw_rule.step(3, 6, 0, None, zeroing=True, reading=draw_rule.ARENA_DISPLAY)
    assert (written, display) == (4, 0)
    assert draw_rule.step(0, 8, 0, None, reading=draw_rule.ARENA_DISPLAY) == 1
    assert draw_rule.step(0, 8, 0, None) == 0
