"""Throughput and latency of the event logs (SQLite and Kafka), as one JSON document.

What is measured (all events are MovePlayed with uci/san/clock/eval/depth/nodes taken from
random legal chess games, built up front so that building them is not timed):

- in-memory costs shared by both backends: sealing (envelope + hash chain), `to_bytes`, the
  idempotency digest, `envelope_from_bytes` and `Recorded.of` (payload decode);
- SQLite (temp file): batched appends (100 per append), single appends, `read()` (parses
  envelopes), `read()` + `Recorded.of`, and `envelope_from_bytes` over the stored bytes;
- Kafka (when KAFKA_BOOTSTRAP is set; fresh topic `arbiter.bench.<hex>`): the same appends and
  reads, plus append->tail latency: a `subscribe()` consumer polls in a thread while the main
  thread appends at a fixed target rate, one event per append and in 10 ms batches.

Throughputs are events per second of wall-clock time, single-threaded, one run each.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib.metadata
import json
import math
import os
import platform
import random
import sqlite3
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import timedelta
from pathlib import Path
from typing import Any


def ensure_paths() -> None:
    repo = Path(__file__).resolve().parents[2]
    for p in (repo / "tests", repo):
        if str(p) not in sys.path:
            sys.path.insert(0, str(p))


ensure_paths()

import chess  # noqa: E402
from builders import ARBITER, T0, move, new_event  # noqa: E402

from events_schema import GENESIS_HASH, Recorded  # noqa: E402
from events_schema.envelope import envelope_from_bytes  # noqa: E402
from services.eventlog.base import EventLog, NewEvent  # noqa: E402

BATCH = 100


@dataclass(frozen=True)
class Params:
    sqlite_batched_events: int = 50_000
    sqlite_single_events: int = 5_000
    kafka_batched_events: int = 20_000
    kafka_single_events: int = 1_000
    kafka_partitions: int = 8
    tournaments: int = 10  # streams the batched appends are spread over (round-robin)
    batch_size: int = BATCH
    latency_rates: tuple[tuple[int, float], ...] = ((1000, 10.0), (100, 5.0))  # (ev/s, s)
    latency_batch_tick_ms: float = 10.0
    kafka_single_time_cap_s: float = 20.0  # stop single appends early if this slow
    drain_timeout_s: float = 5.0
    seed: int = 2026

    def scaled(self, events: int) -> Params:
        """`--events N`: N batched SQLite events, every other count scaled alike."""
        f = events / Params.sqlite_batched_events
        return replace(
            self,
            sqlite_batched_events=events,
            sqlite_single_events=max(10, round(Params.sqlite_single_events * f)),
            kafka_batched_events=max(BATCH, round(Params.kafka_batched_events * f)),
            kafka_single_events=max(10, round(Params.kafka_single_events * f)),
        )


QUICK = replace(
    Params(),
    sqlite_batched_events=2_000,
    sqlite_single_events=200,
    kafka_batched_events=1_000,
    kafka_single_events=50,
    tournaments=4,
    latency_rates=((1000, 1.0), (100, 0.5)),
    kafka_single_time_cap_s=5.0,
    drain_timeout_s=3.0,
)

_START = time.perf_counter()


def progress(msg: str) -> None:
    print(f"[bench {time.perf_counter() - _START:7.1f}s] {msg}", file=sys.stderr, flush=True)


# -- realistic events -------------------------------------------------------------------------


def random_games(n: int, rng: random.Random, max_plies: int = 160) -> list[list[tuple[str, str]]]:
    """(uci, san) of `n` random legal chess games, so payloads look like real moves."""
    games = []
    for _ in range(n):
        board = chess.Board()
        moves: list[tuple[str, str]] = []
        while len(moves) < max_plies and not board.is_game_over():
            mv = rng.choice(list(board.legal_moves))
            moves.append((mv.uci(), board.san(mv)))
            board.push(mv)
        games.append(moves)
    return games


class MoveFactory:
    """Streams of MovePlayed NewEvents: games of real moves, with clocks, evals and nodes."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.games = random_games(12, self.rng)
        self.next_game = 0

    def events(self, n: int) -> list[NewEvent]:
        out: list[NewEvent] = []
        while len(out) < n:
            g = self.next_game
            self.next_game += 1
            game_id = f"r{1 + g // 16}b{1 + g % 16}"
            clocks = [5_400_000, 5_400_000]
            eval_cp = 20
            for ply, (uci, san) in enumerate(self.games[g % len(self.games)], start=1):
                if len(out) >= n:
                    break
                side = (ply - 1) % 2
                spent = self.rng.randint(800, 240_000)
                clocks[side] = max(0, clocks[side] - spent + 30_000)
                eval_cp = max(-2000, min(2000, eval_cp + self.rng.randint(-60, 60)))
                ev = move(
                    game_id,
                    ply,
                    uci,
                    san=san,
                    clock_ms=clocks[side],
                    move_time_ms=spent,
                    eval_cp=eval_cp,
                    depth=self.rng.randint(18, 32),
                    nodes=self.rng.randint(500_000, 60_000_000),
                )
                ne = new_event(ev, actor=ARBITER)
                out.append(replace(ne, occurred_at=T0 + timedelta(milliseconds=len(out))))
        return out


