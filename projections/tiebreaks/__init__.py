"""The tiebreak library: criteria (each citing its rule), chains, presets.

Importing this package registers every criterion."""

from projections.tiebreaks import common, czech, fide, tcec  # noqa: F401  (register criteria)
from projections.tiebreaks.chain import Boundary, Chain, Ranking, Step, rank, validate
from projections.tiebreaks.registry import REGISTRY, Criterion, Value

__all__ = [
    "REGISTRY",
    "Boundary",
    "Chain",
    "Criterion",
    "Ranking",
    "Step",
    "Value",
    "rank",
    "validate",
]
