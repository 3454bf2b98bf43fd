"""Seasons: a series of tournaments played in stages, the next stage's field derived from the
finished stages' standings (TCEC Leagues Season, Swiss and Cup, FRD, 4k).

- `structure`: the stages of a format as data (sources, relegations, articles) and the plan;
- `tcec`, `frd`, `fourk`: the formats, with their readings;
- `reading`: a stage's outcome from its tournament's fold (finished? in what order?);
- `derive`: the next stage's field from the finished stages (or what blocks it);
- `view`: the whole season, the moves, the next Season's placement.

Pure: no I/O, clock or randomness; the edge is `services/commands/seasons.py`.
"""

from projections.seasons.derive import Blocked, Derived, Inputs, derive_field, tournament_id
from projections.seasons.reading import StageOutcome, Standing, read_stage
from projections.seasons.structure import (
    PLAN_SUBJECT,
    FieldEntry,
    SeasonFormat,
    SeasonPlan,
    StageSpec,
    total_rounds,
)
from projections.seasons.view import (
    FIELD_PREFIX,
    FORMATS,
    PLACEMENT_SUBJECT,
    Move,
    Placement,
    SeasonView,
    StageView,
    field_subject,
    season_view,
)

__all__ = [
    "FIELD_PREFIX",
    "FORMATS",
    "PLACEMENT_SUBJECT",
    "PLAN_SUBJECT",
    "Blocked",
    "Derived",
    "FieldEntry",
    "Inputs",
    "Move",
    "Placement",
    "SeasonFormat",
    "SeasonPlan",
    "SeasonView",
    "StageOutcome",
    "StageSpec",
    "StageView",
    "Standing",
    "derive_field",
    "field_subject",
    "read_stage",
    "season_view",
    "total_rounds",
    "tournament_id",
]
