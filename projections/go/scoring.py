"""LGC scoring: territory, prisoners placed in the opponent's territory, komi.

Pure code. Seed: LGC Tournament Rules, SCORING:

    Komi in an even game is 7.5 to White. In a handicap game it is 0.5 to White.
    Territory is defined as empty points surrounded by stones of the same colour. Accordingly
    eye points in seki count as territory.
    Prisoners are placed inside the opponent's territory.
    If your opponent has less territory than the number of prisoners you have captured then
    the surplus is counted as negative territory for your opponent.
    After accounting for komi the player with the most territory wins.

Prisoners are every stone a colour captured in play, every pass stone it received (LGC
Timing "Ending the game" 1) and the dead stones of the other colour removed at the count
(read with Game protocol "Prisoners"; the stones the players agree dead are taken off, as the
seed's "status of every group" in "Ending the game" 5 implies).

So with A = the empty points surrounded by one colour only (after the dead are removed) and
P = prisoners: Black's territory = A(black) − P(white) (White's prisoners fill Black's
territory), White's = A(white) − P(black), either may be negative; the margin is
Black's − (White's + komi), positive when Black wins.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from .board import (
    BLACK,
    CODE,
    EMPTY,
    WHITE,
    Colour,
    GoBoard,
    Point,
    format_point,
    geometry,
    group_liberties,
    place_stone,
)

EVEN_KOMI = Decimal("7.5")  # LGC Scoring: "Komi in an even game is 7.5 to White"
HANDICAP_KOMI = Decimal("0.5")  # LGC Scoring: "In a handicap game it is 0.5 to White"


@dataclass(frozen=True)
class GoCount:
    """The count of a finished game (LGC Scoring)."""

    black_territory: int  # after White's prisoners are placed in it; may be negative
    white_territory: int  # after Black's prisoners are placed in it; may be negative
    black_area: int  # empty points surrounded by Black only (eye points in seki included)
    white_area: int
    black_prisoners: int  # captured by Black: in play, pass stones received, dead removed
    white_prisoners: int
    komi: Decimal
    margin: Decimal  # black_territory − (white_territory + komi); positive: Black wins
    winner: Colour | None  # None only for a margin of 0 (an integer komi)
    dame: tuple[Point, ...]  # neutral empty points (touching both colours, or neither), sorted


def komi_for(handicap: int, even_komi: Decimal = EVEN_KOMI) -> Decimal:
    """LGC Scoring: 7.5 to White in an even game, 0.5 in a handicap game (handicap ≥ 2; a
    handicap of 1 is an even game without stones, read as even komi unless the tournament
    sets `even_komi`)."""
    return HANDICAP_KOMI if handicap >= 2 else even_komi


def _without_dead(board: GoBoard, dead: Iterable[Point]) -> tuple[bytearray, int, int]:
    """The board's cells with the dead stones removed, and how many black and white stones
    were removed. ValueError if a dead point is empty or only part of a group is named."""
    n = board.size
    cells = bytearray(n * n)
    for (r, c), colour in board.stones().items():
        cells[r * n + c] = CODE[colour]
    nbrs, _ = geometry(n)
    marked: set[int] = set()
    for p in dead:
        if board.colour_at(p) is None:  # ValueError off the board too
            raise ValueError(f"dead point {format_point(p, n)} is empty")
        marked.add(p[0] * n + p[1])
    # Status is agreed per group (LGC Timing "Ending the game" 5: "the status of every
    # group"): a group is dead or alive as a whole.
    for i in marked:
        for q in nbrs[i]:
            if cells[q] == cells[i] and q not in marked:
                raise ValueError(
                    f"dead stones must be whole groups: {format_point((i // n, i % n), n)} is "
                    f"marked dead, {format_point((q // n, q % n), n)} of its group is not"
                )
    removed = {BLACK: 0, WHITE: 0}
    for i in marked:
        removed[cells[i]] += 1
        cells[i] = EMPTY
    return cells, removed[BLACK], removed[WHITE]


def _regions(cells: bytearray, n: int) -> list[tuple[list[int], int]]:
    """The empty regions of `cells`: (points, bitmask of the colours bordering it)."""
    nbrs, _ = geometry(n)
    seen: set[int] = set()
    out: list[tuple[list[int], int]] = []
    for start in range(n * n):
        if cells[start] != EMPTY or start in seen:
            continue
        region = [start]
        seen.add(start)
        border = 0
        i = 0
        while i < len(region):
            for q in nbrs[region[i]]:
                v = cells[q]
                if v == EMPTY:
                    if q not in seen:
                        seen.add(q)
                        region.append(q)
                else:
                    border |= v
            i += 1
        out.append((region, border))
    return out


def count(board: GoBoard, dead: Iterable[Point], komi: Decimal) -> GoCount:
    """The LGC count of `board` once the `dead` stones (whole groups, agreed by the players)
    are removed. ValueError if a dead point is empty."""
    n = board.size
    cells, black_dead, white_dead = _without_dead(board, dead)
    # Dead stones removed become the other colour's prisoners.
    black_prisoners = board.prisoners["black"] + white_dead
    white_prisoners = board.prisoners["white"] + black_dead
    # LGC Scoring: "Territory is defined as empty points surrounded by stones of the same
    # colour. Accordingly eye points in seki count as territory."
    area = {BLACK: 0, WHITE: 0}
    dame: list[int] = []
    for region, border in _regions(cells, n):
        if border in (BLACK, WHITE):
            area[border] += len(region)
        else:
            dame += region
    # LGC Scoring: "Prisoners are placed inside the opponent's territory" and "the surplus is
    # counted as negative territory for your opponent".
    black_territory = area[BLACK] - white_prisoners
    white_territory = area[WHITE] - black_prisoners
    # LGC Scoring: "After accounting for komi the player with the most territory wins."
    margin = Decimal(black_territory) - (Decimal(white_territory) + komi)
    winner: Colour | None = "black" if margin > 0 else "white" if margin < 0 else None
    return GoCount(
        black_territory=black_territory,
        white_territory=white_territory,
        black_area=area[BLACK],
        white_area=area[WHITE],
        black_prisoners=black_prisoners,
        white_prisoners=white_prisoners,
        komi=komi,
        margin=margin,
        winner=winner,
        dame=tuple(sorted((i // n, i % n) for i in dame)),
    )


def _fills_safely(cells: bytearray, idx: int, me: int, n: int) -> bool:
    """Whether a stone of `me` on the empty `idx` leaves its group at least two liberties
    (not a suicide, not a self-atari)."""
    nbrs, _ = geometry(n)
    trial = bytearray(cells)
    _, own = place_stone(trial, idx, me, nbrs)
    return not own and len(group_liberties(trial, idx, nbrs)) >= 2


def unfilled_dame(board: GoBoard, dead: Iterable[Point]) -> list[Point]:
    """The dame still to be filled, sorted (LGC Game protocol "Dame, Teire": "All Dame and
    Teire must be filled including any points inside a seki that do not destroy the seki").

    Reading: once the `dead` stones are removed, a dame is an empty point of a region that
    touches both colours (a region touching one colour only is territory). A point is exempt
    when it "cannot be filled without destroying a seki": a stone of either colour on it would
    leave the filler's group with a single liberty (a self-atari) or none. So the shared
    liberties of a seki are not demanded, while a neutral point one side can fill safely is.
    Teire (the moves inside one's own territory that a shortage of liberties calls for) needs
    reading the position; it is not named here.
    """
    n = board.size
    cells, _, _ = _without_dead(board, dead)
    out: list[int] = []
    for region, border in _regions(cells, n):
        if border != BLACK | WHITE:
            continue
        for i in region:
            if _fills_safely(cells, i, BLACK, n) or _fills_safely(cells, i, WHITE, n):
                out.append(i)
    return [(i // n, i % n) for i in sorted(out)]
