"""The crosstable as an arbiter prints it (FIDE, Swiss-Manager): one row per player in
standings order (place, start number, name, rating, each round's cell, points, tie-breaks).

A round's cell is written from the player's side, as Swiss-Manager and chess-results print
them: the opponent's start number, the colour and the result of a game over the board ("12w1",
"5b½", "3w0"); a forfeit with the opponent it was against ("7b+" won, "7w-" lost; FIDE
C.04.1 forfeits, TRF "+"/"-"); a round without a game by what it scored: "+" a bye worth a
win (the pairing-allocated bye), "=" a half-point bye, "-" nothing (a zero-point bye, an
absence, a round after a withdrawal). A game paired without a result yet shows its opponent
and colour ("12w"). The start numbers are the caller's (the TRF export's, by the tournament's
pairing system: `services/interchange/trf/write.py` `pairing_order`), so a printed crosstable
and the TRF of the same tournament number players alike.

For Go each game also carries its handicap stones and komi (LGC Scoring: the tournament's
komi in an even game, 0.5 with a handicap; `projections.go.scoring.komi_for`), the cell adding
the stones ("12b1 h2").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from projections.go.scoring import komi_for
from projections.standings.crosstable import Entry
from projections.standings.state import StandingsState
from projections.standings.table import Table, column_keys, score_dict
from projections.tiebreaks.registry import half_points

_PLAYED = {"win": "1", "draw": "½", "loss": "0"}


@dataclass(frozen=True)
class GridCell:
    """One round from one player's side: the cell as printed (`text`) and what it says."""

    round: int
    text: str
    kind: str  # an Entry kind ("played", "forfeit_win", "bye", ...), "scheduled" or "none"
    half_points: int | None = None  # None: no result yet
    opponent: str | None = None
    opponent_start_no: int | None = None
    colour: str | None = None
    game_id: str | None = None
    handicap: int | None = None  # Go
    komi: Decimal | None = None  # Go

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "round": self.round,
            "text": self.text,
            "kind": self.kind,
            "half_points": self.half_points,
            "opponent": self.opponent,
            "opponent_start_no": self.opponent_start_no,
            "colour": self.colour,
            "game_id": self.game_id,
        }
        if self.komi is not None:
            out["handicap"] = self.handicap
            out["komi"] = str(self.komi)
        return out


@dataclass(frozen=True)
class GridRow:
    place: int
    shared: bool
    start_no: int
    player_id: str
    name: str
    rating: int | None
    title: str | None
    federation: str | None
    go_rank: str | None
    withdrawn: bool
    half_points: int
    cells: tuple[GridCell, ...]
    tiebreaks: tuple[tuple[str, str], ...]  # (column key, shown value), in chain order
    club: str | None = None  # PlayerRegistered v5

    @property
    def score(self) -> str:
        return half_points(self.half_points)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "place": self.place,
            "shared": self.shared,
            "start_no": self.start_no,
            "player_id": self.player_id,
            "name": self.name,
            "rating": self.rating,
            "title": self.title,
            "federation": self.federation,
            "club": self.club,
            "withdrawn": self.withdrawn,
            "rounds": [c.as_dict() for c in self.cells],
            "score": score_dict(self.half_points),
            "tiebreaks": dict(self.tiebreaks),
        }
        if self.go_rank is not None:
            out["go_rank"] = self.go_rank
        return out


@dataclass(frozen=True)
class Column:
    """A tie-break column: its key (`column_keys`), heading in words and the rule it cites."""

    key: str
    heading: str
    source: str


@dataclass(frozen=True)
class Grid:
    seq: int
    rounds: int
    rows: tuple[GridRow, ...]
    columns: tuple[Column, ...]
    go: bool = False
    # Go: the komi of an even game and of a handicap game (LGC Scoring).
    komi: tuple[Decimal, Decimal] | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "as_of_seq": self.seq,
            "rounds": self.rounds,
            "columns": [
                {"key": c.key, "heading": c.heading, "source": c.source} for c in self.columns
            ],
            "rows": [r.as_dict() for r in self.rows],
        }
        if self.komi is not None:
            out["komi"] = {"even": str(self.komi[0]), "handicap": str(self.komi[1])}
        return out


