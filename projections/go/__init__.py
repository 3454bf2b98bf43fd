"""Go: the board (moves, captures, ko and situational superko), fixed handicap placement and
LGC scoring (territory with prisoners filled in, komi), as pure code for the fold.

Seed: LGC Tournament Rules (`lgc-go-tournament-rules.txt`), cited beside the code.
"""

from .board import Colour, GoBoard, MoveResult, Point, format_point, other, parse_point
from .handicap import handicap_points
from .scoring import GoCount, count, komi_for, unfilled_dame

__all__ = [
    "Colour",
    "GoBoard",
    "GoCount",
    "MoveResult",
    "Point",
    "count",
    "format_point",
    "handicap_points",
    "komi_for",
    "other",
    "parse_point",
    "unfilled_dame",
]
