"""Ranking by points and a tiebreak chain, with the reason for every boundary.

Players are grouped by points; each group is split by the chain's criteria in order. When a
criterion splits a group, each sub-group continues with the next criterion (or, for a
re-applied criterion such as the Czech mini-table, with the same one first). With
`TiebreakOptions.pairwise_head_to_head` (Czech rules) a group of exactly two goes first to its
head-to-head, which decides unless level; a level pair continues with the criterion (its
head-to-head is looked at once). A group still level at the end shares the place (1, 2, 2, 4)
or, after "organisers-decide", stays unresolved until a ruling orders it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from events_schema.events import TiebreakOptions, TiebreakSpec
from projections.tiebreaks.editions import Edition
from projections.tiebreaks.registry import REGISTRY, Criterion, Value, half_points, resolve_params

PAIR_H2H = "head-to-head (pair)"

# A group-relative criterion's values for a group: (the criterion's index in the chain, the
# group) -> what `crit.compute(ct, group, params)` returns (e.g. a cache of them).
GroupValues = Callable[[int, Sequence[str]], dict[str, "Value"]]

if TYPE_CHECKING:
    from projections.standings.crosstable import Crosstable


@dataclass(frozen=True)
class Step:
    """A criterion applied to a group: what each player got."""

    criterion: str
    label: str
    group: tuple[str, ...]
    values: Mapping[str, Value]
    params: Mapping[str, Any] = field(default_factory=dict)  # the criterion's, resolved


@dataclass(frozen=True)
class Boundary:
    """Why the block above is ahead of the block below."""

    criterion: str
    label: str
    above: str  # shown value of the player above
    below: str

    def text(self) -> str:
        return f"{self.label} {self.above}–{self.below}"


@dataclass
class Ranking:
    blocks: list[list[str]]  # ordered; players in a block share the place
    boundaries: list[Boundary]  # len(blocks) - 1
    unresolved: set[str] = field(default_factory=set)
    trace: list[Step] = field(default_factory=list)
    ruled: dict[str, str] = field(default_factory=dict)  # player -> ruling id that ordered them


@dataclass(frozen=True)
class Chain:
    specs: tuple[TiebreakSpec, ...]
    options: TiebreakOptions = field(default_factory=TiebreakOptions)
    # The FIDE C.07 edition the tournament follows (`projections/tiebreaks/editions.py`), for
    # showing its criteria: their labels and sources name it (`criteria`). The values come
    # from the crosstable's edition; None shows the criteria as registered.
    edition: Edition | None = None

    def criteria(self, *, cited: bool = True) -> list[tuple[Criterion, dict[str, Any]]]:
        """Each criterion with its parameters resolved, as shown: cited in the chain's edition
        (`Criterion.cited`: "Buchholz Cut-1 (C.07 2026)", "FIDE C.07 2026, 8.1, ..."), or as
        registered with `cited=False` (what the ranking's steps and boundaries carry, so that
        `decided_by` reads the same under either edition)."""
        out = []
        for s in self.specs:
            crit = REGISTRY[s.name]
            params = resolve_params(crit, s.params)
            out.append((crit.cited(params, self.edition) if cited else crit, params))
        return out


def validate(specs: Sequence[TiebreakSpec]) -> list[tuple[int, str, str]]:
    """Problems as (index, field, message); empty when the chain is usable."""
    problems = []
    for i, spec in enumerate(specs):
        crit = REGISTRY.get(spec.name)
        if crit is None:
            known = ", ".join(sorted(REGISTRY))
            problems.append((i, "name", f"unknown criterion {spec.name!r}; known: {known}"))
            continue
        if crit.terminal and i != len(specs) - 1:
            problems.append((i, "name", f"{spec.name!r} ends a chain; put it last"))
        try:
            resolve_params(crit, spec.params)
        except ValueError as exc:
            problems.append((i, "params", f"{spec.name}: {exc}"))
    return problems


class _Ranker:
    def __init__(self, ct: Crosstable, chain: Chain, relative: GroupValues | None = None) -> None:
        self.ct = ct
        self.relative = relative
        self.criteria = chain.criteria(cited=False)
        self.pairwise = chain.options.pairwise_head_to_head
        self.trace: list[Step] = []
        self.unresolved: set[str] = set()
        self.ruled: dict[str, str] = {}
        self._absolute: dict[int, dict[str, Value]] = {}
        # Pairs whose head-to-head was found level: it cannot change within one ranking, so it
        # is looked at (and traced) once, not again before every later criterion.
        self._level_pairs: set[tuple[str, ...]] = set()

    def values(self, i: int, group: Sequence[str]) -> dict[str, Value]:
        crit, params = self.criteria[i]
        if crit.group_relative:
            if self.relative is not None:
                return self.relative(i, group)
            return crit.compute(self.ct, group, params)
        if i not in self._absolute:  # computed once for the whole field
            self._absolute[i] = field_values(self.ct, crit, params)
        return {p: self._absolute[i][p] for p in group}

    def order(self, group: list[str], i: int) -> tuple[list[list[str]], list[Boundary]]:
        if len(group) == 1:
            return [group], []
        if self.pairwise and len(group) == 2 and tuple(sorted(group)) not in self._level_pairs:
            split = self._pair_head_to_head(group)
            if split is not None:
                return split
            self._level_pairs.add(tuple(sorted(group)))
        if i >= len(self.criteria):
            return [sorted(group)], []
        crit, params = self.criteria[i]
        if crit.terminal:
            return self._terminal(crit, group)
        values = self.values(i, group)
        self.trace.append(Step(crit.name, crit.label, tuple(sorted(group)), values, params))
        buckets = _buckets(group, values)
        if len(buckets) == 1:
            return self.order(group, i + 1)
        blocks: list[list[str]] = []
        bounds: list[Boundary] = []
        for b, bucket in enumerate(buckets):
            again = crit.reapply and len(bucket) > 1
            sub_blocks, sub_bounds = self.order(bucket, i if again else i + 1)
            if b:
                upper, lower = blocks[-1][0], sub_blocks[0][0]
                bounds.append(
                    Boundary(crit.name, crit.label, values[upper].shown, values[lower].shown)
                )
            blocks += sub_blocks
            bounds += sub_bounds
        return blocks, bounds

    def _pair_head_to_head(self, group: list[str]) -> tuple[list[list[str]], list[Boundary]] | None:
        """Czech rules: exactly two level players -> their head-to-head decides unless drawn."""
        a, b = sorted(group)
        games = self.ct.games_between(group)
        pa = sum(g.points_of(a) for g in games if g.played)
        pb = sum(g.points_of(b) for g in games if g.played)
        values = {a: Value(pa, half_points(pa)), b: Value(pb, half_points(pb))}
        self.trace.append(Step("pairwise-head-to-head", PAIR_H2H, (a, b), values))
        if pa == pb:
            return None
        top, bottom = (a, b) if pa > pb else (b, a)
        bound = Boundary("pairwise-head-to-head", PAIR_H2H, values[top].shown, values[bottom].shown)
        return [[top], [bottom]], [bound]

    def _terminal(
        self, crit: Criterion, group: list[str]
    ) -> tuple[list[list[str]], list[Boundary]]:
        if crit.name == "organisers-decide":
            for ruling in reversed(self.ct.rulings):
                order = ruling.decision.get("tiebreak_order")
                if isinstance(order, list) and set(group) <= set(order):
                    ranked = sorted(group, key=order.index)
                    for p in ranked:
                        self.ruled[p] = ruling.ruling_id
                    label = f"organisers' ruling {ruling.ruling_id}"
                    bounds = [
                        Boundary(
                            "organisers-decide",
                            label,
                            str(order.index(u) + 1),
                            str(order.index(d) + 1),
                        )
                        for u, d in itertools.pairwise(ranked)
                    ]
                    return [[p] for p in ranked], bounds
            self.unresolved.update(group)
        return [sorted(group)], []


def field_values(ct: Crosstable, crit: Criterion, params: Mapping[str, Any]) -> dict[str, Value]:
    """A criterion's values over the whole field, computed once per crosstable (the ranking
    and the standings' columns share them)."""
    return ct.memo(field_key(crit, params), lambda: crit.compute(ct, tuple(ct.players), params))


