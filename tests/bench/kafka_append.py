"""Kafka writer: group commit and the per-tournament read (issue 11 item 6), as one JSON document.

Needs a broker (`deploy/kafka/start`; `KAFKA_BOOTSTRAP=127.0.0.1:19092`). Every run uses fresh
topics `arbiter.bench.append.<hex>` and deletes them afterwards.

- `append`: `CLIENTS` (50) threads, each appending one MovePlayed per call to its own tournament
  with `expected_seq`, for `--seconds` each run, on a topic of 1 partition (every client in one
  partition's groups) and of 8 (the default): events/s, append-call p50/p99 ms, and the groups
  the writer formed (events per transaction).
- `raw_peer`: on the same broker, in the same run, the same bytes (the stored envelopes of the
  run, re-sent) through a bare kafka-python producer, with no event log around it:
  `transactional` (one transactional producer per partition, as the log has, each in its own
  thread, committing transactions of the run's mean group size; acks=all, idempotent; no
  wait for visibility) and `plain` (acks=all, idempotent, no transaction). The ratios are the
  log's events/s over the peer's.
- `read_*`: `read()` of tournaments in a new log instance (its first read of a partition
  builds the index), the same again with the index warm, the whole-range scan the log did
  before its index served reads (every record from the tournament's first offset to its last,
  filtered), and `read_all()` of the same topic. Two layouts: `interleaved_singles` (the
  1-partition topic the append run filled: 50 tournaments, one event per transaction each,
  interleaved — the worst case for a per-tournament read, where every own event is a seek or
  within a short scan; 10 of them are read) and `batched_20` (20,000 events of 100
  tournaments appended in batches of 20, round-robin, over 8 partitions; all read).

- `read_after_append` (issue 27 item 1): one client appending one event to a tournament and
  reading the tournament straight after, `N` times (a 1-partition topic): the read's ms p50/p99
  and fetch rounds per read, beside its peers in the same run: the append call itself, and one
  bare `end_offsets` round trip (what asking the last stable offset costs). Before the fix the
  read waited out a 200 ms poll for the record the commit marker stands in for.

Run: `python -m tests.bench.kafka_append [--seconds S] [--quick] [--read-after-append-only]`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

_repo = Path(__file__).resolve().parents[2]
for _p in (_repo / "tests", _repo):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from kafka import KafkaProducer  # noqa: E402

from services.eventlog.base import NewEvent  # noqa: E402
from services.eventlog.kafka import (  # noqa: E402
    API_VERSION,
    DEFAULT_GROUP_COMMIT_MS,
    KafkaEventLog,
)
from tests.bench.kafka_common import (  # noqa: E402
    CLIENTS,
    delete_topics,
    fresh_topic,
    log_options,
    progress,
    rate,
    ratio,
)
from tests.bench.runner import MoveFactory, dist  # noqa: E402

_OPTIONS = log_options()


def _appenders(
    log: KafkaEventLog, tids: list[str], events: list[list[NewEvent]], seconds: float
) -> dict[str, Any]:
    """One thread per tournament, one event per append, for `seconds`."""
    lat: list[list[float]] = [[] for _ in tids]
    errors: list[BaseException] = []
    stop_at = [0.0]
    t0 = [0.0]

    def go() -> None:  # when every client is ready (the barrier's action, before release)
        t0[0] = time.perf_counter()
        stop_at[0] = t0[0] + seconds

    start = threading.Barrier(len(tids) + 1, action=go)

    def client(i: int) -> None:
        seq = log.last_seq(tids[i])
        start.wait()
        try:
            for e in events[i]:
                if time.perf_counter() >= stop_at[0]:
                    break
                t = time.perf_counter()
                res = log.append(tids[i], [e], expected_seq=seq)
                lat[i].append((time.perf_counter() - t) * 1000)
                seq = res.last_seq
        except BaseException as exc:  # reported
            errors.append(exc)

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(len(tids))]
    for t in threads:
        t.start()
    start.wait()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0[0]
    all_ms = [x for xs in lat for x in xs]
    out: dict[str, Any] = {
        "clients": len(tids),
        "events": len(all_ms),
        "seconds": round(elapsed, 3),
        "events_per_s": rate(len(all_ms), elapsed),
        **dist(all_ms),
    }
    if errors:
        out["errors"] = [repr(e) for e in errors[:3]]
    return out


def _raw_transactional(
    bootstrap: str, topic: str, records: dict[int, list[tuple[bytes, bytes]]], per_txn: int
) -> dict[str, Any]:
    """One bare transactional producer per partition (as the log has), each in its own
    thread, committing transactions of `per_txn` records."""
    done: list[int] = []

    def run(partition: int, recs: list[tuple[bytes, bytes]]) -> None:
        producer = KafkaProducer(
            bootstrap_servers=bootstrap,
            api_version=API_VERSION,
            transactional_id=f"{topic}-raw-p{partition}",
            acks="all",
            enable_idempotence=True,
            linger_ms=5,
            batch_size=256 * 1024,
            retry_backoff_ms=5,
        )
        producer.init_transactions()
        start.wait()
        for i in range(0, len(recs), per_txn):
            producer.begin_transaction()
            for key, value in recs[i : i + per_txn]:
                producer.send(topic, key=key, value=value, partition=partition)
            producer.commit_transaction()
        done.append(len(recs))
        producer.close()

    start = threading.Barrier(len(records) + 1)
    threads = [threading.Thread(target=run, args=(p, r)) for p, r in records.items()]
    for t in threads:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    n = sum(done)
    return {
        "events": n,
        "producers": len(records),
        "events_per_transaction": per_txn,
        "seconds": round(elapsed, 3),
        "events_per_s": rate(n, elapsed),
    }


def _raw_plain(
    bootstrap: str, topic: str, records: dict[int, list[tuple[bytes, bytes]]]
) -> dict[str, Any]:
    producer = KafkaProducer(
        bootstrap_servers=bootstrap,
        api_version=API_VERSION,
        acks="all",
        enable_idempotence=True,
        linger_ms=5,
        batch_size=256 * 1024,
    )
    n = 0
    t0 = time.perf_counter()
    for partition, recs in records.items():
        for key, value in recs:
            producer.send(topic, key=key, value=value, partition=partition)
            n += 1
    producer.flush()
    elapsed = time.perf_counter() - t0
    producer.close()
    return {"events": n, "seconds": round(elapsed, 3), "events_per_s": rate(n, elapsed)}


def _scan_read(log: KafkaEventLog, tid: str) -> int:
    """The read before the index was used for it: every record from the stream's first
    offset to its last, keeping the stream's own."""
    part = log._part(tid)
    log._catch_up(part)
    offsets = part.streams[tid].offsets
    wanted = set(offsets)
    tp = log._tps[part.number]
    return sum(1 for off, _k, _v in log._records(tp, offsets[0], offsets[-1] + 1) if off in wanted)


