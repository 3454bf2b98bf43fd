"""Given events / when command / then events (Commanded style) for the tournament decider."""

from __future__ import annotations

from typing import ClassVar

import chess
from builders import created, move, player, recorded, result, round_, small_tournament
from given_when_then import given, then_events, then_rejected

from events_schema import Event
from events_schema import events as ev
from events_schema.events import EVENT_CLASSES
from events_schema.registry import Unreadable
from projections.tournament import decide, fold
from projections.tournament.rules.registry import RULES, rule_for


def test_first_event_must_create_the_tournament():
    then_rejected([], player("alice"), "stream.not_created", "type")


def test_tournament_cannot_be_created_twice():
    then_rejected([created()], created(), "stream.already_created", "type")


def test_result_for_missing_game_is_refused():
    then_rejected(small_tournament(), result("nope", "1-0"), "game.unknown", "payload.game_id")


def test_second_result_must_be_a_correction():
    err = then_rejected(
        [*small_tournament(), result("r1g1", "1-0")],
        result("r1g1", "0-1"),
        "game.already_ended",
        "payload.game_id",
    )
    assert "ResultCorrected" in err.message


def test_result_for_scheduled_game_is_accepted():
    then_events(small_tournament(), result("r1g1", "1-0"), [result("r1g1", "1-0")])


def test_move_out_of_turn_is_refused():
    then_rejected(
        [*small_tournament(), move("r1g1", 1, "e2e4")],
        move("r1g1", 2, "e7e5", colour="white"),
        "move.out_of_turn",
        "payload.colour",
    )


def test_move_out_of_order_is_refused():
    then_rejected(
        [*small_tournament(), move("r1g1", 1, "e2e4")],
        move("r1g1", 3, "g1f3"),
        "move.out_of_order",
        "payload.ply",
    )


def test_move_after_game_ended_is_refused():
    then_rejected(
        [*small_tournament(), move("r1g1", 1, "e2e4"), result("r1g1", "1-0", "resignation")],
        move("r1g1", 2, "e7e5"),
        "move.after_end",
        "payload.game_id",
    )


def test_illegal_chess_move_is_refused():
    then_rejected(small_tournament(), move("r1g1", 1, "e2e5"), "move.illegal", "payload.uci")


def test_san_is_derived_and_checked():
    then_events(
        [*small_tournament(), move("r1g1", 1, "e2e4")],
        move("r1g1", 2, "g8f6"),
        [move("r1g1", 2, "g8f6", san="Nf6")],
    )
    then_rejected(
        [*small_tournament()], move("r1g1", 1, "e2e4", san="e3"), "move.san_mismatch", "payload.san"
    )


def test_event_for_unknown_player_is_refused():
    then_rejected(
        [created(), player("alice")],
        round_(1, ("g1", "alice", "zed")),
        "player.unknown",
        "payload.pairings[0].black",
    )


def test_withdrawn_player_cannot_be_paired():
    then_rejected(
        [created(), player("a"), player("b"), ev.PlayerWithdrew(player_id="b")],
        round_(1, ("g1", "a", "b")),
        "player.withdrawn",
        "payload.pairings[0].black",
    )


def test_a_withdrawal_from_a_later_round_still_pairs_the_rounds_before_it():
    """FIDE C.06 5.4: a player who withdraws from round 3 plays rounds 1 and 2."""
    history = [created(), player("a"), player("b"), ev.PlayerWithdrew(player_id="b", from_round=3)]
    then_events(history, round_(2, ("g1", "a", "b")), [round_(2, ("g1", "a", "b"))])
    then_rejected(
        history, round_(3, ("g1", "a", "b")), "player.withdrawn", "payload.pairings[0].black"
    )


def test_player_cannot_be_paired_and_get_a_bye():
    then_rejected(
        [created(), player("a"), player("b")],
        round_(1, ("g1", "a", "b"), byes=("a",)),
        "pairing.player_twice",
        "payload.byes[0].player_id",
    )


def _gid(events: list[Event], i: int):
    return recorded("t1", events)[i].envelope.event_id


