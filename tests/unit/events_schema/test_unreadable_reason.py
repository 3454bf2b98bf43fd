"""A stored event whose payload cannot be decoded is held as `Unreadable` with a reason that
names the field and the rule (issue 27: the reader's decode, `Recorded.of`)."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

import orjson
from builders import ARBITER, T0

from events_schema import EVENT_TYPES, Envelope, Recorded
from events_schema.codec import dumps
from events_schema.envelope import read_envelope
from events_schema.events import MovePlayed
from events_schema.registry import Unreadable
from services.eventlog.base import NewEvent
from services.eventlog.sqlite import SQLiteEventLog

MOVE = {"game_id": "r1b1", "ply": 1, "colour": "white", "uci": "e2e4", "san": "e4"}


def _move(version: int = 2, **payload: object) -> NewEvent:
    return NewEvent(
        event_id=uuid.uuid4(),
        type="MovePlayed",
        schema_version=version,
        occurred_at=T0,
        actor=ARBITER,
        payload={**MOVE, **payload},
    )


def test_a_sqlite_row_edited_to_a_bad_value_is_held_naming_the_field_and_rule(
    tmp_path: Path,
) -> None:
    """A stored row edited by hand (its body's ply is 0 now): read back, it keeps its place
    (seq and id) and its reason names `MovePlayed.ply` and the bound it breaks."""
    path = tmp_path / "log.sqlite3"
    log = SQLiteEventLog(path, synchronous="NORMAL")
    ne = _move()
    log.append("t-1", [ne])
    log.close()
    conn = sqlite3.connect(path)
    body = bytes(conn.execute("SELECT body FROM events").fetchone()[0])
    conn.execute("UPDATE events SET body = ?", (body.replace(b'"ply":1', b'"ply":0'),))
    conn.commit()
    conn.close()
    log = SQLiteEventLog(path, synchronous="NORMAL")
    (env,) = log.read("t-1")
    rec = Recorded.of(env)
    assert rec.unreadable and rec.envelope.seq == 1 and rec.envelope.event_id == ne.event_id
    assert rec.event.reason == (  # type: ignore[attr-defined]
        "ValidationError: MovePlayed.ply: Input should be greater than or equal to 1"
    )
    log.close()


def test_a_body_whose_type_disagrees_with_its_payload_names_the_missing_field() -> None:
    doc = orjson.loads(_move().sealed("t-1", 1, "0" * 64, T0).to_bytes())
    doc["type"], doc["schema_version"] = "GameEnded", EVENT_TYPES["GameEnded"].schema_version
    rec = Recorded.of(read_envelope(dumps(doc)))
    assert rec.event.__class__ is Unreadable
    assert rec.event.reason == "ValidationError: GameEnded.result: Field required"  # type: ignore[attr-defined]


def test_an_unknown_type_keeps_its_one_line_reason() -> None:
    doc = orjson.loads(_move().sealed("t-1", 1, "0" * 64, T0).to_bytes())
    doc["type"] = "MoveWhispered"
    rec = Recorded.of(Envelope.model_validate_json(dumps(doc)))
    assert rec.event.reason == "UnknownEventType: unknown event type 'MoveWhispered'"  # type: ignore[attr-defined]


def test_an_old_version_is_still_upcast() -> None:
    env = read_envelope(_move(version=1).sealed("t-1", 1, "0" * 64, T0).to_bytes())
    rec = Recorded.of(env)
    assert not rec.unreadable and rec.event == MovePlayed(**MOVE, pv=None)  # type: ignore[arg-type]