def _reads(bootstrap: str, topic: str, partitions: int, tids: list[str]) -> dict[str, Any]:
    """`read()` of each of `tids` in a new log instance (the index built on the way), then
    again (index warm), then the whole-range scan of each, and `read_all()` of the topic."""
    log = KafkaEventLog(bootstrap, topic=topic, partitions=partitions, **_OPTIONS)
    try:
        t = time.perf_counter()
        n_cold = sum(sum(1 for _ in log.read(tid)) for tid in tids)
        cold_s = time.perf_counter() - t
        t = time.perf_counter()
        n_warm = sum(sum(1 for _ in log.read(tid)) for tid in tids)
        warm_s = time.perf_counter() - t
        t = time.perf_counter()
        n_scan = sum(_scan_read(log, tid) for tid in tids)
        scan_s = time.perf_counter() - t
        t = time.perf_counter()
        n_all = sum(1 for _ in log.read_all())
        all_s = time.perf_counter() - t
    finally:
        log.close()
    assert n_cold == n_warm == n_scan, (n_cold, n_warm, n_scan)
    warm, scan, read_all = rate(n_warm, warm_s), rate(n_scan, scan_s), rate(n_all, all_s)
    return {
        "events": n_all,
        "tournaments_read": len(tids),
        "events_read": n_warm,
        "read_events_per_s": warm,
        "read_new_process_events_per_s": rate(n_cold, cold_s),
        "read_whole_range_scan_events_per_s": scan,
        "read_all_events_per_s": read_all,
        "read_over_read_all": ratio(warm, read_all),
        "read_over_whole_range_scan": ratio(warm, scan),
    }


