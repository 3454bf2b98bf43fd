"""The fold: apply one recorded event to the tournament state.

`evolve` never fails on a historical event (Commanded's rule): anything the decider would have
refused is ignored here, so an old log with a questionable event still replays.

The standings fold (`projections/standings/state.py`) keeps the same facts in force (games and
their players, results, moves, registrations, withdrawals) and must read every log the same
way; `tests/unit/projections/test_folds_agree.py` checks that on generated logs, odd ones included.
Where
the two once differed, the reading is the decider's: an event the decider refuses has no
effect, and retracting an event that had no effect undoes nothing. So a repeated
`RoundScheduled` of a round in force, a second registration of a player, a withdrawal of an
unknown or withdrawn player and a `GameStarted` of a game not "scheduled" are ignored, and
their retraction touches nothing.

Two folds, on purpose. This one keeps what the decider's checks need, indexed for them (rounds
by (stage, round), a reference to every event by id for corrections and retractions, each
game's chess board, endings adjudicator and Go board, appeals, rulings, pauses); the standings
fold keeps what the documents need (pair ids, openings, cycles, seeds and titles, each move's
`MovePlayed`, clock readings, lots and rulings, the seq of each result), indexed by event id.
One fold holding both would carry the other's weight on each hot path (this fold runs per
command, the standings fold per published event); a tournament with a playoff keeps both
(`TournamentState.standings`). Where the two apply the same reading to their own records (the
games a round adds, the moves in force after a retraction or an unwind) the code has one home,
`projections/facts.py`; the rest of the shared reading is written against each fold's records
and held together by `test_folds_agree.py`.

Each event type's undo (what an `EventRetracted` naming an event of that type takes back) is
registered with `@_undoes(T)` right below T's apply, so a new event type is one place here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from functools import singledispatch
from uuid import UUID

import chess

from events_schema import events as ev
from events_schema.registry import Recorded, Unreadable
from projections.endings.adjudicator import MoveFacts
from projections.facts import keep_moves, retract_last_move, schedule_games
from projections.standings.state import StandingsState
from projections.standings.state import evolve as evolve_standings
from projections.tournament.endings import new_adjudicator, time_control_of
from projections.tournament.go_play import GoGame
from projections.tournament.invalidation import invalidated_round
from projections.tournament.state import (
    EventRef,
    GameState,
    PlayerState,
    ResultEntry,
    TournamentState,
)

#: The presets whose rules have a playoff machine (`projections.playoffs.EVENT_MACHINES` and
#: the GCT tour playoff): their tournaments keep the standings fold beside the decider's state,
#: for the playoff guards (projections/tournament/playoff_guards.py). Written out so that a fold
#: imports no machine; tests/unit/projections/tournament/test_decider_playoff_guards.py checks it
#: against the machines.
PLAYOFF_PRESETS = frozenset(
    {
        "gct",
        "gct-rapid-blitz",
        "gct-classical",
        "gct-tour-playoff",
        "tcec-premier",
        "tcec-cup",
        "tcec-superfinal",
        "tcec-frd-final",
        "tcec-4k-minifinal",
    }
)


def evolve(state: TournamentState, rec: Recorded) -> TournamentState:
    env = rec.envelope
    if env.seq <= state.seq:  # redelivery: already applied
        return state
    state.stream_id = env.tournament_id
    state.seq = env.seq
    state.events[env.event_id] = EventRef(seq=env.seq, type=env.type)
    _apply(rec.event, state, rec)
    # A tournament with a playoff keeps the standings fold beside (the playoff guards read it):
    # created with the tournament, then one incremental step per event.
    created = state.created
    if state.standings is None and created is not None and created.rules_preset in PLAYOFF_PRESETS:
        state.standings = StandingsState()
    if state.standings is not None:
        evolve_standings(state.standings, rec)
    return state


def fold(records: Iterable[Recorded], state: TournamentState | None = None) -> TournamentState:
    state = state if state is not None else TournamentState()
    for rec in records:
        evolve(state, rec)
    return state


@singledispatch
def _apply(event: ev.Event, state: TournamentState, rec: Recorded) -> None:
    """Events with no effect on the decider's state (lots, clocks, crashes, …)."""


