"""The decider: validate a proposed event against the tournament's state.

`decide(state, proposed)` returns the events to append (usually the proposed one, sometimes
with consequences the rules attach to it) or raises `Rejected` naming the rule and the field.
It never mutates the state. Each event type is decided by its rule (`@rule(T)`,
`projections/tournament/rules/registry.py`); a type without one is refused (`event.no_rule`).
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Annotated

import chess
from pydantic import Field, TypeAdapter, ValidationError

from events_schema import events as ev
from events_schema.go import GoSettings
from projections import rulings
from projections.endings.interruptions import crash_ending
from projections.go.board import parse_point
from projections.rejection import Rejected
from projections.tiebreaks import validate as validate_chain
from projections.tiebreaks.editions import edition_on
from projections.tiebreaks.presets import PRESETS
from projections.tournament import go_play
from projections.tournament.endings import (
    ending_after,
    game_ended,
    interruption_adjudication,
    time_control_of,
)
from projections.tournament.invalidation import KEY, RULE, invalidated_round
from projections.tournament.rules.registry import rule, rule_for
from projections.tournament.state import GameState, PlayerState, TournamentState

_CREATION = (ev.TournamentCreated, ev.SeriesCreated)
# Events a series stream may hold besides its creation.
_SERIES_EVENTS = (ev.RulingIssued, ev.LotDrawn, ev.EventRetracted)


def decide(state: TournamentState, proposed: ev.Event) -> list[ev.Event]:
    if state.unreadable:
        # A stored event no reader can decode holds its stream: what it did is unknown, so
        # nothing may be decided on top of it. Its retraction needs no decoding (by event
        # id); the admin may then append what it should have said (supersede).
        if (
            isinstance(proposed, ev.EventRetracted)
            and proposed.retracted_event_id in state.unreadable
        ):
            return [proposed]
        eid, (seq, reason) = min(state.unreadable.items(), key=lambda kv: kv[1][0])
        raise Rejected(
            "stream.unreadable_event",
            "type",
            f"the stored event at seq {seq} ({eid}) cannot be read ({reason}); an admin must "
            f"retract it first: EventRetracted with retracted_event_id {eid}",
        )
    if state.kind == "none" and not isinstance(proposed, _CREATION):
        raise Rejected(
            "stream.not_created",
            "type",
            f"{proposed.event_type} before TournamentCreated/SeriesCreated: create the "
            "tournament first",
        )
    if state.kind == "series" and not isinstance(proposed, _SERIES_EVENTS):
        raise Rejected(
            "series.event_not_allowed",
            "type",
            f"a series stream holds only rulings, lots and retractions, not {proposed.event_type}",
        )
    decides = rule_for(type(proposed))
    if decides is None:
        # Nothing is accepted by default: an event type is accepted only by its rule
        # (projections/tournament/rules/registry.py), even one that accepts it as proposed.
        raise Rejected(
            "event.no_rule",
            "type",
            f"no rule of the decider decides {proposed.event_type}: it cannot be appended",
        )
    return decides(proposed, state)


# --- creation and registration ---------------------------------------------------------------


def _refuse_recreation(state: TournamentState) -> None:
    if state.kind != "none":
        raise Rejected("stream.already_created", "type", f"{state.stream_id} already exists")


@rule(ev.TournamentCreated)
def _(proposed: ev.TournamentCreated, state: TournamentState) -> list[ev.Event]:
    _refuse_recreation(state)
    # Unknown criteria, bad parameters or an unknown preset are refused at creation
    # (`projections.tiebreaks.chain.validate`), naming the entry.
    for i, where, message in validate_chain(proposed.tiebreaks):
        raise Rejected("tiebreak.invalid", f"payload.tiebreaks[{i}].{where}", message)
    if proposed.rules_preset is not None and proposed.rules_preset not in PRESETS:
        known = ", ".join(sorted(PRESETS))
        raise Rejected(
            "tiebreak.unknown_preset",
            "payload.rules_preset",
            f"unknown preset {proposed.rules_preset!r}; known: {known}",
        )
    if proposed.starts_on and proposed.ends_on and proposed.ends_on < proposed.starts_on:
        raise Rejected(
            "tournament.dates_reversed",
            "payload.ends_on",
            f"ends on {proposed.ends_on} before it starts on {proposed.starts_on}",
        )
    # The FIDE C.07 text its FIDE tie-breaks follow is a recorded fact of the tournament: when
    # the creation states none, the edition in force on its start date, the newest without one
    # (projections/tiebreaks/editions.py). The stored event states it.
    if proposed.tiebreak_edition is None:
        edition = edition_on(proposed.starts_on)
        return [proposed.model_copy(update={"tiebreak_edition": edition})]
    return [proposed]


@rule(ev.SeriesCreated)
def _(proposed: ev.SeriesCreated, state: TournamentState) -> list[ev.Event]:
    _refuse_recreation(state)
    return [proposed]


def _known_player(state: TournamentState, player_id: str, field: str) -> None:
    if player_id not in state.players:
        raise Rejected("player.unknown", field, f"no player {player_id!r} is registered")


@rule(ev.PlayerRegistered)
def _(proposed: ev.PlayerRegistered, state: TournamentState) -> list[ev.Event]:
    if proposed.player_id in state.players:
        raise Rejected(
            "player.duplicate", "payload.player_id", f"{proposed.player_id!r} already registered"
        )
    return [proposed]


@rule(ev.PlayerWithdrew)
def _(proposed: ev.PlayerWithdrew, state: TournamentState) -> list[ev.Event]:
    _known_player(state, proposed.player_id, "payload.player_id")
    if state.players[proposed.player_id].withdrawn:
        raise Rejected("player.withdrawn", "payload.player_id", "already withdrawn")
    return [proposed]


@rule(ev.LotDrawn)
def _(proposed: ev.LotDrawn, state: TournamentState) -> list[ev.Event]:
    # A lot of a playoff is checked against what its machine asks for (subject, purpose,
    # candidates, pick): projections/tournament/playoff_guards.py.
    if state.standings is not None:  # a tournament with a playoff (evolve.PLAYOFF_PRESETS)
        from projections.tournament import playoff_guards  # the machines, only where used

        playoff_guards.check_lot(state, proposed)
    # Lots (rules/README "Lots"): the outcome must come from the candidates drawn from.
    unknown = [o for o in proposed.outcome if o not in proposed.candidates]
    if unknown:
        raise Rejected(
            "lot.outcome_not_a_candidate",
            "payload.outcome",
            f"{unknown} not among the candidates {proposed.candidates}",
        )
    return [proposed]


def _withdrawn_for(player: PlayerState, rnd: int) -> bool:
    """A withdrawal names the first round the player misses (`from_round`; none: at once);
    rounds before it may still pair them (FIDE C.06 5.4: a player who announces a
    withdrawal from a later round plays the rounds before it)."""
    if not player.withdrawn:
        return False
    return player.withdrawn_from_round is None or rnd >= player.withdrawn_from_round


@rule(ev.RoundScheduled)
def _(proposed: ev.RoundScheduled, state: TournamentState) -> list[ev.Event]:
    key = (proposed.stage, proposed.round)
    if key in state.rounds:
        raise Rejected(
            "round.duplicate",
            "payload.round",
            f"round {proposed.round} of stage {proposed.stage!r} is already scheduled",
        )
    seen: set[str] = set()
    for i, p in enumerate(proposed.pairings):
        where = f"payload.pairings[{i}]"
        if p.game_id in state.games:
            raise Rejected("game.duplicate_id", f"{where}.game_id", f"{p.game_id!r} exists")
        if p.white == p.black:
            raise Rejected("pairing.self", f"{where}.black", "a player cannot play themself")
        for side in ("white", "black"):
            pid = getattr(p, side)
            _known_player(state, pid, f"{where}.{side}")
            if _withdrawn_for(state.players[pid], proposed.round):
                raise Rejected("player.withdrawn", f"{where}.{side}", f"{pid!r} has withdrawn")
            if pid in seen:
                raise Rejected("pairing.player_twice", f"{where}.{side}", f"{pid!r} twice")
            seen.add(pid)
    game_ids = [p.game_id for p in proposed.pairings]
    if len(set(game_ids)) != len(game_ids):
        raise Rejected("game.duplicate_id", "payload.pairings", "a game id is used twice")
    for i, b in enumerate(proposed.byes):
        _known_player(state, b.player_id, f"payload.byes[{i}].player_id")
        if b.player_id in seen:
            raise Rejected(
                "pairing.player_twice", f"payload.byes[{i}].player_id", "paired and given a bye"
            )
        seen.add(b.player_id)
    # A round of a playoff stage is checked against what its machine prescribes (who may be
    # seated, who has a bye, the games): projections/tournament/playoff_guards.py.
    if state.standings is not None:  # a tournament with a playoff (evolve.PLAYOFF_PRESETS)
        from projections.tournament import playoff_guards  # the machines, only where used

        playoff_guards.check_round(state, proposed)
    return [proposed]


# --- play -------------------------------------------------------------------------------------


def _game(state: TournamentState, game_id: str) -> GameState:
    game = state.games.get(game_id)
    if game is None:
        raise Rejected("game.unknown", "payload.game_id", f"no game {game_id!r} is scheduled")
    return game


def _not_paused(state: TournamentState, what: str) -> None:
    # TCEC Swiss 7.d: after a system crash or server disconnect the tournament is paused.
    if state.paused:
        raise Rejected("tournament.paused", "type", f"the tournament is paused: no {what}")


@rule(ev.GameStarted)
def _(proposed: ev.GameStarted, state: TournamentState) -> list[ev.Event]:
    game = _game(state, proposed.game_id)
    _not_paused(state, "game starts")
    if game.status != "scheduled":
        raise Rejected(
            "game.already_started", "payload.game_id", f"{game.game_id} is {game.status}"
        )
    if proposed.fen is not None:
        if state.game_kind != "chess":
            raise Rejected("game.wrong_kind", "payload.fen", "a FEN is for chess games")
        try:
            chess.Board(proposed.fen, chess960=True)
        except ValueError as exc:
            raise Rejected("game.bad_fen", "payload.fen", str(exc)) from None
    if proposed.handicap and state.game_kind != "go":
        raise Rejected("game.wrong_kind", "payload.handicap", "handicap stones are for Go")
    if proposed.handicap and game.handicap and proposed.handicap != game.handicap:
        raise Rejected(
            "game.handicap_mismatch",
            "payload.handicap",
            f"{game.game_id} is paired with {game.handicap} stones (0 here: as paired); a game "
            "started with another handicap is a ColourErrorNoticed (LGC Irregularities)",
        )
    return [proposed]


@rule(ev.MovePlayed)
def _(proposed: ev.MovePlayed, state: TournamentState) -> list[ev.Event]:
    game = _game(state, proposed.game_id)
    _not_paused(state, "moves")
    if game.status == "ended":
        raise Rejected(
            "move.after_end", "payload.game_id", f"{game.game_id} has ended ({game.result})"
        )
    expected_ply = len(game.moves) + 1
    if proposed.ply != expected_ply:
        raise Rejected(
            "move.out_of_order", "payload.ply", f"expected ply {expected_ply}, got {proposed.ply}"
        )
    if proposed.colour != game.next_colour:
        raise Rejected(
            "move.out_of_turn",
            "payload.colour",
            f"{game.next_colour} is to move, not {proposed.colour}",
        )
    if state.game_kind == "chess":
        try:
            move = _chess_move(game, proposed)
        except Rejected as refused:
            # TCEC Swiss 6.d / Leagues 10.4: an engine's illegal move loses the game (where
            # the preset says so and endings are by rule); elsewhere it is refused.
            ending = ending_after(state, game, proposed) if refused.rule == "move.illegal" else None
            if ending is not None and ending.termination == "illegal_move":
                return [game_ended(game.game_id, ending)]
            raise
        ending = ending_after(state, game, move)
        if ending is not None:  # the move ends the game by rule: both in one batch
            return [move, game_ended(game.game_id, ending)]
        return [move]
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


def _go_game(state: TournamentState, game_id: str) -> tuple[GameState, go_play.GoGame]:
    game = _game_in_progress(state, game_id)
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
    game, go = _go_game(state, proposed.game_id)
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
    game, go = _go_game(state, proposed.game_id)
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
    game, go = _go_game(state, proposed.game_id)
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
    _known_player(state, proposed.player_id, "payload.player_id")
    player = state.players[proposed.player_id]
    if player.withdrawn:
        raise Rejected("player.withdrawn", "payload.player_id", f"{player.player_id} withdrew")
    if (proposed.round, proposed.player_id) in state.skipped:
        raise Rejected(
            "round.already_skipped", "payload.round", f"already skipping round {proposed.round}"
        )
    for key in state.rounds:
        if key[1] == proposed.round and state.player_in_round(key, proposed.player_id):
            raise Rejected(
                "round.already_paired",
                "payload.round",
                f"{proposed.player_id} is paired in round {proposed.round}: the notice comes "
                "before the round is paired (LGC: at least 30 minutes before it)",
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
    _, go = _go_game(state, proposed.game_id)
    if go.clock_paused:
        raise Rejected("clock.already_paused", "payload.game_id", "the clock is paused already")
    return [proposed]


@rule(ev.ClockResumed)
def _(proposed: ev.ClockResumed, state: TournamentState) -> list[ev.Event]:
    _, go = _go_game(state, proposed.game_id)
    if not go.clock_paused:
        raise Rejected("clock.not_paused", "payload.game_id", "the clock is running")
    return [proposed]


@rule(ev.ClockSet)
def _(proposed: ev.ClockSet, state: TournamentState) -> list[ev.Event]:
    """LGC Irregularities "Timing error": "Players may agree to reset a clock set incorrectly
    before the game has started ... Once the game has started, any apparent non-trivial
    mistakes in the recorded elapsed time can only be corrected by the referee"; "Faulty
    clock": replaced and set by the referee."""
    game, _ = _go_game(state, proposed.game_id)
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
    game = _game_in_progress(state, proposed.game_id)
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
    game = _game_in_progress(state, proposed.game_id)
    _player_in_game(game, proposed.player_id)
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


