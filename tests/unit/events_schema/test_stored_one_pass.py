"""One-pass decode of stored events (issue 27 item 5, `events_schema/stored.py`): for a
payload of its type's current version, `read_envelope` validates the envelope and the payload
in one `validate_json`, and what comes out is exactly what the two passes gave (the envelope
with its payload dict, equal and byte-equal; the event); older versions are upcast as before;
whatever the one pass refuses is decoded by the two-pass path, which names why."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from builders import T0, new_event
from test_schema import MINIMAL, RICH

from events_schema import (
    EVENT_CLASSES,
    EVENT_TYPES,
    GENESIS_HASH,
    Envelope,
    Event,
    Recorded,
    decode,
)
from events_schema import events as ev
from events_schema.envelope import read_envelope
from events_schema.registry import Unreadable

GOLDEN = Path(__file__).parents[2] / "golden"


def _stored(event: Event) -> bytes:
    return new_event(event, 1).sealed("t1", 1, GENESIS_HASH, T0).to_bytes()


def _retyped(body: bytes, **changes: Any) -> bytes:
    """Stored bytes with envelope fields changed (not re-hashed: decode does not check it)."""
    env = Envelope.model_validate_json(body)
    return env.model_copy(update=changes).to_bytes()


def _two_pass(body: bytes) -> Recorded:
    return Recorded.of(Envelope.model_validate_json(body))


SAMPLES = [*MINIMAL.values(), *RICH]


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: e.event_type)
def test_a_current_payload_is_decoded_in_one_pass_to_what_two_passes_gave(event: Event) -> None:
    body = _stored(event)
    env = read_envelope(body)
    assert type(env) is Envelope
    assert env.decoded() == event  # the event came with the envelope
    two = Envelope.model_validate_json(body)
    assert env == two
    assert env.to_bytes() == two.to_bytes() == body
    assert env.payload == two.payload
    assert env.model_fields_set == two.model_fields_set
    assert list(env.__dict__) == list(two.__dict__)
    assert Recorded.of(env).event == decode(two) == event


def test_every_event_class_is_sampled() -> None:
    assert {type(e) for e in MINIMAL.values()} == set(EVENT_CLASSES)


def test_the_golden_demo_log_reads_byte_equal_in_one_pass() -> None:
    current = 0
    for line in (GOLDEN / "demo-rr.events.jsonl").read_bytes().splitlines():
        env = read_envelope(line)
        if env.schema_version == EVENT_TYPES[env.type].schema_version:
            assert env.decoded() is not None, env.type
            current += 1
        assert env.to_bytes() == line
        assert env.computed_hash() == env.hash
        assert Recorded.of(env).event == _two_pass(line).event
    assert current > 0


def test_an_old_version_is_upcast_as_before() -> None:
    """Given a PlayerRegistered v1 (`engine: true`, `version`), when read, then the envelope
    keeps the stored v1 payload and `Recorded.of` upcasts it to the current class."""
    body = _retyped(
        _stored(ev.PlayerRegistered(player_id="e", name="Stockfish")),
        schema_version=1,
        payload={"player_id": "e", "name": "Stockfish", "engine": True, "version": "17"},
    )
    env = read_envelope(body)
    assert env.schema_version == 1
    assert env.payload["engine"] is True
    assert env.decoded() is None
    event = Recorded.of(env).event
    assert isinstance(event, ev.PlayerRegistered)
    assert (event.kind, event.engine_version) == ("engine", "17")
    assert event == _two_pass(body).event
    assert env == Envelope.model_validate_json(body)


@pytest.mark.parametrize(
    "changes",
    [
        {"type": "NoSuchEvent"},
        {"schema_version": 99},
        {"payload": {"player_id": "p", "name": "P", "unexpected": 1}},
        {"payload": {"name": "no player id"}},
    ],
    ids=["unknown type", "newer version", "extra field", "missing field"],
)
def test_what_one_pass_refuses_is_unreadable_for_the_same_reason_as_before(
    changes: dict[str, Any],
) -> None:
    body = _retyped(_stored(ev.PlayerRegistered(player_id="p", name="P")), **changes)
    rec = Recorded.of(read_envelope(body))
    assert isinstance(rec.event, Unreadable)
    before = _two_pass(body)
    assert rec.event == before.event
    assert rec.envelope == before.envelope


def test_a_copy_with_another_payload_is_decoded_again() -> None:
    env = read_envelope(_stored(ev.PlayerRegistered(player_id="p", name="P")))
    moved = env.model_copy(update={"seq": 7})
    assert moved.decoded() == ev.PlayerRegistered(player_id="p", name="P")
    other = env.model_copy(update={"payload": {"player_id": "q", "name": "Q"}})
    assert other.decoded() is None
    assert Recorded.of(other).event == ev.PlayerRegistered(player_id="q", name="Q")
    renamed = env.model_copy(
        update={"type": "PlayerWithdrew", "schema_version": 1, "payload": {"player_id": "p"}}
    )
    assert Recorded.of(renamed).event == ev.PlayerWithdrew(player_id="p")
