"""The EGF results file, "h9" (`arbiter export h9 T`, `GET /tournaments/{id}/h9`), as the
European Go Database takes it and as OpenGotha writes it (OpenGotha `ExternalDocument.java`,
`generateH9File`), and its reader (`read_h9`).

The header, one `; XX[...]` line each:

    ; CL[B]                       the EGF tournament class: given (`--class`), else from the
                                  first time control as OpenGotha's `egfClass` (A, B, C; X)
    ; EV[Paris Go Open 2026]      the event (the tournament's name)
    ; PC[FR,Paris]                the place: country code, town (`--place`)
    ; DT[2026-05-01,2026-05-03]   first and last day (`starts_on`, `ends_on`; else the days
                                  of the first and last events)
    ; HA[h1]                      the handicap correction (written only when handicaps are
                                  given by rank difference and the correction is not 0)
    ; KM[7.5]                     komi
    ; TM[72]                      the EGF adjusted time in minutes (OpenGotha's
                                  `egfAdjustedTime`, from the first time control)
    ; CM[Canadian byo-yomi]       the overtime system (Sudden death, Standard byo-yomi,
                                  Canadian byo-yomi, Fischer)

then comment lines (`;`), then one line per player in the order of the standings:

    1 Shin Jinseo                    9d KR SEOU  15  42  280  0 2+/w0 3+/b 4-/w2 0+ |12345678

the line number (the place; an opponent is named by it), the name (padded to 30), the rank,
the country (2 letters, "XX" unknown), the club (at most 4 characters, "xxxx" unknown), the
first four criteria of the tournament's chain (as OpenGotha writes the placement criteria;
"0" where the chain has fewer), then one result per round: `<opponent><+|-|=>/<w|b><handicap>`
("12+/w3": won against number 12 with White, handicap 3; the handicap omitted when 0), a
forfeit `<opponent><+|->!` (not rated: OpenGotha's "!" of a result by default), a bye `0+`
(`0=` a half-point bye), `0-` a round without a game; and the player's EGD PIN after `|`
when it is known (kept by an OpenGotha import from its `egfPin`: `common.rating_ids`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from events_schema import Recorded
from events_schema import events as ev
from projections.standings.crosstable import Entry
from projections.standings.table import standings
from services.interchange.egf.common import ResultsFileError, dates, go_state, rating_ids

_OVERTIME = {
    "none": "Sudden death",
    "byo_yomi": "Standard byo-yomi",
    "canadian": "Canadian byo-yomi",
    "fischer": "Fischer",
}
_RESULT = re.compile(r"^(\d+)([+\-=])(?:(!)|/([wb])(\d*))?$")
_RANK = re.compile(r"^(?:[1-9]|[12][0-9]|30)k$|^[1-9][dp]$")
_HEADER = re.compile(r"^;\s*([A-Z]{2})\[(.*)\]\s*$")
_SIGN = {"win": "+", "loss": "-", "draw": "="}


@dataclass(frozen=True, slots=True)
class H9Result:
    """One round of a player's line: the opponent's line number (0: no opponent), the outcome
    (`+`, `-`, `=`), the colour (`w`, `b`, None), the handicap, and whether it was a forfeit."""

    opponent: int
    outcome: str
    colour: str | None = None
    handicap: int = 0
    forfeit: bool = False

    def text(self) -> str:
        if self.opponent == 0:
            return f"0{self.outcome}"
        if self.forfeit:
            return f"{self.opponent}{self.outcome}!"
        return f"{self.opponent}{self.outcome}/{self.colour}{self.handicap or ''}"


@dataclass(frozen=True, slots=True)
class H9Player:
    place: int
    name: str
    rank: str
    country: str
    club: str
    criteria: tuple[str, ...]
    results: tuple[H9Result, ...]
    pin: str | None = None


@dataclass
class H9File:
    header: dict[str, str] = field(default_factory=dict)
    players: list[H9Player] = field(default_factory=list)
    columns: tuple[str, ...] = ()  # the criteria's names (the column heads; not read back)


def _criterion(shown: str) -> str:
    """A criterion's value as h9 writes it: a number without its half sign ("12½" → "12.5")."""
    text = shown.strip().replace("½", ".5")
    return "0" + text if text.startswith(".") else (text or "0")


