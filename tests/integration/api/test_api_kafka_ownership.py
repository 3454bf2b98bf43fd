"""Several API processes on one broker with `ARBITER_KAFKA_OWNERSHIP=group` (issue 27 item 2,
services/eventlog/kafka/ownership.py): each partition is written by the one process Kafka's
consumer group assigns it (no transactional-id fencing after the initial assignment), the
others forward; nothing is lost or duplicated, every chain verifies, no client without
`expected_seq` gets a 409; and after a kill -9 of one process its partitions move to the other
and the appends go on."""

from __future__ import annotations

import os
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import kafka_bootstrap
from tests_support import ApiProcesses

from services.audit.replay import verify_chain
from services.commands.auth import TokenStore
from services.eventlog.kafka import KafkaEventLog, partition_for

pytestmark = [pytest.mark.kafka, pytest.mark.slow]

PARTITIONS = 4
SECRET = "between-our-processes"


class Cluster(ApiProcesses):
    """API processes on one fresh topic with ownership by group, each advertising its URL."""

    def __init__(self, tmp_path: Path, partitions: int = PARTITIONS) -> None:
        self.partitions = partitions
        env = dict(os.environ)
        env.update(
            {
                "ARBITER_TOKENS_DB": str(tmp_path / "tokens.sqlite3"),
                "ARBITER_LOG": "kafka",
                "KAFKA_BOOTSTRAP": kafka_bootstrap() or "",
                "ARBITER_TOPIC": f"arbiter.test.{uuid.uuid4().hex[:12]}",
                "ARBITER_PARTITIONS": str(partitions),
                "ARBITER_KAFKA_OWNERSHIP": "group",
                "ARBITER_FORWARD_SECRET": SECRET,
                "ARBITER_CHECKPOINT_EVERY": "0",
            }
        )
        super().__init__(env, tmp_path)
        token, _ = TokenStore(self.env["ARBITER_TOKENS_DB"]).create("admin", "chief")
        self.headers = {"Authorization": f"Bearer {token}"}

    def start(self, n: int, env_for: Callable[[str], dict[str, str]] | None = None) -> list[str]:
        return super().start(n, env_for or (lambda url: {"ARBITER_ADVERTISED_URL": url}))

    def ownership(self, url: str) -> dict[str, Any]:
        r = httpx.get(
            f"{url}/internal/log/ownership",
            headers={"x-arbiter-forward-secret": SECRET},
            timeout=10,
        )
        assert r.status_code == 200, r.text
        return dict(r.json())

    def settled(self, urls: list[str]) -> dict[str, str]:
        """Wait until every live process sees the same full assignment over exactly `urls`."""
        deadline = time.monotonic() + 90
        while True:
            views = [self.ownership(u) for u in urls]
            owners = views[0]["owners"]
            if (
                len(owners) == self.partitions
                and set(owners.values()) == set(urls)
                and all(v["owners"] == owners for v in views)
            ):
                return dict(owners)
            assert time.monotonic() < deadline, f"{views}\n{self.log_tail()}"
            time.sleep(0.3)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    c = Cluster(tmp_path)
    try:
        yield c
    finally:
        c.stop()


def tournaments_on_every_partition(per_partition: int, partitions: int = PARTITIONS) -> list[str]:
    """Tournament ids covering every partition, `per_partition` on each."""
    found: dict[int, list[str]] = {p: [] for p in range(partitions)}
    i = 0
    while any(len(v) < per_partition for v in found.values()):
        tid = f"own{i}"
        p = partition_for(tid, partitions)
        if len(found[p]) < per_partition:
            found[p].append(tid)
        i += 1
    return [t for v in found.values() for t in v]


def post_command(
    url: str, headers: dict[str, str], tid: str, body: dict[str, Any]
) -> httpx.Response:
    return httpx.post(f"{url}/tournaments/{tid}/commands", json=body, headers=headers, timeout=60)


def _create(c: Cluster, tids: list[str]) -> None:
    for i, tid in enumerate(tids):
        r = post_command(
            c.urls[i % len(c.urls)],
            c.headers,
            tid,
            {"type": "TournamentCreated", "payload": {"name": tid, "format": "swiss"}},
        )
        assert r.status_code == 201, r.text


def _register(
    url: str, headers: dict[str, str], tids: list[str], prefix: str, n: int, errors: list[str]
) -> None:
    """Players registered without `expected_seq` (the command layer decides on its fold)."""
    for i in range(n):
        for tid in tids:
            body = {
                "type": "PlayerRegistered",
                "payload": {"player_id": f"{prefix}{i}", "name": "X"},
            }
            r = post_command(url, headers, tid, body)
            if r.status_code != 201:
                errors.append(f"{url} {tid} {prefix}{i}: {r.status_code} {r.text}")


def _check_streams(c: Cluster, tids: list[str], players: set[str]) -> None:
    """Straight from the topic: every stream gapless, no event twice, every player once, the
    chain verified."""
    log = KafkaEventLog(
        c.env["KAFKA_BOOTSTRAP"], topic=c.env["ARBITER_TOPIC"], partitions=PARTITIONS
    )
    try:
        for tid in tids:
            events = list(log.read(tid))
            assert [e.seq for e in events] == list(range(1, len(events) + 1)), tid
            assert len({e.event_id for e in events}) == len(events), tid
            registered = [e.payload["player_id"] for e in events if e.type == "PlayerRegistered"]
            assert sorted(registered) == sorted(players), tid
            verdict = verify_chain(tid, [e.to_bytes() for e in events])
            assert verdict.ok, (tid, verdict.as_dict())
    finally:
        log.close()


