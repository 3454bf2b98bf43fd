"""TRF-16, the FIDE Tournament Report File: read (`parse`), turn into the events of the
import's plan (`plan.to_events`), record them on the shared import pipeline (`importer`), and
write (`write`); TRF26's further records read (`records26`) and written (`write26`)."""

from __future__ import annotations

from services.interchange.trf.importer import TrfImportReport, import_trf
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
from services.interchange.trf.plan import (
    StatedEdition,
    edition_choice,
    game_id,
    import_edition,
    player_id,
    points_mismatches,
    stated_edition,
    to_commands,
    to_events,
    tournament_dates,
)
from services.interchange.trf.records26 import is_trf26, time_control_notes
from services.interchange.trf.write import (
    ORDERS,
    PlayerDetails,
    TrfOrder,
    export_trf,
    pairing_order,
    player_details,
    write_trf,
)
from services.interchange.trf.write26 import export_trf26, write_trf26

__all__ = [
    "ORDERS",
    "PlayerDetails",
    "RoundEntry",
    "StatedEdition",
    "TrfError",
    "TrfFile",
    "TrfHeader",
    "TrfImportReport",
    "TrfOrder",
    "TrfPlayer",
    "edition_choice",
    "export_trf",
    "export_trf26",
    "game_id",
    "header_date",
    "import_edition",
    "import_trf",
    "is_trf26",
    "pairing_order",
    "parse_trf",
    "player_details",
    "player_id",
    "points_mismatches",
    "read_trf",
    "stated_edition",
    "time_control_notes",
    "to_commands",
    "to_events",
    "tournament_dates",
    "write_trf",
    "write_trf26",
]
