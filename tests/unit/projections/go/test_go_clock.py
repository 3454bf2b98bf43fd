"""Go clocks (LGC Tournament Rules, TIMING RULES and "Loss on time"): worked examples named for
the rule, and properties over random move times."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from events_schema.events import ClockReported, TimeControl
from projections.go.clock import (
    PAUSE_CIRCUMSTANCES,
    ClockSpec,
    ClockState,
    Colour,
    Side,
    adjust,
    apply_move,
    flagged,
    start,
)

SEED = Path("/work/shared/seeds/lgc-go-tournament-rules.txt")

CANADIAN = TimeControl(
    name="60m+25/10m",
    base_seconds=3600,
    overtime="canadian",
    overtime_seconds=600,
    overtime_stones=25,
)
BYO_YOMI = TimeControl(
    name="60m+5x30s",
    base_seconds=3600,
    overtime="byo_yomi",
    overtime_seconds=30,
    overtime_periods=5,
)
SUDDEN = TimeControl(name="45m", base_seconds=2700)
FISCHER = TimeControl(name="40m+10s", base_seconds=2400, increment_seconds=10, overtime="fischer")


def _in_overtime(tc: TimeControl) -> ClockState:
    """Black has used all its main time in one move (exactly: not a loss, now in overtime)."""
    state = apply_move(start(ClockSpec.of(tc)), "black", tc.base_seconds * 1000)
    assert state.black.main_ms == 0 and state.black.in_overtime and flagged(state) is None
    return state


# --- ClockSpec.of: every Go time control -------------------------------------------------------


def test_spec_of_every_go_time_control() -> None:
    assert ClockSpec.of(CANADIAN) == ClockSpec(
        3_600_000, 3_600_000, "canadian", period_ms=600_000, stones=25
    )
    assert ClockSpec.of(BYO_YOMI) == ClockSpec(
        3_600_000, 3_600_000, "byo_yomi", period_ms=30_000, periods=5
    )
    assert ClockSpec.of(SUDDEN) == ClockSpec(2_700_000, 2_700_000, "none")
    assert ClockSpec.of(FISCHER) == ClockSpec(2_400_000, 2_400_000, "fischer", 10_000)


@pytest.mark.parametrize(
    ("tc", "match"),
    [
        (
            TimeControl(name="c", base_seconds=60, overtime="canadian", overtime_seconds=600),
            "stones",
        ),
        (
            TimeControl(name="c", base_seconds=60, overtime="canadian", overtime_stones=25),
            "seconds",
        ),
        (
            TimeControl(name="b", base_seconds=60, overtime="byo_yomi", overtime_seconds=30),
            "periods",
        ),
        (
            TimeControl(
                name="b",
                base_seconds=60,
                increment_seconds=5,
                overtime="byo_yomi",
                overtime_seconds=30,
                overtime_periods=5,
            ),
            "increment",
        ),
    ],
)
def test_spec_of_refuses_an_overtime_it_cannot_time(tc: TimeControl, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        ClockSpec.of(tc)


# --- Canadian overtime --------------------------------------------------------------------------


def test_canadian_overtime_25_stones_in_9_59_resets_the_period() -> None:
    # "When all the moves have been made, the clock is reset for the next overtime period."
    state = _in_overtime(CANADIAN)
    assert (state.black.period_ms, state.black.stones) == (600_000, 25)
    for _ in range(24):
        state = apply_move(state, "black", 23_000)
    assert (state.black.period_ms, state.black.stones) == (600_000 - 24 * 23_000, 1)
    state = apply_move(state, "black", 47_000)  # 24 × 23 s + 47 s = 9:59
    assert flagged(state) is None
    assert (state.black.period_ms, state.black.stones) == (600_000, 25)
    assert state.black.moves == 26


def test_canadian_overtime_the_25th_stone_in_exactly_the_time_left_resets() -> None:
    state = _in_overtime(CANADIAN)
    for _ in range(24):
        state = apply_move(state, "black", 24_000)
    state = apply_move(state, "black", 24_000)  # 25 × 24 s = 10:00, completed as it ends
    assert flagged(state) is None and state.black.stones == 25


def test_canadian_loss_on_time_the_25th_stone_not_played_within_the_period() -> None:
    # "With overtime: a player loses on time if not all of the given number of overtime stones
    # are played in the prescribed overtime period."
    state = _in_overtime(CANADIAN)
    for _ in range(24):
        state = apply_move(state, "black", 24_000)
    assert (state.black.period_ms, state.black.stones) == (24_000, 1)
    state = apply_move(state, "black", 24_001)
    assert flagged(state) == "black"
    assert (state.black.main_ms, state.black.period_ms, state.black.stones) == (0, 0, 0)
    assert apply_move(state, "white", 1_000) is state  # nothing moves after a loss on time


def test_canadian_main_time_spilling_into_overtime_is_charged_to_the_first_period() -> None:
    tc = CANADIAN.model_copy(update={"base_seconds": 60})
    state = apply_move(start(ClockSpec.of(tc)), "black", 70_000)
    # 60 s of main time, 10 s of the first period, and the move is its first stone
    assert state.black == Side(0, True, period_ms=590_000, stones=24, moves=1)
    # more than main time + a whole period: the stones cannot all have been played in it
    state = apply_move(start(ClockSpec.of(tc)), "white", 660_001)
    assert flagged(state) == "white"
    state = apply_move(start(ClockSpec.of(tc)), "white", 660_000)
    assert flagged(state) is None and (state.white.period_ms, state.white.stones) == (0, 24)


def test_canadian_a_period_of_one_stone_resets_after_each_move() -> None:
    tc = CANADIAN.model_copy(update={"base_seconds": 0, "overtime_stones": 1})
    state = start(ClockSpec.of(tc))
    assert state.white.in_overtime  # no main time: overtime from the first move
    state = apply_move(state, "white", 599_000)
    assert (state.white.period_ms, state.white.stones) == (600_000, 1)


# --- Japanese byo-yomi -------------------------------------------------------------------------


def test_byo_yomi_a_move_in_29_s_keeps_all_periods() -> None:
    # "A move must be completed within the byo-yomi time period."
    state = apply_move(_in_overtime(BYO_YOMI), "black", 29_000)
    assert (state.black.periods, state.black.period_ms) == (5, 30_000)
    state = apply_move(state, "black", 30_000)  # completed as the period ends: kept
    assert state.black.periods == 5 and flagged(state) is None


def test_byo_yomi_a_move_in_31_s_uses_one_period() -> None:
    state = apply_move(_in_overtime(BYO_YOMI), "black", 31_000)
    assert (state.black.periods, state.black.period_ms) == (4, 30_000)
    state = apply_move(state, "black", 65_000)  # overruns two periods, completed in the third
    assert state.black.periods == 2


def test_byo_yomi_overrunning_the_last_period_is_a_loss_on_time() -> None:
    state = _in_overtime(BYO_YOMI)
    state = apply_move(state, "black", 120_001)  # four periods overrun, completed in the fifth
    assert state.black.periods == 1 and flagged(state) is None
    state = apply_move(state, "black", 30_000)
    assert state.black.periods == 1 and flagged(state) is None
    state = apply_move(state, "black", 30_001)
    assert flagged(state) == "black" and state.black.periods == 0
    # one move overrunning all five periods
    assert flagged(apply_move(_in_overtime(BYO_YOMI), "black", 150_001)) == "black"
    assert apply_move(_in_overtime(BYO_YOMI), "black", 150_000).black.periods == 1


def test_byo_yomi_main_time_spilling_into_overtime() -> None:
    tc = BYO_YOMI.model_copy(update={"base_seconds": 60})
    state = apply_move(start(ClockSpec.of(tc)), "white", 89_000)  # 60 s + 29 s of a period
    assert state.white == Side(0, True, period_ms=30_000, periods=5, moves=1)
    state = apply_move(start(ClockSpec.of(tc)), "white", 91_000)  # 60 s + 31 s: one used
    assert state.white.periods == 4
    assert flagged(apply_move(start(ClockSpec.of(tc)), "white", 210_001)) == "white"


# --- sudden death and Fischer ------------------------------------------------------------------


def test_sudden_death_loss_on_time_when_the_move_is_not_completed_in_the_basic_time() -> None:
    # "No overtime: a player loses on time if the current move is not completed before the
    # basic time expires."
    state = start(ClockSpec.of(SUDDEN))
    state = apply_move(state, "black", 2_700_000)  # exactly all of it: not a loss
    assert state.black.main_ms == 0 and not state.black.in_overtime
    assert flagged(state) is None
    state = apply_move(state, "white", 1_000)
    state = apply_move(state, "black", 1)
    assert flagged(state) == "black" and state.black.main_ms == 0


def test_fischer_increment_is_added_on_completing_the_move() -> None:
    state = start(ClockSpec.of(FISCHER))
    state = apply_move(state, "black", 5_000)
    assert state.black.main_ms == 2_405_000 and state.black.moves == 1
    state = apply_move(state, "white", None)  # no move time: the clock is unchanged
    assert state.white.main_ms == 2_400_000 and state.white.moves == 1
    state = apply_move(state, "black", 2_405_001)
    assert flagged(state) == "black"


# --- the record: reported clocks, the referee, broadcasts --------------------------------------


def test_a_reported_clock_replaces_the_derived_one() -> None:
    state = start(ClockSpec.of(CANADIAN))
    state = apply_move(state, "black", 10_000, reported_ms=3_580_000)
    assert state.black.main_ms == 3_580_000
    # in Canadian overtime the clock shows the time left in the period; periods = stones left
    state = _in_overtime(CANADIAN)
    state = apply_move(state, "black", 10_000, 500_000, reported_periods=20)
    assert (state.black.period_ms, state.black.stones) == (500_000, 20)
    # byo-yomi: the period starts again in full after a move; the periods left are reported
    state = apply_move(_in_overtime(BYO_YOMI), "black", 10_000, 12_000, reported_periods=3)
    assert (state.black.period_ms, state.black.periods) == (30_000, 3)
    # a reported main time of 0 is overtime
    state = apply_move(start(ClockSpec.of(BYO_YOMI)), "white", 10_000, reported_ms=0)
    assert state.white.in_overtime and state.white.shown_ms == 30_000


def test_referee_adjustment_timing_error_and_faulty_clock() -> None:
    # LGC "Timing error": mistakes in the recorded elapsed time "can only be corrected by the
    # referee"; "Faulty clock": "replaced and set by the referee".
    state = start(ClockSpec.of(CANADIAN))
    state = apply_move(state, "black", 600_000)
    state = adjust(state, "black", main_ms=3_300_000)
    assert state.black.main_ms == 3_300_000 and state.black.moves == 1
    assert state.white == start(ClockSpec.of(CANADIAN)).white
    state = adjust(state, "white", main_ms=0, period_ms=420_000, stones=12)
    assert state.white == Side(0, True, period_ms=420_000, stones=12)
    state = apply_move(state, "white", 20_000)
    assert (state.white.period_ms, state.white.stones) == (400_000, 11)
    with pytest.raises(ValueError, match="< 0"):
        adjust(state, "white", period_ms=-1)
    # main time given back: the next Canadian period starts in full
    state = adjust(state, "white", main_ms=60_000)
    assert state.white == Side(60_000, False, period_ms=600_000, stones=25, moves=1)
    # byo-yomi: the referee sets the periods left; a period always starts in full
    byo = adjust(_in_overtime(BYO_YOMI), "black", periods=2)
    assert (byo.black.periods, byo.black.shown_ms) == (2, 30_000)
    with pytest.raises(ValueError, match="Canadian"):
        adjust(byo, "black", period_ms=10_000)


def test_a_broadcast_clock_report_is_derived_from_the_state() -> None:
    spec = ClockSpec.of(BYO_YOMI)
    state = apply_move(_in_overtime(BYO_YOMI), "black", 31_000)
    state = apply_move(state, "white", 100_000)
    report = ClockReported(
        game_id="g1",
        white_ms=state.white.shown_ms,
        black_ms=state.black.shown_ms,
        white_periods=state.white.shown_periods(spec),
        black_periods=state.black.shown_periods(spec),
    )
    assert (report.white_ms, report.black_ms) == (3_500_000, 30_000)
    assert (report.white_periods, report.black_periods) == (5, 4)
    assert state.remaining("black") == 30_000
    canadian = _in_overtime(CANADIAN)
    assert canadian.black.shown_periods(canadian.spec) == 25
    assert start(ClockSpec.of(SUDDEN)).white.shown_periods(ClockSpec.of(SUDDEN)) is None


def test_the_twelve_pause_circumstances() -> None:
    assert sorted(PAUSE_CIRCUMSTANCES) == list(range(1, 13))
    assert PAUSE_CIRCUMSTANCES[5] == (
        "By a player in order to remove three or more stones without liberty."
    )
    if not SEED.exists():
        pytest.skip("the LGC seed is not available")
    lines = SEED.read_text(encoding="utf-8").splitlines()
    for number, text in PAUSE_CIRCUMSTANCES.items():
        assert f"{number}. {text}" in lines


# --- properties ----------------------------------------------------------------------------------

TIME_CONTROLS = [
    CANADIAN.model_copy(update={"base_seconds": 30, "overtime_seconds": 20, "overtime_stones": 3}),
    BYO_YOMI.model_copy(update={"base_seconds": 30, "overtime_seconds": 5}),
    SUDDEN.model_copy(update={"base_seconds": 60}),
    FISCHER.model_copy(update={"base_seconds": 20, "increment_seconds": 2}),
]


def _never_negative(side: Side) -> None:
    assert min(side.main_ms, side.period_ms, side.periods, side.stones, side.moves) >= 0


@settings(max_examples=300, deadline=None)
@given(
    tc=st.sampled_from(TIME_CONTROLS),
    moves=st.lists(
        st.tuples(
            st.sampled_from(["white", "black"]),
            st.one_of(st.none(), st.integers(0, 40_000)),
        ),
        max_size=60,
    ),
)
def test_derived_clocks_are_never_negative_and_a_loss_on_time_stands(
    tc: TimeControl, moves: list[tuple[Colour, int | None]]
) -> None:
    state = start(ClockSpec.of(tc))
    fell: Colour | None = None
    for colour, spent in moves:
        before = state
        state = apply_move(state, colour, spent)
        _never_negative(state.white)
        _never_negative(state.black)
        if fell is not None:
            assert flagged(state) == fell and state is before
        fell = flagged(state)
        if fell is None:
            assert state.remaining(colour) >= 0
