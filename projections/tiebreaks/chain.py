"""Ranking by points and a tiebreak chain, with the reason for every boundary.

Players are grouped by points; each group is split by the chain's criteria in order. When a
criterion splits a group, each sub-group continues with the next criterion (or, for a
re-applied criterion such as the Czech mini-table, with the same one first). With
`TiebreakOptions.pairwise_head_to_head` (Czech rules) a group of exactly two goes first to its
head-to-head, which decides unless level; a level pair continues with the criterion (its
head-to-head is looked at once). A group still level at the end shares the place (1, 2, 2, 4)
or, after "organisers-decide", stays unresolved until a ruling orders it.

A points group's ranking can be kept as its parts (`Split`: the first criterion's buckets and
each bucket's ranking from the second criterion on) and redone for only the buckets whose
members changed (`resplit`), as the incremental standings do; it equals `rank_group`'s.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
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


Criteria = list[tuple[Criterion, dict[str, Any]]]


class _Ranker:
    def __init__(
        self,
        ct: Crosstable,
        chain: Chain,
        relative: GroupValues | None = None,
        criteria: Criteria | None = None,
        absolute: dict[int, dict[str, Value]] | None = None,
    ) -> None:
        self.ct = ct
        self.relative = relative
        self.criteria = criteria if criteria is not None else chain.criteria(cited=False)
        self.pairwise = chain.options.pairwise_head_to_head
        self.trace: list[Step] = []
        self.unresolved: set[str] = set()
        self.ruled: dict[str, str] = {}
        # Each absolute criterion's values over the field (`field_values`), by chain index.
        self._absolute = absolute if absolute is not None else {}
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
    ct: Crosstable,
    chain: Chain,
    group: Sequence[str],
    relative: GroupValues | None = None,
    *,
    start: int = 0,
    criteria: Criteria | None = None,
    absolute: dict[int, dict[str, Value]] | None = None,
) -> GroupRanking:
    """One points group (`group`, sorted) ordered as `rank` orders it: a group's order reads
    only its members' values, the games between them and the rulings. `relative`, when given,
    gives the group-relative criteria's values in place of computing them (it must return what
    `crit.compute` would: a cache of them). With `start`, the group is ordered from the chain's
    criterion `start` on (a sub-group a criterion left level); `criteria`: the chain's
    `criteria(cited=False)`, and `absolute`: the absolute criteria's values over the field by
    chain index (`field_values`; missing ones are added), when the caller holds them."""
    ranker = _Ranker(ct, chain, relative, criteria, absolute)
    blocks, bounds = ranker.order(list(group), start)
    return GroupRanking(
        tuple(tuple(b) for b in blocks),
        tuple(bounds),
        tuple(ranker.trace),
        frozenset(ranker.unresolved),
        tuple(ranker.ruled.items()),
    )


@dataclass(frozen=True)
class Split:
    """A points group's ranking (`rank_group`) kept as the parts it joins, for a chain whose
    first criterion is absolute (each player's own value): the first criterion's values over
    the group and, per distinct key (a bucket of players level on it, sorted), the bucket's
    ranking from the second criterion on. A bucket's ranking reads only its members' values
    and the games between them, so `resplit` ranks the group again after some players' values
    changed (or players joined or left it) by redoing only the buckets those players left or
    joined; the others are joined again as they were."""

    group: tuple[str, ...]
    values: dict[str, Value]  # the first criterion's, per member
    ascending: tuple[Any, ...]  # the keys present but None, worst first
    buckets: dict[Any, tuple[str, ...]]  # key -> the members with it, sorted
    parts: dict[Any, GroupRanking]  # key -> its bucket's ranking from the second criterion
    ranking: GroupRanking
    # Boundaries between buckets by (shown above, shown below): built once, shared onwards.
    bounds: dict[tuple[str, str], Boundary] = field(compare=False, repr=False)


def split_group(
    ct: Crosstable,
    chain: Chain,
    group: tuple[str, ...],
    relative: GroupValues | None,
    criteria: Criteria,
    absolute: dict[int, dict[str, Value]],
) -> Split | None:
    """`rank_group(ct, chain, group, relative, criteria=criteria, absolute=absolute)` as a
    `Split` (`group` sorted); None when the chain does not split that way: a group of one (no
    criterion is applied to it), a first criterion that is group-relative, terminal or
    re-applied, or the pairwise head-to-head (the level pairs it looked at are state of the
    whole group's ranking)."""
    if len(group) < 2 or not criteria or chain.options.pairwise_head_to_head:
        return None
    crit, params = criteria[0]
    if crit.group_relative or crit.terminal or crit.reapply:
        return None
    if 0 not in absolute:  # the first criterion's values over the field
        absolute[0] = field_values(ct, crit, params)
    every = absolute[0]
    values = {p: every[p] for p in group}
    keyed: dict[Any, list[str]] = {}
    for p in group:
        keyed.setdefault(values[p].key, []).append(p)
    buckets = {k: tuple(members) for k, members in keyed.items()}  # `group` is sorted
    parts = {
        k: _part(ct, chain, members, relative, criteria, absolute) for k, members in buckets.items()
    }
    ascending = tuple(sorted(k for k in buckets if k is not None))
    return _joined(chain, group, values, ascending, buckets, parts, criteria, {})


def resplit(
    ct: Crosstable,
    chain: Chain,
    previous: Split,
    group: tuple[str, ...],
    changed: Iterable[str],
    relative: GroupValues | None,
    criteria: Criteria,
    absolute: dict[int, dict[str, Value]],
) -> Split | None:
    """The group's `split_group` from its previous one: `group` (sorted) is the group now,
    `changed` holds every player whose values (any criterion's) or games changed and every
    player who joined or left the group since `previous`. None as `split_group`."""
    if len(group) < 2:
        return None
    crit, params = criteria[0]
    if 0 not in absolute:  # the first criterion's values over the field
        absolute[0] = field_values(ct, crit, params)
    every = absolute[0]
    values = {p: every[p] for p in group}
    before = previous.values
    left: dict[Any, set[str]] = {}  # key -> members that left its bucket
    joined: dict[Any, set[str]] = {}
    for p in changed:
        if p in before:
            left.setdefault(before[p].key, set()).add(p)
        if p in values:
            joined.setdefault(values[p].key, set()).add(p)
    buckets, parts = dict(previous.buckets), dict(previous.parts)
    ascending = list(previous.ascending)
    for k in left.keys() | joined.keys():
        members = set(buckets.get(k, ())) - left.get(k, set()) | joined.get(k, set())
        if k is not None and (k in buckets) != bool(members):  # the key appears or goes
            if members:
                bisect.insort(ascending, k)
            else:
                del ascending[bisect.bisect_left(ascending, k)]
        if members:
            buckets[k] = tuple(sorted(members))
            parts[k] = _part(ct, chain, buckets[k], relative, criteria, absolute)
        else:
            del buckets[k], parts[k]
    return _joined(
        chain, group, values, tuple(ascending), buckets, parts, criteria, previous.bounds
    )


def _part(
    ct: Crosstable,
    chain: Chain,
    members: tuple[str, ...],
    relative: GroupValues | None,
    criteria: Criteria,
    absolute: dict[int, dict[str, Value]],
) -> GroupRanking:
    """A bucket's ranking from the second criterion on (as `_Ranker.order` ranks it)."""
    if len(members) == 1:
        return GroupRanking((members,), (), (), frozenset(), ())
    return rank_group(ct, chain, members, relative, start=1, criteria=criteria, absolute=absolute)


def _joined(
    chain: Chain,
    group: tuple[str, ...],
    values: dict[str, Value],
    ascending: tuple[Any, ...],
    buckets: dict[Any, tuple[str, ...]],
    parts: dict[Any, GroupRanking],
    criteria: Criteria,
    bounds_seen: dict[tuple[str, str], Boundary],
) -> Split:
    """The group's ranking as `_Ranker.order` builds it: the first criterion's step, then
    the buckets best first (None last), a boundary between consecutive ones."""
    crit, params = criteria[0]
    keys = [*reversed(ascending), None] if None in buckets else reversed(ascending)
    blocks: list[tuple[str, ...]] = []
    bounds: list[Boundary] = []
    trace = [Step(crit.name, crit.label, group, values, params)]
    unresolved: set[str] = set()
    ruled: list[tuple[str, str]] = []
    for k in keys:
        part = parts[k]
        if blocks:  # the first player of the last block above against the first one below
            shown = (values[blocks[-1][0]].shown, values[part.blocks[0][0]].shown)
            bound = bounds_seen.get(shown)
            if bound is None:
                bound = bounds_seen[shown] = Boundary(crit.name, crit.label, *shown)
            bounds.append(bound)
        blocks += part.blocks
        bounds += part.boundaries
        trace += part.trace
        unresolved |= part.unresolved
        ruled += part.ruled
    ranking = GroupRanking(
        tuple(blocks), tuple(bounds), tuple(trace), frozenset(unresolved), tuple(ruled)
    )
    return Split(group, values, ascending, buckets, parts, ranking, bounds_seen)


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


def rank_by_chain_alone(ct: Crosstable, chain: Chain, players: Sequence[str]) -> Ranking:
    """Order `players` (sorted) by the chain alone, with no grouping by points first (McMahon:
    `mcmahon.rank`)."""
    ranker = _Ranker(ct, chain)
    blocks, bounds = ranker.order(list(players), 0) if players else ([], [])
    return Ranking(blocks, bounds, ranker.unresolved, ranker.trace, ranker.ruled)
