"""Event payloads: frozen, past-tense, one class per stable type name.

`event_type` is the stable name stored in the envelope's `type` (never a Python path);
`schema_version` is the current version of the payload. Older stored versions are brought up
to date by the upcasters in `events_schema.upcasters` when an event is decoded.
"""

from datetime import date
from decimal import Decimal
from typing import Annotated, Any, ClassVar, Literal
from uuid import UUID

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from events_schema.go import RANK_PATTERN, GoSettings
from events_schema.ids import GameId, PlayerId, StreamId

UCI_PATTERN = r"^[a-h][1-8][a-h][1-8][qrbn]?$"  # a chess move in UCI notation

Game = Literal["chess", "go"]
Colour = Literal["white", "black"]
# PGN-style results; "0-0" is a double loss (e.g. both players forfeited or both sanctioned).
# "1-1" is a win for both: Go only, OpenGotha's Game.RESULT_BOTHWIN (an arbiter's decision; the
# decider refuses it elsewhere: projections/tournament/rules/consistency.py). A value added to
# the set, not a changed payload: every stored event stays valid and decodes as before, so the
# events carrying a result keep their schema_version; a reader built before "1-1" holds a
# stream with one as Unreadable (registry.py) instead of misreading it.
Result = Literal["1-0", "0-1", "1/2-1/2", "0-0", "1-1"]
Termination = Literal[
    "checkmate",
    "resignation",
    "time_forfeit",  # TCEC Swiss 5.2 / Leagues 9: loss on time is a loss, never replayed
    "illegal_move",  # TCEC Swiss 6.d: a game is won by the opponent's illegal move
    "stalemate",
    "threefold_repetition",
    "fifty_move_rule",
    "fivefold_repetition",  # FIDE Laws 9.6.1: the game is drawn without a claim
    "seventy_five_move_rule",  # FIDE Laws 9.6.2
    "insufficient_material",
    "agreement",
    "tablebase",  # TCEC Swiss 6.c: Syzygy adjudication
    "tcec_draw_rule",  # TCEC Swiss 6.b
    "adjudication",  # an AdjudicationIssued event decided it
    "engine_crash",  # TCEC Swiss 7.a: crashes are counted as losses
    "forfeit",  # not played: no-show, late arrival (LGC), sanction
    "counting",  # Go: territory scoring after the final passes (LGC Scoring)
    "arbiter_decision",
    "armageddon",  # GCT 2.5.2: a drawn Armageddon game is a win for Black
    "other",
]


class Event(BaseModel):
    """Base of all payloads: immutable, strict about unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    event_type: ClassVar[str]
    schema_version: ClassVar[int] = 1


# ---------------------------------------------------------------------------------------------
# Configuration carried by the creation events
# ---------------------------------------------------------------------------------------------


class Scoring(BaseModel):
    """Points in half-points (integers), so scores are exact. Default 1/½/0 = 2/1/0."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    win: int = Field(default=2, ge=0)
    draw: int = Field(default=1, ge=0)
    loss: int = Field(default=0, ge=0)
    bye: int = Field(default=2, ge=0, description="pairing-allocated bye")
    half_bye: int = Field(default=1, ge=0)
    zero_bye: int = Field(default=0, ge=0)
    forfeit_win: int = Field(default=2, ge=0)
    forfeit_loss: int = Field(default=0, ge=0)
    armageddon: bool = Field(
        default=False, description="GCT 2.5.2: a drawn game counts as a win for Black"
    )


class TiebreakSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: str = Field(min_length=1, max_length=64)
    params: dict[str, Any] = Field(default_factory=dict)


class TiebreakOptions(BaseModel):
    """Chain-wide rules that are not criteria of their own."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    pairwise_head_to_head: bool = Field(
        default=False,
        description="Czech rules: when exactly two players are level on a criterion, their "
        "head-to-head result decides unless it was drawn",
    )


class TimeControl(BaseModel):
    """A named time control: base time plus increment, or Go overtime (LGC Timing rules)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: str = Field(min_length=1, max_length=64)
    base_seconds: int = Field(ge=0)
    increment_seconds: int = Field(default=0, ge=0)
    increment_from_move: int = Field(default=1, ge=1, description="GCT 2.5.1: +2 s from move 61")
    white_base_seconds: int | None = Field(
        default=None, ge=0, description="asymmetric clocks: GCT 2.5.1 Armageddon White 5 min"
    )
    black_base_seconds: int | None = Field(default=None, ge=0)
    overtime: Literal["none", "fischer", "canadian", "byo_yomi"] = "none"
    overtime_seconds: int = Field(default=0, ge=0)
    overtime_stones: int = Field(default=0, ge=0)
    overtime_periods: int = Field(default=0, ge=0)


