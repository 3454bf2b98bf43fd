"""A small UCI engine for the arena's tests: `python uci_engine.py MODE [N]`.

Modes (N: the engine's own move number at which it misbehaves, default 1):

- `random`: a legal move, chosen by a seeded generator (the position's FEN seeds it, so a
  game replays the same), with a made-up `info` line (depth, nodes, score, pv);
- `crash N`: at its N-th move, prints a message on stderr and exits with code 3;
- `hang N`: at its N-th move, stops answering (it reads `go` and never sends `bestmove`);
- `illegal N`: at its N-th move, answers a move that is not legal in the position;
- `slow N`: from its N-th move on, thinks for a second before it answers (a flag falls);
- `paced N`: as `random`, thinking N milliseconds a move (a game long enough to kill).

An engine that never starts is a command that does not exist (the tests use one).
"""

from __future__ import annotations

import random
import sys
import time

import chess


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "random"
    at = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    board = chess.Board()
    played = 0
    for raw in sys.stdin:
        line = raw.strip()
        if line == "uci":
            print(f"id name test-{mode}")
            print("id author arbiter tests")
            print("option name Threads type spin default 1 min 1 max 8")
            print("uciok", flush=True)
        elif line == "isready":
            print("readyok", flush=True)
        elif line.startswith("setoption") or line == "ucinewgame":
            continue
        elif line.startswith("position"):
            board = _position(line)
        elif line.startswith("go"):
            played += 1
            if played >= at and mode == "crash":
                print(f"test-crash: segmentation fault at move {played}", file=sys.stderr)
                sys.stderr.flush()
                sys.exit(3)
            if played >= at and mode == "hang":
                print("test-hang: stuck in search", file=sys.stderr, flush=True)
                time.sleep(3600)
            if played >= at and mode == "slow":
                time.sleep(1.0)
            if mode == "paced":
                time.sleep(at / 1000)
            moves = list(board.legal_moves)
            if played >= at and mode == "illegal":
                print(f"bestmove {_illegal(board)}", flush=True)
                continue
            if not moves:
                print("bestmove (none)", flush=True)
                continue
            move = random.Random(board.fen()).choice(moves)
            print(f"info depth 1 nodes {len(moves)} score cp 0 pv {move.uci()}")
            print(f"bestmove {move.uci()}", flush=True)
        elif line == "quit":
            return


def _illegal(board: chess.Board) -> str:
    """A well-formed move from an empty square: never legal."""
    empty = next(sq for sq in chess.SQUARES if board.piece_at(sq) is None)
    return chess.square_name(empty) + chess.square_name(chess.A1 if empty != chess.A1 else chess.B1)


def _position(line: str) -> chess.Board:
    words = line.split()
    if "moves" in words:
        i = words.index("moves")
        head, moves = words[:i], words[i + 1 :]
    else:
        head, moves = words, []
    if len(head) > 1 and head[1] == "fen":
        board = chess.Board(" ".join(head[2:]), chess960=True)
    else:
        board = chess.Board(chess960=True)
    for uci in moves:
        board.push(board.parse_uci(uci))
    return board


if __name__ == "__main__":
    main()
