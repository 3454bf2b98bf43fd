"""The event-log contract, run unchanged against SQLite and a real Kafka broker."""

from __future__ import annotations

import threading
import uuid

import pytest
from builders import created, new_event, player, result, round_
from tests_support import assert_chain

from events_schema import Envelope
from services.eventlog.base import AppendConflict, EventIdConflict, EventLog


def _setup_events(n0: int = 1):
    evs = [created(), player("a"), player("b"), round_(1, ("g1", "a", "b"))]
    return [new_event(e, n0 + i) for i, e in enumerate(evs)]


def test_append_assigns_gapless_seq_and_a_hash_chain(log: EventLog):
    res = log.append("t1", _setup_events()[:2])
    res2 = log.append("t1", _setup_events()[2:])
    assert [e.seq for e in res.envelopes + res2.envelopes] == [1, 2, 3, 4]
    stored = list(log.read("t1"))
    assert stored == res.envelopes + res2.envelopes
    assert [e.to_bytes() for e in stored] == [e.to_bytes() for e in res.envelopes + res2.envelopes]
    assert_chain(stored)
    assert log.last_seq("t1") == 4


def test_expected_seq_conflict_appends_nothing(log: EventLog):
    log.append("t1", _setup_events()[:2], expected_seq=0)
    with pytest.raises(AppendConflict) as info:
        log.append("t1", _setup_events()[2:], expected_seq=1)
    assert (info.value.expected, info.value.actual) == (1, 2)
    assert log.last_seq("t1") == 2
    log.append("t1", _setup_events()[2:], expected_seq=2)
    assert log.last_seq("t1") == 4


def test_redelivered_batch_is_accepted_once(log: EventLog):
    batch = _setup_events()
    first = log.append("t1", batch)
    again = log.append("t1", batch)
    assert again.duplicate and not first.duplicate
    assert again.envelopes == first.envelopes
    assert log.last_seq("t1") == 4
    # Redelivery is recognised even with a stale expected_seq.
    assert log.append("t1", batch[:1], expected_seq=0).duplicate


def test_event_id_reused_for_other_content_is_refused(log: EventLog):
    batch = _setup_events()
    log.append("t1", batch)
    forged = new_event(player("mallory"), 2)  # same id as batch[1], other payload
    with pytest.raises(EventIdConflict):
        log.append("t1", [forged])
    assert log.last_seq("t1") == 4


def test_partly_stored_batch_is_refused_whole(log: EventLog):
    batch = _setup_events()
    log.append("t1", batch[:2])
    with pytest.raises(EventIdConflict):
        log.append("t1", batch)
    assert log.last_seq("t1") == 2


def test_batch_repeating_an_event_id_is_refused(log: EventLog):
    e = new_event(created(), 1)
    with pytest.raises(EventIdConflict):
        log.append("t1", [e, e])
    assert log.last_seq("t1") == 0


def test_streams_are_independent_and_read_all_keeps_each_in_order(log: EventLog):
    for tid in ("t1", "t2", "t3"):
        log.append(tid, [new_event(created()), new_event(player("a"))])
    log.append("t2", [new_event(player("b"))])
    assert log.stream_ids() == ["t1", "t2", "t3"]
    assert [e.seq for e in log.read("t2")] == [1, 2, 3]
    everything = list(log.read_all())
    assert len(everything) == 7
    for tid in ("t1", "t2", "t3"):
        mine = [e for e in everything if e.tournament_id == tid]
        assert [e.seq for e in mine] == list(range(1, len(mine) + 1))
        assert_chain(mine)


def test_read_range(log: EventLog):
    log.append("t1", _setup_events())
    assert [e.seq for e in log.read("t1", from_seq=2, to_seq=3)] == [2, 3]
    assert [e.seq for e in log.read("t1", from_seq=4)] == [4]
    assert list(log.read("t1", from_seq=5)) == []
    assert list(log.read("nobody")) == []


def test_find_by_event_id(log: EventLog):
    res = log.append("t1", _setup_events())
    env = res.envelopes[2]
    assert log.find(env.event_id, "t1") == env
    assert log.find(env.event_id) == env
    assert log.find(uuid.uuid4(), "t1") is None


def test_subscribe_tails_new_events_only(log: EventLog):
    log.append("t1", _setup_events()[:2])
    with log.subscribe() as tail:
        assert tail.poll(timeout=0.3) == []
        log.append("t1", _setup_events()[2:])
        log.append("t2", [new_event(created())])
        got: list[Envelope] = []
        for _ in range(50):
            got += tail.poll(timeout=0.2)
            if len(got) >= 3:
                break
        assert sorted((e.tournament_id, e.seq) for e in got) == [("t1", 3), ("t1", 4), ("t2", 1)]
    with log.subscribe(from_beginning=True) as tail:
        got = []
        for _ in range(50):
            got += tail.poll(timeout=0.2)
            if len(got) >= 5:
                break
        assert len(got) == 5


def test_two_writers_racing_on_one_tournament(log_factory):
    """Two writers (separate log instances, as two API processes would be) race with
    expected_seq: every round exactly one wins, the other gets a conflict; no gap, no dup."""
    a, b = log_factory(), log_factory()
    a.append("race", [new_event(created())])
    wins = {"a": 0, "b": 0}
    conflicts = {"a": 0, "b": 0}
    errors: list[BaseException] = []
    rounds = 15

    for r in range(rounds):
        seq = a.last_seq("race")
        barrier = threading.Barrier(2)

        def go(name: str, log: EventLog, r=r, barrier=barrier, seq=seq) -> None:
            ev = new_event(result(f"g{r}", "1-0"))
            barrier.wait()
            try:
                log.append("race", [ev], expected_seq=seq)
                wins[name] += 1
            except AppendConflict:
                conflicts[name] += 1
            except BaseException as exc:  # surfaced by the assertion below
                errors.append(exc)

        threads = [threading.Thread(target=go, args=(n, lg)) for n, lg in (("a", a), ("b", b))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
    assert errors == []
    assert wins["a"] + wins["b"] == rounds
    assert conflicts["a"] + conflicts["b"] == rounds
    stored = list(b.read("race"))
    assert [e.seq for e in stored] == list(range(1, rounds + 2))
    assert len({e.event_id for e in stored}) == len(stored)
    assert_chain(stored)


def test_unconditional_writers_never_lose_or_duplicate(log_factory):
    """Without expected_seq both writers' events all land, gapless, each once."""
    a, b = log_factory(), log_factory()
    mine = {
        "a": [new_event(player(f"a{i}")) for i in range(20)],
        "b": [new_event(player(f"b{i}")) for i in range(20)],
    }

    errors: list[BaseException] = []

    def go(log: EventLog, evs) -> None:
        try:
            for e in evs:
                log.append("t", [e])
        except BaseException as exc:  # surfaced by the assertion below
            errors.append(exc)

    threads = [
        threading.Thread(target=go, args=(a, mine["a"])),
        threading.Thread(target=go, args=(b, mine["b"])),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert errors == []
    stored = list(a.read("t"))
    assert [e.seq for e in stored] == list(range(1, 41))
    assert {e.event_id for e in stored} == {e.event_id for e in mine["a"] + mine["b"]}
    assert_chain(stored)
