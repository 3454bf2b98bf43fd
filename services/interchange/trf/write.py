"""A tournament's standings fold written as a TRF-16 file (FIDE Handbook C.04 Annex 2).

Players are numbered 1..n (the TRF start rank, which a pairing checker reads as the pairing
number) by `order`:

* ``"pairing"`` (the default, `pairing_order`): the pairing numbers of the tournament's own
  pairing system (its `PairingSystem.pairing_numbers`, `projections/pairing/systems.py`), so
  that an outside checker (gacrux's `pairingchecker`, JaVaFo, bbpPairings) re-pairs the file
  as we paired it: the Dutch initial ranking for FIDE Dutch and Galway (the numbering our
  pairing gave gacrux), the lot's pairing numbers for a Berger round robin, the organisers'
  seeding for Monrad (TCEC Swiss) and the TCEC Cup (each system's module cites its rule).
  McMahon (Go: no fixed pairing numbers, each round is ordered by score group) and a
  tournament without a pairing system (pairings entered by hand, a match, a playoff):
  registration order, the order the organiser entered the field.

  A TRF import registers ``p001``.. in start-rank order with the start rank as seed, so a file
  whose start ranks follow C.04.2 (as a FIDE Swiss's do) comes back with the same numbers; one
  that does not is renumbered by C.04.2 (``order="registration"`` keeps its own).
* ``"registration"``: registration order.
* ``"rating"``: rating descending (unrated last), then name: FIDE's initial ranking without the
  title and seed criteria (kept for files written before ``"pairing"``).

Points and rank are those of `projections.standings.standings(state)`: points under the
tournament's scoring, rank the place in our table (players sharing a place share the rank).
Each round block is written from the crosstable of `stage`:

* played games ``1``/``=``/``0`` (from the outcome the scoring gives), forfeits ``+``/``-``
  (a double forfeit ``-``/``-``), games without a result yet: opponent and colour, blank result;
* byes ``0000 - U`` (pairing-allocated), ``0000 - H`` (half), ``0000 - Z`` (zero; also a
  knockout "advance", which scores nothing);
* a scheduled round with nothing for a player: ``0000 - -`` once they have withdrawn (from
  `PlayerWithdrew.from_round`, or after their last entry when it has none), else ``0000 - Z``.

Header lines 012 (name), 042/052 (start and end dates, ``YYYY/MM/DD``), 062/072 (player
counts), 092 (type, from the format) and the JaVaFo extensions XXR (rounds) and XXC (colour of
the top-numbered player in round 1) come from the events; the rest (022 city, 102 arbiter, 122
time control, 132 round dates) only from a `TrfHeader` passed in, because no event stores them
(a header's values win over the events'). For a stage whose initial colour was drawn (the
system's `PairingSystem.colour_lot`: a Dutch or Galway stage, C.04.3 art. 5.2.5, the
``<stage>:initial-colour`` lot), XXC says the drawn colour and
record ``152`` (``W``/``B``, the initial-colour record of FIDE's newer TRF, which gacrux reads)
states it, so a checker does not have to guess it from round 1. The start date is what another
program reads the FIDE C.07 tie-break edition from (FIDE's server does); when the edition in
force differs from the one the written start date implies (a ruling changed it, or there is no
start date), and the standings follow it, a ``###`` comment line says which edition ranks the
file and why (`parse.edition_note`; the import reads it back). Federation and title are not in
the standings fold: pass `details` (see `player_details`) to write them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Literal, get_args

from events_schema import Recorded
from events_schema import events as ev
from projections.pairing.base import context
from projections.pairing.systems import system_of
from projections.standings import Crosstable, Entry, Row, StandingsState, Table, fold, standings
from projections.standings.crosstable import build as build_crosstable
from projections.standings.state import PlayerInfo
from projections.tiebreaks.editions import edition_on
from services.interchange.trf.parse import TrfHeader, edition_note, trf_date

TrfOrder = Literal["pairing", "registration", "rating"]
ORDERS: tuple[TrfOrder, ...] = get_args(TrfOrder)

_TYPES = {
    "swiss": "Individual: Swiss-System",
    "round_robin": "Individual: Round-Robin",
    "porous_swiss": "Individual: Swiss-System",
}
_BYE_CODES = {"bye": "U", "half_bye": "H", "zero_bye": "Z", "advance": "Z"}


@dataclass(frozen=True)
class PlayerDetails:
    """TRF player fields the standings fold does not keep."""

    federation: str | None = None
    title: str | None = None
    sex: str | None = None  # "m" / "w"
    fide_id: str | None = None
    birth_date: str | None = None  # YYYY/MM/DD


def player_details(records: Iterable[Recorded]) -> dict[str, PlayerDetails]:
    """Federation, title and FIDE id from each player's `PlayerRegistered` (the first counts)."""
    out: dict[str, PlayerDetails] = {}
    for rec in records:
        e = rec.event
        if isinstance(e, ev.PlayerRegistered) and e.player_id not in out:
            out[e.player_id] = PlayerDetails(
                federation=e.federation,
                title=e.title,
                fide_id=str(e.fide_id) if e.fide_id is not None else None,
            )
    return out