#: How an `EventRetracted` undoes an earlier event of a type: (state, the retracted event's
#: reference, its event id). Each undo is registered with `@_undoes(T)` beside T's apply; a
#: type without one has nothing to undo (its retraction is only noted in `state.retracted`).
_Undo = Callable[[TournamentState, EventRef, UUID], None]
_UNDO: dict[str, _Undo] = {}


def _undoes(*event_types: type[ev.Event]) -> Callable[[_Undo], _Undo]:
    def register(fn: _Undo) -> _Undo:
        for t in event_types:
            _UNDO[t.event_type] = fn
        return fn

    return register


@_apply.register
def _(event: ev.SeriesCreated, state: TournamentState, rec: Recorded) -> None:
    if state.kind == "none":
        state.kind = "series"


@_apply.register
def _(event: ev.TournamentCreated, state: TournamentState, rec: Recorded) -> None:
    if state.kind == "none":
        state.kind = "tournament"
        state.created = event


@_apply.register
def _(event: ev.PlayerRegistered, state: TournamentState, rec: Recorded) -> None:
    if event.player_id in state.players:  # decider: player.duplicate
        return
    state.events[rec.envelope.event_id].player_id = event.player_id
    state.players[event.player_id] = PlayerState(
        player_id=event.player_id,
        name=event.name,
        kind=event.kind,
        rating=event.rating,
        registered_by=rec.envelope.event_id,
        go_rank=event.go_rank,
    )


@_undoes(ev.PlayerRegistered)
def _(state: TournamentState, target: EventRef, tid: UUID) -> None:
    player = state.players.get(target.player_id) if target.player_id is not None else None
    if player is not None and player.registered_by == tid:
        state.players.pop(player.player_id)


@_apply.register
def _(event: ev.PlayerWithdrew, state: TournamentState, rec: Recorded) -> None:
    player = state.players.get(event.player_id)
    if player is None or player.withdrawn:  # decider: player.unknown / player.withdrawn
        return
    state.events[rec.envelope.event_id].player_id = event.player_id
    player.withdrawn = True
    player.withdrawn_from_round = event.from_round
    player.withdrawn_by = rec.envelope.event_id


@_undoes(ev.PlayerWithdrew)
def _(state: TournamentState, target: EventRef, tid: UUID) -> None:
    player = state.players.get(target.player_id) if target.player_id is not None else None
    if player is not None and player.withdrawn_by == tid:
        player.withdrawn = False
        player.withdrawn_from_round = None
        player.withdrawn_by = None


@_apply.register
def _(event: ev.RoundScheduled, state: TournamentState, rec: Recorded) -> None:
    key = (event.stage, event.round)
    if key in state.rounds:  # decider: round.duplicate
        return
    state.events[rec.envelope.event_id].round_key = key

    def game(p: ev.Pairing) -> GameState:
        return GameState(
            game_id=p.game_id,
            stage=event.stage,
            round=event.round,
            white=p.white,
            black=p.black,
            time_control=p.time_control,
            scheduled_by=rec.envelope.event_id,
            # LGC: in an even Go game Black plays first; chess: White.
            first_to_move="black" if state.game_kind == "go" else "white",
            scheduled_at=event.scheduled_at,
            handicap=p.handicap,
        )

    state.rounds[key] = schedule_games(event, state.games, game)
    state.byes[key] = [b.player_id for b in event.byes]


@_undoes(ev.RoundScheduled)
def _(state: TournamentState, target: EventRef, tid: UUID) -> None:
    if target.round_key is not None:
        for gid in state.rounds.pop(target.round_key, []):
            state.games.pop(gid, None)
        state.byes.pop(target.round_key, None)


