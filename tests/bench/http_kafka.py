"""HTTP appends on Kafka through 1, 2 and 3 `arbiter serve` processes (issue 27 item 7), as one
JSON document, beside the log alone in the same run.

Needs a broker (`deploy/kafka/start`; `KAFKA_BOOTSTRAP=127.0.0.1:19092`). Every run uses fresh
topics `arbiter.bench.http.<hex>` and deletes them afterwards.

- `api`: for 1, 2 and 3 `arbiter serve` processes on one topic (`ARBITER_LOG=kafka`, the
  configuration of README "production": services/config.py), `CLIENTS` (50) client threads,
  each with its own HTTP connection, dealt round-robin over the processes, post one
  `RulingIssued` command per request (without `expected_seq`: the server decides and
  retries) for `--seconds`, in two layouts: `one_tournament` (every client on one
  tournament: one partition, one stream) and `spread` (client i on tournament i: 50 streams
  over the topic's 8 partitions). Reported: events/s, request p50/p99/max ms, the 409s
  (`concurrency.retries_exhausted`: contention a client without `expected_seq` did not cause)
  and other non-201 answers, and `events_per_transaction`, counted from the log: a
  `read_committed` consumer reads the partitions, and each transaction ends in one commit
  marker, which takes an offset no record has, so the transactions are the runs of
  consecutive record offsets.
- `log_alone`: the same layouts, in the same run, through `KafkaEventLog.append` called by 50
  threads in this process (as tests/bench/kafka_append.py does; without `expected_seq` for
  `one_tournament`, with it for `spread`), with the writer's own transaction count. Each
  `api` row carries `ratio_to_log_alone` (its events/s over the peer's).

`RulingIssued` rather than moves or results: every client can post one at any time without a
paired game, so what is measured is the append path (parse, auth, decide, append, answer)
and not the setup of 50 games; a `MovePlayed` costs the command path more to decide (the
legality check), which tests/bench/projector_move.py measures.

The clients are the standard library's `http.client` on kept connections (about 0.2 ms of this
process's CPU per request; `--client httpx` cost about 1.3 ms, and with 50 threads under one
GIL on two shared cores the client then bounded the figures). `--ownership group` runs the
API processes with `ARBITER_KAFKA_OWNERSHIP=group` (each writes the partitions the consumer
group assigns it; the others' commands are sent to their owner), waits for every process to
see the same assignment, and reports `forwarded` (appends sent to another process).

Run: `python -m tests.bench.http_kafka [--seconds S] [--quick] [--processes 1,2,3]
[--layouts one_tournament,spread] [--ownership single|group] [--client http.client|httpx]`,
or `python -m tests.bench --only http_kafka`.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

_repo = Path(__file__).resolve().parents[2]
for _p in (_repo / "tests", _repo):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

import httpx  # noqa: E402
import orjson  # noqa: E402
from kafka import KafkaConsumer, TopicPartition  # noqa: E402
from tests_support import ApiProcesses  # noqa: E402

from events_schema import Actor  # noqa: E402
from events_schema import events as ev  # noqa: E402
from services.eventlog.base import NewEvent  # noqa: E402
from services.eventlog.kafka import API_VERSION, KafkaEventLog  # noqa: E402
from tests.bench.kafka_common import (  # noqa: E402
    CLIENTS,
    delete_topics,
    log_options,
    progress,
    rate,
    ratio,
)
from tests.bench.runner import dist  # noqa: E402
from tests.builders import new_event  # noqa: E402

PARTITIONS = 8
_OPTIONS = log_options()


def _ruling(client: int, n: int, tag: str = "log") -> dict[str, Any]:
    return {
        "type": "RulingIssued",
        "payload": {
            "ruling_id": f"{tag}-c{client}-{n}",  # unique: the decider refuses a reused id
            "by": f"client {client}",
            "subject": "bench",
            "text": "an append through the API",
        },
    }


# -- the API processes ---------------------------------------------------------------------


def _serve_argv(port: int) -> list[str]:
    """`arbiter serve` (the production entry point) on `port`."""
    return [str(Path(sys.executable).with_name("arbiter")), "serve", "--port", str(port)]


def _servers(
    n: int, bootstrap: str, topic: str, tmp: Path, token_db: Path, ownership: str = "single"
) -> ApiProcesses:
    """`n` `arbiter serve` processes on one Kafka topic, started and answering; with
    `ownership="group"` each writes only the partitions the consumer group assigns it and
    forwards the others' appends (services/eventlog/kafka/ownership.py), once every process
    sees the same full assignment."""
    env = dict(os.environ)
    env.update(
        ARBITER_LOG="kafka",
        KAFKA_BOOTSTRAP=bootstrap,
        ARBITER_TOPIC=topic,
        ARBITER_PARTITIONS=str(PARTITIONS),
        ARBITER_TOKENS_DB=str(token_db),
        ARBITER_CHECKPOINT_EVERY="0",
        ARBITER_KAFKA_OWNERSHIP=ownership,
        ARBITER_FORWARD_SECRET=_SECRET,
    )
    logs = tmp / f"serve-{topic}"
    logs.mkdir()
    servers = ApiProcesses(env, logs, argv=_serve_argv)
    try:
        servers.start(n, lambda url: {"ARBITER_ADVERTISED_URL": url})
        if ownership == "group":
            _settled(servers.urls)
    except BaseException:
        servers.stop()
        raise
    return servers


_SECRET = "bench-forward-secret"


def _settled(urls: list[str], timeout_s: float = 90.0) -> None:
    """Wait until every process sees the same assignment of all partitions over `urls`."""
    deadline = time.monotonic() + timeout_s
    while True:
        views = [
            httpx.get(
                f"{u}/internal/log/ownership",
                headers={"x-arbiter-forward-secret": _SECRET},
                timeout=10,
            ).json()
            for u in urls
        ]
        owners = views[0]["owners"]
        if (
            len(owners) == PARTITIONS
            and set(owners.values()) == set(urls)
            and all(v["owners"] == owners for v in views)
        ):
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"the API processes did not settle their partitions: {views}")
        time.sleep(0.3)


def _forwarded(urls: list[str]) -> int:
    return sum(
        int(
            httpx.get(
                f"{u}/internal/log/ownership",
                headers={"x-arbiter-forward-secret": _SECRET},
                timeout=10,
            ).json()["forwarded"]
        )
        for u in urls
    )


def _cpu_seconds(servers: ApiProcesses) -> float:
    total = 0.0
    for proc in servers.procs:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def _post_clients(
    urls: list[str],
    headers: dict[str, str],
    tids: list[str],
    seconds: float,
    client: str = "http.client",
) -> dict[str, Any]:
    """`CLIENTS` threads, client i on `tids[i % len(tids)]` through `urls[i % len(urls)]`, each
    on its own keep-alive connection. `client`: `http.client` (the standard library's, about
    0.3 ms of this process's CPU per request) or `httpx` (about 1.5 ms: with 50 threads under
    one GIL on two shared cores the client was then the bottleneck; kept to compare)."""
    lat: list[list[float]] = [[] for _ in range(CLIENTS)]
    statuses: dict[int, int] = {}
    rules: dict[str, int] = {}
    lock = threading.Lock()
    stop_at = [0.0]
    t0 = [0.0]

    def go() -> None:
        t0[0] = time.perf_counter()
        stop_at[0] = t0[0] + seconds

    start = threading.Barrier(CLIENTS + 1, action=go)

    tag = uuid.uuid4().hex[:8]

    def record(code: int, body: bytes, ms: float, i: int) -> None:
        with lock:
            statuses[code] = statuses.get(code, 0) + 1
            if code not in (201, -1):
                try:
                    rule = f"{code} {orjson.loads(body).get('error', {}).get('rule', '?')}"
                except Exception:
                    rule = f"{code} ?"
                rules[rule] = rules.get(rule, 0) + 1
        if code == 201:
            lat[i].append(ms)

    def with_httpx(i: int) -> None:
        url = f"{urls[i % len(urls)]}/tournaments/{tids[i % len(tids)]}/commands"
        with httpx.Client(headers=headers, timeout=60) as http:
            start.wait()
            n = 0
            while time.perf_counter() < stop_at[0]:
                t = time.perf_counter()
                body = b""
                try:
                    r = http.post(url, json=_ruling(i, n, tag))
                    code, body = r.status_code, r.content
                except httpx.HTTPError:
                    code = -1
                n += 1
                record(code, body, (time.perf_counter() - t) * 1000, i)

    def with_http_client(i: int) -> None:
        base = urlsplit(urls[i % len(urls)])
        path = f"/tournaments/{tids[i % len(tids)]}/commands"
        head = {**headers, "content-type": "application/json"}
        conn = http.client.HTTPConnection(base.hostname, base.port, timeout=60)
        start.wait()
        n = 0
        try:
            while time.perf_counter() < stop_at[0]:
                t = time.perf_counter()
                body = b""
                try:
                    conn.request("POST", path, orjson.dumps(_ruling(i, n, tag)), head)
                    r = conn.getresponse()
                    code, body = r.status, r.read()
                except (OSError, http.client.HTTPException):
                    conn.close()  # reconnects on the next request
                    code = -1
                n += 1
                record(code, body, (time.perf_counter() - t) * 1000, i)
        finally:
            conn.close()

    target = with_httpx if client == "httpx" else with_http_client
    threads = [threading.Thread(target=target, args=(i,), daemon=True) for i in range(CLIENTS)]
    for t in threads:
        t.start()
    cpu0 = time.process_time()
    start.wait()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0[0]
    cpu = time.process_time() - cpu0
    ok = [x for xs in lat for x in xs]
    return {
        "events": len(ok),
        "seconds": round(elapsed, 3),
        "events_per_s": rate(len(ok), elapsed),
        **dist(ok),
        "status_409": statuses.get(409, 0),
        "refusals": rules,
        "other_non_201": {str(k): v for k, v in statuses.items() if k not in (201, 409)},
        "client": client,
        "client_cpu_ms_per_request": round(cpu * 1000 / max(1, sum(statuses.values())), 3),
    }


def log_transactions(bootstrap: str, topic: str) -> dict[str, Any]:
    """Transactions and events on `topic`, counted from the log: with `read_committed`, each
    committed transaction's records are consecutive offsets followed by its commit marker (an
    offset no record has), so the transactions are the runs of consecutive record offsets."""
    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap,
        api_version=API_VERSION,
        isolation_level="read_committed",
        enable_auto_commit=False,
    )
    try:
        tps = [TopicPartition(topic, p) for p in sorted(consumer.partitions_for_topic(topic))]
        consumer.assign(tps)
        consumer.seek_to_beginning(*tps)
        ends = consumer.end_offsets(tps)
        last: dict[int, int] = {}
        events = runs = 0
        while any(consumer.position(tp) < ends[tp] for tp in tps):
            for tp, recs in consumer.poll(timeout_ms=500, max_records=10_000).items():
                for rec in recs:
                    events += 1
                    if last.get(tp.partition, -2) != rec.offset - 1:
                        runs += 1
                    last[tp.partition] = rec.offset
    finally:
        consumer.close()
    return {
        "events": events,
        "transactions": runs,
        "events_per_transaction": round(events / runs, 2) if runs else 0,
    }


def _api_run(
    bootstrap: str,
    n: int,
    layout: str,
    seconds: float,
    tmp: Path,
    topics: list[str],
    client: str = "http.client",
    ownership: str = "single",
) -> dict[str, Any]:
    from services.commands.auth import TokenStore

    topic = f"arbiter.bench.http.{n}p.{layout}.{uuid.uuid4().hex[:8]}"
    topics.append(topic)
    token_db = tmp / f"tokens-{n}-{layout}.sqlite3"
    token, _ = TokenStore(token_db).create("admin", "chief")
    headers = {"Authorization": f"Bearer {token}"}
    tids = ["bench-t0"] if layout == "one_tournament" else [f"bench-t{i}" for i in range(CLIENTS)]
    progress("http_kafka", f"{n} process(es), {layout}, {seconds} s")
    servers = _servers(n, bootstrap, topic, tmp, token_db, ownership)
    try:
        for k, tid in enumerate(tids):  # each tournament created once, through the processes
            body = {"type": "TournamentCreated", "payload": {"name": tid, "format": "swiss"}}
            url = servers.urls[k % n]
            r = httpx.post(f"{url}/tournaments/{tid}/commands", json=body, headers=headers)
            r.raise_for_status()
        warm = _post_clients(servers.urls, headers, tids, min(1.0, seconds / 4), client)  # noqa: F841
        before = log_transactions(bootstrap, topic)
        fwd0 = _forwarded(servers.urls) if ownership == "group" else 0
        cpu0 = _cpu_seconds(servers)
        out = _post_clients(servers.urls, headers, tids, seconds, client)
        cpu = _cpu_seconds(servers) - cpu0
        if ownership == "group":
            out["forwarded"] = _forwarded(servers.urls) - fwd0
        after = log_transactions(bootstrap, topic)
    finally:
        servers.stop()
    txns = after["transactions"] - before["transactions"]
    evs = after["events"] - before["events"]
    out["processes"] = n
    out["ownership"] = ownership
    out["server_cpu_ms_per_event"] = round(cpu * 1000 / out["events"], 3) if out["events"] else None
    out["log"] = {
        "events": evs,
        "transactions": txns,
        "events_per_transaction": round(evs / txns, 2) if txns else 0,
    }
    return out


def _log_alone(bootstrap: str, layout: str, seconds: float, topics: list[str]) -> dict[str, Any]:
    """50 threads calling the log's own append, in this process (kafka_append's peer)."""
    topic = f"arbiter.bench.http.log.{layout}.{uuid.uuid4().hex[:8]}"
    topics.append(topic)
    tids = ["bench-t0"] if layout == "one_tournament" else [f"bench-t{i}" for i in range(CLIENTS)]
    conditional = layout != "one_tournament"
    actor = Actor(id="bench", role="arbiter")
    progress("http_kafka", f"log alone, {layout}, {seconds} s")
    log = KafkaEventLog(bootstrap, topic=topic, partitions=PARTITIONS, **_OPTIONS)
    try:
        for tid in tids:
            log.append(
                tid, [new_event(ev.TournamentCreated(name=tid, format="swiss"), actor=actor)]
            )
        lat: list[list[float]] = [[] for _ in range(CLIENTS)]
        stop_at = [0.0]
        t0 = [0.0]

        def go() -> None:
            t0[0] = time.perf_counter()
            stop_at[0] = t0[0] + seconds

        start = threading.Barrier(CLIENTS + 1, action=go)
        before = (
            sum(p.transactions for p in log._parts),
            sum(p.events_written for p in log._parts),
        )

        def client(i: int) -> None:
            tid = tids[i % len(tids)]
            seq = log.last_seq(tid) if conditional else None
            start.wait()
            n = 0
            while time.perf_counter() < stop_at[0]:
                e: NewEvent = new_event(ev.RulingIssued(**_ruling(i, n)["payload"]), actor=actor)
                n += 1
                t = time.perf_counter()
                res = log.append(tid, [e], expected_seq=seq)
                lat[i].append((time.perf_counter() - t) * 1000)
                if conditional:
                    seq = res.last_seq

        threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(CLIENTS)]
        for t in threads:
            t.start()
        start.wait()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - t0[0]
        txns = sum(p.transactions for p in log._parts) - before[0]
        evs = sum(p.events_written for p in log._parts) - before[1]
    finally:
        log.close()
    ok = [x for xs in lat for x in xs]
    return {
        "events": len(ok),
        "seconds": round(elapsed, 3),
        "events_per_s": rate(len(ok), elapsed),
        **dist(ok),
        "expected_seq": conditional,
        "log": {
            "events": evs,
            "transactions": txns,
            "events_per_transaction": round(evs / txns, 2) if txns else 0,
        },
    }


def run(
    seconds: float,
    processes: list[int],
    bootstrap: str,
    layouts: tuple[str, ...] = ("one_tournament", "spread"),
    client: str = "http.client",
    ownership: str = "single",
) -> dict[str, Any]:
    topics: list[str] = []
    doc: dict[str, Any] = {
        "clients": CLIENTS,
        "partitions": PARTITIONS,
        "seconds_per_run": seconds,
        "command": "RulingIssued, no expected_seq",
        "ownership": ownership,
        "client": client,
        "log_alone": {},
        "api": {},
    }
    try:
        with tempfile.TemporaryDirectory(prefix="bench-http-kafka-") as tmp:
            for layout in layouts:
                peer = _log_alone(bootstrap, layout, seconds, topics)
                doc["log_alone"][layout] = peer
                rows = {}
                for n in processes:
                    row = _api_run(
                        bootstrap, n, layout, seconds, Path(tmp), topics, client, ownership
                    )
                    row["ratio_to_log_alone"] = ratio(row["events_per_s"], peer["events_per_s"])
                    rows[f"{n}_process"] = row
                first = rows.get(f"{processes[0]}_process")
                for row in rows.values():
                    if first is not None:
                        row["ratio_to_first"] = ratio(row["events_per_s"], first["events_per_s"])
                doc["api"][layout] = rows
    finally:
        delete_topics(bootstrap, topics)
    return doc


def main(argv: list[str] | None = None, emit: bool = True) -> dict[str, Any]:
    p = argparse.ArgumentParser(prog="python -m tests.bench.http_kafka")
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--quick", action="store_true", help="4 s per run")
    p.add_argument("--processes", default="1,2,3")
    p.add_argument(
        "--layouts", default="one_tournament,spread", help="one_tournament, spread or both"
    )
    p.add_argument("--client", default="http.client", choices=("http.client", "httpx"))
    p.add_argument(
        "--ownership",
        default="single",
        choices=("single", "group"),
        help="ARBITER_KAFKA_OWNERSHIP of the API processes",
    )
    args = p.parse_args(argv)
    bootstrap = os.environ.get("KAFKA_BOOTSTRAP")
    if not bootstrap:
        doc: dict[str, Any] = {"skipped": "KAFKA_BOOTSTRAP is not set (deploy/kafka/start)"}
    else:
        seconds = 4.0 if args.quick else args.seconds
        procs = [int(x) for x in args.processes.split(",")]
        doc = run(
            seconds,
            procs,
            bootstrap,
            tuple(args.layouts.split(",")),
            args.client,
            args.ownership,
        )
    if emit:
        print(json.dumps(doc, indent=2))
    return doc


if __name__ == "__main__":
    main()
