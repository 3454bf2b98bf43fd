"""Reading a PGN file (`read_pgn`): python-chess's `read_game` with a visitor that keeps the
main line only (variations are skipped), the line of every header and move, and refuses the
whole file on the first problem with its line and reason (`PgnError`: an illegal or ambiguous
move, a bad FEN, an unsupported variant, a bad `Result`, a player against themself, no games).
Variant tags Chess960, Chess 960, Fischerandom, FRC, DFRC, Freestyle read as Chess960 boards
(the start from the `FEN` header); Standard / From Position as standard chess."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Literal

import chess
import chess.pgn

from events_schema import events as ev
from services.interchange.pipeline import Progress

Colour = Literal["white", "black"]

_CHESS960 = frozenset(
    {"chess960", "chess 960", "fischerandom", "fischerrandom", "fischer random", "frc", "dfrc"}
    | {"freestyle", "chess960 (frc)", "double fischer random", "doublefischerrandom"}
)
_STANDARD = frozenset({"", "standard", "chess", "normal", "from position", "fromposition"})
_RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


class PgnError(ValueError):
    """A malformed PGN: the line (1-based) and the reason."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


@dataclass(frozen=True, slots=True)
class PgnMove:
    ply: int
    colour: Colour
    uci: str
    line: int
    comment: str


@dataclass
class PgnGame:
    index: int  # 1-based position in the file
    line: int  # its first line
    headers: dict[str, str]
    header_lines: dict[str, int]
    start_fen: str | None  # the FEN to record (None: the standard start)
    moves: list[PgnMove]
    final: ev.Termination | None  # what the position after the last move says, if anything

    def header(self, name: str) -> str:
        value = self.headers.get(name, "").strip()
        return "" if value in ("?", "-") else value


class _Lines(io.StringIO):
    """A text stream that counts the lines read (python-chess reads with `readline`)."""

    line = 0

    def readline(self, size: int = -1, /) -> str:  # type: ignore[override]
        text = super().readline(size)
        if text:
            self.line += 1
        return text


@dataclass
class _Raw:
    line: int
    headers: chess.pgn.Headers = field(default_factory=lambda: chess.pgn.Headers({}))
    header_lines: dict[str, int] = field(default_factory=dict)
    moves: list[PgnMove] = field(default_factory=list)
    comments: list[list[str]] = field(default_factory=list)
    start: chess.Board | None = None
    board: chess.Board | None = None
    error: tuple[int, str] | None = None


class _Visitor(chess.pgn.BaseVisitor[_Raw]):
    """The main line with its lines and comments; the first error with its line."""

    def __init__(self, reader: _Lines) -> None:
        self.reader = reader
        self.raw = _Raw(line=reader.line)

    def _error(self, line: int, reason: str) -> None:
        if self.raw.error is None:
            self.raw.error = (line, reason)

    def begin_game(self) -> None:
        self.raw = _Raw(line=self.reader.line)

    def begin_headers(self) -> chess.pgn.Headers:
        return self.raw.headers

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        line = self.reader.line
        self.raw.header_lines.setdefault(tagname, line)
        if tagname == "Variant":
            variant = tagvalue.strip().lower()
            if variant in _CHESS960:
                tagvalue = "chess960"
            elif variant in _STANDARD:
                return  # standard chess: no Variant for python-chess
            else:
                self._error(line, f"unsupported variant {tagvalue!r} (chess and Chess960 only)")
                return
        self.raw.headers[tagname] = tagvalue

    def begin_variation(self) -> chess.pgn.SkipType:
        return chess.pgn.SKIP  # the main line only

    def visit_board(self, board: chess.Board) -> None:
        if self.raw.start is None:
            self.raw.start = board.copy(stack=False)
        self.raw.board = board

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        line = self.reader.line
        if not move:
            self._error(line, "a null move (--) is not a move")
            return
        ply = len(self.raw.moves) + 1
        colour: Colour = "white" if board.turn == chess.WHITE else "black"
        self.raw.moves.append(PgnMove(ply, colour, board.uci(move), line, ""))
        self.raw.comments.append([])

    def visit_comment(self, comment: str) -> None:
        if self.raw.comments:
            self.raw.comments[-1].append(comment)

    def handle_error(self, error: Exception) -> None:
        if self.raw.start is None:  # before the board: the FEN (or the variant)
            line = self.raw.header_lines.get("FEN", self.raw.line)
        else:
            line = self.reader.line
        self._error(line, str(error))

    def result(self) -> _Raw:
        return self.raw


def decode(data: bytes) -> str:
    """UTF-8 (a BOM is dropped), else Latin-1 (the PGN standard's own)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def read_pgn(text: str, progress: Progress | None = None) -> list[PgnGame]:
    """Every game of a PGN text, or `PgnError` for the first problem."""
    reader = _Lines(text)
    total = len(text)
    games: list[PgnGame] = []
    while True:
        raw = chess.pgn.read_game(reader, Visitor=lambda: _Visitor(reader))
        if raw is None:
            break
        if raw.error is not None:
            raise PgnError(*raw.error)
        games.append(_game(raw, len(games) + 1))
        if progress is not None:
            progress("read", reader.tell(), total)
    if not games:
        raise PgnError(max(reader.line, 1), "no games in the file")
    return games


def _game(raw: _Raw, index: int) -> PgnGame:
    headers = {k: v for k, v in raw.headers.items()}
    lines = raw.header_lines
    if not headers:
        raise PgnError(raw.line, "not a PGN game: no tag pairs ([Event …], [White …], …)")
    result = headers.get("Result", "*").strip()
    if result not in _RESULTS:
        raise PgnError(lines.get("Result", raw.line), f"Result {result!r} is not a PGN result")
    for side in ("White", "Black"):
        name = headers.get(side, "").strip()
        if len(name) > 200:
            raise PgnError(lines.get(side, raw.line), f"{side} is longer than 200 characters")
    white, black = player_name(headers, "White"), player_name(headers, "Black")
    if white == black:
        raise PgnError(
            lines.get("Black", raw.line), f"White and Black are the same player ({white!r})"
        )
    start = raw.start
    chess960 = headers.get("Variant") == "chess960"
    fen: str | None = None
    if start is not None and (chess960 or "FEN" in headers):
        fen = headers.get("FEN", start.fen()).strip()
        if fen == chess.STARTING_FEN and not chess960:
            fen = None
        elif len(fen) > 100:
            raise PgnError(lines.get("FEN", raw.line), "FEN longer than 100 characters")
    moves = [
        PgnMove(m.ply, m.colour, m.uci, m.line, " ".join(c.strip() for c in comments).strip())
        for m, comments in zip(raw.moves, raw.comments, strict=True)
    ]
    return PgnGame(index, raw.line, headers, dict(lines), fen, moves, _final(raw.board))


def _final(board: chess.Board | None) -> ev.Termination | None:
    """The ending the final position shows: mate, stalemate, bare material, or a position
    there for the third time / fifty moves on (claimable)."""
    if board is None:
        return None
    if board.is_checkmate():
        return "checkmate"
    if board.is_stalemate():
        return "stalemate"
    if board.is_insufficient_material():
        return "insufficient_material"
    if board.is_repetition(3):
        return "threefold_repetition"
    if board.halfmove_clock >= 100:
        return "fifty_move_rule"
    return None


def player_name(headers: dict[str, str], side: str) -> str:
    name = headers.get(side, "").strip()
    return name if name and name not in ("?", "-") else f"? ({side})"
