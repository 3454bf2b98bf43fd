"""The improved TCEC draw rule, exactly as written (tcec-rules Swiss 6.b = Cup 6.b =
Leagues 10.2 = FRD 6.b):

    "The improved TCEC draw rule applies when a game has reached a position with 6 or fewer
    pieces (including kings, excluding pawns) and where the engine evaluation of the move
    leading to the position was in [-0.25,0.25]. The game is adjudicated as a draw if the draw
    rule applies on 8 consecutive plies. The counter resets to 0 in the following cases: (1) if
    the draw rule ceases to apply because of a pawn promotion causing a 7th piece to appear, or
    (2) an evaluation outside of the [-0.25,0.25] range or the absence of an evaluation by an
    engine appears. There is no reset for capture or pawn move, and no stipulated minimum move
    number for adjudication."

Reading: after each ply the rule *applies* when the position has at most 6 men that are not
pawns (kings counted) and the evaluation of the move that reached it is in [-25, 25]
centipawns, both bounds included. A mate score, or no evaluation (a book move), is outside.
The counter counts consecutive plies on which it applies; it fires on the 8th. Both reset
cases are the rule ceasing to apply (pieces only grow by promotion), so a counter of
consecutive applying plies is the rule; captures and pawn moves do not reset it.

`ARENA_DISPLAY` is another reading, kept only to explain the real PGNs: the `Rd` field TCEC
writes in its move comments (8 − counter, −9 when 0) follows "≤ 6 pieces *not counting kings*"
and resets on captures and pawn moves. It agrees with the written reading on every adjudication
in the sample PGNs (tests/integration/interchange/test_endings_real_pgns.py) but not on every ply.
"""

from __future__ import annotations

from dataclasses import dataclass

import chess

PLIES = 8
MAX_MEN = 6  # non-pawn men, kings included
EVAL_BOUND_CP = 25  # [-0.25, 0.25] pawns


@dataclass(frozen=True, slots=True)
class DrawRuleReading:
    max_men: int = MAX_MEN
    reset_on_zeroing: bool = False  # reset on a capture or pawn move
    plies: int = PLIES
    bound_cp: int = EVAL_BOUND_CP


WRITTEN = DrawRuleReading()
ARENA_DISPLAY = DrawRuleReading(max_men=8, reset_on_zeroing=True)


def non_pawn_men(board: chess.Board) -> int:
    """Men on the board that are not pawns, kings included."""
    return (board.occupied & ~board.pawns).bit_count()


def in_window(eval_cp: int | None, mate_in: int | None, bound_cp: int = EVAL_BOUND_CP) -> bool:
    """The move's evaluation is in [-bound, bound]; a mate score or no evaluation is not."""
    return mate_in is None and eval_cp is not None and -bound_cp <= eval_cp <= bound_cp


def step(
    count: int,
    men: int,
    eval_cp: int | None,
    mate_in: int | None = None,
    *,
    zeroing: bool = False,
    reading: DrawRuleReading = WRITTEN,
) -> int:
    """The counter after one ply: `men` non-pawn men in the position reached, the evaluation of
    the move that reached it, `zeroing` whether that move was a capture or a pawn move."""
    if (
        men <= reading.max_men
        and in_window(eval_cp, mate_in, reading.bound_cp)
        and not (zeroing and reading.reset_on_zeroing)
    ):
        return count + 1
    return 0


def fires(count: int, reading: DrawRuleReading = WRITTEN) -> bool:
    return count >= reading.plies


def detail(citation: str, reading: DrawRuleReading = WRITTEN) -> str:
    bound = reading.bound_cp / 100
    return (
        f"TCEC draw rule: {reading.plies} plies with ≤{reading.max_men} pieces and "
        f"|eval| ≤ {bound:.2f} ({citation})"
    )