def _batched_topic(
    bootstrap: str, factory: MoveFactory, total: int, partitions: int, tournaments: int
) -> tuple[str, list[str]]:
    """A topic holding `total` events of `tournaments` tournaments, appended in batches of
    20, round-robin (tournaments whose events come in small batches: moves of several
    boards, a round's pairings)."""
    topic = fresh_topic("append", "batched")
    tids = [f"bt-{i:03d}" for i in range(tournaments)]
    log = KafkaEventLog(bootstrap, topic=topic, partitions=partitions, **_OPTIONS)
    try:
        evs = factory.events(total)
        for k, i in enumerate(range(0, total, 20)):
            log.append(tids[k % len(tids)], evs[i : i + 20])
    finally:
        log.close()
    return topic, tids


def _groups(log: KafkaEventLog, before: dict[int, tuple[int, int]]) -> dict[str, Any]:
    txns = sum(p.transactions for p in log._parts) - sum(t for t, _ in before.values())
    evs = sum(p.events_written for p in log._parts) - sum(e for _, e in before.values())
    return {"transactions": txns, "events_per_transaction": round(evs / txns, 1) if txns else 0}


def _stored(log: KafkaEventLog) -> dict[int, list[tuple[bytes, bytes]]]:
    """Every stored record of the log's topic, by partition (the raw peers' input)."""
    out: dict[int, list[tuple[bytes, bytes]]] = {}
    for part in log._parts:
        tp = log._tps[part.number]
        recs = [(k or b"", v) for _o, k, v in log._records(tp, 0, log._end_offset(tp))]
        if recs:
            out[part.number] = recs
    return out


def _append_run(
    bootstrap: str, factory: MoveFactory, partitions: int, seconds: float
) -> tuple[str, list[str], dict[str, Any]]:
    topic = fresh_topic("append", f"p{partitions}")
    tids = [f"ct-{i:02d}" for i in range(CLIENTS)]
    per_client = int(seconds * 120) + 50  # more than a client can append in the time
    events = [factory.events(per_client) for _ in range(CLIENTS)]
    log = KafkaEventLog(bootstrap, topic=topic, partitions=partitions, **_OPTIONS)
    try:
        for tid in tids:  # the writers initialised and warm, as in a running server
            log.append(tid, factory.events(1))
        before = {p.number: (p.transactions, p.events_written) for p in log._parts}
        progress("kafka_append", f"{CLIENTS} clients, {partitions} partition(s), {seconds} s")
        res = _appenders(log, tids, events, seconds)
        res.update(_groups(log, before))
        records = _stored(log)
    finally:
        log.close()
    progress("kafka_append", f"raw peers: {sum(len(r) for r in records.values())} records")
    raw_topic = fresh_topic("append", f"raw{partitions}")
    KafkaEventLog(bootstrap, topic=raw_topic, partitions=partitions, **_OPTIONS).close()
    try:
        per_txn = max(1, round(res["events_per_transaction"]))
        raw_txn = _raw_transactional(bootstrap, raw_topic, records, per_txn)
        raw_plain = _raw_plain(bootstrap, raw_topic, records)
    finally:
        delete_topics(bootstrap, [raw_topic])
    res["raw_peer"] = {
        "transactional": raw_txn,
        "plain": raw_plain,
        "log_over_transactional": ratio(res["events_per_s"], raw_txn["events_per_s"]),
        "log_over_plain": ratio(res["events_per_s"], raw_plain["events_per_s"]),
    }
    return topic, tids, res


