"""SGF import (`arbiter import sgf FILE…`): Go games as one new tournament, recorded through
the command path, with the contract of the PGN import (`services/interchange/pgn_import.py`: its
`ImportRefused` and `Progress`, and the same dry run, batching and append): all or nothing,
idempotent, a progress callback, the file's result kept beside Arbiter's and every
disagreement reported.

Reading (`read_sgf`, sgfmill only: `sgf_grammar.parse_sgf_collection` for one game or a
collection per file, `Sgf_game.from_coarse_game_tree`, node properties through sgfmill's
own interpretation). The main line of each game only (variations are skipped); nodes are
numbered from the root, node 0. The whole import is refused on the first problem, naming the
file, the game (in a collection), the node and the reason (`SgfError`): SGF that sgfmill
cannot parse (it names no node: the game is named), a property sgfmill cannot interpret
(a bad SZ, KM, HA, a move off the board), a game that is not Go (GM other than 1), a board
size outside 5-25, a node with both B and W, setup stones after the root, White setup
stones (AW) or points cleared (AE), a move out of turn (two B moves in a row; the first
move by the wrong side: Black first in an even game, White after handicap stones), a stone on
an occupied point, an RE that is not an SGF result, a PB/PW longer than 200 characters.

Readings (SGF → events, in this order):

- `TournamentCreated`: game "go"; name from the first EV, else the first file's name;
  format "match" when the import has exactly two players, else "mcmahon" (or `--format`);
  `board_size` from SZ (default 19; every game of one import shares it, else refused naming
  the game's root node); `komi` from the KM of the first even game that has one (handicap below 2;
  default 7.5): the decider counts handicap games with 0.5 (LGC Scoring), so a game whose KM differs
  from the komi Arbiter counts it with gets a note; `rules_preset` None (no Go preset exists
  in `projections/tiebreaks/presets.py`); `adjudication` "rules" with --adjudicate else
  "manual" (a Go ending is never decided by the preset: the count and the resumption stop
  below happen either way); `starts_on`/`ends_on` the earliest and latest DT dates (a DT
  that is not a YYYY-MM-DD date is ignored); `rounds` the number of rounds.
- `PlayerRegistered` per distinct name (PB/PW), in order of first appearance (PB before PW),
  `p001`, …; a missing name is "? (Black)" / "? (White)"; when PB and PW of one game are the
  same name (an engine playing itself: the GNU Go games) the two are "NAME (Black)" and
  "NAME (White)" (noted); `go_rank` from BR/WR read as "5k", "2d", "1p" (also "5 kyu",
  "2 dan", a trailing "?" or "*"), the first the player has; a rank that reads as none is
  ignored and noted.
- `RoundScheduled`: one round per game, in order; when every game has RO, games are grouped
  by the number RO starts with, a round that pairs a player twice split (as the PGN import
  does), and the numbers kept unless a split or a missing RO forces 1, 2, … in order. Game
  ids `g0001`, … by position in the import (files in the order given, games in file order).
- `GameStarted`: `handicap` from HA (AB alone: its number of stones); the handicap stones must
  be the fixed points (`projections/go/handicap.py`) — AB stones elsewhere are refused:
  "free handicap placement is not supported" (the decider knows fixed points only); HA without
  AB: the fixed points (noted). `source`: the file, the game's index in it, `result` RE in
  PGN style ("1-0" White won, "0-1" Black won, "1/2-1/2" jigo, "*" none), `termination` the
  words ("resignation", "time forfeit", "forfeit", "counting", "win", "void", "unknown"), `details`
  the RE verbatim, `plies` the SGF's moves.
- `MovePlayed` per B/W node: `point` the GTP vertex ("D4"), "pass" for sgfmill's None (B[]
  and B[tt] on boards up to 19). Where the SGF plays on after play paused (a Black pass,
  then a White pass) a `GoStatusDisputed` is recorded before the next move (LGC Timing
  "Ending the game" 6: a dispute resumes play, Black first); when both pass at the start of a
  resumption the decider ends the game (the SGF's later moves are not recorded: reported).
- the ending, from RE: "+R"/"+Resign" `GameEnded` resignation, "+T"/"+Time" time_forfeit,
  "+F"/"+Forfeit" forfeit, "B+"/"W+" without a reason "other", each with rule "arena:
  RE[…]" and the winner RE names; a count ("B+3.5", "W+0.5", "0"/"Jigo"/"Draw"): when the
  moves end with play paused, a `GoStatusAgreed` with the dead stones the last node marks
  (white stones in TB, black stones in TW; none without them) and the decider counts (LGC
  Scoring) and ends the game; when play had not paused, or the decider refuses the count (a
  dame unfilled, dead stones that are not whole groups), the SGF's result is recorded as a
  `GameEnded` "counting" with rule "arena: RE[…]" and the game is reported as a
  disagreement. "Void", "?" or no RE: no ending.

Disagreements (`projections.games.disagreement`: another result, another ply, an ending by
rule the RE does not name; and here: a count with another margin than RE's, a count Arbiter
could not make) are in the report of every game and listed in its summary, never hidden. RU
is not a ruleset Arbiter applies: Arbiter counts by the LGC rules (territory and prisoners,
pass stones included), so a game played under other rules gets a note.

All or nothing, idempotent: every file is read in full first; then every command is decided
against an in-memory log (`DryRun`), and only then appended in batches chained by
`expected_seq` within the limits (`_append`), as the PGN import does. Every event id is
derived from the tournament id, the digest of the files (names and bytes, in order), the
options and the command's place (`game:g0003:move:41`), so importing the same files again
appends nothing and an import cut short is completed by running it again.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any, Literal

from sgfmill import sgf, sgf_grammar

from events_schema import Actor
from events_schema import events as ev
from events_schema.go import RANK_PATTERN
from projections.games import disagreement, read_source, rule_text
from projections.go.board import GoBoard, Point, format_point
from projections.go.handicap import handicap_points
from projections.go.scoring import komi_for
from services.eventlog.base import EventLog
from services.interchange.pipeline import (
    AppendReport,
    DryRun,
    ImportRefused,
    Progress,
    Step,
    chunks,
    decide_then_append,
    ended_payload,
    summary,
)

Colour = Literal["black", "white"]

_NAMESPACE = uuid.UUID("5b0c7e0a-3f0e-4d8e-9a55-6f2f1c9d3e71")  # SGF import event ids

DEFAULT_KOMI = Decimal("7.5")
MIN_SIZE, MAX_SIZE = 5, 25  # TournamentCreated.board_size
_MAX_NAME = 200
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


# --- reading -----------------------------------------------------------------------------------


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
        if len(names[ident]) > _MAX_NAME:
            raise r.error(0, f"{ident} is longer than {_MAX_NAME} characters")
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


# --- the plan ----------------------------------------------------------------------------------


@dataclass
class _Player:
    player_id: str
    name: str
    rank: str | None


@dataclass
class _Planned:
    game: SgfGame
    game_id: str
    black: str  # player ids
    white: str
    source: ev.GameSource
    komi: Decimal  # what Arbiter counts this game with
    round: int = 0
    board: int = 0


@dataclass
class SgfPlan:
    created: ev.TournamentCreated
    players: list[_Player]
    games: list[_Planned]
    rounds: dict[int, list[_Planned]]
    notes: list[str]


def _major(text: str) -> int | None:
    m = re.match(r"\s*(\d{1,6})(?!\d)", text)
    return int(m.group(1)) if m is not None and int(m.group(1)) >= 1 else None


def plan(games: Sequence[SgfGame], *, name: str, adjudicate: bool, fmt: str | None) -> SgfPlan:
    """The tournament, players, rounds and games the files record."""
    first = games[0]
    for g in games[1:]:
        if g.size != first.size:
            raise SgfError(
                g.file,
                g.index,
                0,
                f"SZ[{g.size}]: the games of one import share a board size; "
                f"{first.where(0)} is {first.size}x{first.size}",
                g.many,
            )
    even = next((g for g in games if g.handicap < 2 and g.komi is not None), None)
    komi = even.komi if even is not None and even.komi is not None else DEFAULT_KOMI
    players: dict[str, _Player] = {}
    notes: list[str] = []
    planned: list[_Planned] = []

    def register(who: str, written_rank: str, g: SgfGame, ident: str) -> str:
        rank = read_rank(written_rank) if written_rank else None
        if written_rank and rank is None:
            g.notes.append(f"{ident}[{written_rank}] is not a rank (5k, 2d, 1p): ignored")
        player = players.get(who)
        if player is None:
            player = players[who] = _Player(f"p{len(players) + 1:03d}", who, rank)
        elif rank is not None and player.rank is None:
            player.rank = rank
        elif rank is not None and rank != player.rank:
            g.notes.append(f"{ident}[{written_rank}]: {who} is registered as {player.rank}")
        return player.player_id

    for n, g in enumerate(games, 1):
        black = g.black if g.black not in ("", "?", "-") else "? (Black)"
        white = g.white if g.white not in ("", "?", "-") else "? (White)"
        if black == white:
            g.notes.append(f"PB and PW are both {black!r}: registered as two players")
            black, white = f"{black} (Black)"[:_MAX_NAME], f"{white} (White)"[:_MAX_NAME]
        bid = register(black, g.black_rank, g, "BR")
        wid = register(white, g.white_rank, g, "WR")
        counted_with = komi_for(g.handicap, komi)
        if g.komi is not None and g.komi != counted_with:
            g.notes.append(
                f"KM[{g.komi}]: Arbiter counts this game with komi {counted_with} (LGC "
                "Scoring: the tournament's komi in an even game, 0.5 with handicap stones)"
            )
        source = ev.GameSource(
            file=g.file[:500],
            index=g.index,
            result=g.result.result or "*",
            termination=g.result.words,
            details=g.result.text[:2000],
            plies=len(g.moves),
        )
        planned.append(_Planned(g, f"g{n:04d}", bid, wid, source, counted_with))
    rounds = _number_rounds(planned)
    event = next((g.event for g in games if g.event), "")
    dates = sorted(d for g in games for d in g.dates)
    created = ev.TournamentCreated(
        name=(event or name or "SGF import")[:200],
        game="go",
        format=fmt or ("match" if len(players) == 2 else "mcmahon"),
        rounds=len(rounds) or None,
        board_size=first.size,
        komi=komi,
        adjudication="rules" if adjudicate else "manual",
        starts_on=dates[0] if dates else None,
        ends_on=dates[-1] if dates else None,
    )
    return SgfPlan(created, list(players.values()), planned, rounds, notes)


def _number_rounds(games: Sequence[_Planned]) -> dict[int, list[_Planned]]:
    """One round per game; with RO on every game, grouped by its number (split where a round
    pairs a player twice), the numbers kept unless a split forces 1, 2, … in order."""
    majors = [_major(g.game.round) for g in games]
    if any(m is None for m in majors):
        groups: list[tuple[int | None, list[_Planned]]] = [(None, [g]) for g in games]
        keep = False
    else:
        by_major: dict[int, list[list[_Planned]]] = {}
        for g, major in zip(games, majors, strict=True):
            assert major is not None
            subs = by_major.setdefault(major, [])
            for sub in subs:
                if not any({g.white, g.black} & {o.white, o.black} for o in sub):
                    sub.append(g)
                    break
            else:
                subs.append([g])
        keep = all(len(subs) == 1 for subs in by_major.values())
        groups = [(k, sub) for k in sorted(by_major) for sub in by_major[k]]
    rounds: dict[int, list[_Planned]] = {}
    for key, sub in groups:
        number = key if keep and key is not None else len(rounds) + 1
        rounds[number] = sub
        for board, g in enumerate(sub, 1):
            g.round, g.board = number, board
    return dict(sorted(rounds.items()))


# --- the import --------------------------------------------------------------------------------


@dataclass
class SgfGameReport:
    file: str
    index: int
    game_id: str
    round: int
    black: str  # names
    white: str
    source: ev.GameSource
    source_plies: int
    result: str | None = None
    termination: str | None = None
    rule: str | None = None
    plies: int = 0
    detail: str = ""
    counted: str | None = None  # Arbiter's count ("B+2.5"), when it counted
    why: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def disagrees(self) -> bool:
        return self.why is not None

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "index": self.index,
            "game_id": self.game_id,
            "round": self.round,
            "black": self.black,
            "white": self.white,
            "result": self.result,
            "termination": self.termination,
            "rule": rule_text(self.termination, self.rule),
            "citation": self.rule,
            "plies": self.plies,
            "counted": self.counted,
            "source": {**self.source.model_dump(), "plies": self.source_plies},
            "disagrees": self.disagrees,
            "why": self.why or "",
            "notes": self.notes,
        }


@dataclass
class SgfImportReport(AppendReport):
    tournament_id: str
    files: list[str]
    digest: str
    adjudicate: bool
    board_size: int
    komi: Decimal
    players: int
    rounds: int
    games: list[SgfGameReport]

    @property
    def disagreements(self) -> list[SgfGameReport]:
        return [g for g in self.games if g.disagrees]

    def as_dict(self) -> dict[str, Any]:
        return {
            "tournament_id": self.tournament_id,
            "files": self.files,
            "digest": self.digest,
            "adjudicate": self.adjudicate,
            "board_size": self.board_size,
            "komi": str(self.komi),
            "players": self.players,
            "rounds": self.rounds,
            **summary(
                self.games,
                [
                    {"game_id": g.game_id, "file": g.file, "index": g.index, "why": g.why}
                    for g in self.disagreements
                ],
                self,
            ),
            "game_rows": [g.as_dict() for g in self.games],
        }


def read_all(files: Sequence[tuple[str, bytes]], progress: Progress | None = None) -> list[SgfGame]:
    """Every game of every file, in order (`SgfError` for the first problem)."""
    games: list[SgfGame] = []
    for n, (name, data) in enumerate(files, 1):
        games.extend(read_sgf(name, data))
        if progress is not None:
            progress("read", n, len(files))
    return games


def digest_of(files: Sequence[tuple[str, bytes]]) -> str:
    """The digest of an import: each file's name and bytes, in order."""
    h = hashlib.sha256()
    for name, data in files:
        h.update(name.encode("utf-8") + b"\0" + hashlib.sha256(data).digest())
    return h.hexdigest()


