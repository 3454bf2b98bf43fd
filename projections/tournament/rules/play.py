"""The decider's rules for play, chess and what both games share: a game started, a move (a Go
move is then judged by `rules/go.py`), a result, clock reports, interruptions, crashes and
adjudications, with the endings by rule they bring (`projections/tournament/endings.py`)."""

from __future__ import annotations

import chess

from events_schema import events as ev
from projections.endings.interruptions import crash_ending
from projections.rejection import Rejected
from projections.tournament.endings import ending_after, game_ended, interruption_adjudication
from projections.tournament.rules import go
from projections.tournament.rules.consistency import check_result
from projections.tournament.rules.lookups import (
    find_game,
    game_in_progress,
    not_paused,
    player_in_game,
)
from projections.tournament.rules.registry import rule
from projections.tournament.state import GameState, TournamentState


@rule(ev.GameStarted)
def _(proposed: ev.GameStarted, state: TournamentState) -> list[ev.Event]:
    game = find_game(state, proposed.game_id)
    not_paused(state, "game starts")
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
    game = find_game(state, proposed.game_id)
    not_paused(state, "moves")
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
    return go.play_move(state, game, proposed)


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


@rule(ev.GameEnded)
def _(proposed: ev.GameEnded, state: TournamentState) -> list[ev.Event]:
    game = game_in_progress(state, proposed.game_id)
    if proposed.go_score is not None and state.game_kind != "go":
        raise Rejected("game.wrong_kind", "payload.go_score", "a territory score is for Go games")
    check_result(state, game, proposed.result, proposed.termination, proposed.go_score)
    return [proposed]


@rule(ev.ClockReported)
def _(proposed: ev.ClockReported, state: TournamentState) -> list[ev.Event]:
    game_in_progress(state, proposed.game_id)
    return [proposed]


@rule(ev.ServerInterrupted)
def _(proposed: ev.ServerInterrupted, state: TournamentState) -> list[ev.Event]:
    """TCEC Swiss 7.b / Leagues 14 (ii–v, each event's own wording): with endings by rule the
    interruption brings its adjudication (and, with a result, the GameEnded) in the same
    batch; iv without 7-man tables awaits a tablebase ruling (nothing more is appended)."""
    game = game_in_progress(state, proposed.game_id)
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


@rule(ev.EngineCrashed)
def _(proposed: ev.EngineCrashed, state: TournamentState) -> list[ev.Event]:
    """TCEC Swiss 7.a / Leagues 14.2: "crashes are counted as losses" — with endings by rule
    and a preset with the crash rule, the loss is appended with the crash (the organisers may
    decide otherwise, tcec-rules 0.0: a ResultCorrected or a retraction overrules it)."""
    game = find_game(state, proposed.game_id)
    player_in_game(game, proposed.player_id)
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
    game_in_progress(state, proposed.game_id)
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
