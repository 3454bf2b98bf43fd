"""A reader for the FIDE Tournament Report File, TRF-16 (FIDE Handbook C.04 Annex 2).

TRF-16 is a fixed-column text format. Every line starts with a three-character tag:

* ``001`` a player: start rank (columns 5-8), sex (10), title (11-13), name (15-47),
  rating (49-52), federation (54-56), FIDE id (58-68), birth date (70-79), points (81-84),
  rank (86-89), then one 10-column block per round from column 92: the opponent's start
  rank (92-95; ``0000`` or blanks: none), the colour (97: ``w``/``b``/``-``) and the result
  code (99: ``1 0 = + - W D L H F U Z`` or blank, letters in either case);
* ``012`` name, ``022`` city, ``032`` federation, ``042``/``052`` start/end date (read as
  dates by `header_date`: ``YYYY/MM/DD`` as TRF-16 writes them, also with ``-`` or ``.``,
  ``DD.MM.YYYY``, ``DD/MM/YYYY`` and the old ``YY/MM/DD``), ``062``
  players, ``072`` rated players, ``082`` teams, ``092`` type, ``102`` chief arbiter, ``112``
  deputy arbiters, ``122`` time control, ``132`` round dates (8 columns per round from 92);
* the JaVaFo extensions ``XXR`` (number of rounds) and ``XXC`` (``white1``/``black1``/``rank``).

Everything else (``013`` teams, ``###`` comments, ``DAT``, ``152``, other ``XX?`` lines) is
kept verbatim in `TrfFile.other_lines` and otherwise ignored, except the one ``###`` line our
own export writes about the FIDE C.07 tie-break edition (`EDITION_NOTE`), which the import
reads (`services.interchange.trf.plan.stated_edition`). Malformed input raises `TrfError`
naming the
line and the columns.

No maintained PyPI package reads TRF-16 correctly (``trf`` 1.1.1, 2021, takes the title as
two characters after a blank, so ``WGM``/``WIM`` lines fail, and reports no positions), so this
one is written here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Literal

TrfColour = Literal["w", "b", "-"]
#: Result codes, normalised to upper case; " " is the blank code (equivalent to Z).
RESULT_CODES = frozenset("10=+-WDLHFUZ ")
# TRF-06 style one/two-letter titles some programs still write.
_OLD_TITLES = {
    "G": "GM",
    "WG": "WGM",
    "M": "IM",
    "WM": "WIM",
    "F": "FM",
    "WF": "WFM",
    "C": "CM",
    "WC": "WCM",
}
HEADER_TAGS = {
    "012": "name",
    "022": "city",
    "032": "federation",
    "042": "start_date",
    "052": "end_date",
    "062": "players_count",
    "072": "rated_count",
    "082": "teams_count",
    "092": "type",
    "102": "chief_arbiter",
    "122": "time_control",
}


class TrfError(ValueError):
    """Malformed TRF input: `line` (1-based) and `columns` (e.g. "49-52") say where."""

    def __init__(self, line: int, columns: str, message: str) -> None:
        where = f"line {line}" + (f", column {columns}" if columns else "")
        super().__init__(f"{where}: {message}")
        self.line, self.columns, self.message = line, columns, message


@dataclass(frozen=True)
class RoundEntry:
    """One round of a player's 001 line."""

    round: int
    opponent: int | None  # start rank; None for 0000 / blanks
    colour: TrfColour  # blank is read as "-"
    result: str  # one of RESULT_CODES, upper case

    @property
    def is_blank(self) -> bool:
        return self.opponent is None and self.result == " "


def blank_entry(rnd: int) -> RoundEntry:
    return RoundEntry(rnd, None, "-", " ")


