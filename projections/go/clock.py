"""Go clocks derived from move times and the time control (LGC Tournament Rules, TIMING RULES;
`events_schema` TimeControl). Pure: no I/O, no wall clock.

The same shape as the chess clock (`projections/endings/clock.py`): `ClockSpec.of(tc)`,
`start(spec)`, `apply_move(state, colour, move_time_ms, reported_ms=None)`, `flagged(state)`,
plus `adjust` for the referee. `ClockSpec.of` gives a spec for every Go time control:

- Sudden death ("none": "Each player is assigned a fixed amount of time for the whole game.
  There is no overtime.") and Fischer ("fischer": "There is no overtime.") are the chess model,
  base + increment, computed by the chess clock's own `spend`: a move that takes longer than
  the time left overruns it ("No overtime: a player loses on time if the current move is not
  completed before the basic time expires"); reaching exactly 0 ms with the move made is not
  a loss; the increment is added on completing the move.
- Canadian overtime ("When a player's main time has expired the player has to complete a given
  number of moves in a specified period of time set on the clock. When all the moves have been
  made, the clock is reset for the next overtime period."): `overtime_stones` moves in
  `overtime_seconds`; the stone that completes the count resets the period (time and stones)
  to full. "With overtime: a player loses on time if not all of the given number of overtime
  stones are played in the prescribed overtime period": a move that takes longer than the time
  left in the period is a loss on time.
- Japanese byo-yomi ("A move must be completed within the byo-yomi time period"):
  `overtime_periods` periods of `overtime_seconds`. A move completed inside a period keeps it
  (the period starts again in full for the next move); a move that overruns a period uses it
  up and goes on in the next; overrunning the last period is a loss on time. A move of x ms in
  overtime uses max(0, ceil(x / period) − 1) periods: 31 s of 30 s periods uses one, exactly
  30 s (completed as the period ends, like the chess clock's exact 0) uses none.

Readings where the seed is silent:

- Main time spilling into overtime within one move: the part of the move's time beyond the
  main time left is charged to the overtime as a move made in overtime. Canadian: to the first
  period, and the move counts as its first stone (it was completed in that period); more than
  the period is a loss on time. Byo-yomi: to the first period(s) by the rule above.
- Main time at exactly 0 ms (a move that used all of it, or `base_seconds` 0) is expired: the
  next move is in overtime.
- A move without a move time (an arena that did not report one) charges nothing; in Canadian
  overtime it still counts as a stone played (the count of stones is a fact of the board).
- An increment together with Canadian or byo-yomi overtime is not an LGC time control ("Fischer
  time ... There is no overtime"): `ClockSpec.of` refuses it, and refuses Canadian without
  stones or a period, and byo-yomi without periods or a period.
- The reported clock (`MovePlayed.clock_ms`, "mover's clock after the move") is the time the
  clock shows, so it replaces the derived time of the phase the derived clock is in after the
  move: the main time, or the time left in the current Canadian period. After a byo-yomi move
  in overtime the clock shows the full period again, so a reported time there changes nothing;
  `reported_periods` (`ClockReported.white_periods`…) sets the byo-yomi periods left, or the
  Canadian stones left in the period.
- Broadcast (`ClockReported`): `Side.shown_ms` is the main time, or in overtime the time left in
  the current period; `Side.shown_periods` the byo-yomi periods left, or the Canadian stones
  left in the current period ("overtime left"), None without overtime.

Pauses. The clock "may be paused with both player's timepieces being stopped simultaneously"
in the twelve circumstances of `PAUSE_CIRCUMSTANCES` (LGC Timing, verbatim). Time between a
pause and its resume is not charged: arenas report `move_time_ms` net of pauses (the time the
mover's own timepiece ran), so this module charges move times as given; the circumstances are
listed for the pause events the tournament fold records. A referee's correction of the
recorded time ("Timing error": "any apparent non-trivial mistakes in the recorded elapsed time
can only be corrected by the referee") or a clock replaced and set by the referee ("Faulty
clock": "A clock found to be malfunctioning shall be replaced and set by the referee") is
`adjust`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from events_schema.events import TimeControl
from projections.endings.clock import Colour, spend

__all__ = [
    "PAUSE_CIRCUMSTANCES",
    "ClockSpec",
    "ClockState",
    "Colour",
    "Overtime",
    "Side",
    "adjust",
    "apply_move",
    "flagged",
    "start",
]

Overtime = Literal["none", "fischer", "canadian", "byo_yomi"]

#: LGC Timing: "The clock may be paused with both player's timepieces being stopped
#: simultaneously in the following circumstances:" (verbatim, numbered as in the seed).
PAUSE_CIRCUMSTANCES: dict[int, str] = {
    1: "By the players, after successive passes, at the start of each status assessment phase.",
    2: "By the players at the start of the counting procedure.",
    3: "By the players, to reset the clock or count overtime stones for the next overtime period.",
    4: "By a player to visit the toilet shortly before or during overtime. However a player "
    "may not abuse this right.",
    5: "By a player in order to remove three or more stones without liberty.",
    6: "By the players to deal with a clock malfunction themselves, or to call the referee to "
    "deal with the clock. The players may not increase their time limits.",
    7: "By a player at the start of a formal adjournment.",
    8: "By a player to fetch a sealing form for an adjournment.",
    9: "By a player to complete a sealing form.",
    10: "By a player to call an absent referee after informing the opponent.",
    11: "By the referee at the start of arbitration or rule clarification.",
    12: "During an urgent announcement on behalf of the tournament director.",
}


@dataclass(frozen=True, slots=True)
class ClockSpec:
    """A Go time control in milliseconds. `period_ms`, `stones`, `periods`: Canadian (stones
    per period) or byo-yomi (number of periods); 0 when unused."""

    white_base_ms: int
    black_base_ms: int
    overtime: Overtime = "none"
    increment_ms: int = 0
    increment_from_move: int = 1
    period_ms: int = 0
    stones: int = 0
    periods: int = 0

    @classmethod
    def of(cls, tc: TimeControl) -> ClockSpec:
        """The clock of any Go time control (LGC Timing); ValueError for an overtime without
        its stones, periods or period, or with an increment."""
        white = tc.white_base_seconds if tc.white_base_seconds is not None else tc.base_seconds
        black = tc.black_base_seconds if tc.black_base_seconds is not None else tc.base_seconds
        if tc.overtime in ("none", "fischer"):
            return cls(
                white * 1000,
                black * 1000,
                tc.overtime,
                increment_ms=tc.increment_seconds * 1000,
                increment_from_move=tc.increment_from_move,
            )
        if tc.increment_seconds:
            raise ValueError(f"{tc.name}: an increment with {tc.overtime} overtime")
        if tc.overtime_seconds <= 0:
            raise ValueError(f"{tc.name}: {tc.overtime} overtime needs overtime_seconds")
        # Canadian: stones per period; byo-yomi: a number of periods
        canadian = tc.overtime == "canadian"
        stones = tc.overtime_stones if canadian else 0
        periods = 0 if canadian else tc.overtime_periods
        if (stones if canadian else periods) <= 0:
            needs = "Canadian overtime needs overtime_stones"
            if not canadian:
                needs = "byo-yomi needs overtime_periods"
            raise ValueError(f"{tc.name}: {needs}")
        return cls(
            white * 1000,
            black * 1000,
            "canadian" if canadian else "byo_yomi",
            period_ms=tc.overtime_seconds * 1000,
            stones=stones,
            periods=periods,
        )

    @property
    def has_overtime(self) -> bool:
        return self.overtime in ("canadian", "byo_yomi")

    def increment(self, move_number: int) -> int:
        """The increment earned by completing move `move_number` (1-based, per colour)."""
        return self.increment_ms if move_number >= self.increment_from_move else 0


@dataclass(frozen=True, slots=True)
class Side:
    """One colour's clock, as a broadcast shows it.

    `main_ms`: main time left; `in_overtime`: main time has expired (Canadian, byo-yomi);
    `period_ms`: time left in the current overtime period (byo-yomi: the full period, which
    every move completed in time starts again; before overtime: the first period as it will
    start); `periods`: byo-yomi periods left, counting the current one; `stones`: Canadian
    stones still to play in the current period; `moves`: moves made."""

    main_ms: int
    in_overtime: bool = False
    period_ms: int = 0
    periods: int = 0
    stones: int = 0
    moves: int = 0

    @property
    def shown_ms(self) -> int:
        """The time the clock shows (`ClockReported.white_ms`…)."""
        return self.period_ms if self.in_overtime else self.main_ms

    def shown_periods(self, spec: ClockSpec) -> int | None:
        """`ClockReported.white_periods`…: byo-yomi periods left, Canadian stones left in the
        period, None without overtime."""
        if spec.overtime == "byo_yomi":
            return self.periods
        if spec.overtime == "canadian":
            return self.stones
        return None


@dataclass(frozen=True, slots=True)
class ClockState:
    spec: ClockSpec
    white: Side
    black: Side
    flagged: Colour | None = None

    def side(self, colour: Colour) -> Side:
        return self.white if colour == "white" else self.black

    def remaining(self, colour: Colour) -> int:
        """The time `colour`'s clock shows."""
        return self.side(colour).shown_ms


