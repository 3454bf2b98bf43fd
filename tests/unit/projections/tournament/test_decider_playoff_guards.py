"""Playoff steps refused before they are stored, and the closed set of ruling subjects
(issue 12, item 2): given events / when command / then events or refusal, named after the rule.

The given events are sealed with `recorded(...)` and folded, bypassing the decider (an old
log may hold anything); only the command under test goes through `decide`.
"""

from __future__ import annotations

from typing import Any

from builders import created, player, recorded, result, round_
from given_when_then import given, then_accepted, then_rejected

from events_schema import Event
from events_schema import events as ev
from projections import rulings
from projections.pairing import dutch, monrad
from projections.playoffs import EVENT_MACHINES, gct_event, gct_tour, tcec_conditional
from projections.playoffs.base import PlayoffView, berger_round_robin
from projections.prizes import corrections
from projections.seasons import PLACEMENT_SUBJECT, PLAN_SUBJECT, field_subject
from projections.standings import fold as standings_fold
from projections.tiebreaks import editions
from projections.tournament import decide, playoff_guards
from projections.tournament.evolve import PLAYOFF_PRESETS
from projections.tournament.invalidation import KEY as INVALIDATES


def lot(purpose: str, subject: str, candidates: list[str], outcome: list[str]) -> ev.LotDrawn:
    return ev.LotDrawn(
        purpose=purpose,  # type: ignore[arg-type]
        subject=subject,
        candidates=candidates,
        outcome=outcome,
    )


def scheduled(stage: str, rnd: int, *games: tuple[str, str, str], byes: tuple[str, ...] = ()):
    return ev.RoundScheduled(
        round=rnd,
        stage=stage,
        pairings=[ev.Pairing(game_id=g, white=w, black=b) for g, w, b in games],
        byes=[ev.Bye(player_id=p, kind="advance") for p in byes],
    )


# --- a GCT rapid & blitz event: t1, t2, t3 tie for first, x1 last ---------------------------

TIED = ["t1", "t2", "t3"]


def gct_main(preset: str = "gct-rapid-blitz") -> list[Event]:
    """A complete round robin: the t's draw each other and beat x1 (2 points each)."""
    ids = [*TIED, "x1"]
    rounds = berger_round_robin(ids)
    out: list[Event] = [
        created(rounds=len(rounds), rules_preset=preset),
        *(player(p) for p in ids),
    ]
    for r, pairs in enumerate(rounds, start=1):
        games = [(f"m-r{r}-b{b}", w, bl) for b, (w, bl) in enumerate(pairs, start=1)]
        out.append(round_(r, *games))
        for gid, w, bl in games:
            res = "1/2-1/2" if "x1" not in (w, bl) else ("0-1" if w == "x1" else "1-0")
            out.append(result(gid, res))
    return out


def gct_view(events: list[Event]) -> PlayoffView:
    return gct_event.view(standings_fold(recorded("t1", events)))


RR_LOT = lot("pairing_numbers", gct_event.RR_STAGE, TIED, TIED)


def rr_games() -> list[list[tuple[str, str, str]]]:
    """The round robin the lot prescribes (Berger, pairing numbers t1, t2, t3)."""
    return [
        [(f"gct-rr-r{r}-b{b}", w, bl) for b, (w, bl) in enumerate(pairs, start=1)]
        for r, pairs in enumerate(berger_round_robin(TIED), start=1)
    ]


def gct_after_rr() -> list[Event]:
    """The playoff round robin played, all drawn: t1, t2, t3 still tied (2.4)."""
    out = [*gct_main(), RR_LOT]
    for r, games in enumerate(rr_games(), start=1):
        out.append(scheduled(gct_event.RR_STAGE, r, *games))
        out += [result(g, "1/2-1/2") for g, _w, _b in games]
    return out


BYE_LOT = lot("bye", "gct-armageddon-1", TIED, ["t3"])  # 3 left: 1 bye, 1 game (2.4.1)


