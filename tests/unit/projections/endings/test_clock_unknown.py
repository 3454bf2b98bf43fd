"""Clocks when data is missing (projections/endings/clock.py): a move without timing still earns
its increment, its mover's clock is unknown until the next reported clock (a later move's
`clock_ms`, or a `ClockReported`), and no flag falls on an unknown clock. Given a clock / when
a move / then the clock; the same through the adjudicator and the decider; and a property:
dropping time data never creates a time forfeit the full data does not have."""

from __future__ import annotations

from builders import created, eid, move, player, round_
from given_when_then import given
from hypothesis import given as hgiven
from hypothesis import settings
from hypothesis import strategies as st

from events_schema import events as ev
from projections.endings import Adjudicator, GameFacts, MoveFacts, adjudicate
from projections.endings.clock import (
    ClockSpec,
    UnknownSpan,
    apply_move,
    report,
    start,
    unknown_spans,
)
from projections.tournament import decide

TCEC = ev.TimeControl(name="30+3", base_seconds=1800, increment_seconds=3)
BLITZ = ev.TimeControl(name="1+1", base_seconds=60, increment_seconds=1)
SPEC = ClockSpec.of(TCEC)
assert SPEC is not None


def test_a_move_without_timing_earns_its_increment_and_makes_the_clock_unknown():
    # given Black at 6 656 ms (S29 FRD 5 League B Tiebreak game 1, after 63... Qe1)
    state = report(start(SPEC), 8_328, 6_656)
    # when Black moves with no time data (the comment of 64... Qg1+ lost)
    state = apply_move(state, "black", None)
    # then the increment is earned, but the clock is unknown: an upper bound, never shown
    assert state.black_ms == 6_656 + 3_000 and not state.black_known
    assert state.known_ms("black") is None and state.known_ms("white") == 8_328


def test_no_flag_falls_on_an_unknown_clock():
    state = apply_move(report(start(SPEC), 8_328, 6_656), "black", None)
    # when the next move spends more than the last known clock (6 692 > 6 656: the arena's
    # tl says 3 823 was left after it)
    state = apply_move(state, "black", 6_692)
    # then no flag: the clock is still unknown (no reported clock yet)
    assert state.flagged is None and not state.black_known


def test_the_next_reported_clock_makes_it_known_again():
    state = apply_move(report(start(SPEC), 8_328, 6_656), "black", None)
    # when a later move of that side reports its clock (tl)
    state = apply_move(state, "black", 6_692, reported_ms=3_823)
    # then that is the clock, known, and the next move is derived from it again
    assert state.known_ms("black") == 3_823
    state = apply_move(state, "black", 3_528)
    assert state.known_ms("black") == 3_823 - 3_528 + 3_000


def test_a_clock_report_makes_both_known_again():
    state = apply_move(start(SPEC), "white", None)
    state = apply_move(state, "black", None)
    assert not state.white_known and not state.black_known
    state = report(state, 1_000, 2_000)
    assert (state.known_ms("white"), state.known_ms("black")) == (1_000, 2_000)
    state = apply_move(state, "white", 1_001)  # known again: the flag can fall
    assert state.flagged == "white"


def test_the_adjudicator_follows_the_same_rule():
    adj = Adjudicator("tcec-league", time_control=BLITZ)
    assert adj.push("e2e4", move_time_ms=1_000) is None  # 60 − 1 + 1 = 60 s
    assert adj.push("e7e5") is None  # Black: no time data
    clock = adj.clock
    assert clock is not None
    assert clock.known_ms("white") == 60_000 and clock.known_ms("black") is None
    assert clock.black_ms == 61_000  # the increment was earned
    # Black then spends more than it was known to have: no flag on an unknown clock
    assert adj.push("g1f3", move_time_ms=1_000) is None
    assert adj.push("b8c6", move_time_ms=61_500) is None
    # a ClockReported makes it known again, and then the flag can fall
    adj.report_clocks(59_000, 500)
    assert adj.push("f1c4", move_time_ms=1_000) is None
    ending = adj.push("g8f6", move_time_ms=501)
    assert ending is not None and ending.termination == "time_forfeit"
    assert ending.result == "1-0"


def test_the_moves_reported_clock_is_the_record_even_while_unknown():
    adj = Adjudicator("tcec-league", time_control=BLITZ)
    adj.push("e2e4")
    adj.push("e7e5", move_time_ms=1_000)
    adj.push("g1f3", move_time_ms=70_000, clock_ms=5_000)  # unknown, then reported: no flag
    clock = adj.clock
    assert clock is not None and clock.flagged is None and clock.known_ms("white") == 5_000


# --- the decider ----------------------------------------------------------------------------


def _history() -> list[ev.Event]:
    return [
        created(rules_preset="tcec-league", time_controls=[BLITZ.model_dump()]),
        player("a"),
        player("b"),
        round_(1, ("g1", "a", "b")),
        move("g1", 1, "e2e4", move_time_ms=1_000),
        move("g1", 2, "e7e5"),  # Black: no time data
        move("g1", 3, "g1f3", move_time_ms=1_000),
    ]


