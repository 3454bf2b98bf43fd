"""The answer to an append carries each event as stored (issue 27 item 3: the stored bytes
are written into the answer as they are, not serialised again): byte for byte the answer the
envelopes give when serialised afresh."""

from __future__ import annotations

from pathlib import Path

from builders import created, new_event, player

from events_schema.codec import loads
from services.api.app import appended_response
from services.eventlog.base import AppendResult
from services.eventlog.sqlite import SQLiteEventLog


def test_the_answer_from_the_stored_bytes_is_the_answer_from_the_envelopes(
    tmp_path: Path,
) -> None:
    log = SQLiteEventLog(tmp_path / "e.sqlite3")
    result = log.append("t1", [new_event(created()), new_event(player("a", 2100))])
    assert result.bodies is not None
    fresh = AppendResult(result.envelopes, result.duplicate)  # no bodies: serialised again
    assert appended_response("t1", result).body == appended_response("t1", fresh).body
    answer = loads(appended_response("t1", result).body)
    assert answer["events"] == [e.to_json_dict() for e in log.read("t1")]
    assert answer["last_seq"] == 2


def test_a_duplicate_is_answered_from_the_envelopes_found(tmp_path: Path) -> None:
    log = SQLiteEventLog(tmp_path / "e.sqlite3")
    first = new_event(created())
    stored = log.append("t1", [first])
    again = log.append("t1", [first])
    assert again.duplicate and again.bodies is None
    assert (
        loads(appended_response("t1", again).body)["events"]
        == loads(appended_response("t1", stored).body)["events"]
    )
