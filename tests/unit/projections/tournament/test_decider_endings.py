"""Endings by rule on the command path (projections/tournament/endings.py): given events /
when a move / then the move and the GameEnded naming its rule, in one batch."""

from __future__ import annotations

import chess
import pytest
from builders import created, move, player, recorded, result, round_
from given_when_then import given

from events_schema import Event
from events_schema import events as ev
from projections.rejection import Rejected
from projections.tournament import decide

SCHOLARS_MATE = ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"]
ROOKS = "8/8/4k3/8/8/3RK3/8/7r w - - 0 60"  # K+R v K+R, White to move


def opening(**kw) -> list[Event]:
    return [
        created(**kw),
        player("a"),
        player("b"),
        round_(1, ("g1", "a", "b")),
    ]


def moves(ucis: list[str], **kw) -> list[Event]:
    return [move("g1", i, u, **kw) for i, u in enumerate(ucis, start=1)]


def test_mate_appends_the_move_and_its_ending_naming_the_rule():
    history = opening() + moves(SCHOLARS_MATE[:-1])
    out = decide(given(*history), move("g1", 7, "h5f7"))
    assert [type(e) for e in out] == [ev.MovePlayed, ev.GameEnded]
    end = out[1]
    assert isinstance(end, ev.GameEnded)
    assert (end.result, end.termination, end.rule) == ("1-0", "checkmate", "FIDE Laws 5.1.1")
    assert end.detail.startswith("ply 7:")


def test_manual_tournaments_and_v1_logs_end_nothing_by_themselves():
    history = opening(adjudication="manual") + moves(SCHOLARS_MATE[:-1])
    assert len(decide(given(*history), move("g1", 7, "h5f7"))) == 1


def test_one_move_short_of_mate_ends_nothing():
    history = opening() + moves(SCHOLARS_MATE[:-2])
    assert len(decide(given(*history), move("g1", 6, "g8f6"))) == 1


def _rook_moves(n: int) -> list[str]:
    board, out = chess.Board(ROOKS), []
    for _ in range(n):
        m = next(iter(board.legal_moves))
        out.append(m.uci())
        board.push(m)
    return out


def _rooks(preset: str = "tcec-league") -> list[Event]:
    return [*opening(rules_preset=preset), ev.GameStarted(game_id="g1", fen=ROOKS)]


@pytest.mark.parametrize(("evals", "ends"), [([0] * 8, True), ([0] * 7 + [26], False)])
def test_tcec_draw_rule_on_the_eighth_ply_within_the_window(evals, ends):
    """tcec-rules Leagues 10.2: ≤ 6 pieces, |eval| ≤ 0.25 on 8 consecutive plies; 0.26 on
    the eighth resets the count."""
    ucis = _rook_moves(8)
    colours = ["white", "black"] * 4
    history = _rooks() + [
        move("g1", i, u, colours[i - 1], eval_cp=e)
        for i, (u, e) in enumerate(zip(ucis[:7], evals[:7], strict=True), start=1)
    ]
    out = decide(given(*history), move("g1", 8, ucis[7], "black", eval_cp=evals[7]))
    if ends:
        assert out[1].termination == "tcec_draw_rule"  # type: ignore[union-attr]
        assert out[1].rule == "tcec-rules Leagues 10.2"  # type: ignore[union-attr]
    else:
        assert len(out) == 1


def test_a_tcec_engines_illegal_move_loses_instead_of_being_refused():
    """tcec-rules Leagues 10.4: an illegal move loses; under the FIDE Laws it is refused."""
    out = decide(given(*opening(rules_preset="tcec-league")), move("g1", 1, "e2e5"))
    assert len(out) == 1 and isinstance(out[0], ev.GameEnded)
    assert (out[0].result, out[0].termination) == ("0-1", "illegal_move")
    with pytest.raises(Rejected) as info:
        decide(given(*opening()), move("g1", 1, "e2e5"))
    assert info.value.rule == "move.illegal"


def test_a_flag_fall_ends_the_game_on_time():
    tc = [{"name": "blitz", "base_seconds": 60}]
    history = opening(rules_preset="tcec-league", time_controls=tc)
    ok = decide(given(*history), move("g1", 1, "e2e4", move_time_ms=60_000))
    assert len(ok) == 1  # using all of the time is not a fall
    out = decide(given(*history), move("g1", 1, "e2e4", move_time_ms=60_001))
    assert out[-1].termination == "time_forfeit" and out[-1].result == "0-1"  # type: ignore[union-attr]


def test_a_result_after_the_rules_ended_the_game_is_refused_naming_the_rule():
    history = opening() + moves(SCHOLARS_MATE[:-1])
    state = given(*history)
    out = decide(state, move("g1", 7, "h5f7"))
    state = given(*history, *out)
    with pytest.raises(Rejected) as info:
        decide(state, result("g1", "1-0", "checkmate"))
    assert info.value.rule == "game.already_ended"
    assert "by rule (FIDE Laws 5.1.1)" in info.value.message