def _chess_move(game: GameState, proposed: ev.MovePlayed) -> ev.MovePlayed:
    if proposed.uci is None or proposed.point is not None:
        raise Rejected("move.wrong_kind", "payload.uci", "a chess move needs `uci` (not `point`)")
    board = game.board.copy(stack=False) if game.board is not None else chess.Board()
    try:
        # parse_uci accepts both castling notations (e1g1 and, for Chess960, king-takes-rook)
        move = board.parse_uci(proposed.uci)
    except ValueError:
        raise Rejected(
            "move.illegal", "payload.uci", f"{proposed.uci} is not legal in {board.fen()}"
        ) from None
    san = board.san(move)
    if proposed.san is not None and proposed.san != san:
        raise Rejected(
            "move.san_mismatch", "payload.san", f"{proposed.uci} is {san}, not {proposed.san}"
        )
    # The SAN is derived from the position, so the stored move is complete for PGN export.
    return proposed.model_copy(update={"san": san})


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


def _game_in_progress(state: TournamentState, game_id: str) -> GameState:
    game = _game(state, game_id)
    if game.status == "ended":
        entry = game.result
        by = f" by rule ({entry.rule})" if entry is not None and entry.rule else ""
        raise Rejected(
            "game.already_ended",
            "payload.game_id",
            f"{game_id} already has a result{by}; change it with ResultCorrected",
        )
    return game


