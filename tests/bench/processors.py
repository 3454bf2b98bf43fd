"""Processor throughput and restart (issue 5, issue 11 items 1-2), as one JSON document.

Preloads N events (engine leagues with moves, several tournaments, 8 partitions) into a fresh
topic, then, one processor at a time (`arbiter processor NAME` as a subprocess, one worker):

- `faust_events_per_s`: a fresh group with `--no-rebuild`, so every event goes through the
  Faust worker (fetch -> decode -> Projector.apply -> publish, per fetched batch); from the
  first batch to the batch that folded the last event (stamps in status.json);
  `faust_from_agent_start_events_per_s` counts from the agent's start (group join included);
- beside it, in the same run, the raw peer: an aiokafka consume loop over the same topic with
  decode + fold of the same projection (`Projector(projections=(NAME,))`, messages built per
  fetched batch of the same size, nothing sent), and `ratio` = faust / raw;
- `rebuild_s`: the default start of a fresh processor (no snapshot: fold the whole topic with
  a kafka-python reader before the worker starts); it then checkpoints its fold to its
  snapshot topic; `tail` more events are appended, the processor is killed (-9) and started
  again: `restore_s` is that start (read the snapshots, fold the tail, compare with the
  output topic), `restart_ratio` = restore_s / rebuild_s (the aim: <= 0.10). Both are the
  start-up phase as status.json reports it (`rebuild_s`), without the interpreter's start.

`--workers` (issue 11 item 3) adds `workers`: events/s of one processor (the first of
`--only`) with 1 and with 2 worker processes in one consumer group on the same 8-partition
topic, and `ratio` = 2 workers / 1. Each run: a fresh topic, group and output topic; the
workers start (default start: restore, here of nothing) and settle (their assignments cover
every partition); then N preloaded events (small leagues, ~600 events each, so that every
partition has several tournaments) are copied into that topic as raw bytes in one
transaction (`copy_s`): the workers, reading read_committed, see them all at once, and the
rate is N over the time from the first batch any worker folded to the last batch folded
(status.json stamps), Faust's batch path only (no start-up read). On a 2-core machine the
two workers share the cores with the broker.

The raw peers over all projections (consume only; decode + fold of every projection) are
kept as `raw_aiokafka_*` for comparison with earlier runs.

Run: `KAFKA_BOOTSTRAP=127.0.0.1:19092 python -m tests.bench.processors [--events N]
[--only standings] [--tail N] [--batch N] [--workers | --workers-only]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

_repo = Path(__file__).resolve().parents[2]
for _p in (_repo / "tests", _repo):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from aiokafka import AIOKafkaConsumer, TopicPartition  # noqa: E402
from builders import new_event  # noqa: E402
from kafka import KafkaProducer  # noqa: E402
from tests_support import processor_args  # noqa: E402

from events_schema.envelope import envelope_from_bytes  # noqa: E402
from events_schema.ids import GENESIS_HASH  # noqa: E402
from projections.documents import PROJECTIONS  # noqa: E402
from services.eventlog.kafka import KafkaEventLog  # noqa: E402
from services.projection.projector import Projector  # noqa: E402
from tests.bench.standings import league_events  # noqa: E402

PARTITIONS = 8


def _progress(msg: str) -> None:
    print(f"[bench.processors] {msg}", file=sys.stderr, flush=True)


def _preload(
    bootstrap: str,
    topic: str,
    total: int,
    prefix: str = "league",
    seed: int = 100,
    small: bool = False,
) -> int:
    """`total` events of engine leagues (8 players, double round robin; `small`: 4 players,
    single, ~600 events each, so that the tournaments spread over every partition)."""
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=20)
    n = t = 0
    while n < total:
        if small:
            evs = league_events(4, 1, seed=seed + t, max_plies=60)[: total - n]
        else:
            evs = league_events(8, 2, seed=seed + t, max_plies=120)[: total - n]
        tid, prev = f"{prefix}-{t}", GENESIS_HASH
        for i, e in enumerate(evs, start=1):
            ne = new_event(e, i)
            env = ne.sealed(tid, i, prev, ne.occurred_at)
            prev = env.hash
            producer.send(topic, key=tid.encode(), value=env.to_bytes())
        n += len(evs)
        t += 1
    producer.flush()
    producer.close()
    return t


async def _raw(
    bootstrap: str,
    topic: str,
    total: int,
    fold: bool,
    projections: tuple[str, ...] = PROJECTIONS,
    batch: int = 5000,
) -> float:
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap,
        enable_auto_commit=False,
        isolation_level="read_committed",
        max_poll_records=batch,
    )
    await consumer.start()
    try:
        tps = [TopicPartition(topic, p) for p in range(PARTITIONS)]
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        projector = Projector(projections=projections)
        seen = 0
        t0 = time.perf_counter()
        while seen < total:
            batches = await consumer.getmany(timeout_ms=500, max_records=batch)
            if fold:  # one fold + messages per fetched batch, as the processor does
                projector.run(
                    envelope_from_bytes(r.value) for recs in batches.values() for r in recs
                )
            seen += sum(len(recs) for recs in batches.values())
        return seen / (time.perf_counter() - t0)
    finally:
        await consumer.stop()


def _spawn(
    bootstrap: str,
    topic: str,
    name: str,
    tmp: str,
    group: str,
    out: str,
    rebuild: bool,
    batch: int,
    env: dict[str, str] | None = None,
) -> subprocess.Popen[bytes]:
    # The processor's own session timeout: the restart figures include its rebalance.
    options = ("--group", group, "--output-topic", out, "--rebuild" if rebuild else "--no-rebuild")
    args = processor_args(
        name, bootstrap, topic, Path(tmp), *options, batch=batch, session_timeout=None
    )
    cmd = [sys.executable, *args]
    return subprocess.Popen(
        cmd,
        cwd=_repo,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )


def _wait(
    proc: subprocess.Popen[bytes], path: Path, pred: Any, timeout: float = 900
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(proc.stderr.read().decode() if proc.stderr else "exited")
        if time.monotonic() > deadline:
            raise TimeoutError(f"{path}: not done")
        try:
            st = json.loads(path.read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            st = None
        if st and st["pid"] == proc.pid and pred(st):
            return dict(st)
        time.sleep(0.1)


def _stop(proc: subprocess.Popen[bytes], kill: bool = False) -> None:
    if kill:
        proc.kill()
    else:
        proc.terminate()
    proc.wait(timeout=60)


def _throughput(bootstrap: str, topic: str, name: str, total: int, batch: int) -> dict[str, Any]:
    """Every event through the Faust worker (fresh group and output topic, no rebuild)."""
    with tempfile.TemporaryDirectory() as tmp:
        run = uuid.uuid4().hex[:8]
        out = f"{topic}.projection.{name}.{run}"
        proc = _spawn(bootstrap, topic, name, tmp, f"bench-{name}-{run}", out, False, batch)
        try:
            st = _wait(
                proc,
                Path(tmp) / name / "status.json",
                lambda st: st["events"] >= total and st["last_fold_at"],
            )
        finally:
            _stop(proc)
    secs = st["last_fold_at"] - st["first_batch_at"]
    from_start = st["last_fold_at"] - st["agent_started_at"]
    return {
        "faust_s": round(secs, 3),
        "faust_events_per_s": round(total / secs),
        "faust_from_agent_start_events_per_s": round(total / from_start),
        "batches": st["batches"],
        "published": st["published"],
    }


def _restart(
    bootstrap: str, topic: str, name: str, total: int, tail: int, batch: int
) -> dict[str, Any]:
    """A fresh processor's full rebuild, its checkpoint, kill -9, `tail` more events, and
    the restart (restore + tail)."""
    with tempfile.TemporaryDirectory() as tmp:
        run = uuid.uuid4().hex[:8]
        out, group = f"{topic}.projection.{name}.{run}", f"bench-{name}-{run}"
        status = Path(tmp) / name / "status.json"
        env = {"ARBITER_SNAPSHOT_EVERY": "1"}
        proc = _spawn(bootstrap, topic, name, tmp, group, out, True, batch, env)
        try:
            first = _wait(proc, status, lambda st: st["start"] is not None)
            t0 = time.perf_counter()
            snap = _wait(proc, status, lambda st: st["snapshots"]["checkpoints"] >= 1)["snapshots"]
            checkpoint_s = time.perf_counter() - t0
        finally:
            _stop(proc, kill=True)
        _preload(bootstrap, topic, tail, prefix=f"tail-{run}", seed=900)
        proc = _spawn(bootstrap, topic, name, tmp, group, out, True, batch, env)
        try:
            again = _wait(proc, status, lambda st: st["start"] is not None)
        finally:
            _stop(proc)
    return {
        "rebuild_s": first["rebuild_s"],
        "rebuild_events": first["rebuild_events"],
        "rebuild_events_per_s": round(first["rebuild_events"] / first["rebuild_s"]),
        "checkpoint": {
            "tournaments": snap["written"],
            "bytes": snap["bytes"],
            "s_after_rebuild": round(checkpoint_s, 2),
        },
        "restore_s": again["rebuild_s"],
        "restore_mode": again["start"]["mode"],
        "restore_snapshot_read_s": again["start"]["restore_s"],
        "restore_tail_events": again["start"]["tail_events"],
        "restore_published": again["rebuild_published"],
        "restart_ratio": round(again["rebuild_s"] / first["rebuild_s"], 3),
    }


def _workers_rate(
    bootstrap: str, source: str, name: str, records: list[tuple[bytes, bytes]], batch: int, n: int
) -> dict[str, Any]:
    """`n` workers of `name` in one group over a fresh copy of `records` (see module doc)."""
    total = len(records)
    assert total > 0
    run = uuid.uuid4().hex[:8]
    topic = f"{source}.w{n}.{run}"
    KafkaEventLog(bootstrap, topic=topic, partitions=PARTITIONS).close()
    out, group = f"{topic}.projection.{name}", f"bench-{name}-w{n}-{run}"
    with tempfile.TemporaryDirectory() as tmp:
        dirs = [Path(tmp) / f"w{i}" for i in range(n)]
        procs = [_spawn(bootstrap, topic, name, str(d), group, out, True, batch) for d in dirs]
        try:
            deadline = time.monotonic() + 120
            while True:  # settled: every partition assigned, one generation
                sts = []
                for proc, d in zip(procs, dirs, strict=True):
                    if proc.poll() is not None:
                        raise RuntimeError(proc.stderr.read().decode() if proc.stderr else "")
                    try:
                        sts.append(json.loads((d / name / "status.json").read_text()))
                    except (FileNotFoundError, json.JSONDecodeError):
                        sts.append(None)
                if all(st and st.get("start") for st in sts):
                    parts = sorted(p for st in sts if st for p in st["assigned"])
                    gens = {st["generation"] for st in sts if st}
                    if parts == list(range(PARTITIONS)) and len(gens) == 1:
                        break
                if time.monotonic() > deadline:
                    raise TimeoutError(f"workers not settled: {sts}")
                time.sleep(0.2)
            t0 = time.perf_counter()
            # One transaction: the workers (read_committed) see the events only once all
            # are there, so the copy's own rate does not bound theirs.
            producer = KafkaProducer(
                bootstrap_servers=bootstrap,
                acks="all",
                linger_ms=20,
                batch_size=1 << 18,
                transactional_id=f"bench-copy-{run}",
                transaction_timeout_ms=300_000,
            )
            producer.init_transactions()
            producer.begin_transaction()
            for key, value in records:
                producer.send(topic, key=key, value=value)
            producer.commit_transaction()
            producer.close()
            copy_s = time.perf_counter() - t0
            sts = []
            deadline = time.monotonic() + 900
            while True:
                sts = [json.loads((d / name / "status.json").read_text()) for d in dirs]
                if sum(st["events"] for st in sts) >= total:
                    break
                if time.monotonic() > deadline:
                    raise TimeoutError("workers did not fold every event")
                time.sleep(0.1)
        finally:
            for proc in procs:
                _stop(proc)
    first = min(st["first_batch_at"] for st in sts if st["first_batch_at"])
    last = max(st["last_fold_at"] for st in sts if st["last_fold_at"])
    return {
        "workers": n,
        "events_per_s": round(total / (last - first)),
        "s": round(last - first, 3),
        "copy_s": round(copy_s, 3),
        "events_per_worker": [st["events"] for st in sts],
        "partitions_per_worker": [len(st["assigned"]) for st in sts],
    }


def _read_all(bootstrap: str, topic: str) -> list[Any]:
    from kafka import KafkaConsumer
    from kafka import TopicPartition as KTP

    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False)
    try:
        tps = [KTP(topic, p) for p in range(PARTITIONS)]
        consumer.assign(tps)
        consumer.seek_to_beginning(*tps)
        ends = consumer.end_offsets(tps)
        out: list[Any] = []
        while any(consumer.position(tp) < ends[tp] for tp in tps):
            for recs in consumer.poll(timeout_ms=200).values():
                out.extend(recs)
        return out
    finally:
        consumer.close()


def main(argv: list[str] | None = None, emit: bool = True) -> dict[str, Any]:
    ap = argparse.ArgumentParser(prog="python -m tests.bench.processors")
    ap.add_argument("--events", type=int, default=50_000)
    ap.add_argument("--tail", type=int, default=0, help="restart tail (default: events/100)")
    ap.add_argument("--batch", type=int, default=2000, help="records per fetch and fold")
    ap.add_argument("--only", nargs="*", default=list(PROJECTIONS))
    ap.add_argument("--no-restart", action="store_true")
    ap.add_argument("--workers", action="store_true", help="events/s with 1 and 2 workers")
    ap.add_argument("--workers-only", action="store_true", help="only the --workers part")
    args = ap.parse_args(argv)
    bootstrap = os.environ.get("KAFKA_BOOTSTRAP", "127.0.0.1:19092")
    topic = f"arbiter.bench.proc.{uuid.uuid4().hex[:10]}"
    KafkaEventLog(bootstrap, topic=topic, partitions=PARTITIONS).close()
    _progress(f"preloading {args.events} events into {topic}")
    t0 = time.perf_counter()
    tournaments = 0 if args.workers_only else _preload(bootstrap, topic, args.events)
    doc: dict[str, Any] = {
        "events": args.events,
        "tournaments": tournaments,
        "partitions": PARTITIONS,
        "batch": args.batch,
        "preload_s": round(time.perf_counter() - t0, 2),
    }
    if args.workers or args.workers_only:
        name = args.only[0]
        source = f"{topic}.small"
        KafkaEventLog(bootstrap, topic=source, partitions=PARTITIONS).close()
        _progress(f"workers: preloading {args.events} events (small tournaments) into {source}")
        small = _preload(bootstrap, source, args.events, prefix="small", small=True)
        records = [(r.key, r.value) for r in _read_all(bootstrap, source)]
        one = _workers_rate(bootstrap, source, name, records, args.batch, 1)
        _progress(f"workers {name}: 1 worker {one['events_per_s']} events/s; now 2")
        two = _workers_rate(bootstrap, source, name, records, args.batch, 2)
        doc["workers"] = {
            "processor": name,
            "tournaments": small,
            "1": one,
            "2": two,
            "ratio": round(two["events_per_s"] / one["events_per_s"], 3),
        }
        if args.workers_only:
            if emit:
                print(json.dumps(doc, indent=2))
            return doc
    _progress("raw aiokafka loops")
    doc["raw_aiokafka_consume_events_per_s"] = round(
        asyncio.run(_raw(bootstrap, topic, args.events, fold=False))
    )
    doc["raw_aiokafka_decode_fold_all_events_per_s"] = round(
        asyncio.run(_raw(bootstrap, topic, args.events, fold=True))
    )
    doc["processors"] = {}
    for name in args.only:
        _progress(f"processor {name}")
        raw = round(asyncio.run(_raw(bootstrap, topic, args.events, True, (name,), args.batch)))
        faust = _throughput(bootstrap, topic, name, args.events, args.batch)
        doc["processors"][name] = {
            **faust,
            "raw_aiokafka_decode_fold_events_per_s": raw,
            "ratio": round(faust["faust_events_per_s"] / raw, 3),
        }
    if not args.no_restart:
        tail = args.tail or max(1, args.events // 100)
        for name in args.only:
            _progress(f"restart {name}: rebuild, checkpoint, kill -9, +{tail} events, restore")
            doc["processors"][name]["restart"] = _restart(
                bootstrap, topic, name, args.events, tail, args.batch
            )
            # Later processors read the tail too: their rebuild is over events + tail.
    if emit:
        print(json.dumps(doc, indent=2))
    return doc


if __name__ == "__main__":
    main()
