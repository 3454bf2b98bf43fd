"""A process whose rejoin was started by a metadata change gets its new assignment (issue 27,
services/eventlog/kafka/ownership.py).

kafka-python 3.0.12 starts a rejoin when the leader's metadata snapshot changes: it revokes the
partitions, sends JoinGroup and, as leader, clears the snapshot difference while it performs the
assignment, in its IO thread. A poll that gives up (200 ms) before the SyncGroup answer then
finds nothing left to rejoin for, never awaits the join again, and never applies the
assignment: the process stays with no partitions and its heartbeats off, the group drops it
after the session timeout and the other processes take every partition (the CI failure of
test_kill_9_moves_the_partitions_and_appends_go_on: one process with `owners == {}` at
generation 1, the other owning everything). A slow assignment widens the window to certain."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest
from conftest import kafka_bootstrap

from services.eventlog.kafka import KafkaEventLog
from services.eventlog.kafka.ownership import OwnersAssignor, Ownership

pytestmark = pytest.mark.kafka


def _until(check: Any, what: str, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def test_a_rejoin_started_by_a_metadata_change_ends_with_the_partitions_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bootstrap = kafka_bootstrap()
    assert bootstrap is not None
    topic = f"arbiter.test.{uuid.uuid4().hex[:12]}"
    KafkaEventLog(bootstrap, topic=topic, partitions=4).close()  # creates the topic
    url = "http://127.0.0.1:1"
    own = Ownership(bootstrap, topic, url)
    try:
        _until(lambda: own.owned() == {0, 1, 2, 3}, f"first assignment: {own.describe()}")
        first = own.generation

        assign = OwnersAssignor.assign

        def slow_assign(self: OwnersAssignor, cluster: Any, members: Any) -> Any:
            time.sleep(1.0)  # longer than a poll: the poll gives up while SyncGroup is pending
            return assign(self, cluster, members)

        monkeypatch.setattr(OwnersAssignor, "assign", slow_assign)
        # What a metadata update that differs from the one the leader assigned with does.
        own._consumer._coordinator._assignment_snapshot = {}

        _until(
            lambda: own.generation > first and own.owned() == {0, 1, 2, 3},
            f"no new assignment after the rejoin: {own.describe()}",
        )
    finally:
        own.close()


def test_two_processes_share_the_partitions_again_after_a_metadata_change_reverts() -> None:
    """The CI picture: the leader's metadata differs, it revokes and sends JoinGroup, which
    the broker holds until the other member rejoins; the metadata comes back as it was before
    the answer. Both end with the same full map, split between them."""
    bootstrap = kafka_bootstrap()
    assert bootstrap is not None
    topic = f"arbiter.test.{uuid.uuid4().hex[:12]}"
    KafkaEventLog(bootstrap, topic=topic, partitions=4).close()
    a = Ownership(bootstrap, topic, "http://127.0.0.1:1")
    _until(lambda: a.owned() == {0, 1, 2, 3}, f"a alone: {a.describe()}")
    b = Ownership(bootstrap, topic, "http://127.0.0.1:2")
    try:

        def split() -> bool:
            va, vb = a.describe()["owners"], b.describe()["owners"]
            return len(va) == 4 and va == vb and len(set(va.values())) == 2

        _until(split, f"a and b: {a.describe()} {b.describe()}")
        leader = next(o for o in (a, b) if o._consumer._coordinator._assignment_snapshot)
        before = leader.generation
        coordinator = leader._consumer._coordinator
        snapshot = coordinator._assignment_snapshot
        coordinator._assignment_snapshot = {}
        _until(lambda: leader.describe()["owners"] == {}, f"no rejoin: {leader.describe()}")
        coordinator._assignment_snapshot = snapshot  # the metadata is back as it was
        _until(
            lambda: split() and a.generation > before and b.generation > before,
            f"not shared again: {a.describe()} {b.describe()}",
        )
    finally:
        b.close()
        a.close()
