"""The Kafka writer's group commit and the per-tournament read through the offset index
(issue 11 item 6), against the real broker (`deploy/kafka/start`, KAFKA_BOOTSTRAP).

Group commit: concurrent appends to one partition share a transaction, and every caller still
gets its own answer — its envelopes, its conflict, its duplicate — as if it had appended
alone. The index: `read()` of one tournament fetches that tournament's own offsets (checked
by counting the records fetched), is complete in a new process, and sees what another writer
appended after it was built.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest
from builders import created, new_event, player, result
from conftest import kafka_bootstrap
from tests_support import assert_chain

from services.eventlog.base import AppendConflict, AppendResult, EventIdConflict, NewEvent
from services.eventlog.kafka import KafkaEventLog, partition_for, spans


def _topic() -> str:
    return f"arbiter.test.group.{uuid.uuid4().hex[:12]}"


@pytest.fixture
def logs() -> Iterator[Callable[..., KafkaEventLog]]:
    bootstrap = kafka_bootstrap()
    assert bootstrap is not None
    opened: list[KafkaEventLog] = []

    def make(topic: str, **kw: Any) -> KafkaEventLog:
        opened.append(KafkaEventLog(bootstrap, topic=topic, **kw))
        return opened[-1]

    yield make
    for log in opened:
        log.close()


def _run_all(fns: list[Callable[[], None]], timeout: float = 120) -> list[BaseException]:
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(fns))

    def wrap(fn: Callable[[], None]) -> None:
        barrier.wait()
        try:
            fn()
        except BaseException as exc:  # returned for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=wrap, args=(fn,)) for fn in fns]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=timeout)
    assert not any(t.is_alive() for t in threads), "an appender hung"
    return errors


def _transactions(log: KafkaEventLog) -> int:
    return sum(p.transactions for p in log._parts)


@pytest.mark.kafka
def test_fifty_appenders_to_fifty_tournaments_share_transactions(logs):
    """50 clients, each appending one event per call (with expected_seq) to its own
    tournament in one partition: every caller gets exactly its own events at its own seqs,
    every stream is gapless with an intact chain, and the appends shared transactions."""
    log = logs(_topic(), partitions=1)
    tids = [f"t{i:02d}" for i in range(50)]
    for tid in tids:
        log.append(tid, [new_event(created())])
    before = _transactions(log)
    per_client = 6
    mine = {tid: [new_event(player(f"{tid}-p{k}")) for k in range(per_client)] for tid in tids}
    got: dict[str, list[AppendResult]] = {tid: [] for tid in tids}

    def client(tid: str) -> Callable[[], None]:
        def go() -> None:
            seq = 1
            for e in mine[tid]:
                res = log.append(tid, [e], expected_seq=seq)
                got[tid].append(res)
                seq = res.last_seq

        return go

    assert _run_all([client(t) for t in tids]) == []
    for tid in tids:
        assert [r.envelopes[0].event_id for r in got[tid]] == [e.event_id for e in mine[tid]]
        assert [r.last_seq for r in got[tid]] == list(range(2, per_client + 2))
        assert not any(r.duplicate for r in got[tid])
        stored = list(log.read(tid))
        assert_chain(stored)
        assert [e.event_id for e in stored[1:]] == [e.event_id for e in mine[tid]]
        assert [e.hash for e in stored[1:]] == [r.envelopes[0].hash for r in got[tid]]
    appends = len(tids) * per_client
    assert _transactions(log) - before < appends / 2, "concurrent appends were not grouped"


@pytest.mark.kafka
def test_fifty_appenders_to_one_tournament_each_get_their_own_seq(logs):
    log = logs(_topic(), partitions=2)
    log.append("one", [new_event(created())])
    evs = [new_event(player(f"p{i}")) for i in range(50)]
    results: dict[uuid.UUID, AppendResult] = {}

    def client(e: NewEvent) -> Callable[[], None]:
        def go() -> None:
            results[e.event_id] = log.append("one", [e])

        return go

    assert _run_all([client(e) for e in evs]) == []
    seqs = sorted(r.last_seq for r in results.values())
    assert seqs == list(range(2, 52))
    for e in evs:
        (env,) = results[e.event_id].envelopes
        assert env.event_id == e.event_id
    stored = list(log.read("one"))
    assert_chain(stored)
    assert {s.event_id: s.seq for s in stored[1:]} == {
        e.event_id: results[e.event_id].last_seq for e in evs
    }


@pytest.mark.kafka
def test_a_refused_caller_in_the_middle_of_a_group_does_not_sink_the_others(logs):
    """One group (a long window, callers arriving in a known order): the callers whose
    appends are refused — a stale expected_seq given the batch ahead of it in the group, an
    event id reused for other content — get their own refusal; a redelivery of a batch ahead
    of it in the same group gets that batch as a duplicate; the others commit, in one
    transaction, and nothing of the refused ones is stored."""
    log = logs(_topic(), partitions=1, group_commit_ms=1500)
    log.append("x", [new_event(created())])
    log.append("y", [new_event(created())])
    before = _transactions(log)
    # As if other clients had been appending (the previous group held several appends): the
    # first call waits out the window for the others (a lone writer would not wait).
    log._parts[0].last_group = 2
    a = [new_event(player("a1")), new_event(player("a2"))]
    b = [new_event(player("b"))]
    c = [new_event(player("c"))]
    d = [new_event(result("g1", "1-0"))]
    reused = [replace(new_event(player("other")), event_id=a[0].event_id)]
    calls: list[tuple[str, str, list[NewEvent], int | None]] = [
        ("a", "x", a, 1),  # x: 1 -> 3
        ("b", "x", b, 1),  # stale: a is ahead of it in the group
        ("c", "y", c, 1),  # another tournament
        ("dup", "x", a, 1),  # a, again: the duplicate of a, not a conflict
        ("reused", "y", reused, None),  # a's first id for other content
        ("d", "x", d, 3),  # right, given a ahead of it
    ]
    out: dict[str, AppendResult | BaseException] = {}

    def call(name: str, tid: str, evs: list[NewEvent], expected: int | None) -> None:
        try:
            out[name] = log.append(tid, evs, expected_seq=expected)
        except BaseException as exc:  # checked below
            out[name] = exc

    threads = []
    for args in calls:
        t = threading.Thread(target=call, args=args)
        t.start()
        threads.append(t)
        time.sleep(0.1)  # a known order, all within the window
    for t in threads:
        t.join(timeout=60)
    assert isinstance(out["a"], AppendResult) and out["a"].last_seq == 3
    assert not out["a"].duplicate
    assert isinstance(out["b"], AppendConflict)
    assert (out["b"].expected, out["b"].actual) == (1, 3)
    assert isinstance(out["c"], AppendResult) and out["c"].last_seq == 2
    assert isinstance(out["dup"], AppendResult) and out["dup"].duplicate
    assert out["dup"].envelopes == out["a"].envelopes
    assert isinstance(out["reused"], EventIdConflict)
    assert isinstance(out["d"], AppendResult) and out["d"].last_seq == 4
    assert _transactions(log) - before == 1, "the group was not one transaction"
    xs, ys = list(log.read("x")), list(log.read("y"))
    assert_chain(xs)
    assert_chain(ys)
    assert [e.event_id for e in xs[1:]] == [a[0].event_id, a[1].event_id, d[0].event_id]
    assert [e.event_id for e in ys[1:]] == [c[0].event_id]
    # The same from another instance (another process): nothing of b or `reused` stored.
    other = logs(log.topic, partitions=1)
    assert [e.event_id for e in other.read("x")] == [e.event_id for e in xs]
    assert other.find(b[0].event_id) is None


@pytest.mark.kafka
def test_a_lone_writer_does_not_wait_for_the_window(logs):
    """One caller appending in a loop is never held for companions: ten appends with a
    500 ms window take far less than ten windows."""
    log = logs(_topic(), partitions=1, group_commit_ms=500)
    log.append("solo", [new_event(created())])
    t0 = time.monotonic()
    for i in range(10):
        log.append("solo", [new_event(player(f"p{i}"))], expected_seq=i + 1)
    assert time.monotonic() - t0 < 2.5
    assert log.last_seq("solo") == 11


@pytest.mark.kafka
def test_two_writer_instances_with_many_clients_each_never_lose_or_duplicate(logs):
    """Two log instances (two processes' writers: each fences the other's producer on every
    takeover) with 10 clients each, appending to the same tournaments: every event lands
    once, every stream gapless with an intact chain; expected_seq conflicts are answered
    to their caller only, and a retry after re-reading succeeds."""
    topic = _topic()
    w1, w2 = logs(topic, partitions=2), logs(topic, partitions=2)
    tids = ["p", "q", "r"]
    for tid in tids:
        w1.append(tid, [new_event(created())])
    sent: list[NewEvent] = []
    lock = threading.Lock()

    def client(log: KafkaEventLog, n: int) -> Callable[[], None]:
        def go() -> None:
            for k in range(4):
                tid = tids[(n + k) % len(tids)]
                e = new_event(player(f"{id(log)}-{n}-{k}"))
                while True:  # the command path's loop: re-read, decide, append
                    try:
                        log.append(tid, [e], expected_seq=log.last_seq(tid))
                        break
                    except AppendConflict:
                        continue
                with lock:
                    sent.append(e)

        return go

    clients = [client(w, n) for w in (w1, w2) for n in range(10)]
    assert _run_all(clients, timeout=240) == []
    reader = logs(topic, partitions=2)
    stored = {tid: list(reader.read(tid)) for tid in tids}
    for envs in stored.values():
        assert_chain(envs)
    ids = [e.event_id for envs in stored.values() for e in envs[1:]]
    assert len(ids) == len(set(ids)) == len(sent)
    assert set(ids) == {e.event_id for e in sent}


# -- the offset index ------------------------------------------------------------------------


class _Counting(KafkaEventLog):
    """Counts the records `read()` fetches (all through the point reader here), and never
    merges ranges."""

    READ_SEEK_GAP = 0
    READ_POINT_SPAN = 10**9

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.fetched = 0

    def _records(self, tp, start, end, timeout_s=None, reader=None):  # type: ignore[no-untyped-def]
        for rec in super()._records(tp, start, end, timeout_s, reader):
            if reader is not None:
                self.fetched += 1
            yield rec


def _fill(log: KafkaEventLog, tids: list[str], rounds: int) -> dict[str, list[uuid.UUID]]:
    """Interleaved appends: concurrent single events and small batches, so each partition
    mixes every tournament's events."""
    ids: dict[str, list[uuid.UUID]] = {t: [] for t in tids}

    def client(tid: str) -> Callable[[], None]:
        def go() -> None:
            for r in range(rounds):
                evs = [new_event(player(f"{tid}-{r}-{k}")) for k in range(1 + r % 3)]
                res = log.append(tid, evs)
                ids[tid] += [e.event_id for e in res.envelopes]

        return go

    assert _run_all([client(t) for t in tids]) == []
    return ids


