"""The projection contract: Pydantic models of the published documents and of the SSE messages
that carry them (no I/O). `services/cli/schema_export.py` exports their JSON Schemas to
`events_schema/json/projections/<name>.v<DOCUMENT_VERSION>.json` (drift-checked by
`arbiter schema check`), and the HTTP API references them from its OpenAPI.

One convention for numbers, in every document:

* Counts, places, sequence numbers and integer half-points are JSON integers (``"place": 3``,
  ``"half_points": 17``, ``"played": 9``).
* Any other quantity that is shown differently from its exact value is a **quantity object**:
  ``{"value": <exact>, "display": "<as shown>"}`` plus the keys that qualify it. ``value`` is a
  JSON integer, or an exact decimal string when the fraction has a finite decimal expansion
  (``"8.5"``, ``"56.75"``), else ``"p/q"`` (``"31/3"``), or ``null`` (no value). Never a float.
  ``display`` is what the terminal and the live page print (``"8½"``, ``"56.75"``,
  ``"2½ (max 3½)"``); a consumer never needs to parse it.

  - a score (`Score`): ``{"half_points": 17, "value": "8.5", "display": "8½"}`` (``value`` in
    points);
  - a tiebreak value (`TiebreakValue`): ``{"criterion": "buchholz", "unit": "points",
    "value": "80.5", "display": "80½"}``: the criterion id as registered in
    `projections/tiebreaks/registry.py` and its unit (`TIEBREAK_UNITS`).
* Money and tour points are exact decimal strings whose display is the value itself: money
  always with two places (``"27500.00"``) in the prizes document's ``currency``, remainders
  stated (``remainder``); tour points exact (``"11.5"``, or ``"31/3"``).

Rows name the registered player: ``player_id``, ``name``, ``kind``, ``rating``,
``federation``, ``title``, ``fide_id``, ``club`` (null when unknown; ``club`` since v6).

Live games (``games``, `projections/live.py`): clocks are integer milliseconds, engine
evaluations integer centipawns or a mate distance (White's point of view, as `MovePlayed`
records them), never a float.
"""

from __future__ import annotations

import functools
import operator
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

# The exact numbers every document carries; the projections import them from there without
# loading these models.
from events_schema.numbers import (  # noqa: F401
    EXACT_PATTERN,
    TIEBREAK_UNITS,
    Exact,
    TiebreakUnit,
    exact,
    exact_str,
)

#: The version of every published document (`projections.documents.PROJECTION_VERSION` is
#: this value); the exported schemas are named after it.
DOCUMENT_VERSION = 6


MONEY_PATTERN = r"^-?[0-9]+\.[0-9]{2}$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


ExactStr = Field(pattern=EXACT_PATTERN)


class Quantity(_Strict):
    value: int | str | None = Field(description="exact: integer, decimal string or 'p/q'")
    display: str


class Score(_Strict):
    """Points: integer half-points, exact points and as shown."""

    half_points: int
    value: str = Field(pattern=EXACT_PATTERN, description="points, exact")
    display: str


class TiebreakValue(_Strict):
    criterion: str = Field(description="criterion id (projections/tiebreaks/registry.py)")
    unit: TiebreakUnit
    value: int | str | None = Field(description="exact: integer, decimal string or 'p/q'")
    display: str
    max: str | None = Field(
        default=None,
        pattern=EXACT_PATTERN,
        description="fide-direct-encounter while not all have met: the most the player can "
        "still reach, in points",
    )


class Identity(_Strict):
    """The registered player (PlayerRegistered)."""

    player_id: str
    name: str
    kind: Literal["human", "engine"]
    rating: int | None
    federation: str | None
    title: str | None
    fide_id: int | None
    club: str | None = Field(description="the player's club (PlayerRegistered v5; documents v6)")


class StandingsRow(Identity):
    place: int
    shared: bool
    unresolved: bool
    score: Score
    half_points: int
    played: int
    won: int
    drawn: int
    lost: int
    forfeits_won: int
    forfeits_lost: int
    byes: int
    withdrawn: bool


class CorrectionFlag(_Strict):
    kind: Literal["correction_after_pairing"]
    game_id: str
    stage: str
    round: int
    corrected_at_seq: int
    rounds_paired_before: list[int]
    text: str


