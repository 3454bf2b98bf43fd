"""Many workers per processor (issue 11 item 3): processes of one processor in one consumer
group split the events partitions; each restores and folds only the partitions it is
assigned and forgets the ones revoked; across a kill -9 of a worker mid-stream and a worker
added back, the output converges byte for byte to the clean replay and no projection version
goes backwards or repeats with another body. The snapshots the workers wrote, each only for
the partitions it owned, then restore a single worker without a rebuild.

Real `arbiter processor standings` subprocesses (one data dir each) on the real broker;
the checkers of test_processors.py and test_processor_snapshots.py."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from bench.standings import league_events, swiss_events
from kafka import KafkaConsumer, TopicPartition
from test_processors import REPO, Checker, Procs
from tests_support import fresh_kafka_log, never_backwards, processor_args, read_topic

from services.eventlog.kafka import KafkaEventLog, partition_for
from services.projection.processors import snapshots

pytestmark = pytest.mark.kafka

NAME = "standings"
PARTITIONS = 8


class Workers(Procs):
    """Workers of the one processor NAME, each with its own data dir (`tmp/<worker>`)."""

    def start(self, *names: str) -> None:
        for name in names:
            n = self.starts[name] = self.starts.get(name, 0) + 1
            data = self.tmp / name
            (data / NAME).mkdir(parents=True, exist_ok=True)
            (data / NAME / "status.json").unlink(missing_ok=True)
            with open(self.tmp / f"{name}.{n}.log", "wb") as logf:
                self.procs[name] = subprocess.Popen(
                    [sys.executable, *processor_args(NAME, self.bootstrap, self.topic, data)],
                    cwd=REPO,
                    stdout=logf,
                    stderr=subprocess.STDOUT,
                    env={**os.environ, **self.env},
                )

    def status(self, name: str) -> dict[str, Any] | None:
        try:
            return dict(orjson.loads((self.tmp / name / NAME / "status.json").read_bytes()))
        except (FileNotFoundError, orjson.JSONDecodeError):
            return None

    def settled(self, timeout: float = 90) -> dict[str, dict[str, Any]]:
        """Wait until the running workers' assignments are restored, disjoint, cover every
        partition and come from one generation; their statuses."""
        deadline = time.monotonic() + timeout
        while True:
            self.assert_alive()
            sts = {n: self.status(n) for n in self.procs}
            if all(
                st is not None and st["pid"] == self.procs[n].pid and st["start"]
                for n, st in sts.items()
            ):
                ok = {n: st for n, st in sts.items() if st is not None}
                parts = [p for st in ok.values() for p in st["assigned"]]
                if (
                    sorted(parts) == list(range(PARTITIONS))
                    and len({st["generation"] for st in ok.values()}) == 1
                ):
                    return ok
            assert time.monotonic() < deadline, f"not settled: {sts}\n{self.logs()}"
            time.sleep(0.3)


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[tuple[str, str, KafkaEventLog, Workers]]:
    with fresh_kafka_log("workers", PARTITIONS) as (bootstrap, topic, log):
        procs = Workers(bootstrap, topic, tmp_path)
        try:
            yield bootstrap, topic, log, procs
        finally:
            procs.stop_all()


def _tournaments() -> dict[str, list[Any]]:
    """Two tournaments in every partition: a long league and a short Swiss."""
    league, swiss = league_events(4, 1, max_plies=60), swiss_events(16, 5)
    per: dict[int, list[str]] = {p: [] for p in range(PARTITIONS)}
    i = 0
    while any(len(v) < 2 for v in per.values()):
        tid = f"w{i}"
        p = partition_for(tid, PARTITIONS)
        if len(per[p]) < 2:
            per[p].append(tid)
        i += 1
    return {tid: (league if k == 0 else swiss) for v in per.values() for k, tid in enumerate(v)}


def _chunks(tours: dict[str, list[Any]], rounds: int) -> list[list[tuple[str, list[Any]]]]:
    """The appends in `rounds` rounds, each a chunk of every tournament (interleaved)."""
    out: list[list[tuple[str, list[Any]]]] = [[] for _ in range(rounds)]
    for tid, events in tours.items():
        size = -(-len(events) // rounds)
        for r in range(rounds):
            if chunk := events[r * size : (r + 1) * size]:
                out[r].append((tid, chunk))
    return out


def _ends(bootstrap: str, topic: str) -> dict[int, int]:
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None)
    try:
        tps = [TopicPartition(topic, p) for p in range(PARTITIONS)]
        return {tp.partition: o for tp, o in consumer.end_offsets(tps).items()}
    finally:
        consumer.close()


def test_three_workers_kill9_and_a_new_one_converge_to_the_clean_replay(workers):
    from builders import new_event

    bootstrap, topic, log, procs = workers
    tours = _tournaments()
    rounds = _chunks(tours, 12)

    def append(r: int) -> None:
        for tid, chunk in rounds[r]:
            log.append(tid, [new_event(e) for e in chunk])

    append(0)  # some history before the workers start
    procs.env = {"ARBITER_SNAPSHOT_EVERY": "0.5"}
    procs.start("w1", "w2", "w3")
    first = procs.settled()
    assert all(st["assigned"] for st in first.values()), first  # 8 partitions, 3 workers

    halfway, killed = threading.Event(), threading.Event()

    def writer() -> None:
        for r in range(1, 6):
            append(r)
            time.sleep(0.3)
        halfway.set()
        assert killed.wait(120), "no worker was killed"
        for r in range(6, len(rounds)):
            append(r)
            time.sleep(0.8)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert halfway.wait(120)
        victim = procs.status("w2")
        assert victim is not None and victim["assigned"]
        procs.kill9("w2")  # mid-stream: its partitions move after the session timeout
        killed.set()
        after_kill = procs.settled()
        assert set(after_kill) == {"w1", "w3"}
        procs.start("w4")  # a worker added: the group rebalances again
        final = procs.settled()
        assert set(final) == {"w1", "w3", "w4"} and final["w4"]["assigned"], final
    finally:
        thread.join(timeout=180)
    assert not thread.is_alive()

    checker = Checker(bootstrap, topic, (NAME,))
    checker.wait_converged(procs, timeout=120)
    assert never_backwards(bootstrap, topic, NAME) == []
    final = procs.settled()
    for name, st in final.items():
        assert st["gaps"] == 0 and st["held"] == {} and st["unreadable"] == {}, (name, st)
        # A worker holds only its own partitions' tournaments, and restored only those.
        mine = set(st["assigned"])
        assert {partition_for(t, PARTITIONS) for t in st["tournaments"]} <= mine, (name, st)
        assert set(st["start"]["new_partitions"]) <= mine
        assert st["assignments"] >= 1

    # Each manifest of the snapshot topic is a partition's own, from a worker that owned it;
    # once the survivors have checkpointed their partitions to the end, one worker alone
    # restores all eight from what the three wrote: nothing rebuilt, nothing republished.
    ends = _ends(bootstrap, topic)

    def covered(st: dict[str, Any]) -> bool:
        # (a live batch covers up to its last record; the commit marker after it is not one)
        return all(st["snapshot_covers"].get(str(p), -1) >= ends[p] - 1 for p in st["assigned"])

    for name in final:
        procs.wait_status(name, covered)
    owners = set()
    for rec in read_topic(bootstrap, f"{topic}.snapshot.{NAME}"):
        if rec.key.startswith(b"p:") and rec.value is not None:
            header, _ = snapshots.decode(rec.value)
            assert header["partition"] == int(rec.key[2:])
            owners.add(header["owner"])
    assert len(owners) >= 2, owners  # more than one worker wrote manifests
    counts = checker.counts()
    for name in list(procs.procs):
        procs.stop(name)
    procs.start("solo")
    st = procs.settled()["solo"]
    assert st["start"]["mode"] == "restore", (st["start"]["rebuilt"], st["start"])
    assert st["rebuild_published"] == 0
    checker.wait_converged(procs)
    assert checker.counts() == counts
    assert never_backwards(bootstrap, topic, NAME) == []
