"""The live games document: what a broadcast shows of the round being played.

Pure code (imports `events_schema` and `projections` only; no clock, no randomness, no I/O).
`games_document(state)` reads the standings fold
(`projections/standings/state.py`) and gives:

- ``round``: the current round, the latest round scheduled (the last `RoundScheduled` in
  force, in stream order: `StandingsState.round_keys`), with its stage; None before any.
- ``pairings``: that round's games in pairing order (``board``: the pairing's board number,
  else 1, 2, … in the order of `RoundScheduled.pairings`), each with both players, its status
  (``scheduled``; ``in_progress``: a `GameStarted` or a move in force; ``ended``: a result in
  force), the result in force and its termination (a `ResultCorrected` is the result in force,
  a retracted result is gone), the plies in force, the last move (ply, colour, uci / san /
  point, move time), the position (chess: the FEN after the moves in force; Go: the stones and
  prisoners), the side to move, the clocks and, when recorded, the last engine evaluation.
- ``byes``: that round's byes.
- ``engine_event``: every registered player is an engine (the page then always shows the
  evaluation bar).

Clocks: each side's latest reading, in move order: the `MovePlayed.clock_ms` of its last move
("mover's clock after the move"), or a `ClockReported` / `ClockSet` (LGC Irregularities
"Timing error" / "Faulty clock") recorded after it, whichever is later. Integer milliseconds;
null when none was recorded, or when the side's last move reported none (its clock is then
unknown, `projections/endings/clock.py`: an older reading would be a wrong number). The
evaluation is the last move's that carries one (`eval_cp` in centipawns or `mate_in`, White's
point of view as `MovePlayed` states it, with its `depth`), and the ply it was given at.

Positions are computed here, lazily, never on the fold's path: `BoardCache` keeps, per game,
the board after the moves it has seen (by move id) and advances it by the new moves only, so
a new move costs one push, not a replay; a retracted last move is one pop (chess), a
correction it cannot follow (an unwound Go game, a changed start) rebuilds the board from the
start. The cache never changes the output: an entry is used only when the moves it has seen
are a prefix of the moves in force (`tests/unit/projections/test_live_games.py` checks it equals a
fresh
computation on generated move lists). A chess move that cannot be applied (a historical
oddity, as in `projections/tournament/evolve.py`) stops the position there:
``position_plies`` then says how many plies the FEN shows.

The document is rebuilt after every event, so two memos keep that cheap (a round of 250
games: about a millisecond): each game's part is kept with the facts it was built from
(`_facts`: players, status, the ids of its moves, results and clock readings) and reused
while they are equal; the standings document's crosstable (`crosstable`) is reused while the
table's crosstable and rows are the same objects (a move leaves both as they were). Equal
facts give equal parts, so neither memo changes a byte of what is published. The projector
also says which games a run of moves and clocks touched (`games_document(touched=...)`): the
other games' parts are taken as last built, without reading their facts (issue 27 item 3):
the pairings list last built is copied and only the touched games' places are replaced, and
the projector (services/projection/projector.py) keeps each part's canonical bytes while the
part is the same object, so a move encodes its own game's part only.

The cache belongs to the fold it reads (`StandingsState.live`, created on first use): it lives
and dies with that state, never sees another stream's games (no key can collide across
tournaments or logs), and a new fold (a replay) starts with an empty one.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import chess

from events_schema import events as ev
from projections.go.board import GoBoard, format_point, parse_point
from projections.standings.state import GameRecord, PlayerInfo, StandingsState
from projections.standings.table import Table
from projections.tiebreaks.registry import half_points

#: How many boards (and game parts) one tournament's cache holds, least recently used dropped
#: first: a round of a 1,000-player Swiss. A Go board keeps its positions (superko), so this
#: bounds the memory too.
CACHE_SIZE = 512


@dataclass
class _Entry:
    start: str | None  # the chess start FEN (GameStarted.fen) or the Go (size, handicap) key
    ids: list[UUID] = field(default_factory=list)  # the moves seen, in order
    applied: int = 0  # how many of them the board shows (a move it could not apply stops it)
    chess_board: chess.Board | None = None
    go_board: GoBoard | None = None
    # The X-FEN castling field last written for this board, with what it was read from
    # (`_castling`).
    castling: tuple[tuple[int, ...], str] | None = None


@dataclass(frozen=True)
class Position:
    """The position after the moves in force (or as far as they could be applied)."""

    plies: int  # plies the position shows
    to_move: str  # "white" / "black"
    fen: str | None = None  # chess
    stones: dict[str, list[str]] | None = None  # Go: {"black": ["D4", …], "white": […]}
    prisoners: dict[str, int] | None = None  # Go: stones captured by each colour


def _go_start(size: int, handicap: int) -> GoBoard:
    try:
        return GoBoard(size, handicap)
    except ValueError:  # a handicap the size has no fixed points for: no stones placed
        return GoBoard(size)


@dataclass(frozen=True)
class _Round:
    """The round of the games document last built: its `RoundScheduled` id, the list of its
    game ids it was built from (that very object, and its length then), its games in
    pairing order with their ids and places, their parts, each game's (ended, in progress)
    and the two counts."""

    round_id: UUID
    ids: list[str]
    n_ids: int
    games: list[GameRecord]
    game_ids: list[str]
    index: dict[str, int]  # game id -> its place in `games`
    parts: list[dict[str, Any]]
    flags: list[tuple[bool, bool]]
    ended: int
    in_progress: int


class BoardCache:
    """One tournament's boards per game, advanced incrementally, its games' document parts and
    its last crosstable. Thread-safe; bounded."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._lock = threading.Lock()
        self.pushes = 0  # moves applied (pushed or played), for tests and benchmarks
        self.rebuilds = 0
        # The last document part built per (tournament, game), with the facts it was built
        # from: rebuilt only when one of them changed (a move, a result, a clock reading, ...).
        self._parts: OrderedDict[str, tuple[tuple[Any, ...], dict[str, Any]]] = OrderedDict()
        # The last crosstable built, with the crosstable and rows it was built from (held, so
        # their identities cannot be reused while they are compared).
        self._crosstable: tuple[Any, Any, dict[str, Any] | None] | None = None
        # The pairings of the games document last built: the round's `RoundScheduled` id, its
        # game ids in order, and their parts (`games_document(touched=...)` replaces the
        # touched games' parts in a copy of this list, without visiting the others).
        self._round: _Round | None = None

    def __reduce__(self) -> tuple[type[BoardCache], tuple[int]]:
        # Pickled (a processor's snapshot of the fold, services/projection/processors/snapshots.py)
        # as an
        # empty cache: its contents are derived and never change what the documents say.
        return (BoardCache, (self.size,))

    def part(self, game_id: str, facts: tuple[Any, ...]) -> dict[str, Any] | None:
        """The part built from exactly these facts, if it is still held."""
        with self._lock:
            held = self._parts.get(game_id)
            return held[1] if held is not None and held[0] == facts else None

    def last_part(self, game_id: str) -> dict[str, Any] | None:
        """The part last built (or found equal) for the game, whatever its facts were."""
        with self._lock:
            held = self._parts.get(game_id)
            return held[1] if held is not None else None

    def keep(self, game_id: str, facts: tuple[Any, ...], part: dict[str, Any]) -> None:
        key = game_id
        with self._lock:
            self._parts[key] = (facts, part)
            self._parts.move_to_end(key)
            while len(self._parts) > self.size:
                self._parts.popitem(last=False)

    def pairings(self, round_id: UUID, game_ids: list[str]) -> list[dict[str, Any]] | None:
        """A copy of the parts of the games document last built, if it was built for these
        games of this round (in this order)."""
        with self._lock:
            held = self._round
            if held is not None and held.round_id == round_id and held.game_ids == game_ids:
                return list(held.parts)
            return None

    def round(self, round_id: UUID, ids: list[str]) -> _Round | None:
        """What the games document last built held of its round, if it was built from this
        very list of the round's game ids (`StandingsState.rounds`, set once per
        `RoundScheduled`), as long as it was."""
        with self._lock:
            held = self._round
            if (
                held is not None
                and held.round_id == round_id
                and held.ids is ids
                and held.n_ids == len(ids)
                and len(held.index) == len(held.game_ids)  # (a game listed twice: rebuilt)
            ):
                return held
            return None

    def keep_round(self, held: _Round) -> None:
        with self._lock:
            self._round = held

    def crosstable(self, table: Table) -> dict[str, Any] | None:
        """`build_crosstable(table)`, or the last one built from the same crosstable and rows
        (a table advanced by a move keeps both: `IncrementalStandings.table`)."""
        ct, rows = table.crosstable, table.rows
        with self._lock:
            held = self._crosstable
            if held is not None and held[0] is ct and held[1] is rows:
                return held[2]
        body = build_crosstable(table)
        with self._lock:
            self._crosstable = (ct, rows, body)
        return body

    def position(self, game: GameRecord, kind: ev.Game, board_size: int = 19) -> Position:
        key = game.game_id
        start = game.fen if kind == "chess" else f"go:{board_size}:{game.handicap}"
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
            if entry is None or not self._follow(entry, game, start, kind):
                entry = self._fresh(game, start, kind, board_size)
                self.rebuilds += 1
                self._entries[key] = entry
                while len(self._entries) > self.size:
                    self._entries.popitem(last=False)
            self._advance(entry, game, kind)
            return self._position(entry, kind, board_size)

    @staticmethod
    def _fresh(game: GameRecord, start: str | None, kind: ev.Game, size: int) -> _Entry:
        if kind == "go":
            return _Entry(start, go_board=_go_start(size, game.handicap))
        try:
            # As the decider's fold starts it (evolve.py): a FEN start in Chess960 mode, so
            # castling rights of any start survive.
            board = chess.Board(start, chess960=True) if start else chess.Board()
        except ValueError:
            board = chess.Board()
        return _Entry(start, chess_board=board)

    def _follow(self, entry: _Entry, game: GameRecord, start: str | None, kind: ev.Game) -> bool:
        """Bring the entry back to a prefix of the moves in force; False: rebuild."""
        if entry.start != start:
            return False
        ids, seen = game.move_ids, entry.ids
        n = min(len(ids), len(seen))
        if seen[:n] != ids[:n]:
            return False
        if len(seen) > len(ids):  # moves retracted or unwound
            if kind != "chess" or entry.chess_board is None or entry.applied != len(seen):
                return False
            for _ in range(len(seen) - len(ids)):
                entry.chess_board.pop()
            del seen[len(ids) :]
            entry.applied = len(ids)
        return True

    def _advance(self, entry: _Entry, game: GameRecord, kind: ev.Game) -> None:
        for i in range(len(entry.ids), len(game.move_ids)):
            entry.ids.append(game.move_ids[i])
            if entry.applied != i:
                continue  # stopped at an earlier move
            move = game.move_events[i]
            if kind == "chess" and entry.chess_board is not None:
                board = entry.chess_board
                if move.uci is None:
                    continue
                try:
                    board.push(board.parse_uci(move.uci))
                except (ValueError, AssertionError):
                    continue  # a historical oddity: the position stops here (evolve.py)
            elif kind == "go" and entry.go_board is not None:
                gb = entry.go_board
                try:
                    # LGC Game protocol "Alternation": the colour to move plays (go_play.py).
                    gb.play(gb.to_move, parse_point(move.point or "", gb.size))
                except ValueError:
                    continue
            else:
                continue
            entry.applied += 1
            self.pushes += 1

    @staticmethod
    def _position(entry: _Entry, kind: ev.Game, size: int) -> Position:
        if kind == "chess" and entry.chess_board is not None:
            board = entry.chess_board
            return Position(
                plies=entry.applied,
                to_move="white" if board.turn == chess.WHITE else "black",
                fen=fen(board, _castling(entry, board)),
            )
        gb = entry.go_board
        assert gb is not None
        stones: dict[str, list[str]] = {"black": [], "white": []}
        for point, colour in sorted(gb.stones().items()):
            stones[colour].append(format_point(point, size))
        return Position(
            plies=entry.applied,
            to_move=gb.to_move,
            stones=stones,
            prisoners=dict(sorted(gb.prisoners.items())),
        )


