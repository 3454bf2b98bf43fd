"""The broadcast delay in force (issue 25 item 3): the `BroadcastDelaySet` events in force,
oldest first; the latest one's seconds, 0 (live) when none is. A retraction removes its entry,
so the one before it is in force again. One reading for the decider's fold
(`projections/tournament/evolve.py`) and the feed (`services/feed/delay.py`, which reads it off
the live log: the delay in force now applies, not the one in force N seconds ago)."""

from __future__ import annotations

from dataclasses import dataclass, field
from uuid import UUID


@dataclass
class BroadcastDelay:
    settings: list[tuple[UUID, int]] = field(default_factory=list)  # (event id, seconds)

    @property
    def seconds(self) -> int:
        return self.settings[-1][1] if self.settings else 0

    def set(self, event_id: UUID, seconds: int) -> None:
        self.settings.append((event_id, seconds))

    def retract(self, event_id: UUID) -> None:
        self.settings = [s for s in self.settings if s[0] != event_id]
