"""The organiser's entry path (issue 24): create a tournament (`create.py`), register players
one by one or from an entry list, late entries included, and withdraw them (`register.py`),
requested byes (`byes.py`), and the entry list with its start numbers and how a PLAYER is
named (`players.py`). Every use case appends through `CommandService`, so the decider checks
each event and a refusal names its rule and field."""

from __future__ import annotations

from services.commands.entries.byes import ByeRequested, parse_bye_points, request_bye
from services.commands.entries.create import create_tournament, parse_time_control
from services.commands.entries.players import (
    EntryRow,
    byes_in_force,
    create_first,
    entry_list,
    fold_name,
    fold_tournament,
    player_id_for,
    resolve_player,
    start_numbers,
)
from services.commands.entries.register import (
    Registered,
    Withdrawn,
    register_entries,
    withdraw_player,
)

__all__ = [
    "ByeRequested",
    "EntryRow",
    "Registered",
    "Withdrawn",
    "byes_in_force",
    "create_first",
    "create_tournament",
    "entry_list",
    "fold_name",
    "fold_tournament",
    "parse_bye_points",
    "parse_time_control",
    "player_id_for",
    "register_entries",
    "request_bye",
    "resolve_player",
    "start_numbers",
    "withdraw_player",
]