def import_sgf(
    log: EventLog,
    files: Sequence[tuple[str, bytes]],
    *,
    tournament_id: str,
    actor: Actor,
    adjudicate: bool = False,
    fmt: str | None = None,
    progress: Progress | None = None,
) -> SgfImportReport:
    """Read `files` (name, bytes) in full (`SgfError`), decide every command in a dry run
    (`ImportRefused`), then append them to `log`. Importing the same files with the same
    options into the same tournament again appends nothing."""
    if not files:
        raise ImportRefused("sgf.no_files", "FILE", "no SGF files given")
    games = read_all(files, progress)
    stem = files[0][0].rsplit(".", 1)[0]
    the_plan = plan(games, name=stem, adjudicate=adjudicate, fmt=fmt)
    digest = digest_of(files)
    namespace = f"sgf:{tournament_id}:{digest}:{'rules' if adjudicate else 'manual'}:{fmt or ''}"
    report = SgfImportReport(
        tournament_id,
        [f for f, _ in files],
        digest,
        adjudicate,
        the_plan.created.board_size,
        the_plan.created.komi,
        len(the_plan.players),
        len(the_plan.rounds),
        [],
    )
    decide_then_append(
        log,
        tournament_id,
        namespace,
        actor,
        _NAMESPACE,
        report,
        lambda dry: _decide_all(dry, the_plan, report, progress),
        progress,
    )
    return report


