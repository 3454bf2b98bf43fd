"""Hypothesis fuzzers for the inputs issue 9 listed, as regression tests (each of these made
the API answer 500, or store an event no reader could decode, before the limits and strict
parsing went in):

- nesting 10..300 deep: refused with 422 `limits.depth` once deeper than `max_depth`, nothing
  stored, and the tournament stays readable and appendable; whatever is accepted reads back;
- strings, keys, lists, events and bodies over the limits: 413/422, nothing stored;
- `occurred_at` (and payload datetimes) outside [1800, 2200) UTC, e.g. `0001-01-01T00:00:00+01:00`
  and `9999-12-31T23:59:59-01:00`: 422 naming the field;
- tournament ids that are not `[A-Za-z0-9][A-Za-z0-9._-]{0,63}` (`tA\\n`): 422 on every route;
- `to_seq=9223372036854775808` and other out-of-range or non-numeric seqs: 422;
- no coercion: `"rating": "2500"`, `"expected_seq": "5"` or `true`: 422 naming the field;
- random JSON (and random bytes) as bodies, and as payloads of random event types: never a
  5xx, and every tournament still reads back (`GET …/events` 200, nothing unreadable);
- the SSE stream, read briefly (it never ends): bad ids and Last-Event-IDs are refused.

Derandomized and bounded: CI runs the same examples every time, in well under a minute.
"""

from __future__ import annotations

import re
import types
import typing
import uuid
from collections.abc import Callable, MutableMapping, Sequence
from datetime import UTC, datetime, timedelta, timezone
from typing import Any, TypeVar
from urllib.parse import urlencode

import anyio
import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, example, given, settings
from pydantic import BaseModel

from events_schema import EVENT_TYPES
from services.api.app import MAX_READ, MAX_SEQ

from .fuzz_support import LIMITS, TID, FuzzApi, cmd, path_segment

pytestmark = pytest.mark.slow  # make test-fast leaves it out


STREAM_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


F = TypeVar("F", bound=Callable[..., Any])


def fuzz(max_examples: int) -> Callable[[F], F]:
    return settings(
        max_examples=max_examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.large_base_example,
            HealthCheck.filter_too_much,
        ],
    )


#: A valid payload of every event type (required fields only).
MINIMAL: dict[str, dict[str, Any]] = {
    "SeriesCreated": {"name": "Tour"},
    "TournamentCreated": {"name": "Open", "format": "swiss"},
    "PlayerRegistered": {"player_id": "p", "name": "P"},
    "PlayerWithdrew": {"player_id": "a"},
    "LotDrawn": {"purpose": "colours", "candidates": ["a", "b"], "outcome": ["b", "a"]},
    "RoundScheduled": {"round": 2},
    "GameStarted": {"game_id": "g1"},
    "MovePlayed": {"game_id": "g1", "ply": 1, "colour": "white", "uci": "e2e4"},
    "ClockReported": {"game_id": "g1", "white_ms": 1000, "black_ms": 1000},
    "GameEnded": {"game_id": "g1", "result": "1-0", "termination": "resignation"},
    "EngineCrashed": {"game_id": "g1", "player_id": "a"},
    "ServerInterrupted": {"game_id": "g1", "ply": 3, "moves_completed": 1, "pieces_on_board": 32},
    "AdjudicationIssued": {"game_id": "g1", "rule": "TCEC 7.b", "outcome": "1/2-1/2"},
    "SanctionIssued": {"player_id": "a", "level": "warning", "rule": "LGC 3"},
    "AppealFiled": {"appeal_id": "ap1", "filed_by": "a", "grounds": "clock"},
    "AppealDecided": {"appeal_id": "ap1", "decision": "rejected", "text": "no"},
    "RulingIssued": {"ruling_id": "r", "by": "chief", "subject": "s", "text": "t"},
    "TournamentPaused": {"reason": "server"},
    "IllegalMoveNoticed": {"game_id": "g1", "ply": 1, "noticed_by": "referee"},
    "GoStatusAgreed": {"game_id": "g1"},
    "GoStatusDisputed": {"game_id": "g1"},
    "RoundSkipped": {"player_id": "a", "round": 2},
    "PlayerArrived": {"game_id": "g1", "player_id": "a", "at": "2026-11-24T10:31:00+00:00"},
    "ClockPaused": {"game_id": "g1", "circumstance": 5},
    "BroadcastDelaySet": {"seconds": 30},
    "PairingsProhibited": {"players": ["p1", "p2"]},
    "AccelerationSet": {},
    "TrfRecordsKept": {},
    "ClockResumed": {"game_id": "g1"},
    "ClockSet": {"game_id": "g1", "reason": "clock_replaced", "white_ms": 1, "black_ms": 2},
    "ClockStarted": {"game_id": "g1", "at": "2026-11-24T10:20:00+00:00"},
    "AppealsCommitteeFormed": {"members": ["a", "Referee", "TD"]},
    "ProtestStated": {"game_id": "g1", "player_id": "a"},
    "ColourErrorNoticed": {"game_id": "g1", "black": "a"},
    "PositionDisturbed": {"game_id": "g1", "procedure": "correct"},
    "TournamentResumed": {},
    "ResultCorrected": {
        "corrects_event_id": str(uuid.UUID(int=1)),
        "game_id": "g1",
        "result": "0-1",
        "termination": "resignation",
        "reason": "scoresheet",
    },
    "EventRetracted": {"retracted_event_id": str(uuid.UUID(int=1)), "reason": "wrong board"},
}


