"""The arena's limits: the tournament's time control, or a run-level limit that overrides it.

`--nodes N` (a fixed node count per move) or `--time-control BASE+INC` (seconds, as
cutechess-cli and fastchess write `tc=2+0.1`: 2 s and 0.1 s a move) is for tests and quick
events: it overrides the tournament's time control for the run and is recorded as an event,
`RulingIssued(subject="arena:limit")` with the limit in `decision` (`{"nodes": N}`, or
`{"base_ms": B, "increment_ms": I}`; `{"tournament_time_control": true}` when a later run
goes back to the tournament's clocks), appended when it differs from the one in force, so an
auditor reads under which limit each move was played (the ruling's seq against the moves').

Clocks (`projections/endings/clock.py`, the decider's model): a move's time is taken off the
mover's clock, then the increment is added (from `increment_from_move` on); a move that took
longer than the time left is a flag fall. Under a node limit no clock runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from projections.endings.clock import ClockSpec

SUBJECT = "arena:limit"  # projections/rulings.py lists it


@dataclass(frozen=True)
class RunLimit:
    nodes: int | None = None
    base_ms: int | None = None
    increment_ms: int = 0

    @classmethod
    def parse_time_control(cls, text: str) -> RunLimit:
        """`BASE+INC` in seconds (`2+0.1`, `60`); ValueError names the mistake."""
        base, _, inc = text.strip().partition("+")
        try:
            base_s, inc_s = float(base), float(inc or 0)
        except ValueError:
            raise ValueError(f"{text!r}: give BASE+INC in seconds, e.g. 2+0.1") from None
        if base_s <= 0 or inc_s < 0:
            raise ValueError(f"{text!r}: the base must be more than 0 s, the increment 0 s or more")
        return cls(base_ms=round(base_s * 1000), increment_ms=round(inc_s * 1000))

    @property
    def clock(self) -> ClockSpec | None:
        if self.base_ms is None:
            return None
        return ClockSpec(self.base_ms, self.base_ms, self.increment_ms, 1)

    def decision(self) -> dict[str, Any]:
        if self.nodes is not None:
            return {"nodes": self.nodes}
        return {"base_ms": self.base_ms, "increment_ms": self.increment_ms}

    def words(self) -> str:
        if self.nodes is not None:
            return f"{self.nodes} nodes a move"
        return f"{(self.base_ms or 0) / 1000:g} s + {self.increment_ms / 1000:g} s a move"


TOURNAMENT = {"tournament_time_control": True}
