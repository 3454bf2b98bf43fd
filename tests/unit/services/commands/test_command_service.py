"""The command path over a real (temp-file) SQLite log: parse -> idempotency -> decide -> append."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from builders import (
    ADMIN,
    ARBITER,
    batch,
    command,
    created,
    player,
    result,
    round_,
    small_tournament,
)
from tests_support import assert_chain

from events_schema import Command, CommandBatch
from events_schema import events as ev
from services.commands.service import CommandRejected, CommandService, derived_event_id
from services.eventlog.base import AppendConflict, EventIdConflict
from services.eventlog.sqlite import SQLiteEventLog

TID = "t1"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "events.sqlite3"


@pytest.fixture
def logs(db: Path) -> Iterator[list[SQLiteEventLog]]:
    opened: list[SQLiteEventLog] = []
    yield opened
    for log in opened:
        log.close()


def _service(db: Path, logs: list[SQLiteEventLog]) -> CommandService:
    logs.append(SQLiteEventLog(db))
    return CommandService(logs[-1])


@pytest.fixture
def svc(db: Path, logs: list[SQLiteEventLog]) -> CommandService:
    return _service(db, logs)


@pytest.fixture
def started(svc: CommandService) -> CommandService:
    """A tournament with three players and game r1g1 (alice-bob) scheduled: seq 1..5."""
    svc.handle(TID, batch(*small_tournament()), ADMIN)
    assert svc.log.last_seq(TID) == 5
    return svc


def _rejected(svc: CommandService, b: CommandBatch, actor=ADMIN) -> CommandRejected:
    before = svc.log.last_seq(TID)
    with pytest.raises(CommandRejected) as info:
        svc.handle(TID, b, actor)
    assert svc.log.last_seq(TID) == before, "a refused batch must append nothing"
    return info.value


# --- the happy path -------------------------------------------------------------------------------


def test_valid_batch_appends_and_returns_envelopes_with_seq_1_to_n(svc: CommandService):
    events = small_tournament()
    res = svc.handle(TID, batch(*events), ARBITER)
    assert not res.duplicate
    assert [e.seq for e in res.envelopes] == [1, 2, 3, 4, 5]
    assert [e.type for e in res.envelopes] == [e.event_type for e in events]
    assert all(e.actor == ARBITER and e.tournament_id == TID for e in res.envelopes)
    assert res.last_seq == 5 == svc.log.last_seq(TID)
    stored = list(svc.log.read(TID))
    assert stored == res.envelopes
    assert_chain(stored)
    assert svc.state(TID).seq == 5
    assert set(svc.state(TID).players) == {"alice", "bob", "carol"}


def test_decided_payload_is_stored_not_the_raw_command(started: CommandService):
    """The decider completes a chess move's SAN; the stored event carries it."""
    res = started.handle(
        TID, batch(ev.MovePlayed(game_id="r1g1", ply=1, colour="white", uci="g1f3")), ARBITER
    )
    assert res.envelopes[0].payload["san"] == "Nf3"


# --- refusals -------------------------------------------------------------------------------------


def test_batch_with_a_rejected_third_command_appends_nothing(svc: CommandService):
    svc.handle(TID, batch(created()), ADMIN)
    err = _rejected(svc, batch(player("a"), player("b"), player("a")))
    assert err.rule == "player.duplicate"
    assert err.field == "commands[2].payload.player_id"
    assert err.status == 422
    assert svc.log.last_seq(TID) == 1
    # The speculative fold of commands[0..1] was discarded: "a" and "b" are not registered.
    assert svc.state(TID).players == {}
    res = svc.handle(TID, batch(player("b")), ADMIN)
    assert [e.seq for e in res.envelopes] == [2]
    res = svc.handle(TID, batch(player("a")), ADMIN)
    assert [e.seq for e in res.envelopes] == [3]


