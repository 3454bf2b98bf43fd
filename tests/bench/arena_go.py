"""Go arena benchmark (issue 25), one JSON document on stdout: the arena's moves per second on a
Go tournament (`services/arena/go_game.py`: GTP engines, every move appended through the command
path on the embedded SQLite log, synchronous=FULL as the CLI opens it, the status agreed by both
engines' `final_status_list dead`) beside a bare GTP loop over the same engines (`genmove` for
the side to move, `play` on the other engine, both `final_status_list dead` at the end; nothing
recorded).

Both sides play the same number of plies per game: the arena's McMahon round (four players of
one rank: even games, no handicap) is played first, then the bare loop plays each of its games
for as many plies as the arena's took, with fresh engine processes per game on both sides (as
the arena starts them), each told the same clock (`time_settings`, then `time_left` before
every `genmove`, as the arena tells it: GNU Go thinks longer with more time). GNU Go (Debian's
`gnugo --mode gtp --level L`) on 9×9; without it the test engine (tests/engines/gtp_engine.py)
stands in. Rates are the best of interleaved runs.

Run: `python -m tests.bench.arena_go [--quick]` from the repository root; target
`arena_vs_bare >= 0.9`.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

_repo = Path(__file__).resolve().parents[2]
if str(_repo) not in sys.path:
    sys.path.insert(0, str(_repo))

from events_schema import Actor, Command, CommandBatch, Recorded, encode_payload  # noqa: E402
from events_schema import events as ev  # noqa: E402
from events_schema.go import GoSettings  # noqa: E402
from services.arena.arena import Arena, ArenaConfig  # noqa: E402
from services.arena.engines import EngineSpec  # noqa: E402
from services.commands.service import CommandService  # noqa: E402
from services.eventlog.sqlite import SQLiteEventLog  # noqa: E402

from .common import quick_main  # noqa: E402

ENGINE = _repo / "tests" / "engines" / "gtp_engine.py"
ADMIN = Actor(id="bench", role="admin")
T = "bench-arena-go"
SIZE = 9
PLAYERS = ("p1", "p2", "p3", "p4")
MAIN_S, PERIOD_S, STONES = 600, 300, 25  # ten minutes each, then Canadian 25 stones / 5 min


def _command(level: int) -> tuple[str, list[str]]:
    found = shutil.which("gnugo") or (
        "/usr/games/gnugo" if Path("/usr/games/gnugo").exists() else None
    )
    if found is not None:
        return "gnugo", [found, "--mode", "gtp", "--level", str(level), "--never-resign"]
    return "test-engine", [sys.executable, str(ENGINE), "random"]


def _arena(db: Path, command: list[str]) -> tuple[float, list[int]]:
    """Seconds the arena took for one McMahon round of four (two games), and each game's
    plies."""
    log = SQLiteEventLog(db, synchronous="FULL")
    try:
        service = CommandService(log)
        created = ev.TournamentCreated(
            name="Bench Go",
            game="go",
            format="mcmahon",
            rounds=1,
            board_size=SIZE,
            rules_preset="lgc",
            go=GoSettings(mcmahon_bar="1d", handicap="rank_difference"),
            # ten minutes each and Canadian overtime: GNU Go plays at its level throughout
            time_controls=[
                ev.TimeControl(
                    name="10m+25/5m",
                    base_seconds=MAIN_S,
                    overtime="canadian",
                    overtime_seconds=PERIOD_S,
                    overtime_stones=STONES,
                )
            ],
        )
        players = [
            ev.PlayerRegistered(player_id=p, name=p, kind="engine", go_rank="1k") for p in PLAYERS
        ]
        batch = CommandBatch(
            commands=[
                Command(type=e.event_type, payload=encode_payload(e)) for e in (created, *players)
            ]
        )
        service.handle(T, batch, ADMIN)
        config = ArenaConfig([EngineSpec(p, tuple(command)) for p in PLAYERS])
        t0 = time.perf_counter()
        Arena(service, T, ADMIN, config).run()
        seconds = time.perf_counter() - t0
        records = [Recorded.of(e) for e in log.read(T, 1)]
    finally:
        log.close()
    plies: dict[str, int] = {}
    order: list[str] = []
    for r in records:
        if isinstance(r.event, ev.RoundScheduled):
            order += [p.game_id for p in r.event.pairings]
        if isinstance(r.event, ev.MovePlayed):
            plies[r.event.game_id] = r.event.ply
    return seconds, [plies.get(g, 0) for g in order]


class _Gtp:
    """A bare GTP pipe: one line out, read to the blank line that ends the answer."""

    def __init__(self, command: list[str]) -> None:
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )

    def ask(self, line: str) -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        answer: list[str] = []
        while True:
            got = self.proc.stdout.readline()
            if got in ("", "\n") and answer:
                break
            if got.strip():
                answer.append(got.strip())
        return " ".join(answer)[1:].strip()

    def close(self) -> None:
        with contextlib.suppress(BrokenPipeError, OSError):
            self.ask("quit")
        self.proc.wait(timeout=10)


def _bare(plies: Sequence[int], command: list[str]) -> float:
    """The same games in a bare loop: fresh engines per game, `genmove` and `play`."""
    t0 = time.perf_counter()
    for n in plies:
        engines = [_Gtp(command), _Gtp(command)]  # black, white
        try:
            for e in engines:
                e.ask(f"boardsize {SIZE}")
                e.ask("clear_board")
                e.ask("komi 7.5")
                e.ask(f"time_settings {MAIN_S} {PERIOD_S} {STONES}")
            left = [float(MAIN_S), float(MAIN_S)]  # the same clock the arena tells them
            for ply in range(n):
                colour = "black" if ply % 2 == 0 else "white"
                mover, other = engines[ply % 2], engines[1 - ply % 2]
                mover.ask(f"time_left {colour} {int(left[ply % 2])} 0")
                started = time.perf_counter()
                vertex = mover.ask(f"genmove {colour}")
                left[ply % 2] -= time.perf_counter() - started
                other.ask(f"play {colour} {vertex}")
            for e in engines:
                e.ask("final_status_list dead")
        finally:
            for e in engines:
                e.close()
    return time.perf_counter() - t0


def _measure(level: int, repeats: int, command: list[str]) -> dict[str, Any]:
    best_arena = best_bare = float("inf")
    plies: list[int] = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(repeats):
            seconds, plies = _arena(Path(tmp) / f"arena-{i}.sqlite3", command)
            best_arena = min(best_arena, seconds)
            best_bare = min(best_bare, _bare(plies, command))
    moves = sum(plies)
    return {
        "level": level,
        "board_size": SIZE,
        "games": len(plies),
        "moves": moves,
        "plies_per_game": plies,
        "moves_per_s": {
            "arena": round(moves / best_arena, 1),
            "bare_gtp_loop": round(moves / best_bare, 1),
        },
        "arena_vs_bare": round(best_bare / best_arena, 3),
    }


def run(quick: bool) -> dict[str, Any]:
    """GNU Go at level 1 (the engine's search still dominates each move, as in a real event:
    the target)."""
    name, command = _command(level=1)
    repeats = 1 if quick else 2
    result = _measure(1, repeats, command)
    return {
        "engine": name,
        "repeats": repeats,
        "runs": [result],
        "arena_vs_bare": result["arena_vs_bare"],
        "target": "arena_vs_bare >= 0.9",
    }


def main(argv: Sequence[str] | None = None, emit: bool = True) -> dict[str, Any]:
    return quick_main("arena_go", run, argv, emit)


if __name__ == "__main__":
    main()
