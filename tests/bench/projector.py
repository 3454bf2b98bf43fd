"""Projector benchmark (issue 27 item 3, "a move costs what it changes"): what one live
`MovePlayed` costs the projector, beside its peers in the same run.

The tournament: a 40-player Swiss with a 6-criterion FIDE chain (`swiss_events` of
`tests/bench/standings.py`), mid-round: rounds 1-4 played, round 5 paired, half of its results
in, the other boards started. Then a real game's moves (the first game of
`/work/shared/data/pgn/TCEC_Cup_4_Bronze.pgn`, with its clocks, evaluations, depths and nodes
read from the TCEC comments; a seeded random legal game when the file is missing) are played
on one of the boards still going, one `MovePlayed` at a time, each folded and published as the
embedded runner does for a poll that brought one event (`Projector.run([envelope])`: decode,
fold, build and serialise the documents, publish what changed).

Per live move, in microseconds (each repeat folds the prefix afresh and freezes its heap out
of the collector's sight, as the embedded runner does once caught up: `gc.freeze`; the
figures are, per move, the best of the repeats, then the mean, p50, p90 and max over the
moves):

- `projector_us`: `Projector.run([envelope])`, split into `apply_us` (decode and fold) and
  `messages_us` (build, serialise, compare, publish);
- the peers, timed on the same move right after it: `full_rebuild_us`, the five documents
  built from the same fold (`projections.documents.documents` over the incremental table) and
  each serialised (`events_schema.codec.dumps`, the data and the message): what `messages()`
  did for every event before it built only what an event can change; `orjson_dumps_games_us`,
  a bare `orjson.dumps` of the games message the projector published (the one document a
  move changes, as a ready dict): the floor of publishing a move;
- the ratios: `projector_vs_orjson` (projector_us / orjson_dumps_games_us) and
  `projector_vs_full_rebuild` (projector_us / full_rebuild_us);
- `published_per_move`: how many messages a move published (the games document only).

Run: `python -m tests.bench.projector [--quick]` or `python -m tests.bench --only projector`
from the repository root (one JSON document on stdout, progress on stderr).
"""

from __future__ import annotations

import gc
import io
import platform
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

_repo = Path(__file__).resolve().parents[2]
for _p in (_repo / "tests", _repo):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

import chess  # noqa: E402
import chess.pgn  # noqa: E402
import orjson  # noqa: E402
from builders import recorded  # noqa: E402

from events_schema import Envelope, Event  # noqa: E402
from events_schema import events as ev  # noqa: E402
from events_schema.codec import dumps  # noqa: E402
from projections.documents import documents  # noqa: E402
from projections.endings.pgn_comments import parse_comment  # noqa: E402
from services.projection.projector import Projector  # noqa: E402

from .common import quick_main  # noqa: E402
from .standings import swiss_events  # noqa: E402

TID = "bench-projector"
PLAYERS = 40
ROUNDS = 9
LIVE_ROUND = 5
PGN = Path(_repo).parent / "shared" / "data" / "pgn" / "TCEC_Cup_4_Bronze.pgn"


def _progress(msg: str) -> None:
    print(f"[bench.projector] {msg}", file=sys.stderr, flush=True)


def real_game(game_id: str) -> tuple[str, list[ev.MovePlayed]]:
    """The moves of a real game as `MovePlayed` events (uci, san, and what the TCEC comments
    say: clock, move time, evaluation, depth, nodes), and where they came from."""
    if PGN.is_file():
        game = chess.pgn.read_game(io.StringIO(PGN.read_text(encoding="utf-8")))
        if game is not None:
            out = []
            board = game.board()
            for ply, node in enumerate(game.mainline(), start=1):
                colour = "white" if board.turn == chess.WHITE else "black"
                said = parse_comment(node.comment, colour)
                out.append(
                    ev.MovePlayed(
                        game_id=game_id,
                        ply=ply,
                        colour=colour,
                        uci=node.move.uci(),
                        san=board.san(node.move),
                        clock_ms=said.clock_ms,
                        move_time_ms=said.move_time_ms,
                        eval_cp=said.eval_cp,
                        mate_in=said.mate_in,
                        depth=said.depth,
                        nodes=said.nodes,
                    )
                )
                board.push(node.move)
            headers = game.headers
            return f"{PGN.name}: {headers.get('White')} - {headers.get('Black')}", out
    rng = random.Random(27)
    board, out = chess.Board(), []
    while not board.is_game_over() and len(out) < 120:
        mv = rng.choice(list(board.legal_moves))
        colour = "white" if board.turn == chess.WHITE else "black"
        out.append(
            ev.MovePlayed(
                game_id=game_id,
                ply=len(out) + 1,
                colour=colour,
                uci=mv.uci(),
                san=board.san(mv),
                clock_ms=60_000,
            )
        )
        board.push(mv)
    return "a seeded random legal game (the TCEC sample PGN is missing)", out


