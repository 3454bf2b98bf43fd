"""Tablebase adjudication (tcec-rules Swiss 6.c = Cup 6.c = Leagues 10.3 = FRD 6.c):
"Cutechess-cli will adjudicate positions with 6 pieces automatically with Syzygy tablebases."

Reading: "6 pieces" counts every man, kings and pawns included, as Syzygy counts them (a
"6-man" table); a position with 6 or fewer men and no castling rights is adjudicated by its
win/draw/loss for the side to move. It runs only when a `Prober` is configured: never
implicitly. Probers that open files (Syzygy, Gaviota) live in services/; a prober returns None
for a position it cannot answer (too many men, a missing table), and must report a Syzygy
cursed win or blessed loss (won or lost only by ignoring the fifty-move rule) as a draw, as
cutechess-cli does (the fifty-move rule is in force, Swiss 6.a).
"""

from __future__ import annotations

from typing import Literal, Protocol

import chess

from projections.endings.ending import Ending, win_for
from projections.endings.rules import Ruleset

WDL = Literal["win", "draw", "loss"]


class Prober(Protocol):
    """Win/draw/loss of a position for the side to move, or None when unknown.

    A prober may also say which tables answered its last probe (`last_tables`, e.g.
    "Gaviota"), or which it opens (`kind`); the ending's detail names them. Without either
    the detail names Syzygy, the tables TCEC adjudicates with."""

    def probe_wdl(self, board: chess.Board) -> WDL | None: ...


def tables_of(prober: Prober) -> str:
    """The name of the tables that answered `prober`'s last probe (default "Syzygy")."""
    name = getattr(prober, "last_tables", None) or getattr(prober, "kind", None)
    return str(name) if name else "Syzygy"


def men(board: chess.Board) -> int:
    """All men on the board, kings and pawns included (the Syzygy count)."""
    return board.occupied.bit_count()


def _colour(white: bool) -> str:
    return "White" if white else "Black"


def ruling(
    board: chess.Board, wdl: WDL, citation: str, ply: int, *, what: str = "Syzygy tablebase"
) -> Ending:
    """The ending a tablebase verdict for the side to move gives."""
    n = men(board)
    mover = _colour(board.turn)
    if wdl == "draw":
        return Ending(
            "1/2-1/2",
            "tablebase",
            citation,
            f"{what} adjudication: {n} men, a draw ({citation})",
            ply,
        )
    winner_white = board.turn == chess.WHITE if wdl == "win" else board.turn == chess.BLACK
    return Ending(
        win_for(winner_white),
        "tablebase",
        citation,
        f"{what} adjudication: {n} men, {mover} to move {'wins' if wdl == 'win' else 'loses'}"
        f" ({citation})",
        ply,
    )


def adjudicate_position(
    board: chess.Board, ruleset: Ruleset, prober: Prober | None, ply: int
) -> Ending | None:
    """The tablebase ending of this position under `ruleset`, or None (no prober, no tablebase
    rule in this preset, too many men, castling rights left, or the prober does not know)."""
    limit = ruleset.tablebase_men
    if prober is None or limit is None:
        return None
    if board.occupied.bit_count() > limit or board.castling_rights:
        return None
    wdl = prober.probe_wdl(board)
    if wdl is None:
        return None
    what = f"{tables_of(prober)} tablebase"
    return ruling(board, wdl, ruleset.citation("tablebase"), ply, what=what)