class Prize(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    place: int = Field(ge=1)
    amount: Decimal = Field(ge=0, max_digits=14, decimal_places=2)


class PrizeTable(BaseModel):
    """Money is Decimal with at most 2 places (exact cents)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    currency: str = Field(default="USD", pattern=r"^[A-Z]{3}$")
    prizes: list[Prize] = Field(default_factory=list)
    winner_premium: Decimal | None = Field(
        default=None, ge=0, description="GCT 2.6: $5,000 (R&B) / 3.6: $10,000 (classical)"
    )


# ---------------------------------------------------------------------------------------------
# Creation and registration
# ---------------------------------------------------------------------------------------------


class SeriesCreated(Event):
    """A series groups tournaments (the GCT tour, a Czech club series)."""

    event_type: ClassVar[str] = "SeriesCreated"

    name: str = Field(min_length=1, max_length=200)
    kind: Literal["gct-tour", "czech-series", "tcec-season", "other"] = "other"
    points_table: list[Decimal] = Field(default_factory=list)
    bonus: PrizeTable | None = None


#: The pairing systems a tournament may name: the schema's closed set (stored events and the
#: JSON schema publish it). Each name but "manual" (pairings entered by hand) is one
#: `PairingSystem` registered in `projections/pairing/systems.py` `SYSTEMS`, which checks on
#: import that the two agree.
PairingName = Literal[
    "berger", "dutch", "galway", "monrad", "tcec-cup", "mcmahon", "go-swiss", "manual"
]


class TournamentCreated(Event):
    """v2 adds `pairing`: the pairing system `arbiter pair` runs (None: the format's own,
    `projections/pairing/names.py` SYSTEM_OF_FORMAT); `adjudication`: whether the command
    path ends games by the rules of the preset (v1 tournaments: "manual"); `starts_on`,
    `ends_on` and `tiebreak_edition` (v1 tournaments: "fide-2024", the text they were ranked
    by). v3 adds `go`: the Go settings (McMahon, late arrival) where the LGC rules leave them
    to the organiser (None: chess, or the defaults of `events_schema.go.GoSettings`)."""

    event_type: ClassVar[str] = "TournamentCreated"
    schema_version: ClassVar[int] = 3

    name: str = Field(min_length=1, max_length=200)
    game: Game = "chess"
    format: Literal[
        "swiss",
        "round_robin",
        "knockout",
        "cup",
        "league",
        "match",
        "playoff",
        "mcmahon",
        "porous_swiss",
    ]
    cycles: int = Field(default=1, ge=1, description="n×(double) round robin: TCEC Leagues")
    rounds: int | None = Field(default=None, ge=1)
    rules_preset: str | None = Field(default=None, max_length=64)
    scoring: Scoring = Field(default_factory=Scoring)
    tiebreaks: list[TiebreakSpec] = Field(
        default_factory=list, description="empty: the rules_preset's chain"
    )
    tiebreak_options: TiebreakOptions | None = None
    time_controls: list[TimeControl] = Field(default_factory=list)
    prize_table: PrizeTable | None = None
    points_table: list[Decimal] = Field(default_factory=list, description="tour points/place")
    series_id: StreamId | None = None
    board_size: int = Field(default=19, ge=5, le=25, description="Go only")
    komi: Decimal = Field(default=Decimal("7.5"), description="LGC Scoring: 7.5 even game")
    pairing: PairingName | None = Field(
        default=None, description="pairing system; None: the format's default"
    )
    starts_on: date | None = Field(
        default=None, ge=date(1800, 1, 1), le=date(2199, 12, 31), description="TRF 042"
    )
    ends_on: date | None = Field(
        default=None, ge=date(1800, 1, 1), le=date(2199, 12, 31), description="TRF 052"
    )
    tiebreak_edition: Literal["fide-2024", "fide-2026"] | None = Field(
        default=None,
        description="FIDE C.07 text the FIDE criteria follow; None when proposed: the decider "
        "records the edition in force on `starts_on` (the newest without one)",
    )
    adjudication: Literal["rules", "manual"] = Field(
        default="rules",
        description="rules: a move that ends the game by the preset's rules appends its "
        "GameEnded in the same batch (projections/endings); manual: every ending is entered",
    )
    go: GoSettings | None = Field(default=None, description="Go only: McMahon and timing")


class PlayerRegistered(Event):
    """v2: `kind` replaces the v1 boolean `engine` (see
    `events_schema.upcasters.upcast_v1_v2_player_registered`). v3 adds `go_rank` (Go: "5k",
    "2d", "1p"; McMahon start scores). v4 adds `fide_id` (the FIDE id, TRF 001 field; the
    projection documents carry it). v5 adds `club` (the player's club, as an entry list gives
    it: `arbiter register --club`, the CSV's club column; `arbiter players` shows it)."""

    event_type: ClassVar[str] = "PlayerRegistered"
    schema_version: ClassVar[int] = 5

    player_id: PlayerId
    name: str = Field(min_length=1, max_length=200)
    kind: Literal["human", "engine"] = "human"
    rating: int | None = Field(default=None, ge=0, le=4000)
    federation: str | None = Field(default=None, max_length=8)
    title: str | None = Field(default=None, max_length=8)
    engine_version: str | None = Field(default=None, max_length=64)
    seed: int | None = Field(default=None, ge=1)
    go_rank: str | None = Field(default=None, pattern=RANK_PATTERN, description="Go rank")
    fide_id: int | None = Field(
        default=None, ge=1, le=99_999_999_999, description="FIDE id (at most the 11 digits of TRF)"
    )
    club: str | None = Field(default=None, max_length=200, description="the player's club")


class PlayerWithdrew(Event):
    event_type: ClassVar[str] = "PlayerWithdrew"

    player_id: PlayerId
    from_round: int | None = Field(default=None, ge=1)
    reason: str = Field(default="", max_length=2000)


class LotDrawn(Event):
    """Every random choice is an event carrying its outcome (rules/README "Lots").

    `candidates` is what was drawn from, `outcome` what came out (an order, or the chosen
    entries), `seed` the generator seed if a seeded generator produced it.
    """

    event_type: ClassVar[str] = "LotDrawn"

    purpose: Literal[
        "pairing_numbers", "bye", "colours", "engine_order", "bracket", "coin_toss", "other"
    ]
    subject: str = Field(default="", max_length=200, description="stage/round/game it is for")
    candidates: list[str] = Field(min_length=1)
    outcome: list[str] = Field(min_length=1)
    seed: str | None = Field(default=None, max_length=200)
    method: str | None = Field(default=None, max_length=200)


class Pairing(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    game_id: GameId
    white: PlayerId
    black: PlayerId
    board: int | None = Field(default=None, ge=1)
    time_control: str | None = None
    opening: str | None = Field(default=None, max_length=500, description="book exit / opening")
    pair_id: str | None = Field(default=None, max_length=64, description="TCEC game pair")
    handicap: int = Field(
        default=0, ge=0, le=9, description="Go: the stones Black places (0: an even game)"
    )


class Bye(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    player_id: PlayerId
    kind: Literal["pairing_allocated", "half", "zero", "advance"] = "pairing_allocated"


class RoundScheduled(Event):
    """A round (or a playoff/knockout stage) with its pairings, colours and byes. v2: each
    pairing carries its Go `handicap` (McMahon pairing with handicaps)."""

    event_type: ClassVar[str] = "RoundScheduled"
    schema_version: ClassVar[int] = 2

    round: int = Field(ge=1)
    stage: str = Field(default="main", min_length=1, max_length=64)
    cycle: int | None = Field(
        default=None, ge=1, description="round-robin cycle; default from rounds and cycles"
    )
    pairings: list[Pairing] = Field(default_factory=list)
    byes: list[Bye] = Field(default_factory=list)
    scheduled_at: AwareDatetime | None = None


# ---------------------------------------------------------------------------------------------
# Play
# ---------------------------------------------------------------------------------------------


class GameSource(BaseModel):
    """Where an imported game came from and how its source says it ended (kept on the game,
    so a disagreement with the rules' ending is shown, never hidden)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    file: str = Field(default="", max_length=500)
    index: int | None = Field(default=None, ge=1, description="game number in the file")
    result: str = Field(default="", max_length=16)
    termination: str = Field(default="", max_length=200)
    details: str = Field(default="", max_length=2000, description="e.g. TerminationDetails")
    plies: int | None = Field(default=None, ge=0, description="half-moves the source has")


class GameStarted(Event):
    """v2 adds `source` (imported games)."""

    event_type: ClassVar[str] = "GameStarted"
    schema_version: ClassVar[int] = 2

    game_id: GameId
    fen: str | None = Field(default=None, max_length=100, description="chess: non-standard start")
    handicap: int = Field(
        default=0, ge=0, le=9, description="Go handicap stones; 0: as the pairing says"
    )
    source: GameSource | None = None


class MovePlayed(Event):
    """One move. Chess: `uci` (and `san`, checked against the position). Go: `point` as a GTP
    vertex such as "D4", or "pass" (LGC Game protocol: a move is a stone or a pass). v2 adds
    `pv`: the engine's principal variation after its move, from the move itself (UCI, at most
    32 plies), as the TCEC PGNs keep it (`arbiter arena`)."""

    event_type: ClassVar[str] = "MovePlayed"
    schema_version: ClassVar[int] = 2

    game_id: GameId
    ply: int = Field(ge=1, description="1-based half-move number, for order and turn checks")
    colour: Colour
    uci: str | None = Field(default=None, pattern=UCI_PATTERN)
    san: str | None = Field(default=None, max_length=16)
    point: str | None = Field(default=None, max_length=8)
    clock_ms: int | None = Field(default=None, ge=0, description="mover's clock after the move")
    move_time_ms: int | None = Field(default=None, ge=0)
    eval_cp: int | None = Field(default=None, description="engine eval, centipawns, White POV")
    mate_in: int | None = None
    depth: int | None = Field(default=None, ge=0)
    nodes: int | None = Field(default=None, ge=0)
    pv: list[Annotated[str, Field(pattern=UCI_PATTERN)]] | None = Field(
        default=None, max_length=32, description="engine's principal variation, UCI"
    )


class ClockReported(Event):
    event_type: ClassVar[str] = "ClockReported"

    game_id: GameId
    white_ms: int = Field(ge=0)
    black_ms: int = Field(ge=0)
    white_periods: int | None = Field(default=None, ge=0, description="Go overtime left")
    black_periods: int | None = Field(default=None, ge=0)


class ClockPaused(Event):
    """LGC Timing: "The clock may be paused with both player's timepieces being stopped
    simultaneously in the following circumstances" — `circumstance` is the seed's number
    (1-12, `projections/go/clock.py` PAUSE_CIRCUMSTANCES). Paused time is not charged (move
    times are reported net of pauses); no move is recorded until `ClockResumed`."""

    event_type: ClassVar[str] = "ClockPaused"

    game_id: GameId
    circumstance: int = Field(ge=1, le=12)
    by: Literal["black", "white", "players", "referee", "director"] = "players"
    detail: str = Field(default="", max_length=2000)


class ClockResumed(Event):
    event_type: ClassVar[str] = "ClockResumed"

    game_id: GameId


class ClockSet(Event):
    """LGC Irregularities "Timing error" / "Faulty clock": the clocks set to these times.
    `reset_before_start`: the players agree to reset a clock set incorrectly before the game
    started; `referee_correction`: once the game has started, a mistake in the recorded
    elapsed time corrected by the referee; `clock_replaced`: a malfunctioning clock replaced
    and set by the referee. Periods: byo-yomi periods, or Canadian stones, left."""

    event_type: ClassVar[str] = "ClockSet"

    game_id: GameId
    reason: Literal["reset_before_start", "referee_correction", "clock_replaced"]
    white_ms: int = Field(ge=0, le=10**9)
    black_ms: int = Field(ge=0, le=10**9)
    white_periods: int | None = Field(default=None, ge=0, le=1000)
    black_periods: int | None = Field(default=None, ge=0, le=1000)
    detail: str = Field(default="", max_length=2000)


class ClockStarted(Event):
    """LGC Timing "Start": "In special circumstances, the referee may start clocks on some
    boards at a different time" — this board's clock started at `at` (lateness is then
    measured from it when the tournament measures from the clock's start)."""

    event_type: ClassVar[str] = "ClockStarted"

    game_id: GameId
    at: AwareDatetime
    detail: str = Field(default="", max_length=2000)


class GoScore(BaseModel):
    """LGC Scoring: territory + prisoners, komi to White.

    `*_territory` are the empty points each colour surrounds (before prisoners are placed);
    `*_prisoners` the stones each colour captured (pass stones and the dead stones removed at
    the count included). Prisoners are placed in the opponent's territory and a surplus is
    negative territory, so Black's score is black_territory - white_prisoners, White's
    white_territory - black_prisoners + komi, and `margin` is Black's minus White's (v3;
    positive: Black won). `dead_stones` are the points agreed dead (GTP vertices), so an
    auditor can recount."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    black_territory: int = Field(ge=0, le=625)
    white_territory: int = Field(ge=0, le=625)
    black_prisoners: int = Field(ge=0, le=10_000)
    white_prisoners: int = Field(ge=0, le=10_000)
    komi: Decimal = Field(ge=-1000, le=1000, decimal_places=1)
    margin: Decimal | None = Field(default=None, ge=-20_000, le=20_000, decimal_places=1)
    dead_stones: list[str] = Field(default_factory=list, max_length=625)


class GameEnded(Event):
    """v2 adds `rule`: the rule that ended the game, as `seed article` (e.g. "tcec-rules
    Leagues 10.2"), set on every automatic ending so it can be overruled by a correction. v3:
    `go_score` carries the margin and the dead stones (a v2 score has neither)."""

    event_type: ClassVar[str] = "GameEnded"
    schema_version: ClassVar[int] = 3

    game_id: GameId
    result: Result
    termination: Termination
    detail: str = Field(default="", max_length=2000)
    rule: str | None = Field(default=None, max_length=200)
    go_score: GoScore | None = None


class IllegalMoveNoticed(Event):
    """LGC Irregularities "Illegal move": a player or the referee notices that the move at
    `ply` recreated a previous position with the same player to move (ko, superko) or was a
    suicide. Noticed within three moves (at most three moves played after it), the game is
    unwound to the position just before it and play continues from there; noticed later, the
    game continues as it stands. `unwound` and `rule` are the decider's (from the record)."""

    event_type: ClassVar[str] = "IllegalMoveNoticed"

    game_id: GameId
    ply: int = Field(ge=1, le=10_000)
    noticed_by: Literal["black", "white", "referee"]
    unwound: bool | None = Field(default=None, description="set by the decider")
    rule: str | None = Field(default=None, max_length=200, description="set by the decider")


class GoStatusAgreed(Event):
    """LGC Ending the game 5: after play pauses, the players agree the status of every group;
    `dead_stones` are the points (GTP vertices) of the stones both agree are dead. The decider
    counts (LGC Scoring) and ends the game in the same batch."""

    event_type: ClassVar[str] = "GoStatusAgreed"

    game_id: GameId
    dead_stones: list[str] = Field(default_factory=list, max_length=625)


class GoStatusDisputed(Event):
    """LGC Ending the game 6: a dispute about the status of groups resumes play on the clock
    with Black first (repeatable; if both pass at the start of a resumption the game stops
    and all stones are counted as they stand)."""

    event_type: ClassVar[str] = "GoStatusDisputed"

    game_id: GameId
    points: list[str] = Field(default_factory=list, max_length=625, description="disputed")
    detail: str = Field(default="", max_length=2000)


class RoundSkipped(Event):
    """LGC Player behaviour: a player skips a round. Players outside the top groups give
    notice at least 30 minutes before the round ("advance"); a player starting in a top group
    only in exceptional circumstances, by the referee's decision ("exceptional", with the
    reason). The McMahon score counts the configured absence points for it."""

    event_type: ClassVar[str] = "RoundSkipped"

    player_id: PlayerId
    round: int = Field(ge=1, le=1000)
    notice: Literal["advance", "exceptional"] = "advance"
    reason: str = Field(default="", max_length=2000)


class PlayerArrived(Event):
    """LGC Timing Start: a player's arrival at the board; "If a player is late by 30 minutes
    or more, they forfeit the game" (late measured as `GoSettings.late_from` says, from the
    round's `scheduled_at`). The decider appends the forfeit in the same batch."""

    event_type: ClassVar[str] = "PlayerArrived"

    game_id: GameId
    player_id: PlayerId
    at: AwareDatetime


class EngineCrashed(Event):
    """TCEC Swiss 7.a: an engine crash is counted as a loss (the GameEnded follows)."""

    event_type: ClassVar[str] = "EngineCrashed"

    game_id: GameId
    player_id: PlayerId
    ply: int | None = Field(default=None, ge=0)
    detail: str = Field(default="", max_length=2000)


class ServerInterrupted(Event):
    """TCEC Swiss 7.b: what the adjudication of an interruption needs to know. v2 adds
    `web_server_only`: scenario i ("If the web server crashes, the game continues unaffected,
    and broadcasting will be resumed as soon as possible")."""

    event_type: ClassVar[str] = "ServerInterrupted"
    schema_version: ClassVar[int] = 2

    game_id: GameId
    ply: int = Field(ge=0)
    moves_completed: int = Field(ge=0, description="full moves both engines completed")
    white_eval_cp: int | None = None
    black_eval_cp: int | None = None
    pieces_on_board: int = Field(ge=2, le=32)
    detail: str = Field(default="", max_length=2000)
    web_server_only: bool = False


class AdjudicationIssued(Event):
    """An adjudication with the rule applied, e.g. "TCEC Swiss 7.b.iii"."""

    event_type: ClassVar[str] = "AdjudicationIssued"

    game_id: GameId
    rule: str = Field(min_length=1, max_length=200)
    outcome: Literal["1-0", "0-1", "1/2-1/2", "restart"]
    restart_from_ply: int | None = Field(default=None, ge=0)
    basis: str = Field(default="", max_length=2000)


class SanctionIssued(Event):
    """LGC Sanctions: advice, warning (two in one game = forfeit), game forfeit, …. v2 adds
    `round`: the round a player is removed from (`removal_from_round`), or the first round an
    expelled player misses (`expulsion`: removal from the tournament)."""

    event_type: ClassVar[str] = "SanctionIssued"
    schema_version: ClassVar[int] = 2

    player_id: PlayerId
    game_id: GameId | None = None
    level: Literal[
        "advice",
        "warning",
        "game_forfeit",
        "time_penalty",  # LGC: modification of time limits
        "removal_from_round",
        "expulsion",  # LGC: removal from the tournament
        "supergroup_debarment",  # LGC Hindrance: debarred from a supergroup in a future event
    ]
    rule: str = Field(min_length=1, max_length=200)
    text: str = Field(default="", max_length=4000)
    round: int | None = Field(default=None, ge=1, le=1000)


class AppealFiled(Event):
    """An appeal against a referee's judgement (LGC Arbitration). v2 adds `game_id`: the
    game in dispute; once that game has ended, only a player who stated that it was played
    under protest (`ProtestStated`) may appeal ("Failure to do so means that the player gives
    up the right to appeal")."""

    event_type: ClassVar[str] = "AppealFiled"
    schema_version: ClassVar[int] = 2

    appeal_id: str = Field(min_length=1, max_length=64)
    filed_by: PlayerId
    against_event_id: UUID | None = None
    grounds: str = Field(min_length=1, max_length=4000)
    game_id: GameId | None = None


class AppealDecided(Event):
    """LGC Arbitration: the appeals committee decision is final. v2 adds who decided:
    `committee` (members, reserves or co-opted players; none party to the dispute), the
    players `co_opted` to make up three, and `quorum_note` when fewer than three arbitrate
    ("If the appeals committee cannot meet in time before the tournament's next round, then
    only those present arbitrate"). "rejected_without_hearing": "The appeals committee may
    reject a case if it considers the referee's judgement and reasoning obviously right and
    just". "adjourned": no committee could be formed; not a decision (one follows)."""

    event_type: ClassVar[str] = "AppealDecided"
    schema_version: ClassVar[int] = 2

    appeal_id: str = Field(min_length=1, max_length=64)
    decision: Literal[
        "upheld", "rejected", "partially_upheld", "rejected_without_hearing", "adjourned"
    ]
    text: str = Field(min_length=1, max_length=4000)
    committee: list[str] = Field(default_factory=list, max_length=7)
    co_opted: list[PlayerId] = Field(default_factory=list, max_length=3)
    quorum_note: str = Field(default="", max_length=2000)


class AppealsCommitteeFormed(Event):
    """LGC Arbitration "Appeals committee": "formed of three persons before the start of the
    first round and includes reserves". Members and reserves are player ids or officials'
    names."""

    event_type: ClassVar[str] = "AppealsCommitteeFormed"

    members: list[str] = Field(min_length=3, max_length=3)
    reserves: list[str] = Field(default_factory=list, max_length=10)


class ProtestStated(Event):
    """LGC Arbitration "Player responsibility": a player states that the game is played under
    protest (after a referee decided it should resume), at the latest when signing the
    result: before the game's result is recorded (in the same batch, before its GameEnded)."""

    event_type: ClassVar[str] = "ProtestStated"

    game_id: GameId
    player_id: PlayerId
    text: str = Field(default="", max_length=2000)


class ColourErrorNoticed(Event):
    """LGC Irregularities "Colour or handicap error": the game was started with the wrong
    colours or handicap. `black` is who actually plays Black, `handicap` the stones actually
    placed. Noticed before the third move is completed (fewer than three moves in force), the
    game is restarted with the pairing's colours and handicap; later, it continues and the
    pairing is amended to what was actually used. `restarted` and `rule` are the decider's."""

    event_type: ClassVar[str] = "ColourErrorNoticed"

    game_id: GameId
    black: PlayerId
    handicap: int = Field(default=0, ge=0, le=9)
    restarted: bool | None = Field(default=None, description="set by the decider")
    rule: str | None = Field(default=None, max_length=200, description="set by the decider")


class PositionDisturbed(Event):
    """LGC Irregularities "Position disturbance": the referee's procedure, applied in the
    seed's order: 1 `correct` the position (the record stands), 2 `continue` with the position
    as is (the stones `added_black`/`added_white` and `removed` are what changed), 3 `unwind`
    to an agreed previous position (`to_ply` moves kept), 4 `loss` for the player who
    disturbed it (`disturbed_by`), 5 `restart` afresh, possibly with a reduced time limit
    (`time_control`, one of the tournament's)."""

    event_type: ClassVar[str] = "PositionDisturbed"

    game_id: GameId
    procedure: Literal["correct", "continue", "unwind", "loss", "restart"]
    to_ply: int | None = Field(default=None, ge=0, le=10_000)
    disturbed_by: PlayerId | None = None
    added_black: list[str] = Field(default_factory=list, max_length=625)
    added_white: list[str] = Field(default_factory=list, max_length=625)
    removed: list[str] = Field(default_factory=list, max_length=625)
    time_control: str | None = Field(default=None, max_length=64)
    detail: str = Field(default="", max_length=2000)


class RulingIssued(Event):
    """An arbiter's or organiser's decision with its text, e.g. GCT 4.12 or TCEC 0.0.

    `decision` holds structured data the projections may use (e.g. {"tiebreak_order": [...]}
    to resolve a tie the rules leave to the organisers).
    """

    event_type: ClassVar[str] = "RulingIssued"

    ruling_id: str = Field(min_length=1, max_length=64)
    by: str = Field(min_length=1, max_length=200)
    subject: str = Field(min_length=1, max_length=200)
    rule: str = Field(default="", max_length=200)
    text: str = Field(min_length=1, max_length=8000)
    decision: dict[str, Any] = Field(default_factory=dict)


class TournamentPaused(Event):
    """TCEC Swiss 7.d: on a system crash the tournament should pause."""

    event_type: ClassVar[str] = "TournamentPaused"

    reason: str = Field(min_length=1, max_length=2000)


class TournamentResumed(Event):
    event_type: ClassVar[str] = "TournamentResumed"

    reason: str = Field(default="", max_length=2000)


class BroadcastDelaySet(Event):
    """The broadcast delay (a tournament setting, issue 25): readers with a broadcaster token
    see the projections as of `seconds` ago (the log replayed up to the last event recorded
    by then: services/feed/delay.py); arbiters, auditors and admins see them live. 0: live
    for everyone. Set and changed by this event (the latest in force), undone by its
    retraction. At most a day (86 400 s)."""

    event_type: ClassVar[str] = "BroadcastDelaySet"

    seconds: int = Field(ge=0, le=86_400)
    reason: str = Field(default="", max_length=2000)


class PairingsProhibited(Event):
    """An arbiter forbids these players to meet one another (family members, club mates:
    FIDE C.04.3 absolute criteria are the engine's; the prohibition is the tournament's, as
    TRF26 record 260 carries it): no two of `players` are paired in rounds `first_round` to
    `last_round` (None: to the end). The Dutch pairing hands it to gacrux (its `prohibited`).
    In force until retracted; several add up."""

    event_type: ClassVar[str] = "PairingsProhibited"

    players: list[PlayerId] = Field(min_length=2, max_length=64)
    first_round: int = Field(default=1, ge=1, le=1000)
    last_round: int | None = Field(default=None, ge=1, le=1000)
    reason: str = Field(default="", max_length=2000)


class VirtualPoints(BaseModel):
    """Virtual points added to a player's pairing score (never to the score) in rounds
    `first_round` to `last_round`, in half-points (FIDE C.04.5.1; TRF26 record 250)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    player_id: PlayerId
    first_round: int = Field(ge=1, le=1000)
    last_round: int = Field(ge=1, le=1000)
    points: int = Field(ge=1, le=100, description="half-points")


class AccelerationSet(Event):
    """The tournament's accelerated rounds: `values`, the virtual points per player and round
    range (TRF26 record 250). `method` "baku": FIDE's Baku acceleration (C.04.5.1), read from
    the field when each accelerated round is paired (GA = the first 2*ceil(N/4) players of the
    first round's initial order, then every player ranked at or above its last one, late
    entries included; 1 point in the first half, rounded up, of the accelerated rounds, ½ in
    the rest; the accelerated rounds are the first half of the tournament, rounded up); its
    `values` record the field when it was set; "explicit": values as given (a TRF26 file's,
    or an arbiter's). The latest in force replaces earlier ones; no values: no
    acceleration."""

    event_type: ClassVar[str] = "AccelerationSet"

    method: Literal["baku", "explicit"] = "explicit"
    values: list[VirtualPoints] = Field(default_factory=list, max_length=10_000)
    reason: str = Field(default="", max_length=2000)


class TrfRecordsKept(Event):
    """Records of an imported TRF26 file that no other event stores (e.g. 162 game score
    system, 192 tournament type, 202/212 tie-break lists, 222 time control, 330 team
    forfeits, 022/102/122 header lines), kept verbatim in file order so that `arbiter export
    trf --format trf26` writes them back unchanged (services/interchange/trf/write26.py): a
    record is never dropped silently. The latest in force is the one written."""

    event_type: ClassVar[str] = "TrfRecordsKept"

    lines: list[Annotated[str, Field(min_length=3, max_length=2000, pattern=r"^[^\r\n]*$")]] = (
        Field(default_factory=list, max_length=10_000)
    )
    source: str = Field(default="TRF26", max_length=200)


# ---------------------------------------------------------------------------------------------
# Corrections: history is never rewritten; these reference the event they correct.
# ---------------------------------------------------------------------------------------------


class ResultCorrected(Event):
    event_type: ClassVar[str] = "ResultCorrected"

    corrects_event_id: UUID
    game_id: GameId
    result: Result
    termination: Termination
    reason: str = Field(min_length=1, max_length=4000)


class EventRetracted(Event):
    event_type: ClassVar[str] = "EventRetracted"

    retracted_event_id: UUID
    reason: str = Field(min_length=1, max_length=4000)


EVENT_CLASSES: tuple[type[Event], ...] = (
    SeriesCreated,
    TournamentCreated,
    PlayerRegistered,
    PlayerWithdrew,
    LotDrawn,
    RoundScheduled,
    GameStarted,
    MovePlayed,
    ClockReported,
    ClockPaused,
    ClockResumed,
    ClockSet,
    ClockStarted,
    GameEnded,
    EngineCrashed,
    ServerInterrupted,
    IllegalMoveNoticed,
    GoStatusAgreed,
    GoStatusDisputed,
    RoundSkipped,
    PlayerArrived,
    AppealsCommitteeFormed,
    ProtestStated,
    ColourErrorNoticed,
    PositionDisturbed,
    AdjudicationIssued,
    SanctionIssued,
    AppealFiled,
    AppealDecided,
    RulingIssued,
    TournamentPaused,
    TournamentResumed,
    ResultCorrected,
    EventRetracted,
    BroadcastDelaySet,
    PairingsProhibited,
    AccelerationSet,
    TrfRecordsKept,
)