def test_each_partition_is_written_by_its_owner_only(cluster: Cluster) -> None:
    cluster.start(2)
    a, b = cluster.urls
    owners = cluster.settled([a, b])
    tids = tournaments_on_every_partition(2)
    _create(cluster, tids)

    errors: list[str] = []
    threads = [
        threading.Thread(target=_register, args=(u, cluster.headers, tids, p, 5, errors))
        for u, p in ((a, "a"), (b, "b"), (a, "c"), (b, "d"))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    assert errors == []  # no 409 concurrency.retries_exhausted, no 503

    views = {u: cluster.ownership(u) for u in (a, b)}
    assert all(v["owners"] == owners for v in views.values())  # no rebalance under way
    for p in range(PARTITIONS):
        owner = owners[str(p)]
        other = b if owner == a else a
        mine, theirs = views[owner]["partitions"][str(p)], views[other]["partitions"][str(p)]
        # One transactional producer, initialised once, in the owner: no fencing at all.
        assert (mine["writer_inits"], theirs["writer_inits"]) == (1, 0), (p, views)
        assert mine["events_written"] == 2 * (1 + 4 * 5) and theirs["events_written"] == 0
    assert views[a]["forwarded"] > 0 and views[b]["forwarded"] > 0
    players = {f"{p}{i}" for p in "abcd" for i in range(5)}
    _check_streams(cluster, tids, players)


def test_one_tournament_through_every_process_is_decided_by_its_owner(cluster: Cluster) -> None:
    """Given two processes and one tournament, when clients without `expected_seq` post to it
    through both at once, then every command lands once (issue 27: the processes used to
    decide on the stream each, refuse each other's appends, and answer some clients 409
    `concurrency.retries_exhausted`): the other process sends the command to the stream's
    owner, which decides it with its own and commits them in shared transactions."""
    cluster.start(2)
    a, b = cluster.urls
    cluster.settled([a, b])
    tid = "own-hot"
    _create(cluster, [tid])
    errors: list[str] = []
    threads = [
        threading.Thread(target=_register, args=(u, cluster.headers, [tid], f"{p}{k}", 8, errors))
        for k in range(4)
        for u, p in ((a, "a"), (b, "b"))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    assert errors == []  # no 409, no 503
    views = [cluster.ownership(u) for u in (a, b)]
    assert sum(v["forwarded_commands"] for v in views) >= 32  # the non-owner's, all of them
    players = {f"{p}{k}{i}" for p in "ab" for k in range(4) for i in range(8)}
    _check_streams(cluster, [tid], players)


def test_kill_9_moves_the_partitions_and_appends_go_on(cluster: Cluster) -> None:
    cluster.start(2)
    a, b = cluster.urls
    owners = cluster.settled([a, b])
    assert set(owners.values()) == {a, b}
    tids = tournaments_on_every_partition(1)
    _create(cluster, tids)

    errors: list[str] = []
    writers = [
        threading.Thread(target=_register, args=(a, cluster.headers, tids, p, 12, errors))
        for p in ("a", "c")
    ]
    for t in writers:
        t.start()
    # Kill b once the appends are under way (its partitions' appends are forwarded to it).
    deadline = time.monotonic() + 60
    while cluster.ownership(a)["forwarded"] < 5:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    os.kill(cluster.procs[1].pid, signal.SIGKILL)
    for t in writers:
        t.join(timeout=600)
    assert errors == []

    owners = cluster.settled([a])  # a owns every partition now
    assert set(owners.values()) == {a}
    players = {f"{p}{i}" for p in "ac" for i in range(12)}
    _check_streams(cluster, tids, players)


def test_a_process_that_joins_takes_its_partitions_over_during_appends(cluster: Cluster) -> None:
    cluster.start(1)
    (a,) = cluster.urls
    cluster.settled([a])
    tids = tournaments_on_every_partition(1)
    _create(cluster, tids)

    errors: list[str] = []
    writers = [
        threading.Thread(target=_register, args=(a, cluster.headers, tids, p, 25, errors))
        for p in ("a", "c")
    ]
    for t in writers:
        t.start()
    cluster.start(1)  # b joins: the group rebalances, b takes its range from a
    b = cluster.urls[1]
    owners = cluster.settled([a, b])
    for t in writers:
        t.join(timeout=600)
    assert errors == []
    players = {f"{p}{i}" for p in "ac" for i in range(25)}
    _check_streams(cluster, tids, players)

    # From now on every partition is written by its owner only: b initialised each of its
    # partitions' producers once (fencing a's), a none of them again.
    before = {u: cluster.ownership(u) for u in (a, b)}
    more: list[str] = []
    _register(b, cluster.headers, tids, "z", 2, more)
    _register(a, cluster.headers, tids, "y", 2, more)
    assert more == []
    after = {u: cluster.ownership(u) for u in (a, b)}
    for p in range(PARTITIONS):
        owner = owners[str(p)]
        other = b if owner == a else a
        assert (
            after[owner]["partitions"][str(p)]["writer_inits"]
            == (before[owner]["partitions"][str(p)]["writer_inits"])
        )
        assert (
            after[other]["partitions"][str(p)]["events_written"]
            == (before[other]["partitions"][str(p)]["events_written"])
        )
    _check_streams(cluster, tids, players | {f"{p}{i}" for p in "zy" for i in range(2)})
