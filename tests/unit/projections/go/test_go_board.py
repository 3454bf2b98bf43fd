"""projections.go.board: worked examples, one per rule, and properties (hypothesis).

Positions are drawn as diagrams, top row first as GNU Go's `showboard` prints them ("X" Black,
"O" White), and reached by playing their stones alternately from an empty board (a pass where
one colour has no stone left): a position whose every group has a liberty is reached without
a capture on the way.
"""

from __future__ import annotations

import pytest
from builders import go_position as position
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from projections.go import (
    Colour,
    GoBoard,
    MoveResult,
    Point,
    format_point,
    handicap_points,
    other,
    parse_point,
)

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def v(vertex: str, size: int) -> Point:
    p = parse_point(vertex, size)
    assert p is not None
    return p


def pts(vertices: str, size: int) -> tuple[Point, ...]:
    return tuple(sorted(v(x, size) for x in vertices.split()))


# --- coordinates ----------------------------------------------------------------------------


def test_parse_and_format_gtp_vertices() -> None:
    assert parse_point("D4", 19) == (3, 3)
    assert parse_point("d4", 19) == (3, 3)
    assert parse_point("J9", 9) == (8, 8)  # GTP skips the letter I
    assert parse_point("A1", 9) == (0, 0)
    for vertex in ("pass", "PASS", "Pass"):
        assert parse_point(vertex, 9) is None
    assert format_point(None, 9) == "pass"
    for size in (5, 9, 19):
        for r in range(size):
            for c in range(size):
                assert parse_point(format_point((r, c), size), size) == (r, c)


@pytest.mark.parametrize(
    ("vertex", "problem"),
    [
        ("K10", "off board"),
        ("I5", "invalid"),
        ("D0", "invalid"),
        ("", "invalid"),
        ("4D", "invalid"),
    ],
)
def test_bad_vertex_is_a_value_error_naming_the_problem(vertex: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_point(vertex, 9)


def test_format_off_board_point_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="off"):
        format_point((9, 0), 9)


# --- captures (LGC Game protocol "Making a move": the removal of the opponent's stones) ------


def test_capture_of_a_single_stone() -> None:
    board = position(
        """
        .....
        ..X..
        .XO..
        ..X..
        .....
        """
    )
    before = dict(board.prisoners)
    result = board.play("black", v("D3", 5))
    assert result == MoveResult(True, None, pts("C3", 5), ())
    assert board.colour_at(v("C3", 5)) is None
    assert board.prisoners["black"] == before["black"] + 1
    assert board.prisoners["white"] == before["white"]


def test_capture_of_a_group() -> None:
    board = position(
        """
        .....
        ..XX.
        .XOO.
        ..XX.
        .....
        """
    )
    before = board.prisoners["black"]
    result = board.play("black", v("E3", 5))
    assert result.legal and result.captured == pts("C3 D3", 5)
    assert board.prisoners["black"] == before + 2
    assert board.colour_at(v("C3", 5)) is None and board.colour_at(v("D3", 5)) is None


def test_capture_of_several_groups_at_once() -> None:
    board = position(
        """
        .....
        .....
        X....
        OX...
        .OX..
        """
    )
    before = board.prisoners["black"]
    result = board.play("black", v("A1", 5))
    assert result.legal and result.captured == pts("A2 B1", 5)
    assert board.prisoners["black"] == before + 2
    assert board.liberties(v("A1", 5)) == 2


def test_a_capture_comes_before_the_own_liberties_are_looked_at() -> None:
    """Filling one's own last liberty is not suicide when it captures (LGC Game protocol
    "Making a move": "Once the stone is played any removal of the opponent's stones is carried
    out")."""
    board = position(
        """
        .....
        .....
        OX...
        XO...
        .XO..
        """,
        to_move="white",
    )
    result = board.play("white", v("A1", 5))
    assert result.legal and result.captured == pts("A2 B1", 5)


# --- ko and superko (LGC Irregularities "Illegal move") --------------------------------------

KO = """
.....
.XO..
XO.O.
.XO..
.....
"""


def test_ko_immediate_recapture_is_flagged_ko_but_recorded() -> None:
    board = position(KO)
    assert board.play("black", v("C3", 5)).captured == pts("B3", 5)
    assert board.check("white", v("B3", 5)) == MoveResult(False, "ko", pts("C3", 5), ())
    before = board.prisoners["white"]
    result = board.play("white", v("B3", 5))
    # the move stands (noticed or not, the fold decides): captures made, turn passed
    assert result == MoveResult(False, "ko", pts("C3", 5), ())
    assert board.colour_at(v("C3", 5)) is None and board.colour_at(v("B3", 5)) == "white"
    assert board.prisoners["white"] == before + 1
    assert board.to_move == "black"