def _int_fields(model: type[BaseModel]) -> list[str]:
    """Fields typed `int` or `int | None`."""
    out = []
    for name, info in model.model_fields.items():
        ann = info.annotation
        args = typing.get_args(ann) if isinstance(ann, types.UnionType) else ()
        if ann is int or (int in args and set(args) <= {int, type(None)}):
            out.append(name)
    return out


INT_FIELDS = [(t, f) for t, cls in EVENT_TYPES.items() for f in _int_fields(cls)]

# -- strategies ---------------------------------------------------------------------------

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40)
    | st.sampled_from(
        [
            "",
            "\x00",
            "\n",
            "NaN",
            "Infinity",
            "1E+999999999",
            "-1E+999999999",
            "1E-999999999",
            "0001-01-01T00:00:00+01:00",
            "9999-12-31T23:59:59-01:00",
            "2026-05-01T12:00:00",
            "00000000-0000-0000-0000-000000000000",
            "a",
            "g1",
            "\ud7ff\ue000\U0010ffff",
            "x" * 300,
        ]
    )
    | st.sampled_from([2**53, 2**53 - 1, -(2**53), 2**63, -(2**63) - 1, 0, -1, 1.5, 1e308])
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5)
    ),
    max_leaves=25,
)
json_objects = st.dictionaries(st.text(max_size=10), json_values, max_size=6)
event_types = st.sampled_from(sorted(EVENT_TYPES)) | st.text(max_size=70)


def nest(depth: int, container: str) -> Any:
    """`depth` nested containers around a string."""
    value: Any = "bottom"
    for _ in range(depth):
        value = [value] if container == "list" else {"k": value}
    return value


def error(r: Any) -> dict[str, str]:
    """The refusal's `error`; with several problems, `errors` lists them all (the first is
    `error`), each of the same shape."""
    body = r.json()
    assert set(body) <= {"error", "errors"} and "error" in body, body
    assert set(body["error"]) == {"rule", "field", "message"}, body
    if "errors" in body:
        assert body["errors"][0] == body["error"], body
        assert all(set(e) == {"rule", "field", "message"} for e in body["errors"]), body
    return dict(body["error"])


def refused(api: FuzzApi, tid: str, body: Any, status: int | tuple[int, ...] = 422) -> Any:
    """Post `body`: refused with `status`, and nothing stored."""
    before = api.last_seq(tid)
    r = api.post(tid, body)
    allowed = (status,) if isinstance(status, int) else status
    assert r.status_code in allowed, r.text[:500]
    assert api.last_seq(tid) == before
    return error(r)


