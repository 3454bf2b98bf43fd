"""The crosstable: an immutable view of the finished games and byes of one stage, with each
player's rounds from their own side. Tiebreak criteria are pure functions of it.

For Go it also carries what the McMahon criteria need (`projections/tiebreaks/mcmahon.py`):
the tournament's `GoSettings`, each game's handicap stones and the rounds each player skips
(LGC "Top groups" / "Other players"). A `RoundSkipped` names a round of the tournament, not of
a stage, so every stage's crosstable reads it (a McMahon tournament has one stage). A skipped
round adds no entry: the round stays without a game or a bye, as for a chess absence. A Go
crosstable also lists the games paired whose result is not yet entered (`unresulted`):
OpenGotha counts them as played (GoSettings.unentered_results "opengotha"); no entry."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, TypeVar, cast

from events_schema import events as ev
from events_schema.go import GoSettings
from projections.outcome import Outcome, outcomes, points, scoring_of
from projections.standings.state import GameRecord, PlayerInfo, StandingsState
from projections.tiebreaks.editions import NOT_STATED, EditionInForce, in_force

T = TypeVar("T")
EntryKind = Literal[
    "played",  # over the board
    "forfeit_win",  # opponent did not play (TRF "+")
    "forfeit_loss",  # did not play (TRF "-")
    "bye",  # pairing-allocated bye (TRF "U"/"F")
    "half_bye",  # TRF "H"
    "zero_bye",  # TRF "Z"
    "advance",  # knockout advance without a game
]


@dataclass(frozen=True, slots=True)
class Game:
    game_id: str
    round: int
    cycle: int
    white: str
    black: str
    result: ev.Result
    termination: ev.Termination
    played: bool  # False: a forfeit, recorded apart from played games
    white_points: int  # half-points, under the tournament's scoring
    black_points: int
    white_outcome: Outcome
    black_outcome: Outcome
    moves: tuple[str, ...] = ()
    fen: str | None = None
    pair_id: str | None = None
    opening: str | None = None
    order: int = 0  # seq of the result in force: a later game has a larger order
    handicap: int = 0  # Go handicap stones (the GameStarted in force)

    def points_of(self, pid: str) -> int:
        return self.white_points if pid == self.white else self.black_points

    def outcome_of(self, pid: str) -> Outcome:
        return self.white_outcome if pid == self.white else self.black_outcome

    def opponent_of(self, pid: str) -> str:
        return self.black if pid == self.white else self.white


@dataclass(frozen=True, slots=True)
class Unresulted:
    """A game paired in the stage whose result is not entered yet (Go only)."""

    game_id: str
    round: int
    white: str
    black: str
    handicap: int = 0


@dataclass(frozen=True, slots=True)
class Entry:
    """One round from one player's side."""

    round: int
    cycle: int
    kind: EntryKind
    points: int  # half-points
    outcome: Outcome
    opponent: str | None = None
    colour: Literal["white", "black"] | None = None
    game: Game | None = None


@dataclass(frozen=True)
class Crosstable:
    scoring: ev.Scoring
    players: Mapping[str, PlayerInfo]
    games: tuple[Game, ...]
    entries: Mapping[str, tuple[Entry, ...]]
    rounds: int  # rounds scheduled in the stage
    withdrawn: Mapping[str, int | None] = field(default_factory=dict)
    rulings: tuple[ev.RulingIssued, ...] = ()
    # The FIDE C.07 text the FIDE criteria follow (projections/tiebreaks/editions.py).
    edition: EditionInForce = NOT_STATED
    # Go: the tournament's settings (None: chess) and the rounds each player skips (LGC).
    go: GoSettings | None = None
    skipped: Mapping[str, frozenset[int]] = field(default_factory=dict)
    # Go: the games paired whose result is not entered yet (OpenGotha RESULT_UNKNOWN).
    unresulted: tuple[Unresulted, ...] = ()
    # The tournament's planned rounds (`TournamentCreated.rounds`; None: not stated), which
    # OpenGotha's Strasbourg score reads (`gps.getNumberOfRounds()`).
    planned_rounds: int | None = None
    # Values derived from this (immutable) crosstable, computed once: criteria share them.
    _memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def points(self) -> Mapping[str, int]:
        return {pid: sum(e.points for e in es) for pid, es in self.entries.items()}

    @cached_property
    def last_round(self) -> int:
        """The last round in which any player has a result or a bye."""
        return max((e.round for es in self.entries.values() for e in es), default=0)

    def memo(self, key: Hashable, compute: Callable[[], T]) -> T:
        """`compute()` once per crosstable and key (a pure function of the crosstable)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return cast(T, self._memo[key])

    def games_between(self, group: Iterable[str]) -> list[Game]:
        members = set(group)
        return [g for g in self.games if g.white in members and g.black in members]

    def restrict(self, keep: Callable[[Entry], bool]) -> Crosstable:
        """The same players with only the entries (and games) `keep` accepts, e.g. one cycle."""
        entries = {pid: tuple(e for e in es if keep(e)) for pid, es in self.entries.items()}
        ids = {e.game.game_id for es in entries.values() for e in es if e.game is not None}
        games = tuple(g for g in self.games if g.game_id in ids)
        rounds = max((e.round for es in entries.values() for e in es), default=0)
        return Crosstable(
            self.scoring,
            self.players,
            games,
            entries,
            rounds,
            self.withdrawn,
            self.rulings,
            self.edition,
            go=self.go,
            skipped=self.skipped,
            unresulted=tuple(u for u in self.unresulted if u.round <= rounds),
            planned_rounds=self.planned_rounds,
        )


def cycle_of_round(created: ev.TournamentCreated | None) -> Callable[[int, int | None], int]:
    """The cycle of a round: the pairing's own, else from the tournament's rounds per cycle."""
    per_cycle = 0
    if created is not None and created.rounds and created.cycles > 1:
        per_cycle = max(1, created.rounds // created.cycles)

    def cycle_of(rnd: int, explicit: int | None) -> int:
        if explicit is not None:
            return explicit
        return (rnd - 1) // per_cycle + 1 if per_cycle else 1

    return cycle_of


def game_of(rec: GameRecord, scoring: ev.Scoring, cycle: int) -> Game | None:
    """The crosstable's game for a game record: its result in force, None without one."""
    if not rec.results:
        return None
    _, order, result, term = rec.results[-1]
    wo, bo = outcomes(result, armageddon=scoring.armageddon)
    played = term != "forfeit"
    return Game(
        game_id=rec.game_id,
        round=rec.round,
        cycle=cycle,
        white=rec.white,
        black=rec.black,
        result=result,
        termination=term,
        played=played,
        white_points=points(wo, scoring, forfeit=not played),
        black_points=points(bo, scoring, forfeit=not played),
        white_outcome=wo,
        black_outcome=bo,
        moves=tuple(rec.moves),
        fen=rec.fen,
        pair_id=rec.pair_id,
        opening=rec.opening,
        order=order,
        handicap=rec.handicap,
    )


