"""The decider's rules for Go (LGC Tournament Rules): moves on the board, status agreed or
disputed, illegal moves noticed, rounds skipped, clocks, late arrivals, colour or handicap
errors and position disturbances. The board and the LGC computations they read are in
`projections/tournament/go_play.py`."""

from __future__ import annotations

from datetime import timedelta

from events_schema import events as ev
from events_schema.go import GoSettings
from projections.go.board import parse_point
from projections.rejection import Rejected
from projections.tournament import go_play
from projections.tournament.endings import time_control_of
from projections.tournament.rules.lookups import (
    game_in_progress,
    known_player,
    not_paired_in,
    player_in_game,
)
from projections.tournament.rules.registry import rule
from projections.tournament.state import GameState, TournamentState


def go_game(state: TournamentState, game_id: str) -> tuple[GameState, go_play.GoGame]:
    game = game_in_progress(state, game_id)
    if state.game_kind != "go":
        raise Rejected("game.wrong_kind", "type", "this is a Go event; the tournament is chess")
    if game.go is None:
        raise Rejected("go.not_started", "payload.game_id", f"{game_id} has not started")
    return game, game.go


@rule(ev.GoStatusAgreed)
def _(proposed: ev.GoStatusAgreed, state: TournamentState) -> list[ev.Event]:
    """LGC Timing "Ending the game" 5 and Scoring: the agreed status is counted and the game
    ends in the same batch; refused unless play is paused after the passes, or while a dame
    is unfilled (LGC Game protocol "Dame, Teire")."""
    game, go = go_game(state, proposed.game_id)
    if not go.paused(game.moves, game.first_to_move):
        raise Rejected(
            "go.not_paused",
            "payload.game_id",
            f"the status of the groups is agreed when play pauses after consecutive passes, "
            f"White passing last ({go_play.RULE_PAUSE})",
        )
    dead = go_play.parse_dead(go, proposed.dead_stones)
    komi = go_play.komi(state.created, go.handicap)
    score = go_play.score_of(go, dead, komi, check_dame=True)
    agreed = proposed.model_copy(update={"dead_stones": score.dead_stones})
    return [agreed, go_play.ended_by_count(game.game_id, score, "status agreed")]


@rule(ev.GoStatusDisputed)
def _(proposed: ev.GoStatusDisputed, state: TournamentState) -> list[ev.Event]:
    """LGC Timing "Ending the game" 6: a dispute resumes play, Black first."""
    game, go = go_game(state, proposed.game_id)
    if not go.paused(game.moves, game.first_to_move):
        raise Rejected(
            "go.not_paused",
            "payload.game_id",
            f"a status dispute comes when play pauses after the passes ({go_play.RULE_PAUSE})",
        )
    go_play.points(go, proposed.points, "points")
    return [proposed]


@rule(ev.IllegalMoveNoticed)
def _(proposed: ev.IllegalMoveNoticed, state: TournamentState) -> list[ev.Event]:
    """LGC Irregularities "Illegal move": within three moves the game is unwound, later it
    continues as it stands; which of the two is derived from the record."""
    game, go = go_game(state, proposed.game_id)
    unwound, rule = go_play.judge_notice(go, len(game.moves), proposed.ply)
    if proposed.unwound is not None and proposed.unwound != unwound:
        raise Rejected(
            "go.unwound_is_derived",
            "payload.unwound",
            f"the record decides it: {rule}",
        )
    return [proposed.model_copy(update={"unwound": unwound, "rule": rule})]