@pytest.fixture(scope="module")
def api(fuzz_api: FuzzApi) -> FuzzApi:
    for tid in ("nest", "big", "when", "coerce", "random", "random-b"):
        fuzz_api.create(tid)
    return fuzz_api


def test_the_minimal_payloads_are_valid_and_cover_every_type() -> None:
    assert set(MINIMAL) == set(EVENT_TYPES)
    for t, payload in MINIMAL.items():
        EVENT_TYPES[t].model_validate(payload, strict=False)
    assert ("PlayerRegistered", "rating") in INT_FIELDS


# -- nesting ------------------------------------------------------------------------------

# Containers around the nested value in each body shape (body, payload, decision, ...).
NEST_SHAPES = {
    "decision": 3,  # {"type", "payload": {"decision": {"k": NESTED}}}
    "batch-decision": 5,  # {"commands": [{"payload": {"decision": {"k": NESTED}}}]}
    "payload": 1,  # {"type", "payload": NESTED}
    "body-field": 1,  # {"type", "payload", "x": NESTED}
    "tiebreak-params": 5,  # TournamentCreated {"tiebreaks": [{"params": {"k": NESTED}}]}
}


def nested_body(shape: str, nested: Any, serial: int) -> Any:
    ruling = {**MINIMAL["RulingIssued"], "ruling_id": f"nest-{serial}"}
    if shape == "decision":
        return cmd("RulingIssued", **ruling, decision={"k": nested})
    if shape == "batch-decision":
        return {"commands": [cmd("RulingIssued", **ruling, decision={"k": nested})]}
    if shape == "payload":
        return {"type": "RulingIssued", "payload": nested}
    if shape == "body-field":
        return {**cmd("RulingIssued", **ruling), "x": nested}
    spec = {"name": "buchholz", "params": {"k": nested}}
    return cmd("TournamentCreated", name="Nested", format="swiss", tiebreaks=[spec])


@fuzz(max_examples=60)
@given(
    depth=st.integers(10, 300),
    container=st.sampled_from(["dict", "list"]),
    shape=st.sampled_from(sorted(NEST_SHAPES)),
)
@example(depth=13, container="dict", shape="decision")  # 16 levels: the deepest accepted
@example(depth=14, container="dict", shape="decision")  # 17: refused
@example(depth=300, container="list", shape="batch-decision")
def test_deep_nesting_is_refused_and_nothing_is_stored(
    api: FuzzApi, depth: int, container: str, shape: str
) -> None:
    tid = "nest"
    before = api.last_seq(tid)
    r = api.post(tid, nested_body(shape, nest(depth, container), api.stats.requests))
    if NEST_SHAPES[shape] + depth > LIMITS.max_depth:
        assert r.status_code == 422, r.text[:300]
        assert error(r)["rule"] == "limits.depth"
        assert api.last_seq(tid) == before
    else:
        assert r.status_code in (201, 422), r.text[:300]
        assert api.last_seq(tid) == before + (r.status_code == 201)
    api.assert_healthy(tid)


