"""The organiser's inputs that are not events, and how a problem in one is named.

An organiser writes a few values that the commands read and turn into events: the season plan
(`projections.seasons.SeasonPlan`, the decision of the plan ruling), the prize table
(`events_schema.events.PrizeTable`), the Go settings (`events_schema.go.GoSettings`) and the
GCT coin toss winner's choice of colour (`CoinTossChoice`, below). Their JSON Schema is
exported beside the events' (`events_schema/json/inputs/`, `arbiter schema export|check`), and
a file with several mistakes is refused with all of them at once: `problems` turns every error
pydantic found into a `Problem` naming its place (`plan.engines[0].rating`), so the organiser
fixes the file in one go instead of one mistake per run.

No I/O: the services read the files (`services/inputs.py`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from events_schema.ids import GameId


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input: the rule it breaks, where (`plan.engines[0].rating`),
    and what to change."""

    rule: str
    field: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"rule": self.rule, "field": self.field, "message": self.message}


def path(root: str, loc: Iterable[str | int]) -> str:
    """A pydantic location under `root`: ("engines", 0, "rating") -> "plan.engines[0].rating"."""
    out = root
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def problems(exc: ValidationError, rule: str, root: str) -> list[Problem]:
    """Every error of `exc`, each with its place under `root`, in pydantic's order."""
    return [Problem(rule, path(root, err["loc"]), err["msg"]) for err in exc.errors()]


class CoinTossChoice(BaseModel):
    """The colour the winner of a game's coin toss chose (GCT 2.5.3/3.5.3: "The winner of the
    toss shall have choice of color"). `arbiter playoff T --schedule --toss-choice
    GAME=white|black` gives it; without one, the toss winner plays White."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    game_id: GameId = Field(description="the Armageddon game whose coin toss is recorded")
    winner_plays: Literal["white", "black"] = Field(
        description="the colour the toss winner chose (GCT 2.5.3 / 3.5.3)"
    )
