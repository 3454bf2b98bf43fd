"""Clocks from move times and the time control: sudden death, Fischer, an increment from move
N (GCT 2.5.1 Armageddon), and what a flag fall means per preset (TCEC: a loss; FIDE 6.9: a
draw when the opponent cannot mate; GCT 2.5.2: an Armageddon draw is a win for Black)."""

from __future__ import annotations

import chess
import pytest

from events_schema.events import TimeControl
from projections.endings import (
    Adjudicator,
    ClockSpec,
    GameFacts,
    MoveFacts,
    adjudicate,
    apply_move,
    flag_fall_ending,
    ruleset_for,
)
from projections.endings.clock import flagged, start

ARMAGEDDON = TimeControl(
    name="gct-armageddon-5v4+2@61",
    base_seconds=300,
    increment_seconds=2,
    increment_from_move=61,
    white_base_seconds=300,
    black_base_seconds=240,
)
TCEC = TimeControl(name="30+3", base_seconds=1800, increment_seconds=3)
SUDDEN = TimeControl(name="5+0", base_seconds=300)


def test_spec_of_a_time_control():
    spec = ClockSpec.of(ARMAGEDDON)
    assert spec == ClockSpec(300_000, 240_000, 2_000, 61)
    assert ClockSpec.of(TCEC) == ClockSpec(1_800_000, 1_800_000, 3_000, 1)
    go = TimeControl(name="byo", base_seconds=600, overtime="byo_yomi", overtime_seconds=30)
    assert ClockSpec.of(go) is None  # Go overtimes are not modelled here


def test_fischer_increment_is_added_on_completing_the_move():
    state = start(ClockSpec.of(TCEC))  # type: ignore[arg-type]
    # the TCEC archive: 1800000 − 60710 + 3000 = 1742290 (S28 EL Tiebreak 1, 9. d5)
    state = apply_move(state, "white", 60_710)
    assert state.white_ms == 1_742_290 and state.white_moves == 1
    # a TCEC book move: no time spent, no increment; the importer records the clock unchanged
    state = apply_move(state, "black", None, reported_ms=1_800_000)
    assert state.black_ms == 1_800_000 and state.black_moves == 1 and state.black_known


def test_sudden_death_flag_falls_when_the_move_overruns_the_time_left():
    state = start(ClockSpec.of(SUDDEN))  # type: ignore[arg-type]
    state = apply_move(state, "white", 300_000)  # exactly all of it: not a fall
    assert state.white_ms == 0 and flagged(state) is None
    state = apply_move(state, "black", 1)
    state = apply_move(state, "white", 1)
    assert flagged(state) == "white" and state.white_ms == 0
    assert apply_move(state, "black", 5) is state  # nothing moves after a fall


def test_increment_from_move_61_not_60():
    spec = ClockSpec.of(ARMAGEDDON)
    assert spec is not None
    state = start(spec)
    assert (state.white_ms, state.black_ms) == (300_000, 240_000)
    for _ in range(60):
        state = apply_move(state, "white", 1_000)
        state = apply_move(state, "black", 1_000)
    assert (state.white_ms, state.black_ms) == (240_000, 180_000)  # no increment to move 60
    state = apply_move(state, "white", 1_000)
    assert state.white_ms == 241_000  # move 61: + 2 s
    assert spec.increment(60) == 0 and spec.increment(61) == 2_000


def test_the_move_number_may_come_from_the_position():
    state = start(ClockSpec.of(ARMAGEDDON))  # type: ignore[arg-type]
    state = apply_move(state, "white", 1_000, move_number=61)
    assert state.white_ms == 301_000
    state = apply_move(state, "black", 1_000, move_number=61, reported_ms=100_000)
    assert state.black_ms == 100_000  # the arena's reported clock is the record


def test_the_adjudicator_derives_the_clock_and_ends_on_the_overrun():
    moves = [MoveFacts("e2e4", move_time_ms=1_000), MoveFacts("e7e5", move_time_ms=300_001)]
    ending = adjudicate(GameFacts(tuple(moves), time_control=SUDDEN), "tcec-swiss")
    assert ending is not None
    assert (ending.result, ending.termination, ending.ply, ending.rule) == (
        "1-0",
        "time_forfeit",
        2,
        "tcec-rules Swiss 5.b",
    )
    assert ending.detail == "Black lost on time (tcec-rules Swiss 5.b)"
    moves[1] = MoveFacts("e7e5", move_time_ms=300_000)
    assert adjudicate(GameFacts(tuple(moves), time_control=SUDDEN), "tcec-swiss") is None
    adj = Adjudicator("tcec-4k", time_control=TCEC)
    adj.push("e2e4", move_time_ms=10_000)
    adj.push("e7e5", move_time_ms=None, clock_ms=1_800_000)  # a book move, clock unchanged
    clock = adj.clock
    assert clock is not None
    assert (clock.white_ms, clock.black_ms, clock.white_moves, clock.black_moves) == (
        1_793_000,
        1_800_000,
        1,
        1,
    )
    assert clock.known_ms("white") == 1_793_000 and clock.known_ms("black") == 1_800_000