@pytest.mark.parametrize("depth", [1_000, 5_000, 100_000])
def test_nesting_past_the_json_parser_is_refused(api: FuzzApi, depth: int) -> None:
    for raw in ("[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth):
        refused(api, "nest", raw)
    api.assert_healthy("nest")


# -- sizes --------------------------------------------------------------------------------


@fuzz(max_examples=25)
@given(
    extra=st.integers(1, 3 * LIMITS.max_string),
    where=st.sampled_from(["value", "key", "type", "text", "batch"]),
    char=st.sampled_from(["x", "é", "\U0001f600", "\x00", '"']),
)
def test_strings_over_max_string_are_refused(
    api: FuzzApi, extra: int, where: str, char: str
) -> None:
    s = char * (LIMITS.max_string + extra)
    ruling = {**MINIMAL["RulingIssued"], "ruling_id": "long"}
    body: Any = {
        "value": cmd("RulingIssued", **ruling, decision={"k": s}),
        "key": cmd("RulingIssued", **ruling, decision={s: 1}),
        "type": {"type": s, "payload": {}},
        "text": cmd("RulingIssued", **{**ruling, "text": s}),
        "batch": {"commands": [cmd("RulingIssued", **ruling, decision={"k": [s]})]},
    }[where]
    err = refused(api, "big", body, (413, 422))
    assert err["rule"] in ("limits.string", "limits.body_bytes"), err
    api.assert_healthy("big")


@fuzz(max_examples=15)
@given(strings=st.integers(1, 60))
@example(strings=31)
@example(strings=33)
def test_events_over_max_event_bytes_are_refused(api: FuzzApi, strings: int) -> None:
    """`strings` strings of 16,000 characters in one event: over 512 KiB from 33 on."""
    # A decision needs a subject a projection reads (projections/rulings.py): seeded groups
    # are checked for their shape only when stored.
    decision = {"groups": [["x" * 16_000] for _ in range(strings)]}
    ruling = {
        **MINIMAL["RulingIssued"],
        "ruling_id": f"big-{api.stats.requests}",
        "subject": "monrad-groups",
    }
    before = api.last_seq("big")
    r = api.post("big", cmd("RulingIssued", **ruling, decision=decision))
    if strings * 16_000 > LIMITS.max_event_bytes:
        assert r.status_code == 413, r.text[:300]
        assert error(r)["rule"] == "limits.event_bytes"
        assert api.last_seq("big") == before
    else:
        assert r.status_code == 201, r.text[:300]
    api.assert_healthy("big")


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
@pytest.mark.parametrize("over", [1, 1_000_000])
def test_bodies_over_max_body_bytes_are_refused_unread(
    api: FuzzApi, chunked: bool, over: int
) -> None:
    head = b'{"type": "RulingIssued", "payload": {"text": "'
    tail = b'"}}'
    size = LIMITS.max_body_bytes + over
    raw = head + b"x" * (size - len(head) - len(tail)) + tail
    content: Any = raw
    if chunked:  # no Content-Length: the limit applies while reading
        content = iter([raw[i : i + 65_536] for i in range(0, len(raw), 65_536)])
    before = api.last_seq("big")
    r = api.call(
        "POST",
        "/tournaments/big/commands",
        content=content,
        headers={"Content-Type": "application/json"},
    )
    assert r.status_code == 413, r.text[:300]
    assert error(r)["rule"] == "limits.body_bytes"
    assert api.last_seq("big") == before
    api.assert_healthy("big")


def test_too_many_items_and_commands_are_refused(api: FuzzApi) -> None:
    ruling = {**MINIMAL["RulingIssued"], "ruling_id": "many"}
    n = LIMITS.max_items + 1
    err = refused(api, "big", cmd("RulingIssued", **ruling, decision={"k": [0] * n}))
    assert err["rule"] == "limits.items"
    err = refused(api, "big", cmd("RulingIssued", **ruling, decision={str(i): 0 for i in range(n)}))
    assert err["rule"] == "limits.items"
    many = {"commands": [cmd("TournamentResumed")] * (LIMITS.max_batch_events + 1)}
    refused(api, "big", many, (413, 422))
    api.assert_healthy("big")


# -- datetimes ----------------------------------------------------------------------------

offsets = st.integers(-(24 * 60 - 1), 24 * 60 - 1).map(lambda m: timezone(timedelta(minutes=m)))


@fuzz(max_examples=60)
@given(
    when=st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59))
    | st.sampled_from([datetime(1800, 1, 1), datetime(2199, 12, 31, 23, 59)]),
    tz=offsets,
    where=st.sampled_from(["occurred_at", "batch", "scheduled_at"]),
)
@example(when=datetime(1, 1, 1), tz=timezone(timedelta(hours=1)), where="occurred_at")
@example(when=datetime(9999, 12, 31, 23, 59, 59), tz=timezone(timedelta(hours=-1)), where="batch")
@example(when=datetime(1, 1, 1), tz=timezone(timedelta(hours=1)), where="scheduled_at")
def test_datetimes_outside_the_range_are_refused_naming_the_field(
    api: FuzzApi, when: datetime, tz: timezone, where: str
) -> None:
    aware = when.replace(tzinfo=tz)
    stamp = aware.isoformat()
    try:
        utc: datetime | None = aware.astimezone(UTC)
    except OverflowError:
        utc = None
    in_range = utc is not None and LIMITS.earliest <= utc < LIMITS.latest
    n = api.stats.requests
    ruling = cmd("RulingIssued", **{**MINIMAL["RulingIssued"], "ruling_id": f"when-{n}"})
    if where == "occurred_at":
        body: Any = {**ruling, "occurred_at": stamp}
    elif where == "batch":
        body = {"commands": [{**ruling, "occurred_at": stamp}]}
    else:  # a round far ahead, so that the decider has nothing else to object to
        body = cmd("RoundScheduled", round=100 + n, scheduled_at=stamp)
    before = api.last_seq("when")
    r = api.post("when", body)
    if in_range:
        assert r.status_code == 201, (stamp, r.text[:300])
    else:
        assert r.status_code == 422, (stamp, r.text[:300])
        err = error(r)
        assert err["field"].endswith(where if where != "batch" else "occurred_at"), err
        assert api.last_seq("when") == before
    api.assert_healthy("when")


