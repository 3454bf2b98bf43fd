"""Setting the broadcast delay (`arbiter delay`, `POST /tournaments/{id}/delay`): a
`BroadcastDelaySet` appended through the command path, so the decider checks it (an arbiter of
the tournament or an admin; `delay.unchanged` when it is the delay already in force) and it is
in the log like every setting: the feed (services/feed/delay.py) reads it from there."""

from __future__ import annotations

from typing import TYPE_CHECKING

from events_schema import Actor, Command, CommandBatch

if TYPE_CHECKING:
    from services.commands.service import CommandService
    from services.eventlog.base import AppendResult


def set_broadcast_delay(
    service: CommandService, tournament: str, seconds: int, reason: str, actor: Actor
) -> AppendResult:
    """Append the `BroadcastDelaySet` of `seconds` (0: live) with its `reason`."""
    payload = {"seconds": seconds, "reason": reason}
    batch = CommandBatch(commands=[Command(type="BroadcastDelaySet", payload=payload)])
    return service.handle(tournament, batch, actor)