def _fresh(spec: ClockSpec, main_ms: int) -> Side:
    return Side(
        main_ms,
        in_overtime=spec.has_overtime and main_ms == 0,
        period_ms=spec.period_ms,
        periods=spec.periods,
        stones=spec.stones,
    )


def start(spec: ClockSpec) -> ClockState:
    return ClockState(spec, _fresh(spec, spec.white_base_ms), _fresh(spec, spec.black_base_ms))


def _with(state: ClockState, colour: Colour, side: Side) -> ClockState:
    if colour == "white":
        return replace(state, white=side)
    return replace(state, black=side)


def _overtime_move(spec: ClockSpec, side: Side, spent_ms: int | None) -> Side | None:
    """`side` (in overtime) after a move that spent `spent_ms` of overtime; None: a loss on
    time."""
    if spec.overtime == "canadian":
        left = side.period_ms
        if spent_ms is not None:
            if spent_ms > left:
                return None  # not all the stones were played in the period
            left -= spent_ms
        stones = side.stones - 1
        if stones <= 0:  # all the moves made: the clock is reset for the next period
            return replace(side, in_overtime=True, period_ms=spec.period_ms, stones=spec.stones)
        return replace(side, in_overtime=True, period_ms=left, stones=stones)
    # byo-yomi: each period overrun is used up; a move completed within a period keeps it
    used = max(0, (spent_ms - 1) // spec.period_ms) if spent_ms is not None else 0
    if used >= side.periods:
        return None  # the last period overrun
    return replace(side, in_overtime=True, period_ms=spec.period_ms, periods=side.periods - used)


def _move(spec: ClockSpec, side: Side, move_time_ms: int | None) -> Side | None:
    """`side` after a move of `move_time_ms` (the move counted); None: a loss on time."""
    moves = side.moves + 1
    if not spec.has_overtime:
        if move_time_ms is None:
            return replace(side, moves=moves)
        left = spend(side.main_ms, move_time_ms, spec.increment(moves))
        return None if left is None else replace(side, main_ms=left, moves=moves)
    if not side.in_overtime:
        if move_time_ms is None or move_time_ms <= side.main_ms:
            main = side.main_ms - (move_time_ms or 0)
            return replace(side, main_ms=main, in_overtime=main == 0, moves=moves)
        # the part beyond main time is charged to the overtime (reading: see the docstring)
        spilled = move_time_ms - side.main_ms
        after = _overtime_move(spec, replace(side, main_ms=0, in_overtime=True), spilled)
    else:
        after = _overtime_move(spec, side, move_time_ms)
    return None if after is None else replace(after, moves=moves)


def _lost(spec: ClockSpec, side: Side) -> Side:
    """A side whose flag fell: nothing left."""
    if not spec.has_overtime:
        return replace(side, main_ms=0)
    return replace(side, main_ms=0, in_overtime=True, period_ms=0, periods=0, stones=0)


def apply_move(
    state: ClockState,
    colour: Colour,
    move_time_ms: int | None,
    reported_ms: int | None = None,
    *,
    reported_periods: int | None = None,
) -> ClockState:
    """The clocks after `colour` moved (a stone or a pass) in `move_time_ms`, net of pauses.
    `reported_ms`, `reported_periods`: the arena's clock after the move, the record (see the
    module docstring for which time it replaces). A state whose flag fell does not change."""
    if state.flagged is not None:
        return state
    for name, value in (
        ("move_time_ms", move_time_ms),
        ("reported_ms", reported_ms),
        ("reported_periods", reported_periods),
    ):
        if value is not None and value < 0:
            raise ValueError(f"{name} {value} < 0")
    spec = state.spec
    side = _move(spec, state.side(colour), move_time_ms)
    if side is None:
        return replace(_with(state, colour, _lost(spec, state.side(colour))), flagged=colour)
    if reported_ms is not None:
        if not side.in_overtime:
            side = replace(
                side, main_ms=reported_ms, in_overtime=spec.has_overtime and not reported_ms
            )
        elif spec.overtime == "canadian":
            side = replace(side, period_ms=reported_ms)
    if reported_periods is not None:
        if spec.overtime == "byo_yomi":
            side = replace(side, periods=reported_periods)
        elif spec.overtime == "canadian":  # 0 stones left: the period is complete, reset
            side = replace(side, stones=reported_periods or spec.stones)
    return _with(state, colour, side)


def adjust(
    state: ClockState,
    colour: Colour,
    *,
    main_ms: int | None = None,
    period_ms: int | None = None,
    periods: int | None = None,
    stones: int | None = None,
) -> ClockState:
    """`colour`'s clock as the referee sets it (LGC Irregularities "Timing error": recorded
    elapsed time "can only be corrected by the referee"; "Faulty clock": "replaced and set by
    the referee"). `period_ms` and `stones` are the current Canadian period's, `periods` the
    byo-yomi periods left. Fields not given keep their value, except that main time given back
    to a Canadian clock in overtime makes its next period start in full; main time 0 with
    overtime is overtime. The flag is not touched: a loss on time the referee finds, or
    overrules, is a game ending the tournament fold records."""
    given = {"main_ms": main_ms, "period_ms": period_ms, "periods": periods, "stones": stones}
    for name, value in given.items():
        if value is not None and value < 0:
            raise ValueError(f"{name} {value} < 0")
    spec = state.spec
    if period_ms is not None and spec.overtime != "canadian":
        raise ValueError("period_ms is the time left in a Canadian period")
    side = state.side(colour)
    main = side.main_ms if main_ms is None else main_ms
    in_overtime = spec.has_overtime and main == 0
    if side.in_overtime and not in_overtime and spec.overtime == "canadian":
        side = replace(side, period_ms=spec.period_ms, stones=spec.stones)
    side = replace(
        side,
        main_ms=main,
        in_overtime=in_overtime,
        period_ms=side.period_ms if period_ms is None else period_ms,
        periods=side.periods if periods is None else periods,
        stones=side.stones if stones is None else stones,
    )
    return _with(state, colour, side)


def flagged(state: ClockState) -> Colour | None:
    """Whose flag fell (lost on time), if any."""
    return state.flagged