@pytest.mark.parametrize(
    "stamp", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", "2026-05-01T12:00:00"]
)
def test_the_reported_datetimes_are_refused(api: FuzzApi, stamp: str) -> None:
    body = {**cmd("RulingIssued", **MINIMAL["RulingIssued"]), "occurred_at": stamp}
    err = refused(api, "when", body)
    assert err["field"].endswith("occurred_at"), err
    api.assert_healthy("when")


# -- tournament ids -----------------------------------------------------------------------


def tournament_routes(api: FuzzApi) -> list[tuple[str, str]]:
    """(method, path) of every route taking a tournament id, from the served document."""
    doc = api.app.openapi()
    return sorted(
        (method.upper(), path)
        for path, item in doc["paths"].items()
        if "{tournament_id}" in path
        for method in item
    )


#: Valid values of the other path parameters, so the tournament id is what a route refuses.
OTHER_PARAMS = {"{name}": "standings", "{rnd}": "1", "{n}": "1", "{board}": "1", "{player}": "1"}


def fill(path: str, tid: str) -> str:
    path = path.replace("{tournament_id}", path_segment(tid))
    for param, value in OTHER_PARAMS.items():
        path = path.replace(param, value)
    return path.replace("{game_id}", "g1")


@pytest.mark.parametrize("tid", ["tA\n", "tA\r\n", "tA\x00", "-t", ".", "..", "t" * 65, "t A"])
def test_bad_tournament_ids_are_refused_on_every_route(api: FuzzApi, tid: str) -> None:
    for method, path in tournament_routes(api):
        body = cmd("TournamentCreated", name="x", format="swiss") if method == "POST" else None
        r = api.call(method, fill(path, tid), json=body)
        assert r.status_code == 422, (method, path, r.text[:300])
        assert error(r)["rule"] == "path.tournament_id", (method, path)
    assert "tA\n" not in api.log.stream_ids()


