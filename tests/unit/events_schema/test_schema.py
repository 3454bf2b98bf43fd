"""The event contract: upcasting, the envelope's canonical bytes and hash chain, and that every
event class is a stable, frozen, round-trippable type."""

from __future__ import annotations

import dataclasses
import uuid
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import pydantic
import pytest
from builders import ADMIN, T0, created, eid, new_event, player
from tests_support import assert_chain

from events_schema import (
    EVENT_CLASSES,
    EVENT_TYPES,
    GENESIS_HASH,
    Actor,
    Envelope,
    Event,
    Recorded,
    chain_hash,
    decode,
    decode_payload,
    encode_payload,
    seal,
)
from events_schema import events as ev
from events_schema.codec import dumps
from events_schema.envelope import envelope_from_bytes
from events_schema.registry import UnknownEventType
from events_schema.upcasters import upcast, upcast_v1_v2_player_registered
from projections.tournament import fold

V1_ENGINE = {"player_id": "sf", "name": "Stockfish", "engine": True, "version": "16"}
V1_HUMAN = {"player_id": "hikaru", "name": "Hikaru Nakamura", "engine": False}


def _seal(
    payload: dict[str, Any],
    *,
    type_: str = "PlayerRegistered",
    version: int = 2,
    seq: int = 1,
    prev: str = GENESIS_HASH,
    tid: str = "t1",
    **kw: Any,
) -> Envelope:
    args: dict[str, Any] = {
        "event_id": eid(seq),
        "tournament_id": tid,
        "seq": seq,
        "type": type_,
        "schema_version": version,
        "occurred_at": T0 + timedelta(seconds=seq),
        "recorded_at": T0 + timedelta(seconds=seq, milliseconds=250),
        "actor": ADMIN,
        "causation_id": None,
        "correlation_id": None,
        "payload": payload,
        "prev_hash": prev,
    }
    args.update(kw)
    return seal(**args)


def _chain(*items: tuple[str, int, dict[str, Any]]) -> list[Envelope]:
    out: list[Envelope] = []
    prev = GENESIS_HASH
    for seq, (type_, version, payload) in enumerate(items, start=1):
        env = _seal(payload, type_=type_, version=version, seq=seq, prev=prev)
        prev = env.hash
        out.append(env)
    return out


# --- upcasting ------------------------------------------------------------------------------------


def test_v1_engine_player_decodes_as_v2_and_the_stored_bytes_stay_unchanged():
    stream = _chain(
        ("TournamentCreated", 1, encode_payload(created())),
        ("PlayerRegistered", 1, dict(V1_ENGINE)),
    )
    stored = [env.to_bytes() for env in stream]
    hashes = [env.hash for env in stream]

    # Read back as a log would: from the stored bytes.
    envs = [envelope_from_bytes(b) for b in stored]
    recs = [Recorded.of(env) for env in envs]

    event = recs[1].event
    assert isinstance(event, ev.PlayerRegistered)
    assert event == ev.PlayerRegistered(
        player_id="sf", name="Stockfish", kind="engine", engine_version="16"
    )
    assert decode(envs[1]) == event
    # The stored envelope is untouched: still v1, same payload, same bytes, same hash.
    assert envs[1].schema_version == 1
    assert envs[1].payload == V1_ENGINE
    assert [env.to_bytes() for env in envs] == stored
    assert [env.hash for env in envs] == hashes
    assert_chain(envs)
    # And what folds consume is the current model.
    state = fold(recs)
    assert state.players["sf"].kind == "engine"


def test_v1_human_player_decodes_as_v2_human():
    env = _seal(dict(V1_HUMAN), version=1)
    event = Recorded.of(envelope_from_bytes(env.to_bytes())).event
    assert event == ev.PlayerRegistered(player_id="hikaru", name="Hikaru Nakamura", kind="human")
    assert isinstance(event, ev.PlayerRegistered) and event.engine_version is None


def test_upcaster_does_not_mutate_its_input():
    payload = dict(V1_ENGINE)
    out = upcast_v1_v2_player_registered(payload)
    assert payload == V1_ENGINE
    assert out == {"player_id": "sf", "name": "Stockfish", "kind": "engine", "engine_version": "16"}


def test_decoding_a_version_newer_than_the_code_is_refused():
    current = ev.PlayerRegistered.schema_version
    env = _seal(encode_payload(player("a")), version=current + 1)
    with pytest.raises(ValueError, match="newer than this code"):
        decode(env)
    # A reader never raises: it folds the event as unreadable, naming why.
    rec = Recorded.of(env)
    assert rec.unreadable and "newer than this code" in rec.event.reason