# --- deciding and appending (the PGN import's way: services/interchange/pgn_import.py)
# --------------------
def _decide_all(
    dry: DryRun, p: SgfPlan, report: SgfImportReport, progress: Progress | None
) -> None:
    where = p.games[0].game.where(0)
    head = [dry.command("created", p.created, where)]
    for pl in p.players:
        registered = ev.PlayerRegistered(player_id=pl.player_id, name=pl.name, go_rank=pl.rank)
        head.append(dry.command(f"player:{pl.player_id}", registered, where))
    for chunk in chunks(head, dry.limits):
        dry.run(chunk)
    names = {pl.player_id: pl.name for pl in p.players}
    scheduled: set[int] = set()
    for n, g in enumerate(p.games, 1):
        if g.round not in scheduled:
            scheduled.add(g.round)
            pairings = [
                ev.Pairing(game_id=o.game_id, white=o.white, black=o.black, board=o.board)
                for o in p.rounds[g.round]
            ]
            rs = ev.RoundScheduled(round=g.round, pairings=pairings)
            dry.run([dry.command(f"round:{g.round}", rs, g.game.where(0))])
        report.games.append(_decide_game(dry, g, names))
        if progress is not None:
            progress("decide", n, len(p.games))


def _paused(moves: Sequence[SgfMove]) -> bool:
    """LGC Timing "Ending the game" 3: the last two moves are a Black pass, then a White
    pass."""
    return (
        len(moves) >= 2
        and moves[-1].point == "pass"
        and moves[-1].colour == "white"
        and moves[-2].point == "pass"
        and moves[-2].colour == "black"
    )