@fuzz(max_examples=60)
@given(tid=st.text(min_size=1, max_size=70) | st.from_regex(STREAM_ID, fullmatch=True))
def test_any_tournament_id_is_answered_without_a_server_error(api: FuzzApi, tid: str) -> None:
    for method, path in tournament_routes(api):
        if path.endswith("/stream") and STREAM_ID.fullmatch(tid):
            continue  # a valid id opens the never-ending stream: see test_stream_*
        body = cmd("RulingIssued", **MINIMAL["RulingIssued"]) if method == "POST" else None
        r = api.call(method, fill(path, tid), json=body, token="arbiter")
        if "/" in tid:  # decoded into the path: no route matches
            assert r.status_code in (404, 405, 422), r.text[:300]
        elif not STREAM_ID.fullmatch(tid):
            assert r.status_code == 422, (method, path, tid, r.text[:300])
            assert error(r)["rule"] == "path.tournament_id"
        else:
            assert r.status_code in (200, 201, 403, 404, 409, 422), r.text[:300]


# -- query numbers ------------------------------------------------------------------------

seq_values = (
    st.integers(min_value=-(2**70), max_value=2**70)
    | st.sampled_from([0, 1, MAX_SEQ, MAX_SEQ + 1, 2**63, 2**63 - 1, -(2**63), MAX_READ + 1])
    | st.text(max_size=20)
    | st.sampled_from(["1e3", "0x10", " 5", "5 ", "+5", "1_000", "١٢", "5.0", "", "9" * 5000])
)


@fuzz(max_examples=80)
@given(
    params=st.dictionaries(st.sampled_from(["from_seq", "to_seq", "limit"]), seq_values, max_size=3)
)
@example(params={"to_seq": 9223372036854775808})
@example(params={"from_seq": 9223372036854775808})
@example(params={"limit": 2**64})
def test_read_bounds_out_of_range_are_refused(api: FuzzApi, params: dict[str, Any]) -> None:
    r = api.call("GET", f"/tournaments/{TID}/events", params=params)
    top = {"from_seq": MAX_SEQ, "to_seq": MAX_SEQ, "limit": MAX_READ}
    plain_ints = all(isinstance(v, int) for v in params.values())
    if plain_ints and all(1 <= v <= top[k] for k, v in params.items()):
        assert r.status_code == 200, r.text[:300]
    elif plain_ints:
        assert r.status_code == 422, (params, r.text[:300])
        assert error(r)["rule"] == "request.invalid"
    else:
        assert r.status_code in (200, 422), r.text[:300]


# -- no coercion --------------------------------------------------------------------------


@pytest.mark.parametrize("batch", [False, True], ids=["single", "batch"])
@pytest.mark.parametrize("value", ["5", True, 5.5, "0", False, [5], {"seq": 5}])
def test_expected_seq_is_not_coerced(api: FuzzApi, value: Any, batch: bool) -> None:
    one = cmd("RulingIssued", **MINIMAL["RulingIssued"])
    body = {"commands": [one], "expected_seq": value} if batch else {**one, "expected_seq": value}
    err = refused(api, "coerce", body)
    assert err["field"] == "expected_seq", err


@fuzz(max_examples=80)
@given(
    field=st.sampled_from(INT_FIELDS),
    wrong=st.integers(1, 3000).map(str)
    | st.booleans()
    | st.sampled_from([5.5, 1.0, "1e3", "", [1]]),
)
@example(field=("PlayerRegistered", "rating"), wrong="2500")
def test_integer_fields_are_not_coerced(api: FuzzApi, field: tuple[str, str], wrong: Any) -> None:
    type_, name = field
    err = refused(api, "coerce", cmd(type_, **{**MINIMAL[type_], name: wrong}))
    assert err["rule"] == "payload.invalid", err
    assert err["field"] == f"commands[0].payload.{name}", err


# -- random JSON --------------------------------------------------------------------------


@fuzz(max_examples=100)
@given(body=json_values | st.binary(max_size=200) | st.text(max_size=200))
def test_random_bodies_never_get_a_server_error(api: FuzzApi, body: Any) -> None:
    if isinstance(body, bytes | str):
        r = api.post("random", body)
    else:
        r = api.call("POST", "/tournaments/random/commands", json=body)
    assert r.status_code in (200, 201, 403, 409, 413, 422), r.text[:300]
    if r.status_code >= 400:
        error(r)
    api.assert_healthy("random")


