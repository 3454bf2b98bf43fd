"""Go on the command path (projections/tournament/go_play.py), LGC Tournament Rules: given
events / when a command / then the events, each named for the rule it tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from builders import created, player, recorded
from given_when_then import given

from events_schema import Event
from events_schema import events as ev
from events_schema.go import GoSettings
from projections.rejection import Rejected
from projections.tournament import decide, fold

START = datetime(2026, 11, 24, 10, 0, tzinfo=UTC)


def opening(size: int = 9, handicap: int = 0, **kw) -> list[Event]:
    out: list[Event] = [
        created("go", "mcmahon", board_size=size, **kw),
        player("a"),
        player("b"),
        ev.RoundScheduled(
            round=1,
            pairings=[ev.Pairing(game_id="g1", white="a", black="b")],
            scheduled_at=START,
        ),
    ]
    if handicap:
        out.append(ev.GameStarted(game_id="g1", handicap=handicap))
    return out


def stones(points: list[str], first: str = "black", start: int = 1) -> list[Event]:
    colours = ("black", "white") if first == "black" else ("white", "black")
    return [
        ev.MovePlayed(game_id="g1", ply=i, colour=colours[(i - start) % 2], point=p)
        for i, p in enumerate(points, start=start)
    ]


def go_move(ply: int, point: str, colour: str) -> ev.MovePlayed:
    return ev.MovePlayed(game_id="g1", ply=ply, colour=colour, point=point)  # type: ignore[arg-type]


# A ko on 9x9: Black D5 C4 D3 E4 around D4; White E5 F4 E3, then D4 takes E4.
KO = ["D5", "E5", "C4", "F4", "D3", "E3", "E4", "D4"]
# 5x5: a Black wall on C, a White wall on D; A-B are Black's (10 points), E White's (5).
WALLS = ["C1", "D1", "C2", "D2", "C3", "D3", "C4", "D4", "C5", "D5"]


def test_ko_recapture_is_recorded_not_refused_lgc_irregularities():
    state = given(*opening(), *stones(KO))
    assert state.games["g1"].go.board.prisoners == {"black": 0, "white": 1}
    out = decide(state, go_move(9, "E4", "black"))  # retakes at once: the ko
    assert out == [go_move(9, "E4", "black")]
    after = given(*opening(), *stones(KO), *out)
    assert after.games["g1"].go.illegal[-1] == "ko"


def test_illegal_move_noticed_within_three_moves_unwinds_to_the_position_before_it():
    history = [*opening(), *stones([*KO, "E4", "A1", "D4", "A2"])]  # ko at 9, 3 moves after
    out = decide(given(*history), ev.IllegalMoveNoticed(game_id="g1", ply=9, noticed_by="white"))
    notice = out[0]
    assert isinstance(notice, ev.IllegalMoveNoticed)
    assert notice.unwound is True
    assert notice.rule.startswith('LGC Irregularities "Illegal move": ko noticed 3 move(s)')
    state = given(*history, *out)
    game = state.games["g1"]
    assert game.moves == KO  # the moves from the illegal one on are no longer in force
    assert game.next_colour == "black"
    assert game.go.board.colour_at((3, 4)) is None  # E4 is empty again (captured at ply 8)
    assert game.go.board.prisoners == {"black": 0, "white": 1}


def test_illegal_move_noticed_after_three_moves_stands():
    history = [*opening(), *stones([*KO, "E4", "A1", "A2", "A3", "A4"])]
    out = decide(given(*history), ev.IllegalMoveNoticed(game_id="g1", ply=9, noticed_by="referee"))
    assert out[0].unwound is False
    assert "more than three" in out[0].rule
    state = given(*history, *out)
    assert len(state.games["g1"].moves) == 13
    assert 9 in state.games["g1"].go.stood


def test_a_legal_move_cannot_be_called_illegal():
    history = [*opening(), *stones(KO)]
    with pytest.raises(Rejected) as err:
        decide(given(*history), ev.IllegalMoveNoticed(game_id="g1", ply=8, noticed_by="black"))
    assert (err.value.rule, err.value.field) == ("go.move_was_legal", "payload.ply")


def test_unwound_is_derived_from_the_record():
    history = [*opening(), *stones([*KO, "E4", "A1", "A2", "A3", "A4"])]
    with pytest.raises(Rejected) as err:
        decide(
            given(*history),
            ev.IllegalMoveNoticed(game_id="g1", ply=9, noticed_by="white", unwound=True),
        )
    assert err.value.rule == "go.unwound_is_derived"


def test_a_stone_on_a_stone_is_refused():
    with pytest.raises(Rejected) as err:
        decide(given(*opening(), *stones(["D4"])), go_move(2, "D4", "white"))
    assert (err.value.rule, err.value.field) == ("move.occupied", "payload.point")


def test_play_pauses_after_consecutive_passes_white_last_lgc_ending_the_game_3():
    state = given(*opening(5), *stones([*WALLS, "pass", "pass"]))
    with pytest.raises(Rejected) as err:
        decide(state, go_move(13, "A1", "black"))
    assert err.value.rule == "go.play_paused"


def test_white_then_black_passing_does_not_pause():
    # W passes, B passes: White has not passed last; play goes on.
    state = given(*opening(5), *stones([*WALLS[:9], "pass", "pass"]))
    assert len(decide(state, go_move(12, "A1", "white"))) == 1


def test_agreed_status_is_counted_and_ends_the_game_lgc_scoring():
    history = [*opening(5), *stones([*WALLS, "pass", "pass"])]
    out = decide(given(*history), ev.GoStatusAgreed(game_id="g1"))
    assert [type(e) for e in out] == [ev.GoStatusAgreed, ev.GameEnded]
    end = out[1]
    # Black: 10 points - 1 prisoner (Black's pass stone, White's) = 9.
    # White: 5 points - 1 prisoner (White's pass stone) + 7.5 komi = 11.5: W+2.5.
    assert end.go_score == ev.GoScore(
        black_territory=10,
        white_territory=5,
        black_prisoners=1,
        white_prisoners=1,
        komi=Decimal("7.5"),
        margin=Decimal("-2.5"),
        dead_stones=[],
    )
    assert (end.result, end.termination, end.rule) == ("1-0", "counting", "LGC Scoring")
    assert end.detail.startswith("W+2.5")


def test_dead_stones_are_removed_as_prisoners_before_the_count():
    # White's A1 inside Black's area is agreed dead.
    moves = [*WALLS, "pass", "A1", "pass", "pass"]
    history = [*opening(5), *stones(moves)]
    out = decide(given(*history), ev.GoStatusAgreed(game_id="g1", dead_stones=["a1"]))
    score = out[1].go_score
    # Black: 10 - 2 (two pass stones to White) = 8; prisoners: 1 pass + 1 dead = 2.
    # White: 5 - 2 + 7.5 = 10.5: W+2.5.
    assert (score.black_territory, score.black_prisoners, score.white_prisoners) == (10, 2, 2)
    assert score.margin == Decimal("-2.5")
    assert score.dead_stones == ["A1"]


def test_a_count_with_an_unfilled_dame_is_refused_naming_the_point():
    # Black wall on C, White wall on E: column D is dame.
    walls = ["C1", "E1", "C2", "E2", "C3", "E3", "C4", "E4", "C5", "E5"]
    history = [*opening(5), *stones([*walls, "pass", "pass"])]
    with pytest.raises(Rejected) as err:
        decide(given(*history), ev.GoStatusAgreed(game_id="g1"))
    assert err.value.rule == "go.dame_unfilled"
    assert 'LGC Game protocol "Dame, Teire"' in err.value.message
    assert "D1" in err.value.message


def test_status_is_agreed_only_when_play_is_paused():
    with pytest.raises(Rejected) as err:
        decide(given(*opening(5), *stones(WALLS)), ev.GoStatusAgreed(game_id="g1"))
    assert err.value.rule == "go.not_paused"


def test_a_dispute_resumes_play_black_first_and_two_passes_then_stop_the_game():
    moves = [*WALLS, "pass", "A1", "pass", "pass"]
    history = [*opening(5), *stones(moves), ev.GoStatusDisputed(game_id="g1", points=["A1"])]
    state = given(*history)
    assert state.games["g1"].next_colour == "black"
    # LGC Ending the game 6: both pass at the start of the resumption: the game stops.
    assert len(decide(state, go_move(15, "pass", "black"))) == 1
    state = given(*history, go_move(15, "pass", "black"))
    out = decide(state, go_move(16, "pass", "white"))
    assert [type(e) for e in out] == [ev.MovePlayed, ev.GameEnded]
    end = out[1]
    assert end.rule == 'LGC Timing "Ending the game" 6'
    assert end.go_score.dead_stones == []
    # A1 stays on the board: Black's A-B area touches a White stone and counts for no one.
    assert end.go_score.black_territory == 0
    assert end.go_score.white_territory == 5


def test_resumption_after_a_dispute_can_pause_again():
    moves = [*WALLS, "pass", "A1", "pass", "pass"]
    history = [
        *opening(5),
        *stones(moves),
        ev.GoStatusDisputed(game_id="g1"),
        *stones(["B1", "pass", "pass"], start=15),  # Black takes A1 ... then both pass
    ]
    state = given(*history)
    with pytest.raises(Rejected):  # B1 then W pass, B pass: White has not passed last
        decide(state, ev.GoStatusAgreed(game_id="g1"))
    state = given(*history, go_move(18, "pass", "white"))
    out = decide(state, ev.GoStatusAgreed(game_id="g1", dead_stones=["A1"]))
    assert out[1].termination == "counting"


def test_handicap_stones_are_placed_and_white_moves_first():
    state = given(*opening(9, handicap=2))
    game = state.games["g1"]
    assert game.next_colour == "white"
    assert len(game.go.board.stones()) == 2
    with pytest.raises(Rejected):
        decide(state, go_move(1, "E5", "black"))


def test_handicap_game_komi_is_half_a_point():
    walls = ["A1", "C2", "A2"]  # irrelevant: only the komi is checked
    history = [*opening(9, handicap=2), *stones(walls, first="white")]
    history += stones(["pass", "pass"], first="white", start=4)  # W, B: not paused
    history += stones(["pass", "pass"], first="black", start=6)  # B, W: paused
    with pytest.raises(Rejected) as err:
        decide(given(*history), ev.GoStatusAgreed(game_id="g1"))
    assert err.value.rule == "go.dame_unfilled"  # an open board has dame everywhere
    from projections.tournament.go_play import komi

    assert komi(history[0], 2) == Decimal("0.5")
    assert komi(history[0], 0) == Decimal("7.5")


@pytest.mark.parametrize(
    ("late_from", "arrival", "forfeit"),
    [
        ("clock_start", START + timedelta(minutes=44, seconds=59), False),
        ("clock_start", START + timedelta(minutes=45), True),
        ("round_start", START + timedelta(minutes=29), False),
        ("round_start", START + timedelta(minutes=30), True),
    ],
)
def test_late_by_30_minutes_or_more_forfeits_lgc_timing_start(late_from, arrival, forfeit):
    history = opening(go=GoSettings(late_from=late_from))
    out = decide(given(*history), ev.PlayerArrived(game_id="g1", player_id="b", at=arrival))
    assert len(out) == (2 if forfeit else 1)
    if forfeit:
        end = out[1]
        assert (end.result, end.termination) == ("1-0", "forfeit")  # b had Black
        assert end.rule == 'LGC Timing "Start": late by 30 minutes or more'


def test_lateness_needs_the_rounds_start_time():
    history = opening()
    history[3] = ev.RoundScheduled(
        round=1, pairings=[ev.Pairing(game_id="g1", white="a", black="b")]
    )
    with pytest.raises(Rejected) as err:
        decide(given(*history), ev.PlayerArrived(game_id="g1", player_id="a", at=START))
    assert err.value.rule == "round.no_start_time"


def test_go_events_are_refused_in_a_chess_tournament():
    history = [created(), player("a"), player("b")]
    with pytest.raises(Rejected) as err:
        decide(given(*history), ev.RoundSkipped(player_id="a", round=1))
    assert err.value.rule == "game.wrong_kind"


def test_an_unwind_cannot_be_retracted():
    history = [*opening(), *stones([*KO, "E4"])]
    notice = decide(given(*history), ev.IllegalMoveNoticed(game_id="g1", ply=9, noticed_by="white"))
    recs = recorded("t1", [*history, *notice])
    state = fold(recs)
    with pytest.raises(Rejected) as err:
        decide(state, ev.EventRetracted(retracted_event_id=recs[-1].envelope.event_id, reason="x"))
    assert err.value.rule == "retraction.not_retractable"


# -- colour or handicap error, position disturbance (LGC Irregularities) -------------------


def test_colour_error_noticed_before_the_third_move_restarts_the_game():
    history = [*opening(), *stones(["D4", "E5"])]  # b (Black per the pairing) vs a
    out = decide(given(*history), ev.ColourErrorNoticed(game_id="g1", black="a"))
    assert out[0].restarted is True
    state = given(*history, *out)
    game = state.games["g1"]
    assert (game.moves, game.white, game.black) == ([], "a", "b")
    assert game.go.board.stones() == {}


def test_colour_error_noticed_later_amends_the_pairing_to_the_colours_used():
    history = [*opening(), *stones(["D4", "E5", "C3"])]
    out = decide(given(*history), ev.ColourErrorNoticed(game_id="g1", black="a"))
    assert out[0].restarted is False
    assert out[0].rule.endswith("the pairing is amended")
    game = given(*history, *out).games["g1"]
    assert (game.white, game.black, len(game.moves)) == ("b", "a", 3)


def test_no_colour_error_is_refused():
    with pytest.raises(Rejected) as err:
        decide(given(*opening(), *stones(["D4"])), ev.ColourErrorNoticed(game_id="g1", black="b"))
    assert err.value.rule == "go.no_colour_error"


def test_position_disturbance_unwind_to_an_agreed_position():
    history = [*opening(), *stones(["D4", "E5", "C3", "F6"])]
    out = decide(given(*history), ev.PositionDisturbed(game_id="g1", procedure="unwind", to_ply=2))
    game = given(*history, *out).games["g1"]
    assert game.moves == ["D4", "E5"] and game.next_colour == "black"
    assert len(game.go.board.stones()) == 2


def test_position_disturbance_loss_for_the_disturber():
    out = decide(
        given(*opening(), *stones(["D4"])),
        ev.PositionDisturbed(game_id="g1", procedure="loss", disturbed_by="a"),
    )
    end = out[1]
    assert (end.result, end.termination) == ("0-1", "arbiter_decision")  # a had White
    assert end.rule == 'LGC Irregularities "Position disturbance" 4'


def test_position_disturbance_restart_with_a_reduced_time_limit():
    tcs = [
        ev.TimeControl(name="main", base_seconds=3600),
        ev.TimeControl(name="short", base_seconds=1800),
    ]
    history = [*opening(time_controls=tcs), *stones(["D4", "E5"])]
    with pytest.raises(Rejected):
        decide(
            given(*history),
            ev.PositionDisturbed(game_id="g1", procedure="restart", time_control="x"),
        )
    out = decide(
        given(*history),
        ev.PositionDisturbed(game_id="g1", procedure="restart", time_control="short"),
    )
    game = given(*history, *out).games["g1"]
    assert (game.moves, game.time_control) == ([], "short")


# -- sanctions, protests, the appeals committee (LGC Sanctions, Arbitration) ----------------


def test_both_players_forfeit_the_game_lgc_sanctions():
    history = [*opening(), *stones(["D4"])]
    first = decide(
        given(*history),
        ev.SanctionIssued(player_id="a", game_id="g1", level="game_forfeit", rule="LGC Sanctions"),
    )
    assert first[1].result == "0-1"
    recs = recorded("t1", [*history, *first])
    second = decide(
        fold(recs),
        ev.SanctionIssued(player_id="b", game_id="g1", level="game_forfeit", rule="LGC Sanctions"),
    )
    assert isinstance(second[1], ev.ResultCorrected)
    assert (second[1].result, second[1].corrects_event_id) == ("0-0", recs[-1].envelope.event_id)


def committee() -> ev.AppealsCommitteeFormed:
    return ev.AppealsCommitteeFormed(members=["a", "Referee", "TD"], reserves=["Reserve"])


def test_the_appeals_committee_is_formed_before_the_first_round_starts():
    assert decide(given(*opening()), committee()) == [committee()]
    with pytest.raises(Rejected) as err:
        decide(given(*opening(), *stones(["D4"])), committee())
    assert err.value.rule == "committee.after_start"


def test_an_appeal_after_the_result_needs_a_protest_stated_before_it():
    base = [*opening()[:3], committee(), opening()[3], *stones(["D4"])]
    ended = ev.GameEnded(game_id="g1", result="1-0", termination="resignation")
    appeal = ev.AppealFiled(appeal_id="ap1", filed_by="b", grounds="clock", game_id="g1")
    with pytest.raises(Rejected) as err:
        decide(given(*base, ended), appeal)
    assert err.value.rule == "appeal.no_protest"
    protest = ev.ProtestStated(game_id="g1", player_id="b")
    assert decide(given(*base, protest, ended), appeal) == [appeal]
    with pytest.raises(Rejected) as err:  # too late once the result is recorded
        decide(given(*base, ended), protest)
    assert err.value.rule == "game.already_ended"


def test_a_committee_member_party_to_the_dispute_stands_aside_and_players_are_co_opted():
    base = [*opening()[:3], committee(), opening()[3], *stones(["D4"])]
    appeal = ev.AppealFiled(appeal_id="ap1", filed_by="b", grounds="clock", game_id="g1")
    state = given(*base, appeal)
    with pytest.raises(Rejected) as err:  # a is White in g1 and a member
        decide(
            state,
            ev.AppealDecided(
                appeal_id="ap1", decision="upheld", text="x", committee=["a", "Referee", "TD"]
            ),
        )
    assert (err.value.rule, err.value.field) == ("appeal.member_is_party", "payload.committee[0]")
    with pytest.raises(Rejected) as err:  # two are not three
        decide(
            state,
            ev.AppealDecided(
                appeal_id="ap1", decision="upheld", text="x", committee=["Referee", "TD"]
            ),
        )
    assert err.value.rule == "appeal.committee_short"
    ok = ev.AppealDecided(
        appeal_id="ap1", decision="rejected", text="x", committee=["Referee", "TD", "Reserve"]
    )
    assert decide(state, ok) == [ok]
    decided = given(*base, appeal, ok)
    with pytest.raises(Rejected) as err:  # final
        decide(decided, ok)
    assert err.value.rule == "appeal.already_decided"


def test_an_adjourned_appeal_is_decided_later():
    base = [*opening()[:3], committee(), opening()[3]]
    appeal = ev.AppealFiled(appeal_id="ap1", filed_by="b", grounds="status")
    adjourned = ev.AppealDecided(appeal_id="ap1", decision="adjourned", text="no committee")
    state = given(*base, appeal, adjourned)
    final = ev.AppealDecided(
        appeal_id="ap1", decision="upheld", text="x", committee=["Referee", "TD", "Reserve"]
    )
    assert decide(state, final) == [final]


# -- clocks (LGC Timing rules) -------------------------------------------------------------

BYO = ev.TimeControl(
    name="byo", base_seconds=60, overtime="byo_yomi", overtime_seconds=30, overtime_periods=2
)
CANADIAN = ev.TimeControl(
    name="can", base_seconds=0, overtime="canadian", overtime_seconds=60, overtime_stones=2
)


def timed(ply: int, point: str, colour: str, ms: int) -> ev.MovePlayed:
    return ev.MovePlayed(game_id="g1", ply=ply, colour=colour, point=point, move_time_ms=ms)  # type: ignore[arg-type]


def test_byo_yomi_overrunning_the_last_period_is_a_loss_on_time():
    history = [*opening(time_controls=[BYO]), timed(1, "D4", "black", 60_000)]  # main time gone
    state = given(*history)
    assert len(decide(state, timed(2, "E5", "white", 1_000))) == 1
    history.append(timed(2, "E5", "white", 1_000))
    # 31 s uses one of the two periods; 61 s more would overrun the last one.
    out = decide(given(*history), timed(3, "C3", "black", 61_000))
    assert [type(e) for e in out] == [ev.MovePlayed, ev.GameEnded]
    assert (out[1].result, out[1].termination, out[1].rule) == (
        "1-0",
        "time_forfeit",
        'LGC Timing "Loss on time"',
    )
    assert len(decide(given(*history), timed(3, "C3", "black", 59_000))) == 1


def test_canadian_stones_not_all_played_in_the_period_lose_on_time():
    history = [*opening(time_controls=[CANADIAN]), timed(1, "D4", "black", 40_000)]
    history.append(timed(2, "E5", "white", 1_000))
    out = decide(given(*history), timed(3, "C3", "black", 20_001))  # 2nd stone after 60.001 s
    assert out[1].termination == "time_forfeit"
    assert "overtime period" in out[1].detail
    assert len(decide(given(*history), timed(3, "C3", "black", 20_000))) == 1


def test_paused_clock_refuses_moves_until_resumed():
    history = [*opening(), *stones(["D4"]), ev.ClockPaused(game_id="g1", circumstance=10)]
    with pytest.raises(Rejected) as err:
        decide(given(*history), go_move(2, "E5", "white"))
    assert err.value.rule == "clock.paused"
    history.append(ev.ClockResumed(game_id="g1"))
    assert len(decide(given(*history), go_move(2, "E5", "white"))) == 1


def test_referee_correction_of_the_recorded_time_sets_the_clock():
    history = [*opening(time_controls=[BYO]), timed(1, "D4", "black", 50_000)]
    fix = ev.ClockSet(game_id="g1", reason="referee_correction", white_ms=60_000, black_ms=5_000)
    state = given(*history, fix)
    assert state.games["g1"].go.clock.side("black").main_ms == 5_000
    with pytest.raises(Rejected) as err:  # the players may not reset a running clock
        decide(given(*history), fix.model_copy(update={"reason": "reset_before_start"}))
    assert err.value.rule == "clock.game_started"


def test_a_board_whose_clock_started_late_measures_lateness_from_it():
    history = [*opening(), ev.ClockStarted(game_id="g1", at=START + timedelta(minutes=40))]
    arrival = ev.PlayerArrived(game_id="g1", player_id="b", at=START + timedelta(minutes=60))
    assert len(decide(given(*history), arrival)) == 1  # 20 minutes after its clock started
    assert len(decide(given(*opening()), arrival)) == 2  # 45 minutes after 10:15


def test_position_disturbance_continue_with_the_position_as_is():
    history = [*opening(), *stones(["D4", "E5", "C3"])]
    bad = ev.PositionDisturbed(game_id="g1", procedure="continue", removed=["A1"])
    with pytest.raises(Rejected) as err:
        decide(given(*history), bad)
    assert (err.value.rule, err.value.field) == ("go.bad_disturbance", "payload.removed[0]")
    knocked = ev.PositionDisturbed(
        game_id="g1", procedure="continue", removed=["C3"], added_black=["C2"]
    )
    out = decide(given(*history), knocked)
    state = given(*history, *out, go_move(4, "F6", "white"))
    board = state.games["g1"].go.board
    assert board.colour_at((2, 2)) is None and board.colour_at((1, 2)) == "black"
    # The edit survives a rebuild (a retraction of the last move replays the record).
    recs = recorded("t1", [*history, *out, go_move(4, "F6", "white")])
    state = fold(recs)
    retract = ev.EventRetracted(retracted_event_id=recs[-1].envelope.event_id, reason="slip")
    state = fold(
        [*recs, *recorded("t1", [*history, *out, go_move(4, "F6", "white"), retract])[-1:]]
    )
    board = state.games["g1"].go.board
    assert board.colour_at((1, 2)) == "black" and board.colour_at((5, 5)) is None


# -- the standings fold reads the irregularities as the decider's fold does -----------------


@pytest.mark.parametrize(
    "irregularity",
    [
        ev.IllegalMoveNoticed(game_id="g1", ply=9, noticed_by="white"),
        ev.ColourErrorNoticed(game_id="g1", black="a"),
        ev.PositionDisturbed(game_id="g1", procedure="unwind", to_ply=4),
        ev.PositionDisturbed(game_id="g1", procedure="restart"),
    ],
    ids=["illegal-unwound", "colours-amended", "unwind", "restart"],
)
def test_both_folds_agree_on_go_irregularities(irregularity):
    from test_folds_agree import assert_agree

    history = [*opening(), *stones([*KO, "E4", "A1"])]
    out = decide(given(*history), irregularity)
    assert_agree(recorded("t1", [*history, *out]))


def test_removal_from_a_round_and_from_the_tournament_lgc_sanctions():
    base = opening()[:3]
    removal = ev.SanctionIssued(
        player_id="b", level="removal_from_round", rule="LGC Sanctions", round=2
    )
    out = decide(given(*base), removal)
    assert isinstance(out[1], ev.RoundSkipped)
    assert (out[1].round, out[1].notice) == (2, "exceptional")
    with pytest.raises(Rejected) as err:
        decide(given(*base), removal.model_copy(update={"round": None}))
    assert err.value.rule == "sanction.no_round"
    expelled = ev.SanctionIssued(player_id="a", level="expulsion", rule="LGC Sanctions", round=3)
    out = decide(given(*base), expelled)
    assert isinstance(out[1], ev.PlayerWithdrew) and out[1].from_round == 3
    state = given(*base, *out)
    assert state.players["a"].withdrawn