@rule(ev.GameEnded)
def _(proposed: ev.GameEnded, state: TournamentState) -> list[ev.Event]:
    _game_in_progress(state, proposed.game_id)
    if proposed.go_score is not None and state.game_kind != "go":
        raise Rejected("game.wrong_kind", "payload.go_score", "a territory score is for Go games")
    return [proposed]


@rule(ev.ClockReported)
def _(proposed: ev.ClockReported, state: TournamentState) -> list[ev.Event]:
    _game_in_progress(state, proposed.game_id)
    return [proposed]


@rule(ev.ServerInterrupted)
def _(proposed: ev.ServerInterrupted, state: TournamentState) -> list[ev.Event]:
    """TCEC Swiss 7.b / Leagues 14 (ii–v, each event's own wording): with endings by rule the
    interruption brings its adjudication (and, with a result, the GameEnded) in the same
    batch; iv without 7-man tables awaits a tablebase ruling (nothing more is appended)."""
    game = _game_in_progress(state, proposed.game_id)
    adjudication = interruption_adjudication(state, game, proposed)
    if adjudication is None:
        return [proposed]
    if adjudication.outcome == "restart":
        return [proposed, adjudication]
    ended = ev.GameEnded(
        game_id=proposed.game_id,
        result=adjudication.outcome,
        termination="adjudication",
        detail=adjudication.basis,
        rule=adjudication.rule,
    )
    return [proposed, adjudication, ended]


