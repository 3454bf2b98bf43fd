"""A result must agree with how the game ended and with the game it is for
(projections/tournament/rules/consistency.py): given events / when a GameEnded or a
ResultCorrected / then accepted or refused, naming the rule and the field."""

from __future__ import annotations

from decimal import Decimal

import pytest
from builders import created, player, recorded, result, round_, small_tournament
from given_when_then import then_accepted, then_rejected

from events_schema import Event
from events_schema import events as ev

TERM = "payload.termination"


def ended(res: str, termination: str, game_id: str = "r1g1") -> ev.GameEnded:
    return ev.GameEnded(game_id=game_id, result=res, termination=termination)  # type: ignore[arg-type]


def correction(events: list[Event], res: str, termination: str) -> ev.ResultCorrected:
    """The correction of the result in force: the last event of `events`."""
    target = recorded("t1", events)[-1].envelope.event_id
    return ev.ResultCorrected(
        corrects_event_id=target,
        game_id="r1g1",
        result=res,  # type: ignore[arg-type]
        termination=termination,  # type: ignore[arg-type]
        reason="score sheet",
    )


# --- an ending with one winner is not a draw, one with none is not a win ---------------------


@pytest.mark.parametrize("termination", ["resignation", "checkmate", "engine_crash"])
def test_a_draw_cannot_end_by_an_ending_that_has_a_winner(termination: str) -> None:
    refused = then_rejected(
        small_tournament(), ended("1/2-1/2", termination), "result.termination_mismatch", TERM
    )
    assert "FIDE Laws 5.1" in refused.message or "TCEC Swiss 7.a" in refused.message


def test_a_draw_by_resignation_names_the_article() -> None:
    refused = then_rejected(
        small_tournament(), ended("1/2-1/2", "resignation"), "result.termination_mismatch", TERM
    )
    assert "FIDE Laws 5.1.2" in refused.message and "agreement" in refused.message


@pytest.mark.parametrize(
    "termination",
    [
        "agreement",
        "stalemate",
        "threefold_repetition",
        "fifty_move_rule",
        "fivefold_repetition",
        "seventy_five_move_rule",
        "insufficient_material",
        "tcec_draw_rule",
    ],
)
@pytest.mark.parametrize("res", ["1-0", "0-1", "0-0"])
def test_a_win_or_double_loss_cannot_end_by_a_drawing_ending(res: str, termination: str) -> None:
    then_rejected(small_tournament(), ended(res, termination), "result.termination_mismatch", TERM)


@pytest.mark.parametrize("termination", ["time_forfeit", "illegal_move"])
def test_a_flag_fall_or_an_illegal_move_draws_when_the_opponent_cannot_mate(
    termination: str,
) -> None:
    """FIDE Laws 6.9 and 7.5.5: "the game is drawn if the position is such that the opponent
    cannot checkmate the player's king by any possible series of legal moves"."""
    then_accepted(small_tournament(), ended("1/2-1/2", termination))
    then_accepted(small_tournament(), ended("0-1", termination))
    then_rejected(
        small_tournament(), ended("0-0", termination), "result.termination_mismatch", TERM
    )


@pytest.mark.parametrize(
    "termination", ["other", "arbiter_decision", "adjudication", "forfeit", "tablebase"]
)
@pytest.mark.parametrize("res", ["1-0", "0-1", "1/2-1/2", "0-0"])
def test_a_ruling_or_an_unknown_ending_goes_with_any_result(res: str, termination: str) -> None:
    then_accepted(small_tournament(), ended(res, termination))


def test_a_result_for_a_game_scheduled_and_never_started_is_accepted() -> None:
    then_accepted(small_tournament(), ended("1-0", "other"))


# --- the same through a correction (`arbiter correct` kept the old termination) ---------------


def test_a_correction_to_a_draw_keeping_resignation_is_refused() -> None:
    events = [*small_tournament(), result("r1g1", "1-0", "resignation")]
    then_rejected(
        events, correction(events, "1/2-1/2", "resignation"), "result.termination_mismatch", TERM
    )
    then_accepted(events, correction(events, "1/2-1/2", "agreement"))