def _batches(
    events: Sequence[NewEvent], tids: Sequence[str], size: int
) -> list[tuple[str, list[NewEvent]]]:
    """Cut `events` into batches of `size`, dealt round-robin to the streams `tids`."""
    chunks = [list(events[i : i + size]) for i in range(0, len(events), size)]
    return [(tids[i % len(tids)], c) for i, c in enumerate(chunks)]


# -- timing helpers ---------------------------------------------------------------------------


def _rate(n: int, seconds: float) -> float:
    return round(n / seconds, 1) if seconds > 0 else math.inf


def _timed(fn: Callable[[], int]) -> tuple[int, float]:
    t = time.perf_counter()
    n = fn()
    return n, time.perf_counter() - t


def _pct(sorted_ms: list[float], q: float) -> float | None:
    if not sorted_ms:
        return None
    i = min(len(sorted_ms) - 1, max(0, math.ceil(q * len(sorted_ms)) - 1))
    return round(sorted_ms[i], 3)


def dist(values_ms: list[float]) -> dict[str, float | None]:
    s = sorted(values_ms)
    return {
        "p50_ms": _pct(s, 0.50),
        "p99_ms": _pct(s, 0.99),
        "max_ms": round(s[-1], 3) if s else None,
    }


def _append_all(log: EventLog, batches: list[tuple[str, list[NewEvent]]]) -> int:
    n = 0
    for tid, batch in batches:
        n += len(log.append(tid, batch).envelopes)
    return n


def _decode_all(raw: list[bytes]) -> int:
    for b in raw:
        envelope_from_bytes(b)
    return len(raw)


def _freeze_inputs() -> None:
    """Move the benchmark's prebuilt inputs out of the GC's way (`gc.freeze`): a real writer
    does not hold tens of thousands of pending events, and full collections scanning them
    would be charged to whatever is being timed."""
    gc.collect()
    gc.freeze()


def _read(log: EventLog, tids: Sequence[str], decode: bool) -> int:
    n = 0
    for tid in tids:
        for env in log.read(tid):
            if decode:
                Recorded.of(env)
            n += 1
    return n


# -- in-memory costs --------------------------------------------------------------------------