def test_rr_lot_with_a_player_outside_the_tie_is_refused_gct_2_3():
    err = then_rejected(
        gct_main(),
        lot("pairing_numbers", gct_event.RR_STAGE, ["t1", "t2", "x1"], ["x1", "t1", "t2"]),
        "playoff.lot_outsider",
        "payload.candidates[2]",
    )
    assert err.message.startswith("GCT 2.3:") and "'x1' is not in the tie" in err.message


def test_a_classical_event_cites_section_3():
    err = then_rejected(
        gct_main("gct-classical"),
        lot("pairing_numbers", gct_event.RR_STAGE, ["t1", "t2", "x1"], ["x1", "t1", "t2"]),
        "playoff.lot_outsider",
        "payload.candidates[2]",
    )
    assert err.message.startswith("GCT 3.3:")


def test_rr_lot_with_an_unregistered_name_is_refused():
    err = then_rejected(
        gct_main(),
        lot("pairing_numbers", gct_event.RR_STAGE, [*TIED, "zed"], ["zed", *TIED]),
        "playoff.lot_outsider",
        "payload.candidates[3]",
    )
    assert "'zed' is not registered" in err.message


def test_rr_lot_leaving_out_a_tied_player_is_refused():
    then_rejected(
        gct_main(),
        lot("pairing_numbers", gct_event.RR_STAGE, ["t1", "t2"], ["t1", "t2"]),
        "playoff.lot_candidates",
        "payload.candidates",
    )


def test_rr_lot_of_another_purpose_is_refused():
    then_rejected(
        gct_main(),
        lot("colours", gct_event.RR_STAGE, TIED, TIED),
        "playoff.lot_purpose",
        "payload.purpose",
    )


def test_rr_lot_numbering_only_some_players_is_refused():
    err = then_rejected(
        gct_main(),
        lot("pairing_numbers", gct_event.RR_STAGE, TIED, ["t2"]),
        "playoff.lot_pick",
        "payload.outcome",
    )
    assert "picks 1, the playoff needs 3" in err.message


def test_rr_lot_before_the_main_stage_is_complete_is_not_required_gct_2_2():
    err = then_rejected(gct_main()[:-1], RR_LOT, "playoff.lot_not_required", "payload.subject")
    assert "not complete" in err.message


def test_rr_lot_for_the_tied_players_is_accepted():
    then_accepted(gct_main(), RR_LOT)


def test_a_second_lot_while_one_is_in_force_is_refused_lots():
    then_rejected(
        [*gct_main(), RR_LOT],
        lot("pairing_numbers", gct_event.RR_STAGE, TIED, ["t3", "t2", "t1"]),
        "playoff.lot_already_drawn",
        "payload.subject",
    )


def test_a_lot_drawn_again_after_its_retraction_is_accepted():
    events = [*gct_main(), RR_LOT]
    lot_id = recorded("t1", events)[-1].envelope.event_id
    retract = ev.EventRetracted(retracted_event_id=lot_id, reason="drawn in error")
    then_accepted(events, retract)
    then_accepted([*events, retract], lot("pairing_numbers", gct_event.RR_STAGE, TIED, TIED))


def test_rr_round_seating_a_player_outside_the_playoff_is_refused_gct_2_3():
    (g, w, _b), *_ = rr_games()[0]
    err = then_rejected(
        [*gct_main(), RR_LOT],
        scheduled(gct_event.RR_STAGE, 1, (g, w, "x1")),
        "playoff.not_in_stage",
        "payload.pairings[0].black",
    )
    assert err.message.startswith("GCT 2.3:") and "'x1'" in err.message


def test_rr_round_before_its_lot_is_refused():
    then_rejected(
        gct_main(),
        scheduled(gct_event.RR_STAGE, 1, *rr_games()[0]),
        "playoff.lot_first",
        "payload.stage",
    )