_CREATE = threading.Lock()


def cache_of(state: StandingsState) -> BoardCache:
    """The state's own cache (created on first use)."""
    cache = state.live
    if not isinstance(cache, BoardCache):
        with _CREATE:
            cache = state.live
            if not isinstance(cache, BoardCache):
                cache = state.live = BoardCache()
    return cache


#: Each piece kind's python-chess `Board` attribute (its bitboard) and FEN letters (White's,
#: Black's).
_PIECES = (
    ("pawns", "P", "p"),
    ("knights", "N", "n"),
    ("bishops", "B", "b"),
    ("rooks", "R", "r"),
    ("queens", "Q", "q"),
    ("kings", "K", "k"),
)
#: Runs of empty squares (written "1" each) and their count, the longest first.
_EMPTY_RUNS = tuple(("1" * n, str(n)) for n in range(8, 1, -1))


def _castling(entry: _Entry, board: chess.Board) -> str:
    """`board.castling_xfen()`, kept per board while what it reads is unchanged. Once a move
    was pushed, python-chess takes the castling rights as cleaned already
    (`clean_castling_rights`), and the X-FEN letters read only them, each side's king and its
    rooks on its back rank: equal values, equal letters."""
    rights = board.castling_rights
    if not rights:
        return "-"
    if not board.move_stack:  # the start: rights not cleaned yet, computed as they are
        return board.castling_xfen()
    white, backranks = board.occupied_co[chess.WHITE], chess.BB_RANK_1 | chess.BB_RANK_8
    rooks = board.rooks & backranks
    key = (rights, board.kings, board.kings & white, board.promoted, rooks, rooks & white)
    held = entry.castling
    if held is not None and held[0] == key:
        return held[1]
    letters = board.castling_xfen()
    entry.castling = (key, letters)
    return letters


