"""TCEC tiebreaks (seed tcec-rules.txt: 4k/Leagues "3. Tiebreaks", Swiss "3. Tiebreaks",
Leagues "11. Tiebreaks", FRD "3. Tiebreaks") and r-mobility (rules/r-mobility.md, TCEC wiki
"R-Mobility").

The chains:

- Leagues 11.1 (and 4k 3.1): direct encounter, Sonneborn-Berger, r-mobility, double wins,
  lowest average moves in won games, highest average moves in lost games, then the organisers
  decide (`tcec-league`).
- Swiss 3 and Leagues 11.2 (Qualification League): Sonneborn-Berger, r-mobility, wins, direct
  encounter, then shared places (`tcec-swiss`).
- FRD 3: direct encounter, Sonneborn-Berger, r-mobility, wins, then the organisers decide
  (`tcec-frd`).

`direct-encounter` and `sonneborn-berger` are the shared criteria of `common`.

Readings of this module where the texts leave room (stated so an auditor can check them):

- r-mobility (TCEC wiki "R-Mobility"; `r_mobility_goal`, `game_r_mobility`):
  - the positions that count are those reached by a move from the last pawn move or capture
    of the game on, the position that move produced included (a mate or stalemate delivered
    by a capture counts); a game with no pawn move or capture counts every position reached
    by a move. The start position is reached by no move and counts for nobody;
  - the goal of a position is G = n + m against the side to move (n its legal moves, m = ½
    when it is not in check) and is credited to the side that made the move; the lowest G
    wins the game under r-mobility and, when both sides reach the same lowest G, the side
    that reached it first (in the earlier position) gets it;
  - r-mobility points: winner ½ + (½)^(1+2G), loser ½ − (½)^(1+2G), exact (Fraction);
  - only drawn games are scored by r-mobility; a decisive game keeps its ordinary result
    (1 and 0, Armageddon's drawn-is-a-Black-win included); "0-0" gives 0 and 0;
  - a game without recorded moves (or whose moves do not replay legally from its start) has
    no r-mobility: it counts at its ordinary result (1, ½, 0), which is neutral — among
    players level on points only the r-mobility of their drawn games with moves differs.
    Forfeited games count likewise at their result; byes are not games and add nothing;
  - the moves are replayed with Chess960 rules (python-chess `chess960=True`) from the game's
    FEN when it has one (FRC/DFRC start positions and their castling), else from the standard
    start; castling in either UCI notation (e1g1 or king-takes-rook) replays.
- Average moves (Leagues 11.1.5-6, rules/README "TCEC average moves"): a game's length in
  moves is the number of its last move as a PGN numbers it (full moves: ceil(plies / 2) for a
  game from move 1 with White to move — standard, FRC and DFRC starts; a FEN start continues
  its own move counter). Only games won (lost) over the board with recorded moves count; a
  player with none has no value and ranks after every player who has one.
- Double wins (Leagues 11.1.4, rules/README "TCEC double wins"): a pair is two games played
  over the board between the same two engines with reversed colours and the same pair id
  (`Pairing.pair_id`) or, for games without a pair id, the same opening (book exit). Games
  sharing a pair id or opening are matched in the order they were played, each with the next
  game with reversed colours. A double win is winning both games of a pair.
- Wins (Swiss 3.3, FRD 3.4): games won over the board; with `count_forfeits`, forfeit wins
  too. Byes are never wins.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal

from events_schema.events import TiebreakSpec
from projections.tiebreaks.chain import Chain
from projections.tiebreaks.common import count_rounds, exact_shown
from projections.tiebreaks.registry import (
    Param,
    Value,
    count_key,
    criterion,
    negated_key,
    points_key,
)

if TYPE_CHECKING:
    import chess

    from projections.standings.crosstable import Crosstable, Game

NO_VALUE = "–"
HALF = Fraction(1, 2)
ORDINARY = {"win": Fraction(1), "draw": HALF, "loss": Fraction(0)}

# ---------------------------------------------------------------------------------------------
# r-mobility of one game


@dataclass(frozen=True, slots=True)
class Goal:
    """The best r-mobility goal of a game (TCEC wiki "R-Mobility").

    `twice_g` is 2G as an integer, G = n + m with n the legal moves of the side to move and
    m = ½ when it is not in check: mate 0 (G0.0), stalemate 1 (G0.5), one legal move in check
    2 (G1.0), one legal move not in check 3 (G1.5). `by` is the side that reached it (made the
    move into that position), `ply` the position's ply (1 = after the first recorded move).
    """

    twice_g: int
    by: Literal["white", "black"]
    ply: int

    @property
    def g(self) -> Fraction:
        return Fraction(self.twice_g, 2)

    @property
    def margin(self) -> Fraction:
        """(½)^(1+2G): what the r-mobility winner gains over ½ and the loser loses."""
        return Fraction(1, 2 ** (1 + self.twice_g))

    def points(self, colour: Literal["white", "black"]) -> Fraction:
        """r-mobility points of `colour`: ½ ± (½)^(1+2G)."""
        return HALF + self.margin if colour == self.by else HALF - self.margin

    def __str__(self) -> str:
        """The wiki's G-score: G1.5 for a White win, -G8.5 for a Black win."""
        sign = "-" if self.by == "black" else ""
        return f"{sign}G{self.twice_g // 2}.{5 if self.twice_g % 2 else 0}"