def test_ko_recapture_is_legal_after_a_ko_threat_exchange() -> None:
    board = position(KO)
    board.play("black", v("C3", 5))
    assert board.play("white", v("E5", 5)).legal  # the threat
    assert board.play("black", v("E4", 5)).legal  # the answer
    result = board.play("white", v("B3", 5))
    assert result == MoveResult(True, None, pts("C3", 5), ())


# Three kos (A at B3/C3, K at B7/C7, L at F3/G3); A and L hold a White stone, K a Black one.
TRIPLE_KO = """
.........
.XO......
X.XO.....
.XO......
.........
.XO..XO..
XO.OXO.O.
.XO..XO..
.........
"""


def test_triple_ko_cycle_is_flagged_superko() -> None:
    """B takes A, W takes K, B takes L, W takes A, B takes K: each legal (no immediate
    recapture). W taking L would recreate the position before the cycle, Black to play:
    "recreate a previous board position with the same person to play" — superko, not ko."""
    board = position(TRIPLE_KO)
    cycle: list[tuple[Colour, str, str]] = [
        ("black", "C3", "B3"),
        ("white", "B7", "C7"),
        ("black", "G3", "F3"),
        ("white", "B3", "C3"),
        ("black", "C7", "B7"),
    ]
    for colour, vertex, taken in cycle:
        result = board.play(colour, v(vertex, 9))
        assert result == MoveResult(True, None, pts(taken, 9), ()), vertex
    result = board.play("white", v("F3", 9))
    assert result == MoveResult(False, "superko", pts("G3", 9), ())


def test_ko_retaken_after_two_passes_is_superko() -> None:
    """Situational superko: after W takes the ko, B passes and W passes, the position with
    Black to move is the one just after W's capture; B's retake would recreate the position
    after B's earlier move, White to move."""
    board = position(KO)
    board.play("black", v("C3", 5))
    board.play("white", v("E5", 5))
    board.play("black", v("E1", 5))
    board.play("white", v("B3", 5))  # W takes back after an exchange: legal
    board.play("black", None)
    board.play("white", None)
    assert board.check("black", v("C3", 5)).reason == "superko"


def test_pass_positions_differ_by_the_player_to_move() -> None:
    board = GoBoard(5)
    key = board.position_key()
    board.play("black", None)
    assert board.position_key() != key  # same stones, White to play
    board.play("white", None)
    assert board.position_key() == key


# --- suicide (a stated reading: forbidden, as under Japanese-style rules) ---------------------


def test_suicide_is_flagged_and_the_group_becomes_the_opponents_prisoners() -> None:
    board = position(
        """
        .....
        .....
        O....
        XO...
        .O...
        """
    )
    before = dict(board.prisoners)
    assert board.check("black", v("A1", 5)).reason == "suicide"
    result = board.play("black", v("A1", 5))
    assert result == MoveResult(False, "suicide", (), pts("A1 A2", 5))
    assert board.colour_at(v("A1", 5)) is None and board.colour_at(v("A2", 5)) is None
    assert board.prisoners == {"black": before["black"], "white": before["white"] + 2}
    assert board.to_move == "white"


# --- pass (LGC Timing "Ending the game" 1) ---------------------------------------------------


def test_pass_hands_a_prisoner_to_the_opponent() -> None:
    board = GoBoard(9)
    assert board.play("black", None) == MoveResult(True, None, (), ())
    assert board.prisoners == {"black": 0, "white": 1}
    assert board.passes == {"black": 1, "white": 0}
    assert board.to_move == "white" and board.moves_played() == 1
    board.play("white", None)
    assert board.prisoners == {"black": 1, "white": 1}


# --- handicap -------------------------------------------------------------------------------


def test_handicap_stones_placed_and_white_moves_first() -> None:
    board = GoBoard(19, handicap=9)
    assert set(board.stones()) == set(pts("D4 K4 Q4 D10 K10 Q10 D16 K16 Q16", 19))
    assert set(board.stones().values()) == {"black"}
    assert board.to_move == "white" and board.moves_played() == 0
    with pytest.raises(ValueError, match="white is to move"):
        board.play("black", v("C3", 19))
    assert board.play("white", v("C3", 19)).legal
    assert board.moves_played() == 1


def test_handicap_two_on_nine_by_nine_and_thirteen() -> None:
    assert handicap_points(9, 2) == [v("C3", 9), v("G7", 9)]
    assert handicap_points(13, 5) == list(pts("D4 K4 G7 D10 K10", 13))


def test_handicap_zero_and_one_place_nothing_black_first() -> None:
    for h in (0, 1):
        board = GoBoard(9, handicap=h)
        assert board.stones() == {} and board.to_move == "black"


