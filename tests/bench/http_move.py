"""One `MovePlayed` over HTTP (issue 27, item 7): the server's CPU per move posted, beside a
bare FastAPI endpoint that validates the same body with the same pydantic models and inserts
one SQLite row.

The arbiter side is a real `arbiter serve` process on the embedded SQLite log (ApiServer,
tests/bench/feed.py: the command path, the log, the live projector and its documents all run
in it). One tournament is set up with `GAMES` games of round 1 in progress; then `moves`
`MovePlayed` commands (each a single command body, as a board or relay client sends it) are
posted one after another from one httpx client over one keep-alive connection, the games
taken in turn, each following a fixed seeded sequence of legal moves (python-chess) that
never ends the game. The server's CPU (utime + stime of its process, /proc/<pid>/stat) over
the posts, divided by the moves, is the figure; wall time per move is reported beside it.

Both servers run at once and each move is posted to the arbiter, then to the bare endpoint, so
the two are measured over the same window: on a machine shared with other work a busy spell
falls on both, and their ratio (`cpu_ratio_vs_bare`, `rate_vs_bare`) holds where each figure
alone does not (measured one after the other, the ratio of the same code ranged 1.7-3.0 on
2 shared cores; interleaved, 2.17-2.22).

The peer is a FastAPI app in its own process, served by uvicorn with the same settings as
`arbiter serve` (`uvicorn.Config(app, host, port)`, services/cli/server.py): its endpoint reads
the same JSON body, validates it strictly as a `Command` and its payload as a `MovePlayed`
(events_schema, the models the API uses), inserts one row into a SQLite database in WAL mode
with the embedded log's default `synchronous=FULL`, and answers 201 with a small JSON body.

Run: `python -m tests.bench.http_move [--quick] [--moves N]` (or
`python -m tests.bench --only http_move`) from the repository root; prints one JSON document.
Aim (issue 27): ≤ 1,000 µs CPU per move and ≥ 0.5× the bare endpoint's rate (moves per CPU
second). Loopback only, bounded in count.
"""

from __future__ import annotations

import contextlib
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from .common import quick_main  # noqa: E402
from .feed import ApiServer, free_port  # noqa: E402

