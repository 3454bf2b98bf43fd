"""projections.go.scoring: LGC Scoring and Game protocol "Dame, Teire", worked examples.

Positions are drawn top row first ("X" Black, "O" White) and reached by playing their stones
alternately (a pass where one colour has none left), so the passes of the set-up are prisoners
like any other (LGC Timing "Ending the game" 1) and each example states them.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from builders import go_position as position

from projections.go import Colour, Point, count, komi_for, parse_point, unfilled_dame


def pts(vertices: str, size: int) -> list[Point]:
    out = [parse_point(x, size) for x in vertices.split()]
    return sorted(p for p in out if p is not None)


WALLS = """
..XO.
..XO.
..XO.
..XO.
..XO.
"""


def test_territory_is_empty_points_surrounded_by_one_colour() -> None:
    """LGC Scoring: "Territory is defined as empty points surrounded by stones of the same
    colour". Five stones each, no pass: no prisoners."""
    board = position(WALLS)
    assert board.prisoners == {"black": 0, "white": 0}
    result = count(board, [], Decimal("0.5"))
    assert (result.black_area, result.white_area) == (10, 5)
    assert (result.black_territory, result.white_territory) == (10, 5)
    assert result.dame == ()
    assert result.margin == Decimal("4.5") and result.winner == "black"


def test_prisoners_are_placed_in_the_opponents_territory() -> None:
    """LGC Scoring: "Prisoners are placed inside the opponent's territory"; prisoners are the
    stones captured and the pass stones received (LGC Timing "Ending the game" 1)."""
    board = position(
        """
        ..XO.
        X.XO.
        OXXO.
        ..XO.
        ..XO.
        """
    )
    # Set-up: Black 7 stones, White 6 and a pass (Black +1).
    assert board.prisoners == {"black": 1, "white": 0}
    assert board.play("black", parse_point("A2", 5)).captured == tuple(pts("A3", 5))
    ends: tuple[Colour, ...] = ("white", "black", "white")  # the passes ending it, White last
    for colour in ends:
        board.play(colour, None)
    assert board.prisoners == {"black": 4, "white": 1}  # 1 + A3 + 2 passes; 1 pass
    result = count(board, [], Decimal("0.5"))
    # Black surrounds A5 B5 B4 A3 B2 A1 B1; White surrounds column E.
    assert (result.black_area, result.white_area) == (7, 5)
    assert (result.black_prisoners, result.white_prisoners) == (4, 1)
    assert (result.black_territory, result.white_territory) == (7 - 1, 5 - 4)
    assert result.margin == Decimal("4.5") and result.winner == "black"


def test_dead_stones_are_removed_and_surplus_prisoners_are_negative_territory() -> None:
    """LGC Scoring: "If your opponent has less territory than the number of prisoners you have
    captured then the surplus is counted as negative territory for your opponent". White's
    column A is agreed dead: removed, its 5 stones become Black's prisoners, its points Black's
    territory."""
    board = position(
        """
        O.XO.
        O.XO.
        O.XO.
        O.XO.
        O.XO.
        """
    )
    board.play("black", None)
    board.play("white", None)
    # Black passed 5 times in the set-up and once at the end, White once.
    assert board.prisoners == {"black": 1, "white": 6}
    dead = pts("A1 A2 A3 A4 A5", 5)
    result = count(board, dead, Decimal("0.5"))
    assert (result.black_prisoners, result.white_prisoners) == (1 + 5, 6)
    assert (result.black_area, result.white_area) == (10, 5)
    assert result.black_territory == 10 - 6
    assert result.white_territory == 5 - 6 == -1  # negative territory
    assert result.margin == Decimal(4) - (Decimal(-1) + Decimal("0.5"))
    assert result.winner == "black"
    assert board.colour_at(dead[0]) == "white"  # count does not touch the board


def test_dead_points_must_be_stones_of_whole_groups() -> None:
    board = position(
        """
        O.XO.
        O.XO.
        O.XO.
        O.XO.
        O.XO.
        """
    )
    with pytest.raises(ValueError, match="B3 is empty"):
        count(board, pts("B3", 5), Decimal("0.5"))
    with pytest.raises(ValueError, match="whole groups"):
        count(board, pts("A1 A2", 5), Decimal("0.5"))