def test_rr_round_with_a_game_the_lot_did_not_pair_is_refused():
    (g, w, b), *_ = rr_games()[0]
    third = next(p for p in TIED if p not in (w, b))
    then_rejected(
        [*gct_main(), RR_LOT],
        scheduled(gct_event.RR_STAGE, 1, (g, w, third)),
        "playoff.pairing_not_prescribed",
        "payload.pairings[0]",
    )
    then_rejected(
        [*gct_main(), RR_LOT],
        scheduled(gct_event.RR_STAGE, 1, ("my-own-id", w, b)),
        "playoff.game_not_prescribed",
        "payload.pairings[0].game_id",
    )


def test_rr_round_as_prescribed_is_accepted_with_either_colours():
    """Colours other than prescribed stay an after-the-fact note (the scheduled game is used)."""
    games = rr_games()[0]
    then_accepted([*gct_main(), RR_LOT], scheduled(gct_event.RR_STAGE, 1, *games))
    (g, w, b), *_ = games
    then_accepted([*gct_main(), RR_LOT], scheduled(gct_event.RR_STAGE, 1, (g, b, w)))


def test_armageddon_lot_before_the_round_robin_is_complete_is_not_required():
    then_rejected([*gct_main(), RR_LOT], BYE_LOT, "playoff.lot_not_required", "payload.subject")


def test_bye_lot_giving_the_bye_to_an_outsider_is_refused_gct_2_4_1():
    err = then_rejected(
        gct_after_rr(),
        lot("bye", "gct-armageddon-1", [*TIED, "x1"], ["x1"]),
        "playoff.bye_outsider",
        "payload.outcome[0]",
    )
    assert err.message.startswith("GCT 2.4.1:")
    then_rejected(
        gct_after_rr(),
        lot("bye", "gct-armageddon-1", [*TIED, "x1"], ["t1"]),
        "playoff.lot_outsider",
        "payload.candidates[3]",
    )


def test_bye_lot_with_too_many_byes_is_refused_gct_2_4_1():
    err = then_rejected(
        gct_after_rr(),
        lot("bye", "gct-armageddon-1", TIED, ["t1", "t3"]),
        "playoff.lot_pick",
        "payload.outcome",
    )
    assert err.message.startswith("GCT 2.4.1:")


def test_bye_lot_among_the_remaining_tie_is_accepted():
    then_accepted(gct_after_rr(), BYE_LOT)


def test_armageddon_game_seating_the_bye_holder_is_refused_gct_2_4_1():
    err = then_rejected(
        [*gct_after_rr(), BYE_LOT],
        scheduled("gct-armageddon-1", 1, ("gct-armageddon-1-b1", "t1", "t3")),
        "playoff.bye_seated",
        "payload.pairings[0].black",
    )
    assert err.message.startswith("GCT 2.4.1:") and "'t3' has a bye" in err.message


def test_armageddon_game_before_its_coin_toss_is_refused_gct_2_5_3():
    err = then_rejected(
        [*gct_after_rr(), BYE_LOT],
        scheduled("gct-armageddon-1", 1, ("gct-armageddon-1-b1", "t1", "t2")),
        "playoff.lot_first",
        "payload.pairings[0].game_id",
    )
    assert err.message.startswith("GCT 2.5.3:")


TOSS = lot("coin_toss", "gct-armageddon-1-b1", ["t1", "t2"], ["t2"])


def test_coin_toss_between_other_players_is_refused_gct_2_5_3():
    err = then_rejected(
        [*gct_after_rr(), BYE_LOT],
        lot("coin_toss", "gct-armageddon-1-b1", ["t1", "t3"], ["t1"]),
        "playoff.lot_outsider",
        "payload.candidates[1]",
    )
    assert err.message.startswith("GCT 2.5.3:")


def test_armageddon_bye_to_a_player_the_lot_did_not_draw_is_refused_gct_2_4_1():
    err = then_rejected(
        [*gct_after_rr(), BYE_LOT, TOSS],
        scheduled("gct-armageddon-1", 1, byes=("t2",)),
        "playoff.bye_not_drawn",
        "payload.byes[0].player_id",
    )
    assert err.message.startswith("GCT 2.4.1:")


