"""Processor throughput (issue 5), as one JSON document on stdout.

Preloads N events (engine leagues with moves, several tournaments, 8 partitions) into a fresh
topic, then, one processor at a time (`arbiter processor NAME` as a subprocess, one worker):

- `faust_events_per_s`: a fresh group with `--no-rebuild`, so every event goes through the
  Faust agent (take -> decode -> Projector.apply -> publish); from the agent's start to the
  batch that folded the last event (stamps in status.json);
- `rebuild_events_per_s`: the default start (fold the whole topic with a kafka-python reader
  before the worker starts, what a restart after kill -9 does);

and, as the ceiling, a raw aiokafka consume loop over the same topic (no decoding), and that
loop with decode + Projector.apply (no publication).

Run: `KAFKA_BOOTSTRAP=127.0.0.1:19092 python -m tests.bench.processors [--events N]`.
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

from events_schema.envelope import envelope_from_bytes  # noqa: E402
from events_schema.ids import GENESIS_HASH  # noqa: E402
from projections.documents import PROJECTIONS  # noqa: E402
from services.eventlog.kafka import KafkaEventLog  # noqa: E402
from services.projector import Projector  # noqa: E402
from tests.bench.standings import league_events  # noqa: E402

PARTITIONS = 8


def _progress(msg: str) -> None:
    print(f"[bench.processors] {msg}", file=sys.stderr, flush=True)


def _preload(bootstrap: str, topic: str, total: int) -> int:
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=20)
    n = t = 0
    while n < total:
        evs = league_events(8, 2, seed=100 + t, max_plies=120)[: total - n]
        tid, prev = f"league-{t}", GENESIS_HASH
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


async def _raw(bootstrap: str, topic: str, total: int, fold: bool) -> float:
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap,
        enable_auto_commit=False,
        isolation_level="read_committed",
        max_poll_records=5000,
    )
    await consumer.start()
    try:
        tps = [TopicPartition(topic, p) for p in range(PARTITIONS)]
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        projector = Projector()
        seen = 0
        t0 = time.perf_counter()
        while seen < total:
            batches = await consumer.getmany(timeout_ms=500, max_records=5000)
            for recs in batches.values():
                seen += len(recs)
                if fold:
                    projector.run(envelope_from_bytes(r.value) for r in recs)
        return seen / (time.perf_counter() - t0)
    finally:
        await consumer.stop()


def _processor(bootstrap: str, topic: str, name: str, total: int, rebuild: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        group = f"bench-{name}-{uuid.uuid4().hex[:8]}"
        cmd = [
            sys.executable,
            "-c",
            "from services.cli.main import app; app()",
            "processor",
            name,
            "--bootstrap",
            bootstrap,
            "--topic",
            topic,
            "--group",
            group,
            "--output-topic",
            f"{topic}.projection.{name}",
            "--data-dir",
            tmp,
            "--loglevel",
            "warning",
            "--rebuild" if rebuild else "--no-rebuild",
        ]
        proc = subprocess.Popen(cmd, cwd=_repo, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        status_path = Path(tmp) / name / "status.json"
        deadline = time.monotonic() + 300
        try:
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(proc.stderr.read().decode() if proc.stderr else "exited")
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{name}: not done")
                try:
                    st = json.loads(status_path.read_text())
                except (FileNotFoundError, json.JSONDecodeError):
                    st = None
                if st and st["pid"] == proc.pid:
                    if rebuild and st["rebuild_events"] >= total:
                        return {
                            "rebuild_s": st["rebuild_s"],
                            "rebuild_events_per_s": round(total / st["rebuild_s"]),
                        }
                    if not rebuild and st["events"] >= total and st["last_fold_at"]:
                        secs = st["last_fold_at"] - st["agent_started_at"]
                        return {
                            "faust_s": round(secs, 3),
                            "faust_events_per_s": round(total / secs),
                            "batches": st["batches"],
                            "published": st["published"],
                        }
                time.sleep(0.1)
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def main(argv: list[str] | None = None, emit: bool = True) -> dict[str, Any]:
    ap = argparse.ArgumentParser(prog="python -m tests.bench.processors")
    ap.add_argument("--events", type=int, default=50_000)
    ap.add_argument("--only", nargs="*", default=list(PROJECTIONS))
    args = ap.parse_args(argv)
    bootstrap = os.environ.get("KAFKA_BOOTSTRAP", "127.0.0.1:19092")
    topic = f"arbiter.bench.proc.{uuid.uuid4().hex[:10]}"
    KafkaEventLog(bootstrap, topic=topic, partitions=PARTITIONS).close()
    _progress(f"preloading {args.events} events into {topic}")
    t0 = time.perf_counter()
    tournaments = _preload(bootstrap, topic, args.events)
    doc: dict[str, Any] = {
        "events": args.events,
        "tournaments": tournaments,
        "partitions": PARTITIONS,
        "preload_s": round(time.perf_counter() - t0, 2),
    }
    _progress("raw aiokafka loops")
    doc["raw_aiokafka_consume_events_per_s"] = round(
        asyncio.run(_raw(bootstrap, topic, args.events, fold=False))
    )
    doc["raw_aiokafka_decode_fold_all_four_events_per_s"] = round(
        asyncio.run(_raw(bootstrap, topic, args.events, fold=True))
    )
    doc["processors"] = {}
    for name in args.only:
        _progress(f"processor {name}")
        doc["processors"][name] = {
            **_processor(bootstrap, topic, name, args.events, rebuild=False),
            **_processor(bootstrap, topic, name, args.events, rebuild=True),
        }
    if emit:
        print(json.dumps(doc, indent=2))
    return doc


if __name__ == "__main__":
    main()