@dataclass(frozen=True)
class TrfPlayer:
    start_rank: int
    name: str
    sex: str = ""  # "m", "w" or ""
    title: str = ""
    rating: int | None = None  # blank or 0: unrated
    federation: str = ""
    fide_id: str = ""
    birth_date: str = ""
    points: Decimal | None = None
    rank: int | None = None
    rounds: tuple[RoundEntry, ...] = ()  # as written, trailing blank blocks dropped
    line: int = 0  # where it was read (0: built in code)

    def entry(self, rnd: int) -> RoundEntry:
        """Round `rnd` (1-based); a round past the end of the line is blank."""
        return self.rounds[rnd - 1] if rnd <= len(self.rounds) else blank_entry(rnd)


@dataclass
class TrfHeader:
    name: str = ""
    city: str = ""
    federation: str = ""
    start_date: str = ""
    end_date: str = ""
    players_count: str = ""
    rated_count: str = ""
    teams_count: str = ""
    type: str = ""
    chief_arbiter: str = ""
    deputy_arbiters: list[str] = field(default_factory=list)
    time_control: str = ""
    round_dates: list[str] = field(default_factory=list)  # "YY/MM/DD" per round, "" if none


@dataclass
class TrfFile:
    header: TrfHeader = field(default_factory=TrfHeader)
    players: list[TrfPlayer] = field(default_factory=list)
    rounds: int | None = None  # XXR
    initial_colour: list[str] = field(default_factory=list)  # XXC tokens
    other_lines: list[tuple[int, str]] = field(default_factory=list)
    tag_lines: dict[str, int] = field(default_factory=dict)  # tag -> line it was read from

    @property
    def played_rounds(self) -> int:
        """The last round any player has an entry for."""
        return max((len(p.rounds) for p in self.players), default=0)

    def player(self, start_rank: int) -> TrfPlayer | None:
        for p in self.players:
            if p.start_rank == start_rank:
                return p
        return None


def round_columns(rnd: int) -> tuple[int, int]:
    """1-based first and last column of round `rnd`'s block (opponent .. result)."""
    first = 92 + 10 * (rnd - 1)
    return first, first + 7


def _col(line: str, first: int, last: int) -> str:
    """Columns first..last (1-based, inclusive), blank-padded."""
    return line[first - 1 : last].ljust(last - first + 1)


def _int(text: str, lineno: int, first: int, last: int, what: str) -> int | None:
    s = text.strip()
    if not s:
        return None
    if not s.isdigit():
        raise TrfError(lineno, f"{first}-{last}", f"{what} {text!r} is not a number")
    return int(s)


def _title(raw: str) -> str:
    t = raw.strip().upper()
    return _OLD_TITLES.get(t, t)


def _player(line: str, lineno: int) -> TrfPlayer:
    if len(line) < 8:
        raise TrfError(lineno, "5-8", "a 001 line needs a starting rank")
    if line[3] != " ":
        raise TrfError(lineno, "4", "expected a blank after the tag 001")
    start = _int(_col(line, 5, 8), lineno, 5, 8, "starting rank")
    if start is None or start < 1:
        raise TrfError(lineno, "5-8", "the starting rank must be 1 to 9999")
    sex = _col(line, 10, 10).strip().lower()
    if sex not in ("", "m", "w", "f"):
        raise TrfError(lineno, "10", f"sex {sex!r} is not m or w")
    name = _col(line, 15, 47).strip()
    if not name:
        raise TrfError(lineno, "15-47", "the player has no name")
    rating = _int(_col(line, 49, 52), lineno, 49, 52, "rating")
    fide_id = _col(line, 58, 68).strip()
    if fide_id and not fide_id.isdigit():
        raise TrfError(lineno, "58-68", f"FIDE id {fide_id!r} is not a number")
    raw_points = _col(line, 81, 84).strip()
    points: Decimal | None = None
    if raw_points:
        try:
            points = Decimal(raw_points)
        except InvalidOperation:
            raise TrfError(lineno, "81-84", f"points {raw_points!r} is not a number") from None
        if not points.is_finite() or points < 0:
            raise TrfError(lineno, "81-84", f"points {raw_points!r} is not a score")
    rank = _int(_col(line, 86, 89), lineno, 86, 89, "rank")
    return TrfPlayer(
        start_rank=start,
        name=name,
        sex="w" if sex == "f" else sex,
        title=_title(_col(line, 11, 13)),
        rating=rating or None,
        federation=_col(line, 54, 56).strip().upper(),
        fide_id=fide_id,
        birth_date=_col(line, 70, 79).strip(),
        points=points,
        rank=rank,
        rounds=_rounds(line, lineno),
        line=lineno,
    )