def pairing_order(state: StandingsState, stage: str = "main") -> tuple[str, ...]:
    """The players in the order of the pairing numbers of the tournament's pairing system
    (`PairingSystem.pairing_numbers`; registration order without one): TRF start rank =
    index + 1."""
    system = system_of(state.created) if state.created is not None else None
    if system is None or system.pairing_numbers is None:
        return tuple(state.players)
    return tuple(system.pairing_numbers(context(state, stage)))


def initial_colour(state: StandingsState, stage: str = "main") -> str | None:
    """The initial colour drawn for the stage (a Dutch or Galway stage, C.04.3 art. 5.2.5:
    `PairingSystem.colour_lot`), "white" or "black"; None for a system that draws none or
    before the lot is drawn."""
    system = system_of(state.created) if state.created is not None else None
    if system is None or system.colour_lot is None:
        return None
    lot = state.lot(system.colour_lot(stage))
    colour = lot.outcome[0] if lot is not None and lot.outcome else None
    return colour if colour in ("white", "black") else None


def _points(half: int) -> str:
    text = str((Decimal(half) / 2).quantize(Decimal("0.1")))
    if len(text) > 4:
        raise ValueError(f"{text} points do not fit the 4 columns of TRF-16")
    return text


Block = tuple[str, str, str]  # a round entry: opponent, colour, result code
Codes = dict[str, dict[int, Block]]  # player id -> round -> entry


def write_trf(
    state: StandingsState,
    *,
    stage: str = "main",
    details: Mapping[str, PlayerDetails] | None = None,
    header: TrfHeader | None = None,
    order: TrfOrder = "pairing",
    newline: str = "\r\n",
) -> str:
    """The TRF-16 text of `state` (a `projections.standings.fold` of one tournament), players
    numbered by `order` (the module docstring)."""
    details = details or {}
    head = header or TrfHeader()
    pids = start_ranks(state, stage, order)
    number = {pid: n for n, pid in enumerate(pids, start=1)}
    table = standings(state, stage)
    rows = {r.player_id: r for r in table.rows}
    ct = build_crosstable(state, stage)
    codes = _round_codes(state, stage, ct, number)
    lines = [
        *_tournament_lines(state, head, table),
        *_count_lines(state, head, pids),
        *_official_lines(state, head),
        *_extension_lines(state, stage, ct.rounds, pids, codes),
    ]
    for pid in pids:
        withdrew = _withdrawal_round(ct.withdrawn, pid, codes[pid])
        lines.append(
            _player_line(
                number[pid],
                state.players[pid],
                rows.get(pid),
                details.get(pid, PlayerDetails()),
                [_entry(codes[pid], rnd, withdrew) for rnd in range(1, ct.rounds + 1)],
            )
        )
    return newline.join(lines) + newline


def start_ranks(state: StandingsState, stage: str, order: TrfOrder) -> list[str]:
    """The players in start-rank order (TRF start rank = index + 1) by `order`."""
    pids = list(state.players)
    if order == "rating":
        reg_index = {pid: i for i, pid in enumerate(state.players)}
        pids.sort(
            key=lambda p: (-(state.players[p].rating or 0), state.players[p].name, reg_index[p])
        )
    elif order == "pairing":
        pids = list(pairing_order(state, stage))
    elif order != "registration":
        raise ValueError(f"order {order!r} is not one of {', '.join(ORDERS)}")
    return pids


def _round_codes(
    state: StandingsState, stage: str, ct: Crosstable, number: Mapping[str, int]
) -> Codes:
    """Each numbered player's round entries: the crosstable's games and byes, and the games
    scheduled without a result yet (opponent and colour, blank result)."""
    codes: Codes = {pid: {} for pid in number}

    def put(pid: str, rnd: int, block: Block) -> None:
        if rnd in codes[pid]:
            raise ValueError(f"{pid} has two entries in round {rnd}: TRF holds one per round")
        codes[pid][rnd] = block

    for pid, entries in ct.entries.items():
        if pid not in codes:
            continue
        for e in entries:
            put(pid, e.round, _block(e, number))
    for g in state.games.values():
        if g.stage != stage or g.results or g.white not in codes or g.black not in codes:
            continue
        put(g.white, g.round, (f"{number[g.black]:>4}", "w", " "))
        put(g.black, g.round, (f"{number[g.white]:>4}", "b", " "))
    return codes


def _block(e: Entry, number: Mapping[str, int]) -> Block:
    """A crosstable entry as a round block: a game (``1``/``=``/``0``, forfeits ``+``/``-``)
    or a bye (``0000 - U``/``H``/``Z``)."""
    if e.opponent is None or e.colour is None:
        return ("0000", "-", _BYE_CODES.get(e.kind, "Z"))
    if e.kind == "played":
        code = {"win": "1", "draw": "=", "loss": "0"}[e.outcome]
    else:
        code = "+" if e.kind == "forfeit_win" else "-"
    return (f"{number[e.opponent]:>4}", e.colour[0], code)


