"""Reading a PGN file (`read_pgn`): python-chess's `read_game` with a visitor that keeps the
main line only (variations are skipped), the line of every header and move, and refuses the
whole file on the first problem with its line and reason (`PgnError`: an illegal or ambiguous
move, a bad FEN, an unsupported variant, a bad `Result`, a player against themself, no games).
Variant tags Chess960, Chess 960, Fischerandom, FRC, DFRC, Freestyle read as Chess960 boards
(the start from the `FEN` header); Standard / From Position as standard chess.

A game ends only where its moves say it does (issue 25): the movetext's final token
(`1-0`, `0-1`, `1/2-1/2`) is its result, and a game without one (or with `*`) is in progress
(`PgnGame.in_progress`), whatever its `Result` tag says — a live file keeps `[Result "*"]`
while the game runs, a file cut in mid-game keeps the tag of the finished game. A `Result`
tag that names another result than the final token is refused naming its line (the file says
two things and either could be the slip: nothing is guessed); a tag given twice is refused
naming the second (the first used to be replaced silently). A file cut inside a move or a
move's comment is the game up to its last complete move (`PgnGame.cut`): a partial move is
not a move, and a move whose comment was cut has facts (clock, time) not yet known.

A file that would be misread is refused naming the line (issue 26 item 6): a `Round` naming a
round or board beyond `MAX_ROUND` ("999…9.1" would otherwise read as no round and reorder
the rounds), a `WhiteElo`/`BlackElo` that is not a rating 0–4000, a control character (a NUL
byte) in any tag value, and a game beyond the bound of one import (`max_games`)."""

from __future__ import annotations

import codecs
import io
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Literal, TextIO, cast

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
#: The largest round (and board) a `Round` tag may name, as `POST /tournaments/{id}/pair`
#: bounds a round (services/api/pairing.py): "999…9.1" is refused, not read as "no round".
MAX_ROUND = 10_000
_ROUND = re.compile(r"\s*(\d+)(?:\.(\d+))?")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_FINAL = ("1-0", "0-1", "1/2-1/2")