@rule(ev.RoundSkipped)
def _(proposed: ev.RoundSkipped, state: TournamentState) -> list[ev.Event]:
    """LGC Player behaviour "Top groups" / "Other players": a player outside the top groups
    skips a round by notice; a player starting in a top group only in exceptional
    circumstances (the referee's decision, with the reason)."""
    if state.game_kind != "go":
        raise Rejected(
            "game.wrong_kind",
            "type",
            "rounds skipped are Go's (LGC); a chess player's requested bye is a ruling",
        )
    known_player(state, proposed.player_id, "payload.player_id")
    player = state.players[proposed.player_id]
    if player.withdrawn:
        raise Rejected("player.withdrawn", "payload.player_id", f"{player.player_id} withdrew")
    if (proposed.round, proposed.player_id) in state.skipped:
        raise Rejected(
            "round.already_skipped", "payload.round", f"already skipping round {proposed.round}"
        )
    not_paired_in(
        state,
        proposed.round,
        proposed.player_id,
        "the notice comes before the round is paired (LGC: at least 30 minutes before it)",
    )
    if proposed.notice == "exceptional" and not proposed.reason.strip():
        raise Rejected(
            "round_skip.no_reason",
            "payload.reason",
            "an exceptional skip states its circumstances (LGC Top groups)",
        )
    if proposed.notice == "advance":
        from projections.pairing import mcmahon  # the McMahon groups (pairing imports us not)

        settings = _go_settings(state)
        # The groups are fixed at the start (as the pairing and the standings read them).
        ranks = {pid: p.go_rank for pid, p in state.players.items()}
        if proposed.player_id in mcmahon.top_group(settings, ranks):
            raise Rejected(
                "round_skip.top_group",
                "payload.notice",
                f'{proposed.player_id} starts in a top group: LGC Top groups "A player '
                "starting in a top group may skip a round only in exceptional "
                "circumstances\" (notice 'exceptional', with the reason)",
            )
    return [proposed]


@rule(ev.ClockPaused)
def _(proposed: ev.ClockPaused, state: TournamentState) -> list[ev.Event]:
    """LGC Timing: both timepieces stopped, in one of the twelve circumstances."""
    _, go = go_game(state, proposed.game_id)
    if go.clock_paused:
        raise Rejected("clock.already_paused", "payload.game_id", "the clock is paused already")
    return [proposed]


@rule(ev.ClockResumed)
def _(proposed: ev.ClockResumed, state: TournamentState) -> list[ev.Event]:
    _, go = go_game(state, proposed.game_id)
    if not go.clock_paused:
        raise Rejected("clock.not_paused", "payload.game_id", "the clock is running")
    return [proposed]


@rule(ev.ClockSet)
def _(proposed: ev.ClockSet, state: TournamentState) -> list[ev.Event]:
    """LGC Irregularities "Timing error": "Players may agree to reset a clock set incorrectly
    before the game has started ... Once the game has started, any apparent non-trivial
    mistakes in the recorded elapsed time can only be corrected by the referee"; "Faulty
    clock": replaced and set by the referee."""
    game, _ = go_game(state, proposed.game_id)
    if proposed.reason == "reset_before_start" and game.moves:
        raise Rejected(
            "clock.game_started",
            "payload.reason",
            f"{game.game_id} has started ({len(game.moves)} moves): only the referee corrects "
            "the recorded time now (reason 'referee_correction')",
        )
    if proposed.reason == "referee_correction" and not game.moves:
        raise Rejected(
            "clock.not_started",
            "payload.reason",
            "before the game starts the players reset a wrong clock (reason 'reset_before_start')",
        )
    return [proposed]


@rule(ev.ClockStarted)
def _(proposed: ev.ClockStarted, state: TournamentState) -> list[ev.Event]:
    """LGC Timing "Start": the referee starts this board's clock at another time."""
    if state.game_kind != "go":
        raise Rejected("game.wrong_kind", "type", "clock starts are recorded for Go (LGC)")
    game = game_in_progress(state, proposed.game_id)
    if game.moves:
        raise Rejected("clock.game_started", "payload.game_id", f"{game.game_id} has moves")
    return [proposed]


def _go_settings(state: TournamentState) -> GoSettings:
    created = state.created
    return created.go if created is not None and created.go is not None else GoSettings()


