"""Move comments of engine and online PGNs, as plain string parsing (no I/O).

Three dialects, all returning one `MoveComment` with the evaluation in **White's view**, in
centipawns (the convention of `events_schema.events.MovePlayed.eval_cp`), and `mate_in` signed
the same way (> 0: White mates, < 0: Black mates):

- TCEC (`parse_tcec`): `{d=27, sd=51, mt=79538, tl=1723462, …, wv=0.99, R50=49, Rd=-9, …}` —
  `wv` is White's view in pawns (`M15` / `-M12` for mates), `mt` the move time and `tl` the
  mover's time left after the move, both in ms; `book` moves carry no evaluation
  (tcec-rules Swiss 6.b: "the absence of an evaluation … appears" resets the draw rule).
  Trailing notes such as `Adjudication: TCEC draw rule` are kept in `notes`.
- cutechess (`parse_cutechess`): `{+0.35/20 1.2s}` — the score is in the **mover's** view, so
  the caller says who moved; `{+M5/30 0.5s, White mates}`; `{book}`.
- lichess (`parse_lichess`): `[%eval 0.35]`, `[%eval #-3]`, `[%eval -1.20,25]` (White's view),
  `[%clk 0:01:23.4]` (the mover's clock after the move), `[%emt 0:00:05]` (move time), and
  `[%nodes 123456]` (Arbiter's PGN export writes the nodes searched so).

`parse_comment(comment, mover)` picks the dialect from the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Literal

Colour = Literal["white", "black"]


@dataclass(frozen=True, slots=True)
class MoveComment:
    """What a move comment says. Every field is None when the comment does not say it."""

    book: bool = False
    eval_cp: int | None = None  # White's view, centipawns
    mate_in: int | None = None  # White's view: > 0 White mates in n, < 0 Black mates in n
    depth: int | None = None
    move_time_ms: int | None = None
    clock_ms: int | None = None  # the mover's time left after the move
    nodes: int | None = None
    fields: tuple[tuple[str, str], ...] = ()  # TCEC key=value pairs, in order
    notes: tuple[str, ...] = ()  # any other text ("Adjudication: TCEC draw rule", "White mates")

    def field(self, key: str) -> str | None:
        """A raw TCEC field (`R50`, `Rd`, `tb`, …), or None."""
        for k, v in self.fields:
            if k == key:
                return v
        return None


def _cp(pawns: str) -> int | None:
    """Pawns as written ("0.25", "-1.2", "+3") to centipawns, half-even on the third decimal."""
    try:
        value = Decimal(pawns.strip())
    except InvalidOperation:
        return None
    if not value.is_finite():
        return None
    return int(value.scaleb(2).to_integral_value(rounding=ROUND_HALF_EVEN))


def _ms(seconds: str) -> int | None:
    try:
        value = Decimal(seconds.strip())
    except InvalidOperation:
        return None
    if not value.is_finite() or value < 0:
        return None
    return int(value.scaleb(3).to_integral_value(rounding=ROUND_HALF_EVEN))


def _int(text: str | None) -> int | None:
    if text is None:
        return None
    text = text.strip()
    if not re.fullmatch(r"[+-]?\d+", text):
        return None
    return int(text)


def _score(text: str) -> tuple[int | None, int | None]:
    """("0.35" | "-M12" | "+M5" | "#-3") → (eval_cp, mate_in) in the text's own view."""
    text = text.strip()
    m = re.fullmatch(r"([+-]?)(?:M|#)([+-]?)(\d+)", text)
    if m is not None:
        n = int(m.group(3))
        negative = (m.group(1) == "-") != (m.group(2) == "-")
        return None, -n if negative else n
    return _cp(text), None


# --- TCEC ------------------------------------------------------------------------------------


