"""One-pass decode of stored events (issue 27 item 5, `events_schema/stored.py`).

A body at its type's current schema_version is decoded in one strict validation of an envelope
specialised to its (type, version); it must give what the two passes give (the envelope, its
payload dict, the event), to the byte. Old versions are still upcast, and a body the peek
misreads, or whose type disagrees with its payload, takes the two passes as before, so its
refusal still names the field and the rule.
"""

from __future__ import annotations

import copy
import pickle
import sqlite3
import uuid
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any, ClassVar

import orjson
import pytest
from builders import ARBITER, T0
from fuzz.test_nasty_inputs import MINIMAL
from pydantic import ConfigDict, field_validator

from events_schema import (
    EVENT_TYPES,
    GENESIS_HASH,
    Envelope,
    Event,
    Recorded,
    decode_payload,
    encode_payload,
)
from events_schema.codec import dumps
from events_schema.envelope import read_envelope
from events_schema.events import MovePlayed, PlayerRegistered, RoundScheduled
from events_schema.registry import Unreadable
from events_schema.stored import DecodedPayload, payload_plan
from services.eventlog.base import NewEvent
from services.eventlog.sqlite import SQLiteEventLog

MOVE = {
    "game_id": "r1b1",
    "ply": 1,
    "colour": "white",
    "uci": "e2e4",
    "san": "e4",
    "clock_ms": 5_400_000,
    "eval_cp": 20,
    "pv": ["e7e5", "g1f3"],
}


def stored(type_: str, payload: dict[str, Any], version: int | None = None, seq: int = 1) -> bytes:
    """The canonical stored bytes of one sealed event, as a log writes them."""
    ne = NewEvent(
        event_id=uuid.UUID(int=seq),
        type=type_,
        schema_version=version or EVENT_TYPES[type_].schema_version,
        occurred_at=T0 + timedelta(seconds=seq),
        actor=ARBITER,
        payload=payload,
    )
    return ne.sealed("t-1", seq, GENESIS_HASH, T0 + timedelta(seconds=seq)).to_bytes()


def two_passes(body: bytes) -> Recorded:
    """What the readers did before: the envelope with a plain dict, then the payload."""
    env = Envelope.model_validate_json(body)
    return Recorded(env, decode_payload(env.type, env.schema_version, env.payload))


def assert_same(body: bytes) -> Recorded:
    rec = Recorded.of(read_envelope(body))
    ref = two_passes(body)
    assert rec.envelope.__class__ is Envelope
    assert rec.envelope == ref.envelope
    assert rec.envelope.payload == ref.envelope.payload == orjson.loads(body)["payload"]
    assert list(rec.envelope.payload) == list(ref.envelope.payload)  # the stored key order
    assert rec.event == ref.event and rec.event.__class__ is ref.event.__class__
    assert rec.event.model_fields_set == ref.event.model_fields_set
    assert rec.envelope.to_bytes() == body  # what is hashed and served: the stored bytes
    assert rec.envelope.computed_hash() == rec.envelope.hash
    return rec


@pytest.mark.parametrize("type_", sorted(MINIMAL))
def test_every_current_type_decodes_as_the_two_passes_do(type_: str) -> None:
    payload = encode_payload(EVENT_TYPES[type_].model_validate(MINIMAL[type_]))
    assert_same(stored(type_, payload))


def test_a_move_is_decoded_in_one_pass_and_carries_its_event() -> None:
    body = stored("MovePlayed", {**MOVE, "pv": ["e7e5", "g1f3"], "mate_in": None})
    env = read_envelope(body)
    assert env.payload.__class__ is DecodedPayload  # the one pass was taken
    assert_same(body)
    rec = Recorded.of(env)
    assert rec.event is env.payload.event  # not validated again
    assert rec.event == MovePlayed(**{**MOVE, "mate_in": None})
    # the dict's list is its own: the event's is not reachable through the payload
    assert env.payload["pv"] == ["e7e5", "g1f3"] and env.payload["pv"] is not rec.event.pv  # type: ignore[attr-defined]
    assert "mate_in" in env.payload and "point" not in env.payload  # the keys stored, only


def test_the_decoded_envelope_survives_copy_pickle_and_dump() -> None:
    body = stored("MovePlayed", MOVE)
    env = read_envelope(body)
    for other in (copy.deepcopy(env), pickle.loads(pickle.dumps(env)), env.model_copy()):
        assert other == env and other.to_bytes() == body
        assert Recorded.of(other).event == Recorded.of(env).event
    assert env.to_json_dict()["payload"].__class__ is dict
    assert dumps(env.payload) == dumps(orjson.loads(body)["payload"])


def test_an_envelope_copied_to_another_type_is_decoded_again() -> None:
    """`Recorded.of` trusts the carried event only while the envelope still names its type
    and version."""
    env = read_envelope(stored("PlayerWithdrew", {"player_id": "a"}))
    assert env.payload.__class__ is DecodedPayload
    moved = env.model_copy(update={"type": "PlayerArrived"})
    rec = Recorded.of(moved)
    assert rec.event.__class__ is Unreadable  # PlayerArrived needs a game and a time
    assert rec.event == Recorded.of(Envelope.model_validate_json(moved.to_bytes())).event
    assert rec.event.reason.startswith("ValidationError: PlayerArrived.")  # type: ignore[attr-defined]


