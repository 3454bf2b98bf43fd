"""Fault tests against a real three-broker Kafka cluster (KRaft, every node broker+controller),
started by this file with `KAFKA_BROKERS=3 deploy/kafka/start` in a temporary state dir on free
ports, its nodes killed and restarted with `deploy/kafka/node`, and always stopped at the end.

    KAFKA_CLUSTER_TESTS=1 pytest tests/integration/eventlog/test_kafka_cluster.py -s

(also run when ARBITER_REQUIRE_KAFKA=1, as in CI). What is checked, with a writer appending one
event per call the whole time:

- kill -9 of the leader of the events partition: every acknowledged event is stored exactly
  once, the stream is gapless and its hash chain intact, and appends resume after the election.
  The pause (longest gap between two successful appends from the kill on) is printed and
  written to `kafka_cluster_figures.json` in pytest's base temp dir.
- kill -9 of two of the three nodes: appends are refused with `EventLogUnavailable` in bounded
  time; an event whose append was refused is absent, or present once if its refusal said
  `maybe_committed`; after the two come back appends continue and the chain is intact.

No assertion depends on timing except generous upper bounds.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import random
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from builders import new_event, player, small_tournament
from kafka import KafkaAdminClient, KafkaConsumer, TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType

from events_schema import GENESIS_HASH, Envelope
from events_schema.envelope import envelope_from_bytes
from events_schema.limits import KIB
from services.eventlog.base import EventLogUnavailable, NewEvent
from services.eventlog.kafka import API_VERSION, KafkaEventLog, KafkaUnavailable, partition_for

pytestmark = [
    pytest.mark.kafka,
    pytest.mark.skipif(
        os.environ.get("KAFKA_CLUSTER_TESTS") != "1"
        and os.environ.get("ARBITER_REQUIRE_KAFKA") != "1",
        reason="starts a three-broker cluster: set KAFKA_CLUSTER_TESTS=1",
    ),
]

REPO = Path(__file__).resolve().parents[3]
NODES = 3
PARTITIONS = 3


# -- the cluster ---------------------------------------------------------------------------


def _free_base_port() -> int:
    """A port P such that P..P+5 (three nodes: client and controller ports) are free."""
    for _ in range(200):
        base = random.randrange(20_000, 60_000, 2)
        try:
            for port in range(base, base + 2 * NODES):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port))
        except OSError:
            continue
        return base
    raise RuntimeError("no free port range")


@dataclass
class Cluster:
    env: dict[str, str]
    bootstrap: str = ""

    def run(self, *args: str, timeout: float = 180) -> str:
        cmd = args[0]
        proc = subprocess.run(
            [str(REPO / "deploy/kafka" / cmd), *args[1:]],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        assert proc.returncode == 0, f"{' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}"
        return proc.stdout

    def kill(self, node: int) -> None:
        self.run("node", "kill", str(node))

    def start(self, node: int) -> None:
        self.run("node", "start", str(node))

    def active_controller(self) -> int:
        admin = self.admin()
        try:
            quorum = admin.describe_metadata_quorum()
        finally:
            admin.close()
        return int(quorum["topics"][0]["partitions"][0]["leader_id"])

    def wait_all_brokers(self, timeout: float = 60) -> None:
        """Until every node is in the cluster's metadata (a node that says "started" can take
        a moment to appear in the other nodes' view)."""
        deadline = time.monotonic() + timeout
        for address in self.bootstrap.split(","):  # every node's own view
            while True:
                admin = self.admin(address)
                try:
                    if len(admin.describe_cluster()["brokers"]) == NODES:
                        break
                finally:
                    admin.close()
                assert time.monotonic() < deadline, "not every node is in the metadata"
                time.sleep(0.2)

    def admin(self, bootstrap: str | None = None) -> KafkaAdminClient:
        return KafkaAdminClient(
            bootstrap_servers=bootstrap or self.bootstrap,
            api_version=API_VERSION,
            request_timeout_ms=5000,
        )

    def leader(self, topic: str, partition: int) -> int:
        admin = self.admin()
        try:
            info = admin.describe_topics([topic])[0]
        finally:
            admin.close()
        (p,) = [p for p in info["partitions"] if p["partition_index"] == partition]
        return int(p["leader_id"])


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    env = dict(os.environ)
    env.update(
        KAFKA_BROKERS=str(NODES),
        KAFKA_PORT=str(_free_base_port()),
        KAFKA_STATE_DIR=str(tmp_path_factory.mktemp("kafka-cluster")),
        KAFKA_HEAP_OPTS="-Xms128m -Xmx512m",
        KAFKA_STOP_TIMEOUT="5",
    )
    env.pop("KAFKA_KEEP_DATA", None)
    c = Cluster(env)
    try:
        out = c.run("start")
        c.bootstrap = out.strip().splitlines()[-1].removeprefix("KAFKA_BOOTSTRAP=")
        assert c.bootstrap.count(",") == NODES - 1
        c.wait_all_brokers()
        yield c
    finally:
        subprocess.run([str(REPO / "deploy/kafka/stop")], env=env, timeout=120, check=False)