def _read_after_append(bootstrap: str, factory: MoveFactory, n: int) -> dict[str, Any]:
    topic = fresh_topic("append", "stall")
    log = KafkaEventLog(bootstrap, topic=topic, partitions=1, **_OPTIONS)
    try:
        from builders import created, new_event

        log.append("r", [new_event(created())])
        list(log.read("r"))  # warm: metadata, connections, the writer
        appends: list[float] = []
        reads: list[float] = []
        rounds: list[int] = []
        for e in factory.events(n):
            t0 = time.perf_counter()
            log.append("r", [e])
            t1 = time.perf_counter()
            before = log.fetch_rounds
            got = list(log.read("r"))
            t2 = time.perf_counter()
            assert got[-1].event_id == e.event_id
            rounds.append(log.fetch_rounds - before)
            appends.append((t1 - t0) * 1000)
            reads.append((t2 - t1) * 1000)
        tp = log._tps[0]
        lso: list[float] = []
        for _ in range(n):
            t0 = time.perf_counter()
            log._reader.end_offsets([tp])
            lso.append((time.perf_counter() - t0) * 1000)
    finally:
        log.close()
        delete_topics(bootstrap, [topic])
    return {
        "reads": n,
        "read_ms": dist(reads),
        "fetch_rounds_per_read": {"max": max(rounds), "mean": round(sum(rounds) / n, 2)},
        "peer_append_ms": dist(appends),
        "peer_end_offsets_ms": dist(lso),
    }


def run(seconds: float, quick: bool, bootstrap: str) -> dict[str, Any]:
    factory = MoveFactory(2026)
    window = float(os.environ.get("ARBITER_KAFKA_GROUP_COMMIT_MS", DEFAULT_GROUP_COMMIT_MS))
    doc: dict[str, Any] = {"bootstrap": bootstrap, "group_commit_ms": window}
    created: list[str] = []
    progress("kafka_append", "read after append")
    doc["read_after_append"] = _read_after_append(bootstrap, factory, 50 if quick else 200)
    try:
        topic1, tids1, doc["append_1_partition"] = _append_run(bootstrap, factory, 1, seconds)
        created.append(topic1)
        topic8, _tids8, doc["append_8_partitions"] = _append_run(bootstrap, factory, 8, seconds)
        created.append(topic8)
        progress("kafka_append", "reads: the interleaved topic")
        doc["read_interleaved_singles_1_partition"] = _reads(bootstrap, topic1, 1, tids1[:10])
        total = 4_000 if quick else 20_000
        progress(
            "kafka_append",
            f"reads: {total} events of 100 tournaments in batches of 20, 8 partitions",
        )
        batched_topic, btids = _batched_topic(bootstrap, factory, total, 8, 100)
        created.append(batched_topic)
        doc["read_batched_20_8_partitions"] = _reads(bootstrap, batched_topic, 8, btids)
    finally:
        delete_topics(bootstrap, created)
    return doc


def main(argv: list[str] | None = None, emit: bool = True) -> dict[str, Any]:
    ap = argparse.ArgumentParser(prog="python -m tests.bench.kafka_append")
    ap.add_argument("--seconds", type=float, default=None, help="per append run (default 10)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--read-after-append-only", action="store_true")
    args = ap.parse_args(argv)
    bootstrap = os.environ.get("KAFKA_BOOTSTRAP")
    if not bootstrap:
        doc: dict[str, Any] = {"skipped": "no KAFKA_BOOTSTRAP"}
    else:
        seconds = args.seconds if args.seconds is not None else (3.0 if args.quick else 10.0)
        if args.read_after_append_only:
            doc = {"read_after_append": _read_after_append(bootstrap, MoveFactory(2026), 200)}
        else:
            doc = run(seconds, args.quick, bootstrap)
    if emit:
        print(json.dumps(doc, indent=2))
    return doc


if __name__ == "__main__":
    main()