def test_decoding_an_unknown_type_is_refused():
    env = _seal({"x": 1}, type_="GameExploded", version=1)
    with pytest.raises(UnknownEventType, match="GameExploded"):
        decode(env)
    with pytest.raises(LookupError):
        decode_payload("GameExploded", 1, {})


def test_a_missing_upcaster_step_is_an_error():
    with pytest.raises(LookupError, match="no upcaster"):
        upcast("GameEnded", 3, {}, 4)


# --- envelope: canonical bytes and the hash chain -------------------------------------------------


def test_canonical_bytes_are_identical_across_encode_decode_encode():
    env = _seal(
        encode_payload(
            ev.RoundScheduled(
                round=1,
                pairings=[ev.Pairing(game_id="g1", white="a", black="b", board=1)],
                scheduled_at=datetime(2026, 11, 21, 14, 0, 0, 123456, tzinfo=UTC),
            )
        ),
        type_="RoundScheduled",
        version=1,
        causation_id=uuid.UUID(int=7),
        correlation_id=uuid.UUID(int=8),
    )
    first = env.to_bytes()
    again = envelope_from_bytes(first)
    assert again == env
    assert again.to_bytes() == first
    assert envelope_from_bytes(again.to_bytes()).to_bytes() == first
    assert again.computed_hash() == env.hash


def test_canonical_bytes_do_not_depend_on_key_order():
    payload = {"player_id": "a", "name": "A", "kind": "human", "rating": 2700}
    reordered = dict(reversed(list(payload.items())))
    assert list(reordered) != list(payload)
    a, b = _seal(payload), _seal(reordered)
    assert a.to_bytes() == b.to_bytes()
    assert a.hash == b.hash


def test_seal_normalises_offsets_to_utc():
    """The same instant written with another offset gives the same bytes and hash."""
    plus2 = timezone(timedelta(hours=2))
    a = _seal({"x": 1}, occurred_at=T0)
    b = _seal({"x": 1}, occurred_at=T0.astimezone(plus2))
    assert b.occurred_at.utcoffset() == timedelta(0)
    assert a.to_bytes() == b.to_bytes()
    assert a.hash == b.hash


_TAMPER_PAYLOAD = {
    "player_id": "a",
    "name": "Alice",
    "kind": "human",
    "rating": 2700,
    "title": "GM",
}
_TAMPERED_VALUES = {
    "player_id": "b",
    "name": "Alice ",
    "kind": "engine",
    "rating": 2701,
    "title": "IM",
}


@pytest.mark.parametrize("key", sorted(_TAMPER_PAYLOAD))
def test_any_payload_change_changes_the_hash(key: str):
    env = _seal(dict(_TAMPER_PAYLOAD))
    changes: list[dict[str, Any]] = [
        {**env.payload, key: _TAMPERED_VALUES[key]},
        {k: v for k, v in env.payload.items() if k != key},  # a field removed
    ]
    for payload in changes:
        tampered = env.model_copy(update={"payload": payload})
        assert tampered.hash == env.hash  # the stored hash no longer matches ...
        assert tampered.computed_hash() != env.hash  # ... what the content hashes to
    added = env.model_copy(update={"payload": {**env.payload, "seed": 1}})
    assert added.computed_hash() != env.hash


@pytest.mark.parametrize(
    "update",
    [
        {"event_id": uuid.UUID(int=99)},
        {"tournament_id": "t2"},
        {"seq": 2},
        {"type": "PlayerWithdrew"},
        {"schema_version": 1},
        {"occurred_at": T0 + timedelta(microseconds=1)},
        {"recorded_at": T0},
        {"actor": Actor(id="admin-2", role="admin")},
        {"causation_id": uuid.UUID(int=1)},
        {"correlation_id": uuid.UUID(int=1)},
        {"prev_hash": "f" * 64},
    ],
    ids=lambda u: next(iter(u)),
)
def test_any_envelope_field_change_changes_the_hash(update: dict[str, Any]):
    env = _seal(dict(_TAMPER_PAYLOAD))
    assert env.model_copy(update=update).computed_hash() != env.hash


