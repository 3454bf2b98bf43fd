"""The standings table: rows in order, places (shared 1, 2, 2, 4), tiebreak columns, and for
each row the reason it stands below the row above.

When a criterion of the chain follows the FIDE C.07 edition (Buchholz, Sonneborn-Berger,
fore-Buchholz, the average of opponents' Buchholz: Art. 16.4 changed in 2026), the table states
the edition in force and where it comes from (`Table.edition`, ``tiebreak_edition`` in the
JSON), and `explain` cites it for those criteria with each unplayed round's dummy opponent.

A Go McMahon tournament (`projections.tiebreaks.mcmahon.mcmahon_ranked`: game "go" with format
or pairing "mcmahon", or rules preset "lgc") is ranked by its chain alone, MMS first, with no
grouping by game points (OpenGotha); without explicit tiebreaks its chain is its
`GoSettings.criteria` then shared places (`projections.tiebreaks.presets.go_chain`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from events_schema.go import GoSettings
from events_schema.numbers import exact, exact_str
from projections.standings.crosstable import Crosstable, Entry, go_settings
from projections.standings.crosstable import build as build_crosstable
from projections.standings.state import StandingsState
from projections.tiebreaks import mcmahon
from projections.tiebreaks.chain import Chain, Ranking, field_values, rank
from projections.tiebreaks.editions import EditionInForce
from projections.tiebreaks.fide import follows_edition, unplayed_notes
from projections.tiebreaks.presets import chain_for, go_chain
from projections.tiebreaks.registry import REGISTRY, Value, half_points


@dataclass(frozen=True)
class Cell:
    """A tiebreak value as the documents carry it (`events_schema.documents.TiebreakValue`):
    the criterion id, its unit, the exact value (int, exact decimal or "p/q" string, None) and
    the shown text."""

    criterion: str
    unit: str
    value: int | str | None
    display: str
    max: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "criterion": self.criterion,
            "unit": self.unit,
            "value": self.value,
            "display": self.display,
        }
        if self.max is not None:
            out["max"] = self.max
        return out


def score_dict(half: int) -> dict[str, Any]:
    """A score as the documents carry it: half-points, exact points, as shown."""
    return {
        "half_points": half,
        "value": exact_str(Fraction(half, 2)),
        "display": half_points(half),
    }


@dataclass(frozen=True)
class EntryStats:
    """A player's counts from their crosstable entries: what a row shows beside the place."""

    points: int
    played: int
    wins: int
    draws: int
    losses: int
    forfeit_wins: int
    forfeit_losses: int
    byes: int


@dataclass(frozen=True)
class Row(EntryStats):
    """A row of the table: the player's counts (`EntryStats`; `points` in half-points), their
    place and how it was decided, their identity and their tiebreak cells."""

    place: int
    shared: bool
    unresolved: bool
    player_id: str
    name: str
    withdrawn: bool
    tiebreaks: tuple[tuple[str, str], ...]  # (column key, shown value) in chain order
    decided_by: str  # vs the row above: "points 3–2½", "direct encounter 1½–½", "shared"
    # The registered identity (PlayerRegistered).
    kind: str = "human"
    rating: int | None = None
    federation: str | None = None
    title: str | None = None
    fide_id: int | None = None
    club: str | None = None  # PlayerRegistered v5; documents v6
    # (column key, the value with its criterion id, unit and exact value) in chain order
    cells: tuple[tuple[str, Cell], ...] = ()

    @property
    def score(self) -> str:
        return half_points(self.points)

    def as_dict(self) -> dict[str, Any]:
        return {
            "place": self.place,
            "shared": self.shared,
            "unresolved": self.unresolved,
            "player_id": self.player_id,
            "name": self.name,
            "kind": self.kind,
            "rating": self.rating,
            "federation": self.federation,
            "title": self.title,
            "fide_id": self.fide_id,
            "club": self.club,
            "score": score_dict(self.points),
            "half_points": self.points,
            "played": self.played,
            "won": self.wins,
            "drawn": self.draws,
            "lost": self.losses,
            "forfeits_won": self.forfeit_wins,
            "forfeits_lost": self.forfeit_losses,
            "byes": self.byes,
            "withdrawn": self.withdrawn,
            "tiebreaks": {key: cell.as_dict() for key, cell in self.cells},
            "decided_by": self.decided_by,
        }


@dataclass(frozen=True)
class Table:
    seq: int
    chain: Chain
    rows: tuple[Row, ...]
    ranking: Ranking
    # The FIDE C.07 edition in force, when a criterion of the chain follows it (else None).
    edition: EditionInForce | None = None
    crosstable: Crosstable | None = field(default=None, compare=False, repr=False)
    # Ranked by the chain alone (Go McMahon), not by points first.
    by_chain: bool = False

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "as_of_seq": self.seq,
            "chain": [s.name for s in self.chain.specs],
            "rows": [r.as_dict() for r in self.rows],
        }
        if self.edition is not None:
            out["tiebreak_edition"] = self.edition.as_dict()
        return out