def bench_cpu(events: list[NewEvent], chunk: int = BATCH) -> dict[str, Any]:
    """Per-event CPU costs inside append and read, without any I/O. Works in chunks of
    `chunk` events (as an append batch would), so only one chunk's objects are alive."""
    tid = "cpu-bench"
    spent = dict.fromkeys(("seal", "to_bytes", "digest", "envelope_from_bytes", "Recorded.of"), 0.0)
    size = 0
    prev = GENESIS_HASH
    for start in range(0, len(events), chunk):
        part = events[start : start + chunk]
        t0 = time.perf_counter()
        envs = []
        for i, e in enumerate(part, start=start + 1):
            env = e.sealed(tid, i, prev, T0)
            prev = env.hash
            envs.append(env)
        t1 = time.perf_counter()
        blobs = [env.to_bytes() for env in envs]
        t2 = time.perf_counter()
        for e in part:
            e.digest(tid)
        t3 = time.perf_counter()
        parsed = [envelope_from_bytes(b) for b in blobs]
        t4 = time.perf_counter()
        for env in parsed:
            Recorded.of(env)
        t5 = time.perf_counter()
        for key, dt in zip(spent, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4), strict=True):
            spent[key] += dt
        size += sum(map(len, blobs))
    n = len(events)
    return {
        "events": n,
        "seal_events_per_s": _rate(n, spent["seal"]),
        "envelope_to_bytes_per_s": _rate(n, spent["to_bytes"]),
        "content_digest_per_s": _rate(n, spent["digest"]),
        "decode_envelope_bytes_per_s": _rate(n, spent["envelope_from_bytes"]),
        "decode_payload_per_s": _rate(n, spent["Recorded.of"]),
        "avg_envelope_bytes": round(size / n, 1),
        "us_per_event": {k: round(v / n * 1e6, 2) for k, v in spent.items()},
    }


# -- SQLite -----------------------------------------------------------------------------------


def bench_sqlite(p: Params, factory: MoveFactory) -> dict[str, Any]:
    from services.eventlog.sqlite import SQLiteEventLog

    tids = [f"sq-batch-{i:02d}" for i in range(p.tournaments)]
    single_tids = [f"sq-single-{i:02d}" for i in range(p.tournaments)]
    batched = _batches(factory.events(p.sqlite_batched_events), tids, p.batch_size)
    singles = _batches(factory.events(p.sqlite_single_events), single_tids, 1)
    _freeze_inputs()
    out: dict[str, Any] = {"sqlite_version": sqlite3.sqlite_version}
    with tempfile.TemporaryDirectory(prefix="arbiter-bench-") as tmp:
        path = Path(tmp) / "events.sqlite3"
        log = SQLiteEventLog(path)
        try:
            progress(f"sqlite: {p.sqlite_batched_events} events in batches of {p.batch_size}")
            n_b, t_b = _timed(lambda: _append_all(log, batched))
            progress(f"sqlite: {p.sqlite_single_events} single-event appends")
            n_s, t_s = _timed(lambda: _append_all(log, singles))
            progress("sqlite: read, read+decode, decode bytes")
            n_r, t_r = _timed(lambda: _read(log, tids, decode=False))
            n_d, t_d = _timed(lambda: _read(log, tids, decode=True))
            raw = [b for tid in tids for b in log.read_raw(tid)]
            n_p, t_p = _timed(lambda: _decode_all(raw))
            n_a, t_a = _timed(lambda: sum(1 for _ in log.read_all()))
            log.close()  # the last connection checkpoints the WAL into the main file
            db_bytes = path.stat().st_size
        finally:
            log.close()
    assert n_r == n_d == n_p == n_b, (n_b, n_r, n_d, n_p)
    out.update(
        {
            "append_batched_events_per_s": _rate(n_b, t_b),
            "append_batched_appends_per_s": _rate(len(batched), t_b),
            "append_single_events_per_s": _rate(n_s, t_s),
            "read_envelopes_per_s": _rate(n_r, t_r),
            "read_and_decode_payload_per_s": _rate(n_d, t_d),
            "decode_envelope_bytes_per_s": _rate(n_p, t_p),
            "read_all_envelopes_per_s": _rate(n_a, t_a),
            "runs": {
                "append_batched": {"events": n_b, "seconds": round(t_b, 3)},
                "append_single": {"events": n_s, "seconds": round(t_s, 3)},
                "read": {"events": n_r, "seconds": round(t_r, 3)},
                "read_and_decode": {"events": n_d, "seconds": round(t_d, 3)},
                "decode_envelope_bytes": {"events": n_p, "seconds": round(t_p, 3)},
                "read_all": {"events": n_a, "seconds": round(t_a, 3)},
            },
            "db_file_bytes_per_event": round(db_bytes / (n_b + n_s), 1),
            "durability": _sqlite_durability(p, factory),
        }
    )
    return out


