"""Openings for the arena, from an EPD or a PGN file, and which game plays which.

Each pair of games plays one opening with colours reversed (TCEC's game pairs; cutechess-cli
`-openings … -repeat`): walking the stage's games in schedule order (round, then board), a game
whose two players met before with the colours the other way round, in a game not yet paired,
is that game's second half and plays its opening; any other game takes the next opening of
the file (cycling when the file runs out). Only the schedule decides, so a resumed or repeated
run gives every game the same opening.

How a game records its opening (both on the command path, so the decider checks them):

- an EPD line is a position without moves: `GameStarted.fen` (TCEC's FRD/DFRC starts and
  "book exit" suites are positions);
- a PGN opening is moves: `GameStarted` (with the PGN's own `FEN` tag, if any) and then its
  moves as `MovePlayed` without times or evaluations, in the same batch, as the TCEC PGNs
  record book moves. The game's record then starts from the real start, so the repetition
  and fifty-move counts, the PGN export and the live page see the whole game.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.pgn


@dataclass(frozen=True)
class Opening:
    name: str
    fen: str | None = None  # the start position (EPD, or a PGN's FEN tag); None: the standard
    moves: tuple[str, ...] = ()  # UCI, from `fen` (PGN)


class OpeningsError(ValueError):
    """An openings file that cannot be read, with the line (EPD) or game (PGN) at fault."""


def start_board(fen: str | None) -> chess.Board:
    """The board a game starts from, as the decider's fold reads `GameStarted.fen` (a FEN is
    read in Chess960 mode so FRC/DFRC castling rights survive); a FEN with only standard
    castling rights is played in standard mode, so engines see the usual castling notation."""
    if fen is None:
        return chess.Board()
    board = chess.Board(fen, chess960=True)
    if not board.has_chess960_castling_rights():
        board.chess960 = False
    return board


def read_openings(path: Path) -> list[Opening]:
    text = path.read_text(encoding="utf-8-sig")
    found = _pgn(path, text) if path.suffix.lower() == ".pgn" else _epd(path, text)
    if not found:
        raise OpeningsError(f"{path}: no openings found")
    return found


def _epd(path: Path, text: str) -> list[Opening]:
    found: list[Opening] = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            board, ops = chess.Board.from_epd(line, chess960=True)
        except ValueError as exc:
            raise OpeningsError(f"{path}:{number}: not an EPD position ({exc})") from None
        if not board.is_valid() or board.is_game_over():
            raise OpeningsError(f"{path}:{number}: not a playable position")
        name = ops.get("id") or ops.get("c0") or f"{path.name}:{number}"
        found.append(Opening(str(name), board.fen()))
    return found


def _pgn(path: Path, text: str) -> list[Opening]:
    import io

    stream = io.StringIO(text)
    found: list[Opening] = []
    while (game := chess.pgn.read_game(stream)) is not None:
        number = len(found) + 1
        if game.errors:
            raise OpeningsError(f"{path}: game {number}: {game.errors[0]}")
        fen = game.headers.get("FEN")
        board = start_board(fen)
        moves = []
        for move in game.mainline_moves():
            moves.append(board.uci(move))
            board.push(move)
        if board.is_game_over():
            raise OpeningsError(f"{path}: game {number}: the opening ends the game")
        head = game.headers
        name = head.get("Opening") or head.get("ECO") or head.get("Event") or f"game {number}"
        found.append(Opening(name if name != "?" else f"game {number}", fen, tuple(moves)))
    return found


def assign(games: Iterable[tuple[str, str, str]], count: int) -> dict[str, int]:
    """The opening index of each game of `games` ((game id, white, black) in schedule order),
    for a file of `count` openings: a colour-reversed replay of an unpaired earlier game of
    the same two players shares its opening; any other game takes the next one."""
    chosen: dict[str, int] = {}
    waiting: dict[tuple[str, str], list[str]] = {}  # (white, black) of first halves
    following = 0
    for game_id, white, black in games:
        firsts = waiting.get((black, white))
        if firsts:
            chosen[game_id] = chosen[firsts.pop(0)]
            continue
        chosen[game_id] = following % count
        following += 1
        waiting.setdefault((white, black), []).append(game_id)
    return chosen
