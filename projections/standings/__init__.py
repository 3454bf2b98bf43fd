"""Standings: points and game counts per player, folded from the tournament's events."""

from projections.standings.points import PlayerScore, Standings, evolve, fold, table

__all__ = ["PlayerScore", "Standings", "evolve", "fold", "table"]
