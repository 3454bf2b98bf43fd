"""The standings table: rows in order, places (shared 1, 2, 2, 4), tiebreak columns, and for
each row the reason it stands below the row above."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from projections.standings.crosstable import Crosstable
from projections.standings.crosstable import build as build_crosstable
from projections.standings.state import StandingsState
from projections.tiebreaks.chain import Chain, Ranking, field_values, rank
from projections.tiebreaks.presets import chain_for
from projections.tiebreaks.registry import half_points


@dataclass(frozen=True)
class Row:
    place: int
    shared: bool
    unresolved: bool
    player_id: str
    name: str
    points: int  # half-points
    played: int
    wins: int
    draws: int
    losses: int
    forfeit_wins: int
    forfeit_losses: int
    byes: int
    withdrawn: bool
    tiebreaks: tuple[tuple[str, str], ...]  # (criterion, shown value) in chain order
    decided_by: str  # vs the row above: "points 3–2½", "direct encounter 1½–½", "shared"

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
            "score": self.score,
            "half_points": self.points,
            "played": self.played,
            "won": self.wins,
            "drawn": self.draws,
            "lost": self.losses,
            "forfeits_won": self.forfeit_wins,
            "forfeits_lost": self.forfeit_losses,
            "byes": self.byes,
            "withdrawn": self.withdrawn,
            "tiebreaks": dict(self.tiebreaks),
            "decided_by": self.decided_by,
        }


@dataclass(frozen=True)
class Table:
    seq: int
    chain: Chain
    rows: tuple[Row, ...]
    ranking: Ranking

    def as_dict(self) -> dict[str, Any]:
        return {
            "as_of_seq": self.seq,
            "chain": [s.name for s in self.chain.specs],
            "rows": [r.as_dict() for r in self.rows],
        }


def tournament_chain(state: StandingsState) -> Chain:
    c = state.created
    if c is None:
        return chain_for(None, [], None)
    return chain_for(c.rules_preset, list(c.tiebreaks), c.tiebreak_options)


def columns(ct: Crosstable, chain: Chain, ranking: Ranking) -> dict[str, dict[str, str]]:
    """Each criterion's shown value per player: group-relative ones within the player's
    points group (as the chain sees them), the others over the whole field."""
    points = ct.points
    groups: dict[int, list[str]] = {}
    for p in ct.players:
        groups.setdefault(points[p], []).append(p)
    out: dict[str, dict[str, str]] = {}
    for key, (crit, params) in zip(column_keys(chain), chain.criteria(), strict=True):
        if crit.terminal:
            continue
        shown: dict[str, str] = {}
        if crit.group_relative:
            for members in groups.values():
                for p, v in crit.compute(ct, members, params).items():
                    shown[p] = v.shown
        else:
            for p, v in field_values(ct, crit, params).items():
                shown[p] = v.shown
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


def standings(state: StandingsState, stage: str = "main") -> Table:
    ct = build_crosstable(state, stage)
    chain = tournament_chain(state)
    ranking = rank(ct, chain)
    cols = columns(ct, chain, ranking)
    rows: list[Row] = []
    place = 1
    for b, block in enumerate(ranking.blocks):
        reason = ranking.boundaries[b - 1].text() if b else ""
        for i, pid in enumerate(block):
            es = ct.entries.get(pid, ())
            played = [e for e in es if e.kind == "played"]
            info = ct.players[pid]
            rows.append(
                Row(
                    place=place,
                    shared=len(block) > 1,
                    unresolved=pid in ranking.unresolved,
                    player_id=pid,
                    name=info.name,
                    points=sum(e.points for e in es),
                    played=len(played),
                    wins=sum(e.outcome == "win" for e in played),
                    draws=sum(e.outcome == "draw" for e in played),
                    losses=sum(e.outcome == "loss" for e in played),
                    forfeit_wins=sum(e.kind == "forfeit_win" for e in es),
                    forfeit_losses=sum(e.kind == "forfeit_loss" for e in es),
                    byes=sum(e.kind in ("bye", "half_bye", "zero_bye") for e in es),
                    withdrawn=pid in ct.withdrawn,
                    tiebreaks=tuple((name, vals.get(pid, "–")) for name, vals in cols.items()),
                    decided_by=(
                        ("unresolved: organisers decide" if pid in ranking.unresolved else "shared")
                        if i
                        else reason
                    ),
                )
            )
        place += len(block)
    return Table(state.seq, chain, tuple(rows), ranking)


def explain(table: Table, a: str, b: str) -> list[dict[str, Any]]:
    """Why `a` and `b` stand where they do: points, then every criterion the chain applied to
    a group holding both, with both values, up to the one that separated them."""
    rows = {r.player_id: r for r in table.rows}
    if a not in rows or b not in rows:
        missing = a if a not in rows else b
        raise KeyError(f"no player {missing!r} in the standings")
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
        for step in table.ranking.trace:
            if a in step.group and b in step.group:
                va, vb = step.values[a], step.values[b]
                steps.append(
                    {
                        "criterion": step.criterion,
                        "label": step.label,
                        "group": list(step.group),
                        a: va.shown,
                        b: vb.shown,
                        "separates": va.key != vb.key,
                    }
                )
                if va.key != vb.key:
                    break
    return steps
