"""Relay benchmark (issue 25 item 7), as one JSON document on stdout:

- `poll_500`: the CPU time of one poll of a 500-board live PGN (`[%clk]` on every move) into a
  tournament that follows it (`Relay.poll`, SQLite log in a temporary directory): the first
  poll (players, the round, 500 games started, every move appended), a poll of the same text
  (nothing changed: every game read, placed and found in force), and a poll where every board
  has one move more (500 moves appended), then one where one board moved (a game's text
  changed: that game alone is read again); the same text once more costs next to nothing (the
  text and the stream unchanged: the last report), so `unchanged_poll_restarted` is the same
  text read by a restarted relay (every game read, placed and found in force); beside
  python-chess's bare `chess.pgn.read_game` of the same text (the reference: a poll that
  reads the games cannot be faster than that);
- `latency`: from a change of the source file (a move on one board) to the first SSE message
  about it on a subscriber of a real `arbiter serve` (`GET /tournaments/{id}/stream`, the
  embedded runner tailing the same SQLite log), with the relay polling every second in this
  process (`follow`). Aim: p99 ≤ 1.5 s (lichess polls every 5 s). The wait for the next poll
  is part of it, so the figures spread over [0, 1] s plus the poll and the feed.

Run: `python -m tests.bench.relay [--quick]` (or `python -m tests.bench --only relay`) from
the repository root.
"""

from __future__ import annotations

import contextlib
import io
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import chess  # noqa: E402
import chess.pgn  # noqa: E402

from events_schema import Actor  # noqa: E402
from events_schema import events as ev  # noqa: E402
from services.commands.service import CommandService  # noqa: E402
from services.eventlog.sqlite import SQLiteEventLog  # noqa: E402
from services.interchange.pipeline import ImportRefused  # noqa: E402
from services.relay import FileSource, Relay, follow  # noqa: E402

from .common import quick_main  # noqa: E402

ADMIN = Actor(id="bench", role="admin")


def _line(board: int, plies: int) -> list[chess.Move]:
    """A game of `plies` random legal moves (seeded by the board: the same every time; no
    repetition for the rules to end it by)."""
    rng = random.Random(board)
    b = chess.Board()
    out: list[chess.Move] = []
    while len(out) < plies:
        legal = sorted(b.legal_moves, key=lambda m: m.uci())
        if not legal or b.is_game_over(claim_draw=True):
            break
        move = rng.choice(legal)
        out.append(move)
        b.push(move)
    return out


def _board_pgn(board: int, plies: int, rnd: int = 1) -> str:
    b = chess.Board()
    moves: list[str] = []
    for ply, move in enumerate(_line(board, plies)):
        number = f"{ply // 2 + 1}. " if ply % 2 == 0 else ""
        secs = 5400 - 10 * ply
        clock = f"{secs // 3600}:{secs // 60 % 60:02d}:{secs % 60:02d}"
        moves.append(f"{number}{b.san(move)} {{[%clk {clock}]}}")
        b.push(move)
    return (
        f'[Event "Bench"]\n[Round "{rnd}"]\n[Board "{board}"]\n'
        f'[White "White {board:03d}"]\n[Black "Black {board:03d}"]\n[Result "*"]\n\n'
        f"{' '.join(moves)} *\n\n"
    )


def source_text(boards: int, plies: int) -> str:
    return "".join(_board_pgn(b, plies) for b in range(1, boards + 1))


def _create(log: SQLiteEventLog, tid: str) -> None:
    from events_schema import Command, CommandBatch, encode_payload

    created = ev.TournamentCreated(name="Bench", format="swiss", rounds=9)
    batch = CommandBatch(
        commands=[Command(type=created.event_type, payload=encode_payload(created))]
    )
    CommandService(log).handle(tid, batch, ADMIN)


def _cpu(fn: Any) -> tuple[float, float, Any]:
    cpu0, wall0 = time.process_time(), time.perf_counter()
    out = fn()
    return time.process_time() - cpu0, time.perf_counter() - wall0, out