def _rounds(line: str, lineno: int) -> tuple[RoundEntry, ...]:
    entries: list[RoundEntry] = []
    if line[89:91].strip():
        raise TrfError(lineno, "90-91", "expected blanks before the first round (column 92)")
    rnd = 1
    while len(line) > 91 + 10 * (rnd - 1):
        first, last = round_columns(rnd)
        block = _col(line, first, last + 2)
        if block[4] != " " or block[6] != " " or block[8:].strip():
            raise TrfError(
                lineno,
                f"{first}-{last + 2}",
                f"round {rnd}: {block.rstrip()!r} is not 'NNNN c r' aligned at column {first}",
            )
        raw_opp = block[:4]
        opponent = (
            None
            if raw_opp.strip() in ("", "0000")
            else _int(raw_opp, lineno, first, first + 3, f"round {rnd}: opponent")
        )
        colour = block[5].lower()
        if colour not in ("w", "b", "-", " "):
            raise TrfError(
                lineno, str(first + 5), f"round {rnd}: colour {colour!r} is not w, b or -"
            )
        result = block[7].upper()
        if result not in RESULT_CODES:
            raise TrfError(
                lineno, str(first + 7), f"round {rnd}: result code {block[7]!r} is unknown"
            )
        entries.append(RoundEntry(rnd, opponent, "-" if colour == " " else colour, result))  # type: ignore[arg-type]
        rnd += 1
    while entries and entries[-1].is_blank and entries[-1].colour == "-":
        entries.pop()
    return tuple(entries)


def _round_dates(line: str) -> list[str]:
    dates: list[str] = []
    rnd = 1
    while len(line) > 91 + 10 * (rnd - 1):
        first, _ = round_columns(rnd)
        dates.append(_col(line, first, first + 7).strip())
        rnd += 1
    while dates and not dates[-1]:
        dates.pop()
    return dates


def parse_trf(text: str) -> TrfFile:
    """Parse TRF-16 text (LF, CRLF or CR line ends)."""
    trf = TrfFile()
    seen: dict[int, int] = {}
    for lineno, raw in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
        line = raw.rstrip()
        if not line:
            continue
        if (nul := line.find("\x00")) >= 0:  # (stored, it would end the name in C readers)
            raise TrfError(lineno, str(nul + 1), "a NUL byte: TRF records are text")
        tag = line[:3]
        value = line[3:].strip()
        if tag == "001":
            player = _player(line, lineno)
            if player.start_rank in seen:
                raise TrfError(
                    lineno,
                    "5-8",
                    f"starting rank {player.start_rank} is used already on line "
                    f"{seen[player.start_rank]}",
                )
            seen[player.start_rank] = lineno
            trf.players.append(player)
        elif tag in HEADER_TAGS:
            setattr(trf.header, HEADER_TAGS[tag], value)
            trf.tag_lines[tag] = lineno
        elif tag == "112":
            if value:
                trf.header.deputy_arbiters.append(value)
        elif tag == "132":
            trf.header.round_dates = _round_dates(line)
            trf.tag_lines[tag] = lineno
        elif tag == "XXR":
            if not value.isdigit() or int(value) < 1:
                raise TrfError(lineno, f"5-{len(line)}", f"XXR {value!r} is not a number of rounds")
            trf.rounds = int(value)
            trf.tag_lines[tag] = lineno
        elif tag == "XXC":
            trf.initial_colour = value.lower().split()
            trf.tag_lines[tag] = lineno
        else:  # 013 teams, ### comments, DAT, other XX? extensions, unknown tags
            trf.other_lines.append((lineno, line))
    _check_opponents(trf)
    return trf


