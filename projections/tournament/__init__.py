"""The tournament aggregate: its state (`state.py`), the fold (`evolve.py`) and the decider
(`decide.py`, its rules by seam in `rules/`), with the bridges the rules use (`endings.py`,
`go_play.py`, `playoff_guards.py`, `invalidation.py`)."""

from projections.tournament.decide import decide
from projections.tournament.evolve import evolve, fold
from projections.tournament.state import GameState, PlayerState, TournamentState

__all__ = ["GameState", "PlayerState", "TournamentState", "decide", "evolve", "fold"]