def fen(board: chess.Board, castling: str | None = None) -> str:
    """`board.fen()`, the same string, built from the board's bitboards (python-chess walks
    the 64 squares one `piece_at` each: about 3/4 of a live move's document cost). FEN
    (PGN standard 16.1): the placement from rank 8 down, empty squares counted; then the side
    to move, the castling rights (X-FEN, as `castling_xfen`; "-" without any right, as it
    writes then), the en passant square only when a legal capture there exists (python-chess's
    default, `has_legal_en_passant`), the half-move clock and the move number. Each empty
    square is written "1", then each rank's runs of them are counted (a run never crosses the
    "/" between ranks). `tests/unit/projections/test_live_games.py` checks it equals
    `board.fen()` on generated games (Chess960 starts, promotions, en passant). `castling`:
    the castling field when the caller knows it already (`_castling`)."""
    cells = ["1"] * 64
    white = board.occupied_co[chess.WHITE]
    for attr, upper, lower in _PIECES:
        bb = getattr(board, attr)
        ours = bb & white
        while ours:  # each set bit, lowest first (`chess.scan_forward`, inlined)
            low = ours & -ours
            cells[low.bit_length() - 1] = upper
            ours ^= low
        theirs = bb & ~white
        while theirs:
            low = theirs & -theirs
            cells[low.bit_length() - 1] = lower
            theirs ^= low
    placement = "/".join(["".join(cells[start : start + 8]) for start in range(56, -8, -8)])
    for run, count in _EMPTY_RUNS:
        if run in placement:
            placement = placement.replace(run, count)
    ep = board.ep_square if board.ep_square is not None and board.has_legal_en_passant() else None
    return " ".join(
        (
            placement,
            "w" if board.turn == chess.WHITE else "b",
            castling
            if castling is not None
            else board.castling_xfen()
            if board.castling_rights
            else "-",
            chess.SQUARE_NAMES[ep] if ep is not None else "-",
            str(board.halfmove_clock),
            str(board.fullmove_number),
        )
    )