def _check_opponents(trf: TrfFile) -> None:
    ranks = {p.start_rank for p in trf.players}
    for p in trf.players:
        for e in p.rounds:
            if e.opponent is not None and e.opponent not in ranks:
                first, _ = round_columns(e.round)
                raise TrfError(
                    p.line,
                    f"{first}-{first + 3}",
                    f"round {e.round}: opponent {e.opponent} has no 001 line",
                )
            if e.opponent == p.start_rank:
                first, _ = round_columns(e.round)
                raise TrfError(
                    p.line, f"{first}-{first + 3}", f"round {e.round}: paired with themself"
                )


#: The comment line `write_trf` adds when the FIDE C.07 tie-break edition in force is not the
#: one the start date (042) implies (issue 16: an arbiter's ruling, or a creation that stated
#: another edition); `services.interchange.trf.plan.stated_edition` reads it back on import.
EDITION_NOTE = re.compile(
    r"### FIDE C\.07 tie-break edition (?P<edition>\S+) \((?P<source>.+)\), "
    r"not (?P<implied>\S+) as the start date implies"
)


def edition_note(edition: str, source: str, implied: str) -> str:
    """The ``###`` line for an edition in force (with its source, e.g. "ruling R1") that is not
    the `implied` one; `EDITION_NOTE` matches it."""
    return (
        f"### FIDE C.07 tie-break edition {edition} ({source}), "
        f"not {implied} as the start date implies"
    )


_YMD = re.compile(r"(\d{4})[/.-](\d{1,2})[/.-](\d{1,2})")
_DMY = re.compile(r"(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})")
_YY = re.compile(r"(\d{2})/(\d{2})/(\d{2})")


def trf_date(text: str) -> date | None:
    """A TRF date (``YYYY/MM/DD`` as TRF-16 writes it, also with ``-`` or ``.``,
    ``DD.MM.YYYY``, ``DD/MM/YYYY`` and the old ``YY/MM/DD``), None when it is none of those."""
    first = text.split()[0] if text.strip() else ""
    if m := _YMD.fullmatch(first):
        y, mo, d = int(m[1]), int(m[2]), int(m[3])
    elif m := _DMY.fullmatch(first):
        y, mo, d = int(m[3]), int(m[2]), int(m[1])
    elif m := _YY.fullmatch(first):
        y, mo, d = 2000 + int(m[1]), int(m[2]), int(m[3])
    else:
        return None
    try:
        found = date(y, mo, d)
    except ValueError:
        return None
    return found if date(1800, 1, 1) <= found <= date(2199, 12, 31) else None


def header_date(trf: TrfFile, tag: str) -> date | None:
    """The date of header record `tag` (``042`` start, ``052`` end), None when the file has
    none; a value that is not a date raises `TrfError` naming the line (the start date decides
    which C.07 edition ranks the tournament, so it is not guessed at)."""
    text = {"042": trf.header.start_date, "052": trf.header.end_date}[tag]
    if not text:
        return None
    found = trf_date(text)
    if found is None:
        raise TrfError(
            trf.tag_lines.get(tag, 0),
            f"5-{4 + len(text)}",
            f"{tag} {text!r} is not a date (TRF-16 writes YYYY/MM/DD)",
        )
    return found


def decode_trf(data: bytes) -> str:
    """TRF bytes as text: UTF-8 (as JaVaFo asks), else Windows-1252 (older Swiss-Manager).
    Refused (issue 26 item 6: never an empty tournament): an empty file, and UTF-16 (a
    byte-order mark, or a NUL in every other byte), which TRF is not written in."""
    if not data.strip():
        raise TrfError(1, "", "the file is empty: no TRF records")
    zeros = max(data[0::2].count(0), data[1::2].count(0))  # UTF-16 BE, LE without a BOM
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or (zeros and zeros * 4 >= len(data)):
        raise TrfError(1, "", "the file is UTF-16: a TRF file is UTF-8 (or Windows-1252)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def read_trf(path: str | Path) -> TrfFile:
    return parse_trf(decode_trf(Path(path).read_bytes()))
