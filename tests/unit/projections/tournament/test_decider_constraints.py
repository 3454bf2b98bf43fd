"""The pairing constraints' rules (projections/tournament/rules/constraints.py), given/when/then:
prohibited pairings (TRF26 record 260) and accelerated rounds (FIDE C.04.5.1, TRF26 record 250)
refused for unknown players, duplicates and rounds out of range, accepted otherwise."""

from __future__ import annotations

from builders import created, player
from given_when_then import given, then_accepted, then_rejected

from events_schema import events as ev

SWISS = [created(fmt="swiss", rounds=5), player("a", 2400), player("b", 2300), player("c", 2200)]


def vp(pid: str, first: int, last: int, points: int = 2) -> ev.VirtualPoints:
    return ev.VirtualPoints(player_id=pid, first_round=first, last_round=last, points=points)


# --- PairingsProhibited ----------------------------------------------------------------------


def test_a_prohibition_of_registered_players_is_accepted():
    then_accepted(SWISS, ev.PairingsProhibited(players=["a", "b"], reason="brothers"))


def test_a_prohibition_naming_an_unknown_player_is_refused():
    then_rejected(
        SWISS, ev.PairingsProhibited(players=["a", "zz"]), "player.unknown", "payload.players[1]"
    )


def test_a_player_named_twice_is_refused():
    then_rejected(
        SWISS,
        ev.PairingsProhibited(players=["a", "b", "a"]),
        "prohibition.duplicate_player",
        "payload.players[2]",
    )


def test_rounds_reversed_or_beyond_the_last_are_refused():
    then_rejected(
        SWISS,
        ev.PairingsProhibited(players=["a", "b"], first_round=3, last_round=2),
        "prohibition.rounds_reversed",
        "payload.last_round",
    )
    then_rejected(
        SWISS,
        ev.PairingsProhibited(players=["a", "b"], first_round=2, last_round=6),
        "prohibition.round_beyond",
        "payload.last_round",
    )
    then_rejected(
        SWISS,
        ev.PairingsProhibited(players=["a", "b"], first_round=6),
        "prohibition.round_beyond",
        "payload.first_round",
    )


def test_the_same_prohibition_twice_is_refused_a_different_one_adds_up():
    first = ev.PairingsProhibited(players=["a", "b"])
    then_rejected(
        [*SWISS, first],
        ev.PairingsProhibited(players=["b", "a"]),
        "prohibition.unchanged",
        "payload.players",
    )
    then_accepted([*SWISS, first], ev.PairingsProhibited(players=["a", "c"]))
    state = given(*SWISS, first, ev.PairingsProhibited(players=["a", "c"]))
    assert [p.players for p in state.prohibitions.values()] == [["a", "b"], ["a", "c"]]


def test_a_tournament_not_paired_by_the_dutch_system_refuses_prohibitions():
    rr = [created(fmt="round_robin", rounds=3), player("a"), player("b")]
    then_rejected(
        rr, ev.PairingsProhibited(players=["a", "b"]), "prohibition.not_read_by_system", "type"
    )


# --- AccelerationSet -------------------------------------------------------------------------


def test_explicit_virtual_points_are_accepted_and_the_latest_is_in_force():
    acc = ev.AccelerationSet(values=[vp("a", 1, 2), vp("a", 3, 3, 1), vp("b", 1, 1)])
    then_accepted(SWISS, acc)
    state = given(*SWISS, acc)
    assert list(state.accelerations.values()) == [acc]


def test_virtual_points_for_an_unknown_player_are_refused():
    then_rejected(
        SWISS,
        ev.AccelerationSet(values=[vp("a", 1, 2), vp("x", 1, 2)]),
        "player.unknown",
        "payload.values[1].player_id",
    )


def test_a_player_given_points_twice_for_a_round_is_refused():
    then_rejected(
        SWISS,
        ev.AccelerationSet(values=[vp("a", 1, 2), vp("a", 2, 3, 1)]),
        "acceleration.duplicate",
        "payload.values[1]",
    )


def test_acceleration_rounds_out_of_range_are_refused():
    then_rejected(
        SWISS,
        ev.AccelerationSet(values=[vp("a", 2, 1)]),
        "acceleration.rounds_reversed",
        "payload.values[0].last_round",
    )
    then_rejected(
        SWISS,
        ev.AccelerationSet(values=[vp("a", 4, 6)]),
        "acceleration.round_beyond",
        "payload.values[0].last_round",
    )


def test_baku_needs_standard_scoring():
    three = [created(fmt="swiss", rounds=5, scoring=ev.Scoring(win=6, draw=2)), player("a")]
    then_rejected(
        three,
        ev.AccelerationSet(method="baku", values=[vp("a", 1, 2)]),
        "acceleration.baku_scoring",
        "payload.method",
    )


def test_the_acceleration_in_force_again_is_refused_and_none_needs_one_in_force():
    acc = ev.AccelerationSet(values=[vp("a", 1, 2)])
    then_rejected([*SWISS, acc], acc, "acceleration.unchanged", "payload.values")
    then_rejected(SWISS, ev.AccelerationSet(), "acceleration.unchanged", "payload.values")
    then_accepted([*SWISS, acc], ev.AccelerationSet())


def test_acceleration_refused_outside_the_dutch_system():
    rr = [created(fmt="round_robin", rounds=3), player("a"), player("b")]
    then_rejected(
        rr,
        ev.AccelerationSet(values=[vp("a", 1, 1)]),
        "acceleration.not_read_by_system",
        "type",
    )