def test_correction_must_reference_an_existing_event():
    import uuid

    then_rejected(
        [*small_tournament(), result("r1g1", "1-0")],
        ev.ResultCorrected(
            corrects_event_id=uuid.uuid4(),
            game_id="r1g1",
            result="0-1",
            termination="agreement",
            reason="scoresheet",
        ),
        "correction.target_missing",
        "payload.corrects_event_id",
    )


def test_correction_must_target_the_result_in_force():
    events = [*small_tournament(), result("r1g1", "1-0")]
    first = _gid(events, 5)
    fix = ev.ResultCorrected(
        corrects_event_id=first, game_id="r1g1", result="0-1", termination="resignation", reason="x"
    )
    state = given(*events)
    assert decide(state, fix) == [fix]
    then_rejected([*events, fix], fix, "correction.not_current", "payload.corrects_event_id")


def test_correction_to_the_same_result_is_refused():
    events = [*small_tournament(), result("r1g1", "1-0")]
    fix = ev.ResultCorrected(
        corrects_event_id=_gid(events, 5),
        game_id="r1g1",
        result="1-0",
        termination="resignation",
        reason="x",
    )
    then_rejected(events, fix, "correction.no_change", "payload.result")


def test_retracting_a_result_reopens_the_game():
    events = [*small_tournament(), result("r1g1", "1-0")]
    retract = ev.EventRetracted(retracted_event_id=_gid(events, 5), reason="wrong board")
    state = given(*events, retract)
    assert state.games["r1g1"].status == "scheduled"
    then_events([*events, retract], result("r1g1", "0-1"), [result("r1g1", "0-1")])


def test_only_the_last_move_can_be_retracted():
    events = [*small_tournament(), move("r1g1", 1, "e2e4"), move("r1g1", 2, "e7e5")]
    then_rejected(
        events,
        ev.EventRetracted(retracted_event_id=_gid(events, 5), reason="x"),
        "retraction.not_last_move",
        "payload.retracted_event_id",
    )
    state = given(*events, ev.EventRetracted(retracted_event_id=_gid(events, 6), reason="x"))
    assert state.games["r1g1"].moves == ["e2e4"]
    assert decide(state, move("r1g1", 2, "c7c5"))[0].san == "c5"  # type: ignore[attr-defined]


def test_adjudication_with_a_result_ends_the_game():
    """TCEC Swiss 7.b.iii: both evals within 0.15 after 35 moves -> draw, and the game ends
    with it (7.b: the adjudication is the result)."""
    adj = ev.AdjudicationIssued(
        game_id="r1g1", rule="TCEC Swiss 7.b.iii", outcome="1/2-1/2", basis="evals 0.05/0.10"
    )
    then_events(
        small_tournament(),
        adj,
        [
            adj,
            ev.GameEnded(
                game_id="r1g1",
                result="1/2-1/2",
                termination="adjudication",
                detail="TCEC Swiss 7.b.iii: evals 0.05/0.10",
                rule="TCEC Swiss 7.b.iii",
            ),
        ],
    )


def test_adjudication_restart_lets_the_game_continue():
    """TCEC Swiss 7.b.v: a restart is recorded alone; no result."""
    adj = ev.AdjudicationIssued(game_id="r1g1", rule="TCEC Swiss 7.b.v", outcome="restart")
    then_events([*small_tournament(), move("r1g1", 1, "e2e4")], adj, [adj])


def test_two_warnings_in_a_go_game_forfeit_it():
    """LGC Sanctions: two warnings in the same game -> game forfeit (and the game ends:
    the forfeited player, Black here, loses)."""
    base = [created(game="go"), player("a"), player("b"), round_(1, ("g1", "a", "b"))]
    warn = ev.SanctionIssued(player_id="b", game_id="g1", level="warning", rule="LGC Disturbance")
    then_events(base, warn, [warn])
    then_events(
        [*base, warn],
        warn,
        [
            warn,
            ev.SanctionIssued(
                player_id="b",
                game_id="g1",
                level="game_forfeit",
                rule="LGC Sanctions: two warnings in the same game",
                text="second warning in this game",
            ),
            ev.GameEnded(
                game_id="g1",
                result="1-0",
                termination="forfeit",
                detail="game forfeit sanction: LGC Disturbance",
            ),
        ],
    )