@rule(ev.PlayerArrived)
def _(proposed: ev.PlayerArrived, state: TournamentState) -> list[ev.Event]:
    """LGC Timing "Start": "If a player is late by 30 minutes or more, they forfeit the
    game" — the forfeit is appended with the arrival."""
    if state.game_kind != "go":
        raise Rejected("game.wrong_kind", "type", "late arrival forfeits are LGC (Go) rules")
    game = game_in_progress(state, proposed.game_id)
    player_in_game(game, proposed.player_id)
    settings = _go_settings(state)
    late = go_play.lateness(settings, game.scheduled_at, proposed.at, game.clock_started_at)
    if late is None:
        raise Rejected(
            "round.no_start_time",
            "payload.at",
            f"round {game.round} has no scheduled_at: lateness cannot be measured",
        )
    limit = timedelta(minutes=settings.late_forfeit_minutes)
    if late < limit:
        return [proposed]
    result: ev.Result = "0-1" if proposed.player_id == game.white else "1-0"
    minutes = int(late.total_seconds() // 60)
    measured = "the clock's start" if settings.late_from == "clock_start" else "the round's start"
    return [
        proposed,
        ev.GameEnded(
            game_id=game.game_id,
            result=result,
            termination="forfeit",
            detail=f"{proposed.player_id} arrived {minutes} minutes after {measured}",
            rule=go_play.RULE_LATE,
        ),
    ]


def _go_move(state: TournamentState, proposed: ev.MovePlayed) -> ev.MovePlayed:
    if proposed.point is None or proposed.uci is not None:
        raise Rejected("move.wrong_kind", "payload.point", "a Go move needs `point` (not `uci`)")
    size = state.created.board_size if state.created is not None else 19
    try:
        parse_point(proposed.point, size)  # a GTP vertex on this board, or "pass"
    except ValueError as exc:
        raise Rejected("move.bad_point", "payload.point", str(exc)) from None
    # Ko/superko are not refused here: LGC Irregularities says an illegal move stands unless
    # noticed within three moves, when the game is unwound (a retraction of the moves).
    return proposed


def play_move(state: TournamentState, game: GameState, proposed: ev.MovePlayed) -> list[ev.Event]:
    """A Go move, its colour and ply in turn (checked by the play rule): a point on the board,
    not while the clock is paused, then the endings it brings (LGC Timing)."""
    move = _go_move(state, proposed)
    go = game.go
    if go is None and not game.started:  # a first move starts the game (as the fold does)
        size = state.created.board_size if state.created is not None else 19
        go = go_play.GoGame.start(size, game.handicap, time_control_of(state, game))
    if go is None or move.point is None:
        return [move]
    if go.clock_paused:
        raise Rejected(
            "clock.paused",
            "type",
            "the clock is paused (ClockPaused): no move until it is resumed (ClockResumed)",
        )
    go_play.check_move(go, game.moves, game.first_to_move, move.point)
    created = state.created
    if created is not None and created.adjudication == "rules":
        clock = go.clock_after(move.colour, move.move_time_ms, move.clock_ms)
        if clock is not None and clock.flagged == move.colour:
            # LGC Timing "Loss on time": the move was not completed in the time (or the
            # overtime stones not all played in the period): it is recorded, then the loss.
            what = "overtime period" if clock.side(move.colour).in_overtime else "basic time"
            detail = f"ply {move.ply}: {move.colour} exceeded the {what}"
            return [move, go_play.time_loss(game.game_id, move.colour, detail)]
    if go_play.stops_at_resumption(go, game.moves, move.colour, move.point):
        # LGC Timing "Ending the game" 6: both pass at the start of a resumption: the game
        # stops and all stones remain on the board for counting purposes. The count follows
        # the pass (its stone is a prisoner too).
        after = go_play.GoGame(go.size, go.handicap, go.board.clone())
        after.board.play(move.colour, None)
        komi = go_play.komi(state.created, go.handicap)
        score = go_play.score_of(after, [], komi, check_dame=False)
        detail = "both passed at the start of a resumption: all stones counted as they stand"
        ended = go_play.ended_by_count(game.game_id, score, detail)
        ended = ended.model_copy(update={"rule": go_play.RULE_RESUMPTION})
        return [move, ended]
    return [move]


@rule(ev.ColourErrorNoticed)
def _(proposed: ev.ColourErrorNoticed, state: TournamentState) -> list[ev.Event]:
    """LGC Irregularities "Colour or handicap error": noticed "before the third move is
    completed" (fewer than three moves in force) the game is restarted; later, "the game
    continues and the pairing is modified to reflect the actual colours or handicap used"."""
    game, go = go_game(state, proposed.game_id)
    player_in_game(game, proposed.black)
    swapped = proposed.black != game.black
    if not swapped and proposed.handicap == go.handicap:
        raise Rejected(
            "go.no_colour_error",
            "payload.black",
            f"{game.black} plays Black with handicap {go.handicap}, as paired: nothing to amend",
        )
    restarted = len(game.moves) < 3
    rule = 'LGC Irregularities "Colour or handicap error"'
    if restarted:
        rule += f": noticed after {len(game.moves)} move(s): the game is restarted"
    else:
        rule += f": noticed after {len(game.moves)} moves: the pairing is amended"
        try:
            trial = go_play.GoGame.start(go.size, proposed.handicap)
            trial.rebuild(game.moves)
        except ValueError as exc:
            raise Rejected("go.bad_handicap", "payload.handicap", str(exc)) from None
        if "occupied" in trial.illegal:
            raise Rejected(
                "go.bad_handicap",
                "payload.handicap",
                f"the recorded moves cannot have been played with handicap {proposed.handicap}",
            )
    if proposed.restarted is not None and proposed.restarted != restarted:
        raise Rejected("go.restarted_is_derived", "payload.restarted", rule)
    return [proposed.model_copy(update={"restarted": restarted, "rule": rule})]


@rule(ev.PositionDisturbed)
def _(proposed: ev.PositionDisturbed, state: TournamentState) -> list[ev.Event]:
    """LGC Irregularities "Position disturbance": the referee's procedure (1-5)."""
    game, go = go_game(state, proposed.game_id)
    proc = proposed.procedure
    rule = 'LGC Irregularities "Position disturbance"'
    if proc == "continue":
        for name, points, want_empty in (
            ("added_black", proposed.added_black, True),
            ("added_white", proposed.added_white, True),
            ("removed", proposed.removed, False),
        ):
            for i, (v, p) in enumerate(zip(points, go_play.points(go, points, name), strict=True)):
                if p is None or (go.board.colour_at(p) is None) != want_empty:
                    what = "an empty point" if want_empty else "a stone"
                    raise Rejected(
                        "go.bad_disturbance", f"payload.{name}[{i}]", f"{v} is not {what}"
                    )
    elif proposed.added_black or proposed.added_white or proposed.removed:
        raise Rejected(
            "go.bad_disturbance", "payload.added_black", "stones change only with 'continue'"
        )
    if proc == "unwind" and (proposed.to_ply is None or proposed.to_ply >= len(game.moves)):
        raise Rejected(
            "go.bad_disturbance",
            "payload.to_ply",
            f"unwind to an earlier position: to_ply below {len(game.moves)}",
        )
    if proc == "loss":
        if proposed.disturbed_by is None:
            raise Rejected(
                "go.bad_disturbance", "payload.disturbed_by", "a loss names who disturbed it"
            )
        player_in_game(game, proposed.disturbed_by)
        result: ev.Result = "0-1" if proposed.disturbed_by == game.white else "1-0"
        return [
            proposed,
            ev.GameEnded(
                game_id=game.game_id,
                result=result,
                termination="arbiter_decision",
                detail=f"{proposed.disturbed_by} disturbed the position: {proposed.detail}"[:2000],
                rule=f"{rule} 4",
            ),
        ]
    if proc == "restart" and proposed.time_control is not None:
        names = [tc.name for tc in state.created.time_controls] if state.created else []
        if proposed.time_control not in names:
            raise Rejected(
                "go.bad_disturbance",
                "payload.time_control",
                f"{proposed.time_control!r} is not one of the tournament's: {names}",
            )
    return [proposed]
