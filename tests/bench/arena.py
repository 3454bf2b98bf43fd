"""Arena benchmark (issue 25), one JSON document on stdout: the arena's moves per second
(`services/arena`: every move decided and appended through the command path on the embedded
SQLite log, synchronous=FULL as the CLI opens it) beside a bare python-chess loop
(`SimpleEngine.play` and `board.push`, nothing recorded) with the same engines and limits.

Both sides play the same games: Stockfish (Debian's, Threads=1) at a fixed node count is
deterministic, and each game starts fresh engine processes on both sides (the arena starts one
per player per game), so the bare loop replays each of the arena's games to the ply where the
arena's rules ended it. Without Stockfish, the test engine (tests/engines/uci_engine.py,
random legal moves, seeded by the position) stands in. Rates are the best of interleaved
runs.

Run: `python -m tests.bench.arena [--quick]` from the repository root; target
`arena_vs_bare >= 0.95`.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

_repo = Path(__file__).resolve().parents[2]
if str(_repo) not in sys.path:
    sys.path.insert(0, str(_repo))

import chess  # noqa: E402
import chess.engine  # noqa: E402

from events_schema import Actor, Command, CommandBatch, Recorded, encode_payload  # noqa: E402
from events_schema import events as ev  # noqa: E402
from services.arena.arena import Arena, ArenaConfig  # noqa: E402
from services.arena.engines import EngineSpec  # noqa: E402
from services.arena.limits import RunLimit  # noqa: E402
from services.commands.service import CommandService  # noqa: E402
from services.eventlog.sqlite import SQLiteEventLog  # noqa: E402

from .common import quick_main  # noqa: E402

ENGINE = _repo / "tests" / "engines" / "uci_engine.py"
ADMIN = Actor(id="bench", role="admin")
T = "bench-arena"


def _command() -> tuple[str, list[str]]:
    found = shutil.which("stockfish") or (
        "/usr/games/stockfish" if Path("/usr/games/stockfish").exists() else None
    )
    if found is not None:
        return "stockfish", [found]
    return "test-engine", [sys.executable, str(ENGINE), "random"]


def _arena(db: Path, games: int, nodes: int, command: list[str]) -> tuple[float, list[int]]:
    """Seconds the arena took for `games` games (a double round robin of two), and each game's
    plies."""
    log = SQLiteEventLog(db, synchronous="FULL")
    try:
        service = CommandService(log)
        created = ev.TournamentCreated(
            name="Bench", format="round_robin", rules_preset="tcec-league", cycles=games
        )
        players = [ev.PlayerRegistered(player_id=p, name=p, kind="engine") for p in ("a", "b")]
        batch = CommandBatch(
            commands=[
                Command(type=e.event_type, payload=encode_payload(e)) for e in (created, *players)
            ]
        )
        service.handle(T, batch, ADMIN)
        specs = [EngineSpec(p, tuple(command), (("Threads", "1"),)) for p in ("a", "b")]
        if "stockfish" not in command[0]:
            specs = [EngineSpec(p, tuple(command)) for p in ("a", "b")]
        config = ArenaConfig(specs, RunLimit(nodes=nodes))
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


def _bare(plies: Sequence[int], nodes: int, command: list[str]) -> float:
    """The same games in a bare loop: fresh engines per game, `play` and `push`."""
    stockfish = "stockfish" in command[0]
    t0 = time.perf_counter()
    for n in plies:
        engines = [chess.engine.SimpleEngine.popen_uci(command) for _ in range(2)]
        try:
            if stockfish:
                for e in engines:
                    e.configure({"Threads": 1})
            board = chess.Board()
            limit = chess.engine.Limit(nodes=nodes)
            for ply in range(n):
                result = engines[ply % 2].play(board, limit)
                assert result.move is not None
                board.push(result.move)
        finally:
            for e in engines:
                e.quit()
    return time.perf_counter() - t0


def _measure(nodes: int, games: int, repeats: int, command: list[str]) -> dict[str, Any]:
    best_arena = best_bare = float("inf")
    plies: list[int] = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(repeats):
            seconds, plies = _arena(Path(tmp) / f"arena-{i}.sqlite3", games, nodes, command)
            best_arena = min(best_arena, seconds)
            best_bare = min(best_bare, _bare(plies, nodes, command))
    moves = sum(plies)
    return {
        "nodes_per_move": nodes,
        "games": games,
        "moves": moves,
        "plies_per_game": plies,
        "moves_per_s": {
            "arena": round(moves / best_arena, 1),
            "bare_engine_play": round(moves / best_bare, 1),
        },
        "arena_vs_bare": round(best_bare / best_arena, 3),
    }


def run(quick: bool) -> dict[str, Any]:
    """A realistic node count first (the engine's search dominates, as in any real event: the
    target), then a very fast one, where each move's durable append (an fsync, about as long
    as the search itself) shows: the arena overlaps it with the opponent's search but cannot
    hide it when the search is shorter."""
    name, command = _command()
    if name == "stockfish":
        settings = [(5_000, 1)] if quick else [(20_000, 2), (2_000, 2)]
    else:
        settings = [(10, 1)] if quick else [(10, 2)]
    repeats = 1 if quick else 2
    runs = [_measure(nodes, games, repeats, command) for nodes, games in settings]
    return {
        "engine": name,
        "repeats": repeats,
        "runs": runs,
        "arena_vs_bare": runs[0]["arena_vs_bare"],
        "target": "arena_vs_bare >= 0.95 (the first run's limit)",
    }


def main(argv: Sequence[str] | None = None, emit: bool = True) -> dict[str, Any]:
    return quick_main("arena", run, argv, emit)


if __name__ == "__main__":
    main()
