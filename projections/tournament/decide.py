"""The decider: validate a proposed event against the tournament's state.

`decide(state, proposed)` returns the events to append (usually the proposed one, sometimes
with consequences the rules attach to it) or raises `Rejected` naming the rule and the field.
It never mutates the state.
"""

from __future__ import annotations

from decimal import Decimal
from functools import singledispatch
from typing import Annotated

import chess
from pydantic import Field, TypeAdapter, ValidationError
from sgfmill import common as sgf_common

from events_schema import events as ev
from projections.rejection import Rejected
from projections.tiebreaks import validate as validate_chain
from projections.tiebreaks.editions import edition_on
from projections.tiebreaks.presets import PRESETS
from projections.tournament.endings import ending_after, game_ended, interruption_adjudication
from projections.tournament.invalidation import KEY, RULE, invalidated_round
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
    return _decide(proposed, state)


@singledispatch
def _decide(proposed: ev.Event, state: TournamentState) -> list[ev.Event]:
    return [proposed]


# --- creation and registration ---------------------------------------------------------------


def _refuse_recreation(state: TournamentState) -> None:
    if state.kind != "none":
        raise Rejected("stream.already_created", "type", f"{state.stream_id} already exists")


@_decide.register
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


@_decide.register
def _(proposed: ev.SeriesCreated, state: TournamentState) -> list[ev.Event]:
    _refuse_recreation(state)
    return [proposed]


def _known_player(state: TournamentState, player_id: str, field: str) -> None:
    if player_id not in state.players:
        raise Rejected("player.unknown", field, f"no player {player_id!r} is registered")


@_decide.register
def _(proposed: ev.PlayerRegistered, state: TournamentState) -> list[ev.Event]:
    if proposed.player_id in state.players:
        raise Rejected(
            "player.duplicate", "payload.player_id", f"{proposed.player_id!r} already registered"
        )
    return [proposed]


@_decide.register
def _(proposed: ev.PlayerWithdrew, state: TournamentState) -> list[ev.Event]:
    _known_player(state, proposed.player_id, "payload.player_id")
    if state.players[proposed.player_id].withdrawn:
        raise Rejected("player.withdrawn", "payload.player_id", "already withdrawn")
    return [proposed]


@_decide.register
def _(proposed: ev.LotDrawn, state: TournamentState) -> list[ev.Event]:
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


@_decide.register
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


@_decide.register
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
    return [proposed]


@_decide.register
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
    return [_go_move(state, proposed)]


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
    if proposed.point.lower() != "pass":
        size = state.created.board_size if state.created is not None else 19
        try:
            sgf_common.move_from_vertex(proposed.point, size)
        except ValueError as exc:
            raise Rejected(
                "move.bad_point", "payload.point", f"{exc} (board {size}x{size})"
            ) from None
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


@_decide.register
def _(proposed: ev.GameEnded, state: TournamentState) -> list[ev.Event]:
    _game_in_progress(state, proposed.game_id)
    if proposed.go_score is not None and state.game_kind != "go":
        raise Rejected("game.wrong_kind", "payload.go_score", "a territory score is for Go games")
    return [proposed]


@_decide.register
def _(proposed: ev.ClockReported, state: TournamentState) -> list[ev.Event]:
    _game_in_progress(state, proposed.game_id)
    return [proposed]


@_decide.register
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


@_decide.register
def _(proposed: ev.EngineCrashed, state: TournamentState) -> list[ev.Event]:
    _player_in_game(_game(state, proposed.game_id), proposed.player_id)
    return [proposed]


@_decide.register
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


@_decide.register
def _(proposed: ev.SanctionIssued, state: TournamentState) -> list[ev.Event]:
    _known_player(state, proposed.player_id, "payload.player_id")
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
    return out


@_decide.register
def _(proposed: ev.AppealFiled, state: TournamentState) -> list[ev.Event]:
    if proposed.appeal_id in state.appeals:
        raise Rejected("appeal.duplicate", "payload.appeal_id", f"{proposed.appeal_id!r} exists")
    _known_player(state, proposed.filed_by, "payload.filed_by")
    if proposed.against_event_id is not None and proposed.against_event_id not in state.events:
        raise Rejected(
            "appeal.target_missing", "payload.against_event_id", "no such event in this tournament"
        )
    return [proposed]


@_decide.register
def _(proposed: ev.AppealDecided, state: TournamentState) -> list[ev.Event]:
    if proposed.appeal_id not in state.appeals:
        raise Rejected("appeal.unknown", "payload.appeal_id", f"no appeal {proposed.appeal_id!r}")
    if state.appeals[proposed.appeal_id]:
        # LGC Arbitration: "The appeals committee decision is final."
        raise Rejected("appeal.already_decided", "payload.appeal_id", "the decision is final")
    return [proposed]


@_decide.register
def _(proposed: ev.RulingIssued, state: TournamentState) -> list[ev.Event]:
    if proposed.ruling_id in state.rulings:
        raise Rejected("ruling.duplicate", "payload.ruling_id", f"{proposed.ruling_id!r} exists")
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


@_decide.register
def _(proposed: ev.TournamentPaused, state: TournamentState) -> list[ev.Event]:
    if state.paused:
        raise Rejected("tournament.already_paused", "type", "the tournament is already paused")
    return [proposed]


@_decide.register
def _(proposed: ev.TournamentResumed, state: TournamentState) -> list[ev.Event]:
    if not state.paused:
        raise Rejected("tournament.not_paused", "type", "the tournament is not paused")
    return [proposed]


# --- corrections ------------------------------------------------------------------------------


@_decide.register
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


_NOT_RETRACTABLE = ("TournamentCreated", "SeriesCreated", "EventRetracted")


@_decide.register
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
