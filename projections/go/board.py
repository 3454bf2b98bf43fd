"""A Go board for the fold: stones, captures, prisoners, ko and situational superko.

Pure code (no I/O, no clock, no randomness). The rules are those of the LGC Tournament Rules
(seed `lgc-go-tournament-rules.txt`); each is cited beside the code that implements it.
Readings where the seed is silent:

- **Suicide** is forbidden, as under Japanese-style rules (the seed does not mention it). A
  suicide is still *recorded* like every other illegal move (LGC Irregularities "Illegal move":
  it stands unless noticed within three moves): the own group left without liberties is
  removed and its stones become the opponent's prisoners, and the result says
  `legal=False, reason="suicide"`.
- **Handicap stones** are placement, not moves: `moves_played()` does not count them (the
  three-move limits of LGC Irregularities count from the first move).
- **Positions after a pass** are positions of the game like any other: they enter the
  superko history (a pass itself is always legal).

Coordinates: `Point = (row, col)`, 0-based, row 0 is GTP row 1 (sgfmill's convention);
`parse_point` / `format_point` convert GTP vertices ("D4", "pass").

The board is a flat `bytearray` (0 empty, 1 black, 2 white) with one more byte for the player
to move, so `bytes(cells)` is the exact key of (stones, player to move) that situational
superko compares: no hashing collisions to reason about, ~size²+1 bytes a position.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Literal

from sgfmill import common

from .handicap import handicap_points as fixed_handicap_points

Colour = Literal["black", "white"]
Point = tuple[int, int]
IllegalReason = Literal["occupied", "suicide", "ko", "superko"]

MAX_SIZE = 25  # sgfmill / GTP vertex letters stop at Z

# The flat board's cell codes (`GoBoard` and the count, `scoring.py`, read cells through them,
# with `geometry`, `place_stone` and `group_liberties`).
EMPTY = 0
BLACK = 1
WHITE = 2
CODE: dict[Colour, int] = {"black": BLACK, "white": WHITE}
_COLOUR: tuple[Colour | None, Colour, Colour] = (None, "black", "white")
_OTHER: dict[Colour, Colour] = {"black": "white", "white": "black"}


def other(colour: Colour) -> Colour:
    """The opponent's colour."""
    return _OTHER[colour]


def parse_point(vertex: str, size: int) -> Point | None:
    """A GTP vertex ("D4", "pass" in any case) as a Point, None for a pass. ValueError naming
    the problem when it is malformed or off a `size`×`size` board."""
    try:
        move = common.move_from_vertex(vertex, size)
    except ValueError as exc:
        raise ValueError(f"{exc} (board {size}x{size})") from None
    if move is None:
        return None
    row, col = move
    return (row, col)


def format_point(point: Point | None, size: int) -> str:
    """The GTP vertex of a Point ("D4"), "pass" for None; ValueError when off the board."""
    if point is None:
        return "pass"
    row, col = point
    if not (0 <= row < size and 0 <= col < size):
        raise ValueError(f"point {point} is off a {size}x{size} board")
    return str(common.format_vertex((row, col)))


@dataclass(frozen=True)
class MoveResult:
    """What a move did. `legal` False names the rule broken in `reason`; the move was recorded
    all the same (LGC Irregularities "Illegal move")."""

    legal: bool
    reason: IllegalReason | None  # None when legal
    captured: tuple[Point, ...]  # opponent stones removed by this move, sorted
    self_captured: tuple[Point, ...] = ()  # own stones removed by a suicide that stands, sorted


_PASS_RESULT = MoveResult(True, None, (), ())


@cache
def geometry(size: int) -> tuple[tuple[tuple[int, ...], ...], tuple[Point, ...]]:
    """Per flat index: its neighbours' indices, and its Point. Memoised per size (pure)."""
    neighbours: list[tuple[int, ...]] = []
    points: list[Point] = []
    for i in range(size * size):
        r, c = divmod(i, size)
        nb = []
        if r > 0:
            nb.append(i - size)
        if r < size - 1:
            nb.append(i + size)
        if c > 0:
            nb.append(i - 1)
        if c < size - 1:
            nb.append(i + 1)
        neighbours.append(tuple(nb))
        points.append((r, c))
    return tuple(neighbours), tuple(points)


