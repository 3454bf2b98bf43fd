"""`services/commands/seasons.py` on an in-memory log: starting a season (refusals, a resend), a
dry run,
and the organisers' field ruling when the standings leave the line to them (a 4k Pool where
everyone draws: the MiniFinal waits, the arbiter names its two engines, `advance` creates it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests_support import ADMIN_ACTOR

from events_schema import Command, CommandBatch, Recorded, encode_payload
from events_schema import events as ev
from projections.standings import fold
from services.commands import seasons
from services.commands.pairing import pair_next
from services.commands.service import CommandRejected, CommandService
from services.eventlog.sqlite import SQLiteEventLog

IDS = ["k1", "k2", "k3", "k4"]


def _plan(**kw: Any) -> dict[str, Any]:
    return {
        "format": "tcec-4k",
        "engines": [{"player_id": p, "name": p.upper()} for p in IDS],
        "field": IDS,
        **kw,
    }


@pytest.fixture
def service() -> Iterator[CommandService]:
    log = SQLiteEventLog(":memory:")
    yield CommandService(log)
    log.close()


def _handle(service: CommandService, stream: str, *events: ev.Event) -> None:
    service.handle(
        stream,
        CommandBatch(
            commands=[Command(type=e.event_type, payload=encode_payload(e)) for e in events]
        ),
        ADMIN_ACTOR,
    )


def test_start_refuses_a_plan_it_cannot_read(service: CommandService) -> None:
    with pytest.raises(CommandRejected) as exc:
        seasons.start(service, "k", "K", _plan(field=["k1", "zz"]), ADMIN_ACTOR)
    assert exc.value.rule == "season.invalid_plan" and "zz not in plan.engines" in exc.value.message
    with pytest.raises(CommandRejected) as exc:
        seasons.start(service, "k", "K", _plan(format="tcec-bughouse"), ADMIN_ACTOR)
    assert exc.value.rule == "season.unknown_format"
    with pytest.raises(CommandRejected) as exc:
        seasons.start(service, "k", "K", _plan(vacancies="sometimes"), ADMIN_ACTOR)
    assert exc.value.field == "plan.vacancies"
    assert list(service.log.read("k", 1)) == []


def test_start_once_then_a_resend_appends_nothing_and_another_plan_is_refused(
    service: CommandService,
) -> None:
    assert seasons.start(service, "k", "K", _plan(), ADMIN_ACTOR) == [1, 2]
    assert seasons.start(service, "k", "K", _plan(), ADMIN_ACTOR) == []
    with pytest.raises(CommandRejected) as exc:
        seasons.start(service, "k", "K", _plan(field=list(reversed(IDS))), ADMIN_ACTOR)
    assert exc.value.rule == "season.exists"


def test_advance_refuses_an_unknown_series(service: CommandService) -> None:
    with pytest.raises(CommandRejected) as exc:
        seasons.advance(service, "nope", ADMIN_ACTOR)
    assert exc.value.rule == "season.unknown_series"


def test_a_dry_run_appends_nothing(service: CommandService) -> None:
    seasons.start(service, "k", "K", _plan(), ADMIN_ACTOR)
    done = seasons.advance(service, "k", ADMIN_ACTOR, dry_run=True)
    assert done.nothing_appended
    assert done.planned == ["RulingIssued field:k-pool (field-pool)"]
    assert len(list(service.log.read("k", 1))) == 2
    assert list(service.log.read("k-pool", 1)) == []


def test_a_line_inside_an_open_tie_waits_for_the_organisers_field_ruling(
    service: CommandService,
) -> None:
    seasons.start(service, "k", "K", _plan(), ADMIN_ACTOR)
    done = seasons.advance(service, "k", ADMIN_ACTOR)
    pool = fold([Recorded.of(e) for e in service.log.read("k-pool", 1)])
    assert pool.created is not None and pool.created.rounds == 24  # 4DRR of 4 engines
    assert [p.seed for p in pool.players.values()] == [1, 2, 3, 4]
    while True:
        try:
            paired = pair_next(service, "k-pool", ADMIN_ACTOR, seed="t")
        except CommandRejected as exc:
            assert exc.rule == "pairing.round_robin_complete"
            break
        draws = [
            ev.GameEnded(game_id=p.game_id, result="1/2-1/2", termination="agreement")
            for p in paired.round.pairings
        ]
        _handle(service, "k-pool", *draws)
    done = seasons.advance(service, "k", ADMIN_ACTOR)
    assert done.nothing_appended
    mini = done.view.stage("minifinal")
    assert mini.status == "awaiting_ruling" and mini.blocked is not None
    assert "field:k-minifinal" in mini.blocked.text
    assert any("MiniFinal" in p for p in done.problems)
    # the organisers decide (tcec-rules 4k 3.1.7): their field ruling on the series
    _handle(
        service,
        "k",
        ev.RulingIssued(
            ruling_id="td-mini",
            by="td",
            subject="field:k-minifinal",
            rule="tcec-rules 4k 3.1.7",
            text="k3 and k2 play the MiniFinal",
            decision={"players": ["k3", "k2"]},
        ),
    )
    done = seasons.advance(service, "k", ADMIN_ACTOR)
    assert [a.stream for a in done.appended] == ["k-minifinal"]
    mini = fold([Recorded.of(e) for e in service.log.read("k-minifinal", 1)])
    assert [(p.player_id, p.seed) for p in mini.players.values()] == [("k3", 1), ("k2", 2)]
    assert mini.created is not None and mini.created.rounds == 50
    assert seasons.advance(service, "k", ADMIN_ACTOR).nothing_appended