def test_altering_removing_or_reordering_breaks_the_chain():
    envs: list[Envelope] = []
    prev = GENESIS_HASH
    for i, e in enumerate([created(), player("a"), player("b"), player("c")], start=1):
        envs.append(new_event(e, i).sealed("t1", i, prev, T0 + timedelta(seconds=i)))
        prev = envs[-1].hash
    assert_chain(envs)

    altered = list(envs)
    altered[1] = envs[1].model_copy(update={"payload": {**envs[1].payload, "name": "Mallory"}})
    with pytest.raises(AssertionError):
        assert_chain(altered)
    with pytest.raises(AssertionError):
        assert_chain([envs[0], envs[2], envs[3]])
    with pytest.raises(AssertionError):
        assert_chain([envs[0], envs[2], envs[1], envs[3]])


def test_chain_hash_ignores_only_the_hash_field():
    env = _seal(dict(_TAMPER_PAYLOAD))
    body = env.to_json_dict()
    assert chain_hash(body) == env.hash
    assert chain_hash({**body, "hash": "0" * 64}) == env.hash
    assert chain_hash({**body, "extra": 1}) != env.hash


def test_naive_datetimes_are_refused_by_the_envelope():
    env = _seal({"x": 1})
    for field in ("occurred_at", "recorded_at"):
        data = env.to_json_dict()
        data[field] = "2026-11-21T12:00:00"  # no offset
        with pytest.raises(pydantic.ValidationError, match=field):
            Envelope.model_validate(data)
        with pytest.raises(pydantic.ValidationError, match=field):
            Envelope(**{**env.model_dump(), field: datetime(2026, 11, 21, 12, 0)})


@pytest.mark.parametrize("field", ["occurred_at", "recorded_at"])
def test_naive_datetimes_are_refused_by_seal(field: str):
    """Regression: seal used to read a naive time as the host's local time (`astimezone`),
    making the stored instant and the hash depend on the machine's TZ."""
    with pytest.raises(ValueError, match=field):
        _seal({"x": 1}, **{field: datetime(2026, 11, 21, 12, 0)})
    # The same through the log's path (NewEvent.sealed): a naive time from the caller or the
    # log's clock.
    kwargs = {"recorded_at": T0}
    if field == "occurred_at":
        event = dataclasses.replace(new_event(player("a"), 1), occurred_at=datetime(2026, 11, 21))
    else:
        event, kwargs = new_event(player("a"), 1), {"recorded_at": datetime(2026, 11, 21)}
    with pytest.raises(ValueError, match=field):
        event.sealed("t1", 1, GENESIS_HASH, **kwargs)


@pytest.mark.parametrize(
    "tid",
    ["has space", "", "a" * 65, "-leading-dash", ".hidden", "t1/../t2", "t1\n", "tøurnament"],
)
def test_bad_tournament_ids_are_refused(tid: str):
    with pytest.raises(pydantic.ValidationError, match="tournament_id"):
        _seal({"x": 1}, tid=tid)
    with pytest.raises(pydantic.ValidationError, match="tournament_id"):
        new_event(player("a"), 1).sealed(tid, 1, GENESIS_HASH, T0)


@pytest.mark.parametrize("tid", ["t1", "a" * 64, "GCT-2026.paris_rapid", "0"])
def test_good_tournament_ids_are_accepted(tid: str):
    assert _seal({"x": 1}, tid=tid).tournament_id == tid


# --- every event class ----------------------------------------------------------------------------

_U = uuid.UUID(int=42)