def test_armageddon_round_as_the_machine_prescribes_is_accepted():
    events = [*gct_after_rr(), BYE_LOT]
    then_accepted(events, TOSS)
    [req] = [r for r in gct_view([*events, TOSS]).required_next if r.kind == "schedule"]
    [game] = req.games
    rnd = scheduled(req.stage, game.round, (game.game_id, game.white, game.black), byes=("t3",))
    then_accepted([*events, TOSS], rnd)
    # The toss winner chose Black: the colours are theirs (2.5.3).
    swapped = scheduled(req.stage, game.round, (game.game_id, game.black, game.white))
    then_accepted([*events, TOSS], swapped)


def test_a_stage_the_playoff_has_not_reached_is_refused():
    then_rejected(
        [*gct_main(), RR_LOT],
        scheduled("gct-armageddon-1", 1, ("gct-armageddon-1-b1", "t1", "t2")),
        "playoff.round_not_required",
        "payload.stage",
    )


def test_a_wrong_step_in_an_old_log_is_still_flagged_and_can_be_retracted():
    """The after-the-fact flags stay: a log holding a lot the decider now refuses still folds,
    the machine reports it, and its retraction is accepted."""
    bad = lot("pairing_numbers", gct_event.RR_STAGE, ["t1", "t2", "x1"], ["x1", "t1", "t2"])
    events = [*gct_main(), bad]
    view = gct_view(events)
    assert view.status == "awaiting_ruling"
    assert any("retract it" in n for n in view.notes)
    bad_id = recorded("t1", events)[-1].envelope.event_id
    retract = ev.EventRetracted(retracted_event_id=bad_id, reason="an outsider")
    then_accepted(events, retract)
    then_accepted([*events, retract], RR_LOT)


# --- the bridge: the standings fold kept beside the decider's state -------------------------


def test_the_presets_keeping_the_standings_fold_are_those_with_a_playoff_machine():
    assert {*EVENT_MACHINES, gct_tour.PRESET} == PLAYOFF_PRESETS
    for preset in EVENT_MACHINES:  # every machine is guarded (a match: two engines)
        state = given(
            created(rules_preset=preset), player("e1", kind="engine"), player("e2", kind="engine")
        )
        assert state.standings is not None
        assert playoff_guards.playoff_kind(state.standings) is not None, preset


def test_a_playoff_tournament_keeps_the_standings_fold_of_the_same_events():
    events = [*gct_after_rr(), BYE_LOT]
    state = given(*events)
    assert state.standings == standings_fold(recorded("t1", events))
    assert given(created(), player("a")).standings is None  # no playoff: nothing kept


def test_the_machine_runs_only_for_a_lot_or_a_round_of_a_playoff(monkeypatch):
    calls: list[str] = []

    def spy(name: str, real: Any) -> Any:
        def wrapped(*args: Any) -> None:
            calls.append(name)
            real(*args)

        return wrapped

    monkeypatch.setattr(
        playoff_guards, "check_machine_round", spy("round", playoff_guards.check_machine_round)
    )
    monkeypatch.setattr(
        playoff_guards, "check_machine_lot", spy("lot", playoff_guards.check_machine_lot)
    )
    main = gct_main()
    decide(given(*main[:-1]), result(main[-1].game_id, "1-0"))  # type: ignore[attr-defined]
    decide(given(*main[:8]), round_(4, ("m-r4-b1", "t1", "x1")))  # a main-stage round
    decide(given(*main), lot("pairing_numbers", "main/pairing-numbers", TIED, TIED))
    assert calls == []
    decide(given(*main), RR_LOT)
    decide(given(*main, RR_LOT), scheduled(gct_event.RR_STAGE, 1, *rr_games()[0]))
    assert calls == ["lot", "round"]


# --- TCEC Premier Division Conditional Tiebreak (Leagues 6) --------------------------------

ENGINES = ["e1", "e2", "e3"]


