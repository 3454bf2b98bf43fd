"""The ending the adjudicator proposes: what a `GameEnded` would carry, and where."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from events_schema.events import GameEnded, Termination
from events_schema.ids import GameId

Result = Literal["1-0", "0-1", "1/2-1/2"]


@dataclass(frozen=True, slots=True)
class Ending:
    """A game's end by rule: `ply` is the 1-based half-move at which it ended (the move that
    mated, repeated, completed the 8th draw-rule ply, was illegal, or overstepped the time;
    0 for a start position that is already over)."""

    result: Result
    termination: Termination
    rule: str  # the citation, "tcec-rules Leagues 10.2"
    detail: str  # human text, ending with the citation
    ply: int

    def game_ended(self, game_id: GameId) -> GameEnded:
        """The `GameEnded` event to propose."""
        return GameEnded(
            game_id=game_id, result=self.result, termination=self.termination, detail=self.detail
        )


def win_for(white: bool) -> Result:
    return "1-0" if white else "0-1"


def armageddon(ending: Ending, citation: str) -> Ending:
    """GCT 2022 2.5.2 / 3.5.2: "In the event of a draw Black shall be declared the winner." A
    drawn ending becomes a win for Black with termination "armageddon"; others are unchanged."""
    if ending.result != "1/2-1/2":
        return ending
    return Ending(
        "0-1",
        "armageddon",
        citation,
        f"{ending.detail}; a draw, and in an Armageddon game Black is declared the winner "
        f"({citation})",
        ending.ply,
    )