def _figures_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.getbasetemp() / "kafka_cluster_figures.json"


def _record_figure(tmp_path_factory: pytest.TempPathFactory, name: str, value: Any) -> None:
    path = _figures_file(tmp_path_factory)
    figures = json.loads(path.read_text()) if path.exists() else {}
    figures[name] = value
    path.write_text(json.dumps(figures, indent=2, sort_keys=True))
    print(f"\n[kafka cluster] {name} = {value}  (recorded in {path})")


# -- a writer that appends while nodes die ---------------------------------------------------


@dataclass
class Outcome:
    event: NewEvent
    started: float
    ended: float
    ok: bool
    maybe_committed: bool = False
    error: str = ""


@dataclass
class Writer:
    """Appends one event per call to one tournament, in a thread, recording every outcome."""

    log: KafkaEventLog
    tid: str
    outcomes: list[Outcome] = field(default_factory=list)
    unexpected: list[BaseException] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None

    def run(self) -> None:
        i = 0
        while not self.stop.is_set():
            e = new_event(player(f"w{i}-{uuid.uuid4().hex[:6]}"))
            i += 1
            t0 = time.monotonic()
            try:
                self.log.append(self.tid, [e])
            except EventLogUnavailable as exc:
                maybe = bool(getattr(exc, "maybe_committed", True))
                assert isinstance(exc, KafkaUnavailable)
                self.outcomes.append(Outcome(e, t0, time.monotonic(), False, maybe, str(exc)))
                time.sleep(0.2)
            except BaseException as exc:
                self.unexpected.append(exc)
                return
            else:
                self.outcomes.append(Outcome(e, t0, time.monotonic(), True))

    def __enter__(self) -> Writer:
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        assert self.thread is not None
        self.thread.join(timeout=60)
        assert not self.thread.is_alive(), "the writer did not stop"

    def acked(self, since: float = 0.0) -> list[Outcome]:
        return [o for o in list(self.outcomes) if o.ok and o.ended >= since]

    def refused(self, since: float = 0.0) -> list[Outcome]:
        return [o for o in list(self.outcomes) if not o.ok and o.ended >= since]

    def wait(self, what: str, cond: Any, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not cond():
            assert not self.unexpected, f"the writer failed: {self.unexpected!r}"
            assert time.monotonic() < deadline, f"timed out waiting for {what}"
            time.sleep(0.1)


def _records(bootstrap: str, topic: str, partition: int) -> list[Any]:
    """Every committed record of one partition, in offset order (a raw read_committed
    consumer: duplicates a log's index would hide show up here)."""
    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap,
        api_version=API_VERSION,
        group_id=None,
        enable_auto_commit=False,
        isolation_level="read_committed",
        fetch_max_wait_ms=50,
    )
    try:
        tp = TopicPartition(topic, partition)
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        end = consumer.end_offsets([tp], timeout_ms=30_000)[tp]
        out: list[Any] = []
        deadline = time.monotonic() + 60
        while (consumer.position(tp, timeout_ms=5000) or 0) < end:
            assert time.monotonic() < deadline, f"could not read {topic}[{partition}]"
            out.extend(consumer.poll(timeout_ms=200).get(tp, []))
        return out
    finally:
        consumer.close()


def _check_stream(
    cluster: Cluster, log: KafkaEventLog, tid: str, writer: Writer, resent: frozenset = frozenset()
) -> None:
    """The stream as stored: gapless seqs 1..n in offset order, each event once, the hash
    chain intact; every acknowledged event in it once; a refused one absent unless its
    refusal said maybe_committed (then at most once) or it was `resent` since."""
    part = partition_for(tid, log.partitions)
    envs: list[Envelope] = [
        env
        for rec in _records(cluster.bootstrap, log.topic, part)
        if (env := envelope_from_bytes(rec.value)).tournament_id == tid
    ]
    assert [e.seq for e in envs] == list(range(1, len(envs) + 1)), "gap or duplicate seq"
    ids = [e.event_id for e in envs]
    assert len(set(ids)) == len(ids), "an event is stored twice"
    prev = GENESIS_HASH
    for env in envs:
        assert env.prev_hash == prev and env.computed_hash() == env.hash, f"chain at {env.seq}"
        prev = env.hash
    stored = set(ids)
    for o in writer.outcomes:
        if o.ok:
            assert o.event.event_id in stored, f"acknowledged event lost: {o.event.event_id}"
        elif not o.maybe_committed and o.event.event_id not in resent:
            assert o.event.event_id not in stored, f"refused as not appended, yet stored: {o}"
    # A second, fresh instance (another process would be the same) reads the same stream.
    other = KafkaEventLog(cluster.bootstrap, topic=log.topic, partitions=PARTITIONS)
    try:
        assert [e.event_id for e in other.read(tid)] == ids
        assert other.last_seq(tid) == len(ids)
    finally:
        other.close()


def _open(cluster: Cluster, tid: str) -> KafkaEventLog:
    log = KafkaEventLog(
        cluster.bootstrap,
        topic=f"arbiter.test.cluster.{uuid.uuid4().hex[:10]}",
        partitions=PARTITIONS,
        replication_factor=NODES,
    )
    log.append(tid, [new_event(e) for e in small_tournament()[:3]])
    return log