def _dead_group(cells: bytearray, start: int, nbrs: tuple[tuple[int, ...], ...]) -> list[int]:
    """The group at `start` if it has no liberty, else [] (stops at the first liberty)."""
    colour = cells[start]
    group = [start]
    seen = {start}
    i = 0
    while i < len(group):
        for q in nbrs[group[i]]:
            v = cells[q]
            if v == EMPTY:
                return []
            if v == colour and q not in seen:
                seen.add(q)
                group.append(q)
        i += 1
    return group


def place_stone(
    cells: bytearray, idx: int, me: int, nbrs: tuple[tuple[int, ...], ...]
) -> tuple[list[int], list[int]]:
    """Put a stone of `me` on the empty `idx` of `cells` and make the removals that follow
    (LGC Game protocol "Making a move": "Once the stone is played any removal of the opponent's
    stones is carried out"). Returns (opponent stones captured, own stones removed by a
    suicide)."""
    opp = BLACK + WHITE - me
    cells[idx] = me
    captured: list[int] = []
    lonely = True  # no empty neighbour: the own group's liberties must be looked for
    for q in nbrs[idx]:
        v = cells[q]
        if v == opp:
            group = _dead_group(cells, q, nbrs)
            for s in group:
                cells[s] = EMPTY
            captured += group
        elif v == EMPTY:
            lonely = False
    if captured or not lonely:
        return captured, []
    own = _dead_group(cells, idx, nbrs)
    for s in own:
        cells[s] = EMPTY
    return captured, own