def test_two_warnings_in_a_chess_game_do_not_forfeit_it():
    """The two-warnings forfeit is LGC's (Go); a chess game keeps its warnings apart."""
    warn = ev.SanctionIssued(player_id="bob", game_id="r1g1", level="warning", rule="FIDE 11.3")
    then_events([*small_tournament(), warn], warn, [warn])


def test_a_game_forfeit_sanction_ends_the_game():
    """A game forfeit names the game and ends it: the sanctioned player (White) loses."""
    forfeit = ev.SanctionIssued(
        player_id="alice", game_id="r1g1", level="game_forfeit", rule="FIDE 11.3.b"
    )
    then_events(
        small_tournament(),
        forfeit,
        [
            forfeit,
            ev.GameEnded(
                game_id="r1g1",
                result="0-1",
                termination="forfeit",
                detail="game forfeit sanction: FIDE 11.3.b",
            ),
        ],
    )


def test_go_moves_alternate_and_check_the_point():
    base = [created(game="go"), player("a"), player("b"), round_(1, ("g1", "a", "b"))]
    black_first = ev.MovePlayed(game_id="g1", ply=1, colour="black", point="Q16")
    then_events(base, black_first, [black_first])
    then_rejected(
        base,
        ev.MovePlayed(game_id="g1", ply=1, colour="white", point="Q16"),
        "move.out_of_turn",
        "payload.colour",
    )
    then_rejected(
        base,
        ev.MovePlayed(game_id="g1", ply=1, colour="black", point="Z99"),
        "move.bad_point",
        "payload.point",
    )


def test_paused_tournament_refuses_moves():
    then_rejected(
        [*small_tournament(), ev.TournamentPaused(reason="server disconnect")],
        move("r1g1", 1, "e2e4"),
        "tournament.paused",
        "type",
    )


def test_appeal_decision_is_final():
    base = [
        *small_tournament(),
        ev.AppealFiled(appeal_id="ap1", filed_by="bob", grounds="clock"),
    ]
    decided = ev.AppealDecided(appeal_id="ap1", decision="rejected", text="clock was fine")
    then_rejected([*base, decided], decided, "appeal.already_decided", "payload.appeal_id")
    then_rejected(small_tournament(), decided, "appeal.unknown", "payload.appeal_id")


def test_lot_outcome_must_come_from_candidates():
    lot = ev.LotDrawn(purpose="coin_toss", candidates=["alice", "bob"], outcome=["carol"])
    then_rejected(small_tournament(), lot, "lot.outcome_not_a_candidate", "payload.outcome")


def test_fold_ignores_redelivered_events():
    recs = recorded("t1", [*small_tournament(), result("r1g1", "1-0")])
    state = fold(recs)
    again = fold(recs, state)
    assert again.seq == 6 and len(again.games["r1g1"].results) == 1


def test_chess960_start_allows_castling_in_both_notations():
    """TCEC FRD plays Chess960 starts: castling rights come from the FEN (Shredder-style
    files), and the king-takes-rook UCI form is accepted as well as e1g1."""
    fen = "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1"
    base = [*small_tournament(), ev.GameStarted(game_id="r1g1", fen=fen)]
    state = given(*base)
    [castled] = decide(state, move("r1g1", 1, "e1g1"))
    assert castled.san == "O-O"  # type: ignore[attr-defined]
    [long] = decide(state, move("r1g1", 1, "e1b1"))
    assert long.san == "O-O-O"  # type: ignore[attr-defined]
    state = given(*base, move("r1g1", 1, "e1g1"))
    assert state.games["r1g1"].board is not None
    assert state.games["r1g1"].board.piece_at(chess.F1) == chess.Piece(chess.ROOK, chess.WHITE)