def game_entries(game: Game) -> tuple[tuple[str, Entry], tuple[str, Entry]]:
    """The game from each side: (white, its entry), (black, its entry)."""
    out = []
    for pid, colour, p, o in (
        (game.white, "white", game.white_points, game.white_outcome),
        (game.black, "black", game.black_points, game.black_outcome),
    ):
        kind: EntryKind = (
            "played" if game.played else ("forfeit_win" if o == "win" else "forfeit_loss")
        )
        out.append(
            (pid, Entry(game.round, game.cycle, kind, p, o, game.opponent_of(pid), colour, game))  # type: ignore[arg-type]
        )
    return out[0], out[1]


def game_sort_key(game: Game) -> tuple[int, int, str]:
    """The order of `Crosstable.games`."""
    return (game.round, game.order, game.game_id)


def build(state: StandingsState, stage: str = "main") -> Crosstable:
    created = state.created
    scoring = scoring_of(created)
    cycle_of = cycle_of_round(created)

    games: list[Game] = []
    entries: dict[str, list[Entry]] = {pid: [] for pid in state.players}
    go = go_settings(created)
    unresulted: list[Unresulted] = []
    rounds = 0
    for rec in state.games.values():
        if rec.stage != stage:
            continue
        rounds = max(rounds, rec.round)
        if rec.white not in entries or rec.black not in entries:
            continue
        if not rec.results:
            if go is not None:
                unresulted.append(
                    Unresulted(rec.game_id, rec.round, rec.white, rec.black, rec.handicap)
                )
            continue
        game = game_of(rec, scoring, cycle_of(rec.round, rec.cycle))
        assert game is not None
        games.append(game)
        for pid, entry in game_entries(game):
            entries[pid].append(entry)
    bye_points: dict[str, tuple[EntryKind, int]] = {
        "pairing_allocated": ("bye", scoring.bye),
        "half": ("half_bye", scoring.half_bye),
        "zero": ("zero_bye", scoring.zero_bye),
        "advance": ("advance", 0),
    }
    for _ids, byes in state.rounds.values():
        for b in byes:
            if b.stage != stage or b.player_id not in entries:
                continue
            rounds = max(rounds, b.round)
            bye_kind, p = bye_points[b.kind]
            outcome: Outcome = "win" if p >= scoring.win else ("draw" if p > 0 else "loss")
            entries[b.player_id].append(
                Entry(b.round, cycle_of(b.round, None), bye_kind, p, outcome)
            )
    games.sort(key=game_sort_key)
    withdrawn = {pid: rnd for pid, rnd in state.withdrawals.values() if pid in state.players}
    return Crosstable(
        scoring=scoring,
        players=dict(sorted(state.players.items())),
        games=tuple(games),
        entries={
            pid: tuple(sorted(es, key=lambda e: e.round)) for pid, es in sorted(entries.items())
        },
        rounds=rounds,
        withdrawn=withdrawn,
        rulings=tuple(state.rulings.values()),
        edition=in_force(created, state.rulings.values()),
        go=go,
        skipped=state.skips(),
        unresulted=tuple(sorted(unresulted, key=lambda u: (u.round, u.game_id))),
        planned_rounds=created.rounds if created is not None else None,
    )


def go_settings(created: ev.TournamentCreated | None) -> GoSettings | None:
    """A Go tournament's settings (`TournamentCreated.go`, else the defaults); None for chess."""
    if created is None:
        return None
    if created.go is not None:
        return created.go
    return GoSettings() if created.game == "go" else None