MINIMAL: dict[type[Event], Event] = {
    ev.SeriesCreated: ev.SeriesCreated(name="GCT 2026"),
    ev.TournamentCreated: ev.TournamentCreated(name="Open", format="swiss"),
    ev.PlayerRegistered: ev.PlayerRegistered(player_id="a", name="A"),
    ev.PlayerWithdrew: ev.PlayerWithdrew(player_id="a"),
    ev.LotDrawn: ev.LotDrawn(purpose="coin_toss", candidates=["a", "b"], outcome=["b"]),
    ev.RoundScheduled: ev.RoundScheduled(round=1),
    ev.GameStarted: ev.GameStarted(game_id="g1"),
    ev.MovePlayed: ev.MovePlayed(game_id="g1", ply=1, colour="white", uci="e2e4"),
    ev.ClockReported: ev.ClockReported(game_id="g1", white_ms=0, black_ms=0),
    ev.GameEnded: ev.GameEnded(game_id="g1", result="1-0", termination="resignation"),
    ev.EngineCrashed: ev.EngineCrashed(game_id="g1", player_id="a"),
    ev.IllegalMoveNoticed: ev.IllegalMoveNoticed(game_id="g1", ply=3, noticed_by="referee"),
    ev.GoStatusAgreed: ev.GoStatusAgreed(game_id="g1"),
    ev.GoStatusDisputed: ev.GoStatusDisputed(game_id="g1"),
    ev.RoundSkipped: ev.RoundSkipped(player_id="a", round=2),
    ev.ClockPaused: ev.ClockPaused(game_id="g1", circumstance=5),
    ev.ClockResumed: ev.ClockResumed(game_id="g1"),
    ev.ClockSet: ev.ClockSet(
        game_id="g1", reason="referee_correction", white_ms=1, black_ms=2, white_periods=3
    ),
    ev.ClockStarted: ev.ClockStarted(game_id="g1", at=datetime(2026, 11, 24, 10, 20, tzinfo=UTC)),
    ev.AppealsCommitteeFormed: ev.AppealsCommitteeFormed(members=["a", "Referee", "TD"]),
    ev.ProtestStated: ev.ProtestStated(game_id="g1", player_id="a"),
    ev.ColourErrorNoticed: ev.ColourErrorNoticed(game_id="g1", black="a"),
    ev.PositionDisturbed: ev.PositionDisturbed(game_id="g1", procedure="correct"),
    ev.PlayerArrived: ev.PlayerArrived(
        game_id="g1", player_id="a", at=datetime(2026, 11, 24, 10, 31, tzinfo=UTC)
    ),
    ev.ServerInterrupted: ev.ServerInterrupted(
        game_id="g1", ply=0, moves_completed=0, pieces_on_board=32
    ),
    ev.AdjudicationIssued: ev.AdjudicationIssued(game_id="g1", rule="7.b.v", outcome="restart"),
    ev.SanctionIssued: ev.SanctionIssued(player_id="a", level="advice", rule="LGC"),
    ev.AppealFiled: ev.AppealFiled(appeal_id="ap1", filed_by="a", grounds="clock"),
    ev.AppealDecided: ev.AppealDecided(appeal_id="ap1", decision="rejected", text="no"),
    ev.RulingIssued: ev.RulingIssued(ruling_id="r1", by="CA", subject="tie", text="lots"),
    ev.TournamentPaused: ev.TournamentPaused(reason="server down"),
    ev.TournamentResumed: ev.TournamentResumed(),
    ev.BroadcastDelaySet: ev.BroadcastDelaySet(seconds=60),
    ev.PairingsProhibited: ev.PairingsProhibited(players=["p1", "p2"]),
    ev.AccelerationSet: ev.AccelerationSet(),
    ev.TrfRecordsKept: ev.TrfRecordsKept(lines=["162 W 1.0"]),
    ev.ResultCorrected: ev.ResultCorrected(
        corrects_event_id=_U, game_id="g1", result="0-1", termination="agreement", reason="x"
    ),
    ev.EventRetracted: ev.EventRetracted(retracted_event_id=_U, reason="x"),
}

# Fuller instances: nested models, Decimals, datetimes, UUIDs, free-form dicts.
RICH: list[Event] = [
    ev.SeriesCreated(
        name="GCT 2026",
        kind="gct-tour",
        points_table=[Decimal("13"), Decimal("10.5")],
        bonus=ev.PrizeTable(prizes=[ev.Prize(place=1, amount=Decimal("100000.00"))]),
    ),
    ev.TournamentCreated(
        name="Superbet Rapid & Blitz",
        game="chess",
        format="round_robin",
        cycles=2,
        rounds=18,
        rules_preset="gct-2026",
        scoring=ev.Scoring(win=4, draw=2, armageddon=True),
        tiebreaks=[ev.TiebreakSpec(name="sonneborn_berger", params={"cut": None, "w": [1, 2]})],
        time_controls=[
            ev.TimeControl(name="rapid", base_seconds=1500, increment_seconds=10),
            ev.TimeControl(
                name="armageddon",
                base_seconds=240,
                white_base_seconds=300,
                black_base_seconds=240,
                increment_seconds=2,
                increment_from_move=61,
            ),
        ],
        prize_table=ev.PrizeTable(
            currency="EUR",
            prizes=[ev.Prize(place=1, amount=Decimal("37500.50"))],
            winner_premium=Decimal("5000"),
        ),
        series_id="gct-2026",
    ),
    ev.TournamentCreated(
        name="LGC", game="go", format="mcmahon", board_size=13, komi=Decimal("6.5")
    ),
    ev.PlayerRegistered(
        player_id="sf",
        name="Stockfish",
        kind="engine",
        rating=3650,
        engine_version="17.1",
        seed=1,
    ),
    ev.RoundScheduled(
        round=3,
        stage="playoff",
        pairings=[
            ev.Pairing(game_id="p:1", white="a", black="b", board=1, time_control="rapid"),
            ev.Pairing(game_id="p:2", white="c", black="d", opening="1. e4 c5", pair_id="pair1"),
        ],
        byes=[ev.Bye(player_id="e", kind="half")],
        scheduled_at=datetime(2026, 11, 21, 15, 0, tzinfo=timezone(timedelta(hours=1))),
    ),
    ev.GameStarted(game_id="g1", fen="8/8/8/4k3/8/8/4K3/8 b - - 0 1"),
    ev.MovePlayed(
        game_id="g1",
        ply=7,
        colour="white",
        uci="e7e8q",
        san="e8=Q+",
        clock_ms=1,
        move_time_ms=0,
        eval_cp=-35,
        mate_in=-3,
        depth=40,
        nodes=10**12,
    ),
    ev.MovePlayed(game_id="go1", ply=1, colour="black", point="pass"),
    ev.GameEnded(
        game_id="go1",
        result="0-1",
        termination="counting",
        detail="W+0.5",
        go_score=ev.GoScore(
            black_territory=60,
            white_territory=54,
            black_prisoners=3,
            white_prisoners=2,
            komi=Decimal("7.5"),
        ),
    ),
    ev.AppealFiled(appeal_id="ap1", filed_by="a", against_event_id=_U, grounds="clock"),
    ev.RulingIssued(
        ruling_id="r1",
        by="Chief Arbiter",
        subject="tie for first",
        rule="GCT 4.12",
        text="order by lot",
        decision={"order": ["a", "b"], "note": None, "nested": {"k": [1, None]}},
    ),
]


