"""Reading SGF files (`read_sgf`, `read_all`; sgfmill only: `sgf_grammar.parse_sgf_collection`
for one game or a collection per file, `Sgf_game.from_coarse_game_tree`, node properties
through sgfmill's own interpretation), refusing the whole import on the first problem with
the file, the game, the node and the reason (`SgfError`); and the values SGF writes: RE
(`read_result`, `margin_text`), ranks (`read_rank`). What is refused is listed in the
package (`services/interchange/sgf/__init__.py`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any, Literal

from sgfmill import sgf, sgf_grammar

from events_schema import events as ev
from events_schema.go import RANK_PATTERN
from projections.go.board import GoBoard, Point, format_point
from projections.go.handicap import handicap_points
from services.interchange.pipeline import Progress

Colour = Literal["black", "white"]

DEFAULT_KOMI = Decimal("7.5")
MIN_SIZE, MAX_SIZE = 5, 25  # TournamentCreated.board_size
MAX_NAME = 200
_SIDE = {"black": "Black", "white": "White"}
_RESULT_OF_WINNER: dict[str, ev.Result] = {"B": "0-1", "W": "1-0"}  # "1-0": White won
_REASONS: dict[str, tuple[ev.Termination, str]] = {
    "r": ("resignation", "resignation"),
    "resign": ("resignation", "resignation"),
    "resignation": ("resignation", "resignation"),
    "t": ("time_forfeit", "time forfeit"),
    "time": ("time_forfeit", "time forfeit"),
    "f": ("forfeit", "forfeit"),
    "forfeit": ("forfeit", "forfeit"),
}
_RANK = re.compile(r"^\s*(\d{1,2})\s*(k|kyu|d|dan|p|pro)\s*[?*]?\s*$", re.IGNORECASE)
# Rules an LGC count agrees with in spirit (territory and prisoners): no note for them.
_TERRITORY_RULES = frozenset({"", "japanese", "jp", "korean", "lgc", "british", "bga"})


class SgfError(ValueError):
    """A malformed SGF: the file, the game (1-based, in a collection), the node (0 is the
    root; None when sgfmill could not parse the game at all) and the reason."""

    def __init__(self, file: str, game: int, node: int | None, reason: str, many: bool) -> None:
        self.file, self.game, self.node, self.reason = file, game, node, reason
        self.where = _where(file, game, node, many)
        super().__init__(f"{self.where}: {reason}")


def _where(file: str, game: int, node: int | None, many: bool) -> str:
    parts = [file]
    if many:
        parts.append(f"game {game}")
    if node is not None:
        parts.append(f"node {node}")
    return " ".join(parts)


@dataclass(frozen=True, slots=True)
class SgfResult:
    """An RE value: `result` PGN-style ("1-0" White won), `margin` Black's minus White's
    (positive: Black won) when RE gives one."""

    text: str
    result: ev.Result | None
    termination: ev.Termination | None
    words: str
    margin: Decimal | None = None

    @property
    def counted(self) -> bool:
        return self.termination == "counting"


def read_result(text: str) -> SgfResult | None:
    """The meaning of an RE value; None when it is not an SGF result."""
    t = text.strip()
    low = t.lower()
    if low in ("", "?", "void"):
        return SgfResult(t, None, None, "void" if low == "void" else "unknown")
    if low in ("0", "draw", "jigo"):
        return SgfResult(t, "1/2-1/2", "counting", "counting", Decimal(0))
    m = re.fullmatch(r"([BbWw])\s*\+\s*(.*)", t)
    if m is None:
        return None
    winner = m.group(1).upper()
    result = _RESULT_OF_WINNER[winner]
    reason = m.group(2).strip()
    if not reason:
        return SgfResult(t, result, "other", "win")
    if reason.lower() in _REASONS:
        termination, words = _REASONS[reason.lower()]
        return SgfResult(t, result, termination, words)
    try:
        margin = Decimal(reason)
    except InvalidOperation:
        return None
    if not margin.is_finite() or margin < 0 or margin > 20_000:
        return None
    return SgfResult(t, result, "counting", "counting", margin if winner == "B" else -margin)


def margin_text(margin: Decimal) -> str:
    """ "B+2.5" / "W+2.5" / "0" (jigo) for a margin (Black's minus White's)."""
    if margin == 0:
        return "0"
    return f"{'B' if margin > 0 else 'W'}+{abs(margin).normalize():f}"


def read_rank(text: str) -> str | None:
    """A BR/WR value as an `events_schema.go` rank ("5k", "2d", "1p"), None when it is none."""
    m = _RANK.match(text)
    if m is None:
        return None
    rank = f"{int(m.group(1))}{m.group(2)[0].lower()}"
    return rank if re.match(RANK_PATTERN, rank) else None


@dataclass(frozen=True, slots=True)
class SgfMove:
    ply: int
    colour: Colour
    point: str  # GTP vertex, or "pass"
    node: int


@dataclass
class SgfGame:
    file: str
    index: int  # 1-based position in its file
    many: bool  # the file is a collection of several games
    size: int
    komi: Decimal | None  # KM; None when absent
    handicap: int
    black: str  # PB / PW as written ("" when absent)
    white: str
    black_rank: str  # BR / WR as written
    white_rank: str
    result: SgfResult
    rules: str  # RU
    event: str  # EV
    round: str  # RO
    dates: list[date]
    moves: list[SgfMove]
    dead: list[str]  # stones the last node marks dead (TB/TW), GTP vertices
    notes: list[str] = field(default_factory=list)

    def where(self, node: int | None) -> str:
        return _where(self.file, self.index, node, self.many)


class _Reader:
    """One game's properties, each problem an `SgfError` naming its node."""

    def __init__(self, file: str, index: int, many: bool) -> None:
        self.file, self.index, self.many = file, index, many

    def error(self, node: int | None, reason: str) -> SgfError:
        return SgfError(self.file, self.index, node, reason, self.many)

    def get(self, node: Any, n: int, ident: str) -> Any:
        """sgfmill's interpretation of property `ident` of `node`, None when absent."""
        if not node.has_property(ident):
            return None
        try:
            return node.get(ident)
        except ValueError as exc:
            raw = b"][".join(node.get_raw_list(ident)).decode("utf-8", "replace")
            why = f": {exc}" if str(exc) else ""
            raise self.error(n, f"{ident}[{raw}] is malformed{why}") from None

    def text(self, node: Any, n: int, ident: str) -> str:
        value = self.get(node, n, ident)
        return "" if value is None else str(value).strip()


