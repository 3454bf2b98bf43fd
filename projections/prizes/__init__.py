"""Prize money and tour points: GCT event splits (2.6–2.8, 3.6–3.8) and the tour bonus (4.2)."""

from projections.prizes.common import Placed, points_str, split_money
from projections.prizes.corrections import InForce, points_table_in_force, prize_table_in_force
from projections.prizes.gct import (
    CLASSICAL_PREMIUM,
    RAPID_BLITZ_PREMIUM,
    PrizeLine,
    PrizeSplit,
    SplitGroup,
    classical_preset,
    event_prizes,
    event_split,
    tour_bonus_split,
)

__all__ = [
    "CLASSICAL_PREMIUM",
    "RAPID_BLITZ_PREMIUM",
    "InForce",
    "Placed",
    "PrizeLine",
    "PrizeSplit",
    "SplitGroup",
    "classical_preset",
    "event_prizes",
    "event_split",
    "points_str",
    "points_table_in_force",
    "prize_table_in_force",
    "split_money",
    "tour_bonus_split",
]