def live_tournament() -> tuple[list[Event], str]:
    """The Swiss up to the middle of round `LIVE_ROUND` (half its results in, the other boards
    started), and the board the real game is played on."""
    events = swiss_events(PLAYERS, ROUNDS)
    out: list[Event] = []
    pending: list[str] = []
    for e in events:
        if isinstance(e, ev.RoundScheduled) and e.round == LIVE_ROUND:
            out.append(e)
            games = [p.game_id for p in e.pairings]
            pending = games[len(games) // 2 :]
            continue
        if isinstance(e, ev.RoundScheduled) and e.round > LIVE_ROUND:
            break
        if isinstance(e, ev.GameEnded) and e.game_id in pending:
            continue
        out.append(e)
    out.extend(ev.GameStarted(game_id=g) for g in pending)
    return out, pending[0]


def _stats(times: list[float]) -> dict[str, float]:
    times = sorted(times)
    return {
        "mean": round(statistics.fmean(times), 1),
        "p50": round(times[len(times) // 2], 1),
        "p90": round(times[int(len(times) * 0.9)], 1),
        "max": round(times[-1], 1),
    }


def _one_pass(envs: list[Envelope], prefix: int) -> dict[str, list[float]]:
    projector = Projector()
    projector.run(envs[:prefix])
    gc.collect()
    gc.freeze()  # as the embedded runner does once it has folded the log
    try:
        times: dict[str, list[float]] = {
            k: [] for k in ("projector", "apply", "messages", "full_rebuild", "orjson", "published")
        }
        for env in envs[prefix:]:
            t0 = time.perf_counter()
            folded = projector.apply(env)
            t1 = time.perf_counter()
            msgs = projector.messages(env.tournament_id) if folded else []
            t2 = time.perf_counter()
            # The peers on the same fold, right after.
            state = projector.states[TID]
            t3 = time.perf_counter()
            table = projector._standings(TID).table()
            for doc in documents(state, TID, table).values():
                dumps(doc["data"])
                dumps(doc)
            t4 = time.perf_counter()
            # The games message as published, parsed back outside the timing.
            games = orjson.loads(next(m.body for m in msgs if m.projection == "games"))
            t5 = time.perf_counter()
            orjson.dumps(games)
            t6 = time.perf_counter()
            times["apply"].append((t1 - t0) * 1e6)
            times["messages"].append((t2 - t1) * 1e6)
            times["projector"].append((t2 - t0) * 1e6)
            times["full_rebuild"].append((t4 - t3) * 1e6)
            times["orjson"].append((t6 - t5) * 1e6)
            times["published"].append(float(len(msgs)))
        return times
    finally:
        gc.unfreeze()


def run(quick: bool) -> dict[str, Any]:
    """The benchmark document. `quick`: fewer repeats (a smoke run)."""
    events, board = live_tournament()
    source, moves = real_game(board)
    envs = [r.envelope for r in recorded(TID, [*events, *moves])]
    repeats = 2 if quick else 7
    _progress(f"{PLAYERS}-player Swiss, round {LIVE_ROUND} live: {len(moves)} moves, {repeats}x")
    passes = []
    for i in range(repeats):
        passes.append(_one_pass(envs, len(events)))
        p50 = _stats(passes[-1]["projector"])["p50"]
        _progress(f"repeat {i + 1}/{repeats}: projector p50 {p50} us per move")
    # Each move's best time over the repeats (as `common.best_of`: a slow spell of the shared
    # machine falls on one repeat, not on the figure).
    best = {k: [min(p[k][j] for p in passes) for j in range(len(moves))] for k in passes[0]}
    stats = {k: _stats(v) for k, v in best.items() if k != "published"}
    projector_us = stats["projector"]["mean"]
    return {
        "machine": {"python": platform.python_version()},
        "tournament": f"{PLAYERS}-player Swiss, FIDE 6-criterion chain, round {LIVE_ROUND} of "
        f"{ROUNDS} live (half its results in)",
        "prefix_events": len(events),
        "game": source,
        "moves": len(moves),
        "repeats": repeats,
        "projector_us": stats["projector"],
        "apply_us": stats["apply"],
        "messages_us": stats["messages"],
        "full_rebuild_us": stats["full_rebuild"],
        "orjson_dumps_games_us": stats["orjson"],
        "projector_vs_orjson": round(projector_us / stats["orjson"]["mean"], 2),
        "projector_vs_full_rebuild": round(projector_us / stats["full_rebuild"]["mean"], 3),
        "published_per_move": round(statistics.fmean(best["published"]), 3),
        "aim_us": 100,
    }


def main(argv: Sequence[str] | None = None, emit: bool = True) -> dict[str, Any]:
    return quick_main("projector", run, argv, emit)


if __name__ == "__main__":
    main()