SEKI = """
.XXX.
XXXOO
XXOOO
XOOOO
OOOO.
"""


def test_eye_points_in_seki_count_as_territory() -> None:
    """LGC Scoring: "Accordingly eye points in seki count as territory". A whole-board seki
    (GNU Go's `final_status_list seki` names every stone): Black's eye A5 and White's eye E1
    are territory, the shared liberty E5 is dame."""
    board = position(SEKI)
    assert board.prisoners == {"black": 0, "white": 4}  # Black's 4 set-up passes
    result = count(board, [], Decimal("0.5"))
    assert (result.black_area, result.white_area) == (1, 1)
    assert result.dame == tuple(pts("E5", 5))
    assert (result.black_territory, result.white_territory) == (1 - 4, 1)


def test_seki_shared_liberty_is_not_demanded_as_dame() -> None:
    """LGC Game protocol "Dame, Teire": "including any points inside a seki that do not
    destroy the seki" — E5 cannot be filled by either side without a self-atari (the filler's
    group left with its eye only), so it is not an unfilled dame."""
    board = position(SEKI)
    assert unfilled_dame(board, []) == []
    assert board.check("black", parse_point("E5", 5)).legal  # a legal move, but a self-atari
    board.play("black", parse_point("E5", 5))
    assert board.liberties(pts("B5", 5)[0]) == 1


def test_unfilled_dame_are_named() -> None:
    """LGC Game protocol "Dame, Teire": "All Dame ... must be filled". Column C touches both
    colours: every point of it is dame, in the count and still to fill."""
    board = position(
        """
        .X.O.
        .X.O.
        .X.O.
        .X.O.
        .X.O.
        """
    )
    column_c = pts("C1 C2 C3 C4 C5", 5)
    assert unfilled_dame(board, []) == column_c
    assert list(count(board, [], Decimal("7.5")).dame) == column_c
    board.play("black", parse_point("C3", 5))
    assert unfilled_dame(board, []) == pts("C1 C2 C4 C5", 5)


def test_a_neutral_region_is_dame_even_where_a_point_touches_one_colour() -> None:
    """Columns C and D lie between Black (B) and White (E): a region touching both colours is
    neutral as a whole, so C3 (touching Black only) is dame like D3 (touching White only)."""
    board = position(
        """
        .X..O
        .X..O
        .X..O
        .X..O
        .X..O
        """
    )
    both = pts("C1 C2 C3 C4 C5 D1 D2 D3 D4 D5", 5)
    assert unfilled_dame(board, []) == both
    result = count(board, [], Decimal("7.5"))
    assert list(result.dame) == both
    assert (result.black_area, result.white_area) == (5, 0)


def test_dame_after_dead_stones_are_removed() -> None:
    """The dead are removed before dame are looked for: points next to a dead White stone in
    Black's area are Black's territory, not dame."""
    board = position(
        """
        ..XO.
        .OXO.
        ..XO.
        ..XO.
        ..XO.
        """
    )
    # with B4 taken as alive, Black's area touches White: nine neutral points
    assert unfilled_dame(board, []) == pts("A1 A2 A3 A4 A5 B1 B2 B3 B5", 5)
    dead = pts("B4", 5)
    assert unfilled_dame(board, dead) == []
    result = count(board, dead, Decimal("0.5"))
    assert result.black_area == 10 and result.dame == ()


def test_komi_7_5_even_and_0_5_with_handicap() -> None:
    """LGC Scoring: "Komi in an even game is 7.5 to White. In a handicap game it is 0.5"."""
    assert komi_for(0) == Decimal("7.5")
    assert komi_for(1) == Decimal("7.5")
    for h in range(2, 10):
        assert komi_for(h) == Decimal("0.5")
    assert komi_for(0, even_komi=Decimal("6.5")) == Decimal("6.5")
    board = position(WALLS)  # Black 10, White 5
    assert count(board, [], komi_for(2)).winner == "black"  # 10 - 5.5
    assert count(board, [], komi_for(0)).winner == "white"  # 10 - 12.5
    assert count(board, [], komi_for(0)).margin == Decimal("-2.5")


def test_integer_komi_can_tie() -> None:
    board = position(WALLS)
    result = count(board, [], Decimal(5))
    assert result.margin == 0 and result.winner is None