def test_a_correction_to_a_win_keeping_agreement_is_refused() -> None:
    events = [*small_tournament(), result("r1g1", "1/2-1/2", "agreement")]
    then_rejected(
        events, correction(events, "0-1", "agreement"), "result.termination_mismatch", TERM
    )


def test_a_correction_that_changes_nothing_is_refused() -> None:
    events = [*small_tournament(), result("r1g1", "1-0", "resignation")]
    refused = then_rejected(
        events, correction(events, "1-0", "resignation"), "correction.no_change", "payload.result"
    )
    assert "1-0 (resignation)" in refused.message
    then_accepted(events, correction(events, "1-0", "time_forfeit"))  # the ending changes


# --- a result for a game not in any round in force ---------------------------------------------


def test_a_result_for_a_game_of_a_retracted_round_is_refused() -> None:
    events = small_tournament()
    round_id = recorded("t1", events)[-1].envelope.event_id
    retracted = ev.EventRetracted(retracted_event_id=round_id, reason="wrong pairing")
    then_rejected([*events, retracted], ended("1-0", "other"), "game.unknown", "payload.game_id")


def test_a_result_for_a_game_in_no_round_is_refused() -> None:
    then_rejected(
        small_tournament(), ended("1-0", "other", "r9g9"), "game.unknown", "payload.game_id"
    )


# --- Go: no jigo with a half point of komi (LGC Scoring) ---------------------------------------


def go_round(handicap: int = 0, komi: str = "7.5") -> list[Event]:
    return [
        created("go", "mcmahon", komi=Decimal(komi)),
        player("a"),
        player("b"),
        ev.RoundScheduled(
            round=1, pairings=[ev.Pairing(game_id="r1g1", white="a", black="b", handicap=handicap)]
        ),
    ]


def test_a_jigo_with_komi_seven_and_a_half_is_refused() -> None:
    refused = then_rejected(
        go_round(), ended("1/2-1/2", "counting"), "result.no_jigo", "payload.result"
    )
    assert "7.5" in refused.message and "LGC Scoring" in refused.message
    then_rejected(go_round(), ended("1/2-1/2", "agreement"), "result.no_jigo", "payload.result")


def test_a_jigo_in_a_handicap_game_is_refused_komi_half_a_point() -> None:
    """LGC Scoring: "In a handicap game it is 0.5 to White", even when the tournament's even
    komi is an integer."""
    then_rejected(
        go_round(handicap=3, komi="7"),
        ended("1/2-1/2", "counting"),
        "result.no_jigo",
        "payload.result",
    )
    started = [*go_round(komi="7"), ev.GameStarted(game_id="r1g1", handicap=2)]
    then_rejected(started, ended("1/2-1/2", "counting"), "result.no_jigo", "payload.result")


def test_a_jigo_with_an_integer_komi_is_accepted() -> None:
    then_accepted(go_round(komi="7"), ended("1/2-1/2", "counting"))


def test_a_count_carries_its_own_komi() -> None:
    score = ev.GoScore(
        black_territory=10,
        white_territory=3,
        black_prisoners=0,
        white_prisoners=0,
        komi=Decimal("7"),
        margin=Decimal(0),
    )
    jigo = ev.GameEnded(game_id="r1g1", result="1/2-1/2", termination="counting", go_score=score)
    then_accepted(go_round(), jigo)


def test_a_correction_to_a_jigo_with_a_half_point_komi_is_refused() -> None:
    events = [*go_round(), result("r1g1", "1-0", "resignation")]
    then_rejected(
        events, correction(events, "1/2-1/2", "counting"), "result.no_jigo", "payload.result"
    )


def test_chess_draws_are_not_go_jigos() -> None:
    chess = [created(), player("a"), player("b"), round_(1, ("r1g1", "a", "b"))]
    then_accepted(chess, ended("1/2-1/2", "agreement"))