@pytest.mark.kafka
def test_reading_one_tournament_fetches_its_own_events_only(logs, monkeypatch):
    bootstrap = kafka_bootstrap()
    topic = _topic()
    writer = logs(topic, partitions=2)
    tids = [f"t{i:02d}" for i in range(20)]
    ids = _fill(writer, tids, rounds=6)
    reader = _Counting(bootstrap, topic=topic, partitions=2)  # a new process: index rebuilt
    try:
        for tid in tids:
            before = reader.fetched
            envs = list(reader.read(tid))
            assert [e.event_id for e in envs] == ids[tid]
            assert_chain(envs)
            assert reader.fetched - before == len(ids[tid]), "read() fetched other events"
            # A range: its own offsets only, too.
            before = reader.fetched
            part = [e.event_id for e in reader.read(tid, 3, 5)]
            assert part == ids[tid][2:5]
            assert reader.fetched - before == 3
        # Each partition indexed once: a second read of every tournament re-reads nothing
        # of the index (only its own records).
        indexed = {p.number: p.next_offset for p in reader._parts}
        assert all(len(list(reader.read(t))) == len(ids[t]) for t in tids)
        assert {p.number: p.next_offset for p in reader._parts} == indexed
    finally:
        reader.close()


@pytest.mark.kafka
def test_a_stale_index_is_extended_with_another_writers_appends(logs):
    """A reader's index, built before another writer (another process) appended, is extended
    from its last indexed offset to the partition's end on the next read: the new events are
    read, the other tournaments' too, and the reader can then append after them."""
    topic = _topic()
    a, b = logs(topic, partitions=1), logs(topic, partitions=1)
    tids = ["m", "n", "o"]
    ids = _fill(a, tids, rounds=3)
    assert [e.event_id for e in b.read("m")] == ids["m"]  # b's index built here
    indexed = b._parts[0].next_offset
    more = {t: [new_event(player(f"{t}-late-{k}")) for k in range(3)] for t in tids}
    for k in range(3):
        for t in tids:
            a.append(t, [more[t][k]])
    for t in tids:
        envs = list(b.read(t))
        assert [e.event_id for e in envs] == ids[t] + [e.event_id for e in more[t]]
        assert_chain(envs)
    assert b._parts[0].next_offset > indexed
    last = b.last_seq("m")
    res = b.append("m", [new_event(player("m-after"))], expected_seq=last)
    assert res.last_seq == last + 1
    envs = list(a.read("m"))  # and a, whose writer b fenced, sees it
    assert envs[-1].event_id == res.envelopes[0].event_id
    assert_chain(envs)