def read_sgf(file_name: str, data: bytes) -> list[SgfGame]:
    """Every game of an SGF file (one game or a collection), or `SgfError` for the first
    problem."""
    try:
        trees = sgf_grammar.parse_sgf_collection(data)
    except ValueError as exc:
        text = str(exc)
        m = re.match(r"error parsing game (\d+): (.*)$", text)
        game = int(m.group(1)) + 1 if m is not None else 1
        reason = m.group(2) if m is not None else text
        raise SgfError(file_name, game, None, f"not SGF: {reason}", True) from None
    many = len(trees) > 1
    games: list[SgfGame] = []
    for i, tree in enumerate(trees, 1):
        reader = _Reader(file_name, i, many)
        try:
            game = sgf.Sgf_game.from_coarse_game_tree(tree)
        except ValueError as exc:  # a bad SZ or CA (sgfmill names the property)
            raise reader.error(0, str(exc)) from None
        games.append(_read_game(game, reader))
    return games


def _read_game(game: Any, r: _Reader) -> SgfGame:
    root = game.get_root()
    size = game.get_size()
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise r.error(0, f"SZ[{size}]: board sizes {MIN_SIZE} to {MAX_SIZE} only")
    gm = r.get(root, 0, "GM")
    if gm is not None and gm != 1:
        raise r.error(0, f"GM[{gm}] is not a Go game (GM[1])")
    komi: Decimal | None = None
    if root.has_property("KM"):
        raw = root.get_raw("KM").decode("ascii", "replace").strip()
        try:
            komi = Decimal(raw)
        except InvalidOperation:
            raise r.error(0, f"KM[{raw}] is not a number") from None
        if not komi.is_finite() or abs(komi) > 1000 or komi != round(komi, 1):
            raise r.error(0, f"KM[{raw}]: komi is a number of at most one decimal, ±1000")
        # one decimal at most, as GoScore keeps it ("7.50" is 7.5, "6.0" is 6)
        komi = komi.quantize(Decimal(1) if komi == komi.to_integral() else Decimal("0.1"))
    ha = r.get(root, 0, "HA")
    if ha is not None and not 0 <= ha <= 9:
        raise r.error(0, f"HA[{ha}]: a handicap of 0 to 9 stones")
    notes: list[str] = []
    handicap, stones = _handicap(root, r, size, ha, notes)
    names: dict[str, str] = {}
    for ident in ("PB", "PW"):
        names[ident] = r.text(root, 0, ident)
        if len(names[ident]) > MAX_NAME:
            raise r.error(0, f"{ident} is longer than {MAX_NAME} characters")
    re_text = r.text(root, 0, "RE")
    result = read_result(re_text)
    if result is None:
        raise r.error(
            0,
            f"RE[{re_text}] is not an SGF result (B+R, W+T, B+F, B+3.5, W+, 0, Draw, Void, ?)",
        )
    board = GoBoard(size, handicap, stones or None)
    moves: list[SgfMove] = []
    nodes = game.get_main_sequence()
    for n, node in enumerate(nodes):
        if n > 0 and node.has_setup_stones():
            raise r.error(n, "setup stones (AB/AW/AE) after the root node are not supported")
        if node.has_property("B") and node.has_property("W"):
            raise r.error(n, "a node with both a Black and a White move")
        colour_code, raw = node.get_raw_move()
        if colour_code is None:
            continue
        ident = colour_code.upper()
        shown = raw.decode("utf-8", "replace")
        if n == 0 and stones:
            raise r.error(0, f"{ident}[{shown}]: a move in the root node beside setup stones")
        try:
            _, move = node.get_move()
        except ValueError:
            raise r.error(n, f"{ident}[{shown}] is not a point of a {size}x{size} board") from None
        colour: Colour = "black" if colour_code == "b" else "white"
        if colour != board.to_move:
            raise r.error(n, _out_of_turn(colour, board.to_move, moves, handicap))
        try:
            board.play(colour, move)
        except ValueError as exc:
            raise r.error(n, f"{ident}[{shown}]: {exc}") from None
        moves.append(SgfMove(len(moves) + 1, colour, format_point(move, size), n))
    dead = _dead(nodes[-1], len(nodes) - 1, r, board, size)
    rules = r.text(root, 0, "RU")
    if rules.lower() not in _TERRITORY_RULES:
        notes.append(
            f"RU[{rules}]: Arbiter counts by the LGC rules (territory and prisoners, pass "
            "stones included)"
        )
    return SgfGame(
        file=r.file,
        index=r.index,
        many=r.many,
        size=size,
        komi=komi,
        handicap=handicap,
        black=names["PB"],
        white=names["PW"],
        black_rank=r.text(root, 0, "BR"),
        white_rank=r.text(root, 0, "WR"),
        result=result,
        rules=rules,
        event=r.text(root, 0, "EV"),
        round=r.text(root, 0, "RO"),
        dates=_dates(r.text(root, 0, "DT")),
        moves=moves,
        dead=dead,
        notes=notes,
    )