def field_key(crit: Criterion, params: Mapping[str, Any]) -> tuple[Any, ...]:
    """The memo key of a criterion's values over the whole field (`field_values`)."""
    return ("criterion", crit.name, tuple(sorted((k, repr(v)) for k, v in params.items())))


@dataclass(frozen=True)
class GroupRanking:
    """One points group ordered by the chain: what `rank` adds to the ranking for it."""

    blocks: tuple[tuple[str, ...], ...]
    boundaries: tuple[Boundary, ...]
    trace: tuple[Step, ...]
    unresolved: frozenset[str]
    ruled: tuple[tuple[str, str], ...]


def rank_group(
    ct: Crosstable, chain: Chain, group: Sequence[str], relative: GroupValues | None = None
) -> GroupRanking:
    """One points group (`group`, sorted) ordered as `rank` orders it: a group's order reads
    only its members' values, the games between them and the rulings. `relative`, when given,
    gives the group-relative criteria's values in place of computing them (it must return what
    `crit.compute` would: a cache of them)."""
    ranker = _Ranker(ct, chain, relative)
    blocks, bounds = ranker.order(list(group), 0)
    return GroupRanking(
        tuple(tuple(b) for b in blocks),
        tuple(bounds),
        tuple(ranker.trace),
        frozenset(ranker.unresolved),
        tuple(ranker.ruled.items()),
    )


def _buckets(group: Sequence[str], values: Mapping[str, Value]) -> list[list[str]]:
    """Players grouped by equal key, best first; players without a value (None) last."""
    keyed: dict[Any, list[str]] = {}
    for p in group:
        keyed.setdefault(values[p].key, []).append(p)
    present = sorted((k for k in keyed if k is not None), reverse=True)
    ordered = [sorted(keyed[k]) for k in present]
    if None in keyed:
        ordered.append(sorted(keyed[None]))
    return ordered


def rank(ct: Crosstable, chain: Chain, players: Sequence[str] | None = None) -> Ranking:
    """Order `players` (default: everyone) by points, then the chain."""
    points = ct.points
    field_ = list(players) if players is not None else list(ct.players)
    ranker = _Ranker(ct, chain)
    by_points: dict[int, list[str]] = {}
    for p in field_:
        by_points.setdefault(points.get(p, 0), []).append(p)
    blocks: list[list[str]] = []
    bounds: list[Boundary] = []
    for pts in sorted(by_points, reverse=True):
        group_blocks, group_bounds = ranker.order(sorted(by_points[pts]), 0)
        if blocks:
            upper = points.get(blocks[-1][0], 0)
            bounds.append(Boundary("points", "points", half_points(upper), half_points(pts)))
        blocks += group_blocks
        bounds += group_bounds
    return Ranking(blocks, bounds, ranker.unresolved, ranker.trace, ranker.ruled)