def _result(entry: Entry, numbers: dict[str, int]) -> H9Result:
    sign = _SIGN[entry.outcome]
    if entry.kind == "played" and entry.opponent is not None:
        colour = "w" if entry.colour == "white" else "b"
        handicap = entry.game.handicap if entry.game is not None else 0
        return H9Result(numbers[entry.opponent], sign, colour, handicap)
    if entry.kind in ("forfeit_win", "forfeit_loss") and entry.opponent in numbers:
        return H9Result(numbers[entry.opponent], sign, forfeit=True)
    return H9Result(0, sign if entry.kind != "zero_bye" else "-")


def egf_adjusted_time(tc: ev.TimeControl | None) -> int:
    """The EGF's adjusted thinking time in seconds, as OpenGotha computes it
    (`Tournament.java`, `egfAdjustedTime`): the basic time, plus 45 periods of standard
    byo-yomi, plus 60 moves at the Canadian rate (time / stones), plus 120 Fischer
    increments; sudden death: the basic time."""
    if tc is None:
        return 0
    bt = tc.base_seconds
    if tc.overtime == "byo_yomi":
        return bt + 45 * tc.overtime_seconds
    if tc.overtime == "canadian":
        return bt + (60 * tc.overtime_seconds) // max(tc.overtime_stones, 1)
    if tc.overtime == "fischer" or tc.increment_seconds:
        return bt + 120 * (tc.increment_seconds or tc.overtime_seconds)
    return bt


def egf_class_of(tc: ev.TimeControl | None) -> str:
    """The EGF tournament class from the thinking time, as OpenGotha computes it
    (`Tournament.java`, `egfClass`): A, B, C by the basic time and the adjusted time (Fischer
    with lower basic times), else X (not rated)."""
    if tc is None:
        return "X"
    bt, at = tc.base_seconds, egf_adjusted_time(tc)
    fischer = tc.overtime == "fischer" or (tc.overtime == "none" and tc.increment_seconds > 0)
    steps = (
        ((2700, 4500, "A"), (1800, 3000, "B"), (1200, 1800, "C"))
        if fischer
        else ((3600, 4500, "A"), (2400, 3000, "B"), (1500, 1800, "C"))
    )
    return next((c for base, adjusted, c in steps if bt >= base and at >= adjusted), "X")