def test_handicap_on_other_sizes_needs_explicit_points() -> None:
    with pytest.raises(ValueError, match="7x7"):
        GoBoard(7, handicap=2)
    with pytest.raises(ValueError, match="2 to 9"):
        GoBoard(19, handicap=10)
    board = GoBoard(7, handicap=2, handicap_points=[(2, 2), (4, 4)])
    assert set(board.stones()) == {(2, 2), (4, 4)} and board.to_move == "white"
    board = GoBoard(19, handicap_points=[(3, 3), (15, 15), (3, 15)])  # SGF AB without HA
    assert board.handicap == 3 and board.to_move == "white"
    with pytest.raises(ValueError, match="handicap 4 but 3"):
        GoBoard(19, handicap=4, handicap_points=[(3, 3), (15, 15), (3, 15)])


# --- refusals -------------------------------------------------------------------------------


def test_occupied_point_wrong_colour_and_off_board_are_value_errors() -> None:
    board = GoBoard(9)
    board.play("black", v("E5", 9))
    with pytest.raises(ValueError, match="occupied"):
        board.play("white", v("E5", 9))
    assert board.check("white", v("E5", 9)) == MoveResult(False, "occupied", (), ())
    with pytest.raises(ValueError, match="white is to move"):
        board.play("black", v("D4", 9))
    with pytest.raises(ValueError, match="off"):
        board.play("white", (9, 0))
    assert board.to_move == "white" and board.moves_played() == 1  # nothing recorded


# --- properties -----------------------------------------------------------------------------


def _groups_have_liberties(board: GoBoard) -> bool:
    return all(board.liberties(p) >= 1 for p in board.stones())


def random_games() -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(0, 10_000), min_size=20, max_size=160)


def _play_random(choices: list[int], size: int = 9, legal_only: bool = True) -> GoBoard:
    """Play a game from `choices`: each picks among the legal moves (or, not `legal_only`,
    among all empty points, illegal moves standing), a pass when it falls past the end."""
    board = GoBoard(size)
    stones_played = 0
    for choice in choices:
        colour = board.to_move
        empty = [
            (r, c) for r in range(size) for c in range(size) if board.colour_at((r, c)) is None
        ]
        moves = [p for p in empty if board.check(colour, p).legal] if legal_only else empty
        k = choice % (len(moves) + 2)  # two in len+2: a pass
        point = moves[k] if k < len(moves) else None
        board.play(colour, point)
        stones_played += point is not None
        assert not legal_only or _groups_have_liberties(board)
        # conservation: every stone played is on the board or a prisoner; prisoners also hold
        # the pass stones
        prisoners = board.prisoners["black"] + board.prisoners["white"]
        passes = board.passes["black"] + board.passes["white"]
        assert len(board.stones()) + prisoners - passes == stones_played
    return board


@SETTINGS
@given(random_games())
def test_random_legal_play_never_leaves_a_group_without_liberties(choices: list[int]) -> None:
    _play_random(choices)


@SETTINGS
@given(random_games())
def test_stones_and_prisoners_are_conserved_even_through_illegal_moves(
    choices: list[int],
) -> None:
    board = _play_random(choices, size=5, legal_only=False)
    assert board.moves_played() == len(choices)


@SETTINGS
@given(random_games(), st.lists(st.integers(0, 10_000), min_size=1, max_size=30))
def test_clone_is_independent_of_the_original(choices: list[int], more: list[int]) -> None:
    board = _play_random(choices)
    snapshot = (
        board.stones(),
        dict(board.prisoners),
        dict(board.passes),
        board.to_move,
        board.moves_played(),
        board.position_key(),
    )
    copy = board.clone()
    for choice in more:  # play on the copy: the original does not move
        empty = [p for p in [(r, c) for r in range(9) for c in range(9)] if not copy.colour_at(p)]
        point = empty[choice % len(empty)] if empty and choice % 7 else None
        copy.play(copy.to_move, point)
    assert snapshot == (
        board.stones(),
        board.prisoners,
        board.passes,
        board.to_move,
        board.moves_played(),
        board.position_key(),
    )
    # and the original's future is its own: the same moves give the same results on a fresh
    # clone, whatever the first copy did
    again = board.clone()
    replay = board.clone()
    for choice in more[:5]:
        empty = [p for p in [(r, c) for r in range(9) for c in range(9)] if not again.colour_at(p)]
        point = empty[choice % len(empty)] if empty else None
        assert again.play(again.to_move, point) == replay.play(replay.to_move, point)


def test_other_colour() -> None:
    assert other("black") == "white" and other("white") == "black"