# -- tests ---------------------------------------------------------------------------------


def test_topic_is_created_replicated(cluster: Cluster):
    log = KafkaEventLog(cluster.bootstrap, topic=f"arbiter.test.rf.{uuid.uuid4().hex[:10]}")
    try:
        assert log.replication_factor == 3
        admin = cluster.admin()
        try:
            (info,) = admin.describe_topics([log.topic])
            assert all(len(p["replica_nodes"]) == 3 for p in info["partitions"])
            res = ConfigResource(ConfigResourceType.TOPIC, log.topic)
            # The node asked may not know the new topic yet: ask until it does (bounded).
            deadline = time.monotonic() + 30
            while True:
                configs = admin.describe_configs([res])["topic"].get(log.topic) or {}
                if "min.insync.replicas" in configs or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
        finally:
            admin.close()
        got = {k: v["value"] for k, v in configs.items()}
        assert got["min.insync.replicas"] == "2"
        assert got["max.message.bytes"] == str(log.limits.max_event_bytes + 64 * KIB)
        assert got["retention.ms"] == "-1"
        assert got["unclean.leader.election.enable"] == "false"
    finally:
        log.close()


def test_kill_partition_leader_during_appends(
    cluster: Cluster, tmp_path_factory: pytest.TempPathFactory
):
    tid = "leader-kill"
    log = _open(cluster, tid)
    part = partition_for(tid, log.partitions)
    victim = cluster.leader(log.topic, part)
    was_controller = cluster.active_controller() == victim
    try:
        with Writer(log, tid) as writer:
            writer.wait("20 appends", lambda: len(writer.acked()) >= 20, 60)
            killed_at = time.monotonic()
            cluster.kill(victim)
            writer.wait("20 appends after the kill", lambda: len(writer.acked(killed_at)) >= 20, 90)
        assert not writer.unexpected, writer.unexpected
        assert cluster.leader(log.topic, part) != victim
        # The pause: the longest gap between two successful appends from the kill on.
        done = [o.ended for o in writer.acked()]
        gaps = [b - a for a, b in itertools.pairwise(done) if b >= killed_at]
        pause = max(gaps)
        refused = writer.refused(killed_at)
        _record_figure(
            tmp_path_factory,
            "leader_kill",
            {
                "pause_s": round(pause, 2),
                "acked": len(writer.acked()),
                "refused_after_kill": len(refused),
                "append_timeout_s": log.APPEND_TIMEOUT_S,
                "victim_was_active_controller": was_controller,
            },
        )
        assert pause < 60
        _check_stream(cluster, log, tid, writer)
    finally:
        log.close()
        cluster.start(victim)
        cluster.wait_all_brokers()


def test_two_of_three_down_refuses_then_recovers(
    cluster: Cluster, tmp_path_factory: pytest.TempPathFactory
):
    tid = "quorum-loss"
    log = _open(cluster, tid)
    part = partition_for(tid, log.partitions)
    leader = cluster.leader(log.topic, part)
    victims = [leader, next(n for n in range(1, NODES + 1) if n != leader)]
    try:
        with Writer(log, tid) as writer:
            writer.wait("10 appends", lambda: len(writer.acked()) >= 10, 60)
            killed_at = time.monotonic()
            for n in victims:
                cluster.kill(n)
            # Refused, in bounded time, while two of three are down.
            writer.wait("2 refusals", lambda: len(writer.refused(killed_at)) >= 2, 120)
            refused = writer.refused(killed_at)
            slowest = max(o.ended - o.started for o in refused)
            assert slowest < log.APPEND_TIMEOUT_S + 15
            # A read meanwhile answers or is refused, never hangs.
            t0 = time.monotonic()
            with contextlib.suppress(EventLogUnavailable):
                log.last_seq(tid)
            read_s = time.monotonic() - t0
            assert read_s < log.READ_TIMEOUT_S + 15
            restarted_at = time.monotonic()
            for n in victims:
                cluster.start(n)
            cluster.wait_all_brokers()
            writer.wait(
                "10 appends after the restart",
                lambda: len(writer.acked(restarted_at)) >= 10,
                120,
            )
        assert not writer.unexpected, writer.unexpected
        _record_figure(
            tmp_path_factory,
            "two_of_three_down",
            {
                "refused": len(writer.refused(killed_at)),
                "refused_maybe_committed": sum(o.maybe_committed for o in writer.refused()),
                "slowest_refusal_s": round(slowest, 2),
                "read_while_down_s": round(read_s, 2),
                "acked_after_restart": len(writer.acked(restarted_at)),
            },
        )
        _check_stream(cluster, log, tid, writer)
        # A refused event resent with its id lands exactly once (or is a duplicate).
        resent = writer.refused()[:3]
        for o in resent:
            log.append(tid, [o.event])
        _check_stream(cluster, log, tid, writer, frozenset(o.event.event_id for o in resent))
    finally:
        log.close()
        for n in range(1, NODES + 1):
            cluster.start(n)  # no-op for a running node
        cluster.wait_all_brokers()