class PgnError(ValueError):
    """A malformed PGN: the line (1-based) and the reason."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason
        self.headers: dict[str, str] = {}  # the tags of the game refused (`read_games`)


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
    token: str | None = None  # the movetext's final token (None: the movetext has none)
    token_line: int | None = None
    cut: bool = False  # the text ended inside a move or its comment (dropped)

    @property
    def result(self) -> str:
        """The result the moves say: the final token, `*` while the game is in progress."""
        return self.token if self.token in _FINAL else "*"

    @property
    def in_progress(self) -> bool:
        return self.result == "*"

    def header(self, name: str) -> str:
        value = self.headers.get(name, "").strip()
        return "" if value in ("?", "-") else value


class _Lines:
    """A text stream read line by line, counting the lines (python-chess reads with
    `readline`): a string (`io.StringIO`) or a file's bytes decoded as they are read
    (`text_stream`), so that a big file is never held as text (issue 26 item 6)."""

    def __init__(self, stream: TextIO, position: Callable[[], int]) -> None:
        self.stream = stream
        self.position = position  # how far the reading is (for the progress bar)
        self.line = 0
        self.last = ""  # the last line read ("" at the end of the text)

    def readline(self, size: int = -1, /) -> str:
        text = self.stream.readline(size)
        if text:
            self.line += 1
        self.last = text
        return text

    def rest_blank(self) -> bool:
        """Whether nothing but blanks is left to read (the position is kept)."""
        at = self.stream.tell()
        try:
            while chunk := self.stream.read(1 << 16):
                if chunk.strip():
                    return False
            return True
        finally:
            self.stream.seek(at)


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
    token: str | None = None  # the movetext's result token
    token_line: int | None = None
    cut: bool = False  # the text ends inside a move or its comment


class _Visitor(chess.pgn.BaseVisitor[_Raw]):
    """The main line with its lines and comments; the first error with its line."""

    def __init__(self, reader: _Lines) -> None:
        self.reader = reader
        self.raw = _Raw(line=reader.line)
        self.san: str | None = None  # the SAN token being parsed

    def _error(self, line: int, reason: str) -> None:
        if self.raw.error is None:
            self.raw.error = (line, reason)

    def begin_game(self) -> None:
        self.raw = _Raw(line=self.reader.line)

    def begin_headers(self) -> chess.pgn.Headers:
        return self.raw.headers

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        line = self.reader.line
        first = self.raw.header_lines.setdefault(tagname, line)
        if first != line:
            self._error(line, f"tag {tagname} given twice (first at line {first})")
            return
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

    def begin_parse_san(self, board: chess.Board, san: str) -> None:
        self.san = san

    def visit_result(self, result: str) -> None:
        if self.raw.token is None:
            self.raw.token, self.raw.token_line = result, self.reader.line

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        self.san = None
        line = self.reader.line
        if self.raw.token is not None:
            self._error(
                line, f"a move after the result {self.raw.token} (line {self.raw.token_line})"
            )
            return
        if not move:
            self._error(line, "a null move (--) is not a move")
            return
        ply = len(self.raw.moves) + 1
        colour: Colour = "white" if board.turn == chess.WHITE else "black"
        self.raw.moves.append(PgnMove(ply, colour, board.uci(move), line, ""))
        self.raw.comments.append([])

    def visit_comment(self, comment: str) -> None:
        if self.reader.last == "":  # the text ended before the comment's "}"
            self.raw.cut = True
            if self.raw.comments:  # the move it comments is not complete yet
                self.raw.moves.pop()
                self.raw.comments.pop()
            return
        if self.raw.comments:
            self.raw.comments[-1].append(comment)

    def handle_error(self, error: Exception) -> None:
        if self.raw.start is None:  # before the board: the FEN (or the variant)
            line = self.raw.header_lines.get("FEN", self.raw.line)
        else:
            line = self.reader.line
            san, self.san = self.san, None
            if san is not None and self._last_token(san):
                self.raw.cut = True  # a move cut short at the end of the text: not a move
                return
        self._error(line, str(error))

    def _last_token(self, san: str) -> bool:
        """Whether `san` is the last thing in the text (a file cut inside a move)."""
        tail = self.reader.last.rstrip()
        at = tail.rfind(san)
        # the token, then at most its cut-off rest ("a8=" of "a8=Q"), ends the text
        return at >= 0 and len(tail[at:].split()) == 1 and self.reader.rest_blank()

    def result(self) -> _Raw:
        return self.raw


def decode(data: bytes) -> str:
    """UTF-8 (a BOM is dropped), else Latin-1 (the PGN standard's own)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def read_pgn(
    text: str, progress: Progress | None = None, max_games: int | None = None
) -> list[PgnGame]:
    """Every game of a PGN text, or `PgnError` for the first problem."""
    games: list[PgnGame] = []
    for game in read_games(text, progress, max_games):
        if isinstance(game, PgnError):
            raise game
        games.append(game)
    return games


def text_stream(data: bytes) -> tuple[TextIO, Callable[[], int]]:
    """`data` as a text stream decoded while it is read, as `decode` decodes it (UTF-8 with
    its BOM dropped, else Latin-1: the check runs over the bytes in chunks, never holding the
    text), with how many bytes were read so far. Lines end at "\\n" only, untranslated, as
    `io.StringIO` reads them."""
    encoding = "utf-8-sig"
    check = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    try:
        for at in range(0, len(view), 1 << 20):
            check.decode(view[at : at + (1 << 20)])
        check.decode(b"", final=True)
    except UnicodeDecodeError:
        encoding = "latin-1"
    raw = io.BytesIO(data)  # (shares the bytes: no copy)
    return io.TextIOWrapper(raw, encoding=encoding, newline="\n"), raw.tell