def test_given_a_move_without_timing_when_the_next_overruns_the_old_clock_then_no_flag():
    out = decide(given(*_history()), move("g1", 4, "b8c6", move_time_ms=61_500))
    assert [type(e) for e in out] == [ev.MovePlayed]


def test_given_a_clock_report_when_the_next_move_overruns_it_then_the_flag_falls():
    history = [*_history(), ev.ClockReported(game_id="g1", white_ms=59_000, black_ms=500)]
    out = decide(given(*history), move("g1", 4, "b8c6", move_time_ms=501))
    assert [type(e) for e in out] == [ev.MovePlayed, ev.GameEnded]
    assert out[1].termination == "time_forfeit" and out[1].result == "1-0"  # type: ignore[union-attr]


def test_a_retracted_move_drops_the_clock_reports_made_after_it():
    history = [
        *_history(),
        ev.ClockReported(game_id="g1", white_ms=59_000, black_ms=500),  # seq 8
        move("g1", 4, "b8c6", move_time_ms=100),  # seq 9
        ev.ClockReported(game_id="g1", white_ms=58_000, black_ms=400),  # seq 10
    ]
    assert given(*history).games["g1"].clock_reports == [(3, 59_000, 500), (4, 58_000, 400)]
    # when Black's move is retracted (seq 9: event id 9), the report made after it goes too,
    # and the rebuilt clocks still hold the one made before it: 501 ms then overruns
    state = given(*history, ev.EventRetracted(retracted_event_id=eid(9), reason="mis-entry"))
    assert state.games["g1"].clock_reports == [(3, 59_000, 500)]
    out = decide(state, move("g1", 4, "b8c6", move_time_ms=501))
    assert out[-1].termination == "time_forfeit"  # type: ignore[union-attr]


# --- where a clock was unknown ----------------------------------------------------------------


def test_unknown_spans_from_a_move_without_timing_to_the_next_reported_clock():
    moves = [
        ("white", 1_000, 59_000),
        ("black", None, None),  # ply 2: Black's unknown
        ("white", 1_000, 59_000),
        ("black", 1_000, None),  # still unknown (a time, no clock)
        ("white", None, None),  # ply 5: White's unknown, to the end
        ("black", 1_000, 50_000),  # ply 6: Black's known again
    ]
    assert unknown_spans(moves) == [
        UnknownSpan("black", 2, 6),
        UnknownSpan("white", 5, None),
    ]
    # a ClockReported with 5 plies in force makes both known again
    assert unknown_spans(moves, [5]) == [UnknownSpan("black", 2, 5), UnknownSpan("white", 5, 5)]


# --- the property ---------------------------------------------------------------------------


_GAME = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "d2d3", "f8c5", "c2c3", "d7d6"]


@settings(max_examples=200, deadline=None)
@hgiven(
    times=st.lists(st.integers(0, 40_000), min_size=len(_GAME), max_size=len(_GAME)),
    dropped=st.lists(st.booleans(), min_size=len(_GAME), max_size=len(_GAME)),
    reported=st.lists(st.booleans(), min_size=len(_GAME), max_size=len(_GAME)),
)
def test_dropping_time_data_never_creates_a_time_forfeit(times, dropped, reported):
    """The full record: every move's time, and on some moves the clock the arena reported
    (what the derived clock says, as a faithful arena's would). Dropping the time data of
    some moves (both the time and the clock) never ends the game on time where the full data
    does not, nor earlier, and never flags a side whose own times had not run out by then.
    (Missing data can hide the first flag: the full record may end earlier, with the other
    side losing on time.)"""
    spec = ClockSpec.of(BLITZ)
    assert spec is not None
    state = start(spec)
    full: list[MoveFacts] = []
    for i, (uci, t) in enumerate(zip(_GAME, times, strict=True)):
        colour = "white" if i % 2 == 0 else "black"
        state = apply_move(state, colour, t)
        clock = state.known_ms(colour) if reported[i] and state.flagged is None else None
        full.append(MoveFacts(uci, move_time_ms=t, clock_ms=clock))
    partial = tuple(MoveFacts(m.uci) if drop else m for m, drop in zip(full, dropped, strict=True))
    with_all = adjudicate(GameFacts(tuple(full), time_control=BLITZ), "tcec-league")
    with_less = adjudicate(GameFacts(partial, time_control=BLITZ), "tcec-league")
    if with_less is not None and with_less.termination == "time_forfeit":
        assert with_all is not None and with_all.termination == "time_forfeit"
        assert with_all.ply <= with_less.ply
        if with_all.ply == with_less.ply:
            assert with_all.result == with_less.result
        loser = "white" if with_less.result == "0-1" else "black"
        own = start(spec)  # the loser's own times alone (the other side's moves take none)
        for i, t in enumerate(times[: with_less.ply]):
            colour = "white" if i % 2 == 0 else "black"
            own = apply_move(own, colour, t if colour == loser else 0)
        assert own.flagged == loser