def _player_in_game(game: GameState, player_id: str) -> None:
    if player_id not in (game.white, game.black):
        raise Rejected(
            "player.not_in_game", "payload.player_id", f"{player_id!r} is not in {game.game_id}"
        )


@rule(ev.EngineCrashed)
def _(proposed: ev.EngineCrashed, state: TournamentState) -> list[ev.Event]:
    """TCEC Swiss 7.a / Leagues 14.2: "crashes are counted as losses" — with endings by rule
    and a preset with the crash rule, the loss is appended with the crash (the organisers may
    decide otherwise, tcec-rules 0.0: a ResultCorrected or a retraction overrules it)."""
    game = _game(state, proposed.game_id)
    _player_in_game(game, proposed.player_id)
    created = state.created
    if (
        game.status == "ended"
        or created is None
        or created.adjudication != "rules"
        or created.game != "chess"
    ):
        return [proposed]
    crashed: ev.Colour = "white" if proposed.player_id == game.white else "black"
    try:
        ending = crash_ending(proposed, created.rules_preset, crashed)
    except KeyError:  # an unknown preset: endings are entered by hand
        return [proposed]
    if ending is None:
        return [proposed]
    return [proposed, game_ended(game.game_id, ending)]


@rule(ev.AdjudicationIssued)
def _(proposed: ev.AdjudicationIssued, state: TournamentState) -> list[ev.Event]:
    """An adjudication with a result ends the game (TCEC Swiss 7.b.ii–iv); "restart" (7.b.v)
    lets it continue from the position reached."""
    _game_in_progress(state, proposed.game_id)
    if proposed.outcome == "restart":
        return [proposed]
    ended = ev.GameEnded(
        game_id=proposed.game_id,
        result=proposed.outcome,
        termination="adjudication",
        detail=f"{proposed.rule}: {proposed.basis}".rstrip(": "),
        rule=proposed.rule,
    )
    return [proposed, ended]


