"""Standings benchmark (issue 3), as one JSON document on stdout:

- a 500-player, 11-round Swiss with a 6-criterion FIDE chain: the time to fold one result and
  recompute the whole standings table (tiebreaks included), sampled across the rounds, and the
  replay of the whole tournament;
- a 24-engine 4×double round robin with moves (r-mobility on, tcec-league chain): the same;
- incremental standings (`projections.standings.incremental`, issue 11 item 4) beside the full
  recompute in the same run: the 500-player Swiss (and, in the full run, a 10,000-player
  Swiss, a few samples), the results of the last round one by one, each timed as
  `apply` + `table()` (incremental) and as `evolve` + `standings()` (full), in two passes
  (each timing only its own work and garbage), with the ratio; every sampled incremental
  table is checked equal to the full one. `*_gc_frozen`: the same with the heap built before
  the updates frozen out of the cyclic collector's sight, as the embedded feed runner does
  once it has folded the log (`gc.freeze`: the slowest updates were full collections).

Run: `python -m tests.bench.standings [--quick] [--incremental]` from the repository root;
`--incremental` runs only the incremental-vs-full comparison, at 500 players even with `--quick`
(which then leaves out the 10,000-player one).
"""

from __future__ import annotations

import argparse
import gc
import json
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
from builders import created, move, player, recorded, result  # noqa: E402

from events_schema import Event, Recorded  # noqa: E402
from events_schema import events as ev  # noqa: E402
from projections.standings import evolve, fold, standings  # noqa: E402
from projections.standings.incremental import IncrementalStandings  # noqa: E402
from projections.standings.state import StandingsState  # noqa: E402

FIDE_6 = [
    ev.TiebreakSpec(name=n)
    for n in (
        "buchholz-cut1",
        "buchholz",
        "fide-direct-encounter",
        "fide-sonneborn-berger",
        "fide-wins",
        "fide-aro-cut1",
    )
]


def _progress(msg: str) -> None:
    print(f"[bench.standings] {msg}", file=sys.stderr, flush=True)


def _outcome(rng: random.Random, rw: int, rb: int) -> str:
    expected = 1 / (1 + 10 ** ((rb - rw) / 400))
    x = rng.random()
    draw = 0.3
    if x < expected - draw / 2:
        return "1-0"
    if x < expected + draw / 2:
        return "1/2-1/2"
    return "0-1"


def swiss_events(players: int, rounds: int, seed: int = 7) -> list[Event]:
    """A Swiss with score-group pairing (adjacent in score/rating order, avoiding rematches
    greedily), byes for the odd player, realistic results from ratings."""
    rng = random.Random(seed)
    ids = [f"p{i:03d}" for i in range(players)]
    rating = {p: max(1000, 2700 - i * 2) for i, p in enumerate(ids)}
    evs: list[Event] = [
        created(fmt="swiss", rounds=rounds, tiebreaks=FIDE_6),
        *[player(p, rating[p]) for p in ids],
    ]
    score = dict.fromkeys(ids, 0)
    met: set[frozenset[str]] = set()
    had_bye: set[str] = set()
    for r in range(1, rounds + 1):
        order = sorted(ids, key=lambda p: (-score[p], -rating[p]))
        bye = None
        if len(order) % 2:
            bye = next(p for p in reversed(order) if p not in had_bye)
            order.remove(bye)
            had_bye.add(bye)
        pairs = []
        while order:
            a = order.pop(0)
            j = next((k for k, b in enumerate(order) if frozenset((a, b)) not in met), 0)
            b = order.pop(j)
            met.add(frozenset((a, b)))
            w, bl = (a, b) if (r + len(pairs)) % 2 else (b, a)
            pairs.append(ev.Pairing(game_id=f"r{r}-{len(pairs) + 1}", white=w, black=bl))
        evs.append(
            ev.RoundScheduled(round=r, pairings=pairs, byes=[ev.Bye(player_id=bye)] if bye else [])
        )
        if bye:
            score[bye] += 2
        for p in pairs:
            res = _outcome(rng, rating[p.white], rating[p.black])
            evs.append(result(p.game_id, res, "resignation" if res != "1/2-1/2" else "agreement"))
            score[p.white] += {"1-0": 2, "1/2-1/2": 1, "0-1": 0}[res]
            score[p.black] += {"1-0": 0, "1/2-1/2": 1, "0-1": 2}[res]
    return evs