def read_games(
    text: str, progress: Progress | None = None, max_games: int | None = None
) -> list[PgnGame | PgnError]:
    """Every game of a PGN text, each read or refused on its own (`PgnError` in its place: a
    live source's game with an illegal move is held while the others go on); no games at
    all is `PgnError`, and so is a game beyond `max_games` (the bound of one import,
    `events_schema.limits.Limits.max_import_games`: read no further)."""
    stream = io.StringIO(text)
    return list(iter_games(stream, stream.tell, len(text), progress, max_games))


def iter_games(
    stream: TextIO,
    position: Callable[[], int],
    total: int,
    progress: Progress | None = None,
    max_games: int | None = None,
) -> Iterator[PgnGame | PgnError]:
    """`read_games` over a text stream, one game at a time (`position()` of `total`: how
    far the reading is, for `progress`)."""
    reader = _Lines(stream, position)
    n = 0
    while True:
        raw = chess.pgn.read_game(cast(TextIO, reader), Visitor=lambda: _Visitor(reader))
        if raw is None:
            break
        if max_games is not None and n >= max_games:
            raise PgnError(
                raw.line,
                f"more than {max_games:,} games: the most one import may hold "
                "(limits.max_import_games, ARBITER_MAX_IMPORT_GAMES); split the file",
            )
        n += 1
        try:
            if raw.error is not None:
                raise PgnError(*raw.error)
            game: PgnGame | PgnError = _game(raw, n)
        except PgnError as exc:
            exc.headers = dict(raw.headers.items())
            game = exc
        if progress is not None:
            progress("read", position(), total)
        yield game
    if not n:
        raise PgnError(max(reader.line, 1), "no games in the file")


def _game(raw: _Raw, index: int) -> PgnGame:
    headers = {k: v for k, v in raw.headers.items()}
    lines = raw.header_lines
    if not headers:
        raise PgnError(raw.line, "not a PGN game: no tag pairs ([Event …], [White …], …)")
    result = headers.get("Result", "*").strip()
    if result not in _RESULTS:
        raise PgnError(lines.get("Result", raw.line), f"Result {result!r} is not a PGN result")
    if result in _FINAL and raw.token in _FINAL and raw.token != result:
        raise PgnError(
            lines.get("Result", raw.line),
            f"Result {result!r} contradicts the movetext's final {raw.token!r} "
            f"(line {raw.token_line}): correct the one that is wrong",
        )
    for tag, value in headers.items():
        if (bad := _CONTROL.search(value)) is not None:
            raise PgnError(
                lines.get(tag, raw.line),
                f"tag {tag} holds the control character U+{ord(bad.group()):04X}: "
                "tag values are printing characters (PGN standard 8.1.1)",
            )
    for side in ("White", "Black"):
        name = headers.get(side, "").strip()
        if len(name) > 200:
            raise PgnError(lines.get(side, raw.line), f"{side} is longer than 200 characters")
        elo = headers.get(f"{side}Elo", "").strip()
        if elo not in ("", "?", "-") and not (elo.isdigit() and int(elo) <= 4000):
            raise PgnError(
                lines.get(f"{side}Elo", raw.line),
                f"{side}Elo {elo[:40]!r} is not a rating: a whole number from 0 to 4000 "
                "(PlayerRegistered.rating), or '?' / '-' for none",
            )
    rnd = _ROUND.match(headers.get("Round", ""))
    if rnd is not None and any(int(n) > MAX_ROUND for n in rnd.groups() if n is not None):
        raise PgnError(
            lines.get("Round", raw.line),
            f"Round {headers['Round'][:40]!r}: a round or board beyond {MAX_ROUND:,}, the most "
            "a tournament schedules",
        )
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
    final = _final(raw.board) if not raw.cut else None
    return PgnGame(
        index, raw.line, headers, dict(lines), fen, moves, final, raw.token, raw.token_line, raw.cut
    )


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
