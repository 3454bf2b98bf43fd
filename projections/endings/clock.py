"""Chess clocks derived from move times and the time control (`events_schema` TimeControl).

One model covers sudden death (no increment), Fischer increments and an increment from move N
(GCT 2022 2.5.1 / 3.5.1 Armageddon: White 5′, Black 4′, 2 s from move 61), with separate bases
per colour:

- a move that takes longer than the time the mover has left overruns it: the flag falls during
  that move (reaching exactly 0 ms with the move made is not a fall);
- otherwise the move time is taken off and, when the mover's move number is at least
  `increment_from_move`, the increment is added on completing the move (as cutechess-cli does,
  and as the TCEC archive's `tl` values show: 1800000 − 60710 + 3000 = 1742290);
- a move without a move time still earns its increment (it was completed), but the time it
  used is unknown, so the mover's clock is **unknown** from then on until the next reported
  clock (the mover's `clock_ms` on a later move, or a `ClockReported`): no flag falls on an
  unknown clock. (Before, such a move left the clock where it was and skipped the increment,
  so a TCEC Season 29 FRD game with one comment lost was "lost on time" two plies later
  although the arena's own `tl` never fell and the game went on to mate.) While unknown, the
  clock kept is an upper bound (the last known clock, the increments earned since, less the
  move times known since), never a reading to show: `known_ms` is None;
- a reported clock (`MovePlayed.clock_ms`, the arena's own) replaces the derived one after the
  move when given: it is the record (e.g. the time compensation of tcec-rules Swiss 7.b.v), and
  a clock that was unknown is known again. A TCEC book move spends no time and earns no
  increment (the `tl` of the first engine move shows it): the importer records it with the
  clock unchanged as its reported clock.

What a fall means is the preset's (`flag_fall_ending`): TCEC always a loss (Swiss 5.b, Cup 5.b,
Leagues 10.5, FRD 5.b, 4k 1.2); FIDE Laws 6.9 a loss unless the opponent cannot checkmate by
any series of legal moves, then a draw — approximated with python-chess
`has_insufficient_material(opponent)`, which judges material only (a fortress of locked pawns
still counts as "can mate"); in a GCT Armageddon game that draw is a win for Black (2.5.2).

Go's clocks (LGC Timing: sudden death, Fischer, Canadian overtime, Japanese byo-yomi) are
`projections/go/clock.py`, the same shape (`ClockSpec.of`, `start`, `apply_move`, `flagged`)
with overtime periods per colour; its sudden death and Fischer are this module's `spend`.
This `ClockSpec.of` stays the chess clock and returns None for Canadian and byo-yomi time
controls (a chess adjudicator must not read them as sudden death).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

import chess

from events_schema.events import TimeControl
from projections.endings.ending import Ending, armageddon, win_for
from projections.endings.rules import Ruleset

Colour = Literal["white", "black"]


@dataclass(frozen=True, slots=True)
class ClockSpec:
    white_base_ms: int
    black_base_ms: int
    increment_ms: int = 0
    increment_from_move: int = 1

    @classmethod
    def of(cls, tc: TimeControl) -> ClockSpec | None:
        """The chess clock of a time control; None for Go overtimes (Canadian, byo-yomi),
        which `projections.go.clock.ClockSpec.of` models."""
        if tc.overtime in ("canadian", "byo_yomi"):
            return None
        white = tc.white_base_seconds if tc.white_base_seconds is not None else tc.base_seconds
        black = tc.black_base_seconds if tc.black_base_seconds is not None else tc.base_seconds
        return cls(
            white_base_ms=white * 1000,
            black_base_ms=black * 1000,
            increment_ms=tc.increment_seconds * 1000,
            increment_from_move=tc.increment_from_move,
        )

    def increment(self, move_number: int) -> int:
        """The increment earned by completing move `move_number` (1-based, per colour)."""
        return self.increment_ms if move_number >= self.increment_from_move else 0


@dataclass(frozen=True, slots=True)
class ClockState:
    spec: ClockSpec
    white_ms: int
    black_ms: int
    white_moves: int = 0
    black_moves: int = 0
    flagged: Colour | None = None
    # False from a move whose time used is unknown until the next reported clock (module
    # docstring); the *_ms of an unknown clock is an upper bound, not a reading.
    white_known: bool = True
    black_known: bool = True

    def remaining(self, colour: Colour) -> int:
        """The clock, or while it is unknown its upper bound (`known_ms` tells them apart)."""
        return self.white_ms if colour == "white" else self.black_ms

    def known(self, colour: Colour) -> bool:
        return self.white_known if colour == "white" else self.black_known

    def known_ms(self, colour: Colour) -> int | None:
        """The clock when known, else None (shown as "–", never a wrong number)."""
        return self.remaining(colour) if self.known(colour) else None


def start(spec: ClockSpec) -> ClockState:
    return ClockState(spec, spec.white_base_ms, spec.black_base_ms)


def spend(remaining_ms: int, move_time_ms: int, increment_ms: int) -> int | None:
    """Time left after a move, or None when the move overran the time left (flag fall)."""
    if move_time_ms > remaining_ms:
        return None
    return remaining_ms - move_time_ms + increment_ms


def apply_move(
    state: ClockState,
    colour: Colour,
    move_time_ms: int | None,
    *,
    move_number: int | None = None,
    reported_ms: int | None = None,
) -> ClockState:
    """The clocks after `colour` moved in `move_time_ms` (None: unknown). `move_number` is the
    game's move number (a FEN start may not begin at 1); by default the colour's own count of
    moves + 1. A state whose flag fell does not change; a flag falls only on a known clock."""
    if state.flagged is not None:
        return state
    white = colour == "white"
    number = move_number
    if number is None:
        number = (state.white_moves if white else state.black_moves) + 1
    left = state.white_ms if white else state.black_ms
    known = state.white_known if white else state.black_known
    increment = state.spec.increment(number)
    if move_time_ms is None:
        left += increment  # completed, so earned; the time it used is unknown
        known = False
    elif known:
        after = spend(left, move_time_ms, increment)
        if after is None:
            if white:
                return replace(state, flagged=colour, white_ms=0)
            return replace(state, flagged=colour, black_ms=0)
        left = after
    else:  # the bound moves as the clock would; no flag falls on an unknown clock
        left = max(left - move_time_ms, 0) + increment
    if reported_ms is not None:
        left, known = reported_ms, True
    if white:
        return replace(state, white_ms=left, white_moves=state.white_moves + 1, white_known=known)
    return replace(state, black_ms=left, black_moves=state.black_moves + 1, black_known=known)


def report(state: ClockState, white_ms: int, black_ms: int) -> ClockState:
    """Both clocks as reported (`ClockReported`): known again. A fallen flag stays fallen."""
    if state.flagged is not None:
        return state
    return replace(state, white_ms=white_ms, black_ms=black_ms, white_known=True, black_known=True)


def flagged(state: ClockState) -> Colour | None:
    """Whose flag fell, if any."""
    return state.flagged


def flag_fall_ending(
    board: chess.Board,
    loser_white: bool,
    ruleset: Ruleset,
    ply: int,
    *,
    armageddon_citation: str | None = None,
) -> Ending:
    """The ending of a flag fall in `board` (the position in which the flag fell) under the
    preset's rule; `armageddon_citation` when the game is a GCT Armageddon game."""
    name = "White" if loser_white else "Black"
    citation = ruleset.citation("time_forfeit")
    if ruleset.flag_fall == "fide-6.9" and board.has_insufficient_material(not loser_white):
        other = "Black" if loser_white else "White"
        ending = Ending(
            "1/2-1/2",
            "time_forfeit",
            citation,
            f"{name}'s flag fell, but {other} cannot checkmate by any series of legal moves "
            f"(material only), so a draw ({citation})",
            ply,
        )
        return armageddon(ending, armageddon_citation) if armageddon_citation else ending
    return Ending(
        win_for(not loser_white),
        "time_forfeit",
        citation,
        f"{name} lost on time ({citation})",
        ply,
    )