def league_events(engines: int, cycles: int, seed: int = 11, max_plies: int = 200) -> list[Event]:
    """n×double round robin of engines with random legal games (moves recorded)."""
    rng = random.Random(seed)
    ids = [f"e{i:02d}" for i in range(engines)]
    per_cycle = 2 * (engines - 1)
    evs: list[Event] = [
        created(fmt="league", cycles=cycles, rounds=cycles * per_cycle, rules_preset="tcec-league"),
        *[player(p, kind="engine") for p in ids],
    ]
    ring = ids[:]
    rnd = 0
    for _c in range(cycles):
        for half in (0, 1):
            for _r in range(engines - 1):
                rnd += 1
                pairs = []
                for i in range(engines // 2):
                    a, b = ring[i], ring[engines - 1 - i]
                    w, bl = (a, b) if half == 0 else (b, a)
                    pairs.append(
                        ev.Pairing(
                            game_id=f"g{rnd}-{i}",
                            white=w,
                            black=bl,
                            pair_id=f"{min(a, b)}-{max(a, b)}-{_c}",
                        )
                    )
                evs.append(ev.RoundScheduled(round=rnd, pairings=pairs))
                for p in pairs:
                    board = chess.Board()
                    ply = 0
                    length = rng.randint(40, max_plies)
                    while not board.is_game_over() and ply < length:
                        mv = rng.choice(list(board.legal_moves))
                        ply += 1
                        evs.append(move(p.game_id, ply, mv.uci()))
                        board.push(mv)
                    outcome = board.outcome()
                    if outcome is not None and outcome.winner is not None:
                        res = "1-0" if outcome.winner else "0-1"
                    else:
                        res = rng.choice(["1/2-1/2", "1/2-1/2", "1-0", "0-1"])
                    evs.append(result(p.game_id, res, "adjudication"))
                ring = [ring[0], ring[-1], *ring[1:-1]]
    return evs


def _measure(recs: list[Recorded], samples: int) -> dict[str, Any]:
    result_idx = [i for i, r in enumerate(recs) if isinstance(r.event, ev.GameEnded)]
    step = max(1, len(result_idx) // samples)
    sample = set(result_idx[step - 1 :: step])
    state = StandingsState()
    times: list[float] = []
    fold_only: list[float] = []
    t_replay = time.perf_counter()
    for i, rec in enumerate(recs):
        if i in sample:
            t0 = time.perf_counter()
            evolve(state, rec)
            t1 = time.perf_counter()
            standings(state)
            t2 = time.perf_counter()
            times.append((t2 - t0) * 1000)
            fold_only.append((t1 - t0) * 1000)
        else:
            evolve(state, rec)
    incremental_replay = time.perf_counter() - t_replay - sum(times) / 1000
    t0 = time.perf_counter()
    state2 = fold(recs)
    table = standings(state2)
    full = time.perf_counter() - t0
    times.sort()
    return {
        "events": len(recs),
        "results": len(result_idx),
        "update_samples": len(times),
        "update_ms": {
            "mean": round(statistics.fmean(times), 3),
            "p50": round(times[len(times) // 2], 3),
            "p99": round(times[min(len(times) - 1, int(len(times) * 0.99))], 3),
            "max": round(times[-1], 3),
            "fold_only_mean": round(statistics.fmean(fold_only), 4),
        },
        "replay_whole_tournament_s": round(full, 3),
        "replay_events_per_s": round(len(recs) / full),
        "fold_without_tables_s": round(incremental_replay, 3),
        "chain": [s.name for s in table.chain.specs],
    }


def _stats_ms(times: list[float]) -> dict[str, float]:
    times = sorted(times)
    return {
        "mean": round(statistics.fmean(times), 3),
        "p50": round(times[len(times) // 2], 3),
        "p99": round(times[min(len(times) - 1, int(len(times) * 0.99))], 3),
        "max": round(times[-1], 3),
    }


def measure_incremental(
    recs: list[Recorded], samples: int, updates: int, freeze: bool = False
) -> dict[str, Any]:
    """The last round's results one by one: `updates` incremental updates (apply + table), of
    which `samples` are also timed as a full recompute (evolve + standings) and compared.
    `freeze`: the heap built before the updates is frozen out of the cyclic collector's sight
    (`gc.freeze`), as the embedded feed runner does once it has folded the log
    (`services.projection.embedded._freeze_heap`); unfrozen at the end."""
    result_idx = [i for i, r in enumerate(recs) if isinstance(r.event, ev.GameEnded)]
    last_round = recs[result_idx[-1]].event
    assert isinstance(last_round, ev.GameEnded)
    first_of_last = next(
        i
        for i in result_idx
        if recs[i].event.game_id.split("-")[0] == last_round.game_id.split("-")[0]  # type: ignore[attr-defined]
    )
    start = first_of_last + 1  # R is reached: the last round's updates are incremental
    todo = [i for i in result_idx if i >= start][:updates]
    t0 = time.perf_counter()
    prefix = fold(recs[:start])
    t_fold = time.perf_counter() - t0
    t0 = time.perf_counter()
    standings(prefix)
    t_table = time.perf_counter() - t0
    inc = IncrementalStandings(state=prefix)
    t0 = time.perf_counter()
    inc.table()
    t_inc_full = time.perf_counter() - t0
    if freeze:
        gc.collect()
        gc.freeze()
    full_state = fold(recs[:start])
    step = max(1, len(todo) // samples)
    sampled = set(todo[::step][:samples])
    # Two passes, each timing only its own work (and the garbage it makes): the incremental
    # updates, keeping the sampled tables; then the full recomputes at the same points.
    inc_times: list[float] = []
    kept: dict[int, Any] = {}
    pos = start
    for i in todo:
        while pos < i:  # anything between results (none in this Swiss)
            inc.apply(recs[pos])
            pos += 1
        t0 = time.perf_counter()
        inc.apply(recs[i])
        got = inc.table()
        inc_times.append((time.perf_counter() - t0) * 1000)
        if i in sampled:
            kept[i] = got
        pos = i + 1
    if freeze:
        gc.unfreeze()
    full_times: list[float] = []
    pos = start
    for i in todo:
        while pos < i:
            evolve(full_state, recs[pos])
            pos += 1
        if i in sampled:
            t0 = time.perf_counter()
            evolve(full_state, recs[i])
            want = standings(full_state)
            full_times.append((time.perf_counter() - t0) * 1000)
            if kept[i] != want:
                raise AssertionError(f"incremental table differs from the full one at {i}")
        else:
            evolve(full_state, recs[i])
        pos = i + 1
    inc_ms, full_ms = _stats_ms(inc_times), _stats_ms(full_times)
    return {
        "fold_s": round(t_fold, 3),
        "full_table_s": round(t_table, 3),
        "incremental_first_table_s": round(t_inc_full, 3),
        "incremental_updates": len(inc_times),
        "full_samples": len(full_times),
        "full_recompute_ms": full_ms,
        "incremental_update_ms": inc_ms,
        "ratio_mean_pct": round(100 * inc_ms["mean"] / full_ms["mean"], 2),
        "ratio_p50_pct": round(100 * inc_ms["p50"] / full_ms["p50"], 2),
        "full_recomputes_during_updates": inc.counters.full - 1,
        "values_recomputed_per_update": round(
            inc.counters.values / max(1, inc.counters.incremental), 1
        ),
    }


def main(argv: Sequence[str] | None = None, emit: bool = True) -> dict[str, Any]:
    ap = argparse.ArgumentParser(prog="python -m tests.bench.standings")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--incremental", action="store_true", help="only incremental vs full")
    args = ap.parse_args(argv)
    doc: dict[str, Any] = {}
    n, rounds, engines, cycles, samples = (60, 5, 6, 1, 20) if args.quick else (500, 11, 24, 4, 100)
    if args.incremental:
        n, rounds = 500, 11
    else:
        _progress(f"swiss {n} players x {rounds} rounds")
        doc["swiss_fide"] = {
            "players": n,
            "rounds": rounds,
            **_measure(recorded("bench-swiss", swiss_events(n, rounds)), samples),
        }
    _progress(f"incremental vs full, swiss {n} players x {rounds} rounds")
    doc["incremental_swiss"] = {
        "players": n,
        "rounds": rounds,
        **measure_incremental(recorded("bench-inc", swiss_events(n, rounds)), 20, 200),
    }
    doc["incremental_swiss_gc_frozen"] = {
        "players": n,
        "rounds": rounds,
        **measure_incremental(recorded("bench-inc", swiss_events(n, rounds)), 20, 200, True),
    }
    if not args.quick:
        _progress("incremental vs full, swiss 10000 players x 11 rounds")
        big = recorded("bench-inc-10k", swiss_events(10000, 11))
        doc["incremental_swiss_10000"] = {
            "players": 10000,
            "rounds": 11,
            **measure_incremental(big, 3, 10),
        }
        doc["incremental_swiss_10000_gc_frozen"] = {
            "players": 10000,
            "rounds": 11,
            **measure_incremental(big, 3, 10, True),
        }
    if args.incremental:
        if emit:
            print(json.dumps(doc, indent=2))
        return doc
    _progress(f"league {engines} engines x {cycles} DRR with moves")
    doc["league_tcec"] = {
        "engines": engines,
        "cycles": cycles,
        **_measure(recorded("bench-league", league_events(engines, cycles)), samples),
    }
    if emit:
        print(json.dumps(doc, indent=2))
    return doc


if __name__ == "__main__":
    main()
