"""The next stage's field from finished stages (projections/seasons/derive.py), on outcomes
built by hand: Swiss → Cup (top 32, the holder seeded 1), Swiss → Entrance League (engines
placed in a League passed over, the first time all 16), vacancies (Leagues 1.8, both
readings), FRD (the seeding lot, the snake over Leagues A-D, the Semileagues crossed, the Final
League), 4k, a line inside a tie, and reading a field ruling."""

from __future__ import annotations

from typing import Any

import pytest

from events_schema import events as ev
from projections.seasons import FORMATS, Blocked, Derived, Inputs, SeasonPlan, derive_field
from projections.seasons.derive import field_of_ruling, snake_group, vacancies
from projections.seasons.reading import StageOutcome, Standing
from projections.seasons.view import plan_problems


def _finished(*ids: str, ties: dict[int, int] | None = None) -> StageOutcome:
    """A finished stage in this order; `ties` {position: place} shares a place (1-based)."""
    ties = ties or {}
    places = {i: ties.get(i, i) for i in range(1, len(ids) + 1)}
    rows = []
    for i, pid in enumerate(ids, start=1):
        tied = tuple(ids[j - 1] for j, pl in places.items() if pl == places[i])
        rows.append(Standing(places[i], pid, pid.upper(), tied if len(tied) > 1 else ()))
    return StageOutcome("finished", tuple(rows), seq=99)


def _plan(fmt: str, ids: list[str], **kw: Any) -> SeasonPlan:
    return SeasonPlan(format=fmt, engines=[{"player_id": p, "name": p.upper()} for p in ids], **kw)  # type: ignore[arg-type]


def _derive(fmt: str, key: str, plan: SeasonPlan, lots: Any = None, **outcomes: Any) -> Any:
    inp = Inputs("s1", FORMATS[fmt], plan, outcomes, lots or {})
    return derive_field(inp, FORMATS[fmt].stage(key))


def _ids(got: Derived | Blocked) -> list[str]:
    assert isinstance(got, Derived), got
    return [p.player_id for p in got.players]


SWISS = [f"e{i:02d}" for i in range(1, 41)]


def test_cup_takes_the_swiss_top_32_by_place_with_the_last_cup_winner_seeded_1() -> None:
    plan = _plan("tcec-swiss-cup", SWISS, field=SWISS, cup_holder="e07")
    got = _derive("tcec-swiss-cup", "cup", plan, swiss=_finished(*SWISS))
    ids = _ids(got)
    assert ids == ["e07", *[p for p in SWISS[:32] if p != "e07"]]  # Cup 1.c-1.e
    assert isinstance(got, Derived)
    assert [p.seed for p in got.players] == list(range(1, 33))
    assert got.players[0].rule.startswith("tcec-rules Cup 1.c")
    assert got.players[1].place == 1 and got.players[1].source == "swiss"
    assert got.derived_from == {"swiss": {"tournament_id": "s1-swiss", "as_of_seq": 99}}
    assert "Cup 1.e" in got.rule


def test_a_cup_holder_outside_the_top_32_does_not_qualify() -> None:
    plan = _plan("tcec-swiss-cup", SWISS, field=SWISS, cup_holder="e40")
    got = _derive("tcec-swiss-cup", "cup", plan, swiss=_finished(*SWISS))
    assert _ids(got) == SWISS[:32]
    assert isinstance(got, Derived)
    assert any("not in the field" in n for n in got.notes)


def test_the_cup_line_inside_a_shared_place_waits_for_the_organisers() -> None:
    plan = _plan("tcec-swiss-cup", SWISS, field=SWISS)
    swiss = _finished(*SWISS, ties={33: 32})  # 32nd and 33rd share place 32 (Swiss 3.5)
    got = _derive("tcec-swiss-cup", "cup", plan, swiss=swiss)
    assert isinstance(got, Blocked) and got.kind == "ruling"
    assert "e32, e33" in got.text and "field:s1-cup" in got.text