def h9_file(
    records: Sequence[Recorded], *, egf_class: str | None = None, place: str = ","
) -> H9File:
    """The h9 file of the Go tournament whose records these are, as data (`export_h9` writes
    it); `ResultsFileRefused` for a tournament that is not one. `egf_class`: the class to
    write (None: from the first time control, as OpenGotha computes it)."""
    state = go_state(records, "h9")
    created = state.created
    assert created is not None
    table = standings(state)
    ct = table.crosstable
    assert ct is not None
    start, end = dates(records, state)
    tc = created.time_controls[0] if created.time_controls else None
    go = created.go
    header = {"CL": egf_class or egf_class_of(tc), "EV": created.name, "PC": place}
    header["DT"] = f"{start.isoformat()},{end.isoformat()}"
    if go is not None and go.handicap == "rank_difference" and go.handicap_correction:
        header["HA"] = f"h{go.handicap_correction}"
    header["KM"] = _komi(created.komi)
    header["TM"] = str(egf_adjusted_time(tc) // 60)
    header["CM"] = _OVERTIME.get(tc.overtime if tc is not None else "none", "")
    numbers = {row.player_id: n for n, row in enumerate(table.rows, 1)}
    known_ids = rating_ids(state)
    players = []
    for n, row in enumerate(table.rows, 1):
        info = state.players[row.player_id]
        by_round = {e.round: e for e in ct.entries.get(row.player_id, ())}
        results = tuple(
            _result(by_round[r], numbers) if r in by_round else H9Result(0, "-")
            for r in range(1, ct.rounds + 1)
        )
        criteria = [_criterion(shown) for _, shown in row.tiebreaks[:4]]
        criteria += ["0"] * (4 - len(criteria))
        country = (row.federation or "").strip().upper()
        club = re.sub(r"\s+", "", info.club or "")[:4]
        pin = known_ids.get(row.player_id, {}).get("egd_pin")  # kept by an OpenGotha import
        players.append(
            H9Player(
                n,
                " ".join(info.name.split()),
                info.go_rank or "30k",
                country if re.fullmatch(r"[A-Z]{2}", country) else "XX",
                club or "xxxx",
                tuple(criteria),
                results,
                str(pin) if pin else None,
            )
        )
    columns = tuple(key for key, _ in table.rows[0].tiebreaks[:4]) if table.rows else ()
    return H9File(header, players, columns)


def _komi(komi: Decimal) -> str:
    return format(komi.normalize(), "f")


def write_h9(h9: H9File) -> str:
    """The text of an h9 file."""
    lines = [f"; {key}[{value}]" for key, value in h9.header.items()]
    names = "".join(f" {c[:4].upper():>4}" for c in h9.columns)
    lines += [";", f"; Pl Name                            Rk Co Club{names}"]
    for p in h9.players:
        parts = [f"{p.place:>4} {p.name:<30} {p.rank:>3} {p.country} {p.club:>4}"]
        parts += [f"{c:>4}" for c in p.criteria]
        parts += [f"{r.text():>8}" for r in p.results]
        if p.pin:
            parts.append(f"|{p.pin}")
        lines.append(" ".join(parts))
    return "\n".join(lines) + "\n"


def export_h9(
    records: Sequence[Recorded], *, egf_class: str | None = None, place: str = ","
) -> str:
    """The EGF h9 results file of the Go tournament whose records these are."""
    return write_h9(h9_file(records, egf_class=egf_class, place=place))


def read_h9(text: str) -> H9File:
    """An h9 file read back (`ResultsFileError` naming the line of the first problem)."""
    out = H9File()
    lines: list[int] = []  # each player's line
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith(";"):
            m = _HEADER.match(line)
            if m is not None:
                out.header[m.group(1)] = m.group(2)
            continue
        out.players.append(_player(line, number))
        lines.append(number)
    for p, number in zip(out.players, lines, strict=True):
        for r in p.results:
            if r.opponent > len(out.players):
                raise ResultsFileError(number, f"player {p.place} meets {r.opponent}: no such line")
    return out


def _player(line: str, number: int) -> H9Player:
    body, _, pin = line.partition("|")
    tokens = body.split()
    results: list[H9Result] = []
    while tokens and (m := _RESULT.match(tokens[-1])) is not None:
        tokens.pop()
        opponent, sign, forfeit, colour, handicap = m.groups()
        results.insert(
            0, H9Result(int(opponent), sign, colour, int(handicap or 0), forfeit is not None)
        )
    rank_at = next((i for i in range(len(tokens) - 1, 0, -1) if _RANK.match(tokens[i])), None)
    if not tokens or not tokens[0].isdigit() or rank_at is None or len(tokens) < rank_at + 3:
        raise ResultsFileError(
            number, "not a player line: place, name, rank, country, club, results"
        )
    return H9Player(
        int(tokens[0]),
        " ".join(tokens[1:rank_at]),
        tokens[rank_at],
        tokens[rank_at + 1],
        tokens[rank_at + 2],
        tuple(tokens[rank_at + 3 :]),
        tuple(results),
        pin.strip() or None,
    )
