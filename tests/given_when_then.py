"""Given events / when a command / then events or a refusal (Commanded's `assert_events`) for
the tournament decider: the given events are sealed with `recorded(...)` and folded, bypassing
the decider (an old log may hold anything); only the command under test goes through `decide`."""

from __future__ import annotations

import pytest
from builders import recorded

from events_schema import Event
from projections.rejection import Rejected
from projections.tournament import TournamentState, decide, fold


def given(*events: Event) -> TournamentState:
    """The tournament state after these events (stream "t1")."""
    return fold(recorded("t1", list(events)))


def then_events(events: list[Event], command: Event, expected: list[Event]) -> None:
    """Given past events, when a command, then exactly these events: the same events, in the
    same order, field for field."""
    assert decide(given(*events), command) == expected


def then_accepted(events: list[Event], command: Event) -> None:
    """Given past events, when a command, then the command itself is the one event stored."""
    then_events(events, command, [command])


def then_rejected(events: list[Event], command: Event, rule: str, field: str) -> Rejected:
    """Given past events, when a command, then it is refused under `rule`, naming `field`."""
    with pytest.raises(Rejected) as info:
        decide(given(*events), command)
    assert (info.value.rule, info.value.field) == (rule, field), info.value
    return info.value
