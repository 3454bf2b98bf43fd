"""State of one stream (a tournament or a series), as the decider needs it.

`evolve` updates a state in place and returns it (the fold owns its state); `decide` only reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Literal
from uuid import UUID

import chess

from events_schema.events import (
    AccelerationSet,
    Colour,
    PairingsProhibited,
    Result,
    Termination,
    TournamentCreated,
)
from projections.broadcast import BroadcastDelay
from projections.endings.adjudicator import Adjudicator, MoveFacts
from projections.standings.state import StandingsState

if TYPE_CHECKING:
    from projections.tournament.go_play import GoGame

GameStatus = Literal["scheduled", "started", "ended"]


@dataclass
class PlayerState:
    player_id: str
    name: str
    kind: str
    rating: int | None
    withdrawn: bool = False
    withdrawn_from_round: int | None = None
    registered_by: UUID | None = None
    withdrawn_by: UUID | None = None  # the PlayerWithdrew in force
    go_rank: str | None = None


@dataclass
class ResultEntry:
    """A result in force for a game: the GameEnded or ResultCorrected that set it."""

    event_id: UUID
    result: Result
    termination: Termination
    rule: str | None = None  # the rule a GameEnded named (an automatic ending names one)


@dataclass
class GameState:
    game_id: str
    stage: str
    round: int
    white: str
    black: str
    time_control: str | None
    scheduled_by: UUID
    started: bool = False
    # Results in force, oldest first: a correction pushes, a retraction removes its entry.
    results: list[ResultEntry] = field(default_factory=list)
    # Moves in force (UCI for chess, GTP vertex or "pass" for Go) with their event ids.
    moves: list[str] = field(default_factory=list)
    move_event_ids: list[UUID] = field(default_factory=list)
    # The chess board at the position reached (`board`, below): None when not tracked. A
    # finished game's board is parked (`park_board`): dropped, and replayed from `start_fen`
    # and `moves` the first time anything reads it again.
    chess_board: chess.Board | None = None
    board_parked: bool = False
    first_to_move: Colour = "white"
    warnings: dict[str, int] = field(default_factory=dict)
    protests: set[str] = field(default_factory=set)  # LGC: played under protest
    # Endings by rule (TournamentCreated.adjudication == "rules", chess): the adjudicator at
    # the position reached, with the facts of the moves in force (to rebuild it after a
    # retraction). None: no automatic endings for this game.
    adjudicator: Adjudicator | None = None
    start_fen: str | None = None
    facts: list[MoveFacts] = field(default_factory=list)
    # ClockReported in force for the adjudicator's clocks: (moves in force then, white ms,
    # black ms), replayed with the facts when it is rebuilt.
    clock_reports: list[tuple[int, int, int]] = field(default_factory=list)
    # Go: the board and the record's legality (projections/tournament/go_play.py).
    go: GoGame | None = None
    scheduled_at: datetime | None = None  # the round's start (LGC Timing "Start")
    handicap: int = 0  # Go: the pairing's handicap stones
    # TCEC Swiss 7.b.v: a restart adjudicated, not yet played on; 7.c: when (a staff ruling)
    restart_pending: bool = False
    restart_at: str | None = None
    clock_started_at: datetime | None = None  # a ClockStarted: this board's own start

    @property
    def board(self) -> chess.Board | None:
        """The chess board at the position reached (None: not tracked); a parked board is
        replayed from the start position and the moves in force, the same pushes that built
        it, so every reader sees the board it would have seen."""
        if self.board_parked:
            board = chess.Board(self.start_fen, chess960=True) if self.start_fen else chess.Board()
            for uci in self.moves:
                board.push(board.parse_uci(uci))
            self.chess_board, self.board_parked = board, False
        return self.chess_board

    @board.setter
    def board(self, board: chess.Board | None) -> None:
        self.chess_board, self.board_parked = board, False

    def park_board(self) -> None:
        """Drop the board of a finished game (the python-chess move stack: about 60 KB for a
        TCEC game of 150 moves), to be replayed if it is read again (a correction, a
        retraction of the result). Only a board that pushed every move in force is parked,
        so the replay is the board it was; any other is kept as it is."""
        board = self.chess_board
        if board is not None and len(board.move_stack) == len(self.moves):
            self.chess_board, self.board_parked = None, True

    @property
    def status(self) -> GameStatus:
        if self.results:
            return "ended"
        return "started" if self.started else "scheduled"

    @property
    def result(self) -> ResultEntry | None:
        return self.results[-1] if self.results else None

    @property
    def next_colour(self) -> Colour:
        other: Colour = "black" if self.first_to_move == "white" else "white"
        return self.first_to_move if len(self.moves) % 2 == 0 else other


@dataclass(slots=True)
class EventRef:
    """What a correction or retraction may reference."""

    seq: int
    type: str
    game_id: str | None = None
    player_id: str | None = None
    round_key: tuple[str, int] | None = None
    level: str | None = None  # SanctionIssued


@dataclass
class TournamentState:
    stream_id: str = ""
    seq: int = 0
    kind: Literal["none", "tournament", "series"] = "none"
    created: TournamentCreated | None = None
    players: dict[str, PlayerState] = field(default_factory=dict)
    games: dict[str, GameState] = field(default_factory=dict)
    rounds: dict[tuple[str, int], list[str]] = field(default_factory=dict)
    byes: dict[tuple[str, int], list[str]] = field(default_factory=dict)
    events: dict[UUID, EventRef] = field(default_factory=dict)
    retracted: set[UUID] = field(default_factory=set)
    appeals: dict[str, bool] = field(default_factory=dict)  # appeal id -> decided
    # appeal id -> (filed by, game id, the event appealed against)
    appeal_parties: dict[str, tuple[str, str | None, UUID | None]] = field(default_factory=dict)
    committee: tuple[list[str], list[str]] | None = None  # LGC appeals committee, reserves
    rulings: set[str] = field(default_factory=set)
    # TCEC Swiss 7.d: RoundScheduled event ids a ruling invalidates (a wrong automated pairing
    # made after an unpaused crash), by the ruling's event id; their retraction is allowed
    # although games of the round were played.
    invalidations: dict[UUID, UUID] = field(default_factory=dict)
    # Pauses and resumes in force, oldest first; a retraction removes its entry.
    pauses: list[tuple[UUID, bool]] = field(default_factory=list)
    # Pairing constraints in force (rules/constraints.py): PairingsProhibited by event id, and
    # the AccelerationSet events in force (the latest is the acceleration).
    prohibitions: dict[UUID, PairingsProhibited] = field(default_factory=dict)
    accelerations: dict[UUID, AccelerationSet] = field(default_factory=dict)
    # The broadcast delay in force (BroadcastDelaySet: projections/broadcast.py).
    broadcast_delay: BroadcastDelay = field(default_factory=BroadcastDelay)
    # Stored events that cannot be decoded and are not retracted: event id -> (seq, reason).
    # The stream is held: only their retraction is accepted.
    unreadable: dict[UUID, tuple[int, str]] = field(default_factory=dict)
    # LGC: rounds players skip, (round, player id) -> the RoundSkipped event id in force.
    skipped: dict[tuple[int, str], UUID] = field(default_factory=dict)
    # A tournament whose rules have a playoff machine: the standings fold of the same events,
    # kept beside this state so the decider runs the machine on exactly what the projections
    # read (projections/tournament/playoff_guards.py). None for every other stream.
    standings: StandingsState | None = None

    @property
    def paused(self) -> bool:
        return bool(self.pauses) and self.pauses[-1][1]

    @property
    def game_kind(self) -> str:
        return self.created.game if self.created is not None else "chess"

    def player_in_round(self, key: tuple[str, int], player_id: str) -> bool:
        for gid in self.rounds.get(key, ()):
            g = self.games[gid]
            if player_id in (g.white, g.black):
                return True
        return player_id in self.byes.get(key, ())
