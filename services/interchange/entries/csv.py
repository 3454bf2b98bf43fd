"""A CSV entry list (`arbiter register T --file entries.csv`, `POST /tournaments/{id}/players`
with a `text/csv` body).

The format, as spreadsheets export it:

* UTF-8, with or without a byte-order mark; the separator is a comma or a semicolon (the one
  the header row uses more; a tab also works), read with the standard `csv` module, so
  quoted fields may hold the separator (`"Carlsen, Magnus"`);
* a header row naming the columns, in any order and case: `name` (required), `rating`,
  `title`, `federation`, `fide_id`, `club`, `go_rank`, or the names other programs give them
  (`ALIASES`: "Player", "Elo", "Fed", "FIDE ID", "Rank", ...). A column no field goes by is
  refused by its name, and so is a field named twice;
* one player per row; blank rows are skipped; a blank cell is "not given" (a rating of 0 is
  unrated, as TRF writes it).

A bad row is refused with its line and column (`EntriesError`, `line 7, column rating`) and
nothing of the file is registered: the whole list is checked before any of it is appended,
and then appended as one batch.
"""

from __future__ import annotations

import csv
import io

from services.interchange.entries.model import FIELDS, EntriesError, Entry, make_entry

#: Header names (lower case, runs of spaces, '-' and '_' read as one '_') and the field each
#: one fills.
ALIASES: dict[str, str] = {
    **{f: f for f in FIELDS},
    "player": "name",
    "player_name": "name",
    "full_name": "name",
    "elo": "rating",
    "fide_rating": "rating",
    "rtg": "rating",
    "fed": "federation",
    "country": "federation",
    "fide": "fide_id",
    "fideid": "fide_id",
    "id_fide": "fide_id",
    "fide_no": "fide_id",
    "rank": "go_rank",
    "team": "club",
}


def _key(header: str) -> str:
    return "_".join(header.strip().lower().replace("-", " ").replace("_", " ").split())


def _separator(header_line: str) -> str:
    counts = {sep: header_line.count(sep) for sep in (";", ",", "\t")}
    best = max(counts, key=lambda sep: counts[sep])
    return best if counts[best] else ","


def parse_entries_csv(data: bytes | str) -> list[Entry]:
    """The entries of a CSV entry list (the module docstring), in file order; `EntriesError`
    at the first bad line, naming its line and column."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise EntriesError(line, "", "not UTF-8 text (save the file as CSV UTF-8)") from None
    else:
        text = data.removeprefix("\ufeff")
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    if not first:
        raise EntriesError(1, "", "the file is empty: give a header row and one row per player")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=_separator(first))
    header: list[str] | None = None
    columns: dict[str, str] = {}  # field -> the column's name as written
    index: dict[int, str] = {}  # column position -> field
    entries: list[Entry] = []
    bad: list[EntriesError] = []  # every bad row, reported together
    for row in reader:
        if not any(cell.strip() for cell in row):
            continue
        line = reader.line_num
        if header is None:
            header = row
            for i, raw in enumerate(row):
                name = raw.strip()
                field = ALIASES.get(_key(name))
                if field is None:
                    known = ", ".join(FIELDS)
                    raise EntriesError(
                        line, name, f"unknown column {name!r}; the columns are {known}"
                    )
                if field in columns:
                    raise EntriesError(
                        line, name, f"{name!r} names {field} again (column {columns[field]!r})"
                    )
                columns[field] = name
                index[i] = field
            if "name" not in columns:
                raise EntriesError(line, "name", "the header row needs a name column")
            continue
        if len(row) > len(header) and any(c.strip() for c in row[len(header) :]):
            bad.append(
                EntriesError(
                    line, "", f"{len(row)} cells for {len(header)} columns (a separator too many?)"
                )
            )
            continue
        values = {field: row[i] if i < len(row) else "" for i, field in index.items()}
        try:
            entries.append(make_entry(values, line, columns))
        except EntriesError as exc:
            bad.append(exc)
    if bad:
        raise EntriesError.of(bad)
    if not entries:
        raise EntriesError(1, "", "no players: the file has a header row and nothing under it")
    return entries
