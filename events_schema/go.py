"""Go settings carried by `TournamentCreated.go` (London Go Centre rules; McMahon pairing).

Where the seed (`lgc-go-tournament-rules.txt`) is silent, the McMahon settings follow
OpenGotha's conventions (the tool Go organisers know), named beside each field. The
conventions added for issue 26 (start score corrections, results not entered, virtual scores,
hiding players never paired, the Swiss criteria and their NBW points) default to the
behaviour before them, so a `TournamentCreated` stored earlier reads exactly as it did and
keeps its schema_version (fields added with their defaults; nothing renamed or narrowed). Ranks are
written as Go players write them: "30k" … "1k", "1d" … "9d" (amateur), "1p" … "9p".
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from events_schema.ids import PlayerId

#: "30k" … "1k", "1d" … "9d", "1p" … "9p"
RANK_PATTERN = r"^(?:(?:[1-9]|[12][0-9]|30)k|[1-9]d|[1-9]p)$"

GoCriterion = Literal[
    "MMS",
    "SOS",
    "SOSOS",
    "SODOS",
    "DC",
    "RATING",
    "NBW",
    "SOSW",
    "SOSOSW",
    "SODOSW",
    "SOS-1",
    "SOS-2",
    "SOSW-1",
    "SOSW-2",
    "CUSS",
    "CUSSW",
    "STS",
    "SOSTS",
    "EXT",
    "EXR",
    "SDC",
    "RANK",
    "CAT",
    "CPS",
]
#: OpenGotha PlacementParameterSet.PLA_SMMS_CORR_MIN / PLA_SMMS_CORR_MAX: the range of a
#: player's McMahon start score correction (`smmsCorrection`).
START_CORRECTION_MIN, START_CORRECTION_MAX = -1, 2
#: OpenGotha GeneralParameterSet: at most 9 categories, so 8 lower limits.
MAX_CATEGORY_LIMITS = 8
#: OpenGotha's default McMahon placement criteria (MMS, then SOS, then SOSOS)
DEFAULT_CRITERIA: tuple[GoCriterion, ...] = ("MMS", "SOS", "SOSOS")


def rank_order(rank: str) -> int:
    """A rank's place on one scale (30k = -30 … 1k = -1, 1d = 0 … 9d = 8, professional
    ranks above): for comparing ranks only (McMahon scores: projections/tiebreaks/mcmahon)."""
    n, kind = int(rank[:-1]), rank[-1]
    return -n if kind == "k" else n - 1 if kind == "d" else 8 + n


class GoSettings(BaseModel):
    """How a Go tournament is run where the LGC rules leave it to the organiser."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    # -- McMahon (LGC "Top groups"; OpenGotha where the seed is silent) ------------------------
    mcmahon_bar: str | None = Field(
        default=None,
        pattern=RANK_PATTERN,
        description="players ranked at or above the bar start on the bar's McMahon score "
        "(OpenGotha 'McMahon bar'); None: no bar (start scores from rank alone)",
    )
    mcmahon_floor: str = Field(
        default="30k",
        pattern=RANK_PATTERN,
        description="players ranked below the floor start on the floor's score (OpenGotha)",
    )
    supergroup_size: int = Field(
        default=0,
        ge=0,
        le=1000,
        description="players at the top who form a supergroup above the bar (0: none)",
    )
    top_groups_below_bar: int = Field(
        default=1,
        ge=0,
        le=10,
        description="LGC Top groups: the supergroups, the group above the bar and the group "
        "just below it (1); a setting",
    )
    handicap: Literal["none", "rank_difference"] = Field(
        default="none",
        description="handicap from the difference of McMahon scores (OpenGotha hdBasedOnMMS); "
        "not in the seed, so none unless configured",
    )
    handicap_correction: int = Field(
        default=1, ge=0, le=9, description="stones taken off the difference (OpenGotha)"
    )
    handicap_ceiling: int = Field(default=9, ge=0, le=9, description="OpenGotha hdCeiling")
    bye_points: Decimal = Field(
        default=Decimal("1"), ge=0, le=1, description="McMahon points for a pairing bye"
    )
    absence_points: Decimal = Field(
        default=Decimal("0.5"),
        ge=0,
        le=1,
        description="McMahon points for a round skipped (OpenGotha: ½ by default)",
    )
    nbw_bye_points: Decimal = Field(
        default=Decimal("1"),
        ge=0,
        le=1,
        description="NBW (Swiss) points for a pairing bye (OpenGotha genNBW2ValueBye: 1 by "
        "default), apart from the McMahon ones",
    )
    nbw_absence_points: Decimal = Field(
        default=Decimal("0"),
        ge=0,
        le=1,
        description="NBW (Swiss) points for a round skipped (OpenGotha genNBW2ValueAbsent: 0 "
        "by default), apart from the McMahon ones",
    )
    round_down: bool = Field(
        default=True,
        description="accumulated half points rounded down in the McMahon score (OpenGotha)",
    )
    start_score_corrections: dict[
        PlayerId, Annotated[int, Field(ge=START_CORRECTION_MIN, le=START_CORRECTION_MAX)]
    ] = Field(
        default_factory=dict,
        max_length=10_000,
        description="a correction of one player's McMahon start score, added after the "
        "floor and the bar (OpenGotha Player.smmsCorrection: 1 for a supergroup, 2 for a "
        "super-supergroup, -1 below its group), from -1 to 2 (OpenGotha PLA_SMMS_CORR_MIN, "
        "PLA_SMMS_CORR_MAX); a player never registered is not read",
    )
    unentered_results: Literal["not_counted", "opengotha"] = Field(
        default="not_counted",
        description="a paired game whose result is not yet entered: 'not_counted' (a round "
        "without a game until the result comes) or 'opengotha' (OpenGotha RESULT_UNKNOWN: a "
        "game played, no points for either side, the opponent's score counted in SOS)",
    )
    count_not_played_as_half_point: bool = Field(
        default=False,
        description="OpenGotha genCountNotPlayedGamesAsHalfPoint: in SOS, SOSOS and SODOS an "
        "opponent's score counts every round they did not play over the board (no game, "
        "bye, absence, forfeit, result not entered) as ½ instead of its points",
    )
    count_planned_rounds: bool = Field(
        default=False,
        description="the standings count the tournament's planned rounds (`rounds`), each "
        "round not played yet a round without a game (SOS: the player's own start score), as "
        "OpenGotha's final standings do (its h9 and AGA exports and the standings of the last "
        "round: ExternalDocument.generateH9File, roundNumber = numberOfRounds - 1); default: "
        "the rounds scheduled so far, as OpenGotha's standings of the current round",
    )
    hide_players_never_paired: bool = Field(
        default=False,
        description="a display choice: players paired in no round (no game, with or without "
        "a result, and no pairing bye) are left out of the standings, the others' places "
        "counted without them (OpenGotha DPParameterSet.displayNPPlayers false: "
        "Tournament.isPlayerImplied); read where the Go chain ranks alone (McMahon, or NBW "
        "first)",
    )
    category_lower_limits: list[Annotated[str, Field(pattern=RANK_PATTERN)]] = Field(
        default_factory=list,
        max_length=MAX_CATEGORY_LIMITS,
        description="the players' categories, by rank (OpenGotha GeneralParameterSet "
        "lowerCategoryLimits, numberOfCategories = limits + 1): category 1 holds the players "
        "ranked at or above the first limit, category 2 those at or above the second, and so "
        "on, the last the rest (Player.category); read by the CAT criterion only (empty: one "
        "category)",
    )
    criteria: list[GoCriterion] = Field(
        default_factory=lambda: list(DEFAULT_CRITERIA),
        min_length=1,
        max_length=6,
        description="ranking criteria in order (OpenGotha names, the McMahon ones without "
        "their M: SOS is OpenGotha's SOSM; at most 6, OpenGotha PLA_MAX_NUMBER_OF_CRITERIA): "
        "MMS, SOS, SOS-1, SOS-2 (SOS without the 1 or 2 lowest), SOSOS, SODOS, CUSS "
        "(cumulative sum of McMahon scores), STS and SOSTS (Strasbourg score), DC and SDC "
        "(direct confrontation, simplified, among the players level on the criteria before "
        "it), RATING, RANK, CAT (the category of `category_lower_limits`, the first best), "
        "and the Swiss system's NBW, SOSW, SOSW-1, SOSW-2, SOSOSW, SODOSW, "
        "CUSSW, EXT and EXR (exploits attempted and achieved), and CPS (OpenGotha's cup "
        "score) (with NBW, CPS or CAT first, a Go tournament is ranked by these criteria "
        "alone, as OpenGotha ranks a Swiss or a cup)",
    )

    # -- Timing (LGC Timing rules "Start") ---------------------------------------------------
    clock_start_minutes: int = Field(
        default=15,
        ge=0,
        le=240,
        description="LGC Timing Start: Black's clock starts this long after the round's start "
        "(by default 15 minutes)",
    )
    late_forfeit_minutes: int = Field(
        default=30, ge=1, le=600, description="LGC Timing Start: late by 30 minutes or more"
    )

    @model_validator(mode="after")
    def _consistent(self) -> GoSettings:
        if self.mcmahon_bar is not None and rank_order(self.mcmahon_bar) < rank_order(
            self.mcmahon_floor
        ):
            raise ValueError(
                f"mcmahon_bar {self.mcmahon_bar} is below mcmahon_floor {self.mcmahon_floor}: "
                "the bar is at or above the floor (OpenGotha)"
            )
        for name in ("bye_points", "absence_points", "nbw_bye_points", "nbw_absence_points"):
            value: Decimal = getattr(self, name)
            if (value * 2) % 1 != 0:
                raise ValueError(f"{name} {value}: McMahon points are 0, 1/2 or 1 (OpenGotha)")
        if self.start_score_corrections and self.supergroup_size:
            raise ValueError(
                "start_score_corrections and supergroup_size both set: OpenGotha's supergroup "
                "is a start score correction of +1 player by player; give one or the other"
            )
        return self

    late_from: Literal["round_start", "clock_start"] = Field(
        default="clock_start",
        description="what 'late' is measured from: the clock's start (the default reading: "
        "a player is late once their clock runs) or the round's start",
    )
