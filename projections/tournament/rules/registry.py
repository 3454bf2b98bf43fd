"""The registry of the decider's rules: one rule per event type, registered with `@rule(T)`.

`projections/tournament/decide.py` looks the proposed event's type up here; a type without a
rule is refused (`event.no_rule`), never accepted by default. An event type accepted as
proposed still has its rule (one returning `[proposed]`), so that accepting it is written
down. `tests/unit/projections/tournament/test_decider.py` checks that every type in `EVENT_CLASSES`
has one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from events_schema import events as ev
from projections.tournament.state import TournamentState

E = TypeVar("E", bound=ev.Event)
#: A rule: the events to append for a proposed event of its type, or `Rejected`.
Rule = Callable[[E, TournamentState], list[ev.Event]]

#: Event type -> its rule (exact type: event classes do not inherit from one another).
RULES: dict[type[ev.Event], Rule[Any]] = {}


def rule(event_type: type[E]) -> Callable[[Rule[E]], Rule[E]]:
    """Register the decorated function as the rule deciding `event_type` (once per type)."""

    def register(fn: Rule[E]) -> Rule[E]:
        if event_type in RULES:
            raise ValueError(f"{event_type.__name__} has a rule already")
        RULES[event_type] = fn
        return fn

    return register


def rule_for(event_type: type[ev.Event]) -> Rule[Any] | None:
    """The rule deciding `event_type`, None when it has none."""
    return RULES.get(event_type)