def _twice_g(board: chess.Board) -> int:
    return 2 * board.legal_moves.count() + (0 if board.is_check() else 1)


@functools.lru_cache(maxsize=8192)
def r_mobility_goal(fen: str | None, moves: tuple[str, ...]) -> Goal | None:
    """The best goal reached in the game given by its start (`fen`, None = standard start) and
    its moves (UCI), or None when it has no moves or they do not replay legally.

    A pure function of the game, cached: a tournament's games are replayed once, however often
    the standings are recomputed. The replay pushes every move (legality checked), then walks
    back from the end to the position after the last pawn move or capture, counting legal
    moves only there (the costly part), so a game costs about one replay plus the positions
    that count.
    """
    import chess  # here: only R-mobility replays moves; the standings import this module

    if not moves:
        return None
    try:
        board = chess.Board(fen or chess.STARTING_FEN, chess960=True)
        reset = 1  # first ply whose position counts
        for ply, uci in enumerate(moves, start=1):
            move = board.parse_uci(uci)
            if board.is_zeroing(move):
                reset = ply
            board.push(move)
    except (ValueError, AssertionError):
        return None
    best: Goal | None = None
    for ply in range(len(moves), reset - 1, -1):
        twice = _twice_g(board)
        # Walking backwards, "<=" keeps the earliest position of the lowest goal: the first
        # side to reach the best goal gets it.
        if best is None or twice <= best.twice_g:
            best = Goal(twice, "black" if board.turn == chess.WHITE else "white", ply)
        if ply > reset:
            board.pop()
    return best


def game_r_mobility(game: Game) -> tuple[Fraction, Fraction]:
    """(White's, Black's) r-mobility points for one game: a drawn game with moves is scored
    ½ ± (½)^(1+2G) by its best goal; any other game counts at its ordinary result."""
    if game.white_outcome == "draw" and game.black_outcome == "draw" and game.moves:
        goal = r_mobility_goal(game.fen, game.moves)
        if goal is not None:
            return goal.points("white"), goal.points("black")
    return ORDINARY[game.white_outcome], ORDINARY[game.black_outcome]


# ---------------------------------------------------------------------------------------------
# Helpers


def dyadic_shown(value: Fraction, digits: int = 6) -> str:
    """An r-mobility sum: exact decimal when it has at most `digits` decimals (3.25, 3.125),
    else rounded and marked "≈" (the key stays exact)."""
    text = f"{float(value):.{digits}f}".rstrip("0").rstrip(".")
    return text if Fraction(text) == value else f"≈{text}"


