"""The Kafka log's edges on one broker: read after append across instances, the topic and
producer settings, sizes Kafka refuses, and `EventLogUnavailable` in bounded time when the
broker is gone (a private broker: the shared one is never stopped). The replicated cluster's
faults are in test_kafka_cluster.py."""

from __future__ import annotations

import os
import socket
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from builders import created, new_event, player, round_
from conftest import kafka_bootstrap
from kafka import KafkaAdminClient
from kafka.admin import ConfigResource, ConfigResourceType

from events_schema.limits import KIB, LimitExceeded, Limits
from services.eventlog.base import EventLogUnavailable
from services.eventlog.kafka import API_VERSION, KafkaEventLog, KafkaUnavailable

pytestmark = pytest.mark.kafka

REPO = Path(__file__).resolve().parents[3]


def _topic() -> str:
    return f"arbiter.test.avail.{uuid.uuid4().hex[:12]}"


@pytest.fixture
def bootstrap() -> str:
    addr = kafka_bootstrap()
    assert addr is not None
    return addr


@pytest.fixture
def logs(bootstrap: str) -> Iterator[Callable[..., KafkaEventLog]]:
    opened: list[KafkaEventLog] = []

    def make(**kw: Any) -> KafkaEventLog:
        opened.append(KafkaEventLog(bootstrap, **kw))
        return opened[-1]

    yield make
    for log in opened:
        log.close()


def _configs(bootstrap: str, topic: str) -> dict[str, str]:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, api_version=API_VERSION)
    try:
        res = ConfigResource(ConfigResourceType.TOPIC, topic)
        got = admin.describe_configs([res])["topic"][topic]
    finally:
        admin.close()
    return {k: v["value"] for k, v in got.items()}


def test_read_after_append_in_another_instance(logs: Callable[..., KafkaEventLog]):
    """An append returns only once every reader can see it: a separate instance (as another
    process would be) reading right after it returned sees it, every time. Without the wait
    for the last stable offset in `_append_owned` this missed 2 to 40 of 300 here."""
    topic = _topic()
    a, b = logs(topic=topic, partitions=1), logs(topic=topic, partitions=1)
    a.append("t", [new_event(created())])
    misses = []
    for i in range(300):
        res = a.append("t", [new_event(player(f"p{i}"))])
        if b.last_seq("t") != res.last_seq:
            misses.append(i)
        if i % 50 == 0:
            assert [e.event_id for e in b.read("t", res.last_seq)] == [res.envelopes[0].event_id]
    assert misses == []


def test_topic_and_producer_settings_follow_the_limits(
    bootstrap: str, logs: Callable[..., KafkaEventLog]
):
    topic = _topic()
    log = logs(topic=topic, partitions=2, limits=Limits(max_event_bytes=100 * KIB))
    assert log.replication_factor == 1  # one broker
    got = _configs(bootstrap, topic)
    assert got["max.message.bytes"] == str(164 * KIB)
    assert got["min.insync.replicas"] == "1"
    assert got["retention.ms"] == "-1"
    log.append("t", [new_event(created())])
    producer = next(p.producer for p in log._parts if p.producer is not None)
    assert producer.config["max_request_size"] == 164 * KIB
    assert producer.config["acks"] == -1 and producer.config["enable_idempotence"]


def test_too_large_for_kafka_is_a_limit_exceeded(logs: Callable[..., KafkaEventLog]):
    """Never expected (the limits are checked first): a topic whose max.message.bytes is below
    what the limits allow refuses the batch; the log answers 413, as the limits would."""
    topic = _topic()
    logs(topic=topic, partitions=1, limits=Limits(max_event_bytes=16 * KIB))  # 80 KiB topic
    log = logs(topic=topic, partitions=1)  # the default limits: 512 KiB events
    log.append("t", [new_event(created())])
    boards = [(f"g{i}", f"white-{i:05d}", f"black-{i:05d}") for i in range(3000)]
    with pytest.raises(LimitExceeded) as info:
        log.append("t", [new_event(round_(1, *boards))])
    assert info.value.status == 413 and info.value.limit == "event_bytes"
    assert log.last_seq("t") == 1
    assert [e.seq for e in log.append("t", [new_event(player("a"))]).envelopes] == [2]


class _Quick(KafkaEventLog):
    READ_TIMEOUT_S = 1.5
    APPEND_TIMEOUT_S = 4.0
    ATTEMPT_TIMEOUT_S = 1.5


def _free_port() -> int:
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        with socket.socket() as s:  # the controller listens on port + 1
            try:
                s.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
        return port


def test_opening_an_unreachable_cluster_is_unavailable():
    t0 = time.monotonic()
    with pytest.raises(EventLogUnavailable):
        _Quick(f"127.0.0.1:{_free_port()}", topic=_topic())
    assert time.monotonic() - t0 < 15


def _timed(fn: Callable[[], object]) -> tuple[float, BaseException | None]:
    t0 = time.monotonic()
    try:
        fn()
    except BaseException as exc:  # returned for the assertion
        return time.monotonic() - t0, exc
    return time.monotonic() - t0, None


def test_broker_down_refuses_reads_and_appends_in_bounded_time(tmp_path: Path):
    if kafka_bootstrap() is None:  # pragma: no cover - kafka_bootstrap skips or fails
        return
    port = _free_port()
    benv = dict(os.environ)
    benv.pop("KAFKA_BROKERS", None)
    benv.update(
        KAFKA_PORT=str(port),
        KAFKA_STATE_DIR=str(tmp_path / "broker"),
        KAFKA_KEEP_DATA="1",
        KAFKA_HEAP_OPTS="-Xms128m -Xmx512m",
    )

    def broker(cmd: str) -> None:
        subprocess.run([str(REPO / "deploy/kafka" / cmd)], env=benv, check=True, timeout=120)

    broker("start")
    log = None
    try:
        log = _Quick(f"127.0.0.1:{port}", topic=_topic(), partitions=2)
        first = new_event(created())
        log.append("t", [first])
        broker("stop")  # keeps the data
        for name, call in {
            "last_seq": lambda: log.last_seq("t"),
            "read": lambda: list(log.read("t")),
            "read_all": lambda: list(log.read_all()),
            "stream_ids": log.stream_ids,
            "find": lambda: log.find(first.event_id),
        }.items():
            took, exc = _timed(call)
            assert isinstance(exc, EventLogUnavailable), (name, exc)
            assert took < _Quick.READ_TIMEOUT_S + 10, (name, took)
        refused = new_event(player("a"))
        took, exc = _timed(lambda: log.append("t", [refused]))
        assert isinstance(exc, KafkaUnavailable), exc
        assert took < _Quick.APPEND_TIMEOUT_S + 10, took
        broker("start")
        # The refused event, resent with its id, is stored once (it may have landed).
        deadline = time.monotonic() + 60
        while True:
            try:
                res = log.append("t", [refused])
                break
            except EventLogUnavailable:
                assert time.monotonic() < deadline
        assert res.last_seq == 2
        assert [e.event_id for e in log.read("t")] == [first.event_id, refused.event_id]
    finally:
        if log is not None:
            log.close()
        benv.pop("KAFKA_KEEP_DATA")
        broker("stop")