@rule(ev.SanctionIssued)
def _(proposed: ev.SanctionIssued, state: TournamentState) -> list[ev.Event]:
    _known_player(state, proposed.player_id, "payload.player_id")
    if proposed.level in ("removal_from_round", "expulsion"):
        return _removal(proposed, state)
    if proposed.game_id is None:
        if proposed.level == "game_forfeit":
            raise Rejected("sanction.no_game", "payload.game_id", "a game forfeit names the game")
        return [proposed]
    game = _game(state, proposed.game_id)
    _player_in_game(game, proposed.player_id)
    out: list[ev.Event] = [proposed]
    forfeit = proposed.level == "game_forfeit"
    # LGC Sanctions: "If a player receives two warnings in the same game, then the referee
    # imposes the game forfeit sanction."
    if (
        proposed.level == "warning"
        and state.game_kind == "go"
        and game.warnings.get(proposed.player_id, 0) >= 1
    ):
        out.append(
            ev.SanctionIssued(
                player_id=proposed.player_id,
                game_id=game.game_id,
                level="game_forfeit",
                rule="LGC Sanctions: two warnings in the same game",
                text="second warning in this game",
            )
        )
        forfeit = True
    if forfeit and game.status != "ended":
        result: ev.Result = "0-1" if proposed.player_id == game.white else "1-0"
        out.append(
            ev.GameEnded(
                game_id=game.game_id,
                result=result,
                termination="forfeit",
                detail=f"game forfeit sanction: {proposed.rule}",
            )
        )
    elif forfeit and _forfeited_by_the_other(game, proposed.player_id):
        # LGC Sanctions "Game forfeit": "The referee declares one or both players to lose the
        # game by forfeit": the second forfeit makes it a loss for both.
        entry = game.result
        assert entry is not None
        out.append(
            ev.ResultCorrected(
                corrects_event_id=entry.event_id,
                game_id=game.game_id,
                result="0-0",
                termination="forfeit",
                reason=f"both players forfeit the game: {proposed.rule}"[:4000],
            )
        )
    return out


def _removal(proposed: ev.SanctionIssued, state: TournamentState) -> list[ev.Event]:
    """LGC Sanctions "Other sanctions": "removal from rounds or removal from the tournament".
    Removal from a round not yet paired: the player is not paired in it (Go: a RoundSkipped
    naming the sanction); removal from the tournament: a PlayerWithdrew from `round` (none:
    at once), so no later round pairs them."""
    player = state.players[proposed.player_id]
    if player.withdrawn:
        raise Rejected("player.withdrawn", "payload.player_id", f"{player.player_id} withdrew")
    reason = f"sanction: {proposed.rule}" + (f": {proposed.text}" if proposed.text else "")
    if proposed.level == "expulsion":
        withdrawn = ev.PlayerWithdrew(
            player_id=proposed.player_id, from_round=proposed.round, reason=reason[:2000]
        )
        return [proposed, withdrawn]
    if proposed.round is None:
        raise Rejected(
            "sanction.no_round", "payload.round", "a removal from a round names the round"
        )
    for key in state.rounds:
        if key[1] == proposed.round and state.player_in_round(key, proposed.player_id):
            raise Rejected(
                "round.already_paired",
                "payload.round",
                f"{proposed.player_id} is paired in round {proposed.round}: forfeit the game "
                "instead (level game_forfeit)",
            )
    if state.game_kind != "go":
        return [proposed]  # chess: recorded; the arbiter pairs the round without them
    skipped = ev.RoundSkipped(
        player_id=proposed.player_id,
        round=proposed.round,
        notice="exceptional",
        reason=reason[:2000],
    )
    if (proposed.round, proposed.player_id) in state.skipped:
        return [proposed]
    return [proposed, skipped]


def _forfeited_by_the_other(game: GameState, player_id: str) -> bool:
    """The game's result in force is a forfeit loss of the other player (so this player's
    forfeit makes it a double forfeit)."""
    entry = game.result
    if entry is None or entry.termination != "forfeit":
        return False
    loser_is_white = entry.result == "0-1"
    other_lost = (game.white if loser_is_white else game.black) != player_id
    return entry.result in ("1-0", "0-1") and other_lost


