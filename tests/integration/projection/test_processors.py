"""The four projection processors as real subprocesses (`arbiter processor NAME`) against the
real broker: what they publish equals the clean replay, after kill -9 mid-stream, after
redeliveries and offset resets, across a gap, and across a broker restart that keeps data.

"Equals the clean replay" (checked by `_problems`): for every tournament and projection the
latest message on the compacted output topic is byte-for-byte `replay(events[:as_of_seq])`,
carries PROJECTION_VERSION, and its data is the data of `replay(all events)` (a processor
publishes only when a projection's data changed, so `as_of_seq` may trail the stream's end).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from bench.standings import swiss_events
from builders import new_event
from conftest import kafka_bootstrap
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.structs import OffsetAndMetadata
from tests_support import (
    append_in_batches,
    fresh_kafka_log,
    output_topic,
    processor_args,
    processor_tournaments,
    read_topic,
    tail_logs,
    terminate,
)

from events_schema import Envelope
from events_schema.codec import dumps, loads
from events_schema.envelope import envelope_from_bytes
from events_schema.ids import GENESIS_HASH
from projections.documents import PROJECTION_VERSION, PROJECTIONS
from services.eventlog.kafka import KafkaEventLog
from services.projection.projector import replay

pytestmark = pytest.mark.kafka

REPO = Path(__file__).resolve().parents[3]
PARTITIONS = 3


# -- helpers -------------------------------------------------------------------------------


def _envelopes(bootstrap: str, topic: str) -> dict[str, list[Envelope]]:
    """Each tournament's gapless stream 1..n (raw copies and late events the tests write
    outside the writer protocol are put in place)."""
    by_seq: dict[str, dict[int, Envelope]] = {}
    for rec in read_topic(bootstrap, topic):
        env = envelope_from_bytes(rec.value)
        by_seq.setdefault(env.tournament_id, {}).setdefault(env.seq, env)
    streams: dict[str, list[Envelope]] = {}
    for tid, envs in by_seq.items():
        stream = streams[tid] = []
        while len(stream) + 1 in envs:
            stream.append(envs[len(stream) + 1])
    return streams


class Checker:
    def __init__(self, bootstrap: str, topic: str, names: tuple[str, ...] = PROJECTIONS):
        self.bootstrap, self.topic, self.names = bootstrap, topic, names
        self._replays: dict[tuple[str, int], dict[str, bytes]] = {}

    def _replay(self, envs: list[Envelope], tid: str, seq: int) -> dict[str, bytes]:
        key = (tid, seq)
        if key not in self._replays:
            self._replays[key] = replay(envs[:seq], tid)
        return self._replays[key]

    def counts(self) -> dict[str, int]:
        return {n: len(read_topic(self.bootstrap, output_topic(self.topic, n))) for n in self.names}

    def problems(self) -> list[str]:
        streams = _envelopes(self.bootstrap, self.topic)
        problems = []
        for name in self.names:
            latest = {
                r.key.decode(): r.value
                for r in read_topic(self.bootstrap, output_topic(self.topic, name))
            }
            for tid, envs in streams.items():
                got = latest.get(tid)
                if got is None:
                    problems.append(f"{name}/{tid}: nothing published")
                    continue
                doc = loads(got)
                at = doc["as_of_seq"]
                final = loads(self._replay(envs, tid, len(envs))[name])
                if doc["version"] != PROJECTION_VERSION:
                    problems.append(f"{name}/{tid}: version {doc['version']}")
                if self._replay(envs, tid, at)[name] != got:
                    problems.append(f"{name}/{tid}: not byte-equal to the replay to seq {at}")
                if dumps(doc["data"]) != dumps(final["data"]):
                    problems.append(f"{name}/{tid}: data as of {at}, stream at {len(envs)}")
        return problems

    def wait_converged(self, procs: Procs, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while (problems := self.problems()) and time.monotonic() < deadline:
            procs.assert_alive()
            time.sleep(0.5)
        assert not problems, f"{problems[:8]}\n{procs.logs()}"


class Procs:
    """`arbiter processor NAME` subprocesses."""

    def __init__(self, bootstrap: str, topic: str, tmp: Path) -> None:
        self.bootstrap, self.topic, self.tmp = bootstrap, topic, tmp
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.starts: dict[str, int] = {}
        self.env: dict[str, str] = {}  # added to the processes' environment

    def start(self, *names: str) -> None:
        for name in names:
            n = self.starts[name] = self.starts.get(name, 0) + 1
            (self.tmp / name).mkdir(parents=True, exist_ok=True)
            (self.tmp / name / "status.json").unlink(missing_ok=True)
            with open(self.tmp / f"{name}.{n}.log", "wb") as logf:
                self.procs[name] = subprocess.Popen(
                    [
                        sys.executable,
                        *processor_args(name, self.bootstrap, self.topic, self.tmp),
                    ],
                    cwd=REPO,
                    stdout=logf,
                    stderr=subprocess.STDOUT,
                    env={**os.environ, **self.env},
                )

    def status(self, name: str) -> dict[str, Any] | None:
        try:
            return dict(orjson.loads((self.tmp / name / "status.json").read_bytes()))
        except (FileNotFoundError, orjson.JSONDecodeError):
            return None

    def wait_status(self, name: str, pred: Any, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            self.assert_alive()
            st = self.status(name)
            if st is not None and st["pid"] == self.procs[name].pid and pred(st):
                return st
            assert time.monotonic() < deadline, f"{name}: status {st}\n{self.logs()}"
            time.sleep(0.2)

    def kill9(self, name: str) -> None:
        proc = self.procs.pop(name)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)

    def stop(self, name: str) -> None:
        proc = self.procs.pop(name)
        proc.terminate()
        proc.wait(timeout=30)

    def stop_all(self) -> None:
        for name in list(self.procs):
            terminate(self.procs.pop(name))

    def assert_alive(self) -> None:
        for name, proc in self.procs.items():
            assert proc.poll() is None, f"{name} exited {proc.returncode}\n{self.logs()}"

    def logs(self) -> str:
        return tail_logs(self.tmp)


@pytest.fixture
def env(tmp_path: Path) -> Iterator[tuple[str, str, KafkaEventLog, Procs]]:
    with fresh_kafka_log("proc", PARTITIONS) as (bootstrap, topic, log):
        procs = Procs(bootstrap, topic, tmp_path)
        try:
            yield bootstrap, topic, log, procs
        finally:
            procs.stop_all()


# -- tests ---------------------------------------------------------------------------------


def test_four_processors_publish_the_clean_replay_and_survive_kill9(env):
    bootstrap, topic, log, procs = env
    tours = processor_tournaments()
    # Half of two tournaments before the processors start, the rest while they run.
    half = len(tours["league"]) // 2
    append_in_batches(log, "league", tours["league"][:half], 50)
    append_in_batches(log, "swiss", tours["swiss"][:20], 10)
    procs.start(*PROJECTIONS)

    # The writer stops in the middle of the stream until the kill is done, then goes on:
    # the kill falls between appends whatever the machine's speed (no wall-clock timing).
    killed = threading.Event()
    first = half + 48

    def rest() -> None:
        append_in_batches(log, "league", tours["league"][half:first], 8)
        assert killed.wait(120), "the processors were never killed"
        append_in_batches(log, "league", tours["league"][first:], 8)
        append_in_batches(log, "swiss", tours["swiss"][20:], 4)
        append_in_batches(log, "gct", tours["gct"], 2)

    writer = threading.Thread(target=rest)
    for name in PROJECTIONS:
        procs.wait_status(name, lambda st: st["rebuild_published"] + st["published"] > 0)
    writer.start()
    try:
        # kill -9 two processors in the middle of the appends; restart them.
        procs.wait_status("standings", lambda st: st["tournaments"]["league"] > half + 40)
        procs.kill9("standings")
        procs.kill9("prizes")
        assert writer.is_alive(), "the writer waits for the kill"
        killed.set()
        procs.start("standings", "prizes")
        # On start each restores its snapshot (or rebuilds) and folds to the topic's end.
        st = procs.wait_status("standings", lambda st: st["start"] is not None)
        assert st["tournaments"]["league"] > half + 40
    finally:
        writer.join(timeout=120)
    Checker(bootstrap, topic).wait_converged(procs)
    for name in PROJECTIONS:
        st = procs.status(name)
        assert st is not None and st["gaps"] == 0 and st["held"] == {}


def test_redelivery_and_offset_reset_change_nothing(env):
    bootstrap, topic, log, procs = env
    tours = processor_tournaments()
    for tid in ("league", "swiss"):
        append_in_batches(log, tid, tours[tid], 40)
    procs.start(*PROJECTIONS)
    checker = Checker(bootstrap, topic)
    checker.wait_converged(procs)
    total = sum(len(tours[t]) for t in ("league", "swiss"))
    for name in PROJECTIONS:  # every event went through the agent once
        procs.wait_status(name, lambda st: st["events"] >= total)
    counts = checker.counts()

    # 1. Redelivery: append raw copies of already-folded events (a producer outside the
    # writer protocol, as a broker-side redelivery would look to the consumer).
    records = read_topic(bootstrap, topic)
    copies = records[:50] + records[-150:]
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
    for rec in copies:
        producer.send(topic, key=rec.key, value=rec.value)
    producer.flush()
    producer.close()
    for name in PROJECTIONS:
        procs.wait_status(name, lambda st: st["duplicates"] >= len(copies))

    # 2. Re-consume from offset 0: stop, reset the group's offsets, restart.
    procs.stop("tiebreaks")
    group = f"arbiter-processor-tiebreaks-{topic}"
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False)
    tps = [TopicPartition(topic, p) for p in range(PARTITIONS)]
    assert any((consumer.committed(tp) or 0) > 0 for tp in tps)
    consumer.commit({tp: OffsetAndMetadata(0, "", -1) for tp in tps})
    assert all((consumer.committed(tp) or 0) == 0 for tp in tps)
    consumer.close()
    procs.start("tiebreaks")
    redelivered = len(records) + len(copies)
    st = procs.wait_status("tiebreaks", lambda st: st["events"] >= redelivered)
    assert st["duplicates"] >= redelivered and st["published"] == 0

    time.sleep(1.0)  # let any (wrong) publication land before counting
    assert checker.counts() == counts, "a redelivery published something"
    assert checker.problems() == []


def _sealed(tid: str, events: list[Any]) -> list[bytes]:
    out, prev = [], GENESIS_HASH
    for i, e in enumerate(events, start=1):
        env = new_event(e, i).sealed(tid, i, prev, new_event(e, i).occurred_at)
        prev = env.hash
        out.append(env.to_bytes())
    return out


def test_gap_is_detected_held_and_recovered(env):
    bootstrap, topic, _log, procs = env
    raw = _sealed("gappy", swiss_events(8, 3))
    assert len(raw) >= 8
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")

    def send(values: list[bytes]) -> None:
        for v in values:
            producer.send(topic, key=b"gappy", value=v)
        producer.flush()

    procs.start("standings")
    send(raw[:4] + raw[5:8])  # seq 5 is missing
    st = procs.wait_status("standings", lambda st: st["gaps"] == 1)
    assert st["held"] == {"gappy": {"expected": 5, "got": 6}}
    assert st["tournaments"]["gappy"] == 4  # not folded past the gap
    latest = [
        r for r in read_topic(bootstrap, output_topic(topic, "standings")) if r.key == b"gappy"
    ]
    assert loads(latest[-1].value)["as_of_seq"] <= 4

    send(raw[4:5] + raw[8:])  # the missing event arrives late, then the rest
    procs.wait_status("standings", lambda st: st["held"] == {} and st["recovered"] == 1)
    producer.close()
    Checker(bootstrap, topic, ("standings",)).wait_converged(procs)


# -- broker restart (a private broker: the shared one is never restarted) -------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    with socket.socket() as s:  # the controller listens on port + 1
        try:
            s.bind(("127.0.0.1", port + 1))
        except OSError:
            return _free_port()
    return port


def test_broker_restart_keeping_data_converges(tmp_path: Path):
    if kafka_bootstrap() is None:  # pragma: no cover - kafka_bootstrap skips or fails
        return
    port = _free_port()
    benv = dict(os.environ)
    benv.update(
        KAFKA_PORT=str(port),
        KAFKA_STATE_DIR=str(tmp_path / "broker"),
        KAFKA_KEEP_DATA="1",
        KAFKA_HEAP_OPTS="-Xms128m -Xmx512m",
    )

    def broker(cmd: str) -> None:
        subprocess.run([str(REPO / "deploy/kafka" / cmd)], env=benv, check=True, timeout=120)

    broker("start")
    bootstrap = f"127.0.0.1:{port}"
    topic = f"arbiter.test.proc.{uuid.uuid4().hex[:12]}"
    procs = Procs(bootstrap, topic, tmp_path / "procs")
    log = None
    try:
        tours = processor_tournaments()
        log = KafkaEventLog(bootstrap, topic=topic, partitions=PARTITIONS)
        append_in_batches(log, "league", tours["league"], 50)
        procs.start("standings", "playoff")
        Checker(bootstrap, topic, ("standings", "playoff")).wait_converged(procs)
        log.close()
        log = None

        broker("stop")
        broker("start")
        log = KafkaEventLog(bootstrap, topic=topic, partitions=PARTITIONS)
        assert len(_envelopes(bootstrap, topic)["league"]) == len(tours["league"])  # kept
        append_in_batches(log, "swiss", tours["swiss"], 20)
        append_in_batches(log, "gct", tours["gct"], 5)
        Checker(bootstrap, topic, ("standings", "playoff")).wait_converged(procs, timeout=90)
    finally:
        procs.stop_all()
        if log is not None:
            log.close()
        benv.pop("KAFKA_KEEP_DATA")
        broker("stop")