def _sqlite_durability(p: Params, factory: MoveFactory) -> dict[str, Any]:
    """The cost of `synchronous=FULL` (the default: the WAL is fsynced at every commit, so an
    acknowledged event survives a power cut) beside NORMAL (fsync at checkpoints only), on
    the same single-event and batched appends, in the same run."""
    from services.eventlog.sqlite import SQLiteEventLog

    n_single = max(10, p.sqlite_single_events // 2)
    rates: dict[str, dict[str, float]] = {}
    for mode in ("NORMAL", "FULL"):
        tids = [f"dur-{mode}-{i:02d}" for i in range(p.tournaments)]
        singles = _batches(factory.events(n_single), tids, 1)
        batched = _batches(factory.events(p.sqlite_batched_events // 5), tids, p.batch_size)
        with tempfile.TemporaryDirectory(prefix="arbiter-bench-") as tmp:
            log = SQLiteEventLog(Path(tmp) / "events.sqlite3", synchronous=mode)
            try:
                progress(f"sqlite: synchronous={mode}")
                n_s, t_s = _timed(lambda log=log, singles=singles: _append_all(log, singles))
                n_b, t_b = _timed(lambda log=log, batched=batched: _append_all(log, batched))
            finally:
                log.close()
        rates[mode] = {
            "append_single_events_per_s": _rate(n_s, t_s),
            "append_batched_events_per_s": _rate(n_b, t_b),
        }
    return {
        **{k.lower(): v for k, v in rates.items()},
        "full_over_normal_single": round(
            rates["FULL"]["append_single_events_per_s"]
            / rates["NORMAL"]["append_single_events_per_s"],
            3,
        ),
        "full_over_normal_batched": round(
            rates["FULL"]["append_batched_events_per_s"]
            / rates["NORMAL"]["append_batched_events_per_s"],
            3,
        ),
    }


# -- Kafka ------------------------------------------------------------------------------------


def _latency_run(
    log: EventLog,
    arrivals: dict[uuid.UUID, float],
    tid: str,
    events: list[NewEvent],
    rate: int,
    duration: float,
    tick_s: float | None,
    drain_s: float,
) -> dict[str, Any]:
    """Append `events` on a fixed schedule (event k due at t0 + k/rate) for `duration` s.

    `tick_s` None: one event per append (an append that runs late delays the next ones).
    Otherwise every `tick_s`, append all events due by then as one batch.
    Latency "append_to_tail" is from just before `append()` to the tail thread receiving
    the event; "schedule_to_tail" also counts the time an event waited for its turn.
    """
    total = min(len(events), int(rate * duration))
    sent: dict[uuid.UUID, tuple[float, float]] = {}  # event_id -> (append called, scheduled)
    call_ms: list[float] = []
    i = 0
    t0 = time.perf_counter()
    next_tick = t0
    while i < total:
        now = time.perf_counter()
        if now - t0 >= duration:
            break
        if tick_s is None:
            due_at = t0 + i / rate
            if now < due_at:
                time.sleep(due_at - now)
            j = i + 1
        else:
            j = min(total, int((now - t0) * rate) + 1)
        if j > i:
            batch = events[i:j]
            t_call = time.perf_counter()
            for k, e in enumerate(batch, start=i):
                sent[e.event_id] = (t_call, t0 + k / rate)
            log.append(tid, batch)
            call_ms.append((time.perf_counter() - t_call) * 1000)
            i = j
        if tick_s is not None:
            next_tick += tick_s
            wait = next_tick - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            else:
                next_tick = time.perf_counter()
    elapsed = time.perf_counter() - t0
    behind_ms = max(0.0, (time.perf_counter() - (t0 + i / rate)) * 1000) if i else 0.0
    deadline = time.perf_counter() + drain_s
    while time.perf_counter() < deadline and any(e not in arrivals for e in sent):
        time.sleep(0.01)
    got = [e for e in sent if e in arrivals]
    return {
        "mode": "single" if tick_s is None else f"batched_every_{round(tick_s * 1000)}ms",
        "target_rate_per_s": rate,
        "achieved_rate_per_s": round(len(sent) / elapsed, 1),
        "duration_s": round(elapsed, 3),
        "count": len(got),
        "sent": len(sent),
        "lost": len(sent) - len(got),
        "appends": len(call_ms),
        "avg_batch": round(len(sent) / max(1, len(call_ms)), 2),
        "behind_schedule_at_end_ms": round(behind_ms, 1),
        "append_to_tail": dist([(arrivals[e] - sent[e][0]) * 1000 for e in got]),
        "schedule_to_tail": dist([(arrivals[e] - sent[e][1]) * 1000 for e in got]),
        "append_call": dist(call_ms),
    }


def bench_kafka(p: Params, factory: MoveFactory, bootstrap: str, keep_topic: bool) -> dict:
    from kafka import KafkaAdminClient

    from services.eventlog.kafka import KafkaEventLog, partition_for

    topic = f"arbiter.bench.{uuid.uuid4().hex[:10]}"
    out: dict[str, Any] = {"bootstrap": bootstrap, "topic": topic}
    tids = [f"kf-batch-{i:02d}" for i in range(2 * p.tournaments)]
    single_tids = [f"kf-single-{i:02d}" for i in range(p.tournaments)]
    batched = _batches(factory.events(p.kafka_batched_events), tids, p.batch_size)
    singles = _batches(factory.events(p.kafka_single_events), single_tids, 1)
    lat_events = {rate: factory.events(int(rate * secs)) for rate, secs in p.latency_rates}
    warm = factory.events(len(tids) + len(single_tids) + 2 * len(p.latency_rates))
    _freeze_inputs()

    progress(f"kafka: topic {topic} ({p.kafka_partitions} partitions) at {bootstrap}")
    t = time.perf_counter()
    log = KafkaEventLog(bootstrap, topic=topic, partitions=p.kafka_partitions)
    out["open_s"] = round(time.perf_counter() - t, 3)
    try:
        # One transactional writer per partition: init_transactions + catch-up on first use.
        warm_tids = tids + single_tids + [f"kf-lat-{k}" for k in range(2 * len(p.latency_rates))]
        t = time.perf_counter()
        for tid, e in zip(warm_tids, warm, strict=True):
            log.append(tid, [e])
        out["writer_warmup_s"] = round(time.perf_counter() - t, 3)
        out["partitions_used"] = len({partition_for(x, log.partitions) for x in warm_tids})

        progress(f"kafka: {p.kafka_batched_events} events in batches of {p.batch_size}")
        n_b, t_b = _timed(lambda: _append_all(log, batched))
        progress(f"kafka: up to {p.kafka_single_events} single-event appends")
        cap = p.kafka_single_time_cap_s

        def single_appends() -> int:
            t_end = time.perf_counter() + cap
            n = 0
            for tid, batch in singles:
                n += len(log.append(tid, batch).envelopes)
                if time.perf_counter() > t_end:
                    break
            return n

        n_s, t_s = _timed(single_appends)
        progress("kafka: read, read+decode, read_all")
        n_r, t_r = _timed(lambda: _read(log, tids, decode=False))
        n_d, t_d = _timed(lambda: _read(log, tids, decode=True))
        n_a, t_a = _timed(lambda: sum(1 for _ in log.read_all()))
        assert n_r == n_d == n_b + len(tids), (n_b, n_r, n_d)
        out.update(
            {
                "append_batched_events_per_s": _rate(n_b, t_b),
                "append_batched_appends_per_s": _rate(len(batched), t_b),
                "append_single_events_per_s": _rate(n_s, t_s),
                "read_envelopes_per_s": _rate(n_r, t_r),
                "read_and_decode_payload_per_s": _rate(n_d, t_d),
                "read_all_envelopes_per_s": _rate(n_a, t_a),
                "runs": {
                    "append_batched": {
                        "events": n_b,
                        "seconds": round(t_b, 3),
                        "tournaments": len(tids),
                    },
                    "append_single": {
                        "events": n_s,
                        "seconds": round(t_s, 3),
                        "tournaments": len(single_tids),
                        "time_capped": n_s < p.kafka_single_events,
                    },
                    "read": {"events": n_r, "seconds": round(t_r, 3)},
                    "read_and_decode": {"events": n_d, "seconds": round(t_d, 3)},
                    "read_all": {"events": n_a, "seconds": round(t_a, 3)},
                },
            }
        )
        out["latency"] = _kafka_latency(log, p, lat_events)
    finally:
        log.close()
        if not keep_topic:
            with contextlib.suppress(Exception):
                admin = KafkaAdminClient(bootstrap_servers=bootstrap, client_id="arbiter-bench")
                admin.delete_topics([topic])
                admin.close()
    return out


def _kafka_latency(
    log: EventLog, p: Params, lat_events: dict[int, list[NewEvent]]
) -> dict[str, Any]:
    arrivals: dict[uuid.UUID, float] = {}
    stop = threading.Event()
    sub = log.subscribe()
    errors: list[BaseException] = []

    def tail() -> None:
        try:
            while not stop.is_set():
                envs = sub.poll(timeout=0.05)
                now = time.perf_counter()
                for env in envs:
                    arrivals[env.event_id] = now
        except BaseException as exc:  # reported below
            errors.append(exc)

    thread = threading.Thread(target=tail, name="bench-tail", daemon=True)
    thread.start()
    out: dict[str, Any] = {}
    try:
        k = 0
        for rate, secs in p.latency_rates:
            for tick in (None, p.latency_batch_tick_ms / 1000):
                name = f"rate_{rate}_" + ("single" if tick is None else "batched")
                progress(f"kafka latency: {name} for {secs} s")
                # Each run uses a fresh copy of the events (new ids) and its own stream.
                evs = [replace(e, event_id=uuid.uuid4()) for e in lat_events[rate]]
                out[name] = _latency_run(
                    log, arrivals, f"kf-lat-{k}", evs, rate, secs, tick, p.drain_timeout_s
                )
                k += 1
    finally:
        stop.set()
        thread.join(timeout=5)
        sub.close()
    if errors:
        out["tail_error"] = repr(errors[0])
    return out


# -- main -------------------------------------------------------------------------------------


def machine_info() -> dict[str, Any]:
    def version(dist: str) -> str | None:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            return None

    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "cpus_usable": usable,
        "sqlite": sqlite3.sqlite_version,
        "pydantic": version("pydantic"),
        "orjson": version("orjson"),
        "kafka_python": version("kafka-python"),
    }


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m tests.bench", description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    ap.add_argument(
        "--events", type=int, help="batched SQLite events (default 50000); others scale alike"
    )
    ap.add_argument("--skip-kafka", action="store_true", help="SQLite only")
    ap.add_argument("--keep-topic", action="store_true", help="do not delete the Kafka topic")
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None, emit: bool = True) -> dict[str, Any]:
    """Run the benchmark, print the JSON document to stdout (unless `emit` is off), and
    return it."""
    args = parse_args(argv)
    p = QUICK if args.quick else Params()
    if args.events is not None:
        if args.events < p.batch_size:
            raise SystemExit(f"--events must be at least {p.batch_size}")
        p = p.scaled(args.events)
    factory = MoveFactory(p.seed)
    t_all = time.perf_counter()
    doc: dict[str, Any] = {
        "machine": machine_info(),
        "params": {**asdict(p), "quick": args.quick},
    }
    progress("in-memory costs (seal, encode, digest, decode)")
    bootstrap = os.environ.get("KAFKA_BOOTSTRAP")
    try:
        cpu_events = factory.events(min(p.sqlite_batched_events, 10_000))
        _freeze_inputs()
        doc["cpu"] = bench_cpu(cpu_events)
        doc["sqlite"] = bench_sqlite(p, factory)
        if args.skip_kafka:
            doc["kafka"] = {"skipped": "--skip-kafka"}
        elif not bootstrap:
            doc["kafka"] = {"skipped": "KAFKA_BOOTSTRAP not set"}
        else:
            try:
                doc["kafka"] = bench_kafka(p, factory, bootstrap, args.keep_topic)
            except Exception as exc:
                progress(f"kafka failed: {exc!r}")
                doc["kafka"] = {"error": repr(exc)}
    finally:
        gc.unfreeze()
    doc["total_seconds"] = round(time.perf_counter() - t_all, 1)
    if emit:
        print(json.dumps(doc, indent=2))
    progress(f"done in {doc['total_seconds']} s")
    return doc


def exit_code(doc: dict[str, Any]) -> int:
    return 1 if "error" in doc.get("kafka", {}) else 0
