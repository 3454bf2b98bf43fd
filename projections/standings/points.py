"""Points fold: exact scores (integer half-points) under the tournament's `Scoring`.

Results in force are tracked per game, so a `ResultCorrected` replaces a result and an
`EventRetracted` removes one; scores are then recomputed from the results in force (lila's
"pure scoring recomputed in full"). Tiebreaks build on this (projections/tiebreaks, issue 3).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import singledispatch
from uuid import UUID

from events_schema import events as ev
from events_schema.registry import Recorded


@dataclass
class PlayerScore:
    player_id: str
    name: str
    points: int = 0  # half-points
    games: int = 0  # played over the board
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeit_wins: int = 0
    forfeit_losses: int = 0
    byes: int = 0
    withdrawn: bool = False

    @property
    def score(self) -> str:
        """Human form of the half-point total: 3½, 2, ½."""
        whole, half = divmod(self.points, 2)
        if half and whole == 0:
            return "½"
        return f"{whole}{'½' if half else ''}"


@dataclass
class _Game:
    white: str
    black: str
    results: list[tuple[UUID, ev.Result, ev.Termination]] = field(default_factory=list)


@dataclass
class Standings:
    seq: int = 0
    scoring: ev.Scoring = field(default_factory=ev.Scoring)
    names: dict[str, str] = field(default_factory=dict)
    withdrawals: dict[UUID, str] = field(default_factory=dict)  # PlayerWithdrew id -> player
    games: dict[str, _Game] = field(default_factory=dict)
    byes: dict[UUID, list[ev.Bye]] = field(default_factory=dict)  # by RoundScheduled id
    result_game: dict[UUID, str] = field(default_factory=dict)  # result event -> game


def evolve(state: Standings, rec: Recorded) -> Standings:
    if rec.envelope.seq <= state.seq:
        return state  # redelivered
    state.seq = rec.envelope.seq
    _apply(rec.event, state, rec.envelope.event_id)
    return state


def fold(records: list[Recorded] | tuple[Recorded, ...]) -> Standings:
    state = Standings()
    for rec in records:
        evolve(state, rec)
    return state


@singledispatch
def _apply(event: ev.Event, state: Standings, event_id: UUID) -> None:
    pass


@_apply.register
def _(event: ev.TournamentCreated, state: Standings, event_id: UUID) -> None:
    state.scoring = event.scoring


@_apply.register
def _(event: ev.PlayerRegistered, state: Standings, event_id: UUID) -> None:
    state.names.setdefault(event.player_id, event.name)


@_apply.register
def _(event: ev.PlayerWithdrew, state: Standings, event_id: UUID) -> None:
    state.withdrawals[event_id] = event.player_id


@_apply.register
def _(event: ev.RoundScheduled, state: Standings, event_id: UUID) -> None:
    for p in event.pairings:
        state.games.setdefault(p.game_id, _Game(p.white, p.black))
    if event.byes:
        state.byes[event_id] = list(event.byes)


def _result(
    state: Standings, event_id: UUID, game_id: str, res: ev.Result, t: ev.Termination
) -> None:
    game = state.games.get(game_id)
    if game is not None:
        game.results.append((event_id, res, t))
        state.result_game[event_id] = game_id


@_apply.register
def _(event: ev.GameEnded, state: Standings, event_id: UUID) -> None:
    _result(state, event_id, event.game_id, event.result, event.termination)


@_apply.register
def _(event: ev.ResultCorrected, state: Standings, event_id: UUID) -> None:
    _result(state, event_id, event.game_id, event.result, event.termination)


@_apply.register
def _(event: ev.EventRetracted, state: Standings, event_id: UUID) -> None:
    target = event.retracted_event_id
    state.byes.pop(target, None)
    state.withdrawals.pop(target, None)
    game_id = state.result_game.pop(target, None)
    if game_id is not None:
        game = state.games[game_id]
        game.results = [r for r in game.results if r[0] != target]


def table(state: Standings) -> list[PlayerScore]:
    """The standings rows, recomputed in full from the results in force, ordered by points,
    then player id (tiebreak chains order further: issue 3)."""
    withdrawn = set(state.withdrawals.values())
    rows = {
        pid: PlayerScore(pid, name, withdrawn=pid in withdrawn) for pid, name in state.names.items()
    }
    s = state.scoring
    for game in state.games.values():
        if not game.results:
            continue
        _, res, term = game.results[-1]
        w, b = rows.get(game.white), rows.get(game.black)
        if w is None or b is None:
            continue
        if term == "forfeit":
            # Unplayed games are counted apart from played ones (FIDE C.02 / TRF "+"/"-").
            for row, won in ((w, res == "1-0"), (b, res == "0-1")):
                if won:
                    row.forfeit_wins += 1
                    row.points += s.forfeit_win
                else:
                    row.forfeit_losses += 1
                    row.points += s.forfeit_loss
            continue
        w.games += 1
        b.games += 1
        if res == "1/2-1/2" and s.armageddon:
            res = "0-1"  # GCT 2.5.2: in Armageddon a draw is a win for Black
        if res == "1-0":
            _score(w, b, s)
        elif res == "0-1":
            _score(b, w, s)
        elif res == "1/2-1/2":
            for row in (w, b):
                row.draws += 1
                row.points += s.draw
        else:  # "0-0": both lose
            for row in (w, b):
                row.losses += 1
                row.points += s.loss
    bye_points = {"pairing_allocated": s.bye, "half": s.half_bye, "zero": s.zero_bye, "advance": 0}
    for byes in state.byes.values():
        for bye in byes:
            holder = rows.get(bye.player_id)
            if holder is not None:
                holder.byes += 1
                holder.points += bye_points[bye.kind]
    return sorted(rows.values(), key=lambda r: (-r.points, r.player_id))


def _score(winner: PlayerScore, loser: PlayerScore, s: ev.Scoring) -> None:
    winner.wins += 1
    winner.points += s.win
    loser.losses += 1
    loser.points += s.loss
