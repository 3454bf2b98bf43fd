"""The entry path's use cases on a real log (services/commands/entries/): given a tournament's
events, when an organiser's request, then the events appended (or a refusal and nothing).

A requested bye is the round's byes ruling in force merged with the new bye (FIDE C.04.2), by
the acting person, and the Dutch pairing honours it; an entry list is one batch."""

from __future__ import annotations

from pathlib import Path

import pytest
from builders import batch
from tests_support import ADMIN_ACTOR

from events_schema import Actor
from events_schema import events as ev
from projections.pairing.dutch import byes_subject
from services.commands.entries import (
    byes_in_force,
    entry_list,
    fold_tournament,
    register_entries,
    request_bye,
    withdraw_player,
)
from services.commands.pairing import pair_next
from services.commands.service import CommandRejected, CommandService
from services.eventlog.sqlite import SQLiteEventLog
from services.interchange.entries import Entry

ARBITER = Actor(id="Jane Arbiter", role="arbiter")
T = "open"


@pytest.fixture
def service(tmp_path: Path):
    log = SQLiteEventLog(tmp_path / "events.sqlite3")
    yield CommandService(log)
    log.close()


def _given(service: CommandService, *events: ev.Event) -> None:
    service.handle(T, batch(*events), ADMIN_ACTOR)


def _swiss(service: CommandService, n: int = 6) -> list[str]:
    names = [f"Player, No{i}" for i in range(1, n + 1)]
    _given(service, ev.TournamentCreated(name="Open", format="swiss", rounds=5))
    done = register_entries(
        service, T, [Entry(nm, rating=2400 - 10 * i) for i, nm in enumerate(names)], ADMIN_ACTOR
    )
    return list(done.player_ids)


def _events(service: CommandService) -> list[ev.Event]:
    from events_schema import Recorded

    return [Recorded.of(e).event for e in service.log.read(T, 1)]


def test_a_bye_is_merged_into_the_rounds_ruling_in_force_by_the_acting_person(service):
    ids = _swiss(service)
    # given a ruling in force for round 2 with one bye
    _given(
        service,
        ev.RulingIssued(
            ruling_id="byes-earlier",
            by="chief",
            subject=byes_subject("main", 2),
            text="earlier byes",
            decision={"byes": {ids[0]: "zero"}},
        ),
    )
    # when another player asks for a half-point bye in round 2
    done = request_bye(service, T, "no3", 2, ARBITER, points="1/2")
    # then one ruling holds both byes, by the arbiter, citing the rule
    ruling = _events(service)[-1]
    assert isinstance(ruling, ev.RulingIssued)
    assert ruling.subject == "main:r2:byes"
    assert ruling.decision == {"byes": {ids[0]: "zero", ids[2]: "half"}}
    assert ruling.by == "Jane Arbiter" and "C.04.2" in ruling.rule
    assert done.result.envelopes[0].actor == ARBITER
    assert byes_in_force(fold_tournament(service, T, "t"), "main", 2) == ruling.decision["byes"]
    # and a cancel removes only that player's bye
    request_bye(service, T, ids[0], 2, ARBITER, cancel=True)
    assert byes_in_force(fold_tournament(service, T, "t"), "main", 2) == {ids[2]: "half"}


def test_the_pairing_honours_the_requested_bye_and_a_paired_round_takes_none(service):
    ids = _swiss(service)
    request_bye(service, T, "no2", 1, ARBITER, points="0")
    paired = pair_next(service, T, ARBITER)
    byes = [(b.player_id, b.kind) for b in paired.round.byes]
    assert byes == [(ids[5], "pairing_allocated"), (ids[1], "zero")]  # 5 to pair: one PAB
    assert all(ids[1] not in (p.white, p.black) for p in paired.round.pairings)
    before = service.log.last_seq(T)
    with pytest.raises(CommandRejected) as info:
        request_bye(service, T, "no3", 1, ARBITER)
    assert (info.value.rule, info.value.field) == ("bye.round_paired", "round")
    assert service.log.last_seq(T) == before


@pytest.mark.parametrize(
    ("player", "rnd", "points", "rule"),
    [
        ("no1", 6, "½", "bye.round_beyond"),
        ("no1", 2, "1", "bye.full_point_not_offered"),
        ("no", 2, "½", "player.ambiguous"),
        ("nobody", 2, "½", "player.unknown"),
        ("no4", 3, "½", "bye.player_withdrawn"),
    ],
)
def test_a_refused_bye_appends_nothing(service, player: str, rnd: int, points: str, rule: str):
    _swiss(service)
    withdraw_player(service, T, "no4", ARBITER, from_round=3, reason="ill")
    before = service.log.last_seq(T)
    with pytest.raises(CommandRejected) as info:
        request_bye(service, T, player, rnd, ARBITER, points=points)
    assert info.value.rule == rule
    assert service.log.last_seq(T) == before


def test_a_bye_the_pairing_system_would_not_read_is_refused(service):
    _given(
        service,
        ev.TournamentCreated(name="RR", format="round_robin", rounds=3),
        ev.PlayerRegistered(player_id="a", name="A"),
    )
    with pytest.raises(CommandRejected) as info:
        request_bye(service, T, "a", 1, ARBITER)
    assert info.value.rule == "bye.not_read_by_system"


def test_an_entry_list_is_one_batch_a_refused_one_appends_nothing(service):
    _swiss(service, 2)
    before = service.log.last_seq(T)
    entries = [Entry("New, One", fide_id=123), Entry("New, Two", fide_id=123)]
    with pytest.raises(CommandRejected) as info:
        register_entries(service, T, entries, ARBITER)
    assert (info.value.rule, info.value.field) == (
        "entries.duplicate_fide_id",
        "entries[1].fide_id",
    )
    assert service.log.last_seq(T) == before
    with pytest.raises(CommandRejected) as info:
        register_entries(service, "nowhere", [Entry("A")], ARBITER)
    assert info.value.rule == "register.unknown_tournament"


def test_a_withdrawal_at_once_records_the_next_round_to_pair(service):
    # given a Swiss whose round 1 is paired and played
    _swiss(service)
    for p in pair_next(service, T, ARBITER).round.pairings:
        service.handle(
            T,
            batch(ev.GameEnded(game_id=p.game_id, result="1-0", termination="resignation")),
            ADMIN_ACTOR,
        )
    # when a player withdraws without naming a round
    done = withdraw_player(service, T, "no6", ARBITER, reason="called home")
    # then the event records round 2, the next round to pair, and the entry list still says
    # round 2 once round 2 is paired (it was read as "the next round" at every reading)
    assert done.result.envelopes[0].payload["from_round"] == 2
    pair_next(service, T, ARBITER)
    row = next(
        r for r in entry_list(fold_tournament(service, T, "players")) if r.name.endswith("No6")
    )
    assert row.withdrawn_from == 2


def test_a_late_entry_is_registered_and_paired_from_the_next_round(service):
    ids = _swiss(service, 4)
    first = pair_next(service, T, ARBITER)
    for p in first.round.pairings:
        service.handle(
            T,
            batch(ev.GameEnded(game_id=p.game_id, result="1-0", termination="resignation")),
            ARBITER,
        )
    late = register_entries(service, T, [Entry("Late, Comer", rating=2500)], ARBITER)
    assert late.late and late.player_ids == ("late-comer",)
    assert late.new_rows()[0].start_no == 1  # the highest rating: the C.04.2 first number
    second = pair_next(service, T, ARBITER)
    seated = {x for p in second.round.pairings for x in (p.white, p.black)}
    seated |= {b.player_id for b in second.round.byes}
    assert seated == {*ids, "late-comer"}
