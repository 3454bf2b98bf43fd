"""TRF-16, the FIDE Tournament Report File: read (`parse`), turn into commands (`to_events`),
append them through the command path (`import_commands`), and write (`write`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from events_schema import Actor, Command, CommandBatch
from services.commands.service import CommandRejected, CommandService
from services.eventlog.sqlite import SQLiteEventLog
from services.interchange.trf.parse import (
    RoundEntry,
    TrfError,
    TrfFile,
    TrfHeader,
    TrfPlayer,
    header_date,
    parse_trf,
    read_trf,
)
from services.interchange.trf.to_events import (
    StatedEdition,
    edition_choice,
    game_id,
    import_edition,
    player_id,
    points_mismatches,
    stated_edition,
    to_commands,
    tournament_dates,
)
from services.interchange.trf.write import (
    ORDERS,
    PlayerDetails,
    TrfOrder,
    export_trf,
    pairing_order,
    player_details,
    write_trf,
)

__all__ = [
    "ORDERS",
    "ImportResult",
    "PlayerDetails",
    "RoundEntry",
    "StatedEdition",
    "TrfError",
    "TrfFile",
    "TrfHeader",
    "TrfOrder",
    "TrfPlayer",
    "edition_choice",
    "export_trf",
    "game_id",
    "header_date",
    "import_commands",
    "import_edition",
    "pairing_order",
    "parse_trf",
    "player_details",
    "player_id",
    "points_mismatches",
    "read_trf",
    "stated_edition",
    "to_commands",
    "tournament_dates",
    "tournament_id_for",
    "write_trf",
]

MAX_BATCH = 1000  # CommandBatch.commands max_length


@dataclass(frozen=True)
class ImportResult:
    appended: int  # events appended now (0 when the import was stored already)
    duplicate: bool  # every command was already recorded: nothing appended
    last_seq: int


def tournament_id_for(path: str | Path) -> str:
    """A tournament id from a file name: its stem in the stream-id alphabet."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", Path(path).stem)
    stem = re.sub(r"^[^A-Za-z0-9]+", "", stem)[:64]
    if not stem:
        raise ValueError(f"cannot make a tournament id from {str(path)!r}: give --tournament")
    return stem


def _renumber(exc: CommandRejected, offset: int) -> CommandRejected:
    field = re.sub(r"^commands\[(\d+)\]", lambda m: f"commands[{int(m[1]) + offset}]", exc.field)
    return CommandRejected(exc.rule, field, exc.message, exc.status)


def import_commands(
    service: CommandService, tournament_id: str, commands: list[Command], actor: Actor
) -> ImportResult:
    """Append `commands` through the command path, all or nothing.

    Up to 1000 commands (the batch limit) go in one atomic batch. A longer import is first
    decided in full against an in-memory log (every rule checked, nothing stored), then
    appended in batches chained by `expected_seq`; give the commands deterministic event ids
    (`to_commands(id_namespace=...)`) so that an import cut short by a crash is completed by
    running it again.
    """
    chunks = [commands[i : i + MAX_BATCH] for i in range(0, len(commands), MAX_BATCH)]
    if len(chunks) > 1:
        with SQLiteEventLog(":memory:") as scratch:
            dry = CommandService(scratch)
            for n, chunk in enumerate(chunks):
                try:
                    dry.handle(tournament_id, CommandBatch(commands=chunk), actor)
                except CommandRejected as exc:
                    raise _renumber(exc, n * MAX_BATCH) from None
    appended, duplicate, last_seq = 0, True, 0
    expected: int | None = None
    for n, chunk in enumerate(chunks):
        try:
            result = service.handle(
                tournament_id, CommandBatch(commands=chunk, expected_seq=expected), actor
            )
        except CommandRejected as exc:
            raise _renumber(exc, n * MAX_BATCH) from None
        if not result.duplicate:
            appended += len(result.envelopes)
            duplicate = False
        last_seq = result.last_seq
        expected = last_seq
    return ImportResult(appended, duplicate, last_seq)
