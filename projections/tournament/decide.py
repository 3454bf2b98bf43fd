"""The decider: validate a proposed event against the tournament's state.

`decide(state, proposed)` returns the events to append (usually the proposed one, sometimes
with consequences the rules attach to it) or raises `Rejected` naming the rule and the field.
It never mutates the state. Each event type is decided by its rule (`@rule(T)`,
`projections/tournament/rules/registry.py`); a type without one is refused (`event.no_rule`).
The rules are grouped by seam in `projections/tournament/rules/`: `registration.py`
(creation, players, lots, rounds), `play.py` (chess and what both games share), `go.py` (LGC),
`arbitration.py` (rulings, sanctions, appeals, pauses), `corrections.py` (results corrected,
events retracted); `lookups.py` holds the refusals they share.
"""

from __future__ import annotations

from events_schema import events as ev
from projections.rejection import Rejected

# The rules register themselves (`@rule(T)`) when their modules are imported: one per seam.
from projections.tournament.rules import (  # noqa: F401
    arbitration,
    constraints,
    corrections,
    go,
    play,
    registration,
)
from projections.tournament.rules.registry import rule_for
from projections.tournament.state import TournamentState

_CREATION = (ev.TournamentCreated, ev.SeriesCreated)
# Events a series stream may hold besides its creation.
_SERIES_EVENTS = (ev.RulingIssued, ev.LotDrawn, ev.EventRetracted)


def decide(state: TournamentState, proposed: ev.Event) -> list[ev.Event]:
    if state.unreadable:
        # A stored event no reader can decode holds its stream: what it did is unknown, so
        # nothing may be decided on top of it. Its retraction needs no decoding (by event
        # id); the admin may then append what it should have said (supersede).
        if (
            isinstance(proposed, ev.EventRetracted)
            and proposed.retracted_event_id in state.unreadable
        ):
            return [proposed]
        eid, (seq, reason) = min(state.unreadable.items(), key=lambda kv: kv[1][0])
        raise Rejected(
            "stream.unreadable_event",
            "type",
            f"the stored event at seq {seq} ({eid}) cannot be read ({reason}); an admin must "
            f"retract it first: EventRetracted with retracted_event_id {eid}",
        )
    if state.kind == "none" and not isinstance(proposed, _CREATION):
        raise Rejected(
            "stream.not_created",
            "type",
            f"{proposed.event_type} before TournamentCreated/SeriesCreated: create the "
            "tournament first",
        )
    if state.kind == "series" and not isinstance(proposed, _SERIES_EVENTS):
        raise Rejected(
            "series.event_not_allowed",
            "type",
            f"a series stream holds only rulings, lots and retractions, not {proposed.event_type}",
        )
    decides = rule_for(type(proposed))
    if decides is None:
        # Nothing is accepted by default: an event type is accepted only by its rule
        # (projections/tournament/rules/registry.py), even one that accepts it as proposed.
        raise Rejected(
            "event.no_rule",
            "type",
            f"no rule of the decider decides {proposed.event_type}: it cannot be appended",
        )
    return decides(proposed, state)