@rule(ev.AppealFiled)
def _(proposed: ev.AppealFiled, state: TournamentState) -> list[ev.Event]:
    if proposed.appeal_id in state.appeals:
        raise Rejected("appeal.duplicate", "payload.appeal_id", f"{proposed.appeal_id!r} exists")
    _known_player(state, proposed.filed_by, "payload.filed_by")
    if proposed.against_event_id is not None and proposed.against_event_id not in state.events:
        raise Rejected(
            "appeal.target_missing", "payload.against_event_id", "no such event in this tournament"
        )
    if proposed.against_event_id is not None:
        for appeal_id, (_, _, against) in state.appeal_parties.items():
            if against == proposed.against_event_id and state.appeals.get(appeal_id):
                # LGC Arbitration: "The appeals committee decision is final."
                raise Rejected(
                    "appeal.final",
                    "payload.against_event_id",
                    f"appeal {appeal_id!r} against that event was decided: the appeals "
                    "committee's decision is final (LGC Arbitration)",
                )
    if proposed.game_id is not None:
        game = _game(state, proposed.game_id)
        _player_in_game(game, proposed.filed_by)
        if game.status == "ended" and proposed.filed_by not in game.protests:
            raise Rejected(
                "appeal.no_protest",
                "payload.filed_by",
                f"{proposed.filed_by} did not state that {game.game_id} was played under "
                'protest before its result: LGC Arbitration "Failure to do so means that the '
                'player gives up the right to appeal"',
            )
    return [proposed]


@rule(ev.AppealDecided)
def _(proposed: ev.AppealDecided, state: TournamentState) -> list[ev.Event]:
    if proposed.appeal_id not in state.appeals:
        raise Rejected("appeal.unknown", "payload.appeal_id", f"no appeal {proposed.appeal_id!r}")
    if state.appeals[proposed.appeal_id]:
        # LGC Arbitration: "The appeals committee decision is final."
        raise Rejected("appeal.already_decided", "payload.appeal_id", "the decision is final")
    if state.committee is None:
        return [proposed]  # no committee on record (e.g. chess): the decision as entered
    if proposed.decision == "adjourned":
        if proposed.committee:
            raise Rejected(
                "appeal.adjourned_with_committee",
                "payload.committee",
                "an adjournment is for when no committee can be formed (LGC Appeals committee)",
            )
        return [proposed]
    members, reserves = state.committee
    filed_by, game_id, _ = state.appeal_parties[proposed.appeal_id]
    parties = {filed_by}
    if game_id is not None and game_id in state.games:
        parties |= {state.games[game_id].white, state.games[game_id].black}
    for i, person in enumerate(proposed.committee):
        if person in parties:
            # LGC Arbitration: "If a dispute involves a player who is also a member of the
            # appeals committee, then that player must not participate in the resolution".
            raise Rejected(
                "appeal.member_is_party",
                f"payload.committee[{i}]",
                f"{person} is party to the dispute and must not participate in its resolution",
            )
        if person not in members and person not in reserves and person not in proposed.co_opted:
            raise Rejected(
                "appeal.not_a_member",
                f"payload.committee[{i}]",
                f"{person} is neither a member, a reserve nor a co-opted player",
            )
    for i, pid in enumerate(proposed.co_opted):
        _known_player(state, pid, f"payload.co_opted[{i}]")
        if pid not in proposed.committee:
            raise Rejected(
                "appeal.co_opted_absent", f"payload.co_opted[{i}]", f"{pid} is not on the committee"
            )
    if len(set(proposed.committee)) != len(proposed.committee):
        raise Rejected("appeal.member_twice", "payload.committee", "a person sits once")
    if len(proposed.committee) < 3 and not proposed.quorum_note.strip():
        raise Rejected(
            "appeal.committee_short",
            "payload.committee",
            'the committee is three persons: "If there are fewer than three at the time of a '
            'dispute, then other players must be co-opted"; fewer only when it cannot meet in '
            "time before the next round (then state it in quorum_note)",
        )
    if len(proposed.committee) > 3:
        raise Rejected("appeal.committee_large", "payload.committee", "three persons decide")
    return [proposed]


@rule(ev.AppealsCommitteeFormed)
def _(proposed: ev.AppealsCommitteeFormed, state: TournamentState) -> list[ev.Event]:
    """LGC Arbitration "Appeals committee": "formed of three persons before the start of the
    first round and includes reserves"."""
    if state.committee is not None:
        raise Rejected("committee.exists", "type", "the appeals committee is already formed")
    started = [g.game_id for g in state.games.values() if g.status != "scheduled"]
    if started:
        raise Rejected(
            "committee.after_start",
            "type",
            f"the committee is formed before the first round starts ({started[0]} has started)",
        )
    people = [*proposed.members, *proposed.reserves]
    if len(set(people)) != len(people):
        raise Rejected("committee.repeated", "payload.members", "a person is named twice")
    return [proposed]


