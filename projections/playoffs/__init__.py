"""Playoff state machines: each a pure function of the tournament's standings fold.

`playoff_view(state, table)` picks the machine the tournament's `rules_preset` names; `table`
is the main stage's standings when the caller has them (computed from the fold otherwise).
The GCT overall tour playoff (`gct_tour.view`) also needs the series' overall table, so its
callers pass it."""

from __future__ import annotations

from collections.abc import Callable

from projections.playoffs import gct_event, tcec_conditional, tcec_match
from projections.playoffs.base import PlayoffView
from projections.standings.state import StandingsState
from projections.standings.table import Table

Machine = Callable[[StandingsState, Table | None], PlayoffView]

EVENT_MACHINES: dict[str, Machine] = {
    "gct": gct_event.view,
    "gct-rapid-blitz": gct_event.view,
    "gct-classical": gct_event.view,
    "tcec-premier": tcec_conditional.conditional_tiebreak,
    "tcec-cup": tcec_match.match,
    "tcec-superfinal": tcec_match.match,
    "tcec-frd-final": tcec_match.match,
    "tcec-4k-minifinal": tcec_match.match,
}


def playoff_view(state: StandingsState, table: Table | None = None) -> PlayoffView | None:
    """The playoff of this tournament's rules, or None when its rules have none."""
    preset = state.created.rules_preset if state.created is not None else None
    machine = EVENT_MACHINES.get(preset or "")
    return machine(state, table) if machine is not None else None


__all__ = ["EVENT_MACHINES", "PlayoffView", "playoff_view"]
