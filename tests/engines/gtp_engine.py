"""A small GTP engine for the Go arena's tests: `python gtp_engine.py MODE [N]`.

It plays random legal moves (no ko, superko or suicide: `projections/go/board.py` judges
them) that do not fill its own eyes, chosen by a generator seeded with the position (a game
replays the same), and passes when none is left; `final_status_list dead` answers no stone
(random play to the end captures the dead). Modes (N: the engine's own move number at which
it misbehaves, default 1):

- `random`: as above;
- `crash N`: at its N-th `genmove`, prints a message on stderr and exits with code 3;
- `hang N`: at its N-th `genmove`, stops answering;
- `illegal N`: at its N-th `genmove`, answers an occupied point (or, on an empty board, a
  vertex off the board);
- `disagree`: `final_status_list dead` names a stone on the board that is alive;
- `resign N`: at its N-th `genmove`, answers `resign`;
- `slow N`: from its N-th `genmove` on, thinks for 1.5 seconds (a byo-yomi flag falls);
- `paced N`: as `random`, thinking N milliseconds a move (a game long enough to kill).
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from projections.go.board import GoBoard, format_point, parse_point

COMMANDS = [
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "set_free_handicap",
    "play",
    "genmove",
    "final_status_list",
    "time_settings",
    "time_left",
]


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "random"
    at = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    size = 19
    board = GoBoard(size)
    played = 0
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        cmd, args = words[0], words[1:]
        answer = ""
        if cmd == "protocol_version":
            answer = "2"
        elif cmd == "name":
            answer = f"test-{mode}"
        elif cmd == "version":
            answer = "1"
        elif cmd == "list_commands":
            answer = "\n".join(COMMANDS)
        elif cmd == "known_command":
            answer = "true" if args and args[0] in COMMANDS else "false"
        elif cmd == "quit":
            _say("")
            return
        elif cmd == "boardsize":
            size = int(args[0])
            board = GoBoard(size)
        elif cmd == "clear_board":
            board = GoBoard(size)
        elif cmd == "set_free_handicap":
            stones = [p for v in args if (p := parse_point(v, size)) is not None]
            board = GoBoard(size, handicap_points=stones)
        elif cmd == "play":
            colour = "black" if args[0].lower().startswith("b") else "white"
            try:
                board.play(colour, parse_point(args[1], size))
            except ValueError as exc:
                _say(f"? illegal move: {exc}")
                continue
        elif cmd == "genmove":
            played += 1
            colour = "black" if args[0].lower().startswith("b") else "white"
            if played >= at and mode == "crash":
                print(f"test-crash: segmentation fault at move {played}", file=sys.stderr)
                sys.stderr.flush()
                sys.exit(3)
            if played >= at and mode == "hang":
                print("test-hang: stuck in search", file=sys.stderr, flush=True)
                time.sleep(3600)
            if played >= at and mode == "slow":
                time.sleep(1.5)
            if mode == "paced":
                time.sleep(at / 1000)
            if played >= at and mode == "resign":
                answer = "resign"
            elif played >= at and mode == "illegal":
                stones = sorted(board.stones())
                answer = format_point(stones[0], size) if stones else "Z99"
            else:
                point = _choose(board, colour, size)
                board.play(colour, point)
                answer = format_point(point, size)
        elif cmd == "final_status_list":
            stones = sorted(board.stones())
            answer = format_point(stones[0], size) if mode == "disagree" and stones else ""
        elif cmd in ("komi", "time_settings", "time_left"):
            pass
        else:
            _say(f"? unknown command {cmd}")
            continue
        _say(f"= {answer}")


def _say(text: str) -> None:
    sys.stdout.write(text + "\n\n")
    sys.stdout.flush()


def _choose(board: GoBoard, colour: str, size: int) -> tuple[int, int] | None:
    rng = random.Random(board.position_key())
    stones = board.stones()
    points = [(r, c) for r in range(size) for c in range(size) if (r, c) not in stones]
    rng.shuffle(points)
    for p in points:
        if _own_eye(stones, p, colour, size):
            continue
        if board.check(colour, p).legal:  # type: ignore[arg-type]
            return p
    return None


def _own_eye(
    stones: dict[tuple[int, int], str], p: tuple[int, int], colour: str, size: int
) -> bool:
    r, c = p
    around = [(r + dr, c + dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    return all(stones.get(q) == colour for q in around if 0 <= q[0] < size and 0 <= q[1] < size)


if __name__ == "__main__":
    main()
