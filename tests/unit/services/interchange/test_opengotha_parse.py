"""The OpenGotha file reader (services/interchange/opengotha/parse.py): bounded, no entity
expanded, a malformed file refused naming the element and the rule, players matched by key
as OpenGotha's importer matches them (`Player.computeKeyString`, then the key without
accents), ranks read as `Player.convertKDPToInt` reads them."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.interchange.opengotha import parse
from services.interchange.opengotha.parse import OpenGothaError, rank_value, read_opengotha
from services.interchange.opengotha.plan import to_plan

PARAMS = (
    '<TournamentParameterSet><GeneralParameterSet name="T" numberOfRounds="2"/>'
    '<HandicapParameterSet hdCeiling="9" hdCorrection="1"/></TournamentParameterSet>'
)


def _file(players: str, games: str = "", byes: str = "") -> bytes:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?><Tournament dataVersion="201">'
        f"<Players>{players}</Players><Games>{games}</Games>"
        f"{f'<ByePlayers>{byes}</ByePlayers>' if byes else ''}{PARAMS}</Tournament>"
    ).encode()


TWO = (
    '<Player name="Çelik" firstName="Ayşe" rank="2K"/>'
    '<Player name="de la Cruz" firstName="Iñigo" rank="1d"/>'
)


def _refused(raw: bytes) -> OpenGothaError:
    with pytest.raises(OpenGothaError) as caught:
        read_opengotha(raw)
    return caught.value


def test_players_are_matched_by_key_and_by_key_without_accents() -> None:
    games = (
        '<Game roundNumber="1" tableNumber="1" whitePlayer="ÇELIKAYŞE" '
        'blackPlayer="delacruziñigo" result="RESULT_WHITEWINS"/>'
        '<Game roundNumber="2" tableNumber="1" whitePlayer="DELACRUZINIGO" '
        'blackPlayer="CELIKAYSE" result="RESULT_BLACKWINS"/>'
    )
    og = read_opengotha(_file(TWO, games))
    assert [p.key for p in og.players] == ["ÇELIKAYŞE", "DELACRUZIÑIGO"]
    for g in og.games:  # the exact key, lower case, and without accents all find them
        assert {og.player(g.white, g.where).index, og.player(g.black, g.where).index} == {1, 2}


def test_an_unknown_key_is_refused_naming_the_game() -> None:
    games = '<Game roundNumber="1" tableNumber="3" whitePlayer="ÇELIKAYŞE" blackPlayer="NOBODY"/>'
    exc = _refused(_file(TWO, games))
    assert (exc.where, exc.rule) == ("Game 1 (round 1, table 3)", "opengotha.unknown_player")
    assert "'NOBODY'" in exc.message


def test_two_players_with_one_key_are_refused_as_opengotha_refuses_a_homonym() -> None:
    players = TWO + '<Player name="CELIK" firstName="ayse" rank="3K"/>'
    exc = _refused(_file(players))
    assert exc.rule == "opengotha.homonym" and exc.where == "Player 3 (CELIK ayse)"


def test_a_player_twice_in_a_round_is_refused() -> None:
    players = TWO + '<Player name="Third" firstName="Player" rank="3K"/>'
    games = (
        '<Game roundNumber="1" tableNumber="1" whitePlayer="ÇELIKAYŞE" blackPlayer="THIRDPLAYER"/>'
    )
    byes = '<ByePlayer roundNumber="1" player="THIRDPLAYER"/>'
    exc = _refused(_file(players, games, byes))
    assert exc.rule == "opengotha.twice_in_round"
    assert exc.where == "ByePlayer 1 (round 1)" and "Game 1" in exc.message


@pytest.mark.parametrize(
    ("attr", "rule", "where"),
    [
        ('result="RESULT_MAYBE"', "opengotha.result", "Game 1 (round 1, table 1) result"),
        ('handicap="12"', "opengotha.handicap", "Game 1 (round 1, table 1) handicap"),
        ('roundNumber="21"', "opengotha.round", "Game 1 roundNumber"),
        ('tableNumber="x"', "opengotha.number", "Game 1 tableNumber"),
    ],
)
def test_a_bad_game_attribute_names_the_element_and_the_rule(
    attr: str, rule: str, where: str
) -> None:
    name = attr.split("=")[0]
    base = {
        "roundNumber": '"1"',
        "tableNumber": '"1"',
        "result": '"RESULT_WHITEWINS"',
        "handicap": '"0"',
    }
    base[name] = attr.split("=", 1)[1]
    attrs = " ".join(f"{k}={v}" for k, v in base.items())
    games = f'<Game {attrs} whitePlayer="ÇELIKAYŞE" blackPlayer="DELACRUZIÑIGO"/>'
    exc = _refused(_file(TWO, games))
    assert (exc.rule, exc.where) == (rule, where)


def test_entities_are_refused_not_expanded() -> None:
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE Tournament [<!ENTITY a "aaaaaaaaaa">'
        b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><Tournament>&b;</Tournament>'
    )
    exc = _refused(bomb)
    assert exc.rule == "opengotha.entities" and exc.where == "file"


def test_the_size_and_the_element_count_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = _file(TWO)
    monkeypatch.setattr(parse, "MAX_BYTES", len(raw) - 1)
    assert _refused(raw).rule == "opengotha.too_large"
    monkeypatch.setattr(parse, "MAX_BYTES", len(raw))
    monkeypatch.setattr(parse, "MAX_ELEMENTS", 3)
    assert _refused(raw).rule == "opengotha.too_many_elements"


@pytest.mark.parametrize(
    ("raw", "rule"),
    [
        (b"", "opengotha.empty"),
        (b"<Tournament><Players>", "opengotha.xml"),
        (b"<Tournoi/>", "opengotha.root"),
        (b"<Tournament><Players/></Tournament>", "opengotha.no_parameters"),
        (b'<Tournament><Players><Player name="A" firstName=""/></Players></Tournament>',
         "opengotha.player_name"),
    ],
)  # fmt: skip
def test_a_file_that_is_not_an_opengotha_tournament_is_refused(raw: bytes, rule: str) -> None:
    assert _refused(raw).rule == rule


@pytest.mark.parametrize(
    ("text", "value"),
    [("30K", -30), ("13k", -13), (" 3D", 2), ("1d", 0), ("2P", 6), ("5p", 7), ("9P", 8),
     ("12", -12), ("35K", -30), ("12D", 8)],
)  # fmt: skip
def test_ranks_are_read_as_opengotha_reads_them(text: str, value: int) -> None:
    assert rank_value(text, "Player 1 rank") == value


def test_a_rank_that_is_no_rank_is_refused() -> None:
    exc = _refused(_file('<Player name="A" firstName="B" rank="strong"/>'))
    assert (exc.rule, exc.where) == ("opengotha.rank", "Player 1 (A B) rank")


SAMPLE = Path(__file__).resolve().parents[3] / "data" / "opengotha" / "herbst-mcmahon-2026.xml"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_damaged_file_is_refused_or_read_whole_never_crashes(data: st.DataObject) -> None:
    """A slice cut out of the sample, or a byte changed: the reader and the plan either give
    the whole tournament or refuse it with a rule (`OpenGothaError`, or a field out of range
    as `ValueError`); nothing else escapes."""
    raw = bytearray(SAMPLE.read_bytes())
    start = data.draw(st.integers(0, len(raw) - 1))
    if data.draw(st.booleans()):
        end = data.draw(st.integers(start, min(len(raw), start + 200)))
        del raw[start:end]
    else:
        raw[start] = data.draw(st.integers(0, 255))
    try:
        og = read_opengotha(bytes(raw))
        to_plan(og, name="x")
    except ValueError:  # OpenGothaError is one
        pass


def test_a_value_out_of_arbiters_range_is_refused_naming_the_element() -> None:
    raw = SAMPLE.read_bytes().replace(b'beginDate="2026-11-14"', b'beginDate="0001-01-01"')
    with pytest.raises(OpenGothaError) as caught:
        to_plan(read_opengotha(raw))
    assert (caught.value.rule, caught.value.where) == (
        "opengotha.out_of_range",
        "GeneralParameterSet",
    )
    assert "starts_on" in caught.value.message


def test_a_key_written_on_a_turkish_locale_is_matched() -> None:
    """Java's `toUpperCase()` on a Turkish machine writes "İ" for "i": OpenGotha there saves
    Iñigo's key as DELACRUZİÑİGO; it is matched once the accents are off."""
    games = (
        '<Game roundNumber="1" tableNumber="1" whitePlayer="DELACRUZİÑİGO" '
        'blackPlayer="ÇELİKAYŞE" result="RESULT_WHITEWINS"/>'
    )
    og = read_opengotha(_file(TWO, games))
    (g,) = og.games
    assert (og.player(g.white, g.where).index, og.player(g.black, g.where).index) == (2, 1)
