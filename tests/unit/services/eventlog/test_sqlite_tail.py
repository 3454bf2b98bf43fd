"""The embedded log's tail (`SQLiteSubscription`, issue 27 item 3): this process's appends
wake it at once; another process's are polled for, at intervals that grow while nothing comes
(an idle server no longer reads the log 200 times a second), back to the shortest once one is
found."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from builders import created, new_event, player

from services.eventlog.base import AppendConflict
from services.eventlog.sqlite import SQLiteEventLog, SQLiteSubscription


class _CountingCondition(threading.Condition):
    def __init__(self) -> None:
        super().__init__()
        self.waits = 0

    def wait(self, timeout: float | None = None) -> bool:
        self.waits += 1
        return super().wait(timeout)


def _counting_reads(log: SQLiteEventLog) -> list[int]:
    reads: list[int] = []
    after = log._after

    def counted(position: int, limit: int):  # type: ignore[no-untyped-def]
        reads.append(position)
        return after(position, limit)

    log._after = counted  # type: ignore[method-assign]
    return reads


def test_an_idle_tail_polls_less_and_less_often(tmp_path: Path) -> None:
    log = SQLiteEventLog(tmp_path / "e.sqlite3")
    reads = _counting_reads(log)
    with log.subscribe() as tail:
        assert isinstance(tail, SQLiteSubscription)
        assert tail.poll(timeout=0.4) == []
        # At the first interval (5 ms) it would have read about 80 times; doubling up to
        # 50 ms it reads at most 1 + 4 (5, 10, 20, 40 ms) + 0.4 / 0.05.
        assert len(reads) <= 14
        assert tail._interval == SQLiteSubscription.MAX_POLL_INTERVAL


def test_this_process_append_wakes_a_tail_waiting_its_longest(tmp_path: Path) -> None:
    log = SQLiteEventLog(tmp_path / "e.sqlite3")
    with log.subscribe() as tail:
        assert tail.poll(timeout=0.2) == []
        assert tail._interval == SQLiteSubscription.MAX_POLL_INTERVAL
        got: list[int] = []
        poller = threading.Thread(target=lambda: got.extend(e.seq for e in tail.poll(60)))
        poller.start()
        log.append("t1", [new_event(created())])
        poller.join(60)
        assert got == [1]
        # Its own appends do not bring the short interval back: a live server's moves come
        # through the wake-up, not the polling.
        assert tail._interval == SQLiteSubscription.MAX_POLL_INTERVAL


def test_an_append_between_the_read_and_the_wait_is_not_slept_over(tmp_path: Path) -> None:
    log = SQLiteEventLog(tmp_path / "e.sqlite3")
    log._appended = cond = _CountingCondition()
    after = log._after
    first = [True]

    def read_then_append(position: int, limit: int):  # type: ignore[no-untyped-def]
        rows = after(position, limit)
        if first[0]:  # the append lands right after the (empty) read, before the wait
            first[0] = False
            log.append("t1", [new_event(created())])
        return rows

    with log.subscribe() as tail:
        log._after = read_then_append  # type: ignore[method-assign]
        got = tail.poll(timeout=60)
    assert [e.seq for e in got] == [1]
    assert cond.waits == 0  # read again at once, never waited for a notification it missed


def test_another_process_append_is_found_and_brings_the_short_interval_back(
    tmp_path: Path,
) -> None:
    ours = SQLiteEventLog(tmp_path / "e.sqlite3")
    theirs = SQLiteEventLog(tmp_path / "e.sqlite3")  # another process's instance
    with ours.subscribe() as tail:
        assert tail.poll(timeout=0.2) == []
        assert tail._interval == SQLiteSubscription.MAX_POLL_INTERVAL
        theirs.append("t1", [new_event(created()), new_event(player("a"))])
        got = []
        for _ in range(100):
            got += tail.poll(timeout=0.5)
            if len(got) == 2:
                break
        assert [e.seq for e in got] == [1, 2]
        assert tail._interval == SQLiteSubscription.POLL_INTERVAL


def test_handed_over_envelopes_are_what_a_read_of_their_rows_decodes(tmp_path: Path) -> None:
    """This process's appends reach its tail from memory (`_recent`), another process's from
    the rows; interleaved, the tail gets every event once, in log order, each the very value
    (types included: `repr`) that reading the log decodes."""
    ours = SQLiteEventLog(tmp_path / "e.sqlite3")
    theirs = SQLiteEventLog(tmp_path / "e.sqlite3")
    reads = _counting_reads(ours)
    with ours.subscribe() as tail:
        ours.append("t1", [new_event(created()), new_event(player("a"))])
        got = tail.poll(timeout=5)
        assert reads == []  # handed over: no read of the log
        theirs.append("t1", [new_event(player("b"))])
        ours.append("t2", [new_event(created())])  # follows theirs: read, not handed over
        ours.append("t1", [new_event(player("c")), new_event(player("d"))])
        for _ in range(100):
            got += tail.poll(timeout=0.5)
            if len(got) == 6:
                break
    stored = list(ours.read_all())
    assert [(e.tournament_id, e.seq) for e in got] == [
        ("t1", 1),
        ("t1", 2),
        ("t1", 3),
        ("t2", 1),
        ("t1", 4),
        ("t1", 5),
    ]
    assert repr(got) == repr(stored)
    assert [e.to_bytes() for e in got] == list(ours.read_raw("t1"))[:3] + list(
        ours.read_raw("t2")
    ) + list(ours.read_raw("t1"))[3:]


def test_a_refused_or_duplicate_append_hands_nothing_over(tmp_path: Path) -> None:
    log = SQLiteEventLog(tmp_path / "e.sqlite3")
    first = new_event(created())
    log.append("t1", [first])
    with log.subscribe() as tail:
        assert log.append("t1", [first]).duplicate
        with pytest.raises(AppendConflict):
            log.append("t1", [new_event(player("z"))], expected_seq=7)
        log.append("t1", [new_event(player("a"))])
        got = tail.poll(timeout=5)
    assert [e.seq for e in got] == [2]
    assert sorted(log._recent) == [1, 2]