@rule(ev.ProtestStated)
def _(proposed: ev.ProtestStated, state: TournamentState) -> list[ev.Event]:
    """LGC Arbitration "Player responsibility": the protest is stated before the result is
    signed (recorded)."""
    game = _game_in_progress(state, proposed.game_id)
    _player_in_game(game, proposed.player_id)
    if proposed.player_id in game.protests:
        raise Rejected("protest.duplicate", "payload.player_id", "already stated")
    return [proposed]


@rule(ev.ColourErrorNoticed)
def _(proposed: ev.ColourErrorNoticed, state: TournamentState) -> list[ev.Event]:
    """LGC Irregularities "Colour or handicap error": noticed "before the third move is
    completed" (fewer than three moves in force) the game is restarted; later, "the game
    continues and the pairing is modified to reflect the actual colours or handicap used"."""
    game, go = _go_game(state, proposed.game_id)
    _player_in_game(game, proposed.black)
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
    game, go = _go_game(state, proposed.game_id)
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
        _player_in_game(game, proposed.disturbed_by)
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


#: TCEC Swiss 7.c (= Cup 7.c, FRD 7.c): "Whether a game is immediately restarted or played
#: rather at the end of the round will be decided by the responsible TCEC staff."
RESTART_WHEN = ("now", "end_of_round")


def _restart_ruling(proposed: ev.RulingIssued, state: TournamentState) -> None:
    """A staff ruling `subject="restart"`, `decision={"game_id": G, "restart_at": "now" |
    "end_of_round"}` on a game a server interruption left to restart (7.b.v)."""
    gid = proposed.decision.get("game_id")
    when = proposed.decision.get("restart_at")
    game = state.games.get(gid) if isinstance(gid, str) else None
    if game is None:
        raise Rejected("ruling.unknown_game", "payload.decision.game_id", f"no game {gid!r}")
    if not game.restart_pending:
        raise Rejected(
            "ruling.no_restart",
            "payload.decision.game_id",
            f"{gid} has no restart adjudication (TCEC Swiss 7.b.v) waiting to be played",
        )
    if when not in RESTART_WHEN:
        raise Rejected(
            "ruling.restart_when",
            "payload.decision.restart_at",
            f"{when!r}: 'now' or 'end_of_round' (TCEC Swiss 7.c: decided by the staff)",
        )


@rule(ev.RulingIssued)
def _(proposed: ev.RulingIssued, state: TournamentState) -> list[ev.Event]:
    if proposed.ruling_id in state.rulings:
        raise Rejected("ruling.duplicate", "payload.ruling_id", f"{proposed.ruling_id!r} exists")
    # The subjects the projections read are a closed set (projections/rulings.py): a decision
    # no projection would read is refused, a ruling without one is a note with a free subject.
    rulings.check(proposed.subject, proposed.decision, state.kind)
    if KEY in proposed.decision:
        # TCEC Swiss 7.d: the ruling must cite the article and name a round in force.
        target = invalidated_round(proposed)
        ref = state.events.get(target) if target is not None else None
        if ref is None or ref.type != "RoundScheduled" or target in state.retracted:
            raise Rejected(
                "ruling.invalid_round",
                f"payload.decision.{KEY}",
                f"a ruling with {KEY} cites {RULE!r} in `rule` and names the event id of a "
                "RoundScheduled in force",
            )
        if state.paused:
            raise Rejected(
                "ruling.tournament_paused",
                f"payload.decision.{KEY}",
                f"{RULE} invalidates pairings made while the tournament was NOT paused",
            )
    if proposed.subject == "restart":
        _restart_ruling(proposed, state)
    if proposed.subject == "tiebreak_edition":  # projections/tiebreaks/editions.py
        edition = proposed.decision.get("edition")
        if edition not in ("fide-2024", "fide-2026"):
            raise Rejected(
                "ruling.unknown_edition",
                "payload.decision.edition",
                f"{edition!r}: the C.07 edition is 'fide-2024' or 'fide-2026'",
            )
    # A correction to the prize or points table is a ruling (projections/prizes/corrections):
    # refuse one the prize projection could not read, rather than let it be skipped later.
    for key, adapter in (("prize_table", _PRIZE_TABLE), ("points_table", _POINTS_TABLE)):
        if proposed.subject == key:
            if key not in proposed.decision:
                raise Rejected("ruling.missing_table", "payload.decision", f"give {{{key!r}: ...}}")
            try:
                adapter.validate_python(proposed.decision[key])
            except ValidationError as exc:
                err = exc.errors()[0]
                loc = ".".join(str(x) for x in err["loc"])
                where = f"payload.decision.{key}" + (f".{loc}" if loc else "")
                raise Rejected("ruling.invalid_table", where, err["msg"]) from None
    order = proposed.decision.get("tiebreak_order")
    if order is not None and (
        not isinstance(order, list) or any(p not in state.players for p in order)
    ):
        raise Rejected(
            "ruling.invalid_order",
            "payload.decision.tiebreak_order",
            "a list of registered player ids, best first",
        )
    return [proposed]


