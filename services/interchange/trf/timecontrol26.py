"""TRF26 record 222, the encoded time control, read into the tournament's `TimeControl` and
written from it (issue 26).

The grammar (FIDE TRF26, approved by the FIDE Council 12/05/2025, "222 Encoded Time Control";
gacrux 1.11.65 reads the value as text only, `trf2json.parse_trf_timecontrol`):

    d[:d]...            the periods of both players, in order
    Wd[:d]-Bd[:d]       White's periods, then Black's (Armageddon: ``W300-B240``)

each time period descriptor ``d`` one of ``M/S`` (std: M moves in S seconds), ``M/S+I`` (full:
and I seconds added per move), ``S`` (all: the rest of the game, sudden death) and ``S+I``
(inc: the rest of the game, I seconds a move). Examples from the spec: ``5400+30`` (90'+30"),
``40/6000+30:900+30`` (100' for 40 moves, then 15', 30" a move from move 1), ``W300-B240``.

Arbiter's `TimeControl` (events_schema/events.py) is one period for the rest of the game, a
base and an increment from move 1 (or from a later move, which TRF26 cannot say), with the
base per colour when the colours differ. So read into it (`read_222`):

* ``S`` (sudden death) and ``S+I``: `base_seconds` S, `increment_seconds` I;
* ``WS[+I]-BS'[+I]``, one period each and the same increment: `white_base_seconds` S,
  `black_base_seconds` S', `base_seconds` S (as GCT's Armageddon, projections/playoffs/
  gct_event.py), `increment_seconds` I.

Not expressible, reported by name (`Unexpressible.reason`) and kept verbatim only, as before:
more than one period (``40/5400+30:1800+30``: Arbiter's clock has no time added after a move
count), a moves period alone (``40/5400``: time per moves, repeating), White and Black with
different increments. A value outside the grammar is malformed (`TrfError`, naming line 222).
The spec defines no delay (Bronstein or US delay) encoding: a value that tries one
(``5400d5``) is outside the grammar and refused as malformed.

The record itself is kept verbatim by the import (`TrfRecordsKept`), so an imported file's 222
is written back byte for byte; a tournament without a kept 222 gets one from its time control
when it has exactly one that TRF26 can say (`encode_222`, `read_222(encode_222(tc))` gives
`tc` back).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from events_schema import events as ev
from services.interchange.trf.parse import TrfError

RULE = "TRF26 record 222 (encoded time control)"

_PERIOD = r"(?:\d{1,4}/)?\d{1,6}(?:\+\d{1,4})?"
_PERIODS = rf"{_PERIOD}(?::{_PERIOD})*"
_GRAMMAR = re.compile(rf"(?:{_PERIODS}|W{_PERIODS}-B{_PERIODS})")
_ONE = re.compile(r"(?:(\d+)/)?(\d+)(?:\+(\d+))?")


@dataclass(frozen=True)
class Period:
    """One time period descriptor: `moves` (None: the rest of the game), `seconds`,
    `increment` (seconds added per move)."""

    moves: int | None
    seconds: int
    increment: int


@dataclass(frozen=True)
class Unexpressible:
    """A well-formed 222 Arbiter's `TimeControl` cannot express: kept verbatim only."""

    value: str
    reason: str


def periods(text: str) -> list[Period]:
    """The periods of ``d[:d]...`` (already matched by the grammar)."""
    out = []
    for part in text.split(":"):
        m = _ONE.fullmatch(part)
        assert m is not None
        out.append(Period(int(m[1]) if m[1] else None, int(m[2]), int(m[3] or 0)))
    return out


def parse_222(value: str, lineno: int) -> tuple[list[Period], list[Period]]:
    """(White's periods, Black's periods) of a 222 value; `TrfError` when it is malformed."""
    if _GRAMMAR.fullmatch(value) is None:
        raise TrfError(
            lineno,
            "5-",
            f"222 {value!r} is not an encoded time control ({RULE}: d[:d] or Wd[:d]-Bd[:d], "
            "each d M/S, M/S+I, S or S+I in moves and seconds, e.g. 5400+30, "
            "40/6000+30:900+30, W300-B240)",
        )
    if value.startswith("W"):
        white, black = value[1:].split("-B")
        return periods(white), periods(black)
    both = periods(value)
    return both, both


def _one(side: str, ps: list[Period], value: str) -> Period | Unexpressible:
    if len(ps) > 1:
        return Unexpressible(
            value,
            f"{side}{len(ps)} periods: Arbiter's time control is one period for the game "
            "(no time added after a number of moves)",
        )
    if ps[0].moves is not None:
        return Unexpressible(
            value,
            f"{side}{ps[0].moves} moves in {ps[0].seconds} s with no period after it: Arbiter's "
            "time control is one period for the game",
        )
    return ps[0]


def read_222(value: str, lineno: int) -> ev.TimeControl | Unexpressible:
    """The tournament's time control a 222 value says, or why Arbiter cannot express it
    (the module docstring); `TrfError` when it is malformed."""
    white, black = parse_222(value, lineno)
    w = _one("White: " if value.startswith("W") else "", white, value)
    if isinstance(w, Unexpressible):
        return w
    b = _one("Black: ", black, value)
    if isinstance(b, Unexpressible):
        return b
    if w.increment != b.increment:
        return Unexpressible(
            value,
            f"White {w.increment} s and Black {b.increment} s a move: Arbiter's time control "
            "has one increment for both",
        )
    name = value[:64]
    if w.seconds != b.seconds or value.startswith("W"):
        return ev.TimeControl(
            name=name,
            base_seconds=w.seconds,
            increment_seconds=w.increment,
            white_base_seconds=w.seconds,
            black_base_seconds=b.seconds,
        )
    return ev.TimeControl(name=name, base_seconds=w.seconds, increment_seconds=w.increment)


def _d(seconds: int, increment: int) -> str:
    return f"{seconds}+{increment}" if increment else f"{seconds}"


def encode_222(tc: ev.TimeControl) -> str | None:
    """The 222 value of `tc`, or None when TRF26 cannot say it (Go overtime, an increment from
    a later move than the first)."""
    if tc.overtime not in ("none", "fischer") or tc.increment_from_move != 1:
        return None
    inc = tc.increment_seconds
    if tc.white_base_seconds is not None or tc.black_base_seconds is not None:
        white = tc.white_base_seconds if tc.white_base_seconds is not None else tc.base_seconds
        black = tc.black_base_seconds if tc.black_base_seconds is not None else tc.base_seconds
        return f"W{_d(white, inc)}-B{_d(black, inc)}"
    return _d(tc.base_seconds, inc)