def test_a_tie_inside_the_qualified_places_is_no_obstacle() -> None:
    plan = _plan("tcec-swiss-cup", SWISS, field=SWISS)
    got = _derive("tcec-swiss-cup", "cup", plan, swiss=_finished(*SWISS, ties={2: 1, 32: 31}))
    assert _ids(got) == SWISS[:32]


def test_the_stage_waits_for_an_unfinished_input() -> None:
    plan = _plan("tcec-swiss-cup", SWISS, field=SWISS)
    running = StageOutcome("in_progress")
    got = _derive("tcec-swiss-cup", "cup", plan, swiss=running)
    assert isinstance(got, Blocked) and got.kind == "waiting"
    assert "in progress" in got.text


def _season_plan(**kw: Any) -> SeasonPlan:
    placed = {
        "divp": SWISS[0:6],
        "l1": SWISS[6:14],
        "l2": SWISS[14:22],
        "el": SWISS[22:32],
    }
    return _plan("tcec-season", SWISS, field=SWISS, placed=kw.pop("placed", placed), **kw)


def test_the_entrance_league_takes_the_best_six_swiss_engines_not_in_a_league() -> None:
    plan = _season_plan()
    # The Swiss order mixes placed engines and the 8 newcomers e33..e40.
    order = ["e01", "e35", "e02", "e40", "e33", "e20", "e38", "e36", "e34", "e37", "e39"]
    order += [p for p in SWISS if p not in order]
    got = _derive("tcec-season", "el", plan, swiss=_finished(*order))
    assert _ids(got) == [*SWISS[22:32], "e35", "e40", "e33", "e38", "e36", "e34"]
    assert isinstance(got, Derived)
    assert got.players[10].source == "swiss" and got.players[10].place == 2
    assert any("passed over" in n and "e01, e02, e20" in n for n in got.notes)


def test_the_first_entrance_league_is_all_from_the_swiss() -> None:
    placed = {"divp": SWISS[0:6], "l1": SWISS[6:14], "l2": SWISS[14:22]}  # no "el" at all
    plan = _season_plan(placed=placed)
    got = _derive("tcec-season", "el", plan, swiss=_finished(*SWISS))
    assert _ids(got) == SWISS[22:38]  # Leagues 2.3: "all will be seeded according to last Swiss"
    assert isinstance(got, Derived)
    assert any("the first time" in n for n in got.notes)


def test_vacancies_relegate_fewer_by_default_and_promote_more_when_the_plan_says_so() -> None:
    placed = {"divp": SWISS[0:6], "l1": SWISS[6:13], "l2": SWISS[14:22], "el": SWISS[22:32]}
    l2 = _finished(*SWISS[14:26])
    fmt = FORMATS["tcec-season"]
    keep = _season_plan(placed=placed)
    assert vacancies(fmt.stage("l1"), keep) == 1  # 8 placed by the rules, 7 entered
    got = _derive("tcec-season", "l1", keep, l2=l2)
    assert _ids(got) == [*SWISS[6:13], *SWISS[14:18]]  # 11 engines: the place stays vacant
    assert isinstance(got, Derived)
    assert any("relegates 1 fewer" in n for n in got.notes)
    more = _season_plan(placed=placed, vacancies="promote-more")
    got = _derive("tcec-season", "l1", more, l2=l2)
    assert _ids(got) == [*SWISS[6:13], *SWISS[14:19]]  # the 5th of League 2 comes in
    assert isinstance(got, Derived)
    assert any("promote-more" in n for n in got.notes)


def test_the_superfinal_takes_the_premier_order_and_the_winner_is_seed_1() -> None:
    plan = _season_plan()
    divp = StageOutcome(
        "finished",
        tuple(Standing(i, p, p) for i, p in enumerate(["e03", "e01", "e02", "e04"], 1)),
        decided_top=2,
    )
    got = _derive("tcec-season", "sufi", plan, divp=divp)
    assert _ids(got) == ["e03", "e01"]
    assert isinstance(got, Derived)
    assert got.players[0].seed == 1 and "7.3" in got.players[0].rule


