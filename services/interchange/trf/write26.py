"""A tournament written as a TRF26 file (`arbiter export trf --format trf26`,
`GET /tournaments/{id}/trf?format=trf26`): the TRF-16 text of write.py, plus

* the records an import kept (`TrfRecordsKept`, records26.py), unchanged: the header lines
  no event stores (022, 032, 082, 092, 102, 112, 122, 132) given to `write_trf` as its header,
  so they come back where TRF-16 puts them; every other kept record (162, 192, 202, 212, 222,
  330, ...) in its file order after the header (XXR, XXC, 152), before the 001 lines; a kept
  record whose tag the writer writes itself (152 once a colour lot is drawn) is not repeated;
  no 222 kept: 222 from the tournament's time control when it has one TRF26 can encode
  (timecontrol26.py: ``5400+30``, ``5400``, ``W300-B240``), after the kept records;
* after the 001 lines: 240 the byes requested for rounds not yet paired (the requested-byes
  rulings in force, FIDE C.04.2; a round already paired has its byes in the 001 lines), one
  record per round and kind, ``H`` half, ``Z`` zero (gacrux reads both; TRF26 names ``H`` and
  ``F``, and Arbiter offers no full-point requested bye); 250 the acceleration in force
  as the pairing reads it (`AccelerationSet`: explicit values as given; FIDE C.04.5.1's
  Baku acceleration read from the field of each accelerated round, so a late entry placed
  in GA has his virtual points), consecutive start ranks with the same rounds and points on
  one record; 260 every prohibited pairing in force
  (`PairingsProhibited`), its players by start rank.

The layouts are those gacrux's `trf2json` writes (`output_trf_accelerated`,
`output_trf_prohibited`) and reads (`parse_trf_bye`). Names are written as they are (UTF-8:
the CLI and the API write the text as UTF-8, as TRF26 specifies).

A TRF26 file this export wrote imports back to the same events and exports again byte for
byte (tests/golden/trf26/). A foreign file is normalised: points, ranks and counts are
recomputed, sex and birth date (not stored) are dropped from the 001 lines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from events_schema import Recorded
from events_schema import events as ev
from projections.pairing import dutch
from projections.pairing.acceleration import as_values
from projections.pairing.base import context
from projections.pairing.dutch import byes_subject
from projections.standings import StandingsState, fold
from services.interchange.trf.parse import HEADER_TAGS, TrfHeader, parse_trf
from services.interchange.trf.timecontrol26 import encode_222
from services.interchange.trf.write import TrfOrder, player_details, start_ranks, write_trf

#: The header records write.py writes from a `TrfHeader` (kept lines with these tags go there).
_HEADER = frozenset({*HEADER_TAGS, "112", "132"})


def kept_lines(state: StandingsState) -> list[str]:
    """The records kept by the latest `TrfRecordsKept` in force (none: no lines)."""
    kept = list(state.kept_records.values())
    return list(kept[-1].lines) if kept else []


def _bye_lines(state: StandingsState, number: Mapping[str, int], stage: str) -> list[str]:
    """240, the byes requested for rounds not yet paired."""
    latest: dict[str, dict[str, str]] = {}
    for ruling in state.rulings.values():
        raw = ruling.decision.get("byes")
        if isinstance(raw, dict):
            latest[ruling.subject] = {str(k): str(v) for k, v in raw.items()}
    rounds = (state.created.rounds if state.created else None) or 0
    lines = []
    for rnd in range(1, rounds + 1):
        if (stage, rnd) in state.round_keys:
            continue
        byes = latest.get(byes_subject(stage, rnd), {})
        for kind, code in (("half", "H"), ("zero", "Z")):
            ranks = sorted(number[p] for p, k in byes.items() if k == kind and p in number)
            if ranks:
                lines.append(f"240 {code} {rnd:>3} " + " ".join(f"{n:>4}" for n in ranks))
    return lines


def _points(half: int) -> str:
    return f"{half / 2:>4.1f}"


def acceleration_values(state: StandingsState, stage: str = "main") -> list[ev.VirtualPoints]:
    """The virtual points the pairing reads (`dutch.virtual_points`): an explicit acceleration's
    values as given; the Baku acceleration's (FIDE C.04.5.1) read from the field of each
    accelerated round, the rounds paired as they were paired and the rounds to come as the
    field stands now (late entries in GA or GB as the rule places them)."""
    accelerations = list(state.accelerations.values())
    if not accelerations:
        return []
    if accelerations[-1].method != "baku":
        return list(accelerations[-1].values)
    ctx = context(state, stage)
    return as_values(dutch.baku_virtual_points(ctx), dutch.initial_ranking(ctx.players.values()))


def _acceleration_lines(state: StandingsState, number: Mapping[str, int], stage: str) -> list[str]:
    """250: the acceleration the pairing reads, consecutive start ranks with the same value
    joined."""
    values = sorted(
        (v.first_round, v.last_round, v.points, number[v.player_id])
        for v in acceleration_values(state, stage)
        if v.player_id in number
    )
    lines = []
    i = 0
    while i < len(values):
        first, last, points, lo = values[i]
        hi = lo
        while i + 1 < len(values) and values[i + 1] == (first, last, points, hi + 1):
            i += 1
            hi += 1
        pts = _points(points)
        lines.append(f"250 {pts} {pts} {first:>3} {last:>3} {lo:>4} {hi:>4}")
        i += 1
    return lines


def _time_control_line(state: StandingsState) -> list[str]:
    """222, the tournament's time control when no 222 was kept and it has exactly one that
    TRF26 can say (timecontrol26.py `encode_222`)."""
    tcs = state.created.time_controls if state.created is not None else []
    value = encode_222(tcs[0]) if len(tcs) == 1 else None
    return [f"222 {value}"] if value is not None else []


def _prohibition_lines(state: StandingsState, number: Mapping[str, int]) -> list[str]:
    """260: every prohibited pairing in force."""
    rounds = (state.created.rounds if state.created else None) or 0
    lines = []
    for p in state.prohibitions.values():
        ranks = [number[pid] for pid in p.players if pid in number]
        last = p.last_round if p.last_round is not None else max(rounds, p.first_round)
        lines.append(f"260 {p.first_round:>3} {last:>3} " + " ".join(f"{n:>4}" for n in ranks))
    return lines


def write_trf26(
    state: StandingsState,
    records: Sequence[Recorded] = (),
    *,
    stage: str = "main",
    order: TrfOrder = "pairing",
    newline: str = "\r\n",
) -> str:
    """The TRF26 text of `state` (the module docstring); `records` give the players' details
    (federation, title, FIDE id) as for TRF-16."""
    kept = kept_lines(state)
    header_part = [line for line in kept if line[:3] in _HEADER]
    others = [line for line in kept if line[:3] not in _HEADER]
    header = parse_trf("\n".join(header_part)).header if header_part else TrfHeader()
    text = write_trf(
        state,
        stage=stage,
        details=player_details(records),
        header=header,
        order=order,
        newline="\n",
    )
    lines = text.split("\n")[:-1]
    first_player = next((i for i, line in enumerate(lines) if line.startswith("001")), len(lines))
    written = {line[:3] for line in lines[:first_player]}
    others = [line for line in others if line[:3] not in written or line[:3] == "###"]
    if not any(line[:3] == "222" for line in kept):
        others += _time_control_line(state)
    number = {pid: n for n, pid in enumerate(start_ranks(state, stage, order), start=1)}
    out = [
        *lines[:first_player],
        *others,
        *lines[first_player:],
        *_bye_lines(state, number, stage),
        *_acceleration_lines(state, number, stage),
        *_prohibition_lines(state, number),
    ]
    return newline.join(out) + newline


def export_trf26(
    records: Sequence[Recorded],
    *,
    order: TrfOrder = "pairing",
    stage: str = "main",
    newline: str = "\r\n",
) -> str:
    """Fold a tournament's records and write them as TRF26: what `arbiter export trf
    --format trf26` and `GET /tournaments/{id}/trf?format=trf26` answer."""
    return write_trf26(fold(list(records)), records, stage=stage, order=order, newline=newline)
