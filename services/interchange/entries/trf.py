"""A TRF-16 file read as an entry list (`arbiter register T --file entries.trf`): only its
player records (`001`) count, each one entry (name, rating, title, federation, FIDE id), read
by the TRF reader of the import (`services/interchange/trf/parse.py`). Round results,
header lines and start ranks are not registered: `arbiter import trf` imports a whole
tournament."""

from __future__ import annotations

from services.interchange.entries.model import EntriesError, Entry, make_entry
from services.interchange.trf.parse import TrfError, decode_trf, parse_trf

#: The TRF-16 columns of each field of the 001 record (for a refusal's column).
_COLUMNS = {
    "name": "15-47",
    "rating": "49-52",
    "title": "11-13",
    "federation": "54-56",
    "fide_id": "58-68",
    "club": "club",
    "go_rank": "go_rank",
}


def parse_entries_trf(data: bytes | str) -> list[Entry]:
    """The entries of a TRF file's 001 records, in start-rank order; `EntriesError` naming
    the line and columns of the first bad one."""
    text = decode_trf(data) if isinstance(data, bytes) else data
    try:
        trf = parse_trf(text)
    except TrfError as exc:
        raise EntriesError(exc.line, exc.columns, exc.message) from None
    players = sorted(trf.players, key=lambda p: p.start_rank)
    if not players:
        raise EntriesError(1, "", "no player records (001 lines) in the file")
    return [
        make_entry(
            {
                "name": p.name,
                "rating": p.rating,
                "title": p.title,
                "federation": p.federation,
                "fide_id": p.fide_id,
            },
            p.line,
            _COLUMNS,
        )
        for p in players
    ]