def test_an_engine_coming_twice_is_a_plan_problem() -> None:
    placed = {"divp": SWISS[0:6], "l1": SWISS[6:14], "l2": SWISS[14:22], "el": SWISS[22:32]}
    plan = _season_plan(placed=placed)
    el = _finished("e15", *SWISS[22:32], *SWISS[32:37])  # e15 is placed in League 2 already
    got = _derive("tcec-season", "l2", plan, el=el)
    assert isinstance(got, Blocked) and got.kind == "plan" and "e15" in got.text


# --- FRD -------------------------------------------------------------------------------------

FRD = [f"f{i:02d}" for i in range(1, 17)]


def _frd_lot(outcome: list[str]) -> dict[str, ev.LotDrawn]:
    lot = ev.LotDrawn(
        purpose="pairing_numbers",
        subject="frd:seeding",
        candidates=sorted(outcome),
        outcome=outcome,
    )
    return {"frd:seeding": lot}


def test_frd_leagues_need_the_seeding_lot_for_the_engines_after_the_top_8() -> None:
    plan = _plan("tcec-frd", FRD, field=FRD, holder="f05")
    got = _derive("tcec-frd", "league-a", plan)
    assert isinstance(got, Blocked) and got.kind == "lot"
    assert got.lot is not None and got.lot.subject == "frd:seeding"
    assert list(got.lot.candidates) == FRD[8:]  # f05 moved to seed 1: f09..f16 by lot
    assert got.lot.purpose == "pairing_numbers"


def test_frd_leagues_are_dealt_in_snake_order_of_seeds() -> None:
    plan = _plan("tcec-frd", FRD, field=FRD, holder="f05")
    drawn = ["f12", "f09", "f16", "f10", "f14", "f11", "f15", "f13"]  # seeds 9..16
    seeds = ["f05", "f01", "f02", "f03", "f04", "f06", "f07", "f08", *drawn]
    leagues = {
        key: _ids(_derive("tcec-frd", key, plan, _frd_lot(drawn)))
        for key in ("league-a", "league-b", "league-c", "league-d")
    }
    # A 1 8 9 16, B 2 7 10 15, C 3 6 11 14, D 4 5 12 13 (FRD 2.a, reading frd/leagues-allocation)
    assert leagues == {
        "league-a": [seeds[0], seeds[7], seeds[8], seeds[15]],
        "league-b": [seeds[1], seeds[6], seeds[9], seeds[14]],
        "league-c": [seeds[2], seeds[5], seeds[10], seeds[13]],
        "league-d": [seeds[3], seeds[4], seeds[11], seeds[12]],
    }
    assert [snake_group(i, 4) for i in range(10)] == [0, 1, 2, 3, 3, 2, 1, 0, 0, 1]


def test_a_seeding_lot_that_does_not_fit_waits_for_a_redraw() -> None:
    plan = _plan("tcec-frd", FRD, field=FRD)
    got = _derive("tcec-frd", "league-a", plan, _frd_lot(["f09", "f10"]))
    assert isinstance(got, Blocked) and got.kind == "ruling" and "retract" in got.text


def test_frd_semileagues_cross_the_leagues_top_three() -> None:
    plan = _plan("tcec-frd", FRD, field=FRD)
    outs = {
        "league-a": _finished("a1", "a2", "a3", "a4"),
        "league-b": _finished("b1", "b2", "b3", "b4"),
        "league-c": _finished("c1", "c2", "c3", "c4"),
        "league-d": _finished("d1", "d2", "d3", "d4"),
    }
    inp = Inputs("s1", FORMATS["tcec-frd"], plan, outs)
    fmt = FORMATS["tcec-frd"]
    sl1 = _ids(derive_field(inp, fmt.stage("semi-1")))
    sl2 = _ids(derive_field(inp, fmt.stage("semi-2")))
    assert sl1 == ["a1", "c1", "b2", "d2", "a3", "c3"]
    assert sl2 == ["b1", "d1", "a2", "c2", "b3", "d3"]
    inp = Inputs(
        "s1",
        fmt,
        plan,
        {"semi-1": _finished(*sl1), "semi-2": _finished(*sl2)},
    )
    assert _ids(derive_field(inp, fmt.stage("final-league"))) == [
        "a1",
        "b1",
        "c1",
        "d1",
        "b2",
        "a2",
    ]
    inp = Inputs("s1", fmt, plan, {"final-league": _finished("b1", "a1", "c1")})
    assert _ids(derive_field(inp, fmt.stage("final"))) == ["b1", "a1"]


