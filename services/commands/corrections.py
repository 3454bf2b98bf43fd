"""Correcting the result in force of a game (`arbiter correct`): a `ResultCorrected` naming
the event it corrects, appended through the command path (admins only:
services/commands/service.py `ADMIN_ONLY`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from events_schema import Actor, Command, CommandBatch
from services.commands.service import CommandRejected, CommandService

if TYPE_CHECKING:
    from projections.tournament.state import ResultEntry
    from services.eventlog.base import AppendResult


def correct_result(
    service: CommandService,
    tournament: str,
    game_id: str,
    result: str,
    reason: str,
    actor: Actor,
    termination: str | None = None,
) -> tuple[AppendResult, ResultEntry]:
    """Append the `ResultCorrected` of `game_id`'s result in force (its termination kept
    unless another is given); the result and the result in force it corrects. Refused
    (`correction.no_result`) when the game has no result in force."""
    game = service.state(tournament).games.get(game_id)
    current = game.result if game is not None else None  # the latest in force
    if current is None:
        raise CommandRejected(
            "correction.no_result",
            "GAME_ID",
            f"{tournament}: {game_id} has no result in force to correct",
        )
    payload = {
        "corrects_event_id": str(current.event_id),
        "game_id": game_id,
        "result": result,
        "termination": termination or current.termination,
        "reason": reason,
    }
    batch = CommandBatch(commands=[Command(type="ResultCorrected", payload=payload)])
    return service.handle(tournament, batch, actor), current