def chain_edition(ct: Crosstable, chain: Chain) -> EditionInForce | None:
    """The edition in force when a criterion of the chain follows it, else None."""
    if any(follows_edition(c.name, params) for c, params in chain.criteria()):
        return ct.edition
    return None


def tournament_chain(state: StandingsState) -> Chain:
    c = state.created
    if c is None:
        return chain_for(None, [], None)
    if mcmahon.mcmahon_ranked(c) and not c.tiebreaks:
        settings = go_settings(c)
        return go_chain(settings if settings is not None else GoSettings(), c.tiebreak_options)
    return chain_for(c.rules_preset, list(c.tiebreaks), c.tiebreak_options)


def cell(name: str, v: Value) -> Cell:
    """The criterion's value `v` with its id, unit and exact value: the criterion's own
    `unit`, and its key (or `Value.number` when the key only ranks) read as the criterion
    registered it (`Criterion.reading`). Points are exact strings, moves (averages) decimal
    strings, the rest integers (`events_schema.documents.TiebreakValue`)."""
    crit = REGISTRY[name]
    assert crit.unit is not None and crit.reading is not None, f"{name} has no unit"
    raw = v.key if v.number is None else v.number
    value = None if raw is None else _number(crit.unit, crit.reading(raw))
    best = None if v.best is None else _number(crit.unit, crit.reading(v.best))
    return Cell(name, crit.unit, value, v.shown, None if best is None else str(best))


def _number(unit: str, q: Fraction | int) -> int | str:
    if unit == "points":
        return exact_str(q)
    value = exact(q)
    return str(value) if unit == "moves" else value


def no_cell(name: str) -> Cell:
    unit = REGISTRY[name].unit
    assert unit is not None, f"{name} has no unit"
    return Cell(name, unit, None, "–")


def columns(ct: Crosstable, chain: Chain, ranking: Ranking) -> dict[str, dict[str, Cell]]:
    """Each criterion's value per player: group-relative ones within the player's points
    group (as the chain sees them), the others over the whole field."""
    points = ct.points
    groups: dict[int, list[str]] = {}
    for p in ct.players:
        groups.setdefault(points[p], []).append(p)
    out: dict[str, dict[str, Cell]] = {}
    for key, (crit, params) in zip(column_keys(chain), chain.criteria(), strict=True):
        if crit.terminal:
            continue
        shown: dict[str, Cell] = {}
        if crit.group_relative:
            for members in groups.values():
                for p, v in crit.compute(ct, members, params).items():
                    shown[p] = cell(crit.name, v)
        else:
            for p, v in field_values(ct, crit, params).items():
                shown[p] = cell(crit.name, v)
        out[key] = shown

    return out


def column_keys(chain: Chain) -> list[str]:
    """One key per chain entry: the criterion's name, with its parameters when given, so the
    same criterion may stand twice in a chain with different parameters."""
    keys = []
    for spec in chain.specs:
        args = ",".join(f"{k}={v}" for k, v in sorted(spec.params.items()))
        keys.append(f"{spec.name}({args})" if args else spec.name)
    return keys


def entry_stats(es: Sequence[Entry]) -> EntryStats:
    played = [e for e in es if e.kind == "played"]
    return EntryStats(
        points=sum(e.points for e in es),
        played=len(played),
        wins=sum(e.outcome == "win" for e in played),
        draws=sum(e.outcome == "draw" for e in played),
        losses=sum(e.outcome == "loss" for e in played),
        forfeit_wins=sum(e.kind == "forfeit_win" for e in es),
        forfeit_losses=sum(e.kind == "forfeit_loss" for e in es),
        byes=sum(e.kind in ("bye", "half_bye", "zero_bye") for e in es),
    )


# A row's `tiebreaks` and `cells`.
RowCells = tuple[tuple[tuple[str, str], ...], tuple[tuple[str, Cell], ...]]


def row_cells(
    cols: Mapping[str, Mapping[str, Cell]], chain_names: Mapping[str, str], pid: str
) -> RowCells:
    """A row's `tiebreaks` and `cells`: the player's cell in each column, in chain order."""
    cells = [
        (name, vals[pid] if pid in vals else no_cell(chain_names[name]))
        for name, vals in cols.items()
    ]
    return tuple([(name, c.display) for name, c in cells]), tuple(cells)  # no cell shows "–"