def _move_steps(dry: DryRun, g: _Planned) -> tuple[list[Step], bool]:
    """The moves, with a `GoStatusDisputed` where the SGF plays on after play paused; and
    whether play is paused after the last move recorded (the moves after a stop at the start
    of a resumption are left out: the decider ends the game there)."""
    sgf_game = g.game
    steps: list[Step] = []
    tail: list[SgfMove] = []  # the moves since the start or the last resumption
    resumed = False
    for m in sgf_game.moves:
        if _paused(tail):
            if resumed and len(tail) == 2:
                return steps, False  # both passed at the start of a resumption: stopped
            dispute = ev.GoStatusDisputed(
                game_id=g.game_id,
                detail=f"the SGF plays on after the passes (node {m.node})",
            )
            steps.append(
                dry.command(f"game:{g.game_id}:dispute:{m.ply}", dispute, sgf_game.where(m.node))
            )
            tail, resumed = [], True
        move = ev.MovePlayed(game_id=g.game_id, ply=m.ply, colour=m.colour, point=m.point)
        steps.append(dry.command(f"game:{g.game_id}:move:{m.ply}", move, sgf_game.where(m.node)))
        tail.append(m)
    stopped = resumed and len(tail) == 2 and _paused(tail)
    return steps, _paused(tail) and not stopped