_PRIZE_TABLE: TypeAdapter[ev.PrizeTable] = TypeAdapter(ev.PrizeTable)
_POINTS_TABLE: TypeAdapter[list[Decimal]] = TypeAdapter(list[Annotated[Decimal, Field(ge=0)]])


@rule(ev.TournamentPaused)
def _(proposed: ev.TournamentPaused, state: TournamentState) -> list[ev.Event]:
    if state.paused:
        raise Rejected("tournament.already_paused", "type", "the tournament is already paused")
    return [proposed]


@rule(ev.TournamentResumed)
def _(proposed: ev.TournamentResumed, state: TournamentState) -> list[ev.Event]:
    if not state.paused:
        raise Rejected("tournament.not_paused", "type", "the tournament is not paused")
    return [proposed]


# --- corrections ------------------------------------------------------------------------------


@rule(ev.ResultCorrected)
def _(proposed: ev.ResultCorrected, state: TournamentState) -> list[ev.Event]:
    target = state.events.get(proposed.corrects_event_id)
    field = "payload.corrects_event_id"
    if target is None:
        raise Rejected("correction.target_missing", field, "no such event in this tournament")
    if target.type not in ("GameEnded", "ResultCorrected"):
        raise Rejected("correction.target_not_result", field, f"it is a {target.type}")
    if target.game_id != proposed.game_id:
        raise Rejected(
            "correction.game_mismatch", "payload.game_id", f"that event is for {target.game_id}"
        )
    game = _game(state, proposed.game_id)
    current = game.result
    if current is None or current.event_id != proposed.corrects_event_id:
        raise Rejected(
            "correction.not_current",
            field,
            "that result is no longer in force"
            + (f"; correct {current.event_id} instead" if current is not None else ""),
        )
    if (current.result, current.termination) == (proposed.result, proposed.termination):
        raise Rejected("correction.no_change", "payload.result", "the result is already that")
    return [proposed]


# An unwound illegal move and a resumed play are facts of the game's record: play went on
# from them, so they are not retracted (LGC Irregularities: the moves after are new moves).
_NOT_RETRACTABLE = (
    "TournamentCreated",
    "SeriesCreated",
    "EventRetracted",
    "IllegalMoveNoticed",
    "GoStatusDisputed",
)


@rule(ev.EventRetracted)
def _(proposed: ev.EventRetracted, state: TournamentState) -> list[ev.Event]:
    field = "payload.retracted_event_id"
    tid = proposed.retracted_event_id
    target = state.events.get(tid)
    if target is None:
        raise Rejected("retraction.target_missing", field, "no such event in this tournament")
    if tid in state.retracted:
        raise Rejected("retraction.already_retracted", field, "that event is already retracted")
    if target.type in _NOT_RETRACTABLE:
        raise Rejected("retraction.not_retractable", field, f"a {target.type} cannot be retracted")
    game = state.games.get(target.game_id) if target.game_id is not None else None
    if target.type == "MovePlayed" and game is not None:
        if game.status == "ended":
            raise Rejected("retraction.game_ended", field, "correct the result first")
        if not game.move_event_ids or game.move_event_ids[-1] != tid:
            raise Rejected(
                "retraction.not_last_move", field, "moves are unwound from the last one back"
            )
    if target.type == "GameStarted" and game is not None and game.moves:
        raise Rejected("retraction.game_has_moves", field, "retract the moves first")
    invalidated = tid in state.invalidations.values()  # TCEC Swiss 7.d
    if target.type == "RoundScheduled" and target.round_key is not None and not invalidated:
        for gid in state.rounds.get(target.round_key, []):
            if state.games[gid].status != "scheduled":
                raise Rejected(
                    "retraction.round_in_play", field, f"game {gid} has started or ended"
                )
    if target.type == "PlayerRegistered" and target.player_id is not None:
        for key in state.rounds:
            if state.player_in_round(key, target.player_id):
                raise Rejected(
                    "retraction.player_paired", field, f"{target.player_id} is in round {key}"
                )
    return [proposed]
