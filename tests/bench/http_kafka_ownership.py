"""HTTP appends on Kafka through 1 and 2 API processes, the partition ownership of issue 27
item 2 beside the default (`ARBITER_KAFKA_OWNERSHIP=single`: every process writes every
partition), as one JSON document. Needs a broker (`KAFKA_BOOTSTRAP`).

    python -m tests.bench.http_kafka_ownership [--clients 24] [--appends 15] [--processes 1 2]

Each run: fresh topic of 8 partitions, `processes` `uvicorn services.api.main:app` processes,
16 tournaments (two per partition), `clients` threads each posting `appends` PlayerRegistered
without `expected_seq` to the tournaments in turn, through the processes in turn. Reported:
events/s, p50/p99 ms, the answers other than 201 (409 `concurrency.retries_exhausted` among
them), and with `group` the transactional producers initialised per process (each one fences
the partition's previous writer) and the appends forwarded.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "integration" / "api"))

from test_api_kafka_ownership import Cluster, post_command, tournaments_on_every_partition


def run(mode: str, processes: int, clients: int, appends: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        c = Cluster(Path(tmp), partitions=8)
        c.env["ARBITER_KAFKA_OWNERSHIP"] = mode
        try:
            c.start(processes)
            if mode == "group":
                c.settled(c.urls)
            tids = tournaments_on_every_partition(2, 8)
            for i, tid in enumerate(tids):
                body = {"type": "TournamentCreated", "payload": {"name": tid, "format": "swiss"}}
                assert post_command(c.urls[i % processes], c.headers, tid, body).status_code == 201
            before = [c.ownership(u) for u in c.urls] if mode == "group" else []
            latencies: list[float] = []
            statuses: dict[str, int] = {}
            lock = threading.Lock()

            def client(k: int) -> None:
                for i in range(appends):
                    tid = tids[(k + i) % len(tids)]
                    url = c.urls[(k + i) % processes]
                    body = {
                        "type": "PlayerRegistered",
                        "payload": {"player_id": f"c{k}-{i}", "name": "X"},
                    }
                    t0 = time.perf_counter()
                    r = post_command(url, c.headers, tid, body)
                    dt = time.perf_counter() - t0
                    key = str(r.status_code)
                    if r.status_code != 201:
                        key += " " + str(r.json().get("error", {}).get("rule", ""))
                    with lock:
                        latencies.append(dt)
                        statuses[key] = statuses.get(key, 0) + 1

            threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
            t0 = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.perf_counter() - t0
            latencies.sort()
            out: dict[str, Any] = {
                "mode": mode,
                "processes": processes,
                "events": len(latencies),
                "events_per_s": round(statuses.get("201", 0) / wall, 1),
                "p50_ms": round(statistics.median(latencies) * 1000, 1),
                "p99_ms": round(latencies[int(len(latencies) * 0.99) - 1] * 1000, 1),
                "answers": statuses,
            }
            if mode == "group":
                after = [c.ownership(u) for u in c.urls]
                out["writer_inits_during_run"] = sum(
                    a["partitions"][p]["writer_inits"] - b["partitions"][p]["writer_inits"]
                    for a, b in zip(after, before, strict=True)
                    for p in a["partitions"]
                )
                out["forwarded"] = sum(a["forwarded"] for a in after)
            return out
        finally:
            c.stop()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=24)
    ap.add_argument("--appends", type=int, default=15)
    ap.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args()
    if not os.environ.get("KAFKA_BOOTSTRAP"):
        raise SystemExit("KAFKA_BOOTSTRAP is not set (deploy/kafka/start)")
    runs = []
    for n in args.processes:
        for mode in ("single", "group") if n > 1 else ("single",):
            runs.append(run(mode, n, args.clients, args.appends))
            print(json.dumps(runs[-1]), file=sys.stderr)
    base = runs[0]["events_per_s"] or 1
    for r in runs:
        r["vs_one_process"] = round(r["events_per_s"] / base, 2)
    print(json.dumps({"runs": runs}, indent=2))


if __name__ == "__main__":
    main()