def fresh_position(game: GameRecord, kind: ev.Game, board_size: int = 19) -> Position:
    """The position computed from the start, without a cache."""
    return BoardCache(1).position(game, kind, board_size)


# --- the document ------------------------------------------------------------------------------


def current_round(state: StandingsState) -> tuple[str, int, UUID] | None:
    """(stage, round, RoundScheduled id) of the latest round in force, in stream order."""
    if not state.round_keys:
        return None
    (stage, rnd), eid = next(reversed(state.round_keys.items()))
    return stage, rnd, eid


def _player(state: StandingsState, pid: str) -> dict[str, Any]:
    info: PlayerInfo | None = state.players.get(pid)
    if info is None:  # not registered (any more): the id alone
        return {
            "player_id": pid,
            "name": pid,
            "kind": None,
            "rating": None,
            "title": None,
            "federation": None,
        }
    return {
        "player_id": pid,
        "name": info.name,
        "kind": info.kind,
        "rating": info.rating,
        "title": info.title,
        "federation": info.federation,
    }


def latest_clocks(game: GameRecord) -> dict[str, int | None]:
    """Each side's latest clock reading, in move order (module docstring)."""
    out: dict[str, int | None] = {"white_ms": None, "black_ms": None}
    found: dict[str, int] = {}  # colour -> index of the move that carried it
    for i in range(len(game.move_events) - 1, -1, -1):
        m = game.move_events[i]
        if m.colour not in found:
            # the clock after the side's last move; none reported: unknown (null, "–"), never
            # an older reading (projections/endings/clock.py)
            found[m.colour] = i
            out[f"{m.colour}_ms"] = m.clock_ms
            if len(found) == 2:
                break
    if game.clock_readings:
        _, at, white_ms, black_ms = game.clock_readings[-1]
        # A reading taken after `at` moves supersedes the moves before it.
        if found.get("white", -1) < at:
            out["white_ms"] = white_ms
        if found.get("black", -1) < at:
            out["black_ms"] = black_ms
    return out


