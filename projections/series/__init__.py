"""Series tables over several tournaments: the GCT tour (§4) and the Czech club series."""

from projections.series.common import Entry, EventStanding, Placing, event_standing
from projections.series.czech import (
    READINGS,
    CzechResult,
    CzechRow,
    CzechTable,
    counted_per_player,
    czech_series_progression,
    czech_series_table,
)
from projections.series.gct_tour import TourResult, TourRow, TourTable, TourTie, gct_tour_table

__all__ = [
    "READINGS",
    "CzechResult",
    "CzechRow",
    "CzechTable",
    "Entry",
    "EventStanding",
    "Placing",
    "TourResult",
    "TourRow",
    "TourTable",
    "TourTie",
    "counted_per_player",
    "czech_series_progression",
    "czech_series_table",
    "event_standing",
    "gct_tour_table",
]
