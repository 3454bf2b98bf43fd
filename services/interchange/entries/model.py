"""One entry of an entry list, as an organiser gives it (`arbiter register`, a CSV or TRF entry
list, `POST /tournaments/{id}/players`), checked against `PlayerRegistered`'s own field rules
so that a bad value is refused where it was written (its line and column), before anything is
appended."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from pydantic import ValidationError

from events_schema import events as ev

#: The entry fields, in the order a CSV header or `arbiter players` names them.
FIELDS = ("name", "rating", "title", "federation", "fide_id", "club", "go_rank")


class EntriesError(ValueError):
    """A bad entry: `line` (1-based, 0 for an entry not read from a file), `column` (the
    column's name as written, or the field) and what is wrong. `where` is the refusal's field:
    `line 7, column rating`. `all`: every bad row of the file, this one first (a CSV's rows
    are all checked before it is refused)."""

    def __init__(self, line: int, column: str, message: str) -> None:
        self.line, self.column, self.message = line, column, message
        self.all: tuple[EntriesError, ...] = (self,)
        super().__init__(f"{self.where}: {message}")

    @classmethod
    def of(cls, found: list[EntriesError]) -> EntriesError:
        """One refusal carrying every problem in `found` (at least one)."""
        first = found[0]
        first.all = tuple(found)
        return first

    def problems(self) -> list[tuple[str, str, str]]:
        """(rule, field, message) of every problem, as the CLI prints them."""
        return [("entries.invalid", e.where, e.message) for e in self.all]

    @property
    def where(self) -> str:
        if self.line:
            return f"line {self.line}, column {self.column}" if self.column else f"line {self.line}"
        return self.column


@dataclass(frozen=True)
class Entry:
    """A player to register. `rating` None is unrated (a 0 in a file reads as unrated, as TRF
    and Swiss-Manager write it); `title` and `federation` upper case, `go_rank` lower case
    ("3k", "1d")."""

    name: str
    rating: int | None = None
    title: str | None = None
    federation: str | None = None
    fide_id: int | None = None
    club: str | None = None
    go_rank: str | None = None
    line: int = 0  # where it was read (0: not from a file)

    def payload(self, player_id: str) -> dict[str, Any]:
        """The `PlayerRegistered` payload registering this entry as `player_id`."""
        body = {k: v for k, v in asdict(self).items() if k != "line" and v is not None}
        return {"player_id": player_id, **body}


def _blank(value: str | None) -> str | None:
    value = (value or "").strip()
    return value or None


def _whole(value: str | None, line: int, column: str) -> int | None:
    text = _blank(value)
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        raise EntriesError(line, column, f"{text!r} is not a whole number") from None


def make_entry(
    values: dict[str, Any], line: int = 0, columns: dict[str, str] | None = None
) -> Entry:
    """An `Entry` from raw values by field (strings from a file, or typed values from JSON),
    normalised and checked against `PlayerRegistered`'s rules; a bad value raises
    `EntriesError` naming its line and column (`columns` maps a field to the column name as
    the file wrote it)."""
    col = {**{f: f for f in FIELDS}, **(columns or {})}

    def text(field: str) -> str | None:
        raw = values.get(field)
        if raw is not None and not isinstance(raw, str):
            raise EntriesError(line, col[field], f"{raw!r} is not text")
        return _blank(raw)

    def number(field: str) -> int | None:
        raw = values.get(field)
        if raw is None or isinstance(raw, str):
            return _whole(raw, line, col[field])
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise EntriesError(line, col[field], f"{raw!r} is not a whole number")
        return raw

    name = text("name")
    if name is None:
        raise EntriesError(line, col["name"], "every entry needs a name")
    title, fed, rank = text("title"), text("federation"), text("go_rank")
    rating = number("rating")
    entry = Entry(
        name=" ".join(name.split()),
        rating=None if rating == 0 else rating,
        title=title.upper() if title else None,
        federation=fed.upper() if fed else None,
        fide_id=number("fide_id"),
        club=text("club"),
        go_rank=rank.lower() if rank else None,
        line=line,
    )
    try:  # the event's own rules: lengths, rating 0..4000, the Go rank pattern, ...
        ev.PlayerRegistered.model_validate(entry.payload("x"))
    except ValidationError as exc:
        err = exc.errors()[0]
        field = str(err["loc"][0]) if err["loc"] else "name"
        message = f"{err['input']!r}: {err['msg']}" if "input" in err else str(err["msg"])
        if field == "go_rank":
            message = f"{err.get('input')!r} is not a Go rank: 30k to 1k, 1d to 9d, 1p to 9p"
        raise EntriesError(line, col.get(field, field), message) from None
    return entry