def test_later_command_in_a_batch_sees_the_earlier_ones(svc: CommandService):
    res = svc.handle(
        TID, batch(created(), player("a"), player("b"), round_(1, ("g1", "a", "b"))), ADMIN
    )
    assert res.last_seq == 4
    err = _rejected(svc, batch(result("g1", "1-0"), result("g1", "0-1")))
    assert (err.rule, err.field) == ("game.already_ended", "commands[1].payload.game_id")


def test_unknown_type_is_refused_with_its_field(started: CommandService):
    bad = CommandBatch(
        commands=[command(player("dave")), Command(type="GameExploded", payload={"x": 1})]
    )
    err = _rejected(started, bad)
    assert (err.rule, err.field) == ("command.unknown_type", "commands[1].type")
    assert "GameExploded" in err.message


def test_payload_missing_a_required_field_is_refused_with_its_path(started: CommandService):
    missing = Command(type="GameEnded", payload={"game_id": "r1g1", "termination": "agreement"})
    err = _rejected(started, CommandBatch(commands=[missing]))
    assert (err.rule, err.field) == ("payload.invalid", "commands[0].payload.result")
    assert "GameEnded v3" in err.message

    nested = Command(
        type="RoundScheduled",
        payload={"round": 2, "pairings": [{"game_id": "r2g1", "white": "alice"}]},
    )
    err = _rejected(started, CommandBatch(commands=[command(player("dave")), nested]))
    assert (err.rule, err.field) == ("payload.invalid", "commands[1].payload.pairings.0.black")


def test_payload_with_an_unknown_field_is_refused(started: CommandService):
    extra = Command(type="PlayerWithdrew", payload={"player_id": "bob", "why": "ill"})
    err = _rejected(started, CommandBatch(commands=[extra]))
    assert (err.rule, err.field) == ("payload.invalid", "commands[0].payload.why")


@pytest.mark.parametrize("index", [0, 1])
def test_non_admin_cannot_append_corrections_or_retractions(started: CommandService, index: int):
    first_result = started.handle(TID, batch(result("r1g1", "1-0")), ADMIN).envelopes[0]
    fix = ev.ResultCorrected(
        corrects_event_id=first_result.event_id,
        game_id="r1g1",
        result="0-1",
        termination="resignation",
        reason="scoresheet",
    )
    retract = ev.EventRetracted(retracted_event_id=first_result.event_id, reason="wrong board")
    for admin_only in (fix, retract):
        events = [admin_only] if index == 0 else [player("dave"), admin_only]
        err = _rejected(started, batch(*events), ARBITER)
        assert err.status == 403
        assert (err.rule, err.field) == ("auth.admin_only", f"commands[{index}].type")
        assert admin_only.event_type in err.message
    # An admin may.
    res = started.handle(TID, batch(fix), ADMIN)
    assert res.envelopes[0].type == "ResultCorrected" and res.last_seq == 7


def test_expected_seq_mismatch_raises_append_conflict(started: CommandService):
    with pytest.raises(AppendConflict) as info:
        started.handle(TID, batch(player("dave"), expected_seq=4), ADMIN)
    assert (info.value.expected, info.value.actual) == (4, 5)
    assert started.log.last_seq(TID) == 5
    assert started.handle(TID, batch(player("dave"), expected_seq=5), ADMIN).last_seq == 6
    with pytest.raises(AppendConflict):
        started.handle(TID, batch(player("erin"), expected_seq=0), ADMIN)
    assert started.log.last_seq(TID) == 6


# --- idempotency ----------------------------------------------------------------------------------


