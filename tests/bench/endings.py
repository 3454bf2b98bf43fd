"""Endings benchmark (issue 15), as one JSON document on stdout: moves per second through the
adjudicator (`projections.endings.adjudicate`: legality, mate/stalemate, repetition, fifty
moves, the TCEC draw rule, clocks) on the sample TCEC PGNs (shared/data/pgn), beside
python-chess on the same moves in the same run:

- `bare_push`: `board.push(move)` of moves parsed beforehand (no legality test) — the
  reference of the target (adjudicator ≥ 50 % of it);
- `push_uci`: `board.push_uci(uci)`, python-chess's own parse + legality test + push;
- `adjudicator`: `adjudicate(GameFacts, "tcec-league")` from UCI strings with evaluations and
  move times, a fresh adjudicator per game.

Each game is cut at the ply the adjudicator ends it, so all three run the same moves. Rates are
the best of several interleaved runs (wall clock, one thread, garbage collection off).

Run: `python -m tests.bench.endings [--quick]` from the repository root.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

_repo = Path(__file__).resolve().parents[2]
if str(_repo) not in sys.path:
    sys.path.insert(0, str(_repo))

import chess  # noqa: E402
import chess.pgn  # noqa: E402

from events_schema.events import TimeControl  # noqa: E402
from projections.endings import GameFacts, MoveFacts, adjudicate  # noqa: E402
from projections.endings.pgn_comments import parse_tcec  # noqa: E402

from .common import best_of, quick_main  # noqa: E402

PGN_DIR = _repo.parent / "shared" / "data" / "pgn"
PRESET = "tcec-league"


def _progress(msg: str) -> None:
    print(f"[bench.endings] {msg}", file=sys.stderr, flush=True)


def load_games(pgn_dir: Path = PGN_DIR) -> list[tuple[chess.Board, list[chess.Move], GameFacts]]:
    """(start board, moves, facts) per game, cut where the adjudicator ends it."""
    out = []
    for path in sorted(pgn_dir.glob("*.pgn")):
        with path.open(encoding="utf-8") as fh:
            while (pgn := chess.pgn.read_game(fh)) is not None:
                board = pgn.board()
                start = board.copy()
                moves: list[chess.Move] = []
                facts: list[MoveFacts] = []
                for node in pgn.mainline():
                    c = parse_tcec(node.comment)
                    facts.append(
                        MoveFacts(board.uci(node.move), c.eval_cp, c.mate_in, c.move_time_ms)
                    )
                    moves.append(node.move)
                    board.push(node.move)
                base, _, inc = pgn.headers.get("TimeControl", "1800+3").partition("+")
                tc = TimeControl(name="tc", base_seconds=int(base), increment_seconds=int(inc or 0))
                game = GameFacts(tuple(facts), pgn.headers.get("FEN"), time_control=tc)
                ending = adjudicate(game, PRESET)
                n = ending.ply if ending is not None else len(moves)
                cut = GameFacts(game.moves[:n], game.start_fen, time_control=tc)
                out.append((start, moves[:n], cut))
    return out


def run(quick: bool) -> dict[str, Any]:
    """The benchmark document. `quick`: fewer repeats (a smoke run)."""
    games = load_games()
    if not games:
        return {"skipped": f"no PGN files in {PGN_DIR}"}
    moves = sum(len(m) for _, m, _ in games)
    ucis = [(start, [m.uci for m in facts.moves]) for start, _, facts in games]

    def bare() -> None:
        for start, mv, _ in games:
            board = start.copy(stack=False)
            push = board.push
            for m in mv:
                push(m)

    def push_uci() -> None:
        for start, us in ucis:
            board = start.copy(stack=False)
            push = board.push_uci
            for u in us:
                push(u)

    def adjudicator() -> None:
        for _, _, facts in games:
            adjudicate(facts, PRESET)

    repeats = 3 if quick else 25
    _progress(f"{len(games)} games, {moves} moves, best of {repeats}")
    times = best_of({"bare_push": bare, "push_uci": push_uci, "adjudicator": adjudicator}, repeats)
    rates = {k: round(moves / v) for k, v in times.items()}
    return {
        "games": len(games),
        "moves": moves,
        "preset": PRESET,
        "repeats": repeats,
        "moves_per_s": rates,
        "adjudicator_vs_bare_push": round(times["bare_push"] / times["adjudicator"], 3),
        "adjudicator_vs_push_uci": round(times["push_uci"] / times["adjudicator"], 3),
        "target": "adjudicator_vs_bare_push >= 0.5",
    }


def main(argv: Sequence[str] | None = None, emit: bool = True) -> dict[str, Any]:
    return quick_main("endings", run, argv, emit)


if __name__ == "__main__":
    main()
