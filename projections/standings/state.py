"""The standings fold: what the standings and tiebreaks need from a tournament's events.

It keeps, per game, the results in force (a `ResultCorrected` pushes, an `EventRetracted`
removes) and the moves in force (r-mobility and the average-moves criteria need them), so the
crosstable can always be rebuilt in full from the current facts (lila's "recomputed in full").

The decider's fold (`projections/tournament/evolve.py`) keeps the same facts for its checks;
the two must read every log alike (games and their players, results, moves, registrations and
withdrawals in force), which `tests/unit/projections/test_folds_agree.py` checks on generated logs.
The
reading is the decider's: an event it would refuse (a repeated round, a second registration,
a withdrawal of an unknown or withdrawn player, a start of a game already started or ended)
has no effect here either, and retracting it undoes nothing. Why the two folds stay two (what
each keeps, for whom) is said in `projections/tournament/evolve.py`; the readings both apply to
their own records (the games a round adds, the moves in force) are `projections/facts.py`.
A retraction is undone through the id-keyed index each apply keeps of what its events did
(`result_game`, `move_game`, `start_game`, `registrations`, ...), by an undo registered beside
that apply (`@_undoes`).

Go (LGC rules, McMahon): the fold also keeps each player's `go_rank` (McMahon start scores),
each game's handicap stones from its `GameStarted` (the SOS correction), and the rounds
players skip (`RoundSkipped`, "Top groups" / "Other players"; retractable like any event), as
the decider keeps them: the first notice for a (player, round) is the one in force, a repeat
has no effect.

For the live games document (`projections/live.py`) each game also keeps, beside each move in
force, its `MovePlayed` (clock, engine evaluation, san: a reference, no copy), and the clock
readings in force (`ClockReported`, `ClockSet`). Nothing else is computed here: the board
itself is built lazily by the document builder, off this fold's path.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import singledispatch
from typing import Any
from uuid import UUID

from events_schema import events as ev
from events_schema.registry import Recorded, Unreadable
from projections.facts import keep_moves, retract_last_move, schedule_games


@dataclass
class PlayerInfo:
    player_id: str
    name: str
    rating: int | None
    kind: str
    seed: int | None = None
    title: str | None = None  # FIDE title (C.04.2 initial order)
    go_rank: str | None = None  # Go rank ("5k", "2d"): McMahon start score (LGC, OpenGotha)
    federation: str | None = None
    fide_id: int | None = None  # FIDE id (PlayerRegistered v4), shown in the documents
    club: str | None = None  # the player's club (PlayerRegistered v5): `arbiter players`


@dataclass
class GameRecord:
    game_id: str
    stage: str
    round: int
    cycle: int | None
    white: str
    black: str
    pair_id: str | None
    opening: str | None
    fen: str | None = None
    scheduled_seq: int = 0  # seq of the RoundScheduled that paired it
    started: bool = False  # a GameStarted or a move in force started it
    # (event id, seq, result, termination) in force, oldest first
    results: list[tuple[UUID, int, ev.Result, ev.Termination]] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)
    move_ids: list[UUID] = field(default_factory=list)
    # The MovePlayed of each move in force (parallel to `moves`): clocks, evals, san.
    move_events: list[ev.MovePlayed] = field(default_factory=list)
    # Clock readings in force (ClockReported / ClockSet): (event id, moves in force when
    # read, white ms, black ms), oldest first.
    clock_readings: list[tuple[UUID, int, int, int]] = field(default_factory=list)
    handicap: int = 0  # Go handicap stones: the GameStarted's in force, else the pairing's
    paired_handicap: int = 0  # the RoundScheduled's (Pairing.handicap)
    board: int | None = None  # the board number the pairing gives (Pairing.board)


@dataclass
class ByeRecord:
    player_id: str
    stage: str
    round: int
    kind: str


@dataclass
class StandingsState:
    seq: int = 0
    created: ev.TournamentCreated | None = None
    players: dict[str, PlayerInfo] = field(default_factory=dict)
    registrations: dict[UUID, str] = field(default_factory=dict)
    withdrawals: dict[UUID, tuple[str, int | None]] = field(default_factory=dict)
    games: dict[str, GameRecord] = field(default_factory=dict)
    rounds: dict[UUID, tuple[list[str], list[ByeRecord]]] = field(default_factory=dict)
    round_keys: dict[tuple[str, int], UUID] = field(default_factory=dict)  # (stage, round)
    result_game: dict[UUID, str] = field(default_factory=dict)
    move_game: dict[UUID, str] = field(default_factory=dict)
    start_game: dict[UUID, str] = field(default_factory=dict)
    rulings: dict[UUID, ev.RulingIssued] = field(default_factory=dict)
    lots: dict[UUID, ev.LotDrawn] = field(default_factory=dict)  # in stream order
    # Pairing constraints in force (read by the pairing context): PairingsProhibited and
    # AccelerationSet by event id, in stream order (the latest AccelerationSet is in force).
    prohibitions: dict[UUID, ev.PairingsProhibited] = field(default_factory=dict)
    accelerations: dict[UUID, ev.AccelerationSet] = field(default_factory=dict)
    # TRF26 records an import kept verbatim (TrfRecordsKept), by event id, in stream order.
    kept_records: dict[UUID, ev.TrfRecordsKept] = field(default_factory=dict)
    # Stored events no reader can decode, not retracted: event id -> (seq, type, reason).
    # While any is here the tournament's projections are held (not published).
    unreadable: dict[UUID, tuple[int, str, str]] = field(default_factory=dict)
    # LGC: rounds skipped, RoundSkipped event id -> (player id, round), the first notice for a
    # (player, round) in force (the decider refuses a repeat).
    skipped: dict[UUID, tuple[str, int]] = field(default_factory=dict)
    clock_game: dict[UUID, str] = field(default_factory=dict)  # ClockReported/ClockSet -> game
    # The live games document's cache of boards (`projections.live.BoardCache`), owned by this
    # fold and created on first use; not a fact of the fold (never compared nor folded).
    live: object = field(default=None, compare=False, repr=False)

    def lot(self, subject: str, purpose: str | None = None) -> ev.LotDrawn | None:
        """The lot in force for a subject (the latest, if one was redrawn after a retraction)."""
        found = None
        for lot in self.lots.values():
            if lot.subject == subject and (purpose is None or lot.purpose == purpose):
                found = lot
        return found

    def stage_games(self, stage: str) -> list[GameRecord]:
        return [g for g in self.games.values() if g.stage == stage]

    def skips(self) -> dict[str, frozenset[int]]:
        """Rounds each player skips (LGC; `RoundSkipped` in force), registered players only."""
        out: dict[str, set[int]] = {}
        for pid, rnd in self.skipped.values():
            if pid in self.players:
                out.setdefault(pid, set()).add(rnd)
        return {pid: frozenset(rounds) for pid, rounds in sorted(out.items())}


def evolve(state: StandingsState, rec: Recorded) -> StandingsState:
    env = rec.envelope
    seq = env.seq
    if seq <= state.seq:
        return state  # redelivered: already applied
    state.seq = seq
    event = rec.event
    handler = _HANDLERS.get(event.__class__)
    if handler is None:
        handler = _HANDLERS[event.__class__] = _apply.dispatch(event.__class__)
    handler(event, state, env.event_id, seq)
    return state


def fold(records: list[Recorded] | tuple[Recorded, ...]) -> StandingsState:
    state = StandingsState()
    for rec in records:
        evolve(state, rec)
    return state


@singledispatch
def _apply(event: ev.Event, state: StandingsState, event_id: UUID, seq: int) -> None:
    pass


#: Event class -> its `_apply` handler, as `_apply.dispatch` finds it, kept in a plain dict:
#: `evolve` runs once per stored event and singledispatch's own cache costs about a
#: microsecond a call (issue 27, replay). Every handler is registered below, at import.
_HANDLERS: dict[type, Callable[[Any, StandingsState, UUID, int], None]] = {}


#: What an `EventRetracted` takes back: each apply that leaves a mark keyed by its event id
#: (`registrations`, `rounds`, `result_game`, `move_game`, ...) registers with `@_undoes`,
#: beside it, the undo that finds and removes that mark; a retraction runs them all.
_Undo = Callable[[StandingsState, UUID], None]
_UNDOS: list[_Undo] = []


def _undoes(fn: _Undo) -> _Undo:
    _UNDOS.append(fn)
    return fn


@_apply.register
def _(event: ev.TournamentCreated, state: StandingsState, event_id: UUID, seq: int) -> None:
    if state.created is None:
        state.created = event


@_apply.register
def _(event: ev.PlayerRegistered, state: StandingsState, event_id: UUID, seq: int) -> None:
    if event.player_id not in state.players:
        state.players[event.player_id] = PlayerInfo(
            event.player_id,
            event.name,
            event.rating,
            event.kind,
            event.seed,
            event.title,
            event.go_rank,
            event.federation,
            event.fide_id,
            event.club,
        )
        state.registrations[event_id] = event.player_id


@_undoes
def _(state: StandingsState, target: UUID) -> None:
    if (pid := state.registrations.pop(target, None)) is not None:
        state.players.pop(pid, None)
        # The player is gone, and with them their withdrawal (a new registration starts afresh).
        for wid in [w for w, (p, _) in state.withdrawals.items() if p == pid]:
            del state.withdrawals[wid]


@_apply.register
def _(event: ev.PlayerWithdrew, state: StandingsState, event_id: UUID, seq: int) -> None:
    pid = event.player_id
    if pid in state.players and all(w[0] != pid for w in state.withdrawals.values()):
        state.withdrawals[event_id] = (pid, event.from_round)


@_undoes
def _(state: StandingsState, target: UUID) -> None:
    state.withdrawals.pop(target, None)


@_apply.register
def _(event: ev.RoundScheduled, state: StandingsState, event_id: UUID, seq: int) -> None:
    key = (event.stage, event.round)
    if key in state.round_keys:  # the decider's round.duplicate: no effect
        return
    state.round_keys[key] = event_id

    def game(p: ev.Pairing) -> GameRecord:
        return GameRecord(
            game_id=p.game_id,
            stage=event.stage,
            round=event.round,
            cycle=event.cycle,
            white=p.white,
            black=p.black,
            pair_id=p.pair_id,
            opening=p.opening,
            scheduled_seq=seq,
            handicap=p.handicap,
            paired_handicap=p.handicap,
            board=p.board,
        )

    ids = schedule_games(event, state.games, game)
    byes = [ByeRecord(b.player_id, event.stage, event.round, b.kind) for b in event.byes]
    state.rounds[event_id] = (ids, byes)


@_undoes
def _(state: StandingsState, target: UUID) -> None:
    if target in state.rounds:
        ids, _ = state.rounds.pop(target)
        for gid in ids:
            state.games.pop(gid, None)
        state.round_keys = {k: v for k, v in state.round_keys.items() if v != target}


@_apply.register
def _(event: ev.GameStarted, state: StandingsState, event_id: UUID, seq: int) -> None:
    game = state.games.get(event.game_id)
    if game is not None and not game.started and not game.results:  # decider: "scheduled"
        game.started = True
        game.fen = event.fen
        game.handicap = event.handicap or game.paired_handicap  # 0: as paired
        state.start_game[event_id] = event.game_id


@_undoes
def _(state: StandingsState, target: UUID) -> None:
    game = _game_of(state, state.start_game.pop(target, None))
    if game is not None and not game.moves:  # the decider's retraction.game_has_moves
        game.started = False
        game.fen = None
        game.handicap = game.paired_handicap


def _game_of(state: StandingsState, gid: str | None) -> GameRecord | None:
    """The game a retracted event was for. It may be gone (its round retracted, in a log the
    decider would not have accepted): the fold never fails on history, so each game is
    looked up, not assumed."""
    return state.games.get(gid) if gid is not None else None


@_apply.register
def _(event: ev.MovePlayed, state: StandingsState, event_id: UUID, seq: int) -> None:
    game = state.games.get(event.game_id)
    if game is not None:
        game.started = True  # a move implies the game started
        game.moves.append(event.uci or event.point or "?")
        game.move_ids.append(event_id)
        game.move_events.append(event)
        state.move_game[event_id] = event.game_id


@_undoes
def _(state: StandingsState, target: UUID) -> None:
    if (game := _game_of(state, state.move_game.pop(target, None))) is not None:
        retract_last_move(game.move_ids, target, game.moves, game.move_events)


def _clock(state: StandingsState, eid: UUID, gid: str, white_ms: int, black_ms: int) -> None:
    game = state.games.get(gid)
    if game is not None:
        game.clock_readings.append((eid, len(game.moves), white_ms, black_ms))
        state.clock_game[eid] = gid


@_undoes
def _(state: StandingsState, target: UUID) -> None:
    if (game := _game_of(state, state.clock_game.pop(target, None))) is not None:
        game.clock_readings = [c for c in game.clock_readings if c[0] != target]


@_apply.register
def _(event: ev.ClockReported, state: StandingsState, event_id: UUID, seq: int) -> None:
    _clock(state, event_id, event.game_id, event.white_ms, event.black_ms)


@_apply.register
def _(event: ev.ClockSet, state: StandingsState, event_id: UUID, seq: int) -> None:
    # LGC Irregularities "Timing error" / "Faulty clock": the clocks set to these times.
    _clock(state, event_id, event.game_id, event.white_ms, event.black_ms)


def _truncate(state: StandingsState, game: GameRecord, keep: int) -> None:
    """Only the first `keep` moves stay in force (a Go game unwound or restarted)."""
    for mid in keep_moves(keep, game.move_ids, game.moves, game.move_events):
        state.move_game.pop(mid, None)


@_apply.register
def _(event: ev.IllegalMoveNoticed, state: StandingsState, event_id: UUID, seq: int) -> None:
    # LGC Irregularities "Illegal move": unwound to the position just before it (the decider
    # derives `unwound`).
    game = state.games.get(event.game_id)
    if game is not None and event.unwound and 1 <= event.ply <= len(game.moves):
        _truncate(state, game, event.ply - 1)


@_apply.register
def _(event: ev.ColourErrorNoticed, state: StandingsState, event_id: UUID, seq: int) -> None:
    # LGC Irregularities "Colour or handicap error": a restart, or the pairing amended to the
    # colours and handicap actually used.
    game = state.games.get(event.game_id)
    if game is None or event.black not in (game.white, game.black):
        return
    if event.restarted:
        _truncate(state, game, 0)
        return
    if event.black != game.black:
        game.white, game.black = game.black, game.white
    game.handicap = event.handicap


@_apply.register
def _(event: ev.PositionDisturbed, state: StandingsState, event_id: UUID, seq: int) -> None:
    # LGC Irregularities "Position disturbance" 3 (unwind) and 5 (restart) change the record.
    game = state.games.get(event.game_id)
    if game is None:
        return
    if event.procedure == "unwind" and event.to_ply is not None:
        _truncate(state, game, event.to_ply)
    elif event.procedure == "restart":
        _truncate(state, game, 0)


def _result(
    state: StandingsState, eid: UUID, seq: int, gid: str, r: ev.Result, t: ev.Termination
) -> None:
    game = state.games.get(gid)
    if game is not None:
        game.results.append((eid, seq, r, t))
        state.result_game[eid] = gid


@_apply.register
def _(event: ev.GameEnded, state: StandingsState, event_id: UUID, seq: int) -> None:
    _result(state, event_id, seq, event.game_id, event.result, event.termination)


@_apply.register
def _(event: ev.ResultCorrected, state: StandingsState, event_id: UUID, seq: int) -> None:
    _result(state, event_id, seq, event.game_id, event.result, event.termination)


@_undoes
def _(state: StandingsState, target: UUID) -> None:
    if (game := _game_of(state, state.result_game.pop(target, None))) is not None:
        game.results = [r for r in game.results if r[0] != target]


@_apply.register
def _(event: ev.RoundSkipped, state: StandingsState, event_id: UUID, seq: int) -> None:
    # The decider's reading: the first notice for a (player, round) is in force, a repeat
    # (round.already_skipped) has no effect.
    if (event.player_id, event.round) not in state.skipped.values():
        state.skipped[event_id] = (event.player_id, event.round)


@_undoes
def _(state: StandingsState, target: UUID) -> None:
    state.skipped.pop(target, None)


@_apply.register
def _(event: ev.RulingIssued, state: StandingsState, event_id: UUID, seq: int) -> None:
    state.rulings[event_id] = event


@_undoes
def _(state: StandingsState, target: UUID) -> None:
    state.rulings.pop(target, None)


@_apply.register
def _(event: ev.PairingsProhibited, state: StandingsState, event_id: UUID, seq: int) -> None:
    state.prohibitions[event_id] = event


@_undoes
def _(state: StandingsState, target: UUID) -> None:
    state.prohibitions.pop(target, None)


@_apply.register
def _(event: ev.AccelerationSet, state: StandingsState, event_id: UUID, seq: int) -> None:
    state.accelerations[event_id] = event


@_undoes
def _(state: StandingsState, target: UUID) -> None:
    state.accelerations.pop(target, None)


@_apply.register
def _(event: ev.TrfRecordsKept, state: StandingsState, event_id: UUID, seq: int) -> None:
    state.kept_records[event_id] = event


@_undoes
def _(state: StandingsState, target: UUID) -> None:
    state.kept_records.pop(target, None)


@_apply.register
def _(event: ev.LotDrawn, state: StandingsState, event_id: UUID, seq: int) -> None:
    state.lots[event_id] = event


@_undoes
def _(state: StandingsState, target: UUID) -> None:
    state.lots.pop(target, None)


@_apply.register
def _(event: Unreadable, state: StandingsState, event_id: UUID, seq: int) -> None:
    # Its effect is unknown, so it has none; the tournament is held until it is retracted.
    state.unreadable[event_id] = (seq, event.stored_type, event.reason)


@_undoes
def _(state: StandingsState, target: UUID) -> None:
    state.unreadable.pop(target, None)


@_apply.register
def _(event: ev.EventRetracted, state: StandingsState, event_id: UUID, seq: int) -> None:
    # The retracted event left its mark in one index at most: each undo looks in its own.
    for undo in _UNDOS:
        undo(state, event.retracted_event_id)


def folded_types() -> frozenset[type]:
    """The event types the standings fold reads (every other type leaves its state as it was)."""
    return frozenset(t for t in _apply.registry if t is not object)