@_apply.register
def _(event: ev.GameStarted, state: TournamentState, rec: Recorded) -> None:
    game = state.games.get(event.game_id)
    if game is None or game.status != "scheduled":  # decider: game.already_started
        return
    state.events[rec.envelope.event_id].game_id = event.game_id
    _start(state, game, event)


@_undoes(ev.GameStarted)
def _(state: TournamentState, target: EventRef, tid: UUID) -> None:
    game = _game_of(state, target)
    if game is not None and not game.moves:
        game.started = False
        game.board = None
        game.go = None
        game.first_to_move = "black" if state.game_kind == "go" else "white"


def _game_of(state: TournamentState, target: EventRef) -> GameState | None:
    """The game a retracted event was noted for, if the game is still in the state."""
    return state.games.get(target.game_id) if target.game_id is not None else None


def _start(state: TournamentState, game: GameState, event: ev.GameStarted) -> None:
    game.started = True
    if state.game_kind == "chess":
        try:
            # A FEN start may be a Chess960 (FRC/DFRC, TCEC FRD) position: its castling
            # rights only survive in chess960 mode.
            game.board = chess.Board(event.fen, chess960=True) if event.fen else chess.Board()
        except ValueError:
            game.board = None
        game.first_to_move = (
            "black" if game.board is not None and game.board.turn == chess.BLACK else "white"
        )
        game.start_fen = event.fen
        game.facts = []
        game.clock_reports = []
        game.adjudicator = new_adjudicator(state, game)
    else:
        # LGC / Japanese convention: with handicap stones White moves first, else Black.
        handicap = event.handicap or game.handicap  # 0: as the pairing says
        game.first_to_move = "white" if handicap >= 2 else "black"
        size = state.created.board_size if state.created is not None else 19
        try:
            game.go = GoGame.start(size, handicap, time_control_of(state, game))
        except ValueError:  # a handicap without fixed points on this size: no board kept
            game.go = None


@_apply.register
def _(event: ev.MovePlayed, state: TournamentState, rec: Recorded) -> None:
    game = state.games.get(event.game_id)
    if game is None:
        return
    state.events[rec.envelope.event_id].game_id = event.game_id
    if not game.started:  # a move implies the game started
        _start(state, game, ev.GameStarted(game_id=event.game_id))
    if game.board is not None and event.uci is not None:
        try:
            game.board.push(game.board.parse_uci(event.uci))
        except (ValueError, AssertionError):
            game.board = None  # a historical oddity: stop tracking the position
    if event.uci is not None and state.game_kind == "chess":
        facts = MoveFacts.of(event)
        game.facts.append(facts)
        if game.adjudicator is not None:
            try:
                game.adjudicator.push_facts(facts)
            except ValueError:  # ended already (an overruled ending) or illegal: stop
                game.adjudicator = None
    if game.go is not None and event.point is not None:
        game.go.play(event.point, event.move_time_ms, event.clock_ms)
    game.moves.append(event.uci or event.point or "?")
    game.move_event_ids.append(rec.envelope.event_id)
    game.restart_pending = False  # play went on (a 7.b.v restart was played)


@_undoes(ev.MovePlayed)
def _(state: TournamentState, target: EventRef, tid: UUID) -> None:
    game = _game_of(state, target)
    if game is not None and retract_last_move(game.move_event_ids, tid, game.moves):
        if game.board is not None and game.board.move_stack:
            game.board.pop()
        if game.facts:
            game.facts.pop()
            n = len(game.facts)
            game.clock_reports = [r for r in game.clock_reports if r[0] <= n]
            game.adjudicator = new_adjudicator(state, game, game.facts, game.clock_reports)
        if game.go is not None:
            game.go.rebuild(game.moves)