class GoBoard:
    """The board of one game, with everything the rules need from its history: the prisoners
    of each colour, the positions seen (situational superko), the number of moves."""

    __slots__ = (
        "_cells",
        "_history",
        "_moves",
        "_nbrs",
        "_points",
        "_seen",
        "handicap",
        "passes",
        "prisoners",
        "size",
        "to_move",
    )

    size: int
    to_move: Colour
    handicap: int
    prisoners: dict[Colour, int]  # stones captured BY each colour, pass stones received included
    passes: dict[Colour, int]  # passes made by each colour

    def __init__(
        self, size: int, handicap: int = 0, handicap_points: list[Point] | None = None
    ) -> None:
        """An empty `size`×`size` board with its handicap stones.

        `handicap` ≥ 2 places the fixed handicap stones (handicap.py; 9×9, 13×13, 19×19, else
        ValueError) unless `handicap_points` gives them (SGF `AB`), and White moves first.
        Handicap 0 or 1: no stones, Black first. `handicap_points` with `handicap` 0 sets the
        handicap to their number; with a handicap ≥ 2 their number must match it.
        """
        if not 1 <= size <= MAX_SIZE:
            raise ValueError(f"board size must be 1 to {MAX_SIZE}, not {size}")
        if handicap < 0:
            raise ValueError(f"handicap must not be negative, not {handicap}")
        self.size = size
        self._nbrs, self._points = geometry(size)
        if handicap_points is None:
            stones = fixed_handicap_points(size, handicap) if handicap >= 2 else []
        else:
            stones = list(handicap_points)
            if handicap == 0:
                handicap = len(stones)
            elif handicap >= 2 and len(stones) != handicap:
                raise ValueError(f"handicap {handicap} but {len(stones)} handicap points given")
            if len(set(stones)) != len(stones):
                raise ValueError(f"handicap points repeat a point: {stones}")
        self.handicap = handicap
        self._cells = bytearray(size * size + 1)  # the last byte: the player to move
        for p in stones:
            self._cells[self._index(p)] = BLACK
        # Handicap stones placed, White moves first; else Black (LGC Timing "Start": Black's
        # clock is started).
        self.to_move = "white" if stones else "black"
        self._cells[-1] = CODE[self.to_move]
        self.prisoners = {"black": 0, "white": 0}
        self.passes = {"black": 0, "white": 0}
        self._moves = 0
        start = bytes(self._cells)
        self._history = [start]
        self._seen = {start}

    def _index(self, point: Point) -> int:
        row, col = point
        if not (0 <= row < self.size and 0 <= col < self.size):
            raise ValueError(f"point {point} is off a {self.size}x{self.size} board")
        return row * self.size + col

    def colour_at(self, p: Point) -> Colour | None:
        """The colour of the stone on `p`, None when empty."""
        return _COLOUR[self._cells[self._index(p)]]

    def stones(self) -> dict[Point, Colour]:
        """Every stone on the board."""
        pts = self._points
        out: dict[Point, Colour] = {}
        for i, v in enumerate(self._cells[:-1]):
            if v == BLACK:
                out[pts[i]] = "black"
            elif v == WHITE:
                out[pts[i]] = "white"
        return out

    def position_key(self) -> bytes:
        """The exact key of (stones, player to move): what situational superko compares
        (LGC Irregularities "Illegal move": "recreate a previous board position with the same
        person to play")."""
        return bytes(self._cells)

    def moves_played(self) -> int:
        """Moves (stones and passes) since the start; handicap stones are not moves."""
        return self._moves

    def clone(self) -> GoBoard:
        """An independent copy (no mutable state shared; the keys are immutable bytes)."""
        new = GoBoard.__new__(GoBoard)
        new.size = self.size
        new._nbrs = self._nbrs
        new._points = self._points
        new.handicap = self.handicap
        new._cells = bytearray(self._cells)
        new.to_move = self.to_move
        new.prisoners = dict(self.prisoners)
        new.passes = dict(self.passes)
        new._moves = self._moves
        new._history = list(self._history)
        new._seen = set(self._seen)
        return new

    def _judge(self, key: bytes, suicide: bool) -> IllegalReason | None:
        # LGC Irregularities "Illegal move": "It is illegal to play so as to recreate a previous
        # board position with the same person to play (ko and natural situational superko)".
        # The key holds the player to move after the move, so only positions with the same
        # person to play can match. "ko": the position just before the opponent's last move
        # (the basic ko recapture); "superko": any earlier one.
        if suicide:
            return "suicide"  # forbidden here, a stated reading (module docstring)
        if len(self._history) >= 2 and key == self._history[-2]:
            return "ko"
        if key in self._seen:
            return "superko"
        return None

    def _result(
        self, reason: IllegalReason | None, captured: list[int], own: list[int]
    ) -> MoveResult:
        """The result of a move that made these removals (flat indices)."""
        pts = self._points
        return MoveResult(
            reason is None,
            reason,
            tuple(sorted(pts[i] for i in captured)),
            tuple(sorted(pts[i] for i in own)),
        )

    def check(self, colour: Colour, point: Point | None) -> MoveResult:
        """What `play(colour, point)` would report, without playing it: `reason` "occupied" for
        an occupied point instead of the ValueError `play` raises."""
        if colour != self.to_move:
            raise ValueError(f"{self.to_move} is to move, not {colour}")
        if point is None:
            return _PASS_RESULT
        idx = self._index(point)
        if self._cells[idx] != EMPTY:
            return MoveResult(False, "occupied", (), ())
        cells = bytearray(self._cells)
        captured, own = place_stone(cells, idx, CODE[colour], self._nbrs)
        cells[-1] = CODE[_OTHER[colour]]
        reason = self._judge(bytes(cells), bool(own))
        return self._result(reason, captured, own)

    def play(self, colour: Colour, point: Point | None) -> MoveResult:
        """Play (or pass, `point` None) for `colour`, who must be to move (ValueError otherwise,
        LGC Game protocol "Alternation"; ValueError too for an occupied or off-board point).

        The move is recorded whatever its legality (LGC Irregularities "Illegal move": it
        stands unless noticed within three moves, and the fold unwinds by replaying): a ko or
        superko move makes its captures; a suicide removes the own group, whose stones become
        the opponent's prisoners. The result says whether it was legal and why not.
        """
        if colour != self.to_move:
            raise ValueError(f"{self.to_move} is to move, not {colour}")
        opponent = _OTHER[colour]
        cells = self._cells
        if point is None:
            # LGC Timing "Ending the game" 1: "A player passes by handing a stone to the
            # opponent (who adds it to any existing prisoners)"; a pass is a move (LGC Game
            # protocol "Move": "passing a stone to one's opponent").
            self.prisoners[opponent] += 1
            self.passes[colour] += 1
            self._moves += 1
            self.to_move = opponent
            cells[-1] = CODE[opponent]
            key = bytes(cells)
            self._history.append(key)
            self._seen.add(key)
            return _PASS_RESULT
        idx = self._index(point)
        if cells[idx] != EMPTY:
            raise ValueError(f"{format_point(point, self.size)} is occupied")
        captured, own = place_stone(cells, idx, CODE[colour], self._nbrs)
        # LGC Game protocol "Prisoners": captured stones are the capturer's prisoners.
        self.prisoners[colour] += len(captured)
        self.prisoners[opponent] += len(own)
        self._moves += 1
        self.to_move = opponent
        cells[-1] = CODE[opponent]
        key = bytes(cells)
        reason = self._judge(key, bool(own))
        self._history.append(key)
        self._seen.add(key)
        if reason is None and not captured:
            return MoveResult(True, None, (), ())
        return self._result(reason, captured, own)

    def setup(
        self, black: Iterable[Point], white: Iterable[Point], removed: Iterable[Point]
    ) -> None:
        """Change the stones without a move (LGC Irregularities "Position disturbance" 2:
        "continue with the position as is"): `removed` taken off, `black` and `white` placed,
        no captures made. The new position enters the superko history; the player to move
        and the prisoners are unchanged. ValueError when a stone is placed on a stone or a
        removed point is empty (nothing is changed then)."""
        cells = bytearray(self._cells)
        for p in removed:
            i = self._index(p)
            if cells[i] == EMPTY:
                raise ValueError(f"{format_point(p, self.size)} is empty")
            cells[i] = EMPTY
        for colour, points in (("black", black), ("white", white)):
            for p in points:
                i = self._index(p)
                if cells[i] != EMPTY:
                    raise ValueError(f"{format_point(p, self.size)} is occupied")
                cells[i] = CODE[colour]  # type: ignore[index]
        self._cells = cells
        key = bytes(cells)
        self._history.append(key)
        self._seen.add(key)

    def liberties(self, p: Point) -> int:
        """The number of liberties of the group on `p` (ValueError when `p` is empty)."""
        idx = self._index(p)
        colour = self._cells[idx]
        if colour == EMPTY:
            raise ValueError(f"{format_point(p, self.size)} is empty")
        return len(group_liberties(self._cells, idx, self._nbrs))

    def __repr__(self) -> str:
        rows = []
        for r in range(self.size - 1, -1, -1):
            row = self._cells[r * self.size : (r + 1) * self.size]
            rows.append("".join(".XO"[v] for v in row))
        return f"GoBoard({self.size}, to_move={self.to_move!r}):\n" + "\n".join(rows)


def group_liberties(cells: bytearray, start: int, nbrs: tuple[tuple[int, ...], ...]) -> set[int]:
    """The liberties of the group on `start`."""
    colour = cells[start]
    group = [start]
    seen = {start}
    libs: set[int] = set()
    i = 0
    while i < len(group):
        for q in nbrs[group[i]]:
            v = cells[q]
            if v == EMPTY:
                libs.add(q)
            elif v == colour and q not in seen:
                seen.add(q)
                group.append(q)
        i += 1
    return libs
