"""The one-pass decode the decode benchmark measures (`tests/bench/one_pass.py`, issue 27
item 5) gives what the readers' two passes give: the same envelope, payload dict (to the byte:
what is hashed) and event; an old version, a type with nested models, a body only lax mode
accepts, one whose keys are out of order or whose type disagrees with its payload are left to
the two passes (None). Not timed: the figures are the benchmark's."""

from __future__ import annotations

import uuid
from datetime import timedelta
from decimal import Decimal
from typing import Any, ClassVar

import orjson
import pytest
from builders import ARBITER, T0
from fuzz.test_nasty_inputs import MINIMAL
from pydantic import ConfigDict, field_validator

from events_schema import EVENT_TYPES, GENESIS_HASH, Envelope, Event, Recorded, encode_payload
from events_schema.codec import dumps
from events_schema.envelope import read_envelope
from events_schema.events import MovePlayed, RoundScheduled
from services.eventlog.base import NewEvent

from .one_pass import decode_current, payload_plan

MOVE = {
    "game_id": "r1b1",
    "ply": 1,
    "colour": "white",
    "uci": "e2e4",
    "san": "e4",
    "clock_ms": 5_400_000,
    "eval_cp": 20,
    "pv": ["e7e5", "g1f3"],
    "mate_in": None,
}


def stored(type_: str, payload: dict[str, Any], version: int | None = None) -> bytes:
    ne = NewEvent(
        event_id=uuid.UUID(int=1),
        type=type_,
        schema_version=version or EVENT_TYPES[type_].schema_version,
        occurred_at=T0,
        actor=ARBITER,
        payload=payload,
    )
    return ne.sealed("t-1", 1, GENESIS_HASH, T0 + timedelta(seconds=1)).to_bytes()


def assert_same(body: bytes) -> None:
    rec = decode_current(body)
    assert rec is not None
    ref = Recorded.of(read_envelope(body))
    assert rec.envelope.__class__ is Envelope and rec.envelope == ref.envelope
    assert rec.envelope.payload == ref.envelope.payload == orjson.loads(body)["payload"]
    assert list(rec.envelope.payload) == list(ref.envelope.payload)  # the stored key order
    assert rec.event == ref.event and rec.event.__class__ is ref.event.__class__
    assert rec.envelope.to_bytes() == body and rec.envelope.computed_hash() == rec.envelope.hash


@pytest.mark.parametrize("type_", sorted(MINIMAL))
def test_every_current_type_decodes_as_the_two_passes_do_or_is_left_to_them(type_: str) -> None:
    body = stored(type_, encode_payload(EVENT_TYPES[type_].model_validate(MINIMAL[type_])))
    if payload_plan(EVENT_TYPES[type_]) is None:
        assert decode_current(body) is None
    else:
        assert_same(body)


def test_a_move_with_its_pv_decodes_in_one_pass() -> None:
    body = stored("MovePlayed", MOVE)
    assert_same(body)
    rec = decode_current(body)
    assert rec is not None and rec.event == MovePlayed(**MOVE)
    assert rec.envelope.payload["pv"] is not rec.event.pv  # type: ignore[attr-defined]
    assert "mate_in" in rec.envelope.payload and "point" not in rec.envelope.payload


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(stored("MovePlayed", {**MOVE, "pv": None}, version=1), id="old-version"),
        pytest.param(
            stored("RoundScheduled", {"round": 1, "pairings": [], "byes": []}), id="nested-models"
        ),
        pytest.param(stored("MovePlayed", {**MOVE, "ply": 3.0}), id="lax-only-int"),
    ],
)
def test_what_the_one_pass_leaves_to_the_two_passes(body: bytes) -> None:
    assert decode_current(body) is None


def test_a_body_out_of_canonical_order_or_whose_type_disagrees_is_left_to_the_two_passes() -> None:
    doc = orjson.loads(stored("MovePlayed", MOVE))
    assert decode_current(orjson.dumps({"type": doc.pop("type"), **doc})) is None
    doc = orjson.loads(stored("MovePlayed", MOVE))
    doc["type"], doc["schema_version"] = "GameEnded", EVENT_TYPES["GameEnded"].schema_version
    assert decode_current(dumps(doc)) is None


class _Validated(Event):
    event_type: ClassVar[str] = "Validated"
    name: str

    @field_validator("name")
    @classmethod
    def _upper(cls, v: str) -> str:
        return v.upper()


class _Stripped(Event):
    model_config = ConfigDict(str_strip_whitespace=True)
    event_type: ClassVar[str] = "Stripped"
    name: str


class _Money(Event):
    event_type: ClassVar[str] = "Money"
    amount: Decimal


class _MaybeMoney(Event):
    event_type: ClassVar[str] = "MaybeMoney"
    amount: Decimal | None = None


def test_only_payloads_whose_values_are_their_json_take_the_one_pass() -> None:
    assert dict(payload_plan(MovePlayed) or ())["pv"] == 1  # a list: copied
    assert payload_plan(RoundScheduled) is None  # pairings are models
    assert payload_plan(_Validated) is None  # a validator may change the value
    assert payload_plan(_Stripped) is None  # so may the config
    assert payload_plan(_Money) is None  # a Decimal is not its JSON
    assert dict(payload_plan(_MaybeMoney) or ())["amount"] == 2  # exact while null