#: Games in progress, played in turn (each at most PLIES plies, never ended).
GAMES = 50
PLIES = 60
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (all its threads), /proc/<pid>/stat fields 14 and 15."""
    raw = Path(f"/proc/{pid}/stat").read_text()
    fields = raw[raw.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def thread_cpu_seconds(pid: int) -> tuple[float, float]:
    """CPU seconds of the process's main thread (the event loop: HTTP, request validation,
    the response) and of all its other threads (the command worker, the live projector, the
    feed), /proc/<pid>/task/*/stat."""
    main = other = 0.0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            raw = (task / "stat").read_text()
        except OSError:  # the thread ended
            continue
        fields = raw[raw.rindex(")") + 2 :].split()
        cpu = (int(fields[11]) + int(fields[12])) / TICKS
        if task.name == str(pid):
            main += cpu
        else:
            other += cpu
    return main, other


def game_moves(seed: int, plies: int) -> list[str]:
    """A fixed sequence of legal moves (UCI) that never ends the game within `plies`."""
    import chess

    rng = random.Random(seed)
    board = chess.Board()
    out: list[str] = []
    while len(out) < plies:
        legal = list(board.legal_moves)
        rng.shuffle(legal)
        for move in legal:
            board.push(move)
            over = board.is_game_over(claim_draw=True)
            if not over:
                out.append(move.uci())
                break
            board.pop()
        else:
            break
    return out


def move_commands(n: int) -> list[dict[str, Any]]:
    """`n` MovePlayed command bodies, the games in turn."""
    lines = [game_moves(g, PLIES) for g in range(GAMES)]
    out: list[dict[str, Any]] = []
    ply = 0
    while len(out) < n:
        for g, line in enumerate(lines):
            if ply < len(line) and len(out) < n:
                out.append(
                    {
                        "type": "MovePlayed",
                        "event_id": str(uuid.uuid4()),
                        "payload": {
                            "game_id": f"g{g}",
                            "ply": ply + 1,
                            "colour": "white" if ply % 2 == 0 else "black",
                            "uci": line[ply],
                            "clock_ms": 5_400_000 - 1000 * ply,
                        },
                    }
                )
        ply += 1
        if ply >= PLIES:
            raise ValueError(f"at most {GAMES * PLIES} moves")
    return out


def setup_commands() -> list[dict[str, Any]]:
    cmds: list[dict[str, Any]] = [
        {"type": "TournamentCreated", "payload": {"name": "Moves", "format": "swiss", "rounds": 5}}
    ]
    cmds += [
        {"type": "PlayerRegistered", "payload": {"player_id": f"p{i}", "name": f"Player {i}"}}
        for i in range(2 * GAMES)
    ]
    pairings = [
        {"game_id": f"g{g}", "white": f"p{2 * g}", "black": f"p{2 * g + 1}", "board": g + 1}
        for g in range(GAMES)
    ]
    cmds.append({"type": "RoundScheduled", "payload": {"round": 1, "pairings": pairings}})
    return cmds


def _split(pid: int) -> tuple[float, float, float]:
    """CPU seconds of the process, of its main thread and of its other threads."""
    main, other = thread_cpu_seconds(pid)
    return cpu_seconds(pid), main, other


Target = tuple[str, str, dict[str, str], int]  # url, path, headers, the server's pid


def _post_all(targets: dict[str, Target], bodies: list[dict[str, Any]]) -> dict[str, Any]:
    """Post each body to every target in turn (name -> (url, path, headers, pid)), each over
    its own keep-alive connection; the CPU of each target's process over the same window."""
    clients = {
        name: (httpx.Client(base_url=url, headers=headers, timeout=60), path)
        for name, (url, path, headers, _) in targets.items()
    }
    try:

        def post(client: httpx.Client, path: str, body: dict[str, Any]) -> None:
            r = client.post(path, json=body)
            if r.status_code != 201:
                raise RuntimeError(f"{r.status_code}: {r.text}")

        # Warm the connections and the servers' first-call paths.
        for body in bodies[:20]:
            for client, path in clients.values():
                post(client, path, body)
        time.sleep(0.3)  # let the first projections settle
        before = {name: _split(t[3]) for name, t in targets.items()}
        t0 = time.perf_counter()
        for body in bodies[20:]:
            for client, path in clients.values():
                post(client, path, body)
        wall = time.perf_counter() - t0
        time.sleep(0.3)  # the live projector runs after the answer: count its work too
        after = {name: _split(t[3]) for name, t in targets.items()}
    finally:
        for client, _ in clients.values():
            client.close()
    n = len(bodies) - 20
    out = {}
    for name in targets:
        cpu, main, other = (a - b for a, b in zip(after[name], before[name], strict=True))
        out[name] = {
            "moves": n,
            "cpu_us_per_move": round(cpu / n * 1e6, 1),
            # (the window holds both servers' posts: each one's wall time is about half)
            "wall_us_per_move_both": round(wall / n * 1e6, 1),
            # The event loop's thread (HTTP, validation, the answer) and all the others (the
            # command worker and, on the arbiter, the live projector and the feed). A thread
            # that ended during the run drops out, so the two may not add up to the total.
            "main_thread_cpu_us_per_move": round(main / n * 1e6, 1),
            "other_threads_cpu_us_per_move": round(other / n * 1e6, 1),
            "moves_per_cpu_s": round(n / cpu, 1) if cpu else None,
        }
    return out


@contextlib.contextmanager
def arbiter_server() -> Iterator[Target]:
    """A real `arbiter serve` on the embedded log, its tournament set up: (url, path,
    headers, pid)."""
    with tempfile.TemporaryDirectory(prefix="arbiter-http-move-") as d:
        server = ApiServer(Path(d))
        admin = server.token("admin", "bench")
        with server:
            assert server.proc is not None
            tid = f"moves-{uuid.uuid4().hex[:6]}"
            headers = {"Authorization": f"Bearer {admin}"}
            r = httpx.post(
                f"{server.url}/tournaments/{tid}/commands",
                json={"commands": setup_commands()},
                headers=headers,
                timeout=60,
            )
            r.raise_for_status()
            yield server.url, f"/tournaments/{tid}/commands", headers, server.proc.pid


# The peer: the same body, validated with the same models, one SQLite row, one JSON answer.
PEER_CODE = r"""
import sqlite3, sys, uuid
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool
from events_schema import Command
from events_schema.codec import dumps
from events_schema.events import MovePlayed

db = sqlite3.connect(sys.argv[2], check_same_thread=False, isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA synchronous=FULL")
db.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY, event_id TEXT UNIQUE, body BLOB)")
app = FastAPI()

def insert(event_id, body):
    with db:
        cur = db.execute("INSERT INTO events (event_id, body) VALUES (?, ?)", (event_id, body))
    return cur.lastrowid

@app.post("/commands")
async def post(request: Request) -> Response:
    cmd = Command.model_validate_json(await request.body(), strict=True)
    move = MovePlayed.model_validate(cmd.payload, strict=False)
    eid = str(cmd.event_id or uuid.uuid4())
    seq = await run_in_threadpool(insert, eid, move.model_dump_json())
    body = dumps({"events": [{"event_id": eid, "seq": seq, "type": "MovePlayed"}]})
    return Response(body, status_code=201, media_type="application/json")

config = uvicorn.Config(app, host="127.0.0.1", port=int(sys.argv[1]))
uvicorn.Server(config).run()
"""


@contextlib.contextmanager
def peer_server() -> Iterator[Target]:
    """The bare endpoint in its own process: (url, path, headers, pid)."""
    with tempfile.TemporaryDirectory(prefix="arbiter-http-peer-") as d:
        port = free_port()
        proc = subprocess.Popen(
            [sys.executable, "-c", PEER_CODE, str(port), str(Path(d) / "peer.sqlite3")],
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 60
            while True:
                try:
                    httpx.get(f"{url}/docs", timeout=1)
                    break
                except httpx.HTTPError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError("the bare endpoint did not start") from None
                    time.sleep(0.1)
            yield url, "/commands", {}, proc.pid
        finally:
            proc.terminate()
            proc.wait(timeout=20)


def run(quick: bool, moves: int | None = None) -> dict[str, Any]:
    n = moves if moves is not None else (300 if quick else 2000)
    bodies = move_commands(n + 20)
    with arbiter_server() as arbiter_at, peer_server() as peer_at:
        measured = _post_all({"arbiter": arbiter_at, "bare": peer_at}, bodies)
    arbiter, bare = measured["arbiter"], measured["bare"]
    rate = (
        round(arbiter["moves_per_cpu_s"] / bare["moves_per_cpu_s"], 3)
        if arbiter["moves_per_cpu_s"] and bare["moves_per_cpu_s"]
        else None
    )
    return {
        "what": "server CPU per MovePlayed posted (one client, sequential, embedded log; "
        "each move posted to the arbiter then to the bare endpoint, measured over the same "
        "window)",
        "arbiter": arbiter,
        "bare_fastapi_sqlite": bare,
        "rate_vs_bare": rate,  # arbiter moves per CPU-second / the bare endpoint's
        "cpu_ratio_vs_bare": round(arbiter["cpu_us_per_move"] / bare["cpu_us_per_move"], 2),
        "aim": {"cpu_us_per_move_max": 1000, "rate_vs_bare_min": 0.5},
    }


def main(argv: list[str] | None = None, emit: bool = True) -> dict[str, Any]:
    args = list(sys.argv[1:] if argv is None else argv)
    moves = None
    if "--moves" in args:
        i = args.index("--moves")
        moves = int(args[i + 1])
        args = args[:i] + args[i + 2 :]
    return quick_main("http_move", lambda quick: run(quick, moves), args, emit)


if __name__ == "__main__":
    main()