def last_evaluation(game: GameRecord) -> dict[str, int | None] | None:
    """The last evaluation recorded and the ply it was given at."""
    for i in range(len(game.move_events) - 1, -1, -1):
        m = game.move_events[i]
        if m.eval_cp is not None or m.mate_in is not None:
            # White's point of view, as MovePlayed records it.
            return {"ply": i + 1, "cp": m.eval_cp, "mate_in": m.mate_in, "depth": m.depth}
    return None


def last_move(game: GameRecord) -> dict[str, Any] | None:
    """The last move played: ply, colour, move and its time."""
    if not game.move_events:
        return None
    m = game.move_events[-1]
    return {
        "ply": len(game.move_events),
        "colour": m.colour,
        "uci": m.uci,
        "san": m.san,
        "point": m.point,
        "move_time_ms": m.move_time_ms,
    }


def _status(game: GameRecord) -> str:
    if game.results:
        return "ended"
    return "in_progress" if game.started else "scheduled"


def _identity(info: PlayerInfo | None) -> tuple[Any, ...] | None:
    if info is None:
        return None
    return (info.name, info.kind, info.rating, info.title, info.federation)


def _facts(state: StandingsState, board: int, game: GameRecord) -> tuple[Any, ...]:
    """Everything a game's part of the document is built from (the memo's key): equal facts,
    equal part. Moves, results and clock readings are identified by their event ids."""
    created = state.created
    return (
        board,
        created.game if created is not None else None,
        created.board_size if created is not None else None,
        game.white,
        game.black,
        _identity(state.players.get(game.white)),
        _identity(state.players.get(game.black)),
        game.started,
        game.fen,
        game.handicap,
        len(game.move_ids),
        game.move_ids[-1] if game.move_ids else None,
        tuple(r[0] for r in game.results),
        tuple(c[0] for c in game.clock_readings),
    )


def _game(state: StandingsState, board: int, game: GameRecord, cache: BoardCache) -> dict[str, Any]:
    facts = _facts(state, board, game)
    part = cache.part(game.game_id, facts)
    if part is None:
        part = _build_game(state, board, game, cache)
        cache.keep(game.game_id, facts, part)
    return part


def _build_game(
    state: StandingsState, board: int, game: GameRecord, cache: BoardCache
) -> dict[str, Any]:
    created = state.created
    kind: ev.Game = created.game if created is not None else "chess"
    size = created.board_size if created is not None else 19
    result = game.results[-1] if game.results else None
    pos = cache.position(game, kind, size)
    out: dict[str, Any] = {
        "board": board,
        "game_id": game.game_id,
        "white": _player(state, game.white),
        "black": _player(state, game.black),
        "status": _status(game),
        "result": result[2] if result is not None else None,
        "termination": result[3] if result is not None else None,
        "corrected": len(game.results) > 1,
        "plies": len(game.moves),
        "last_move": last_move(game),
        "position_plies": pos.plies,
        "to_move": pos.to_move,
        "fen": pos.fen,
        "stones": pos.stones,
        "prisoners": pos.prisoners,
        "clocks": latest_clocks(game),
        "evaluation": last_evaluation(game),
    }
    if kind == "go":
        out["handicap"] = game.handicap
    return out