class SectionWinner(_Strict):
    player_id: str
    name: str
    half_points: int
    score: Score
    place: int
    shared: bool


class Section(_Strict):
    id: str
    name: str
    players: list[str]
    entries: int
    top_half_points: int
    top_score: Score
    winners: list[SectionWinner]
    tied: bool


class Sections(_Strict):
    system: str
    rule: str
    rounds: int | None
    rounds_finished: int
    status: Literal["not_formed", "in_progress", "final"]
    note: str | None = None
    sections: list[Section]


class CrosstableRound(_Strict):
    """One round from one player's side."""

    round: int
    opponent: str | None
    colour: Literal["white", "black"] | None
    kind: Literal["played", "forfeit_win", "forfeit_loss", "bye", "half_bye", "zero_bye", "advance"]
    outcome: Literal["win", "draw", "loss"]
    half_points: int = Field(description="the round's points, in half-points")
    display: str = Field(description='"1", "½", "0"; "+" / "−" forfeits; a bye\'s points')
    game_id: str | None


class CrosstablePlayer(_Strict):
    player_id: str
    rounds: list[CrosstableRound]


class Crosstable(_Strict):
    """The main stage's crosstable, players in standings order."""

    rounds: int = Field(description="rounds scheduled in the stage")
    players: list[CrosstablePlayer]


class StandingsData(_Strict):
    rows: list[StandingsRow]
    flags: list[CorrectionFlag]
    crosstable: Crosstable | None
    sections: Sections | None = Field(default=None, description="Galway tournaments only")


class ChainEntry(_Strict):
    name: str
    params: dict[str, Any]


class Column(_Strict):
    key: str
    label: str
    source: str
    # Since v6, optional (absent in a document published before): the column's heading in
    # words a spectator reads ("Buchholz cut 1"; `projections.standings.grid.tiebreak_columns`),
    # the article kept out of it (`label`, `source`: the header's tooltip and the legend).
    heading: str | None = Field(
        default=None,
        description="the column's heading in words (the label and source cite the article)",
    )


class TiebreakRow(_Strict):
    player_id: str
    place: int
    shared: bool
    unresolved: bool
    values: dict[str, TiebreakValue] = Field(description="by column key")
    decided_by: str


class TiebreaksData(_Strict):
    chain: list[ChainEntry]
    columns: list[Column]
    pairwise_head_to_head: bool
    rows: list[TiebreakRow]