def test_prize_table_correction_rulings_are_validated():
    """A prize-table correction is a RulingIssued (subject "prize_table"); a table the prize
    projection could not read is refused at the door, naming the field."""
    good = ev.RulingIssued(
        ruling_id="r1",
        by="chief arbiter",
        subject="prize_table",
        text="sponsor raised the prize fund",
        decision={"prize_table": {"currency": "USD", "prizes": [{"place": 1, "amount": "500"}]}},
    )
    assert decide(given(*small_tournament()), good) == [good]
    bad = good.model_copy(
        update={"decision": {"prize_table": {"prizes": [{"place": 0, "amount": "-5"}]}}}
    )
    err = then_rejected(
        small_tournament(),
        bad,
        "ruling.invalid_table",
        "payload.decision.prize_table.prizes.0.place",
    )
    assert "greater than or equal" in err.message
    # Every mistake of the table at once (as `arbiter prize-table` reports a file), not the first.
    assert [(p.rule, p.field) for p in err.errors] == [
        ("ruling.invalid_table", "payload.decision.prize_table.prizes.0.place"),
        ("ruling.invalid_table", "payload.decision.prize_table.prizes.0.amount"),
    ]
    then_rejected(
        small_tournament(),
        good.model_copy(update={"subject": "points_table", "decision": {"points_table": ["x"]}}),
        "ruling.invalid_table",
        "payload.decision.points_table.0",
    )
    then_rejected(
        small_tournament(),
        good.model_copy(update={"subject": "tiebreak", "decision": {"tiebreak_order": ["zed"]}}),
        "ruling.invalid_order",
        "payload.decision.tiebreak_order",
    )


def test_events_the_decider_would_refuse_have_no_effect_in_history():
    """The fold's reading of an odd log is the decider's: a second registration, a second
    withdrawal or a repeated round (all refused by `decide`) have no effect when found in
    history, so retracting them undoes nothing (tests/unit/projections/test_folds_agree.py checks
    the
    standings fold reads them alike)."""
    events = [
        created(),
        player("a"),
        player("b"),
        player("a"),  # 4: a second registration
        ev.PlayerWithdrew(player_id="b", from_round=2),
        ev.PlayerWithdrew(player_id="b", from_round=3),  # 6: a second withdrawal
        round_(1, ("g1", "a", "b")),
        round_(1, ("g2", "b", "a")),  # 8: the same round again
    ]
    retractions = [
        ev.EventRetracted(retracted_event_id=_gid(events, i), reason="sent twice")
        for i in (3, 5, 7)
    ]
    state = given(*events, *retractions)
    assert set(state.players) == {"a", "b"}
    assert (state.players["b"].withdrawn, state.players["b"].withdrawn_from_round) == (True, 2)
    assert list(state.games) == ["g1"] and state.rounds == {("main", 1): ["g1"]}
    then_events([*events, *retractions], result("g1", "1-0"), [result("g1", "1-0")])


def test_an_edition_ruling_names_a_known_c07_edition():
    ruling = ev.RulingIssued(
        ruling_id="ed-1",
        by="chief arbiter",
        subject="tiebreak_edition",
        text="the 2026 text applies",
        decision={"edition": "fide-2027"},
    )
    then_rejected([created()], ruling, "ruling.unknown_edition", "payload.decision.edition")
    ok = ruling.model_copy(update={"decision": {"edition": "fide-2026"}})
    then_events([created()], ok, [ok])


# --- every event type has its rule: nothing is accepted by default ----------------------------


class _Unruled(Event):
    """An event type no rule decides (a type added to the schema without its rule)."""

    event_type: ClassVar[str] = "Unruled"

    note: str = ""


def test_an_event_type_without_a_rule_is_refused():
    err = then_rejected([created()], _Unruled(note="x"), "event.no_rule", "type")
    assert "Unruled" in err.message
    # Not a stored type: no command proposes it, and no rule accepts it.
    unreadable = Unreadable(stored_type="Mystery", reason="unknown type")
    then_rejected([created()], unreadable, "event.no_rule", "type")


def test_every_event_type_has_a_rule_of_the_decider():
    """Each type in EVENT_CLASSES is decided by its own rule (one accepting it as proposed
    included); a type on purpose without one would be listed here, and none is."""
    without_rule: set[type[Event]] = set()  # deliberately none
    assert {c for c in EVENT_CLASSES if rule_for(c) is None} == without_rule
    assert set(RULES) == set(EVENT_CLASSES) - without_rule
