"""The pieces of `ARBITER_KAFKA_OWNERSHIP=group` that need no broker (issue 27 item 2): the
assignor's owners map, the forwarded answer read back as the caller's own append would give
it, and the setting."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from uuid import uuid4

import orjson
import pytest
from kafka.protocol.consumer.metadata import ConsumerProtocolSubscription

from events_schema import GENESIS_HASH
from events_schema.envelope import Actor
from events_schema.limits import LimitExceeded
from services.config import Settings
from services.eventlog.base import AppendConflict, EventIdConflict, NewEvent
from services.eventlog.kafka.clients import KafkaUnavailable
from services.eventlog.kafka.log import answer_result
from services.eventlog.kafka.ownership import NotOwner, OwnersAssignor


class _Cluster:
    def partitions_for_topic(self, topic: str) -> set[int]:
        return {0, 1, 2, 3, 4}


def _member(member_id: str, url: str) -> SimpleNamespace:
    meta = ConsumerProtocolSubscription(0, ["arbiter.events"], url.encode())
    return SimpleNamespace(member_id=member_id, group_instance_id=None, metadata=meta)


def test_every_member_learns_every_partitions_owner_from_its_assignment():
    seen: list[dict[int, str]] = []
    assignor = OwnersAssignor("http://a", lambda owners, generation: seen.append(owners))
    members = [_member("m-1", "http://a"), _member("m-2", "http://b")]
    out = assignor.assign(_Cluster(), members)
    # Kafka's range assignment: 3 partitions to the first member, 2 to the second.
    assert dict(out["m-1"].assigned_partitions) == {"arbiter.events": [0, 1, 2]}
    assert dict(out["m-2"].assigned_partitions) == {"arbiter.events": [3, 4]}
    for member_id in ("m-1", "m-2"):
        assignor.on_assignment(out[member_id], 7)
    expected = {0: "http://a", 1: "http://a", 2: "http://a", 3: "http://b", 4: "http://b"}
    assert seen == [expected, expected]
    assert assignor.metadata({"arbiter.events"}).user_data == b"http://a"


def _ruling() -> NewEvent:
    return NewEvent(
        event_id=uuid4(),
        type="RulingIssued",
        schema_version=1,
        occurred_at=datetime(2026, 1, 1, tzinfo=UTC),
        actor=Actor(id="admin", role="admin"),
        payload={"ruling_id": "r1", "by": "a", "subject": "s", "text": "t"},
    )


def _envelope_json() -> dict[str, object]:
    env = _ruling().sealed("t1", 1, GENESIS_HASH, datetime(2026, 1, 1, tzinfo=UTC))
    return env.model_dump(mode="json")


def test_a_forwarded_append_answers_as_the_owners_append_did():
    env = _envelope_json()
    result = answer_result(200, orjson.dumps({"duplicate": True, "envelopes": [env]}))
    assert result.duplicate and result.last_seq == 1
    assert str(result.envelopes[0].event_id) == env["event_id"]

    body = {"error": "AppendConflict", "tid": "t1", "expected": 3, "actual": 5}
    with pytest.raises(AppendConflict) as conflict:
        answer_result(409, orjson.dumps(body))
    assert (conflict.value.expected, conflict.value.actual) == (3, 5)
    with pytest.raises(EventIdConflict):
        answer_result(409, orjson.dumps({"error": "EventIdConflict", "message": "reused"}))
    limit = {
        "error": "LimitExceeded",
        "limit": "event_bytes",
        "field": "f",
        "message": "m",
        "status": 413,
    }
    with pytest.raises(LimitExceeded) as too_big:
        answer_result(413, orjson.dumps(limit))
    assert too_big.value.status == 413
    with pytest.raises(NotOwner):
        answer_result(421, orjson.dumps({"error": "NotOwner", "message": "moved"}))
    # An owner that failed says whether its commit may have landed; an unreadable answer may.
    with pytest.raises(KafkaUnavailable) as unavailable:
        answer_result(
            503, orjson.dumps({"error": "Unavailable", "message": "x", "maybe_committed": False})
        )
    assert unavailable.value.maybe_committed is False
    with pytest.raises(KafkaUnavailable) as unknown:
        answer_result(502, b"")
    assert unknown.value.maybe_committed is True


def test_ownership_is_single_unless_set(monkeypatch: pytest.MonkeyPatch):
    for name in ("ARBITER_KAFKA_OWNERSHIP", "ARBITER_ADVERTISED_URL", "ARBITER_FORWARD_SECRET"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings.from_env()
    assert settings.kafka_ownership == "single"
    assert settings.ownership_options() == {}
    monkeypatch.setenv("ARBITER_KAFKA_OWNERSHIP", "group")
    monkeypatch.setenv("ARBITER_ADVERTISED_URL", "http://10.0.0.1:8000")
    monkeypatch.setenv("ARBITER_FORWARD_SECRET", "s")
    assert "ownership" not in Settings.from_env().kafka_options()  # a CLI append: no member
    options = Settings.from_env().ownership_options()
    assert options["ownership"] == "group"
    assert options["advertised_url"] == "http://10.0.0.1:8000"
    assert options["forward_secret"] == "s"


def test_a_forwarded_append_carries_the_event_it_was_decided_after(monkeypatch):
    """The pipelined command path forwards a batch with `after` (the event it was decided
    after, still in flight then): the owner admits it only right after that event, as for
    its own appends (writer.py `_plan`). Without it a forwarded batch could land after
    another process's event at the same place, decided on a state it never saw."""
    from services.eventlog.base import AppendResult
    from services.eventlog.kafka import log as log_mod
    from services.eventlog.kafka.log import KafkaEventLog

    event = _ruling()
    after = uuid4()
    owner = object.__new__(KafkaEventLog)
    owner.ownership = SimpleNamespace(owns=lambda partition: True)
    owner.partitions = 8
    seen: list[object] = []

    def submit(self, tid, events, expected_seq=None, after=None):
        seen.append((tid, expected_seq, after))
        return lambda: AppendResult([])

    monkeypatch.setattr(log_mod.GroupCommitWriter, "submit", submit)

    class _Wire:  # the forwarder's HTTP hop, straight into the owner's handler
        def post(self, url, body, headers, timeout):
            return owner.append_forwarded(body)

    caller = object.__new__(KafkaEventLog)
    caller._forwarder = _Wire()
    caller.forward_secret = "s"
    caller.forwarded = 0
    caller.VISIBLE_TIMEOUT_S = 1.0
    caller._forward("http://owner", "t1", [event], 4, 1e12, after)
    caller._forward("http://owner", "t1", [event], 4, 1e12)
    assert seen == [("t1", 4, after), ("t1", 4, None)]