@dataclass(frozen=True, slots=True)
class UnknownSpan:
    """A side's clock was unknown from the move at `from_ply` (a move without timing) until
    `to_ply` (the move that reported it again, or the plies in force when a `ClockReported`
    came); `to_ply` None: still unknown at the end."""

    colour: Colour
    from_ply: int
    to_ply: int | None


def unknown_spans(
    moves: Sequence[tuple[Colour, int | None, int | None]],
    reports: Sequence[int] = (),
) -> list[UnknownSpan]:
    """Where each side's clock was unknown (the rule of `apply_move`), from the moves in force
    as (colour, move_time_ms, clock_ms) and the plies in force at each `ClockReported`."""
    out: list[UnknownSpan] = []
    open_: dict[Colour, int] = {}
    reported = sorted(reports)
    r = 0
    for i, (colour, move_time_ms, clock_ms) in enumerate(moves):
        while r < len(reported) and reported[r] <= i:
            for side in sorted(open_):
                out.append(UnknownSpan(side, open_.pop(side), reported[r]))
            r += 1
        ply = i + 1
        if clock_ms is not None:
            if colour in open_:
                out.append(UnknownSpan(colour, open_.pop(colour), ply))
        elif move_time_ms is None and colour not in open_:
            open_[colour] = ply
    if r < len(reported):
        for side in sorted(open_):
            out.append(UnknownSpan(side, open_.pop(side), reported[r]))
    out.extend(UnknownSpan(side, ply, None) for side, ply in open_.items())
    return sorted(out, key=lambda s: (s.from_ply, s.colour))
