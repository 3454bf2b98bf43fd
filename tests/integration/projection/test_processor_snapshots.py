"""Restart without a full replay (issue 11 item 2): a processor checkpoints its fold to its
snapshot topic and, on start, restores it and folds only the tail; a snapshot older than the
group's committed offsets, or one missing or corrupt, still converges byte for byte (the
latter by rebuilding the partition from offset 0, which status.json says), and no restart
publishes a version that goes backwards or repeats a seq with a different body.

Real `arbiter processor standings` subprocesses on the real broker (helpers of
test_processors.py)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from test_processors import PARTITIONS, Checker, Procs, env  # the fixture `env` too
from tests_support import append_in_batches, never_backwards, processor_tournaments, read_topic

from services.eventlog.kafka import KafkaEventLog, partition_for
from services.projection.processors import snapshots

pytestmark = pytest.mark.kafka

NAME = "standings"


__all__ = ["env"]


def _snapshot_topic(topic: str) -> str:
    return f"{topic}.snapshot.{NAME}"


def _covered(st: dict[str, Any], log: KafkaEventLog, topic: str) -> bool:
    """A checkpoint covers every partition to the events topic's current end."""
    consumer = KafkaConsumer(bootstrap_servers=log.bootstrap, group_id=None)
    try:
        tps = [TopicPartition(topic, p) for p in range(PARTITIONS)]
        ends = consumer.end_offsets(tps)
    finally:
        consumer.close()
    covers = st.get("snapshot_covers", {})
    return all(covers.get(str(tp.partition)) == ends[tp] for tp in tps)


def _checkpointed_run(log: KafkaEventLog, topic: str, procs: Procs) -> None:
    """Run the processor until a checkpoint covers the whole topic, then stop it."""
    procs.start(NAME)
    Checker(log.bootstrap, topic, (NAME,)).wait_converged(procs)
    procs.wait_status(NAME, lambda st: _covered(st, log, topic))
    procs.stop(NAME)


def test_restore_from_a_snapshot_older_than_the_committed_offsets(env):
    bootstrap, topic, log, procs = env
    tours = processor_tournaments()
    append_in_batches(log, "league", tours["league"], 50)
    procs.env = {"ARBITER_SNAPSHOT_EVERY": "0.5"}
    _checkpointed_run(log, topic, procs)

    # From here on no checkpoint is written: the snapshot stays where it is while the group
    # folds and commits the rest of the topic.
    procs.env = {"ARBITER_SNAPSHOT_EVERY": "0"}
    procs.start(NAME)
    st = procs.wait_status(NAME, lambda st: st["start"] is not None)
    assert st["start"]["mode"] == "restore" and st["rebuild_published"] == 0
    covers = dict(st["snapshot_covers"])
    append_in_batches(log, "swiss", tours["swiss"], 10)
    append_in_batches(log, "gct", tours["gct"], 5)
    checker = Checker(bootstrap, topic, (NAME,))
    checker.wait_converged(procs)
    group = f"arbiter-processor-{NAME}-{topic}"
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False)
    try:
        deadline = time.monotonic() + 30
        while True:  # the committed offsets pass the snapshot's
            committed = {p: consumer.committed(TopicPartition(topic, int(p))) or 0 for p in covers}
            if any(committed[p] > int(o) for p, o in covers.items()):
                break
            assert time.monotonic() < deadline, (committed, covers)
            time.sleep(0.5)
    finally:
        consumer.close()
    counts = checker.counts()
    procs.kill9(NAME)

    procs.start(NAME)
    st = procs.wait_status(NAME, lambda st: st["start"] is not None)
    assert st["start"]["mode"] == "restore", st["start"]
    assert st["snapshot_covers"] == covers  # the old snapshot, not the committed offsets
    assert st["start"]["tail_events"] >= len(tours["swiss"]) + len(tours["gct"])
    assert st["rebuild_published"] == 0
    # The agent re-reads from the committed offsets: duplicates, nothing published.
    time.sleep(2.0)
    checker.wait_converged(procs)
    assert checker.counts() == counts, "the restart published something"
    assert never_backwards(bootstrap, topic, NAME) == []


def _latest_snapshots(bootstrap: str, topic: str) -> dict[bytes, bytes | None]:
    return {r.key: r.value for r in read_topic(bootstrap, _snapshot_topic(topic))}


@pytest.mark.parametrize("damage", ["missing", "corrupt", "other_code"])
def test_a_missing_or_corrupt_snapshot_rebuilds_its_partition_and_says_so(env, damage):
    bootstrap, topic, log, procs = env
    tours = processor_tournaments()
    for tid in ("league", "swiss"):
        append_in_batches(log, tid, tours[tid], 40)
    procs.env = {"ARBITER_SNAPSHOT_EVERY": "0.5"}
    _checkpointed_run(log, topic, procs)
    checker = Checker(bootstrap, topic, (NAME,))
    counts = checker.counts()

    key = snapshots.tournament_key("league")
    good = _latest_snapshots(bootstrap, topic)[key]
    assert good is not None
    if damage == "missing":
        bad = None  # a tombstone: compaction deletes it
    elif damage == "corrupt":
        cut = len(good) // 2
        bad = good[:cut] + bytes([good[cut] ^ 0xFF]) + good[cut + 1 :]
    else:  # a snapshot written by other code (another fingerprint), otherwise intact
        fp = snapshots.HEADER.size - 64
        bad = good[:fp] + bytes(32) + good[fp + 32 :]
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
    producer.send(_snapshot_topic(topic), key=key, value=bad)
    producer.flush()
    producer.close()

    procs.env = {"ARBITER_SNAPSHOT_EVERY": "0.5"}
    procs.start(NAME)
    st = procs.wait_status(NAME, lambda st: st["start"] is not None)
    part = str(partition_for("league", PARTITIONS))
    reason = {"missing": "missing", "corrupt": "checksum", "other_code": "fingerprint"}[damage]
    assert st["start"]["mode"] in ("partial", "rebuild"), st["start"]
    assert reason in st["start"]["rebuilt"][part], st["start"]
    if partition_for("swiss", PARTITIONS) != int(part):
        assert str(partition_for("swiss", PARTITIONS)) in map(
            str, st["start"]["restored_partitions"]
        )
    assert st["rebuild_published"] == 0 and st["unreadable"] == {}
    checker.wait_converged(procs)
    assert checker.counts() == counts

    # It checkpoints again; the next restart (kill -9) restores every partition.
    procs.wait_status(NAME, lambda st: _covered(st, log, topic) and st["snapshots"]["written"])
    procs.kill9(NAME)
    append_in_batches(log, "gct", tours["gct"], 5)
    procs.start(NAME)
    st = procs.wait_status(NAME, lambda st: st["start"] is not None)
    assert st["start"]["mode"] == "restore", st["start"]
    checker.wait_converged(procs)
    assert never_backwards(bootstrap, topic, NAME) == []