def test_every_event_class_has_a_unique_stable_type_name():
    names = [cls.event_type for cls in EVENT_CLASSES]
    assert len(names) == len(set(names))
    assert all(name == cls.__name__ for name, cls in zip(names, EVENT_CLASSES, strict=True))
    assert {cls.event_type: cls for cls in EVENT_CLASSES} == EVENT_TYPES
    assert all(1 <= len(name) <= 64 for name in names)  # fits Envelope.type
    assert all(cls.schema_version >= 1 for cls in EVENT_CLASSES)


def test_every_event_class_has_a_sample_here():
    assert set(MINIMAL) == set(EVENT_CLASSES)


@pytest.mark.parametrize("cls", EVENT_CLASSES, ids=lambda c: c.event_type)
def test_event_classes_are_frozen_and_strict(cls: type[Event]):
    assert cls.model_config.get("frozen") is True
    assert cls.model_config.get("extra") == "forbid"
    event = MINIMAL[cls]
    first_field = next(iter(cls.model_fields))
    with pytest.raises(pydantic.ValidationError):
        setattr(event, first_field, getattr(event, first_field))
    with pytest.raises(pydantic.ValidationError):
        cls.model_validate({**encode_payload(event), "unexpected_field": 1})


@pytest.mark.parametrize("cls", EVENT_CLASSES, ids=lambda c: c.event_type)
def test_minimal_instance_round_trips(cls: type[Event]):
    event = MINIMAL[cls]
    payload = encode_payload(event)
    assert dumps(payload)  # JSON-able by the one codec
    back = decode_payload(cls.event_type, cls.schema_version, payload)
    assert type(back) is cls
    assert back == event
    assert encode_payload(back) == payload


@pytest.mark.parametrize("event", RICH, ids=lambda e: e.event_type)
def test_rich_instance_round_trips_through_stored_bytes(event: Event):
    env = new_event(event, 1).sealed("t1", 1, GENESIS_HASH, T0)
    stored = env.to_bytes()
    back = envelope_from_bytes(stored)
    assert back.to_bytes() == stored
    assert decode(back) == event
    assert encode_payload(decode(back)) == env.payload


def test_go_settings_refuse_a_bar_below_the_floor_and_odd_mcmahon_points():
    from events_schema.go import GoSettings

    with pytest.raises(
        pydantic.ValidationError, match="mcmahon_bar 20k is below mcmahon_floor 10k"
    ):
        GoSettings(mcmahon_bar="20k", mcmahon_floor="10k")
    with pytest.raises(pydantic.ValidationError, match=r"bye_points 0\.3"):
        GoSettings(bye_points=Decimal("0.3"))
    with pytest.raises(pydantic.ValidationError, match="pattern"):
        GoSettings(mcmahon_bar="31k")
    assert GoSettings(mcmahon_bar="1d", mcmahon_floor="20k").mcmahon_bar == "1d"