def test_an_overruled_ending_reopens_the_game_for_hand_entered_endings():
    history = opening(rules_preset="tcec-league") + moves(SCHOLARS_MATE[:-1])
    out = decide(given(*history), move("g1", 7, "h5f7"))
    recs = recorded("t1", [*history, *out])
    ended_id = recs[-1].envelope.event_id
    retract = ev.EventRetracted(retracted_event_id=ended_id, reason="arbiter overrules")
    state = given(*history, *out, retract)
    assert state.games["g1"].status == "started"
    assert state.games["g1"].adjudicator is None  # endings of this game are now by hand


def _interrupted(w: int | None, b: int | None, moves: int, pieces: int) -> ev.ServerInterrupted:
    return ev.ServerInterrupted(
        game_id="g1",
        ply=2 * moves,
        moves_completed=moves,
        white_eval_cp=w,
        black_eval_cp=b,
        pieces_on_board=pieces,
    )


def test_a_server_interruption_brings_its_adjudication_in_the_same_batch():
    """tcec-rules Leagues 14 (ii: both evals more than +10 → a win; v: otherwise restart)."""
    history = [*opening(rules_preset="tcec-league"), *moves(["e2e4", "e7e5"])]
    out = decide(given(*history), _interrupted(1100, 1050, 40, 20))
    assert [type(e) for e in out] == [ev.ServerInterrupted, ev.AdjudicationIssued, ev.GameEnded]
    adj, end = out[1], out[2]
    assert adj.outcome == "1-0" and end.result == "1-0"  # type: ignore[union-attr]
    assert end.rule == adj.rule and "14" in end.rule  # type: ignore[union-attr]
    # exactly +10 is not "more than +10" under the Leagues wording: a restart (v)
    out = decide(given(*history), _interrupted(1000, 1000, 40, 20))
    assert [type(e) for e in out] == [ev.ServerInterrupted, ev.AdjudicationIssued]
    assert out[1].outcome == "restart"  # type: ignore[union-attr]
    manual = [*opening(rules_preset="tcec-league", adjudication="manual"), *moves(["e2e4"])]
    assert len(decide(given(*manual), _interrupted(1100, 1050, 40, 20))) == 1


def test_a_web_server_crash_leaves_the_game_unaffected_tcec_swiss_7b_i():
    history = [*opening(rules_preset="tcec-swiss"), *moves(["e2e4", "e7e5"])]
    web = _interrupted(1100, 1050, 40, 20).model_copy(update={"web_server_only": True})
    assert decide(given(*history), web) == [web]  # scenario ii would have scored a win
    assert len(decide(given(*history), _interrupted(1100, 1050, 40, 20))) == 3


def test_engine_crash_is_a_loss_appended_with_the_crash_tcec_swiss_7a():
    history = opening(rules_preset="tcec-swiss") + moves(["e2e4"])
    crash = ev.EngineCrashed(game_id="g1", player_id="b", ply=1, detail="stalled connection")
    out = decide(given(*history), crash)
    assert [type(e) for e in out] == [ev.EngineCrashed, ev.GameEnded]
    end = out[1]
    assert (end.result, end.termination, end.rule) == (
        "1-0",
        "engine_crash",
        "tcec-rules Swiss 7.a",
    )
    assert "Black's engine crashed: stalled connection" in end.detail


def test_engine_crash_ends_nothing_when_endings_are_entered_by_hand_or_the_preset_has_no_rule():
    crash = ev.EngineCrashed(game_id="g1", player_id="a")
    assert decide(given(*opening(rules_preset="tcec-swiss", adjudication="manual")), crash) == [
        crash
    ]
    assert decide(given(*opening()), crash) == [crash]  # FIDE Laws: no crash rule


def test_the_staff_decide_when_a_restart_is_played_tcec_swiss_7c():
    history = [*opening(rules_preset="tcec-swiss"), *moves(["e2e4", "e7e5"])]
    out = decide(given(*history), _interrupted(300, 250, 40, 20))  # v: restart
    assert out[1].outcome == "restart"  # type: ignore[union-attr]

    def ruling(when: str, gid: str = "g1") -> ev.RulingIssued:
        return ev.RulingIssued(
            ruling_id=f"r-{when}",
            by="TCEC staff",
            subject="restart",
            rule="tcec-rules Swiss 7.c",
            text="restart",
            decision={"game_id": gid, "restart_at": when},
        )

    with pytest.raises(Rejected) as err:  # no restart waiting before the interruption
        decide(given(*history), ruling("now"))
    assert err.value.rule == "ruling.no_restart"
    state = given(*history, *out)
    with pytest.raises(Rejected) as err:
        decide(state, ruling("tomorrow"))
    assert err.value.rule == "ruling.restart_when"
    assert decide(state, ruling("end_of_round")) == [ruling("end_of_round")]
    state = given(*history, *out, ruling("end_of_round"))
    assert state.games["g1"].restart_at == "end_of_round"