@fuzz(max_examples=150)
@given(data=st.data(), token=st.sampled_from(["admin", "arbiter"]), batch=st.booleans())
def test_random_payloads_of_every_type_never_get_a_server_error(
    api: FuzzApi, data: st.DataObject, token: str, batch: bool
) -> None:
    """Random JSON as the payload of a random type, or a valid payload of that type with a few
    fields replaced by random values."""
    type_ = data.draw(event_types, label="type")
    if type_ in MINIMAL and data.draw(st.booleans(), label="mutate a valid payload"):
        fields = st.sampled_from(sorted(EVENT_TYPES[type_].model_fields)) | st.text(max_size=10)
        changes = st.dictionaries(fields, json_values, min_size=1, max_size=3)
        payload = {**MINIMAL[type_], **data.draw(changes, label="changes")}
    else:
        payload = data.draw(json_objects, label="payload")
    tid = "random-b" if token == "admin" else TID
    one = {"type": type_, "payload": payload}
    before = api.last_seq(tid)
    r = api.post(tid, {"commands": [one]} if batch else one, token=token)
    assert r.status_code in (200, 201, 403, 409, 413, 422), r.text[:300]
    if r.status_code >= 400:
        error(r)
        assert api.last_seq(tid) == before
    api.assert_healthy(tid)


@fuzz(max_examples=100)
@given(decision=json_objects)
@example(decision={"k": 2**53})
@example(decision={"k": [1e308, -(2**63)]})
def test_random_rulings_are_stored_only_within_the_limits(
    api: FuzzApi, decision: dict[str, Any]
) -> None:
    """`RulingIssued.decision` takes any JSON object, so whatever the limits let through is
    stored: it must read back, and within the limits (assert_healthy)."""
    ruling = {**MINIMAL["RulingIssued"], "ruling_id": f"rand-{api.stats.requests}"}
    before = api.last_seq("random")
    r = api.post("random", cmd("RulingIssued", **ruling, decision=decision))
    assert r.status_code in (201, 413, 422), r.text[:300]
    assert api.last_seq("random") == before + (r.status_code == 201)
    api.assert_healthy("random")


@pytest.mark.parametrize(
    "literal",
    [
        "NaN",
        "Infinity",
        "-Infinity",
        "1e999",
        "-1e999",
        "9" * 400,
        str(2**64),  # orjson reads it as a float: refused by the number range
        str(-(2**63) - 1),
    ],
)
def test_numbers_json_cannot_carry_are_refused(api: FuzzApi, literal: str) -> None:
    raw = (
        f'{{"type": "RulingIssued", "payload": {{"ruling_id": "n{api.stats.requests}", '
        '"by": "b", "subject": "s", '
        f'"text": "t", "decision": {{"k": {literal}}}}}}}'
    )
    refused(api, "random", raw)
    api.assert_healthy("random")


def test_every_tournament_still_reads_back_and_projects(api: FuzzApi) -> None:
    """After all the rounds above: every stored event of every tournament decodes, and the
    feed answers for each (a projection, or a documented refusal, never a 5xx)."""
    for tid in api.log.stream_ids():
        r = api.call("GET", f"/tournaments/{path_segment(tid)}/events")
        assert r.status_code == 200, r.text[:300]
        assert not [e for e in r.json()["events"] if "unreadable" in e]
        r = api.call("GET", f"/tournaments/{path_segment(tid)}/feed-status")
        assert r.status_code == 200, r.text[:300]
        for name in ("standings", "tiebreaks", "playoff", "prizes", "games"):
            r = api.call("GET", f"/tournaments/{path_segment(tid)}/projections/{name}")
            assert r.status_code in (200, 404, 409), r.text[:300]


# -- the SSE stream, read briefly ---------------------------------------------------------