def test_a_frd_qualification_line_in_an_open_tie_waits_for_the_organisers() -> None:
    plan = _plan("tcec-frd", FRD, field=FRD)
    outs = {
        "league-a": _finished("a1", "a2", "a3", "a4", ties={4: 3}),
        "league-b": _finished("b1", "b2", "b3", "b4"),
        "league-c": _finished("c1", "c2", "c3", "c4"),
        "league-d": _finished("d1", "d2", "d3", "d4"),
    }
    got = _derive("tcec-frd", "semi-1", plan, **outs)
    assert isinstance(got, Blocked) and got.kind == "ruling" and "a3, a4" in got.text


def test_4k_pool_and_minifinal() -> None:
    ids = ["k1", "k2", "k3", "k4", "k5", "k6"]
    plan = _plan("tcec-4k", ids, field=ids)
    assert _ids(_derive("tcec-4k", "pool", plan)) == ids
    got = _derive("tcec-4k", "minifinal", plan, pool=_finished("k3", "k1", "k2"))
    assert _ids(got) == ["k3", "k1"]


# --- rulings and plans -----------------------------------------------------------------------


def _ruling(players: Any) -> ev.RulingIssued:
    return ev.RulingIssued(
        ruling_id="r1", by="td", subject="field:s1-cup", rule="rule 0", text="t",
        decision={"players": players},
    )  # fmt: skip


def test_a_field_ruling_lists_ids_or_entries_seeded_in_order_unless_given() -> None:
    inp = Inputs("s1", FORMATS["tcec-4k"], _plan("tcec-4k", ["k1", "k2"], field=["k1", "k2"]), {})
    got = field_of_ruling(_ruling(["k2", {"player_id": "k1", "name": "Kay"}]), inp)
    assert not isinstance(got, str)
    assert [(e.player_id, e.seed, e.name) for e in got] == [("k2", 1, "K2"), ("k1", 2, "Kay")]
    got = field_of_ruling(
        _ruling([{"player_id": "k1", "seed": 2}, {"player_id": "k2", "seed": 1}]), inp
    )
    assert not isinstance(got, str) and [e.player_id for e in got] == ["k2", "k1"]


@pytest.mark.parametrize(
    ("players", "problem"),
    [
        ([], "non-empty"),
        (["k1", "k1"], "twice"),
        ([{"player_id": "k1", "seed": 1}, {"player_id": "k2", "seed": 1}], "share a seed"),
        ([{"player_id": "k 1"}], "not a player id"),
        ([{"player_id": "k1", "seed": 0}], "seed"),
        ([3], "not an id"),
    ],
)
def test_a_field_ruling_that_cannot_be_read_says_why(players: Any, problem: str) -> None:
    inp = Inputs("s1", FORMATS["tcec-4k"], _plan("tcec-4k", ["k1"], field=["k1"]), {})
    got = field_of_ruling(_ruling(players), inp)
    assert isinstance(got, str) and problem in got


def test_plan_problems_name_what_is_wrong() -> None:
    plan = _plan(
        "tcec-leagues",
        ["a", "b"],
        placed={"l1": ["a", "zz"], "l2": ["a"], "l9": ["b"]},
        field=["a"],
    )
    problems = plan_problems(plan, FORMATS["tcec-leagues"])
    assert (
        "plan.field: not read by the tcec-leagues format (it reads placed, swiss_qualifiers, "
        "vacancies)" in problems
    )
    assert "plan.placed.l1: zz not in plan.engines" in problems
    assert "plan.placed.l2: a is placed in both l1 and l2" in problems
    assert any(p.startswith("plan.placed.l9: not a League") for p in problems)
    assert plan_problems(_plan("tcec-4k", ["a", "b"], field=["a", "b"]), FORMATS["tcec-4k"]) == []
