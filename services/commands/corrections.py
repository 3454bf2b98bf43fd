"""Correcting the result in force of a game (`arbiter correct`): a `ResultCorrected` naming
the event it corrects, appended through the command path (admins only:
services/commands/service.py `ADMIN_ONLY`).

Without a termination the correction keeps the old one (a swapped score sheet: 1-0 by
resignation becomes 0-1 by resignation), unless it contradicts the new result (the decider
refuses a draw by resignation or a win by agreement:
projections/tournament/rules/consistency.py) or was only the default of a result entered
without its ending; then it takes the new result's default, a draw by agreement and
anything else "other" (services/commands/notation.py `default_entry`), so correcting 1-0
(resignation) to ½ needs no `--termination`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from events_schema import Actor, Command, CommandBatch
from services.commands.service import CommandRejected, CommandService

if TYPE_CHECKING:
    from events_schema.events import Termination
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
    unless another is given or it contradicts `result`: the module docstring); the result
    and the result in force it corrects. Refused
    (`correction.no_result`) when the game has no result in force."""
    game = service.state(tournament).games.get(game_id)
    current = game.result if game is not None else None  # the latest in force
    if current is None:
        raise CommandRejected(
            "correction.no_result",
            "GAME_ID",
            f"{tournament}: {game_id} has no result in force to correct",
        )
    if termination is None:
        termination = kept_termination(result, current)
    payload = {
        "corrects_event_id": str(current.event_id),
        "game_id": game_id,
        "result": result,
        "termination": termination,
        "reason": reason,
    }
    batch = CommandBatch(commands=[Command(type="ResultCorrected", payload=payload)])
    return service.handle(tournament, batch, actor), current


def kept_termination(result: str, old: ResultEntry) -> Termination:
    """The termination a correction of `old` to `result` keeps: `old`'s, unless it
    contradicts `result` or was only the default of `old`'s result (entered without its
    ending: a win "other", a draw "agreement"); then the default of `result`
    (notation.py `default_entry`). A result no notation knows keeps `old`'s (the command
    path refuses it, naming the field)."""
    from projections.tournament.rules.consistency import mismatch
    from services.commands.notation import NotationError, default_entry, read_result

    try:
        new = read_result(result)
    except NotationError:
        return old.termination
    default = default_entry(new.result).termination
    if mismatch(new.result, old.termination) is not None:
        return default
    if old.termination == default_entry(old.result).termination and new.result != old.result:
        return default
    return old.termination