def test_armageddon_increment_in_the_adjudicator_counts_the_position_s_move_number():
    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 60"
    adj = Adjudicator("gct-rapid-blitz", start_fen=fen, time_control=ARMAGEDDON, armageddon=True)
    expected = [(299_000, 240_000), (299_000, 239_000), (300_000, 239_000), (300_000, 240_000)]
    for uci, clocks in zip(["e2e4", "e7e5", "g1f3", "b8c6"], expected, strict=True):
        assert adj.push(uci, move_time_ms=1_000) is None
        assert adj.clock is not None and (adj.clock.white_ms, adj.clock.black_ms) == clocks
    # Black then overruns its 240 s: a loss on time even in an Armageddon game
    ending = adj.push("f1c4", move_time_ms=1_000)
    assert ending is None
    ending = adj.push("g8f6", move_time_ms=240_001)
    assert ending is not None
    assert (ending.result, ending.termination, ending.rule) == (
        "1-0",
        "time_forfeit",
        "FIDE Laws 6.9",
    )
    assert adj.clock is not None and adj.clock.flagged == "black"


@pytest.mark.parametrize(
    ("fen", "loser_white", "preset", "expected"),
    [
        # TCEC: always a loss (Swiss 5.b), even against a bare king
        ("8/8/8/3k4/8/8/8/KQ6 w - - 0 1", False, "tcec-swiss", ("1-0", "time_forfeit")),
        ("8/8/8/3k4/8/8/8/KQ6 w - - 0 1", True, "tcec-league", ("0-1", "time_forfeit")),
        # FIDE 6.9: Black cannot mate with a bare king: a draw
        ("8/8/8/3k4/8/8/8/KQ6 w - - 0 1", True, "fide", ("1/2-1/2", "time_forfeit")),
        # … but can with a pawn
        ("8/8/8/3k4/3p4/8/8/KQ6 w - - 0 1", True, "fide", ("0-1", "time_forfeit")),
    ],
)
def test_flag_fall_per_preset(fen: str, loser_white: bool, preset: str, expected: tuple[str, str]):
    board = chess.Board(fen)
    ending = flag_fall_ending(board, loser_white, ruleset_for(preset), 40)
    assert (ending.result, ending.termination) == expected
    assert ending.ply == 40


def test_armageddon_flag_fall_draw_is_a_win_for_black():
    rs = ruleset_for("gct-classical")
    bare_black = chess.Board("8/8/8/3k4/8/8/8/KQ6 w - - 0 1")
    # White flags, Black cannot mate: 6.9 draw → 3.5.2 Black wins
    ending = flag_fall_ending(bare_black, True, rs, 9, armageddon_citation="GCT 2022 3.5.2")
    assert (ending.result, ending.termination, ending.rule) == (
        "0-1",
        "armageddon",
        "GCT 2022 3.5.2",
    )
    # Black flags while White cannot mate: a draw, so Black still wins
    bare_white = chess.Board("8/8/8/3k4/3q4/8/8/K7 b - - 0 1")
    ending = flag_fall_ending(bare_white, False, rs, 9, armageddon_citation="GCT 2022 3.5.2")
    assert (ending.result, ending.termination) == ("0-1", "armageddon")
    # Black flags and White can mate: White wins
    ending = flag_fall_ending(bare_black, False, rs, 9, armageddon_citation="GCT 2022 3.5.2")
    assert (ending.result, ending.termination) == ("1-0", "time_forfeit")


def test_armageddon_draws_by_rule_are_wins_for_black():
    moves = tuple(MoveFacts(u) for u in ["g6f7"])
    game = GameFacts(moves, "7k/8/6Q1/8/8/8/8/K7 w - - 0 1", armageddon=True)
    ending = adjudicate(game, "gct-rapid-blitz")
    assert ending is not None
    assert (ending.result, ending.termination, ending.rule) == (
        "0-1",
        "armageddon",
        "GCT 2022 2.5.2",
    )
    assert ending.detail.startswith("Black is stalemated (FIDE Laws 5.2.1); a draw")
    assert adjudicate(GameFacts(moves, game.start_fen), "gct-rapid-blitz") is not None
    with pytest.raises(ValueError, match="no Armageddon"):
        adjudicate(game, "gct-tour-playoff")
    with pytest.raises(ValueError, match="no Armageddon"):
        adjudicate(game, "tcec-league")
