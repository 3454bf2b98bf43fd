"""Go board benchmark, as one JSON document on stdout: moves per second through
`projections.go.GoBoard.play` (captures, prisoners, suicide, ko and situational superko with
the exact position key of every position kept) on long 19×19 games, beside sgfmill's bare
`boards.Board.play` (captures only: no ko, no superko, no history) on the same moves in the
same run:

- `sgfmill_play`: `boards.Board(19).play(row, col, colour)` for every move;
- `goboard_play`: `GoBoard(19).play(colour, point)` for every move, a fresh board per game;
- `goboard_check_play`: `check` then `play` — what a decider does to refuse an illegal move
  before recording it.

The games are random legal games (ko, superko and suicide avoided), generated up front with a
fixed seed (`random.Random(SEED)`: randomness is fine in a benchmark, the projection itself
has none), so every run plays the same moves. Rates are the best of several interleaved runs
(wall clock, one thread, garbage collection off), as in `tests/bench/endings.py`.

Run: `python -m tests.bench.go [--quick]` from the repository root.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

_repo = Path(__file__).resolve().parents[2]
if str(_repo) not in sys.path:
    sys.path.insert(0, str(_repo))

from sgfmill import boards  # noqa: E402

from events_schema import events as ev  # noqa: E402
from events_schema.registry import Recorded  # noqa: E402
from projections.go import Colour, GoBoard, Point  # noqa: E402
from projections.go.board import format_point  # noqa: E402
from projections.tournament import fold  # noqa: E402

if str(_repo / "tests") not in sys.path:
    sys.path.insert(0, str(_repo / "tests"))
from builders import recorded  # noqa: E402

from .common import best_of, quick_main  # noqa: E402

SEED = 20260511
SIZE = 19
GAMES = 5
MOVES = 250


def _progress(msg: str) -> None:
    print(f"[bench.go] {msg}", file=sys.stderr, flush=True)


def random_games(
    n: int = GAMES, moves: int = MOVES, size: int = SIZE, seed: int = SEED
) -> list[list[tuple[Colour, Point]]]:
    """`n` random legal games of `moves` stones each (no pass), the same for a given seed."""
    rng = random.Random(seed)
    games = []
    for _ in range(n):
        board = GoBoard(size)
        game: list[tuple[Colour, Point]] = []
        while len(game) < moves:
            colour = board.to_move
            empty = [(r, c) for r in range(size) for c in range(size)]
            empty = [p for p in empty if board.colour_at(p) is None]
            rng.shuffle(empty)
            point = next((p for p in empty if board.check(colour, p).legal), None)
            if point is None:
                break
            board.play(colour, point)
            game.append((colour, point))
        games.append(game)
    return games


def _tournament(games: list[list[tuple[Colour, Point]]]) -> list[Recorded]:
    """The games as one Go tournament's log: creation, players, a round, the moves."""
    events: list[ev.Event] = [
        ev.TournamentCreated(name="bench", game="go", format="mcmahon", board_size=SIZE)
    ]
    pairs = [(f"g{i}", f"w{i}", f"b{i}") for i in range(len(games))]
    for _, w, b in pairs:
        events += [
            ev.PlayerRegistered(player_id=w, name=w),
            ev.PlayerRegistered(player_id=b, name=b),
        ]
    events.append(
        ev.RoundScheduled(
            round=1, pairings=[ev.Pairing(game_id=g, white=w, black=b) for g, w, b in pairs]
        )
    )
    for (gid, _, _), g in zip(pairs, games, strict=True):
        events += [
            ev.MovePlayed(game_id=gid, ply=i, colour=colour, point=format_point(p, SIZE))
            for i, (colour, p) in enumerate(g, start=1)
        ]
    return recorded("bench-go", events)


def run(quick: bool) -> dict[str, Any]:
    """The benchmark document. `quick`: fewer repeats (a smoke run)."""
    games = random_games()
    moves = sum(len(g) for g in games)
    sgf_games = [[(r, c, "b" if colour == "black" else "w") for colour, (r, c) in g] for g in games]
    captured = 0
    for g in games:
        board = GoBoard(SIZE)
        for colour, point in g:
            captured += len(board.play(colour, point).captured)

    def sgfmill_play() -> None:
        for g in sgf_games:
            board = boards.Board(SIZE)
            play = board.play
            for r, c, colour in g:
                play(r, c, colour)

    def goboard_play() -> None:
        for g in games:
            board = GoBoard(SIZE)
            play = board.play
            for colour, point in g:
                play(colour, point)

    def goboard_check_play() -> None:
        for g in games:
            board = GoBoard(SIZE)
            for colour, point in g:
                if board.check(colour, point).legal:
                    board.play(colour, point)

    records = _tournament(games)
    n_records = len(records)

    def tournament_fold() -> None:
        # The decider's fold of the whole log: every MovePlayed through evolve (board,
        # legality, superko keys, the record), as a replay or a command path pays it.
        fold(records)

    repeats = 3 if quick else 20
    _progress(f"{len(games)} games, {moves} moves, {captured} stones captured, best of {repeats}")
    times = best_of(
        {
            "sgfmill_play": sgfmill_play,
            "goboard_play": goboard_play,
            "goboard_check_play": goboard_check_play,
            "tournament_fold": tournament_fold,
        },
        repeats,
    )
    times["tournament_fold"] *= moves / n_records  # per move: the few other events excluded
    rates = {k: round(moves / v) for k, v in times.items()}
    doc = {
        "games": len(games),
        "size": SIZE,
        "moves": moves,
        "captured": captured,
        "seed": SEED,
        "repeats": repeats,
        "moves_per_s": rates,
        "goboard_vs_sgfmill": round(times["sgfmill_play"] / times["goboard_play"], 3),
        "goboard_check_play_vs_sgfmill": round(
            times["sgfmill_play"] / times["goboard_check_play"], 3
        ),
        "tournament_fold_vs_sgfmill": round(times["sgfmill_play"] / times["tournament_fold"], 3),
    }
    _progress(f"GoBoard.play / sgfmill Board.play = {doc['goboard_vs_sgfmill']}")
    return doc


def main(argv: Sequence[str] | None = None, emit: bool = True) -> dict[str, Any]:
    return quick_main("go", run, argv, emit)


if __name__ == "__main__":
    main()
