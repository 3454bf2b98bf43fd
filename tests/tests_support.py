"""Shared test constants and helpers that are not builders."""

import contextlib
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from events_schema import GENESIS_HASH, Actor, Envelope

if TYPE_CHECKING:
    from services.eventlog.base import EventLog
    from services.eventlog.kafka import KafkaEventLog

ADMIN_ACTOR = Actor(id="admin-test", role="admin")


def cmd(type_: str, event_id: str | None = None, **payload: Any) -> dict[str, Any]:
    """One command of `POST /tournaments/{id}/commands`' body (`{"commands": [...]}`): the
    event type, its payload and, when given, the client-chosen event id."""
    out: dict[str, Any] = {"type": type_, "payload": payload}
    if event_id is not None:
        out["event_id"] = event_id
    return out


def assert_chain(envs: list[Envelope]) -> None:
    """`envs` are one whole stream: seqs 1..n, each linked to the previous hash, each hash the
    hash of its own envelope."""
    prev = GENESIS_HASH
    for i, env in enumerate(envs, start=1):
        assert env.seq == i
        assert env.prev_hash == prev
        assert env.computed_hash() == env.hash
        prev = env.hash


@contextlib.contextmanager
def fresh_kafka_log(kind: str, partitions: int) -> Iterator[tuple[str, str, "KafkaEventLog"]]:
    """The test broker's address, a new events topic `arbiter.test.<kind>.<random>` of
    `partitions` partitions, and a Kafka event log on it (closed after)."""
    from conftest import kafka_bootstrap

    from services.eventlog.kafka import KafkaEventLog

    bootstrap = kafka_bootstrap()
    assert bootstrap is not None
    topic = f"arbiter.test.{kind}.{uuid.uuid4().hex[:12]}"
    log = KafkaEventLog(bootstrap, topic=topic, partitions=partitions)  # creates the topic
    try:
        yield bootstrap, topic, log
    finally:
        log.close()


def processor_args(
    name: str,
    bootstrap: str,
    topic: str,
    data_dir: Path,
    *extra: str,
    batch: int | None = 500,
    session_timeout: int | None = 6,
) -> list[str]:
    """The interpreter arguments (after `sys.executable`) that run `arbiter processor NAME` on
    a test broker: short session timeout (None: the processor's own), warnings only."""
    return [
        "-c",
        "from services.cli.main import app; app()",
        "processor",
        name,
        "--bootstrap",
        bootstrap,
        "--topic",
        topic,
        "--data-dir",
        str(data_dir),
        *(("--batch", str(batch)) if batch is not None else ()),
        *(("--session-timeout", str(session_timeout)) if session_timeout is not None else ()),
        "--loglevel",
        "warning",
        *extra,
    ]


def terminate(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if it has not exited within 30 s."""
    if proc.poll() is None:
        proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def tail_logs(folder: Path) -> str:
    """The last 3,000 characters of each `*.log` in `folder`, for assertion messages."""
    return "\n".join(
        f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}"
        for p in sorted(folder.glob("*.log"))
    )


def cli_db(tmp_path: Path, monkeypatch: Any) -> Path:
    """An embedded log for CLI tests: `ARBITER_DB` and `ARBITER_DATA` point into `tmp_path`."""
    path = tmp_path / "events.sqlite3"
    monkeypatch.setenv("ARBITER_DB", str(path))
    monkeypatch.setenv("ARBITER_DATA", str(tmp_path))
    return path


def append_events(db: Path, tid: str, *events: Any) -> None:
    """Append `events` to `tid` in `db` as one batch through the command path (as the admin)."""
    from builders import batch

    from services.commands.service import CommandService
    from services.eventlog.sqlite import SQLiteEventLog

    log = SQLiteEventLog(db)
    try:
        CommandService(log).handle(tid, batch(*events), ADMIN_ACTOR)
    finally:
        log.close()


def cli_ok(*args: str) -> str:
    """Run `arbiter ARGS` in-process; assert it exits 0 and return its stdout."""
    from typer.testing import CliRunner

    from services.cli.main import app

    res = CliRunner().invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res.stdout


def cli_words(*args: str) -> str:
    """`cli_ok`'s output as words, without the tables' rules (for phrase assertions)."""
    return " ".join(cli_ok(*args).translate(str.maketrans("", "", "│┃")).split())


# -- the Kafka processors' tests -------------------------------------------------------------


def read_topic(bootstrap: str, topic: str) -> list[Any]:
    """Every committed record of a topic, in offset order per partition."""
    from kafka import KafkaConsumer, TopicPartition

    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap,
        group_id=None,
        enable_auto_commit=False,
        isolation_level="read_committed",
        fetch_max_wait_ms=50,
    )
    try:
        parts = consumer.partitions_for_topic(topic) or set()
        tps = [TopicPartition(topic, p) for p in sorted(parts)]
        if not tps:
            return []
        consumer.assign(tps)
        consumer.seek_to_beginning(*tps)
        ends = consumer.end_offsets(tps)
        out: list[Any] = []
        deadline = time.monotonic() + 60
        while any(consumer.position(tp) < ends[tp] for tp in tps):
            assert time.monotonic() < deadline, f"could not read {topic}"
            for recs in consumer.poll(timeout_ms=200).values():
                out.extend(recs)
        return out
    finally:
        consumer.close()


def output_topic(topic: str, name: str) -> str:
    """The output topic of processor `name` on events topic `topic` (not the default one)."""
    return f"{topic}.projection.{name}"


def append_in_batches(
    log: "EventLog", tid: str, events: list[Any], size: int, pause: float = 0
) -> None:
    """Append `events` to `tid` in batches of `size`, `pause` seconds apart."""
    from builders import new_event

    for i in range(0, len(events), size):
        log.append(tid, [new_event(e) for e in events[i : i + size]])
        if pause:
            time.sleep(pause)


def processor_tournaments() -> dict[str, list[Any]]:
    """Three tournaments' events for the processors' tests: a league, a Swiss, a GCT event."""
    from bench.standings import league_events, swiss_events
    from builders import small_tournament

    return {
        "league": league_events(4, 1, max_plies=60),
        "swiss": swiss_events(16, 5),
        "gct": small_tournament(),
    }


def never_backwards(bootstrap: str, topic: str, name: str) -> list[str]:
    """Every message of processor `name`'s output topic, in offset order per tournament:
    as_of_seq never goes down, and one as_of_seq is always the same bytes."""
    from events_schema.codec import loads

    problems = []
    last: dict[str, tuple[int, bytes]] = {}
    for rec in read_topic(bootstrap, output_topic(topic, name)):
        tid, seq = rec.key.decode(), loads(rec.value)["as_of_seq"]
        if tid in last:
            prev_seq, prev_body = last[tid]
            if seq < prev_seq:
                problems.append(f"{tid}: as_of_seq {prev_seq} then {seq}")
            if seq == prev_seq and rec.value != prev_body:
                problems.append(f"{tid}: two bodies at as_of_seq {seq}")
        last[tid] = (seq, rec.value)
    return problems