class TimeControl(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class PlayoffGame(_Strict):
    stage: str
    round: int
    game_id: str
    white: str
    black: str
    time_control: dict[str, Any]
    result: str | None
    scheduled: bool
    pair_id: str | None = None
    opening: str | None = None


class StageScore(Score):
    """A player's score within a playoff stage."""


class PlayoffStage(_Strict):
    name: str
    kind: str
    players: list[str]
    games: list[PlayoffGame]
    byes: list[str]
    scores: dict[str, StageScore]
    advanced: list[str]
    eliminated: list[str]
    complete: bool


class PlayoffBye(_Strict):
    player_id: str
    kind: str


class Requirement(_Strict):
    kind: Literal["lot", "schedule", "results", "ruling"]
    stage: str
    text: str
    template: str | None = Field(
        default=None,
        description="the text with each player named as {player_id}, to render by name "
        "(present when the text names a player; documents v6)",
    )
    round: int | None = None
    lot: dict[str, Any] | None = None
    games: list[PlayoffGame] | None = None
    byes: list[PlayoffBye] | None = None


class PlayoffData(BaseModel):
    """``{"defined": false}`` or the playoff's state. Machines may add keys of their own."""

    model_config = ConfigDict(extra="allow", frozen=True)

    defined: bool
    kind: str | None = None
    status: str | None = None
    rule: str | None = None
    tied: list[str] | None = None
    still_in: list[str] | None = None
    eliminated: list[str] | None = None
    stages: list[PlayoffStage] | None = None
    required_next: list[Requirement] | None = None
    final_order: list[list[str]] | None = None
    notes: list[str] | None = None
    note_templates: list[str] | None = Field(
        default=None,
        description="the notes with each player named as {player_id} (when any note names "
        "one; documents v6)",
    )


Money = Field(pattern=MONEY_PATTERN)


class PrizeLine(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    player_id: str
    places: list[int]
    shared: bool
    prize: str = Field(pattern=MONEY_PATTERN)
    share: str = Field(pattern=MONEY_PATTERN)
    premium: str = Field(pattern=MONEY_PATTERN)
    premium_pending: str | None = Field(pattern=MONEY_PATTERN)
    tour_points: str | None = Field(pattern=EXACT_PATTERN)
    note: str


class PrizeGroup(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    places: list[int]
    players: list[str]
    prizes: list[str]
    pool: str = Field(pattern=MONEY_PATTERN)
    premium: str = Field(pattern=MONEY_PATTERN)
    share: str = Field(pattern=MONEY_PATTERN)
    remainder: str = Field(pattern=MONEY_PATTERN)
    tour_points: list[str] | None
    tour_points_share: str | None = Field(pattern=EXACT_PATTERN)
    text: str


class PrizeTotals(_Strict):
    pool: str = Field(pattern=MONEY_PATTERN)
    paid: str = Field(pattern=MONEY_PATTERN)
    remainder: str = Field(pattern=MONEY_PATTERN)
    pending: str = Field(pattern=MONEY_PATTERN)


class PrizesData(BaseModel):
    """``{"defined": false}``, ``{"defined": true, "error": ...}`` or the split: money as
    exact two-place decimal strings in ``currency``; tour points exact."""

    model_config = ConfigDict(extra="allow", frozen=True)

    defined: bool
    error: str | None = None
    kind: str | None = None
    currency: str | None = None
    status: str | None = None
    premium_rule: str | None = Field(default=None, pattern=MONEY_PATTERN)
    lines: list[PrizeLine] | None = None
    groups: list[PrizeGroup] | None = None
    totals: PrizeTotals | None = None


class LivePlayer(_Strict):
    player_id: str
    name: str
    kind: Literal["human", "engine"] | None
    rating: int | None
    title: str | None
    federation: str | None = None


class LiveBye(_Strict):
    player: LivePlayer
    kind: str = Field(description="the bye's kind, as RoundScheduled gave it")


class LastMove(_Strict):
    ply: int = Field(ge=1)
    colour: Literal["white", "black"]
    uci: str | None
    san: str | None
    point: str | None = Field(description="Go: a GTP vertex or 'pass'")
    move_time_ms: int | None


class Clocks(_Strict):
    white_ms: int | None = Field(description="White's clock, integer milliseconds")
    black_ms: int | None


class Evaluation(_Strict):
    """The last engine evaluation recorded, White's point of view."""

    ply: int = Field(ge=1)
    cp: int | None = Field(description="centipawns")
    mate_in: int | None
    depth: int | None


class LiveGame(_Strict):
    board: int = Field(ge=1, description="board number: the order of RoundScheduled.pairings")
    game_id: str
    white: LivePlayer
    black: LivePlayer
    status: Literal["scheduled", "in_progress", "ended"]
    result: Literal["1-0", "0-1", "1/2-1/2", "0-0", "1-1"] | None
    termination: str | None
    corrected: bool = Field(description="the result in force corrects an earlier one")
    plies: int = Field(ge=0, description="moves in force")
    last_move: LastMove | None
    position_plies: int = Field(ge=0, description="plies the position shows")
    to_move: Literal["white", "black"]
    fen: str | None = Field(description="chess: the position after the moves in force")
    stones: dict[Literal["black", "white"], list[str]] | None = Field(
        description="Go: the stones on the board (GTP vertices)"
    )
    prisoners: dict[Literal["black", "white"], int] | None = Field(
        description="Go: stones captured by each colour"
    )
    clocks: Clocks
    evaluation: Evaluation | None
    handicap: int | None = Field(default=None, description="Go only")


class LiveRound(_Strict):
    stage: str
    round: int
    cycle: int | None
    games: int
    ended: int
    in_progress: int


class GamesData(_Strict):
    game: Literal["chess", "go"]
    board_size: int | None = Field(description="Go only")
    engine_event: bool = Field(description="every registered player is an engine")
    round: LiveRound | None = Field(description="the latest round scheduled; null before any")
    pairings: list[LiveGame]
    byes: list[LiveBye]


class _Document(_Strict):
    tournament_id: str
    version: Literal[6]
    as_of_seq: int = Field(ge=0)


class StandingsDocument(_Document):
    projection: Literal["standings"]
    data: StandingsData


class TiebreaksDocument(_Document):
    projection: Literal["tiebreaks"]
    data: TiebreaksData


class PlayoffDocument(_Document):
    projection: Literal["playoff"]
    data: PlayoffData


class PrizesDocument(_Document):
    projection: Literal["prizes"]
    data: PrizesData


class GamesDocument(_Document):
    projection: Literal["games"]
    data: GamesData


#: The model of each published projection's document, by name: one per name of the registry
#: (`projections/names.py`; the schema export checks the two agree).
DOCUMENT_MODELS: dict[str, type[_Document]] = {
    "standings": StandingsDocument,
    "tiebreaks": TiebreaksDocument,
    "playoff": PlayoffDocument,
    "prizes": PrizesDocument,
    "games": GamesDocument,
}

# A projection's name and its document (one of), read from DOCUMENT_MODELS: a new document is
# one entry there. (The type checker sees their common base.)
if TYPE_CHECKING:
    ProjectionName = str
    Document = _Document
else:
    ProjectionName = Literal[tuple(DOCUMENT_MODELS)]
    Document = functools.reduce(operator.or_, DOCUMENT_MODELS.values())


class SseProjectionMessage(_Strict):
    """One Server-Sent Event of `GET /tournaments/{id}/stream`: ``event:`` the projection name,
    ``id:`` its ``as_of_seq`` (on the last event of a run with the same seq), ``data:`` the
    document's canonical JSON bytes (the same as `GET /tournaments/{id}/projections/{name}`
    and `arbiter replay --json`)."""

    event: ProjectionName
    id: int | None = Field(default=None, description="as_of_seq")
    data: Document = Field(discriminator="projection")


class SseHeldMessage(_Strict):
    """``event: held``: the tournament's projections stopped being published (data: why), or
    resumed (data: null)."""

    event: Literal["held"]
    data: Any


class SseRevokedMessage(_Strict):
    """``event: revoked`` (data ``{}``): the stream's token no longer covers the tournament."""

    event: Literal["revoked"]
    data: dict[str, Any]


class PatchOperation(_Strict):
    """One RFC 6902 JSON Patch operation; the feed sends only these three. `value` is there
    for `add` and `replace` (it may be null) and absent for `remove`."""

    op: Literal["add", "remove", "replace"]
    path: str = Field(description="RFC 6901 JSON Pointer into the projection message")
    value: Any = None


class PatchData(_Strict):
    """A new version of a projection message as the operations that turn the version the
    connection holds (`base_seq`) into it (`as_of_seq`): applied to that message, they give
    the full message of `as_of_seq` (re-encoded canonically, the same bytes)."""

    projection: ProjectionName
    tournament_id: str
    version: Literal[6]
    base_seq: int = Field(ge=0, description="as_of_seq of the message the ops apply to")
    as_of_seq: int = Field(ge=0)
    ops: list[PatchOperation]


class SsePatchMessage(_Strict):
    """``event: patch``, only on a stream opened with ``?patches=true``: a projection whose
    full message was already sent on this connection, as a patch of it (when smaller than the
    full message; else the full message is sent, as without the option). ``id:`` as for the
    projection messages."""

    event: Literal["patch"]
    id: int | None = Field(default=None, description="as_of_seq")
    data: PatchData


SseMessage = SseProjectionMessage | SsePatchMessage | SseHeldMessage | SseRevokedMessage


class SseMessages(BaseModel):
    """The messages of the SSE stream (one of)."""

    model_config = ConfigDict(frozen=True)

    message: SseMessage


def validate_document(doc: dict[str, Any]) -> BaseModel:
    """Validate one published document against its model (raises pydantic's ValidationError)."""
    return DOCUMENT_MODELS[doc["projection"]].model_validate(doc)