def tiebreak_columns(table: Table) -> tuple[Column, ...]:
    """The table's tie-break columns (terminal entries aside): key, heading in words (the
    criterion's `words`, with its parameters when two would read alike) and cited source."""
    pairs = [
        (key, crit.words, crit.source)
        for key, (crit, _) in zip(column_keys(table.chain), table.chain.criteria(), strict=True)
        if not crit.terminal
    ]
    words = [w for _, w, _ in pairs]
    return tuple(
        Column(key, w if words.count(w) == 1 else f"{w} {key[key.find('(') :]}", source)
        for key, w, source in pairs
    )


def _cell(
    e: Entry, number: Mapping[str, int], win: int, draw: int, even_komi: Decimal | None
) -> GridCell:
    opp = e.opponent
    handicap = komi = None
    if even_komi is not None and e.game is not None:
        handicap = e.game.handicap
        komi = komi_for(handicap, even_komi)
    if opp is None or e.colour is None:  # a bye or an advance: what it scored
        text = "+" if e.points >= win else ("=" if e.points >= draw and e.points else "-")
        return GridCell(e.round, text, e.kind, e.points)
    start = number.get(opp)
    head = f"{start if start is not None else '?'}{e.colour[0]}"
    if e.kind == "played":
        text = head + _PLAYED[e.outcome]
    else:
        text = head + ("+" if e.kind == "forfeit_win" else "-")
    if handicap:
        text += f" h{handicap}"
    return GridCell(
        e.round,
        text,
        e.kind,
        e.points,
        opp,
        start,
        e.colour,
        e.game.game_id if e.game is not None else None,
        handicap,
        komi,
    )


def crosstable_grid(
    state: StandingsState, table: Table, start_order: Sequence[str], stage: str = "main"
) -> Grid:
    """The printed crosstable of `table` (the standings of `state`'s `stage`), players numbered
    1.. in `start_order` (those it leaves out numbered after it, in registration order)."""
    ct = table.crosstable
    assert ct is not None, "a table built by projections.standings.standings has its crosstable"
    order = [p for p in start_order if p in ct.players]
    order += [p for p in ct.players if p not in set(order)]
    number = {pid: n for n, pid in enumerate(order, start=1)}
    created = state.created
    even_komi = None
    if ct.go is not None:
        even_komi = created.komi if created is not None else Decimal("7.5")
    win, draw = ct.scoring.win, ct.scoring.draw
    pending: dict[str, dict[int, GridCell]] = {}
    for g in state.games.values():  # paired, no result yet: opponent and colour
        if g.stage != stage or g.results or g.white not in number or g.black not in number:
            continue
        for pid, opp, colour in ((g.white, g.black, "white"), (g.black, g.white, "black")):
            pending.setdefault(pid, {})[g.round] = GridCell(
                g.round,
                f"{number[opp]}{colour[0]}",
                "scheduled",
                None,
                opp,
                number[opp],
                colour,
                g.game_id,
            )
    rows = []
    for r in table.rows:
        pid = r.player_id
        by_round = {e.round: e for e in ct.entries.get(pid, ())}
        cells = []
        for rnd in range(1, ct.rounds + 1):
            e = by_round.get(rnd)
            if e is not None:
                cells.append(_cell(e, number, win, draw, even_komi))
            else:
                cells.append(pending.get(pid, {}).get(rnd, GridCell(rnd, "-", "none", 0)))
        info = ct.players[pid]
        rows.append(
            GridRow(
                place=r.place,
                shared=r.shared,
                start_no=number[pid],
                player_id=pid,
                name=r.name,
                rating=r.rating,
                title=r.title,
                federation=r.federation,
                club=r.club,
                go_rank=info.go_rank if ct.go is not None else None,
                withdrawn=r.withdrawn,
                half_points=r.points,
                cells=tuple(cells),
                tiebreaks=r.tiebreaks,
            )
        )
    komi = None if even_komi is None else (komi_for(0, even_komi), komi_for(2, even_komi))
    return Grid(
        table.seq, ct.rounds, tuple(rows), tiebreak_columns(table), go=ct.go is not None, komi=komi
    )
