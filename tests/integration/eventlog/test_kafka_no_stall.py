"""No stall after a commit on the Kafka log (issue 27 item 1), against the real broker
(`deploy/kafka/start`, KAFKA_BOOTSTRAP).

Every transaction ends with a commit marker, which takes the offset after the batch; the
partition's last stable offset (what `end_offsets` answers under read_committed) is past it.
The index catch-up of the next read must stop on the fetch that skips that marker, not wait
for a record that cannot come. Counted, not timed: the fetch requests the log's consumers send
(kafka-python's `Fetcher._create_fetch_requests`, one request per broker per fetch) while a read
follows an append. The old catch-up (`poll(timeout_ms=200)` looping until a record came) sent a
fetch every `fetch_max_wait_ms` (50 ms) for 200 ms: four or more.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from builders import created, new_event, player
from conftest import kafka_bootstrap
from kafka.consumer.fetcher import Fetcher

from services.eventlog.kafka import KafkaEventLog


@pytest.fixture
def log() -> Iterator[KafkaEventLog]:
    bootstrap = kafka_bootstrap()
    assert bootstrap is not None
    opened = KafkaEventLog(
        bootstrap, topic=f"arbiter.test.stall.{uuid.uuid4().hex[:12]}", partitions=1
    )
    yield opened
    opened.close()


@pytest.fixture
def fetches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The fetch requests every consumer of this process sends, one entry per request."""
    sent: list[int] = []
    target = "kafka.consumer.fetcher.Fetcher._create_fetch_requests"
    original = vars(Fetcher)[target.rsplit(".", 1)[1]]

    def counted(self: Fetcher) -> Any:
        requests = original(self)
        sent.extend(1 for _ in requests)
        return requests

    monkeypatch.setattr(target, counted)
    return sent


@pytest.mark.kafka
def test_a_read_after_an_append_takes_at_most_two_fetches(
    log: KafkaEventLog, fetches: list[int]
) -> None:
    """Given a tournament on the log (and the reader warmed: metadata, connections), when an
    event is appended and the tournament read straight after, then the read sees it after one
    fetch for the index catch-up (its answer is the commit marker) and one for the event, each
    time, and the log's fetch rounds agree."""
    log.append("t1", [new_event(created())])
    assert [e.seq for e in log.read("t1")] == [1]
    for k in range(5):
        ev = new_event(player(f"p{k}"))
        log.append("t1", [ev])
        fetches.clear()
        rounds = log.fetch_rounds
        stored = list(log.read("t1"))
        assert stored[-1].event_id == ev.event_id
        assert stored[-1].seq == k + 2
        assert len(fetches) <= 2, f"append {k}: {len(fetches)} fetches for one read"
        assert log.fetch_rounds - rounds <= 2


@pytest.mark.kafka
def test_catch_up_over_a_commit_marker_alone_is_one_fetch(
    log: KafkaEventLog, fetches: list[int]
) -> None:
    """Given a committed append (the index ends one short of the partition's end: the marker),
    when the last seq is asked, then the catch-up makes one fetch (which skips the marker) and
    a second ask makes none (the index is at the last stable offset)."""
    log.append("t2", [new_event(created())])
    assert log.last_seq("t2") == 1
    log.append("t2", [new_event(player("p"))])
    part = log._parts[0]
    end = log._end_offset(log._tps[0])
    assert part.next_offset == end - 1, "the commit marker should take the last offset"
    fetches.clear()
    assert log.last_seq("t2") == 2
    assert len(fetches) == 1
    assert part.next_offset == end
    assert log.last_seq("t2") == 2
    assert len(fetches) == 1
