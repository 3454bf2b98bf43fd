"""Playoff state machines: each a pure function of the tournament's standings fold.

`playoff_view(state)` picks the machine the tournament's `rules_preset` names. The GCT overall
tour playoff (`gct_tour.view`) also needs the series' overall table, so its callers pass it."""

from __future__ import annotations

from projections.playoffs import gct_event, tcec
from projections.playoffs.base import PlayoffView
from projections.standings.state import StandingsState

EVENT_MACHINES = {
    "gct": gct_event.view,
    "gct-rapid-blitz": gct_event.view,
    "gct-classical": gct_event.view,
    "tcec-premier": tcec.conditional_tiebreak,
    "tcec-cup": tcec.match,
    "tcec-superfinal": tcec.match,
    "tcec-frd-final": tcec.match,
    "tcec-4k-minifinal": tcec.match,
}


def playoff_view(state: StandingsState) -> PlayoffView | None:
    """The playoff of this tournament's rules, or None when its rules have none."""
    preset = state.created.rules_preset if state.created is not None else None
    machine = EVENT_MACHINES.get(preset or "")
    return machine(state) if machine is not None else None


__all__ = ["EVENT_MACHINES", "PlayoffView", "playoff_view"]
