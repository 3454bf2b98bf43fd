"""The notations organisers type for a board's result (services/commands/notation.py): each is
read into the stored result and a termination the decider accepts; anything else is refused
by name, listing what is accepted."""

from __future__ import annotations

import pytest

from projections.tournament.rules.consistency import mismatch
from projections.tournament.state import ResultEntry
from services.commands.corrections import kept_termination
from services.commands.notation import (
    ENTERED,
    NotationError,
    read_result,
    read_round,
    termination_of,
)

WHITE_WINS = ["1-0", "1:0", " 1 - 0 "]
BLACK_WINS = ["0-1", "0:1"]
DRAWS = ["½", "½-½", "½:½", "1/2", "1/2-1/2", "=", "0.5", "0.5-0.5", "=-=", "DRAW", " ½ "]


@pytest.mark.parametrize("token", WHITE_WINS)
def test_a_white_win_without_how_is_entered_by_the_arbiter(token: str) -> None:
    e = read_result(token)
    assert (e.result, e.termination, e.forfeit, e.detail) == ("1-0", "other", False, ENTERED)
    assert e.text == "1-0"


@pytest.mark.parametrize("token", BLACK_WINS)
def test_a_black_win(token: str) -> None:
    assert (read_result(token).result, read_result(token).termination) == ("0-1", "other")


@pytest.mark.parametrize("token", DRAWS)
def test_every_draw_notation_is_a_draw_by_agreement(token: str) -> None:
    e = read_result(token)
    assert (e.result, e.termination, e.text) == ("1/2-1/2", "agreement", "½-½")


@pytest.mark.parametrize(
    ("token", "result", "text"),
    [
        ("+-", "1-0", "+-"),
        ("+:-", "1-0", "+-"),
        ("1F-0F", "1-0", "+-"),
        ("-+", "0-1", "-+"),
        ("-:+", "0-1", "-+"),
        ("0f-1f", "0-1", "-+"),
        ("--", "0-0", "--"),
        ("-:-", "0-0", "--"),
    ],
)
def test_forfeits(token: str, result: str, text: str) -> None:
    e = read_result(token)
    assert (e.result, e.termination, e.forfeit, e.text) == (result, "forfeit", True, text)


def test_both_win_is_typed_as_opengotha_writes_it() -> None:
    # Go: OpenGotha's RESULT_BOTHWIN "1-1", RESULT_BOTHWIN_BYDEF "1-1!" (typed "++" here).
    assert (read_result("1-1").result, read_result("1:1").termination) == ("1-1", "other")
    typed = read_result("++")
    assert (typed.result, typed.termination, typed.forfeit, typed.text) == (
        "1-1",
        "forfeit",
        True,
        "++",
    )


def test_a_double_loss_played_is_no_forfeit() -> None:
    e = read_result("0-0")
    assert (e.result, e.termination, e.forfeit, e.text) == ("0-0", "other", False, "0-0")


@pytest.mark.parametrize(
    ("how", "termination"),
    [
        ("resignation", "resignation"),
        ("Resigned", "resignation"),
        ("time", "time_forfeit"),
        ("flag", "time_forfeit"),
        ("time-forfeit", "time_forfeit"),
        ("mate", "checkmate"),
        ("repetition", "threefold_repetition"),
        ("fifty", "fifty_move_rule"),
        ("50 moves", "fifty_move_rule"),
        ("seventy-five", "seventy_five_move_rule"),
        ("insufficient material", "insufficient_material"),
        ("no-show", "forfeit"),
        ("arbiter", "arbiter_decision"),
    ],
)
def test_how_in_words(how: str, termination: str) -> None:
    assert termination_of(how) == termination


def test_how_names_the_ending_of_a_game_played() -> None:
    e = read_result("1-0", "time")
    assert (e.result, e.termination, e.detail) == ("1-0", "time_forfeit", "")
    assert read_result("½", "stalemate").termination == "stalemate"
    assert read_result("1-0", "forfeit").forfeit  # a forfeit said in words


def test_a_bad_token_is_refused_by_name_listing_the_notations() -> None:
    with pytest.raises(NotationError) as info:
        read_result("1-O")
    assert info.value.rule == "result.bad_notation"
    assert (
        "'1-O'" in info.value.message and "+-" in info.value.message and "½" in info.value.message
    )


def test_an_unknown_how_is_refused_listing_the_endings() -> None:
    with pytest.raises(NotationError) as info:
        read_result("1-0", "gave up")
    assert (info.value.rule, info.value.field) == ("result.unknown_how", "how")
    assert "'gave up'" in info.value.message and "resignation" in info.value.message


def test_a_forfeit_token_with_another_ending_is_refused() -> None:
    with pytest.raises(NotationError) as info:
        read_result("+-", "resignation")
    assert info.value.rule == "result.how_conflict"
    assert read_result("+-", "forfeit").termination == "forfeit"


def test_a_round_on_one_line() -> None:
    assert read_round("1-0 ½ 0-1 +- -+ 0-0") == ["1-0", "½", "0-1", "+-", "-+", "0-0"]
    assert read_round("1-0, =;  1/2") == ["1-0", "=", "1/2"]


@pytest.mark.parametrize("token", [*WHITE_WINS, *BLACK_WINS, *DRAWS, "+-", "-+", "--", "0-0"])
def test_every_default_agrees_with_its_result(token: str) -> None:
    e = read_result(token)
    assert mismatch(e.result, e.termination) is None


def _entry(result: str, termination: str) -> ResultEntry:
    import uuid

    return ResultEntry(uuid.uuid4(), result, termination)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("old", "new", "kept"),
    [
        (("1-0", "resignation"), "0-1", "resignation"),  # a swapped score sheet
        (("1-0", "resignation"), "1/2-1/2", "agreement"),  # a draw by resignation: no
        (("1/2-1/2", "agreement"), "1-0", "other"),  # a win by agreement: no
        (("1/2-1/2", "stalemate"), "0-1", "other"),
        (("1-0", "other"), "1/2-1/2", "agreement"),  # entered without its ending
        (("1-0", "time_forfeit"), "1/2-1/2", "time_forfeit"),  # FIDE Laws 6.9
        (("1-0", "checkmate"), "0-0", "other"),
    ],
)
def test_a_correction_keeps_the_termination_unless_it_contradicts(
    old: tuple[str, str], new: str, kept: str
) -> None:
    assert kept_termination(new, _entry(*old)) == kept