def _tournament_lines(state: StandingsState, head: TrfHeader, table: Table) -> list[str]:
    """012 name, 022 city, 032 federation, 042/052 dates, and the ``###`` edition note when
    the edition in force is not the one the start date implies."""
    created = state.created
    lines = [f"012 {head.name or (created.name if created else '')}".rstrip()]
    starts = head.start_date or _trf_date(created.starts_on if created else None)
    ends = head.end_date or _trf_date(created.ends_on if created else None)
    for tag, value in (
        ("022", head.city),
        ("032", head.federation),
        ("042", starts),
        ("052", ends),
    ):
        if value:
            lines.append(f"{tag} {value}")
    if table.edition is not None:
        implied = edition_on(trf_date(starts))
        if table.edition.edition != implied:
            lines.append(edition_note(table.edition.edition, table.edition.source, implied))
    return lines


def _count_lines(state: StandingsState, head: TrfHeader, pids: Sequence[str]) -> list[str]:
    """062 players, 072 rated players, 082 teams."""
    lines = [f"062 {len(pids)}", f"072 {sum(1 for p in pids if state.players[p].rating)}"]
    if head.teams_count:
        lines.append(f"082 {head.teams_count}")
    return lines


def _official_lines(state: StandingsState, head: TrfHeader) -> list[str]:
    """092 type, 102 chief arbiter, 112 deputies, 122 time control, 132 round dates."""
    created = state.created
    lines = []
    kind = head.type or (_TYPES.get(created.format, "") if created else "")
    if kind:
        lines.append(f"092 {kind}")
    if head.chief_arbiter:
        lines.append(f"102 {head.chief_arbiter}")
    lines.extend(f"112 {d}" for d in head.deputy_arbiters)
    if head.time_control:
        lines.append(f"122 {head.time_control}")
    if head.round_dates:
        dates = "".join(f"{d:<8}  " for d in head.round_dates)
        lines.append(("132" + " " * 88 + dates).rstrip())
    return lines


def _extension_lines(
    state: StandingsState, stage: str, rounds: int, pids: Sequence[str], codes: Codes
) -> list[str]:
    """XXR rounds, XXC the top-numbered player's colour in round 1 (the drawn initial colour
    when there is one, C.04.3 art. 5.2.5), and 152 the drawn colour."""
    created = state.created
    lines = []
    total = max(rounds, created.rounds or 0) if created else rounds
    if total:
        lines.append(f"XXR {total}")
    drawn = initial_colour(state, stage)
    first = f"{drawn}1" if drawn else _first_colour(pids, codes)
    if first:
        lines.append(f"XXC {first}")
    if drawn:
        lines.append(f"152 {drawn[0].upper()}")
    return lines


def _entry(entries: Mapping[int, Block], rnd: int, withdrew: int | None) -> Block:
    """A player's entry in round `rnd`; nothing there: ``0000 - -`` once withdrawn, else
    ``0000 - Z``."""
    block = entries.get(rnd)
    if block is not None:
        return block
    return ("0000", "-", "-") if withdrew is not None and rnd >= withdrew else ("0000", "-", "Z")


def _player_line(
    number: int, info: PlayerInfo, row: Row | None, d: PlayerDetails, blocks: Sequence[Block]
) -> str:
    """The 001 record of one player: start rank, sex, title, name, rating, federation, FIDE
    id, birth date, points, rank, then one block per round."""
    line = (
        f"001 {number:>4} {(d.sex or '')[:1]:1}{(d.title or '')[:3]:>3} "
        f"{info.name[:33]:<33} {info.rating or '':>4} {(d.federation or '')[:3]:<3} "
        f"{(d.fide_id or '')[:11]:>11} {(d.birth_date or '')[:10]:<10} "
        f"{_points(row.points if row else 0):>4} {row.place if row else '':>4}"
    )
    return (line + "".join(f"  {opp} {colour} {code}" for opp, colour, code in blocks)).rstrip()


def _trf_date(day: date | None) -> str:
    return f"{day.year:04d}/{day.month:02d}/{day.day:02d}" if day is not None else ""


def _withdrawal_round(
    withdrawn: Mapping[str, int | None], pid: str, entries: Mapping[int, object]
) -> int | None:
    if pid not in withdrawn:
        return None
    from_round = withdrawn[pid]
    if from_round is not None:
        return from_round
    return max(entries, default=0) + 1


def _first_colour(pids: Sequence[str], codes: Codes) -> str:
    for pid in pids:
        block = codes[pid].get(1)
        if block is not None and block[1] in ("w", "b"):
            return "white1" if block[1] == "w" else "black1"
    return ""


def export_trf(
    records: Sequence[Recorded],
    *,
    order: TrfOrder = "pairing",
    stage: str = "main",
    header: TrfHeader | None = None,
    newline: str = "\r\n",
) -> str:
    """Fold a tournament's records and write them, with federation and title: what
    `arbiter export trf` and `GET /tournaments/{id}/trf` answer (by default numbered by the
    pairing system's own pairing numbers, `pairing_order`)."""
    state = fold(list(records))
    return write_trf(
        state,
        stage=stage,
        details=player_details(records),
        header=header,
        order=order,
        newline=newline,
    )
