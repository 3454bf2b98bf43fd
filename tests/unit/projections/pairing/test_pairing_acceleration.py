"""FIDE C.04.5.1 (Baku acceleration) as projections/pairing/acceleration.py reads it: GA from
the first round's field, kept by its last player for late entries, and the values written as
TRF26 record 250's ranges."""

from __future__ import annotations

from events_schema import events as ev
from projections.pairing.acceleration import as_values, baku_bonus, baku_groups, baku_values

ORDER = [f"p{i:03d}" for i in range(1, 162)]


def test_161_players_give_82_in_ga():
    # C.04.5.1's note: 161 players, 2 * ceil(161 / 4) = 82, the pairing number of the last GA player
    groups = baku_groups(ORDER, {1: frozenset(ORDER)})
    assert len(groups[1]) == 82 and groups[1][-1] == "p082"


def test_nine_rounds_five_accelerated_three_at_one_point():
    bonus = baku_bonus(ORDER[:8], {r: frozenset(ORDER[:8]) for r in range(1, 10)}, 9)
    assert sorted(bonus) == [1, 2, 3, 4, 5]
    assert {r: set(bonus[r].values()) for r in bonus} == {1: {2}, 2: {2}, 3: {2}, 4: {1}, 5: {1}}


def test_a_late_entry_ranked_above_the_last_ga_player_joins_ga_which_may_be_odd():
    order = ["a", "b", "late", "c", "d", "e", "f", "g", "h"]
    first = frozenset("abcdefgh")
    groups = baku_groups(order, {1: first, 2: first | {"late"}})
    assert groups == {1: ["a", "b", "c", "d"], 2: ["a", "b", "late", "c", "d"]}


def test_a_late_entry_ranked_below_the_last_ga_player_stays_in_gb():
    order = ["a", "b", "c", "d", "late", "e", "f", "g", "h"]
    first = frozenset("abcdefgh")
    assert baku_groups(order, {1: first, 2: first | {"late"}})[2] == ["a", "b", "c", "d"]


def test_values_join_consecutive_rounds_with_the_same_points():
    bonus = {1: {"a": 2, "x": 2}, 2: {"a": 2, "x": 2}, 3: {"a": 1}, 4: {"x": 1}}
    assert as_values(bonus, ["a", "x"]) == [
        ev.VirtualPoints(player_id="a", first_round=1, last_round=2, points=2),
        ev.VirtualPoints(player_id="a", first_round=3, last_round=3, points=1),
        ev.VirtualPoints(player_id="x", first_round=1, last_round=2, points=2),
        ev.VirtualPoints(player_id="x", first_round=4, last_round=4, points=1),
    ]


def test_baku_values_of_a_whole_field_are_two_ranges_per_ga_player():
    values = baku_values(ORDER[:8], 5)
    assert [(v.player_id, v.first_round, v.last_round, v.points) for v in values[:2]] == [
        ("p001", 1, 2, 2),
        ("p001", 3, 3, 1),
    ]
    assert len(values) == 8