def average_shown(value: Fraction) -> str:
    """An average number of moves: 30, 32.5, 33 1/3."""
    text = exact_shown(value)
    if "/" not in text:
        return text
    whole, rest = divmod(value, 1)
    return f"{whole} {rest.numerator}/{rest.denominator}" if whole else text


def game_length(game: Game) -> int:
    """The game's length in moves: the number of its last move as a PGN numbers it. From the
    standard start (or any start at move 1 with White to move: FRC, DFRC) ceil(plies / 2); a
    FEN start continues its own move number and side to move."""
    plies = len(game.moves)
    first, white_first = 1, True
    if game.fen:
        fields = game.fen.split()
        white_first = len(fields) < 2 or fields[1] != "b"
        if len(fields) >= 6 and fields[5].isdigit():
            first = max(1, int(fields[5]))
    if white_first:
        return first + (plies - 1) // 2 if plies else 0
    return first + plies // 2 if plies else 0


def _played(ct: Crosstable) -> Iterable[Game]:
    return (g for g in ct.games if g.played)


def game_pairs(ct: Crosstable) -> list[tuple[Game, Game]]:
    """The game pairs of the stage (rules/README "TCEC double wins"): games played over the
    board grouped by pair id, else (no pair id) by the two engines and the opening; within a
    group each game is matched, in playing order, with the next game with reversed colours."""
    groups: dict[tuple[Any, ...], list[Game]] = {}
    for g in sorted(_played(ct), key=lambda g: (g.cycle, g.round, g.order, g.game_id)):
        if g.pair_id is not None:
            key: tuple[Any, ...] = ("pair", g.pair_id)
        elif g.opening is not None:
            key = ("opening", frozenset((g.white, g.black)), g.opening)
        else:
            continue
        groups.setdefault(key, []).append(g)
    pairs: list[tuple[Game, Game]] = []
    for games in groups.values():
        pending: list[Game] = []
        for g in games:
            mate = next((p for p in pending if (p.white, p.black) == (g.black, g.white)), None)
            if mate is None:
                pending.append(g)
            else:
                pending.remove(mate)
                pairs.append((mate, g))
    return pairs


def _average_moves(
    ct: Crosstable, group: Sequence[str], outcome: Literal["win", "loss"], sign: int
) -> dict[str, Value]:
    out = {}
    for p in group:
        lengths = [
            game_length(e.game)
            for e in ct.entries.get(p, ())
            if e.kind == "played" and e.outcome == outcome and e.game is not None and e.game.moves
        ]
        if not lengths:
            out[p] = Value(None, NO_VALUE)
            continue
        avg = Fraction(sum(lengths), len(lengths))
        out[p] = Value(sign * avg, average_shown(avg))
    return out


# ---------------------------------------------------------------------------------------------
# Criteria