def _restart(game: GameState, go: GoGame) -> None:
    """The game starts afresh (LGC Irregularities: a colour or handicap error noticed early,
    or "cancel the game and start afresh"): no move, resumption, ruling or edit in force."""
    keep_moves(0, game.move_event_ids, game.moves)
    go.resumptions, go.stood, go.edits = [], {}, []
    go.rebuild([])


def _go_of(state: TournamentState, rec: Recorded, game_id: str) -> tuple[GameState, GoGame] | None:
    """The Go game an event names, with its board (None: no such game, or not started), the
    event noted as the game's."""
    game = state.games.get(game_id)
    if game is None or game.go is None:
        return None
    state.events[rec.envelope.event_id].game_id = game_id
    return game, game.go


@_apply.register
def _(event: ev.IllegalMoveNoticed, state: TournamentState, rec: Recorded) -> None:
    """LGC Irregularities "Illegal move": unwound (the moves from the illegal one on are no
    longer in force) or noted as standing."""
    found = _go_of(state, rec, event.game_id)
    if found is None or not 1 <= event.ply <= len(found[0].moves):
        return
    game, go = found
    if event.unwound:
        keep_moves(event.ply - 1, game.move_event_ids, game.moves)
        go.rebuild(game.moves)
    else:
        go.stood[event.ply] = event.rule or "stands"


@_apply.register
def _(event: ev.GoStatusDisputed, state: TournamentState, rec: Recorded) -> None:
    """LGC Timing "Ending the game" 6: play resumes, Black first."""
    if (found := _go_of(state, rec, event.game_id)) is not None:
        game, go = found
        go.resumptions.append(len(game.moves))


@_apply.register
def _(event: ev.ClockPaused, state: TournamentState, rec: Recorded) -> None:
    if (found := _go_of(state, rec, event.game_id)) is not None:
        found[1].clock_paused = True


@_apply.register
def _(event: ev.ClockResumed, state: TournamentState, rec: Recorded) -> None:
    if (found := _go_of(state, rec, event.game_id)) is not None:
        found[1].clock_paused = False


@_apply.register
def _(event: ev.ClockSet, state: TournamentState, rec: Recorded) -> None:
    if (found := _go_of(state, rec, event.game_id)) is not None:
        game, go = found
        go.set_clock(
            len(game.moves),
            event.white_ms,
            event.black_ms,
            event.white_periods,
            event.black_periods,
        )


@_apply.register
def _(event: ev.ClockReported, state: TournamentState, rec: Recorded) -> None:
    """Chess: both clocks as reported, known again for the endings by rule (a move without
    timing had made its mover's clock unknown: `projections/endings/clock.py`)."""
    game = state.games.get(event.game_id)
    if game is None or state.game_kind != "chess" or not game.started:
        return
    game.clock_reports.append((len(game.facts), event.white_ms, event.black_ms))
    if game.adjudicator is not None:
        game.adjudicator.report_clocks(event.white_ms, event.black_ms)


@_apply.register
def _(event: ev.ClockStarted, state: TournamentState, rec: Recorded) -> None:
    game = state.games.get(event.game_id)
    if game is not None:
        state.events[rec.envelope.event_id].game_id = event.game_id
        game.clock_started_at = event.at


@_apply.register
def _(event: ev.RoundSkipped, state: TournamentState, rec: Recorded) -> None:
    state.events[rec.envelope.event_id].player_id = event.player_id
    state.skipped.setdefault((event.round, event.player_id), rec.envelope.event_id)


@_undoes(ev.RoundSkipped)
def _(state: TournamentState, target: EventRef, tid: UUID) -> None:
    state.skipped = {k: v for k, v in state.skipped.items() if v != tid}


def _set_result(
    state: TournamentState,
    rec: Recorded,
    game_id: str,
    result: ev.Result,
    term: ev.Termination,
    rule: str | None = None,
) -> None:
    game = state.games.get(game_id)
    if game is None:
        return
    state.events[rec.envelope.event_id].game_id = game_id
    game.results.append(ResultEntry(rec.envelope.event_id, result, term, rule))
    # A finished game's board is read again only by a correction or a retraction of its
    # result: parked, so a long import's memory does not grow by a move stack per game.
    game.park_board()