def test_resent_batch_is_a_duplicate_and_appends_nothing(started: CommandService):
    ids = [uuid.uuid4(), uuid.uuid4()]
    sent = CommandBatch(
        commands=[
            command(ev.GameStarted(game_id="r1g1"), event_id=ids[0]),
            command(result("r1g1", "1-0", "resignation"), event_id=ids[1]),
        ]
    )
    first = started.handle(TID, sent, ARBITER)
    assert not first.duplicate and [e.seq for e in first.envelopes] == [6, 7]
    # A new GameEnded for that game is now refused ...
    err = _rejected(started, batch(result("r1g1", "0-1")), ARBITER)
    assert err.rule == "game.already_ended"
    # ... but resending the original batch is recognised before deciding.
    again = started.handle(TID, sent, ARBITER)
    assert again.duplicate
    assert again.envelopes == first.envelopes
    assert started.log.last_seq(TID) == 7
    # Also with a stale expected_seq (the client never saw the first answer).
    stale = CommandBatch(commands=sent.commands, expected_seq=5)
    assert started.handle(TID, stale, ARBITER).duplicate
    assert started.log.last_seq(TID) == 7


def test_same_event_id_with_a_different_payload_is_refused(started: CommandService):
    eid = uuid.uuid4()
    started.handle(TID, CommandBatch(commands=[command(player("dave", 2400), event_id=eid)]), ADMIN)
    for other in (player("dave", 2500), player("erin", 2400), ev.PlayerWithdrew(player_id="bob")):
        with pytest.raises(EventIdConflict):
            started.handle(TID, CommandBatch(commands=[command(other, event_id=eid)]), ADMIN)
    assert started.log.last_seq(TID) == 6


def test_same_event_id_in_another_tournament_is_refused(started: CommandService):
    eid = uuid.uuid4()
    started.handle(TID, CommandBatch(commands=[command(player("dave"), event_id=eid)]), ADMIN)
    with pytest.raises(EventIdConflict):
        started.handle("t2", CommandBatch(commands=[command(created(), event_id=eid)]), ADMIN)
    assert started.log.last_seq("t2") == 0


def test_partly_stored_batch_is_refused(started: CommandService):
    eid = uuid.uuid4()
    started.handle(TID, CommandBatch(commands=[command(player("dave"), event_id=eid)]), ADMIN)
    partly = CommandBatch(
        commands=[
            command(player("dave"), event_id=eid),
            command(player("erin"), event_id=uuid.uuid4()),
        ]
    )
    with pytest.raises(EventIdConflict):
        started.handle(TID, partly, ADMIN)
    assert started.log.last_seq(TID) == 6


def test_resend_omitting_an_optional_field_is_a_conflict(started: CommandService):
    """Regression: the redelivery check compared only the resent keys, so a resend without
    `rating` was taken for the stored event (duplicate=True) instead of a conflict."""
    eid = uuid.uuid4()
    started.handle(TID, CommandBatch(commands=[command(player("dave", 2400), event_id=eid)]), ADMIN)
    with pytest.raises(EventIdConflict):
        started.handle(TID, CommandBatch(commands=[command(player("dave"), event_id=eid)]), ADMIN)
    assert started.log.last_seq(TID) == 6


def test_resent_move_without_the_derived_san_is_a_duplicate(started: CommandService):
    """The decider fills in `san`; a resend of the original command (without it) is the same
    command, but a resend claiming another SAN is not."""
    eid = uuid.uuid4()
    move = ev.MovePlayed(game_id="r1g1", ply=1, colour="white", uci="e2e4")
    sent = CommandBatch(commands=[command(move, event_id=eid)])
    first = started.handle(TID, sent, ARBITER)
    assert first.envelopes[0].payload["san"] == "e4"
    again = started.handle(TID, sent, ARBITER)
    assert again.duplicate and again.envelopes == first.envelopes
    assert started.handle(
        TID, CommandBatch(commands=[command(move.model_copy(update={"san": "e4"}), eid)]), ARBITER
    ).duplicate
    wrong = move.model_copy(update={"san": "d4"})
    with pytest.raises(EventIdConflict):
        started.handle(TID, CommandBatch(commands=[command(wrong, event_id=eid)]), ARBITER)
    assert started.log.last_seq(TID) == 6


# --- derived events -------------------------------------------------------------------------------