@criterion(
    "r-mobility",
    "r-mobility",
    "TCEC Leagues 11.1.3 / Swiss 3.2 / FRD 3.3; TCEC wiki",
    unit="points",
    reading=points_key,
    radius="field",
)
def r_mobility(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """The sum of the player's r-mobility points over their games, most first (TCEC wiki
    "R-Mobility": "Winner of r-mobility tiebreak is player with most r-mobility points").

    A drawn game is scored by its best goal G since the last pawn move or capture: the side
    that reached it (first) ½ + (½)^(1+2G), the other ½ − (½)^(1+2G) — stalemate ¾/¼, one
    legal move in check ⅝/⅜. Decisive games, and games without recorded moves, count at their
    ordinary result (1, ½, 0). Exact: the key is a Fraction.
    """
    totals = {p: Fraction(0) for p in group}
    members = set(group)
    for g in ct.games:
        if g.white in members or g.black in members:
            white, black = game_r_mobility(g)
            if g.white in members:
                totals[g.white] += white
            if g.black in members:
                totals[g.black] += black
    return {p: Value(totals[p], dyadic_shown(totals[p])) for p in group}


@criterion(
    "wins",
    "wins",
    "TCEC Swiss 3.3 / Leagues 11.2.3 / FRD 3.4",
    params={"count_forfeits": Param(bool, False, doc="count games won by forfeit")},
    unit="count",
    reading=count_key,
    radius="field",
)
def wins(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """The number of games won, greatest first ("the greatest number of wins"). Games won over
    the board; with `count_forfeits` also games won by forfeit. Byes are not wins."""
    kinds = {"played", "forfeit_win"} if params["count_forfeits"] else {"played"}
    return count_rounds(ct, group, lambda e: e.kind in kinds and e.outcome == "win")


@criterion(
    "double-wins",
    "double wins",
    "TCEC Leagues 11.1.4 / 4k 3.1.4; rules/README",
    unit="count",
    reading=count_key,
    radius="field",
)
def double_wins(
    ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]
) -> dict[str, Value]:
    """The number of game pairs the player won both games of, greatest first ("winning both
    sides of a game pair and/or book exit"). A pair is two games over the board between the
    same two engines with reversed colours and the same pair id, or without pair ids the same
    opening (`game_pairs`)."""
    count = dict.fromkeys(group, 0)
    for a, b in game_pairs(ct):
        for p in (a.white, a.black):
            if p in count and a.outcome_of(p) == "win" and b.outcome_of(p) == "win":
                count[p] += 1
    return {p: Value(n, str(n)) for p, n in count.items()}


@criterion(
    "avg-moves-won",
    "average moves in won games",
    "TCEC Leagues 11.1.5 / 4k 3.1.5",
    unit="moves",
    reading=negated_key,
    radius="field",
)
def avg_moves_won(
    ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]
) -> dict[str, Value]:
    """The average length in moves (`game_length`) of the games the player won over the board,
    exact; FEWER is better (the key is negated). No won game with recorded moves: no value,
    ranked after every player who has one (rules/README "TCEC average moves")."""
    return _average_moves(ct, group, "win", -1)


@criterion(
    "avg-moves-lost",
    "average moves in lost games",
    "TCEC Leagues 11.1.6 / 4k 3.1.6",
    unit="moves",
    reading=points_key,
    radius="field",
)
def avg_moves_lost(
    ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]
) -> dict[str, Value]:
    """The average length in moves (`game_length`) of the games the player lost over the
    board, exact; MORE is better. No lost game with recorded moves: no value, ranked after
    every player who has one (rules/README "TCEC average moves")."""
    return _average_moves(ct, group, "loss", 1)


# ---------------------------------------------------------------------------------------------
# Presets


def _chain(*names: str) -> Chain:
    return Chain(tuple(TiebreakSpec(name=n) for n in names))


# Leagues 11.1 (4k 3.1 is the same list): "the Tournament Organizers will decide".
_LEAGUE_CRITERIA = (
    "direct-encounter",
    "sonneborn-berger",
    "r-mobility",
    "double-wins",
    "avg-moves-won",
    "avg-moves-lost",
    "organisers-decide",
)

#: Presets this rulebook defines (merged into projections.tiebreaks.presets.PRESETS).
PRESETS: dict[str, Chain] = {
    # Leagues 11.1.
    "tcec-league": _chain(*_LEAGUE_CRITERIA),
    # 4k 3.1 lists the same criteria as Leagues 11.1.
    "tcec-4k": _chain(*_LEAGUE_CRITERIA),
    # Swiss 3 and Leagues 11.2 (Qualification League): "these engines will share those places".
    "tcec-swiss": _chain(
        "sonneborn-berger",
        "r-mobility",
        "wins",
        "direct-encounter",
        "shared-place",
    ),
    # FRD 3: "the tournament organizers will decide which engine gets the promotion".
    "tcec-frd": _chain(
        "direct-encounter",
        "sonneborn-berger",
        "r-mobility",
        "wins",
        "organisers-decide",
    ),
}