def parse_tcec(comment: str) -> MoveComment:
    """A TCEC archive comment (`d=…, mt=…, tl=…, wv=…` or `book, …`)."""
    fields: list[tuple[str, str]] = []
    notes: list[str] = []
    book = False
    for raw in comment.split(","):
        part = raw.strip()
        if not part:
            continue
        key, eq, value = part.partition("=")
        if eq and re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", key.strip()):
            fields.append((key.strip(), value.strip()))
        elif part == "book":
            book = True
        else:
            notes.append(part)
    found = dict(fields)
    eval_cp: int | None = None
    mate_in: int | None = None
    if not book and "wv" in found:
        eval_cp, mate_in = _score(found["wv"])
    return MoveComment(
        book=book,
        eval_cp=eval_cp,
        mate_in=mate_in,
        depth=_int(found.get("d")),
        move_time_ms=_int(found.get("mt")),
        clock_ms=_int(found.get("tl")),
        nodes=_int(found.get("n")),
        fields=tuple(fields),
        notes=tuple(notes),
    )


# --- cutechess -------------------------------------------------------------------------------

_CUTECHESS = re.compile(
    r"^\s*(?P<score>[+-]?(?:M\d+|\d+(?:\.\d+)?))/(?P<depth>\d+)"
    r"(?:\s+(?P<time>\d+(?:\.\d+)?)s)?\s*(?:,\s*(?P<rest>.*))?$",
    re.DOTALL,
)


def parse_cutechess(comment: str, mover: Colour) -> MoveComment:
    """A cutechess-cli comment, `{+0.35/20 1.2s}`: the score is the **mover's** view, turned
    into White's view here."""
    text = comment.strip()
    if text == "book" or text.startswith("book,"):
        rest = text[5:].strip()
        return MoveComment(book=True, notes=(rest,) if rest else ())
    m = _CUTECHESS.match(text)
    if m is None:
        return MoveComment(notes=(text,) if text else ())
    eval_cp, mate_in = _score(m.group("score"))
    sign = 1 if mover == "white" else -1
    rest = (m.group("rest") or "").strip()
    return MoveComment(
        eval_cp=None if eval_cp is None else sign * eval_cp,
        mate_in=None if mate_in is None else sign * mate_in,
        depth=int(m.group("depth")),
        move_time_ms=_ms(m.group("time")) if m.group("time") else None,
        notes=(rest,) if rest else (),
    )


# --- lichess ---------------------------------------------------------------------------------

_COMMAND = re.compile(r"\[%(?P<name>\w+)\s+(?P<value>[^\]]*)\]")


def _hms_ms(text: str) -> int | None:
    m = re.fullmatch(r"\s*(?:(\d+):)?(\d+):(\d+(?:\.\d+)?)\s*", text)
    if m is None:
        return None
    seconds = _ms(m.group(3))
    if seconds is None:
        return None
    return (int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60) * 1000 + seconds


def parse_lichess(comment: str) -> MoveComment:
    """lichess / ChessBase commands: `[%eval …]` (White's view), `[%clk …]`, `[%emt …]`."""
    eval_cp: int | None = None
    mate_in: int | None = None
    depth: int | None = None
    clock_ms: int | None = None
    move_time_ms: int | None = None
    nodes: int | None = None
    for m in _COMMAND.finditer(comment):
        name, value = m.group("name"), m.group("value").strip()
        if name == "eval":
            score, _, d = value.partition(",")
            eval_cp, mate_in = _score(score)
            depth = _int(d) if d else None
        elif name == "clk":
            clock_ms = _hms_ms(value)
        elif name == "emt":
            move_time_ms = _hms_ms(value)
        elif name == "nodes":  # Arbiter's export (services/interchange/pgn/export.py)
            nodes = _int(value)
            nodes = nodes if nodes is not None and nodes >= 0 else None
    rest = _COMMAND.sub("", comment).strip()
    return MoveComment(
        eval_cp=eval_cp,
        mate_in=mate_in,
        depth=depth,
        move_time_ms=move_time_ms,
        clock_ms=clock_ms,
        nodes=nodes,
        notes=(rest,) if rest else (),
    )


def parse_comment(comment: str, mover: Colour) -> MoveComment:
    """Any of the three dialects, picked from the text."""
    if "[%" in comment:
        return parse_lichess(comment)
    if _CUTECHESS.match(comment.strip()):
        return parse_cutechess(comment, mover)
    return parse_tcec(comment)