def first_chunk(
    api: FuzzApi, path: str, query: bytes = b"", headers: Sequence[tuple[bytes, bytes]] = ()
) -> tuple[int, bytes]:
    """Status and first body bytes of a GET, then disconnect: a short read of a response that
    may never end."""

    async def run() -> tuple[int, bytes]:
        status, body = 0, b""
        got, gone = anyio.Event(), anyio.Event()
        asked = False

        async def receive() -> MutableMapping[str, Any]:
            nonlocal asked
            if not asked:
                asked = True
                return {"type": "http.request", "body": b"", "more_body": False}
            await gone.wait()
            return {"type": "http.disconnect"}

        async def send(message: MutableMapping[str, Any]) -> None:
            nonlocal status, body
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                body += message.get("body", b"")
                if body or not message.get("more_body", False):
                    got.set()

        async def app() -> None:
            try:
                await api.app(scope, receive, send)
            except Exception:
                if status == 0:
                    raise
            finally:
                got.set()

        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode("utf-8", "surrogateescape"),
            "root_path": "",
            "query_string": query,
            "headers": [(b"host", b"testserver"), *headers],
            "client": ("127.0.0.1", 50000),
            "server": ("testserver", 80),
        }
        async with anyio.create_task_group() as tg:
            tg.start_soon(app)
            with anyio.fail_after(15):
                await got.wait()
            gone.set()
            tg.cancel_scope.cancel()
        return status, body

    status, body = anyio.run(run)
    api.record("GET", path, status, body.decode("utf-8", "replace"), query)
    return status, body


def bearer(api: FuzzApi, role: str) -> list[tuple[bytes, bytes]]:
    token = {"admin": api.admin, "arbiter": api.arbiter}.get(role, role)
    return [(b"authorization", f"Bearer {token}".encode("latin-1"))]


def test_the_stream_opens_and_refuses_bad_input(api: FuzzApi) -> None:
    status, body = first_chunk(api, f"/tournaments/{TID}/stream", headers=bearer(api, "arbiter"))
    assert status == 200 and b": connected" in body
    status, _ = first_chunk(api, "/tournaments/tA\n/stream", headers=bearer(api, "admin"))
    assert status == 422
    status, _ = first_chunk(
        api, f"/tournaments/{TID}/stream", b"last_event_id=-1", bearer(api, "admin")
    )
    assert status == 422
    status, _ = first_chunk(api, f"/tournaments/{TID}/stream")
    assert status == 401


header_text = st.text(st.characters(min_codepoint=32, max_codepoint=255), max_size=30)


@fuzz(max_examples=40)
@given(
    tid=st.sampled_from([TID, "random", "nope"]) | st.text(min_size=1, max_size=20),
    last_event_id=st.none()
    | st.integers(-(2**70), 2**70).map(str)
    | header_text
    | st.sampled_from(["9" * 5000, "9" * 4000, " 7 ", "-0", "1e3"]),
    in_header=st.booleans(),
    who=st.sampled_from(["admin", "arbiter", "arb_x_y", ""]) | header_text,
    token_in_query=st.booleans(),
)
def test_the_stream_never_gets_a_server_error(
    api: FuzzApi,
    tid: str,
    last_event_id: str | None,
    in_header: bool,
    who: str,
    token_in_query: bool,
) -> None:
    query: dict[str, str] = {}
    headers: list[tuple[bytes, bytes]] = []
    if last_event_id is not None:
        if in_header:
            headers.append((b"last-event-id", last_event_id.encode("latin-1")))
        else:
            query["last_event_id"] = last_event_id
    if token_in_query:
        query["token"] = {"admin": api.admin, "arbiter": api.arbiter}.get(who, who)
    elif who:
        headers += bearer(api, who)
    path = f"/tournaments/{tid}/stream"
    status, body = first_chunk(api, path, urlencode(query).encode(), headers)
    assert status in (200, 401, 403, 404, 422), body[:300]
    if status == 200:
        assert b": connected" in body
    valid_id = STREAM_ID.fullmatch(tid) is not None
    if status == 200:
        assert valid_id
        assert last_event_id is None or int(last_event_id.strip()) >= 0