@_apply.register
def _(event: ev.GameEnded, state: TournamentState, rec: Recorded) -> None:
    _set_result(state, rec, event.game_id, event.result, event.termination, event.rule)


@_apply.register
def _(event: ev.ResultCorrected, state: TournamentState, rec: Recorded) -> None:
    _set_result(state, rec, event.game_id, event.result, event.termination)


@_undoes(ev.GameEnded, ev.ResultCorrected)
def _(state: TournamentState, target: EventRef, tid: UUID) -> None:
    game = _game_of(state, target)
    if game is not None:
        game.results = [r for r in game.results if r.event_id != tid]
        if game.adjudicator is not None and game.adjudicator.ending is not None:
            game.adjudicator = None  # an overruled ending: this game's endings are by hand now


@_apply.register
def _(event: ev.SanctionIssued, state: TournamentState, rec: Recorded) -> None:
    ref = state.events[rec.envelope.event_id]
    ref.game_id, ref.player_id, ref.level = event.game_id, event.player_id, event.level
    if event.game_id is not None and event.level == "warning":
        game = state.games.get(event.game_id)
        if game is not None:
            game.warnings[event.player_id] = game.warnings.get(event.player_id, 0) + 1


@_undoes(ev.SanctionIssued)
def _(state: TournamentState, target: EventRef, tid: UUID) -> None:
    game = _game_of(state, target)
    if target.level == "warning" and game is not None and target.player_id is not None:
        game.warnings[target.player_id] = max(0, game.warnings.get(target.player_id, 0) - 1)


@_apply.register
def _(event: ev.AppealFiled, state: TournamentState, rec: Recorded) -> None:
    if event.appeal_id not in state.appeals:
        state.appeals[event.appeal_id] = False
        state.appeal_parties[event.appeal_id] = (
            event.filed_by,
            event.game_id,
            event.against_event_id,
        )


@_apply.register
def _(event: ev.AppealDecided, state: TournamentState, rec: Recorded) -> None:
    # An adjournment is not a decision (LGC Appeals committee): one follows.
    if event.appeal_id in state.appeals and event.decision != "adjourned":
        state.appeals[event.appeal_id] = True


@_apply.register
def _(event: ev.AppealsCommitteeFormed, state: TournamentState, rec: Recorded) -> None:
    if state.committee is None:
        state.committee = (list(event.members), list(event.reserves))


@_apply.register
def _(event: ev.ProtestStated, state: TournamentState, rec: Recorded) -> None:
    game = state.games.get(event.game_id)
    if game is not None:
        state.events[rec.envelope.event_id].game_id = event.game_id
        game.protests.add(event.player_id)


@_apply.register
def _(event: ev.ColourErrorNoticed, state: TournamentState, rec: Recorded) -> None:
    """LGC Irregularities "Colour or handicap error": restart, or amend the pairing."""
    paired = state.games.get(event.game_id)
    if paired is None or event.black not in (paired.white, paired.black):
        return
    found = _go_of(state, rec, event.game_id)
    if found is None:
        return
    game, go = found
    if event.restarted:
        _restart(game, go)
        return
    if event.black != game.black:
        game.white, game.black = game.black, game.white
    if event.handicap != go.handicap:
        amended = dataclasses.replace(go, handicap=event.handicap)
        try:
            amended.rebuild(game.moves)
        except ValueError:
            return
        game.go = amended
        game.first_to_move = "white" if event.handicap >= 2 else "black"