def test_an_old_version_is_upcast_as_before() -> None:
    """MovePlayed v1 (no `pv`) and PlayerRegistered v2 (no go_rank, fide_id, club): the two
    passes, the upcasters, the same event."""
    v1 = {k: v for k, v in MOVE.items() if k != "pv"}
    body = stored("MovePlayed", v1, version=1)
    env = read_envelope(body)
    assert env.payload.__class__ is dict and env.schema_version == 1
    rec = assert_same(body)
    assert rec.event == MovePlayed(**v1, pv=None)

    reg = {"player_id": "p1", "name": "P1", "rating": 2500, "kind": "human"}
    rec = assert_same(stored("PlayerRegistered", reg, version=2))
    assert rec.event == PlayerRegistered(**reg, go_rank=None, fide_id=None, club=None)


def test_a_type_whose_payload_holds_other_values_takes_the_two_passes() -> None:
    payload = {
        "round": 1,
        "pairings": [{"game_id": "r1b1", "white": "a", "black": "b"}],
        "byes": [],
    }
    body = stored("RoundScheduled", payload)
    assert read_envelope(body).payload.__class__ is dict
    assert assert_same(body).event.__class__ is RoundScheduled


def test_a_value_only_lax_mode_accepts_is_decoded_by_the_two_passes() -> None:
    """`"ply": 3.0` is an int to the lax two passes; the strict pass refuses it, so the
    payload dict keeps the stored 3.0 (what is hashed) and the event has 3."""
    body = stored("MovePlayed", {**MOVE, "ply": 3.0})
    env = read_envelope(body)
    assert env.payload.__class__ is dict and env.payload["ply"] == 3.0
    assert assert_same(body).event.ply == 3  # type: ignore[attr-defined]


def test_a_body_whose_keys_are_not_in_canonical_order_is_decoded_safely() -> None:
    """The peek reads the body's last keys; a body stored out of order (a manual edit) is
    misread, the specialised model is never tried or refuses it, the two passes decode it."""
    doc = orjson.loads(stored("MovePlayed", MOVE))
    body = orjson.dumps({"type": doc.pop("type"), **doc})  # "type" first, not last
    env = read_envelope(body)
    assert env.payload.__class__ is dict
    rec = Recorded.of(env)
    assert rec.event == two_passes(body).event == MovePlayed(**MOVE)


def test_a_body_whose_type_disagrees_with_its_payload_is_refused_as_before() -> None:
    """The peek and the literals say GameEnded, the payload is a move: the one pass refuses
    it, and the two passes hold it as `Unreadable`, naming the field and the rule."""
    doc = orjson.loads(stored("MovePlayed", MOVE))
    doc["type"], doc["schema_version"] = "GameEnded", EVENT_TYPES["GameEnded"].schema_version
    body = dumps(doc)
    rec = Recorded.of(read_envelope(body))
    assert rec.event.__class__ is Unreadable
    ref = Recorded.of(Envelope.model_validate_json(body))
    assert rec.event == ref.event
    assert rec.event.reason == "ValidationError: GameEnded.result: Field required"  # type: ignore[attr-defined]


def test_a_sqlite_row_whose_body_was_edited_to_a_bad_value_names_the_field_and_rule(
    tmp_path: Path,
) -> None:
    """A stored row edited by hand (its columns say seq 1 of t-1; its body's ply is 0 now):
    read back, the one pass refuses it and the two passes name `ply` and its bound."""
    log = SQLiteEventLog(tmp_path / "log.sqlite3", synchronous="NORMAL")
    ne = NewEvent(
        event_id=uuid.uuid4(),
        type="MovePlayed",
        schema_version=2,
        occurred_at=T0,
        actor=ARBITER,
        payload=MOVE,
    )
    log.append("t-1", [ne])
    (good,) = log.read("t-1")
    assert good.payload.__class__ is DecodedPayload
    log.close()
    conn = sqlite3.connect(tmp_path / "log.sqlite3")
    body = bytes(conn.execute("SELECT body FROM events").fetchone()[0]).replace(
        b'"ply":1', b'"ply":0'
    )
    conn.execute("UPDATE events SET body = ?", (body,))
    conn.commit()
    conn.close()
    log = SQLiteEventLog(tmp_path / "log.sqlite3", synchronous="NORMAL")
    (env,) = log.read("t-1")
    rec = Recorded.of(env)
    assert rec.event.__class__ is Unreadable
    assert rec.event.reason == (  # type: ignore[attr-defined]
        "ValidationError: MovePlayed.ply: Input should be greater than or equal to 1"
    )
    assert rec.envelope.seq == 1 and rec.envelope.event_id == ne.event_id
    log.close()


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
    assert payload_plan(MovePlayed) is not None
    assert dict(payload_plan(MovePlayed) or ())["pv"] == 1  # a list: copied
    assert payload_plan(RoundScheduled) is None  # pairings are models
    assert payload_plan(_Validated) is None  # a validator may change the value
    assert payload_plan(_Stripped) is None  # so may the config
    assert payload_plan(_Money) is None  # a Decimal is not its JSON
    assert dict(payload_plan(_MaybeMoney) or ())["amount"] == 2  # exact while null
