"""Replay speed: how fast a tournament's stream is read and folded into its projections.

`python -m tests.bench.replay [--events N] [--kafka-events M] [--keep DB] [--repeats R]
[--current-versions] [--no-peer]` prints one JSON document. It generates N realistic events
(default 100,000): many 16-player Swiss tournaments of 15 rounds, each game real random legal
chess moves (uci/san, clocks, evals) and a GameEnded; appended to a fresh SQLite log in
batches of 500, dealt round-robin over the tournaments as concurrent events would be. The
events are at the schema versions this benchmark first wrote (v1, PlayerRegistered v2: every
payload upcast on read), or with `--current-versions` at each type's current version (what a
tournament stores today). Then, per tournament, over the whole log:

- `read_raw`: the stored bytes alone (SQLite only);
- `orjson_loads`: `orjson.loads` of those same stored bodies, already in memory (the raw peer
  of issue 11: each tournament's bodies are read untimed, then parsed timed);
- `read_envelope`: `log.read` alone (bytes -> `Envelope`);
- `read_decode`: `log.read` (bytes -> `Envelope`) + `Recorded.of` (payload decode/upcast);
- `replay`: `log.read` + the `Projector` fold + the four documents at the end
  (`services.audit.replay.replay_to`, what `arbiter replay` does);
- `fold_only`: the `Projector` fold over envelopes already in memory (a sample of
  tournaments), to show where the time goes.

Beside them, the second peer (`pyeventsourcing`, `tests/bench/eventsourcing_peer.py`): the
same N events stored through pyeventsourcing's SQLite application recorder, then its
notification projection (a `NotificationLogReader` over the notification log, each
notification mapped to its domain event by the application's mapper, a trivial fold) timed
over all of them (`--no-peer` leaves it out).

`ratios` puts each rate beside `orjson_loads` of the same bodies in the same run and beside
pyeventsourcing's projection (`*_over_pyeventsourcing`), and `split_us` gives microseconds per
event of each stage (read, envelope, payload decode, fold + documents) as differences of the
nested measurements above; `ratios_cpu` and `split_cpu_us` are the same in CPU time of the
process (each stage is single-threaded: on a machine shared with other work, the steadier).

With KAFKA_BOOTSTRAP set, the same on Kafka with M events (default 100,000) on a fresh topic.
Rates are events per second of wall-clock time, single-threaded, each the fastest of
`--repeats` (3) rounds in which every stage and peer runs in turn (Kafka: one round).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import gc
import json
import os
import platform
import random
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import orjson

from .runner import ensure_paths, random_games

ensure_paths()

from builders import ADMIN, ARBITER, T0  # noqa: E402

from events_schema import EVENT_TYPES, Recorded  # noqa: E402
from events_schema.upcasters import upcast  # noqa: E402
from services.audit.replay import replay_to  # noqa: E402
from services.eventlog.base import EventLog, NewEvent  # noqa: E402
from services.projection.projector import Projector  # noqa: E402

PLAYERS = 16
ROUNDS = 15
MAX_PLIES = 60
BATCH = 500
RESULTS = (("1-0", "resignation"), ("0-1", "resignation"), ("1/2-1/2", "agreement"))


def _progress(msg: str) -> None:
    print(f"[replay-bench] {msg}", file=sys.stderr, flush=True)


def _ne(type_: str, payload: dict[str, Any], n: int, actor: Any = ARBITER) -> NewEvent:
    return NewEvent(
        event_id=uuid.uuid4(),
        type=type_,
        schema_version=2 if type_ == "PlayerRegistered" else 1,
        occurred_at=T0 + timedelta(milliseconds=n),
        actor=actor,
        payload=payload,
    )


def tournament_events(
    tid: str, rng: random.Random, games: list[list[tuple[str, str]]]
) -> Iterator[NewEvent]:
    """One tournament's events in order (it is cut short by the caller when N is reached)."""
    n = 0
    yield _ne(
        "TournamentCreated",
        {"name": tid, "game": "chess", "format": "swiss", "rounds": ROUNDS},
        n,
        ADMIN,
    )
    ids = [f"p{i:02d}" for i in range(PLAYERS)]
    for i, pid in enumerate(ids):
        n += 1
        yield _ne(
            "PlayerRegistered",
            {"player_id": pid, "name": pid.upper(), "rating": 2800 - 10 * i, "kind": "human"},
            n,
            ADMIN,
        )
    for r in range(1, ROUNDS + 1):
        order = ids[:]
        rng.shuffle(order)
        pairs = [(f"r{r}b{b + 1}", order[2 * b], order[2 * b + 1]) for b in range(PLAYERS // 2)]
        n += 1
        yield _ne(
            "RoundScheduled",
            {
                "round": r,
                "stage": "main",
                "pairings": [{"game_id": g, "white": w, "black": b} for g, w, b in pairs],
                "byes": [],
            },
            n,
        )
        for gid, _, _ in pairs:
            moves = games[rng.randrange(len(games))][: rng.randint(20, MAX_PLIES)]
            clocks = [5_400_000, 5_400_000]
            for ply, (uci, san) in enumerate(moves, start=1):
                side = (ply - 1) % 2
                spent = rng.randint(800, 240_000)
                clocks[side] = max(0, clocks[side] - spent + 30_000)
                n += 1
                yield _ne(
                    "MovePlayed",
                    {
                        "game_id": gid,
                        "ply": ply,
                        "colour": "white" if side == 0 else "black",
                        "uci": uci,
                        "san": san,
                        "clock_ms": clocks[side],
                        "move_time_ms": spent,
                        "eval_cp": rng.randint(-300, 300),
                        "depth": rng.randint(18, 32),
                        "nodes": rng.randint(500_000, 60_000_000),
                    },
                    n,
                )
            res, term = RESULTS[rng.randrange(3)]
            n += 1
            yield _ne("GameEnded", {"game_id": gid, "result": res, "termination": term}, n)


def current_version(e: NewEvent) -> NewEvent:
    """The event at its type's current `schema_version` (its payload upcast first): what a
    tournament stores today."""
    target = EVENT_TYPES[e.type].schema_version
    payload = upcast(e.type, e.schema_version, e.payload, target)
    return dataclasses.replace(e, schema_version=target, payload=payload)


def generate(log: EventLog, total: int, seed: int = 2026, current: bool = False) -> list[str]:
    """Append `total` events over as many tournaments as needed; returns their ids. The
    events are at the versions this benchmark first wrote (v1, PlayerRegistered v2: every
    payload upcast on read), or with `current` at each type's current version."""
    rng = random.Random(seed)
    games = random_games(24, rng, max_plies=MAX_PLIES)
    per = 1 + PLAYERS + ROUNDS * (1 + (PLAYERS // 2) * (MAX_PLIES // 2 + 20))  # ~ upper bound
    count = max(1, total // (per // 2 + 1))
    tids = [f"bench-{i:04d}" for i in range(count)]
    streams = {t: tournament_events(t, random.Random(f"{seed}:{t}"), games) for t in tids}
    appended, last_report = 0, 0
    live = list(tids)
    while appended < total:
        if not live:  # every tournament finished: open more
            t = f"bench-{len(tids):04d}"
            tids.append(t)
            live.append(t)
            streams[t] = tournament_events(t, random.Random(f"{seed}:{t}"), games)
        for t in list(live):
            want = min(BATCH, total - appended)
            if want <= 0:
                break
            batch = [e for _, e in zip(range(want), streams[t], strict=False)]
            if current:
                batch = [current_version(e) for e in batch]
            if len(batch) < want:
                live.remove(t)
            if batch:
                log.append(t, batch)
                appended += len(batch)
        if appended - last_report >= 100_000:
            last_report = appended
            _progress(f"appended {appended:,} events")
    return [t for t in tids if log.last_seq(t) > 0]


Timing = tuple[int, float, float]  # events, wall-clock seconds, CPU seconds (this process)


def _wall(fn: Callable[[], int]) -> Callable[[], Timing]:
    """A stage timed whole."""

    def run() -> Timing:
        t, c = time.perf_counter(), time.process_time()
        n = fn()
        return n, time.perf_counter() - t, time.process_time() - c

    return run


def _best(stages: dict[str, Callable[[], Timing]], repeats: int) -> dict[str, Any]:
    """Each stage's fastest of `repeats` runs, the stages run in turn each round (the
    machine's other load falls on all of them alike): events, wall-clock seconds and events/s,
    and the same in CPU seconds of this process (every stage and peer is single-threaded: on a
    machine shared with other work its CPU time is the steadier figure)."""
    wall: dict[str, tuple[int, float]] = {}
    cpu: dict[str, float] = {}
    for r in range(repeats):
        for name, stage in stages.items():
            gc.collect()
            n, s, c = stage()
            if name not in wall or s < wall[name][1]:
                wall[name] = (n, s)
            cpu[name] = min(cpu.get(name, c), c)
        _progress(
            f"round {r + 1}/{repeats} (CPU): "
            + ", ".join(f"{k} {wall[k][0] / v:,.0f}/s" for k, v in cpu.items() if v)
        )
    return {
        name: {
            "events": n,
            "seconds": round(s, 3),
            "events_per_s": round(n / s, 1) if s else None,
            "cpu_seconds": round(cpu[name], 3),
            "events_per_cpu_s": round(n / cpu[name], 1) if cpu[name] else None,
        }
        for name, (n, s) in wall.items()
    }


def measure(
    log: EventLog,
    tids: Sequence[str],
    sample: int = 10,
    repeats: int = 3,
    peers: dict[str, Callable[[], int]] | None = None,
) -> dict[str, Any]:
    """Every stage over the whole log (`fold_only`: a sample of tournaments), and `peers`
    (name -> a run returning its events), best of `repeats` interleaved rounds."""
    stages: dict[str, Callable[[], Timing]] = {}
    read_raw = getattr(log, "read_raw", None)
    if callable(read_raw):

        def raw() -> int:
            return sum(1 for t in tids for _ in read_raw(t))

        stages["read_raw"] = _wall(raw)

        def loads() -> Timing:
            n, spent, spent_cpu = 0, 0.0, 0.0
            for t in tids:
                bodies = list(read_raw(t))
                t0, c0 = time.perf_counter(), time.process_time()
                for body in bodies:
                    orjson.loads(body)
                spent += time.perf_counter() - t0
                spent_cpu += time.process_time() - c0
                n += len(bodies)
            return n, spent, spent_cpu

        stages["orjson_loads"] = loads

    def read_envelope() -> int:
        return sum(1 for t in tids for _ in log.read(t))

    stages["read_envelope"] = _wall(read_envelope)

    def read_decode() -> int:
        n = 0
        for t in tids:
            for env in log.read(t):
                Recorded.of(env)
                n += 1
        return n

    stages["read_decode"] = _wall(read_decode)

    def replay() -> int:
        n = 0
        for t in tids:
            msgs = replay_to(log.read(t), t, log.last_seq(t))
            n += json.loads(msgs["standings"])["as_of_seq"]
        return n

    stages["replay"] = _wall(replay)

    held = [list(log.read(t)) for t in tids[:sample]]

    def fold_only() -> int:
        n = 0
        for envs in held:
            p = Projector()
            for env in envs:
                p.apply(env)
            n += len(envs)
        return n

    stages["fold_only"] = _wall(fold_only)
    for name, fn in (peers or {}).items():
        stages[name] = _wall(fn)
    out = _best(stages, repeats)
    out["fold_only"]["tournaments"] = len(held)
    out["repeats"] = repeats
    out.update(_ratios(out))
    cpu = _ratios(out, "events_per_cpu_s")
    out["ratios_cpu"], out["split_cpu_us"] = cpu["ratios"], cpu["split_us"]
    return out


def _ratios(out: dict[str, Any], key: str = "events_per_s") -> dict[str, Any]:
    """Each rate (`key`: wall clock or CPU) over `orjson.loads` of the same stored bodies and
    over pyeventsourcing's projection, and where the time goes."""

    def rate(name: str) -> float | None:
        r = out.get(name, {}).get(key)
        return float(r) if r else None

    def us(name: str) -> float | None:
        r = rate(name)
        return 1e6 / r if r else None

    peer = rate("orjson_loads")
    ratios = {
        f"{name}_over_orjson_loads": round(r / peer, 3)
        for name in ("read_raw", "read_envelope", "read_decode", "replay", "fold_only")
        if peer and (r := rate(name))
    }
    es = rate("pyeventsourcing")
    ratios.update(
        {
            f"{name}_over_pyeventsourcing": round(r / es, 3)
            for name in ("read_decode", "replay", "fold_only")
            if es and (r := rate(name))
        }
    )
    stages = ("read_raw", "read_envelope", "read_decode", "replay")
    times = [us(n) for n in stages]
    split: dict[str, float] = {}
    if all(t is not None for t in times):
        raw, env, dec, rep = (float(t) for t in times if t is not None)
        split = {
            "read": round(raw, 3),
            "envelope": round(env - raw, 3),
            "payload_decode": round(dec - env, 3),
            "fold_and_documents": round(rep - dec, 3),
            "replay_total": round(rep, 3),
        }
        if peer:
            split["orjson_loads"] = round(1e6 / peer, 3)
    return {"ratios": ratios, "split_us": split}


def bench_sqlite(
    events: int, keep: Path | None, peer: bool = True, repeats: int = 3, current: bool = False
) -> dict[str, Any]:
    from services.eventlog.sqlite import SQLiteEventLog

    with tempfile.TemporaryDirectory() as tmp:
        path = keep or Path(tmp) / "replay.sqlite3"
        if path.exists():
            path.unlink()
        log = SQLiteEventLog(path)
        t = time.perf_counter()
        tids = generate(log, events, current=current)
        gen_s = time.perf_counter() - t
        _progress(f"sqlite: {events:,} events in {len(tids)} tournaments, {gen_s:.0f}s")
        peers: dict[str, Callable[[], int]] = {}
        about: dict[str, Any] = {}
        app = None
        if peer:
            from . import eventsourcing_peer as es

            app = es.open_app(Path(tmp) / "eventsourcing.sqlite3")
            about = es.store(app, functools.partial(generate, current=current), events)
            _progress(f"pyeventsourcing: {about}")
            peers["pyeventsourcing"] = lambda: es.project(app)[0]
        doc: dict[str, Any] = {
            "events": events,
            "tournaments": len(tids),
            "generate_and_append_s": round(gen_s, 1),
            "db_file_bytes": path.stat().st_size,
            **measure(log, tids, repeats=repeats, peers=peers),
        }
        if app is not None:
            doc["pyeventsourcing"].update(about, per_type=es.project(app)[1])
            app.close()
        log.close()
        return doc


def bench_kafka(events: int, bootstrap: str) -> dict[str, Any]:
    from services.eventlog.kafka import KafkaEventLog

    topic = f"arbiter.bench.replay.{uuid.uuid4().hex[:10]}"
    log = KafkaEventLog(bootstrap, topic=topic, partitions=8)
    t = time.perf_counter()
    tids = generate(log, events)
    gen_s = time.perf_counter() - t
    _progress(f"kafka: {events:,} events in {len(tids)} tournaments, {gen_s:.0f}s")
    log.close()
    reader = KafkaEventLog(bootstrap, topic=topic, partitions=8)  # a cold reader
    doc = {
        "events": events,
        "topic": topic,
        "tournaments": len(tids),
        "generate_and_append_s": round(gen_s, 1),
        **measure(reader, tids, repeats=1),
    }
    reader.close()
    return doc


def main(argv: Sequence[str] | None = None, emit: bool = True) -> dict[str, Any]:
    ap = argparse.ArgumentParser(prog="python -m tests.bench.replay")
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--kafka-events", type=int, default=100_000)
    ap.add_argument("--keep", type=Path, default=None, help="keep the SQLite log at this path")
    ap.add_argument("--repeats", type=int, default=3, help="best of this many rounds")
    ap.add_argument(
        "--current-versions",
        action="store_true",
        help="store each type's current schema version (default: v1, upcast on every read)",
    )
    ap.add_argument(
        "--no-peer", action="store_true", help="without pyeventsourcing's projection beside it"
    )
    args = ap.parse_args(argv)
    doc: dict[str, Any] = {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
        },
        "params": {
            "players": PLAYERS,
            "rounds": ROUNDS,
            "max_plies": MAX_PLIES,
            "batch": BATCH,
            "schema_versions": "current" if args.current_versions else "v1 (upcast on read)",
        },
        "sqlite": bench_sqlite(
            args.events,
            args.keep,
            peer=not args.no_peer,
            repeats=args.repeats,
            current=args.current_versions,
        ),
    }
    bootstrap = os.environ.get("KAFKA_BOOTSTRAP")
    doc["kafka"] = (
        bench_kafka(args.kafka_events, bootstrap)
        if bootstrap
        else {"skipped": "no KAFKA_BOOTSTRAP"}
    )
    if emit:
        print(json.dumps(doc, indent=2))
    return doc


if __name__ == "__main__":
    main()