def premier() -> list[Event]:
    """e1, e2, e3 draw each other and beat e4: three tied for first (Leagues 6.1.2)."""
    ids = [*ENGINES, "e4"]
    rounds = berger_round_robin(ids)
    out: list[Event] = [
        created(rounds=len(rounds), rules_preset=tcec_conditional.CT_PRESET),
        *(player(p, kind="engine") for p in ids),
    ]
    for r, pairs in enumerate(rounds, start=1):
        games = [(f"p-r{r}-b{b}", w, bl) for b, (w, bl) in enumerate(pairs, start=1)]
        out.append(round_(r, *games))
        for gid, w, bl in games:
            res = "1/2-1/2" if "e4" not in (w, bl) else ("0-1" if w == "e4" else "1-0")
            out.append(result(gid, res))
    return out


CT_LOT = lot("engine_order", "tcec-ct-1", ENGINES, ENGINES)


def test_ct_lot_with_an_engine_outside_the_tie_is_refused_leagues_6_2():
    err = then_rejected(
        premier(),
        lot("engine_order", "tcec-ct-1", ["e1", "e2", "e4"], ["e4", "e1", "e2"]),
        "playoff.lot_outsider",
        "payload.candidates[2]",
    )
    assert err.message.startswith("TCEC Leagues 6.2:")
    then_accepted(premier(), CT_LOT)


def test_ct_round_is_matched_by_round_and_pair_with_free_game_ids():
    (white, black), *_ = berger_round_robin(ENGINES, double=True)[0]
    then_accepted([*premier(), CT_LOT], scheduled("tcec-ct-1", 1, ("ct-game-1", white, black)))
    other = next(e for e in ENGINES if e not in (white, black))
    then_rejected(
        [*premier(), CT_LOT],
        scheduled("tcec-ct-1", 1, ("ct-game-1", white, other)),
        "playoff.game_not_prescribed",
        "payload.pairings[0].game_id",
    )
    then_rejected(
        [*premier(), CT_LOT],
        scheduled("tcec-ct-1", 1, ("ct-game-1", white, "e4")),
        "playoff.not_in_stage",
        "payload.pairings[0].black",
    )


# --- TCEC Superfinal (Leagues 7) and a Cup that is not a match ------------------------------


def superfinal() -> list[Event]:
    return [
        created(rules_preset="tcec-superfinal"),
        player("e1", kind="engine"),
        player("e2", kind="engine"),
        player("h1"),  # a registered human: not an engine of the match
    ]


def test_superfinal_round_is_one_game_between_the_two_engines():
    then_accepted(superfinal(), scheduled("main", 1, ("sf-001", "e2", "e1")))
    then_rejected(
        superfinal(),
        scheduled("main", 1, ("sf-001", "e2", "h1")),
        "playoff.not_in_stage",
        "payload.pairings[0].black",
    )
    err = then_rejected(
        superfinal(),
        scheduled("main", 101, ("sf-101", "e2", "e1")),
        "playoff.game_not_prescribed",
        "payload.pairings[0].game_id",
    )
    assert err.message.startswith("TCEC Leagues 7.1/7.2:")


def test_superfinal_tiebreak_openings_before_the_match_is_level_are_not_required():
    then_rejected(
        superfinal(),
        lot("other", "tiebreak-match opening", ["book-1", "book-2"], ["book-1"]),
        "playoff.lot_not_required",
        "payload.subject",
    )


def test_a_cup_with_a_bracket_is_not_a_match_and_is_not_guarded():
    events = [
        created(fmt="cup", rules_preset="tcec-cup"),
        *(player(f"e{i}", kind="engine") for i in range(1, 5)),
    ]
    then_accepted(events, scheduled("main", 1, ("c1", "e1", "e4"), ("c2", "e2", "e3")))


# --- GCT overall tour playoff (4.x), from the playoff stream alone --------------------------


def tour(players: str = "abcd") -> list[Event]:
    return [
        created(fmt="playoff", rules_preset=gct_tour.PRESET, series_id="gct-2022"),
        *(player(p) for p in players),
    ]


def tour_lot(stage: str, order: str) -> ev.LotDrawn:
    return lot("pairing_numbers", stage, sorted(order), list(order))


