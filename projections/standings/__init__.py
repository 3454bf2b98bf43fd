"""Standings: the fold, the crosstable, and the ranked table with tiebreaks."""

from projections.standings.crosstable import Crosstable, Entry, Game
from projections.standings.crosstable import build as crosstable
from projections.standings.state import StandingsState, evolve, fold
from projections.standings.table import Row, Table, explain, standings

__all__ = [
    "Crosstable",
    "Entry",
    "Game",
    "Row",
    "StandingsState",
    "Table",
    "crosstable",
    "evolve",
    "explain",
    "fold",
    "standings",
]