def make_row(
    ct: Crosstable,
    cols: Mapping[str, Mapping[str, Cell]],
    chain_names: Mapping[str, str],
    pid: str,
    s: EntryStats,
    *,
    place: int,
    shared: bool,
    unresolved: bool,
    decided_by: str,
    shown: RowCells | None = None,
) -> Row:
    """One row of the table (`standings` and `IncrementalStandings` build them alike);
    `shown`: its `row_cells`, when the caller has them (then `cols` is not read)."""
    info = ct.players[pid]
    tiebreaks, cells = shown if shown is not None else row_cells(cols, chain_names, pid)
    return Row(
        **vars(s),
        place=place,
        shared=shared,
        unresolved=unresolved,
        player_id=pid,
        name=info.name,
        withdrawn=pid in ct.withdrawn,
        tiebreaks=tiebreaks,
        cells=cells,
        kind=info.kind,
        rating=info.rating,
        federation=info.federation,
        title=info.title,
        fide_id=info.fide_id,
        club=info.club,
        decided_by=decided_by,
    )


def standings(state: StandingsState, stage: str = "main") -> Table:
    ct = build_crosstable(state, stage)
    # Shown cited in the tournament's C.07 edition: labels and sources name it (Chain.edition).
    chain = dataclasses.replace(tournament_chain(state), edition=ct.edition.edition)
    by_chain = mcmahon.mcmahon_ranked(state.created)
    ranking = mcmahon.rank(ct, chain, mcmahon.shown_players(ct)) if by_chain else rank(ct, chain)
    cols = columns(ct, chain, ranking)
    chain_names = dict(zip(column_keys(chain), (s.name for s in chain.specs), strict=True))
    rows: list[Row] = []
    place = 1
    for b, block in enumerate(ranking.blocks):
        reason = ranking.boundaries[b - 1].text() if b else ""
        for i, pid in enumerate(block):
            rows.append(
                make_row(
                    ct,
                    cols,
                    chain_names,
                    pid,
                    entry_stats(ct.entries.get(pid, ())),
                    place=place,
                    shared=len(block) > 1,
                    unresolved=pid in ranking.unresolved,
                    decided_by=(
                        ("unresolved: organisers decide" if pid in ranking.unresolved else "shared")
                        if i
                        else reason
                    ),
                )
            )
        place += len(block)
    return Table(
        state.seq, chain, tuple(rows), ranking, chain_edition(ct, chain), ct, by_chain=by_chain
    )


def explain(table: Table, a: str, b: str) -> list[dict[str, Any]]:
    """Why `a` and `b` stand where they do: points, then every criterion the chain applied to
    a group holding both, with both values, up to the one that separated them.

    A criterion that follows the FIDE C.07 edition is labelled with it ("Buchholz (C.07
    2026)") and its step says which edition and why (``edition``); each player's entry is the
    value followed, one per line, by how their own unplayed rounds counted (the dummy opponent
    of Art. 16.4 and the cap that applied, "round 5: forfeit win, dummy capped at the
    opponent's adjusted score 0 (C.07 2026, 16.4.1)") and the rounds a modifier left out;
    ``values`` and ``notes`` hold the two apart."""
    rows = {r.player_id: r for r in table.rows}
    if a not in rows or b not in rows:
        missing = a if a not in rows else b
        raise KeyError(f"no player {missing!r} in the standings")
    if table.by_chain:  # Go McMahon: the chain alone, no points step first
        return _trace_steps(table, a, b, cite=False)
    steps: list[dict[str, Any]] = [
        {
            "criterion": "points",
            "label": "points",
            "group": None,
            a: half_points(rows[a].points),
            b: half_points(rows[b].points),
            "separates": rows[a].points != rows[b].points,
        }
    ]
    if rows[a].points == rows[b].points:
        steps += _trace_steps(table, a, b, cite=True)
    return steps


def _trace_steps(table: Table, a: str, b: str, *, cite: bool) -> list[dict[str, Any]]:
    """Every criterion the ranking applied to a group holding both, up to the one that
    separated them; with `cite`, a criterion that follows the C.07 edition cites it
    (`_cite_edition`)."""
    steps: list[dict[str, Any]] = []
    for step in table.ranking.trace:
        if a in step.group and b in step.group:
            va, vb = step.values[a], step.values[b]
            entry: dict[str, Any] = {
                "criterion": step.criterion,
                "label": step.label,
                "group": list(step.group),
                a: va.shown,
                b: vb.shown,
                "separates": va.key != vb.key,
            }
            if cite and table.edition is not None and follows_edition(step.criterion, step.params):
                _cite_edition(entry, table, step.criterion, step.params, (a, b))
            steps.append(entry)
            if va.key != vb.key:
                break
    return steps


def _cite_edition(
    entry: dict[str, Any],
    table: Table,
    criterion: str,
    params: Mapping[str, Any],
    players: tuple[str, str],
) -> None:
    edition = table.edition
    assert edition is not None
    entry["label"] = REGISTRY[criterion].cited(params, edition.edition).label
    entry["edition"] = edition.as_dict()
    entry["values"] = {p: entry[p] for p in players}
    ct = table.crosstable
    notes: dict[str, list[str]] = {}
    for p in players:
        notes[p] = unplayed_notes(ct, p, criterion, params) if ct is not None else []
        if notes[p]:
            entry[p] = "\n".join([entry[p], *notes[p]])
    entry["notes"] = notes
