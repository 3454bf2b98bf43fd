"""Entry lists: the players an organiser registers at once, from a CSV file (`csv.py`) or
the player records of a TRF file (`trf.py`), each an `Entry` checked against
`PlayerRegistered`'s rules (`model.py`), a bad one refused with its line and column."""

from __future__ import annotations

from pathlib import PurePath

from services.interchange.entries.csv import ALIASES, parse_entries_csv
from services.interchange.entries.model import FIELDS, EntriesError, Entry, make_entry
from services.interchange.entries.trf import parse_entries_trf


def parse_entries(data: bytes, filename: str) -> list[Entry]:
    """The entries of a file by its extension: `.trf`/`.txt` a TRF-16 file's player records,
    anything else a CSV entry list."""
    if PurePath(filename).suffix.lower() in (".trf", ".txt"):
        return parse_entries_trf(data)
    return parse_entries_csv(data)


__all__ = [
    "ALIASES",
    "FIELDS",
    "EntriesError",
    "Entry",
    "make_entry",
    "parse_entries",
    "parse_entries_csv",
    "parse_entries_trf",
]