def _decide_game(dry: DryRun, g: _Planned, names: dict[str, str]) -> SgfGameReport:
    sgf_game = g.game
    rep = SgfGameReport(
        sgf_game.file,
        sgf_game.index,
        g.game_id,
        g.round,
        names[g.black],
        names[g.white],
        g.source,
        len(sgf_game.moves),
        notes=list(sgf_game.notes),
    )
    start = ev.GameStarted(game_id=g.game_id, handicap=sgf_game.handicap, source=g.source)
    dry.run([dry.command(f"game:{g.game_id}:start", start, sgf_game.where(0))])
    steps, paused = _move_steps(dry, g)
    ended: dict[str, Any] | None = None
    plies = 0
    for chunk in chunks(steps, dry.limits, spare=1):
        try:
            envs = dry.run(chunk)
        except ImportRefused as exc:
            i = exc.index
            if exc.rule not in ("move.after_end", "game.already_ended") or not i:
                raise
            chunk = chunk[:i]  # the decider ended the game: the SGF's later moves are not played
            envs = dry.run(chunk)
            paused = False
        plies += sum(1 for s in chunk if s.command.type == "MovePlayed")
        ended = ended_payload(envs, g.game_id)
        if ended is not None:
            paused = False
            break
    rep.plies = plies
    not_counted: str | None = None
    if ended is None:
        ended, not_counted = _record_ending(dry, g, paused, plies)
    if ended is not None:
        rep.result = ended.get("result")
        rep.termination = ended.get("termination")
        rep.rule = ended.get("rule")
        rep.detail = ended.get("detail", "")
        score = ended.get("go_score") or {}
        if score.get("margin") is not None:
            rep.counted = margin_text(Decimal(str(score["margin"])))
    rep.why = _why(g, rep, not_counted)
    return rep


def _record_ending(
    dry: DryRun, g: _Planned, paused: bool, plies: int
) -> tuple[dict[str, Any] | None, str | None]:
    """The SGF's ending when the decider did not end the game: the `GameEnded` payload (None
    for no result) and, for a count Arbiter could not make, why."""
    src = g.game.result
    if src.result is None or src.termination is None:
        return None, None
    where = g.game.where(0)
    not_counted: str | None = None
    if src.counted:
        if paused:
            agreed = ev.GoStatusAgreed(game_id=g.game_id, dead_stones=g.game.dead)
            try:
                envs = dry.run([dry.command(f"game:{g.game_id}:status", agreed, where)])
            except ImportRefused as exc:
                not_counted = f"Arbiter's count was refused ({exc.rule}): {exc.message}"
            else:
                return ended_payload(envs, g.game_id), None
        else:
            not_counted = (
                "Arbiter did not count: the moves do not end with play paused (a Black pass, "
                'then a White pass: LGC Timing "Ending the game" 3)'
            )
    basis = f"{g.game.file} game {g.game.index}: RE[{src.text}] after ply {plies}"
    if not_counted is not None:
        basis = f"{basis}; {not_counted}"
    ended = ev.GameEnded(
        game_id=g.game_id,
        result=src.result,
        termination=src.termination,
        detail=basis[:2000],
        rule=f"arena: RE[{src.text}]"[:200],
    )
    envs = dry.run([dry.command(f"game:{g.game_id}:end", ended, where)])
    return ended_payload(envs, g.game_id), not_counted


def _why(g: _Planned, rep: SgfGameReport, not_counted: str | None) -> str | None:
    src = g.game.result
    reasons: list[str] = []
    base = disagreement(
        result=rep.result,
        termination=rep.termination,
        rule=rep.rule,
        plies=rep.plies,
        source=read_source(g.source.result, g.source.termination, g.source.details),
        source_plies=len(g.game.moves),
    )
    if base is not None:
        reasons.append(base)
    if rep.counted is not None and src.counted and src.margin is not None:
        if rep.counted != margin_text(src.margin):
            reasons.append(f"counted {rep.counted}; RE[{src.text}]")
    elif rep.counted is not None and src.result is not None and not src.counted:
        reasons.append(f"counted {rep.counted}; RE[{src.text}] is not a count")
    if not_counted is not None:
        reasons.append(not_counted)
    return "; ".join(reasons) if reasons else None