def test_adjudication_appends_two_events_with_a_derived_id(started: CommandService):
    eid = uuid.uuid4()
    adj = ev.AdjudicationIssued(
        game_id="r1g1", rule="TCEC Swiss 7.b.iii", outcome="1/2-1/2", basis="evals 0.05/0.10"
    )
    sent = CommandBatch(commands=[command(adj, event_id=eid)])
    res = started.handle(TID, sent, ARBITER)
    first, second = res.envelopes
    assert [e.seq for e in res.envelopes] == [6, 7]
    assert (first.type, second.type) == ("AdjudicationIssued", "GameEnded")
    assert first.event_id == eid == derived_event_id(eid, 0)
    assert second.event_id == derived_event_id(eid, 1)
    assert derived_event_id(eid, 1) == derived_event_id(eid, 1) != eid  # deterministic
    assert derived_event_id(eid, 1) != derived_event_id(uuid.uuid4(), 1)
    assert second.causation_id == eid
    assert first.correlation_id == second.correlation_id == eid
    assert second.payload["result"] == "1/2-1/2"
    assert second.payload["termination"] == "adjudication"
    assert started.state(TID).games["r1g1"].status == "ended"
    # Resending the adjudication returns both stored events and appends nothing.
    again = started.handle(TID, sent, ARBITER)
    assert again.duplicate and again.envelopes == res.envelopes
    assert started.log.last_seq(TID) == 7


def test_client_causation_and_correlation_are_kept(started: CommandService):
    cause, corr = uuid.uuid4(), uuid.uuid4()
    cmd = command(player("dave"), causation_id=cause, correlation_id=corr)
    [env] = started.handle(TID, CommandBatch(commands=[cmd]), ADMIN).envelopes
    assert (env.causation_id, env.correlation_id) == (cause, corr)


# --- several processes ----------------------------------------------------------------------------


def test_two_services_on_one_file_see_each_others_appends(db: Path, logs: list[SQLiteEventLog]):
    a, b = _service(db, logs), _service(db, logs)
    a.handle(TID, batch(*small_tournament()), ADMIN)
    # B builds its cached state now, then A moves on.
    assert b.state(TID).games["r1g1"].status == "scheduled"
    a.handle(TID, batch(result("r1g1", "1-0")), ARBITER)
    # B decides on fresh state: the game A ended cannot get a second result.
    with pytest.raises(CommandRejected) as info:
        b.handle(TID, batch(result("r1g1", "0-1")), ARBITER)
    assert (info.value.rule, info.value.field) == (
        "game.already_ended",
        "commands[0].payload.game_id",
    )
    assert b.log.last_seq(TID) == 6
    # And the other way round: B appends at the right seq; A sees it.
    res = b.handle(TID, batch(player("dave")), ADMIN)
    assert [e.seq for e in res.envelopes] == [7]
    assert "dave" in a.state(TID).players
    with pytest.raises(CommandRejected) as info:
        a.handle(TID, batch(player("dave")), ADMIN)
    assert info.value.rule == "player.duplicate"
    assert_chain(list(a.log.read(TID)))
    assert list(a.log.read(TID)) == list(b.log.read(TID))


def test_stale_service_with_expected_seq_gets_a_conflict(db: Path, logs: list[SQLiteEventLog]):
    a, b = _service(db, logs), _service(db, logs)
    a.handle(TID, batch(*small_tournament()), ADMIN)
    seen = b.state(TID).seq
    a.handle(TID, batch(player("dave")), ADMIN)
    with pytest.raises(AppendConflict):
        b.handle(TID, batch(player("erin"), expected_seq=seen), ADMIN)
    assert b.handle(TID, batch(player("erin"), expected_seq=seen + 1), ADMIN).last_seq == 7


def test_batch_reusing_an_event_id_is_refused(started: CommandService):
    eid = uuid.uuid4()
    twice = CommandBatch(
        commands=[command(player("dave"), event_id=eid), command(player("erin"), event_id=eid)]
    )
    with pytest.raises(EventIdConflict):
        started.handle(TID, twice, ADMIN)
    assert started.log.last_seq(TID) == 5
    assert "dave" not in started.state(TID).players
