"""Results to outcomes and points: the one function the standings and the playoffs share."""

from __future__ import annotations

import pytest

from events_schema import events as ev
from projections.outcome import STANDARD, game_points, outcome, outcomes, points
from projections.playoffs.base import PlayoffView


@pytest.mark.parametrize(
    ("result", "armageddon", "expected"),
    [
        ("1-0", False, ("win", "loss")),
        ("0-1", False, ("loss", "win")),
        ("1/2-1/2", False, ("draw", "draw")),
        ("0-0", False, ("loss", "loss")),
        # GCT 2.5.2: "In the event of a draw Black shall be declared the winner."
        ("1/2-1/2", True, ("loss", "win")),
        ("1-0", True, ("win", "loss")),
        ("0-0", True, ("loss", "loss")),
    ],
)
def test_outcomes_per_side(result, armageddon, expected):
    assert outcomes(result, armageddon=armageddon) == expected
    assert outcome(result, "white", armageddon=armageddon) == expected[0]
    assert outcome(result, "black", armageddon=armageddon) == expected[1]


def test_points_under_a_scoring_and_for_forfeits():
    football = ev.Scoring(win=6, draw=2, loss=1, forfeit_win=5, forfeit_loss=0)
    assert [points(o, football) for o in ("win", "draw", "loss")] == [6, 2, 1]
    assert [points(o, football, forfeit=True) for o in ("win", "draw", "loss")] == [5, 0, 0]
    assert game_points("1/2-1/2", STANDARD) == (1, 1)
    assert game_points("0-0", STANDARD) == (0, 0)
    assert game_points("1/2-1/2", ev.Scoring(armageddon=True)) == (0, 2)
    assert game_points("0-1", football, forfeit=True) == (0, 5)


def test_a_playoff_winner_is_the_one_player_on_top_of_a_decided_playoff():
    decided = PlayoffView("k", "decided", "r", final_order=(("a",), ("b", "c")))
    assert decided.winner == "a"
    assert PlayoffView("k", "in_progress", "r", final_order=(("a",),)).winner is None
    assert PlayoffView("k", "decided", "r", final_order=(("a", "b"),)).winner is None
    assert PlayoffView("k", "not_needed", "r").winner is None