def tour_rr(stage: str, order: str, outcome: dict[str, str]) -> list[Event]:
    """The stage's lot, its Berger games (a double round robin for two) and their results:
    `outcome` by pair, "=" a draw, else the winner, one letter per game."""
    out: list[Event] = [tour_lot(stage, order)]
    left = {pair: list(w) for pair, w in outcome.items()}
    for r, pairs in enumerate(berger_round_robin(list(order), double=len(order) == 2), 1):
        games = [(f"{stage}-r{r}-b{b}", w, bl) for b, (w, bl) in enumerate(pairs, start=1)]
        out.append(scheduled(stage, r, *games))
        for gid, w, bl in games:
            won = left["".join(sorted(w + bl))].pop(0)
            out.append(result(gid, "1/2-1/2" if won == "=" else ("1-0" if won == w else "0-1")))
    return out


def test_tour_lot_with_an_unregistered_name_is_refused_gct_4_7():
    err = then_rejected(
        tour(),
        lot("pairing_numbers", "tour-1st-rr1", ["a", "zed"], ["zed", "a"]),
        "playoff.lot_outsider",
        "payload.candidates[1]",
    )
    assert err.message.startswith("GCT 4.7:") and "not registered" in err.message


def test_tour_ties_for_first_and_third_are_separate_gct_4_5():
    then_rejected(
        [*tour(), tour_lot("tour-1st-rr1", "ab")],
        tour_lot("tour-3rd-rr1", "bc"),
        "playoff.lot_outsider",
        "payload.candidates[0]",
    )


def test_tour_fifth_round_robin_is_a_ruling_gct_4_12():
    err = then_rejected(
        tour(), tour_lot("tour-1st-rr5", "ab"), "playoff.lot_not_required", "payload.subject"
    )
    assert err.message.startswith("GCT 4.12:")


def test_tour_second_round_robin_of_the_same_players_reverses_colours_without_a_lot_gct_4_9():
    events = [*tour(), *tour_rr("tour-1st-rr1", "ab", {"ab": "=="})]
    err = then_rejected(
        events, tour_lot("tour-1st-rr2", "ba"), "playoff.lot_not_required", "payload.subject"
    )
    assert err.message.startswith("GCT 4.9:")
    # RR1 round 1 was a–b: RR2 round 1 is b–a (colours reversed), not a–b.
    then_accepted(events, scheduled("tour-1st-rr2", 1, ("tour-1st-rr2-r1-b1", "b", "a")))
    then_rejected(
        events,
        scheduled("tour-1st-rr2", 1, ("tour-1st-rr2-r1-b1", "a", "b")),
        "playoff.pairing_not_prescribed",
        "payload.pairings[0]",
    )


def test_tour_tie_for_second_inside_the_top_three_is_not_played_off_gct_4_2():
    """A three-way tie for 1st ends 2, ½, ½: b and c share places 2–3 (4.2)."""
    events = [*tour("abc"), *tour_rr("tour-1st-rr1", "abc", {"ab": "a", "ac": "a", "bc": "="})]
    err = then_rejected(
        events, tour_lot("tour-3rd-rr2", "bc"), "playoff.lot_not_required", "payload.subject"
    )
    assert err.message.startswith("GCT 4.2:")


def test_tour_later_round_robin_draws_from_one_score_group():
    """A four-way tie for 1st (places 1–4) ends 2 + 2: a tie for 1st and a tie for 3rd."""
    outcome = {"ab": "=", "ac": "a", "ad": "a", "bc": "b", "bd": "b", "cd": "="}
    events = [*tour(), *tour_rr("tour-1st-rr1", "abcd", outcome)]
    then_accepted(events, tour_lot("tour-1st-rr2", "ba"))
    then_accepted(events, tour_lot("tour-3rd-rr2", "dc"))
    then_rejected(
        events,
        tour_lot("tour-1st-rr2", "cd"),
        "playoff.lot_not_required",
        "payload.subject",
    )
    then_rejected(
        events, tour_lot("tour-3rd-rr2", "cb"), "playoff.lot_outsider", "payload.candidates[1]"
    )


