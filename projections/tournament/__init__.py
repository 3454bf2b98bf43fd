"""The tournament aggregate: its state, the fold and the decider."""

from projections.tournament.decide import decide
from projections.tournament.evolve import evolve, fold
from projections.tournament.state import GameState, PlayerState, TournamentState

__all__ = ["GameState", "PlayerState", "TournamentState", "decide", "evolve", "fold"]
