"""The season view over folds (projections/seasons/view.py): the plan ruling, statuses, a field
ruling in force over the derived field, a retracted ruling, registrations that drift from the
ruling, a held (unreadable) stage, and the `tcec-leagues` Entrance League from the plan's Swiss
qualifiers."""

from __future__ import annotations

from typing import Any

from builders import eid, recorded

from events_schema import events as ev
from projections.seasons import PLAN_SUBJECT, season_view
from projections.standings import StandingsState, fold

IDS = [f"e{i:02d}" for i in range(1, 39)]
PLACED = {"divp": IDS[0:6], "l1": IDS[6:14], "l2": IDS[14:22], "el": IDS[22:32]}


def _plan_ruling(**kw: Any) -> ev.RulingIssued:
    decision = {
        "format": "tcec-leagues",
        "engines": [{"player_id": p, "name": p.upper()} for p in IDS],
        "placed": PLACED,
        "swiss_qualifiers": IDS[32:38],
        **kw,
    }
    return ev.RulingIssued(
        ruling_id="plan", by="td", subject=PLAN_SUBJECT, text="plan", decision=decision
    )


def _series(*events: ev.Event) -> StandingsState:
    return fold(recorded("s1", [ev.SeriesCreated(name="S1"), *events]))


def _stage(tid: str, players: list[tuple[str, int]], series_id: str = "s1") -> StandingsState:
    events: list[ev.Event] = [
        ev.TournamentCreated(
            name=tid, format="league", rules_preset="tcec-league", cycles=2, series_id=series_id
        )
    ]
    events += [
        ev.PlayerRegistered(player_id=p, name=p.upper(), kind="engine", seed=s) for p, s in players
    ]
    return fold(recorded(tid, events))


def test_without_a_plan_the_view_names_the_problem() -> None:
    view = season_view("s1", _series(), {})
    assert view.fmt is None and view.stages == ()
    assert "no season plan" in view.problems[0]


def test_a_plan_the_format_cannot_read_is_a_problem() -> None:
    view = season_view("s1", _series(_plan_ruling(format="tcec-chess960")), {})
    assert "unknown season format" in view.problems[0]
    view = season_view("s1", _series(_plan_ruling(holder="e01")), {})
    assert view.problems == (
        "plan.holder: not read by the tcec-leagues format (it reads placed, swiss_qualifiers, "
        "vacancies)",
    )


def test_the_entrance_league_is_ready_from_the_plan_and_the_rest_wait() -> None:
    view = season_view("s1", _series(_plan_ruling()), {})
    assert [s.status for s in view.stages] == ["ready", "waiting", "waiting", "waiting", "waiting"]
    el = view.stage("el")
    assert el.tournament_id == "s1-el" and el.to_record and el.field_source == "derived"
    # Leagues 2.3: 10 placed, then the last Swiss's 6 (plan.swiss_qualifiers) in its order
    assert [e.player_id for e in el.field] == IDS[22:38]
    assert [e.source for e in el.field[9:11]] == ["plan", "swiss_qualifiers"]
    assert view.stage("l2").blocked is not None
    assert "s1-el" in view.stage("l2").blocked.text
    assert view.placement is None and view.placement_blocked is not None


def test_a_field_ruling_in_force_wins_over_the_derived_field_and_is_flagged_stale() -> None:
    ruling = ev.RulingIssued(
        ruling_id="mine",
        by="td",
        subject="field:s1-el",
        text="the organisers' field",
        decision={"players": list(reversed(IDS[22:38]))},
    )
    view = season_view("s1", _series(_plan_ruling(), ruling), {})
    el = view.stage("el")
    assert el.status == "ready" and el.field_source == "ruling" and el.ruling_id == "mine"
    assert not el.to_record and el.to_create
    assert el.field[0].player_id == "e38" and el.stale


def test_a_retracted_field_ruling_is_no_longer_in_force() -> None:
    ruling = ev.RulingIssued(
        ruling_id="mine", by="td", subject="field:s1-el", text="t", decision={"players": IDS[:2]}
    )
    # recorded() gives the n-th event the id eid(n): the ruling is the 3rd
    retract = ev.EventRetracted(retracted_event_id=eid(3), reason="overruled")
    view = season_view("s1", _series(_plan_ruling(), ruling), {})
    assert view.stage("el").field_source == "ruling"
    view = season_view("s1", _series(_plan_ruling(), ruling, retract), {})
    assert view.stage("el").field_source == "derived" and view.stage("el").ruling_id is None


def test_registrations_that_differ_from_the_ruling_in_force_are_reported() -> None:
    ruling = ev.RulingIssued(
        ruling_id="field-el",
        by="td",
        subject="field:s1-el",
        text="t",
        decision={"players": IDS[22:38]},
    )
    series = _series(_plan_ruling(), ruling)
    same = _stage("s1-el", [(p, i) for i, p in enumerate(IDS[22:38], 1)])
    view = season_view("s1", series, {"s1-el": same})
    assert view.stage("el").status == "created" and not view.stage("el").registrations_differ
    drift = _stage("s1-el", [(p, i) for i, p in enumerate(IDS[22:37], 1)])
    view = season_view("s1", series, {"s1-el": drift})
    assert view.stage("el").registrations_differ
    assert any("re-registers" in n for n in view.stage("el").notes)


def test_a_stage_of_another_series_or_held_by_an_unreadable_event_is_noted() -> None:
    series = _series(_plan_ruling())
    other = _stage("s1-el", [("e23", 1), ("e24", 2)], series_id="s9")
    view = season_view("s1", series, {"s1-el": other})
    assert any("created for series 's9'" in n for n in view.stage("el").notes)
    held = _stage("s1-el", [("e23", 1), ("e24", 2)])
    held.unreadable[next(iter(held.registrations))] = (2, "Mystery", "unknown type")
    view = season_view("s1", series, {"s1-el": held})
    assert view.stage("el").outcome.text.startswith("held")
    assert not view.stage("el").outcome.finished
