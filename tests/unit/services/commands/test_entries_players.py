"""How the organiser names a player (services/commands/entries/players.py): a start number,
an id or a unique start of the name, accents and case ignored; ambiguity refused naming the
candidates with their start numbers. Start numbers are the TRF export's (the Dutch initial
ranking for a Swiss), so a late entry renumbers those below it. Also the ids made from names,
the time controls `arbiter create` reads and the points `arbiter bye` reads."""

from __future__ import annotations

import pytest
from builders import recorded

from events_schema import events as ev
from projections.standings import fold
from services.commands.entries import (
    entry_list,
    parse_bye_points,
    parse_time_control,
    player_id_for,
    resolve_player,
)
from services.commands.service import CommandRejected


def _p(pid: str, name: str, rating: int | None = None, title: str | None = None):
    return ev.PlayerRegistered(player_id=pid, name=name, rating=rating, title=title)


FIELD = [
    ev.TournamentCreated(name="Open", format="swiss", rounds=5),
    _p("smith-anna", "Smith, Anna", 1500),
    _p("carlsen-magnus", "Carlsen, Magnus", 2830, "GM"),
    _p("dvorak-jan", "Dvořák, Jan", 2100),
    _p("smith-bob", "Smith, Bob", 1800),
    _p("smithers-w", "Smithers, Waylon"),
]


def _state(*more: ev.Event):
    return fold(recorded("t", [*FIELD, *more]))


def _who(text: str, *more: ev.Event) -> str:
    return resolve_player(_state(*more), text).player_id


def test_start_numbers_are_the_swiss_initial_ranking_by_rating_then_name():
    rows = entry_list(_state())
    assert [(r.start_no, r.player_id) for r in rows] == [
        (1, "carlsen-magnus"),
        (2, "dvorak-jan"),
        (3, "smith-bob"),
        (4, "smith-anna"),
        (5, "smithers-w"),  # unrated last
    ]


def test_a_late_entry_takes_the_number_its_rating_gives_and_renumbers_those_below():
    rows = entry_list(_state(_p("ivanchuk-vasyl", "Ivanchuk, Vasyl", 2700)))
    assert [r.player_id for r in rows][:3] == ["carlsen-magnus", "ivanchuk-vasyl", "dvorak-jan"]
    assert _who("3", _p("ivanchuk-vasyl", "Ivanchuk, Vasyl", 2700)) == "dvorak-jan"


@pytest.mark.parametrize(
    ("text", "pid"),
    [
        ("1", "carlsen-magnus"),  # a start number
        (" 4 ", "smith-anna"),
        ("dvorak-jan", "dvorak-jan"),  # an id
        ("Smith-Bob", "smith-bob"),  # an id, case ignored
        ("carl", "carlsen-magnus"),  # a unique start of the name
        ("DVORAK", "dvorak-jan"),  # accents and case ignored
        ("dvořák, j", "dvorak-jan"),
        ("Magnus Carlsen", "carlsen-magnus"),  # "First Surname" for "Surname, First"
        ("smith, a", "smith-anna"),
        ("smithers", "smithers-w"),
    ],
)
def test_a_player_is_a_start_number_an_id_or_a_unique_name_prefix(text: str, pid: str):
    assert _who(text) == pid


def test_a_whole_name_wins_over_the_longer_names_it_starts():
    more = _p("smith", "Smith")
    assert _who("smith", more) == "smith"


def test_an_ambiguous_prefix_is_refused_listing_the_candidates_with_their_numbers():
    with pytest.raises(CommandRejected) as info:
        _who("smith")
    assert (info.value.rule, info.value.field) == ("player.ambiguous", "PLAYER")
    assert "3 Smith, Bob; 4 Smith, Anna; 5 Smithers, Waylon" in info.value.message


def test_an_unknown_player_is_refused_saying_what_a_player_is():
    for text in ("kasparov", "6", ""):
        with pytest.raises(CommandRejected) as info:
            _who(text)
        assert info.value.rule == "player.unknown"
    assert "a start number (1-5)" in info.value.message or "name a player" in info.value.message


def test_ids_are_made_from_names_unique_within_the_tournament():
    assert player_id_for("Carlsen, Magnus", []) == "carlsen-magnus"
    assert player_id_for("Dvořák, Jan", ["dvorak-jan"]) == "dvorak-jan-2"
    assert player_id_for("Dvořák, Jan", ["dvorak-jan", "dvorak-jan-2"]) == "dvorak-jan-3"
    assert player_id_for("李昌镐", []) == "player"  # nothing ASCII left: a readable fallback


@pytest.mark.parametrize(
    ("text", "base", "inc"),
    [
        ("90+30", 5400, 30),
        ("90'+30\"", 5400, 30),
        ("G/60", 3600, 0),
        ("25", 1500, 0),
        ("3+2", 180, 2),
    ],
)
def test_time_controls_are_minutes_plus_seconds_of_increment(text: str, base: int, inc: int):
    tc = parse_time_control(text)
    assert (tc["base_seconds"], tc["increment_seconds"]) == (base, inc)


def test_a_time_control_outside_the_grammar_is_refused_naming_it():
    for text in ("40/90+30", "ninety", "0"):
        with pytest.raises(CommandRejected) as info:
            parse_time_control(text)
        assert info.value.rule == "create.time_control"


def test_bye_points_in_the_notations_organisers_type():
    assert {parse_bye_points(t) for t in ("½", "0.5", "1/2", ".5")} == {"half"}
    assert parse_bye_points("0") == "zero"
    with pytest.raises(CommandRejected) as info:
        parse_bye_points("1")
    assert info.value.rule == "bye.full_point_not_offered"
    with pytest.raises(CommandRejected) as info:
        parse_bye_points("2")
    assert info.value.rule == "bye.points"