def _handicap(
    root: Any, r: _Reader, size: int, ha: int | None, notes: list[str]
) -> tuple[int, list[Point]]:
    """The handicap and its stones (the fixed points); AB elsewhere is refused."""
    ab = r.get(root, 0, "AB") or set()
    if r.get(root, 0, "AW"):
        raise r.error(0, "White setup stones (AW) are not supported: handicap stones are Black's")
    if r.get(root, 0, "AE"):
        raise r.error(0, "AE (points cleared) is not supported in the root node")
    n = ha if ha is not None else len(ab)
    if ab and len(ab) != n:
        raise r.error(0, f"HA[{n}] but {len(ab)} handicap stones in AB")
    if n < 2:
        if ab:
            raise r.error(0, "a single handicap stone (AB) is not a handicap (2 to 9 stones)")
        return n, []
    try:
        fixed = handicap_points(size, n)
    except ValueError as exc:
        raise r.error(0, f"free handicap placement is not supported: {exc}") from None
    if not ab:
        notes.append(f"HA[{n}] without AB: the fixed handicap points")
    elif set(ab) != set(fixed):
        placed = ", ".join(format_point(p, size) for p in sorted(ab))
        expected = ", ".join(format_point(p, size) for p in fixed)
        raise r.error(
            0,
            f"free handicap placement is not supported: AB {placed} are not the fixed points "
            f"of {n} stones on {size}x{size} ({expected})",
        )
    return n, list(fixed)


def _out_of_turn(colour: Colour, to_move: Colour, moves: list[SgfMove], handicap: int) -> str:
    ident = "B" if colour == "black" else "W"
    if not moves:
        if handicap >= 2:
            return f"{ident} moves first: White moves first after the handicap stones"
        return f"{ident} moves first: Black moves first in an even game"
    return (
        f"{ident} moves out of turn: {_SIDE[to_move]} is to move (two {_SIDE[colour]} moves in "
        f"a row, the last at node {moves[-1].node})"
    )


def _dead(node: Any, n: int, r: _Reader, board: GoBoard, size: int) -> list[str]:
    """The stones the last node marks dead: white stones in Black's territory (TB), black
    stones in White's (TW)."""
    dead: set[Point] = set()
    for ident, colour in (("TB", "white"), ("TW", "black")):
        for p in r.get(node, n, ident) or set():
            if board.colour_at(p) == colour:
                dead.add(p)
    return [format_point(p, size) for p in sorted(dead)]


def _dates(text: str) -> list[date]:
    out: list[date] = []
    for y, m, d in re.findall(r"(\d{4})-(\d{2})-(\d{2})", text):
        try:
            day = date(int(y), int(m), int(d))
        except ValueError:
            continue
        if date(1800, 1, 1) <= day <= date(2199, 12, 31):
            out.append(day)
    return out


def read_all(files: Sequence[tuple[str, bytes]], progress: Progress | None = None) -> list[SgfGame]:
    """Every game of every file, in order (`SgfError` for the first problem)."""
    games: list[SgfGame] = []
    for n, (name, data) in enumerate(files, 1):
        games.extend(read_sgf(name, data))
        if progress is not None:
            progress("read", n, len(files))
    return games