def test_tour_round_seating_a_player_outside_the_tie_or_before_the_lot_is_refused():
    then_rejected(
        tour(),
        scheduled("tour-1st-rr1", 1, ("tour-1st-rr1-r1-b1", "a", "b")),
        "playoff.lot_first",
        "payload.stage",
    )
    then_rejected(
        [*tour(), tour_lot("tour-1st-rr1", "ab")],
        scheduled("tour-1st-rr1", 1, ("tour-1st-rr1-r1-b1", "a", "c")),
        "playoff.not_in_stage",
        "payload.pairings[0].black",
    )
    then_accepted(
        [*tour(), tour_lot("tour-1st-rr1", "ab")],
        scheduled("tour-1st-rr1", 1, ("tour-1st-rr1-r1-b1", "a", "b")),
    )


# --- ruling subjects: a closed, documented set ----------------------------------------------


def ruling(subject: str, decision: dict[str, Any], rid: str = "r1") -> ev.RulingIssued:
    return ev.RulingIssued(
        ruling_id=rid, by="chief arbiter", subject=subject, text="as decided", decision=decision
    )


NEGATIVE_TABLE = {"prize_table": {"currency": "USD", "prizes": [{"place": 1, "amount": "-5"}]}}


def test_unknown_subject_with_a_decision_is_refused():
    err = then_rejected(
        gct_main(), ruling("prizes", NEGATIVE_TABLE), "ruling.unknown_subject", "payload.subject"
    )
    assert "prize_table" in err.message and "points_table" in err.message


def test_negative_prize_table_under_its_own_subject_is_refused():
    then_rejected(
        gct_main(),
        ruling("prize_table", NEGATIVE_TABLE),
        "ruling.invalid_table",
        "payload.decision.prize_table.prizes.0.amount",
    )


def test_a_ruling_without_a_decision_keeps_a_free_subject():
    then_accepted(gct_main(), ruling("tie for first", {}))


def test_a_subject_free_decision_key_is_read_whatever_the_subject():
    then_accepted(gct_main(), ruling("places 2-3", {"tiebreak_order": ["t2", "t1"]}))


def test_a_known_subject_with_a_key_its_reader_does_not_read_is_refused():
    then_rejected(
        [created()],
        ruling("tiebreak_edition", {"edition": "fide-2026", "from_round": 3}),
        "ruling.unknown_key",
        "payload.decision.from_round",
    )


def test_a_subject_read_on_the_other_kind_of_stream_is_refused():
    then_rejected(
        [created()],
        ruling(PLAN_SUBJECT, {"format": "tcec-season"}),
        "ruling.wrong_stream",
        "payload.subject",
    )
    then_rejected(
        [ev.SeriesCreated(name="Tour", kind="gct-tour")],
        ruling("prize_table", NEGATIVE_TABLE),
        "ruling.wrong_stream",
        "payload.subject",
    )


def test_malformed_pairing_rulings_are_refused():
    then_rejected(
        [created()],
        ruling(monrad.GROUPS_SUBJECT, {"groups": ["e1", "e2"]}),
        "ruling.invalid_decision",
        "payload.decision.groups",
    )


def test_every_subject_the_projections_read_is_listed():
    read = [
        editions.RULING_SUBJECT,
        corrections.PRIZE_TABLE_SUBJECT,
        corrections.POINTS_TABLE_SUBJECT,
        "restart",
        monrad.GROUPS_SUBJECT,
        dutch.byes_subject("main", 3),
        gct_tour.RULING_SUBJECT,
        PLAN_SUBJECT,
        field_subject("s1-cup"),
        PLACEMENT_SUBJECT,
    ]
    assert [rulings.subject_of(s) is not None for s in read] == [True] * len(read)
    assert {"tiebreak_order", INVALIDATES} <= set(rulings.FREE_KEYS)
    assert rulings.subject_of("prizes") is None