def games_document(
    state: StandingsState,
    cache: BoardCache | None = None,
    touched: Collection[str] | None = None,
) -> dict[str, Any]:
    """The games document's data (module docstring); `cache`: the state's own by default.
    `touched`, when given: the only games whose facts may have changed since this cache last
    built the document (the projector's reading of the events since: a move or a clock
    changes its own game only, `projections.documents.affected`); every other game's part is
    the one last built, without its facts being read again (a move costs one game's part,
    not one per board)."""
    cache = cache_of(state) if cache is None else cache
    created = state.created
    kind: ev.Game = created.game if created is not None else "chess"
    players = state.players.values()
    body: dict[str, Any] = {
        "game": kind,
        "board_size": created.board_size if created is not None and kind == "go" else None,
        "engine_event": bool(state.players) and all(p.kind == "engine" for p in players),
        "round": None,
        "pairings": [],
        "byes": [],
    }
    current = current_round(state)
    if current is None:
        return body
    stage, rnd, eid = current
    ids, byes = state.rounds.get(eid, ([], []))
    held = cache.round(eid, ids) if touched is not None else None
    if held is not None:
        # The same round's games as the document last built (a run of moves and clocks, all
        # `touched` says came, never changes them): only the touched games' parts and
        # statuses can differ, each found by its place, without visiting the other boards.
        assert touched is not None
        games, game_ids, index = held.games, held.game_ids, held.index
        parts, flags = list(held.parts), list(held.flags)
        ended, in_progress = held.ended, held.in_progress
        for i in sorted(index[g] for g in touched if g in index):
            g = games[i]
            was_ended, was_playing = flags[i]
            now = (bool(g.results), g.started and not g.results)
            ended += now[0] - was_ended
            in_progress += now[1] - was_playing
            flags[i] = now
            # The board number the pairing gives, else the pairing's order.
            parts[i] = _game(state, g.board or i + 1, g, cache)
    else:
        # The round's games, their ids and how many ended or are in progress, in one pass.
        games, game_ids, flags = [], [], []
        ended = in_progress = 0
        known = state.games
        for gid in ids:
            found = known.get(gid)
            if found is None:
                continue
            games.append(found)
            game_ids.append(found.game_id)
            flags.append((bool(found.results), found.started and not found.results))
            if found.results:
                ended += 1
            elif found.started:
                in_progress += 1
        index = {g: i for i, g in enumerate(game_ids)}
        last = cache.pairings(eid, game_ids) if touched is not None else None
        if last is not None:
            # The same games as the document last built: only the touched ones can differ.
            assert touched is not None
            parts = last
            for i, g in enumerate(games, start=1):
                if g.game_id in touched:
                    parts[i - 1] = _game(state, g.board or i, g, cache)
        else:
            parts = []
            for i, g in enumerate(games, start=1):
                part = None
                if touched is not None and g.game_id not in touched:
                    part = cache.last_part(g.game_id)
                parts.append(part if part is not None else _game(state, g.board or i, g, cache))
    body["round"] = {
        "stage": stage,
        "round": rnd,
        "cycle": games[0].cycle if games else None,
        "games": len(games),
        "ended": ended,
        "in_progress": in_progress,
    }
    cache.keep_round(
        _Round(eid, ids, len(ids), games, game_ids, index, parts, flags, ended, in_progress)
    )
    body["pairings"] = list(parts)
    body["byes"] = [{"player": _player(state, b.player_id), "kind": b.kind} for b in byes]
    return body


# --- the crosstable (carried by the standings document) ----------------------------------------

_PLAYED = {"win": "1", "draw": "½", "loss": "0"}


def crosstable(state: StandingsState, table: Table) -> dict[str, Any] | None:
    """The main stage's crosstable (`build_crosstable`), through the state's cache."""
    return cache_of(state).crosstable(table)


def build_crosstable(table: Table) -> dict[str, Any] | None:
    """The main stage's crosstable in standings order: per player, per round, the opponent,
    the colour, the kind of round and the result from that player's side (``display``: "1",
    "½", "0" over the board; "+" / "−" a forfeit won / lost (FIDE C.04.1 forfeits, TRF "+" /
    "-"); a bye's points). None when the table has no crosstable."""
    ct = table.crosstable
    if ct is None:
        return None
    players = []
    for row in table.rows:
        pid = row.player_id
        rounds = []
        for e in ct.entries.get(pid, ()):
            if e.kind == "played":
                display = _PLAYED[e.outcome]
            elif e.kind == "forfeit_win":
                display = "+"
            elif e.kind == "forfeit_loss":
                display = "−"
            else:
                display = half_points(e.points)
            rounds.append(
                {
                    "round": e.round,
                    "opponent": e.opponent,
                    "colour": e.colour,
                    "kind": e.kind,
                    "outcome": e.outcome,
                    "half_points": e.points,
                    "display": display,
                    "game_id": e.game.game_id if e.game is not None else None,
                }
            )
        players.append({"player_id": pid, "rounds": rounds})
    return {"rounds": ct.rounds, "players": players}