@pytest.mark.kafka
def test_read_after_restart_and_partition_routing(logs):
    """A new instance reads every tournament exactly as it was written (the index rebuilt
    from the partition), each from its own partition."""
    topic = _topic()
    w = logs(topic, partitions=3)
    tids = [f"r{i}" for i in range(9)]
    ids = _fill(w, tids, rounds=4)
    w.close()
    fresh = logs(topic, partitions=3)
    assert fresh.stream_ids() == sorted(tids)
    for t in tids:
        envs = list(fresh.read(t))
        assert [e.event_id for e in envs] == ids[t]
        assert fresh._part(t).number == partition_for(t, 3)
        assert_chain(envs)
    assert sum(1 for _ in fresh.read_all()) == sum(len(v) for v in ids.values())


def test_spans_merge_close_offsets_and_seek_over_far_ones():
    assert spans([5], 0) == [(5, 6)]
    assert spans([1, 2, 3, 10, 11, 40], 0) == [(1, 4), (10, 12), (40, 41)]
    assert spans([1, 3, 5], 0) == [(1, 2), (3, 4), (5, 6)]
    assert spans([1, 3, 5], 1) == [(1, 6)]
    assert spans([1, 2, 3, 10, 11, 40], 6) == [(1, 12), (40, 41)]
    assert spans([1, 2, 3, 10, 11, 40], 100) == [(1, 41)]