def poll_500(quick: bool) -> dict[str, Any]:
    boards = 100 if quick else 500
    plies = 30
    first, more = source_text(boards, plies), source_text(boards, plies + 1)
    with tempfile.TemporaryDirectory() as tmp:
        log = SQLiteEventLog(Path(tmp) / "events.sqlite3", synchronous="NORMAL")
        _create(log, "bench")
        relay = Relay(log, "bench", ADMIN, "round.pgn")
        cpu_first, wall_first, r1 = _cpu(lambda: relay.poll(first))
        cpu_same, wall_same, r2 = _cpu(lambda: relay.poll(first))
        restarted = Relay(log, "bench", ADMIN, "round.pgn")
        cpu_read, wall_read, r2b = _cpu(lambda: restarted.poll(first))
        cpu_more, wall_more, r3 = _cpu(lambda: relay.poll(more))
        one = _board_pgn(1, plies + 2) + more.split("\n\n", 2)[2]  # board 1 moves again
        cpu_one, wall_one, r4 = _cpu(lambda: relay.poll(one))
        assert r4.appended == 1, r4.appended
        assert not r1.held and r2.appended == r2b.appended == 0 and r3.appended == boards, (
            r2.appended,
            r3.appended,
        )

        def bare() -> int:
            handle, n = io.StringIO(more), 0
            while chess.pgn.read_game(handle) is not None:
                n += 1
            return n

        cpu_bare, _, _ = _cpu(bare)
        log.close()
    return {
        "boards": boards,
        "plies_per_board": plies,
        "first_poll": {"cpu_s": cpu_first, "wall_s": wall_first, "events": r1.appended},
        "unchanged_poll": {"cpu_s": cpu_same, "wall_s": wall_same, "events": 0},
        "unchanged_poll_restarted": {"cpu_s": cpu_read, "wall_s": wall_read, "events": 0},
        "one_move_per_board_poll": {"cpu_s": cpu_more, "wall_s": wall_more, "events": r3.appended},
        "one_board_moved_poll": {"cpu_s": cpu_one, "wall_s": wall_one, "events": r4.appended},
        "bare_read_game_cpu_s": cpu_bare,
        "restarted_unchanged_vs_bare_read": cpu_bare / cpu_read if cpu_read else None,
        "one_move_vs_bare_read": cpu_bare / cpu_more if cpu_more else None,
    }


def latency(quick: bool) -> dict[str, Any]:
    from .feed import ApiServer, SseReader

    changes = 8 if quick else 30
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        server = ApiServer(data)
        db = data / "events.sqlite3"
        log = SQLiteEventLog(db)
        _create(log, "live")
        path = data / "round.pgn"
        plies = 4
        path.write_text(source_text(8, plies), encoding="utf-8")
        relay = Relay(log, "live", ADMIN, path.name)
        relay.poll(path.read_text(encoding="utf-8"))
        stop = threading.Event()
        errors: list[str] = []

        def sleeper(seconds: float) -> None:
            if stop.wait(seconds):
                raise ImportRefused("bench.stop", "", "")

        def loop() -> None:
            with contextlib.suppress(ImportRefused):
                follow(
                    relay,
                    FileSource(path),
                    every=1.0,
                    sleep=sleeper,
                    on_poll=lambda r, e: errors.append(e) if e else None,
                )

        samples: list[float] = []
        with server:
            token = server.token("auditor", "bench")
            thread = threading.Thread(target=loop, daemon=True)
            thread.start()
            url = f"{server.url}/tournaments/live/stream"
            with SseReader(url, {"Authorization": f"Bearer {token}"}) as sse:
                sse.drain(1.5)
                for k in range(changes):
                    before = log.last_seq("live")
                    plies += 1
                    # board 1 moves on (the other boards as they were)
                    text = _board_pgn(1, plies) + source_text(8, 4).split("\n\n", 2)[2]
                    time.sleep(0.37 * (k % 3))  # changes fall at different points of the poll cycle
                    t0 = time.perf_counter()
                    path.write_text(text, encoding="utf-8")
                    deadline = t0 + 10
                    while time.perf_counter() < deadline:
                        e = sse.take(timeout=max(0.01, deadline - time.perf_counter()))
                        if e.id is not None and int(e.id) > before:
                            samples.append(e.received - t0)
                            break
                    sse.drain(0.2)
            stop.set()
            thread.join(10)
        log.close()
    samples.sort()

    def pct(q: float) -> float | None:
        return samples[min(len(samples) - 1, int(q * len(samples)))] if samples else None

    return {
        "poll_every_s": 1.0,
        "changes": changes,
        "received": len(samples),
        "p50_s": pct(0.5),
        "p99_s": pct(0.99),
        "max_s": samples[-1] if samples else None,
        "mean_s": statistics.fmean(samples) if samples else None,
        "aim_p99_s": 1.5,
        "source_errors": len(errors),
    }


def run(quick: bool) -> dict[str, Any]:
    return {"poll": poll_500(quick), "latency": latency(quick)}


def main(argv: list[str] | None = None, emit: bool = True) -> dict[str, Any]:
    return quick_main("relay", run, argv, emit)


if __name__ == "__main__":
    main()