@_apply.register
def _(event: ev.PositionDisturbed, state: TournamentState, rec: Recorded) -> None:
    """LGC Irregularities "Position disturbance" 2, 3, 5 change the record (1 keeps it, 4
    ends the game by its GameEnded)."""
    found = _go_of(state, rec, event.game_id)
    if found is None:
        return
    game, go = found
    if event.procedure == "unwind" and event.to_ply is not None:
        keep_moves(event.to_ply, game.move_event_ids, game.moves)
        go.rebuild(game.moves)
    elif event.procedure == "restart":
        _restart(game, go)
        if event.time_control is not None:
            game.time_control = event.time_control
    elif event.procedure == "continue":
        go.edit(len(game.moves), event.added_black, event.added_white, event.removed)


@_apply.register
def _(event: ev.AdjudicationIssued, state: TournamentState, rec: Recorded) -> None:
    game = state.games.get(event.game_id)
    if game is not None and event.outcome == "restart":  # TCEC Swiss 7.b.v
        game.restart_pending, game.restart_at = True, None


@_apply.register
def _(event: ev.RulingIssued, state: TournamentState, rec: Recorded) -> None:
    state.rulings.add(event.ruling_id)
    if event.subject == "restart" and isinstance(event.decision.get("game_id"), str):
        game = state.games.get(event.decision["game_id"])
        if game is not None and game.restart_pending:  # TCEC Swiss 7.c
            game.restart_at = str(event.decision.get("restart_at"))
    target = invalidated_round(event)
    if target is not None:
        state.invalidations[rec.envelope.event_id] = target


@_undoes(ev.RulingIssued)
def _(state: TournamentState, target: EventRef, tid: UUID) -> None:
    state.invalidations.pop(tid, None)  # TCEC Swiss 7.d: the round is in force again


@_apply.register
def _(event: ev.TournamentPaused, state: TournamentState, rec: Recorded) -> None:
    state.pauses.append((rec.envelope.event_id, True))


@_apply.register
def _(event: ev.TournamentResumed, state: TournamentState, rec: Recorded) -> None:
    state.pauses.append((rec.envelope.event_id, False))


@_undoes(ev.TournamentPaused, ev.TournamentResumed)
def _(state: TournamentState, target: EventRef, tid: UUID) -> None:
    state.pauses = [p for p in state.pauses if p[0] != tid]


@_apply.register
def _(event: ev.BroadcastDelaySet, state: TournamentState, rec: Recorded) -> None:
    state.broadcast_delay.set(rec.envelope.event_id, event.seconds)


@_undoes(ev.BroadcastDelaySet)
def _(state: TournamentState, target: EventRef, tid: UUID) -> None:
    state.broadcast_delay.retract(tid)


@_apply.register
def _(event: ev.PairingsProhibited, state: TournamentState, rec: Recorded) -> None:
    state.prohibitions[rec.envelope.event_id] = event


@_undoes(ev.PairingsProhibited)
def _(state: TournamentState, target: EventRef, tid: UUID) -> None:
    state.prohibitions.pop(tid, None)


@_apply.register
def _(event: ev.AccelerationSet, state: TournamentState, rec: Recorded) -> None:
    state.accelerations[rec.envelope.event_id] = event


@_undoes(ev.AccelerationSet)
def _(state: TournamentState, target: EventRef, tid: UUID) -> None:
    state.accelerations.pop(tid, None)  # the one set before it is in force again


@_apply.register
def _(event: Unreadable, state: TournamentState, rec: Recorded) -> None:
    state.unreadable[rec.envelope.event_id] = (rec.envelope.seq, event.reason)


@_apply.register
def _(event: ev.EventRetracted, state: TournamentState, rec: Recorded) -> None:
    tid = event.retracted_event_id
    target = state.events.get(tid)
    if target is None or tid in state.retracted:
        return
    state.retracted.add(tid)
    # An unreadable event (whatever its stored type) is undone by its retraction: the stream
    # is no longer held by it.
    state.unreadable.pop(tid, None)
    undo = _UNDO.get(target.type)
    if undo is not None:
        undo(state, target, tid)
