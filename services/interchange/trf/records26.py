"""The records of FIDE's TRF26 (the report format since 1 September 2025) beyond TRF-16, read
into events (issue 26). A file is TRF26 when it holds any record TRF-16 does not have
(`is_trf26`: 142, 162, 172, 182, 192, 202, 212, 222, 240, 250, 260, 299, 300, 310, 320, 330, 352,
362); otherwise it is read as TRF-16, exactly as before.

Read into events (the layouts as gacrux's `trf2json` reads and writes them):

* 240 requested byes, ``240 T RRR NNNN NNNN ...``: T ``H`` (half point) or ``F`` (full
  point; also ``Z``, zero, which gacrux reads), RRR the round, then start ranks. For a round
  the 001 lines do not reach yet (a bye requested ahead), one `RulingIssued` per round, the
  requested-byes ruling `arbiter bye` makes (subject ``main:r<round>:byes``, FIDE C.04.2);
  ``F`` is refused there (`bye.full_point_not_offered`: a requested bye scores ½ or 0 in
  Arbiter). For a round already in the 001 lines the byes are those lines' ``H``/``F``/``Z``
  codes, and the 240 record must agree with them (refused otherwise).
* 250 acceleration, ``250 MMMM GGGG RRR RRR NNNN NNNN``: match points, game points, first and
  last round, first and last start rank: an `AccelerationSet` (method ``explicit``) with the
  game points as virtual points of each player in the range (FIDE C.04.5.1 and any other
  accelerated rounds).
* 260 prohibited pairings, ``260 RRR RRR NNNN NNNN ...``: first and last round, then the start
  ranks none of whom may meet another: one `PairingsProhibited` per record.
* 152 initial colour (``W``/``B``, C.04.3 art. 5.2.5): the colour lot the Dutch pairing reads
  (`LotDrawn`, subject ``main:initial-colour``), so the next round pairs with the file's
  colour rather than a new draw; write.py writes 152 back from it.

Kept verbatim (`TrfRecordsKept`, written back unchanged by write26.py): every other record no
event stores, in file order: 162 game score system, 172, 182, 192 tournament type, 202/212
tie-break lists, 222 encoded time control, 330 forfeited team matches (individual forfeits
are the 001 lines' ``+``/``-``), 352/362 team records, ``###`` comments, other ``XX?``
extensions, and the header lines 022, 032, 082, 092, 102, 112, 122, 132 (no event stores
them either). Names are read as UTF-8, as TRF26 specifies (`parse.decode_trf`).

Read into the tournament's creation as well (`creation26`), and kept for the write-back:

* 162 game score system (``162  W 1.0    D 0.5    L 0.0    P 1.0``: a symbol and its points
  every 9 columns from column 6, as gacrux reads it): W win (also a forfeit win), D draw (also
  a half-point bye), L loss, P the pairing-allocated bye, as the tournament's `Scoring`; points
  that are not whole or half points are refused (they would change every score);
* 142 number of rounds (as gacrux writes it; XXR, JaVaFo's, wins when both are there);
* 192 tournament type: ``FIDE_DUTCH`` pairs by the Dutch system (`pairing="dutch"`); another
  type is kept only (the format given to `import trf` decides);
* 212 (the standings' tie-breaks, after PTS), else 202: the tournament's tie-break chain, FIDE's
  codes (C.07, as gacrux names them: BH, BH/C1, SB, DE, WIN, ARO, ...) as Arbiter's criteria;
  a code Arbiter does not compute is refused by name (the standings would mean another thing);
* 222 encoded time control (timecontrol26.py): sudden death (``5400``), an increment
  (``5400+30``) or White's and Black's bases (``W300-B240``) as the tournament's time control;
  a well-formed encoding Arbiter cannot express (several periods, ``40/5400+30:1800+30``) is
  kept only and reported by name (`time_control_notes`); a malformed one is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from events_schema import events as ev
from projections.pairing.dutch import byes_subject, colour_subject
from services.interchange.trf.parse import EDITION_NOTE, TrfError, TrfFile
from services.interchange.trf.timecontrol26 import Unexpressible, read_222

#: Records TRF26 has and TRF-16 has not: one of them makes a file TRF26.
TRF26_TAGS = frozenset(
    {
        "142",
        "162",
        "172",
        "182",
        "192",
        "202",
        "212",
        "222",
        "240",
        "250",
        "260",
        "299",
        "300",
        "310",
        "320",
        "330",
        "352",
        "362",
    }
)
#: The records read into events here.
READ_TAGS = frozenset({"152", "240", "250", "260"})
DETAIL = "imported from TRF26"


def is_trf26(trf: TrfFile) -> bool:
    """A file holding any record TRF-16 does not have is TRF26."""
    return any(line[:3] in TRF26_TAGS for _, line in trf.other_lines)


@dataclass(frozen=True)
class ByeRecord:
    line: int
    kind: str  # "H", "F" or "Z"
    round: int
    ranks: tuple[int, ...]


@dataclass(frozen=True)
class AccelerationRecord:
    line: int
    points: int  # half-points (the game points)
    first_round: int
    last_round: int
    first_rank: int
    last_rank: int


@dataclass(frozen=True)
class ProhibitionRecord:
    line: int
    first_round: int
    last_round: int
    ranks: tuple[int, ...]


@dataclass
class Records26:
    byes: list[ByeRecord] = field(default_factory=list)
    accelerations: list[AccelerationRecord] = field(default_factory=list)
    prohibitions: list[ProhibitionRecord] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    initial_colour: str | None = None  # 152: "white" or "black"


def _num(line: str, lineno: int, first: int, last: int, what: str) -> int:
    """Columns first..last (1-based) as a number (blank: 0)."""
    text = line[first - 1 : last].strip()
    if not text:
        return 0
    if not text.isdigit():
        raise TrfError(lineno, f"{first}-{last}", f"{what} {text!r} is not a number")
    return int(text)


def _ranks(line: str, lineno: int, first: int, width: int, ranks: set[int]) -> tuple[int, ...]:
    """Start ranks of `width` columns each, one blank apart, from column `first`."""
    out: list[int] = []
    col = first
    while col <= len(line):
        n = _num(line, lineno, col, col + width - 1, "start rank")
        if n:
            if n not in ranks:
                raise TrfError(
                    lineno, f"{col}-{col + width - 1}", f"start rank {n} has no 001 line"
                )
            out.append(n)
        col += width + 1
    return tuple(out)


def _bye(line: str, lineno: int, ranks: set[int]) -> ByeRecord:
    kind = line[4:5].upper()
    if kind not in ("H", "F", "Z"):
        raise TrfError(lineno, "5", f"240 bye type {kind!r} is not H (half) or F (full)")
    rnd = _num(line, lineno, 7, 9, "round")
    if rnd < 1:
        raise TrfError(lineno, "7-9", "240 needs a round")
    return ByeRecord(lineno, kind, rnd, _ranks(line, lineno, 11, 4, ranks))


def _acceleration(line: str, lineno: int, ranks: set[int]) -> AccelerationRecord:
    raw = line[9:13].strip() or line[4:8].strip()
    try:
        points = Decimal(raw) * 2
    except InvalidOperation:
        raise TrfError(lineno, "10-13", f"250 points {raw!r} are not a number") from None
    if points != points.to_integral_value() or points < 1:
        raise TrfError(lineno, "10-13", f"250 points {raw!r}: whole or half points, at least ½")
    first = _num(line, lineno, 15, 17, "first round")
    last = _num(line, lineno, 19, 21, "last round") or first
    lo = _num(line, lineno, 23, 26, "first start rank")
    hi = _num(line, lineno, 28, 31, "last start rank") or lo
    if first < 1 or lo < 1:
        raise TrfError(lineno, "15-26", "250 needs a first round and a first start rank")
    for n, cols in ((lo, "23-26"), (hi, "28-31")):
        if n not in ranks:
            raise TrfError(lineno, cols, f"start rank {n} has no 001 line")
    return AccelerationRecord(lineno, int(points), first, last, lo, hi)


def _prohibition(line: str, lineno: int, ranks: set[int]) -> ProhibitionRecord:
    first = _num(line, lineno, 5, 7, "first round")
    last = _num(line, lineno, 9, 11, "last round") or first
    found = _ranks(line, lineno, 13, 4, ranks)
    if first < 1 or len(found) < 2:
        raise TrfError(lineno, "", "260 needs a round and at least two start ranks")
    return ProhibitionRecord(lineno, first, last, found)


def header_lines(trf: TrfFile) -> list[str]:
    """The header records no event stores (022, 032, 082, 092, 102, 112, 122, 132), as
    write.py writes them (`write_trf` with this header gives the same lines back)."""
    h = trf.header
    lines = [f"{tag} {value}" for tag, value in (("022", h.city), ("032", h.federation)) if value]
    if h.teams_count:
        lines.append(f"082 {h.teams_count}")
    if h.type:
        lines.append(f"092 {h.type}")
    if h.chief_arbiter:
        lines.append(f"102 {h.chief_arbiter}")
    lines.extend(f"112 {d}" for d in h.deputy_arbiters)
    if h.time_control:
        lines.append(f"122 {h.time_control}")
    if h.round_dates:
        lines.append(("132" + " " * 88 + "".join(f"{d:<8}  " for d in h.round_dates)).rstrip())
    return lines


def read26(trf: TrfFile) -> Records26:
    """The TRF26 records of `trf`: those read into events, and those kept (the module
    docstring). Malformed records raise `TrfError` naming the line and columns."""
    ranks = {p.start_rank for p in trf.players}
    out = Records26(kept=header_lines(trf))
    for lineno, line in trf.other_lines:
        tag = line[:3]
        if tag == "240":
            out.byes.append(_bye(line, lineno, ranks))
        elif tag == "250":
            out.accelerations.append(_acceleration(line, lineno, ranks))
        elif tag == "260":
            out.prohibitions.append(_prohibition(line, lineno, ranks))
        elif tag == "152":
            colour = line[4:].strip().upper()
            if colour not in ("W", "B"):
                raise TrfError(lineno, "5", f"152 initial colour {colour!r} is not W or B")
            out.initial_colour = "white" if colour == "W" else "black"
        elif EDITION_NOTE.fullmatch(line.strip()) is None:  # our edition note: read by plan.py
            out.kept.append(line)
    return out


def _player_id(rank: int) -> str:
    return f"p{rank:03d}"


def events26(trf: TrfFile, file_name: str = "TRF") -> list[tuple[ev.Event, str]]:
    """The events of the TRF26 records (after the TRF-16 plan's), each with its place."""
    recs = read26(trf)
    out: list[tuple[ev.Event, str]] = []
    if recs.kept:
        out.append((ev.TrfRecordsKept(lines=recs.kept), f"{file_name}: records kept"))
    if recs.initial_colour is not None:
        lot = ev.LotDrawn(
            purpose="colours",
            subject=colour_subject("main"),
            candidates=["black", "white"],
            outcome=[recs.initial_colour],
            seed=f"{DETAIL}, record 152",
        )
        out.append((lot, f"{file_name}: record 152"))
    all_ranks = sorted(p.start_rank for p in trf.players)
    if recs.accelerations:
        values = [
            ev.VirtualPoints(
                player_id=_player_id(n),
                first_round=a.first_round,
                last_round=a.last_round,
                points=a.points,
            )
            for a in recs.accelerations
            for n in all_ranks
            if a.first_rank <= n <= a.last_rank
        ]
        where = f"{file_name}:{recs.accelerations[0].line}"
        out.append((ev.AccelerationSet(method="explicit", values=values, reason=DETAIL), where))
    for p in recs.prohibitions:
        prohibited = ev.PairingsProhibited(
            players=[_player_id(n) for n in p.ranks],
            first_round=p.first_round,
            last_round=p.last_round,
            reason=f"{DETAIL}, record 260",
        )
        out.append((prohibited, f"{file_name}:{p.line}"))
    out.extend(_requested_byes(trf, recs.byes, file_name))
    return out


_CODES = {"H": ("H",), "F": ("F", "U", "+"), "Z": ("Z", "-", " ")}


def _requested_byes(
    trf: TrfFile, byes: list[ByeRecord], file_name: str
) -> list[tuple[ev.Event, str]]:
    played = trf.played_rounds
    ahead: dict[int, dict[str, str]] = {}
    lines: dict[int, int] = {}
    for b in byes:
        if b.round <= played:  # the 001 lines carry it: they must agree
            for n in b.ranks:
                p = trf.player(n)
                e = p.entry(b.round) if p is not None else None
                if e is None or e.opponent is not None or e.result not in _CODES[b.kind]:
                    raise TrfError(
                        b.line,
                        "",
                        f"240 gives start rank {n} a {b.kind} bye in round {b.round}, "
                        "which its 001 line does not",
                    )
            continue
        if b.kind == "F":
            raise TrfError(
                b.line,
                "5",
                "bye.full_point_not_offered: a requested bye scores ½ or 0 in Arbiter "
                "(FIDE C.04.2; the full point is the pairing-allocated bye's, C.04.1.c)",
            )
        for n in b.ranks:
            ahead.setdefault(b.round, {})[_player_id(n)] = "half" if b.kind == "H" else "zero"
        lines.setdefault(b.round, b.line)
    return [
        (
            ev.RulingIssued(
                ruling_id=f"byes-main-r{rnd}-1",
                by=DETAIL,
                subject=byes_subject("main", rnd),
                rule="FIDE C.04.2 (requested byes); TRF26 record 240",
                text=f"{DETAIL}, record 240: byes requested for round {rnd}",
                decision={"byes": dict(sorted(ahead[rnd].items()))},
            ),
            f"{file_name}:{lines[rnd]}",
        )
        for rnd in sorted(ahead)
    ]


#: FIDE C.07 tie-break codes (TRF26 records 202/212, gacrux's names) -> Arbiter's criteria
#: (projections/tiebreaks/fide.py).
TIEBREAK_CODES: dict[str, str] = {
    "BH": "buchholz",
    "BH/C1": "buchholz-cut1",
    "BH/C2": "buchholz-cut2",
    "BH/M1": "buchholz-median1",
    "BH/M2": "buchholz-median2",
    "SB": "fide-sonneborn-berger",
    "SB/C1": "fide-sonneborn-berger-cut1",
    "SB/C2": "fide-sonneborn-berger-cut2",
    "DE": "fide-direct-encounter",
    "WIN": "fide-wins",
    "WON": "fide-games-won",
    "BPG": "fide-black-games",
    "BWG": "fide-black-wins",
    "PS": "fide-progressive",
    "PS/C1": "fide-progressive-cut1",
    "PS/C2": "fide-progressive-cut2",
    "ARO": "fide-aro",
    "ARO/C1": "fide-aro-cut1",
    "ARO/C2": "fide-aro-cut2",
    "ARO/M1": "fide-aro-median1",
    "ARO/M2": "fide-aro-median2",
    "TPR": "fide-tpr",
    "APRO": "fide-apro",
    "AOB": "fide-aob",
    "FB": "fide-fore-buchholz",
    "FB/C1": "fide-fore-buchholz-cut1",
    "FB/C2": "fide-fore-buchholz-cut2",
    "FB/M1": "fide-fore-buchholz-median1",
    "FB/M2": "fide-fore-buchholz-median2",
    "KS": "fide-koya",
}
_SCORE_FIELDS = {
    "W": ("win", "forfeit_win"),
    "D": ("draw", "half_bye"),
    "L": ("loss",),
    "P": ("bye",),
}


def _scoring(line: str, lineno: int) -> dict[str, int]:
    values: dict[str, int] = {}
    for pos in range(5, len(line), 9):
        sym = line[pos].upper()
        raw = line[pos + 1 : pos + 5].strip()
        if sym not in _SCORE_FIELDS or not raw:
            continue
        try:
            half = Decimal(raw) * 2
        except InvalidOperation:
            raise TrfError(
                lineno, f"{pos + 2}-{pos + 5}", f"162 {sym} {raw!r} is not points"
            ) from None
        if half != half.to_integral_value() or half < 0:
            raise TrfError(
                lineno,
                f"{pos + 2}-{pos + 5}",
                f"162 {sym} {raw}: Arbiter scores whole and half points only",
            )
        for name in _SCORE_FIELDS[sym]:
            values[name] = int(half)
    return values


def _chain(line: str, lineno: int) -> list[ev.TiebreakSpec]:
    codes = [c for c in line[4:].replace(",", " ").split() if c.upper() != "PTS"]
    out = []
    for code in codes:
        name = TIEBREAK_CODES.get(code.upper())
        if name is None:
            raise TrfError(
                lineno,
                "",
                f"{line[:3]} tie-break {code!r} is not one Arbiter computes "
                f"({', '.join(TIEBREAK_CODES)})",
            )
        out.append(ev.TiebreakSpec(name=name))
    return out


def creation26(trf: TrfFile, created: ev.TournamentCreated) -> ev.TournamentCreated:
    """`created` with what records 162, 192, 202/212 and 222 say (the module docstring)."""
    update: dict[str, object] = {}
    chains: dict[str, tuple[str, int]] = {}
    for lineno, line in trf.other_lines:
        tag = line[:3]
        if tag == "142" and trf.rounds is None:
            rounds = _num(line, lineno, 5, len(line), "142 number of rounds")
            if rounds < trf.played_rounds:
                raise TrfError(
                    lineno, "", f"142 says {rounds} rounds but players have entries for more"
                )
            update["rounds"] = rounds
        elif tag == "162":
            scoring = _scoring(line, lineno)
            if scoring:
                update["scoring"] = ev.Scoring(**{**created.scoring.model_dump(), **scoring})
        elif tag == "192" and line[4:].strip().upper() == "FIDE_DUTCH":
            update["pairing"] = "dutch"
        elif tag in ("202", "212"):
            chains[tag] = (line, lineno)
        elif tag == "222":
            tc = read_222(line[4:].strip(), lineno)  # malformed: TrfError
            if isinstance(tc, ev.TimeControl):
                update["time_controls"] = [tc]
    chosen = chains.get("212") or chains.get("202")
    if chosen is not None:
        update["tiebreaks"] = _chain(*chosen)
    if not update:
        return created
    return ev.TournamentCreated.model_validate({**created.model_dump(), **update})


def time_control_notes(trf: TrfFile) -> list[str]:
    """The 222 records Arbiter cannot express, by line and reason (kept verbatim only, written
    back unchanged): warnings, not errors. A malformed 222 raises `TrfError`."""
    out = []
    for lineno, line in trf.other_lines:
        if line[:3] == "222":
            tc = read_222(line[4:].strip(), lineno)
            if isinstance(tc, Unexpressible):
                out.append(
                    f"line {lineno}: 222 {tc.value!r} kept as written, not the tournament's "
                    f"time control: {tc.reason}"
                )
    return out
