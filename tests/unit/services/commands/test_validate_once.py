"""Issue 27, item 3: the request path validates a command once (services/commands/parse.py).

An accepted body is validated in one strict JSON pass, payloads typed; the command service
then decides on those events without validating the payloads again. A body that pass refuses
falls back to the two-step validation, whose refusals name the field and the rule.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import orjson
import pytest
from fastapi.testclient import TestClient
from tests_support import cmd

import services.commands.service as service_module
from events_schema import Command, CommandBatch
from events_schema import events as ev
from events_schema.codec import dumps, loads
from events_schema.registry import EVENT_TYPES
from services.api.app import create_app
from services.commands.auth import TokenStore
from services.commands.parse import validate_once
from services.commands.service import holds_datetimes, parse_command
from services.eventlog.sqlite import SQLiteEventLog

SETUP = [
    cmd("TournamentCreated", name="Open", format="swiss", rounds=5),
    cmd("PlayerRegistered", player_id="a", name="A"),
    cmd("PlayerRegistered", player_id="b", name="B"),
    cmd("RoundScheduled", round=1, pairings=[{"game_id": "g1", "white": "a", "black": "b"}]),
]


def _once(body: dict) -> tuple[CommandBatch, list] | None:
    raw = orjson.dumps(body)
    return validate_once(raw, loads(raw))


def test_a_single_move_is_validated_once_into_the_same_command_and_event_as_two_steps():
    eid = str(uuid.uuid4())
    body = cmd("MovePlayed", eid, game_id="g1", ply=1, colour="white", uci="e2e4", clock_ms=5)
    body["expected_seq"] = 4
    got = _once(body)
    assert got is not None
    batch, events = got
    assert batch.expected_seq == 4
    assert str(batch.commands[0].event_id) == eid
    plain = {k: v for k, v in body.items() if k != "expected_seq"}
    two_step = parse_command(Command.model_validate_json(dumps(plain)), "commands[0]")
    assert events == [two_step] == [batch.commands[0].payload]
    assert isinstance(events[0], ev.MovePlayed) and events[0].uci == "e2e4"


def test_a_batch_of_several_types_is_validated_once_each_command_as_its_own_type():
    got = _once({"commands": SETUP})
    assert got is not None
    batch, events = got
    assert [type(e).__name__ for e in events] == [c["type"] for c in SETUP]
    assert events[3].pairings[0].game_id == "g1"
    assert batch.expected_seq is None and len(batch.commands) == 4


@pytest.mark.parametrize(
    "body",
    [
        cmd("MovePlayed", game_id="g1", ply="1", colour="white", uci="e2e4"),  # no coercion
        cmd("NoSuchEvent", x=1),
        {"type": "MovePlayed"},  # no payload
        {"commands": []},
        {
            "commands": [cmd("MovePlayed", game_id="g1", ply=1, colour="white", uci="e2e4")] * 2,
            "expected_seq": "5",
        },
    ],
)
def test_a_body_the_one_pass_refuses_is_left_to_the_two_step_validation(body):
    assert _once(body) is None


@pytest.fixture
def api(tmp_path: Path):
    tokens = TokenStore(tmp_path / "tokens.sqlite3")
    client = TestClient(create_app(SQLiteEventLog(tmp_path / "events.sqlite3"), tokens))
    headers = {"Authorization": f"Bearer {tokens.create('admin', 'chief')[0]}"}
    r = client.post("/tournaments/t1/commands", json={"commands": SETUP}, headers=headers)
    assert r.status_code == 201, r.text
    return client, headers


def test_a_move_posted_to_the_api_is_not_validated_a_second_time(api, monkeypatch):
    client, headers = api

    def second_pass(*_a, **_k):
        raise AssertionError("payload validated a second time")

    monkeypatch.setattr(service_module, "parse_command", second_pass)
    move = cmd("MovePlayed", game_id="g1", ply=1, colour="white", uci="e2e4")
    r = client.post("/tournaments/t1/commands", content=dumps(move), headers=headers)
    assert r.status_code == 201, r.text
    assert r.json()["events"][0]["payload"]["san"] == "e4"


def test_a_refused_payload_still_names_every_bad_field(api):
    client, headers = api
    move = cmd("MovePlayed", game_id="g1", ply=0, colour="green", uci="e2e4")
    r = client.post("/tournaments/t1/commands", json=move, headers=headers)
    assert r.status_code == 422
    fields = [e["field"] for e in r.json()["errors"]]
    assert fields == ["commands[0].payload.ply", "commands[0].payload.colour"]
    assert r.json()["error"]["rule"] == "payload.invalid"


def test_every_event_type_that_can_hold_a_datetime_has_its_datetimes_checked():
    for name, cls in EVENT_TYPES.items():
        text = orjson.dumps(cls.model_json_schema()).decode()
        if '"date-time"' in text:
            assert holds_datetimes(cls), name
    assert not holds_datetimes(ev.MovePlayed)
    assert holds_datetimes(ev.RoundScheduled)  # scheduled_at


def test_a_datetime_out_of_range_in_a_payload_is_still_refused_after_the_one_pass(api):
    client, headers = api
    body = cmd(
        "RoundScheduled",
        round=2,
        pairings=[{"game_id": "g2", "white": "a", "black": "b"}],
        scheduled_at="1700-01-01T00:00:00Z",
    )
    r = client.post("/tournaments/t1/commands", json=body, headers=headers)
    assert r.status_code == 422, r.text
    assert r.json()["error"]["rule"] == "limits.datetime_range"
    assert r.json()["error"]["field"] == "commands[0].payload.scheduled_at"
