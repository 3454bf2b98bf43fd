"""The incremental standings' table kept per points group (`GroupedTable`): the points groups
of the last table, their rankings, the tiebreak columns' cells and the rows, each built again
only where the changed players or values reach (`projections.standings.incremental` advances
the crosstable and the criteria's values and asks for the table)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from projections.standings.crosstable import Crosstable
from projections.standings.table import (
    Cell,
    EntryStats,
    Row,
    RowCells,
    Table,
    cell,
    make_row,
    no_cell,
)
from projections.tiebreaks.chain import (
    Boundary,
    Chain,
    Criteria,
    GroupRanking,
    GroupValues,
    Ranking,
    Split,
    Step,
    rank_group,
    resplit,
    split_group,
)
from projections.tiebreaks.editions import EditionInForce
from projections.tiebreaks.registry import GROUP, Value, half_points

if TYPE_CHECKING:
    from projections.standings.incremental import Counters

# A column's cell of one value, with the row's (column key, cell) and (column key, shown).
Shown = tuple[Cell, tuple[str, Cell], tuple[str, str]]


@dataclass
class _Group:
    """A points group in the last table: its members, ranking (and the split it was joined
    from, `chain.Split`), blocks and rows, and where the rows stood: the place before the
    first (`offset`) and the points of the group above (`upper`)."""

    members: tuple[str, ...]
    ranking: GroupRanking
    split: Split | None
    blocks: list[list[str]]
    rows: list[Row] | None = None
    offset: int = -1
    upper: int | None = None


class GroupedTable:
    """The last table of one chain, kept per points group: `assemble` builds the next one from
    the crosstable and the absolute criteria's values (`values`, by chain index, and the
    players' counts, `stats`: both kept current by the caller), reusing what did not change."""

    def __init__(
        self,
        chain: Chain,
        criteria: Criteria,
        edition: EditionInForce | None,
        keys: Sequence[str],
        values: dict[int, dict[str, Value]],
        stats: dict[str, EntryStats],
        counters: Counters,
    ) -> None:
        self._chain = chain
        self._criteria = criteria
        self._edition = edition
        self._keys = list(keys)
        self._chain_names = dict(zip(self._keys, (s.name for s in chain.specs), strict=True))
        self._values = values
        self._stats = stats
        self.counters = counters
        self._ranking_criteria = chain.criteria(cited=False)
        self._groups: dict[int, tuple[str, ...]] = {}  # points -> members, sorted
        self._points: dict[str, int] = {}  # player -> points, as grouped
        self._group_state: dict[int, _Group] = {}  # points -> its group's ranking and rows
        # (column, points) -> the group's members and its cells of a group-relative criterion
        self._group_cells: dict[tuple[int, int], tuple[tuple[str, ...], dict[str, Shown]]] = {}
        self._cells: dict[int, dict[str, Shown]] = {}  # column -> player -> cell (kept current)
        self._relative: dict[tuple[int, tuple[str, ...]], dict[str, Value]] = {}
        self._relative_of: dict[str, set[tuple[int, tuple[str, ...]]]] = {}
        self._rows: dict[str, Row] = {}  # player -> their row in the last table
        self._block_lists: dict[tuple[str, ...], list[str]] = {}
        self._points_bounds: dict[tuple[int, int], tuple[Boundary, str]] = {}
        self._cell_cache: dict[tuple[Any, ...], Shown] = {}
        # Per column shown: its index and what a player without a cell in it shows.
        self._no_cells: list[tuple[int, Shown]] = []
        for i, (key, (crit, _params)) in enumerate(zip(self._keys, criteria, strict=True)):
            if not crit.terminal:
                none = no_cell(crit.name)
                self._no_cells.append((i, (none, (key, none), (key, none.display))))

    def forget_relative(self, a: str, b: str) -> None:
        """Drop the cached group-relative values of the groups holding both `a` and `b`: the
        only ones a game between them can change (they read the games between the members)."""
        of_a, of_b = self._relative_of.get(a), self._relative_of.get(b)
        if not of_a or not of_b:
            return
        for key in of_a & of_b:
            self._relative.pop(key, None)
        for members in (of_a, of_b):
            members.difference_update([k for k in members if k not in self._relative])

    def _group_values(self, ct: Crosstable) -> GroupValues:
        """The chain's group-relative values per group, cached (keyed by the criterion and the
        group, in its order) for the criteria that read only the games between the group's
        members (radius `GROUP`); a cached entry is dropped when a game between two of its
        members changes (`_forget_relative`)."""
        cache, of = self._relative, self._relative_of
        criteria = self._criteria
        if len(cache) > 8 * len(ct.players) + 1024:  # bound the memory: start again
            cache.clear()
            of.clear()

        def values(i: int, group: Sequence[str]) -> dict[str, Value]:
            crit, params = criteria[i]
            if crit.radius != GROUP:
                return crit.compute(ct, group, params)
            key = (i, tuple(group))
            found = cache.get(key)
            if found is None:
                found = cache[key] = crit.compute(ct, group, params)
                for p in key[1]:
                    of.setdefault(p, set()).add(key)
            return found

        return values

    def _regroup(self, ct: Crosstable, changed: set[str] | None) -> dict[int, set[str]]:
        """Bring the points groups (`_groups`: points -> members, sorted) up to date with the
        players whose rounds changed (None: everyone); returns, per group whose members
        changed, the players who left it (a group left empty is gone)."""
        points = ct.points
        left: dict[int, set[str]] = {}
        if changed is None:
            by_points: dict[int, list[str]] = {}
            for p in ct.players:  # sorted: each group comes out sorted
                by_points.setdefault(points.get(p, 0), []).append(p)
            self._groups = {pts: tuple(members) for pts, members in by_points.items()}
            self._points = {p: points.get(p, 0) for p in ct.players}
            return left
        groups = self._groups
        for p in changed:
            before, now = self._points[p], points.get(p, 0)
            if before == now:
                continue
            self._points[p] = now
            rest = tuple(q for q in groups[before] if q != p)
            if rest:
                groups[before] = rest
            else:
                del groups[before]
            groups[now] = tuple(sorted((*groups.get(now, ()), p)))
            left.setdefault(before, set()).add(p)
            left.setdefault(now, set())
        return left

    def assemble(
        self,
        seq: int,
        ct: Crosstable,
        changed: set[str] | None,
        affected: set[str] | None,
        moved: Mapping[int, set[str]] | None,
    ) -> Table:
        """The table; `changed`: the players whose rounds changed, `affected`: and those whose
        values changed, `moved`: per column, the players whose value changed (None:
        everyone). Only the points groups holding an affected player, or whose members
        changed, are ranked again, and only the rows of a group whose ranking, place or
        cells changed are built again."""
        chain = self._chain
        relative = self._group_values(ct)
        points = ct.points
        regrouped = self._regroup(ct, changed)
        # The absolute criteria's values over the field, for the rankings (`rank_group`).
        absolute = dict(self._values)
        group_local = all(
            c.radius == GROUP for c, _ in self._criteria if c.group_relative
        ) and not any(c.name == "organisers-decide" for c, _ in self._criteria)
        # Per group to rank again: the players in it (or who left it) whose values changed.
        dirty: dict[int, set[str]] | None = None
        if affected is not None and group_local:
            dirty = {pts: set(players) for pts, players in regrouped.items()}
            for p in affected:
                dirty.setdefault(points.get(p, 0), set()).add(p)
        # The group-relative columns read a group's members and the games between them.
        touched = None if changed is None else {*regrouped, *(points.get(p, 0) for p in changed)}
        fresh = self._columns(moved, touched, group_local, relative)
        if changed is not None:
            fresh |= changed  # their counts (wins, byes, ...) changed
        fresh_groups = {points.get(p, 0) for p in fresh}
        blocks: list[list[str]] = []
        bounds: list[Boundary] = []
        trace: list[Step] = []
        unresolved: set[str] = set()
        ruled: dict[str, str] = {}
        rows: list[Row] = []
        kept: dict[int, _Group] = {}
        upper: int | None = None
        for pts in sorted(self._groups, reverse=True):
            members = self._groups[pts]
            group = self._group_state.get(pts)
            if group is None or dirty is None or pts in dirty:
                if group is None or dirty is None:
                    group = self._rank(ct, members, None, None, relative, absolute)
                else:
                    group = self._rank(ct, members, group.split, dirty[pts], relative, absolute)
            reason = ""
            if upper is not None:
                bound, reason = self._points_boundary(upper, pts)
                bounds.append(bound)
            if group.offset != len(rows) or group.upper != upper or pts in fresh_groups:
                group.rows = None
            if group.rows is None:
                group.rows = self._group_rows(ct, group, len(rows), reason, fresh, changed)
                group.offset, group.upper = len(rows), upper
            blocks += group.blocks  # shared with the previous tables: never mutated
            bounds += group.ranking.boundaries
            trace += group.ranking.trace
            unresolved |= group.ranking.unresolved
            ruled.update(group.ranking.ruled)
            rows += group.rows
            kept[pts] = group
            upper = pts
        self._group_state = kept
        return Table(
            seq,
            chain,
            tuple(rows),
            Ranking(blocks, bounds, unresolved, trace, ruled),
            self._edition,
            ct,
            by_chain=False,
        )

    def _rank(
        self,
        ct: Crosstable,
        members: tuple[str, ...],
        previous: Split | None,
        changed: set[str] | None,
        relative: GroupValues,
        absolute: dict[int, dict[str, Value]],
    ) -> _Group:
        """A points group ranked (`rank_group`): from its previous split, redoing only the
        buckets `changed` touched (`resplit`), else from scratch."""
        self.counters.groups += 1
        chain, criteria = self._chain, self._ranking_criteria
        if previous is not None and changed is not None:
            split = resplit(ct, chain, previous, members, changed, relative, criteria, absolute)
        else:
            split = split_group(ct, chain, members, relative, criteria, absolute)
        if split is not None:
            ranking = split.ranking
        else:
            ranking = rank_group(ct, chain, members, relative, criteria=criteria, absolute=absolute)
        lists = self._block_lists
        if len(lists) > 4 * len(ct.players) + 1024:  # bound the memory: start again
            lists.clear()
        blocks = []
        for b in ranking.blocks:  # one list per block, shared by the tables: never mutated
            found = lists.get(b)
            if found is None:
                found = lists[b] = list(b)
            blocks.append(found)
        return _Group(members, ranking, split, blocks)

    def _points_boundary(self, upper: int, pts: int) -> tuple[Boundary, str]:
        """The boundary between two points groups and its text, once per pair."""
        found = self._points_bounds.get((upper, pts))
        if found is None:
            bound = Boundary("points", "points", half_points(upper), half_points(pts))
            found = self._points_bounds[(upper, pts)] = (bound, bound.text())
        return found

    def _group_rows(
        self,
        ct: Crosstable,
        group: _Group,
        offset: int,
        first: str,
        fresh: set[str],
        changed: set[str] | None,
    ) -> list[Row]:
        """A group's rows from place `offset` + 1 on; `first`: why its first block stands
        below the group above. A row is built again when the player's rounds changed
        (`changed`, None: everyone's), its cells only when one of them changed (`fresh`);
        else it is kept, or moved to its new place."""
        ranking = group.ranking
        unresolved, bounds, rows = ranking.unresolved, ranking.boundaries, self._rows
        out: list[Row] = []
        place = offset + 1
        for b, block in enumerate(group.blocks):
            reason = bounds[b - 1].text() if b else first
            shared = len(block) > 1
            for i, pid in enumerate(block):
                is_unresolved = pid in unresolved
                decided = (
                    ("unresolved: organisers decide" if is_unresolved else "shared")
                    if i
                    else reason
                )
                row = rows.get(pid)
                if (
                    row is None
                    or pid in fresh
                    or row.place != place
                    or row.decided_by != decided
                    or row.shared != shared
                    or row.unresolved != is_unresolved
                ):
                    row = rows[pid] = self._new_row(
                        ct, row, pid, place, shared, is_unresolved, decided, fresh, changed
                    )
                out.append(row)
            place += len(block)
        return out

    def _new_row(
        self,
        ct: Crosstable,
        prev: Row | None,
        pid: str,
        place: int,
        shared: bool,
        unresolved: bool,
        decided: str,
        fresh: set[str],
        changed: set[str] | None,
    ) -> Row:
        """The player's row: built again when their rounds changed (`changed`, None:
        everyone's), else `prev` at its place, with its cells read again when one of them
        changed (`fresh`)."""
        if prev is None or changed is None or pid in changed:
            return self._row(ct, pid, place, shared, unresolved, decided)
        if pid in fresh:
            tiebreaks, cells = self._row_cells(pid)
            return _placed(prev, place, shared, unresolved, decided, tiebreaks, cells)
        return _placed(prev, place, shared, unresolved, decided)

    def _columns(
        self,
        moved: Mapping[int, set[str]] | None,
        touched: set[int] | None,
        group_local: bool,
        relative: GroupValues,
    ) -> set[str]:
        """Each column's cells (as `table.columns`, in `_cells`), kept current: updated where
        a value changed (`moved`; None: everyone) and, for a group-relative criterion, in the
        points groups `touched` (None: all; every group when the criterion is not
        `group_local`). Returns the players whose cells changed."""
        fresh: set[str] = set()
        for i, (crit, _params) in enumerate(self._criteria):
            if crit.terminal:
                continue
            shown = self._cells.get(i)
            if shown is None or moved is None:
                shown = self._cells[i] = {}
            if crit.group_relative:
                for pts, members in self._groups.items():
                    previous = self._group_cells.get((i, pts))
                    if (
                        previous is not None
                        and previous[0] == members
                        and group_local
                        and touched is not None
                        and pts not in touched
                    ):
                        continue
                    cells = {p: self._cell(i, v) for p, v in relative(i, members).items()}
                    for p in members:
                        c = cells.get(p)
                        if shown.get(p) != c:
                            fresh.add(p)
                        if c is None:
                            shown.pop(p, None)
                        else:
                            shown[p] = c
                    self._group_cells[(i, pts)] = (members, cells)
            else:
                values = self._values[i]
                who = values if moved is None else moved.get(i, ())
                for p in who:
                    shown[p] = self._cell(i, values[p])
                    fresh.add(p)
        return fresh

    def _cell(self, i: int, v: Value) -> Shown:
        """`table.cell` of column `i`'s value `v` with the row's pairs of it, once per
        column and value (keyed by the value's fields: a tuple hashes faster than `Value`)."""
        key = (i, v.key, v.shown, v.number, v.best)
        found = self._cell_cache.get(key)
        if found is None:
            c = cell(self._criteria[i][0].name, v)
            found = self._cell_cache[key] = (c, (self._keys[i], c), (self._keys[i], c.display))
        return found

    def _row_cells(self, pid: str) -> RowCells:
        """`table.row_cells` from the kept columns."""
        shown, cells = [], []
        for i, none in self._no_cells:
            found = self._cells[i].get(pid, none)
            cells.append(found[1])
            shown.append(found[2])
        return tuple(shown), tuple(cells)

    def _row(
        self,
        ct: Crosstable,
        pid: str,
        place: int,
        shared: bool,
        unresolved: bool,
        decided_by: str,
    ) -> Row:
        return make_row(
            ct,
            {},
            self._chain_names,
            pid,
            self._stats[pid],
            place=place,
            shared=shared,
            unresolved=unresolved,
            decided_by=decided_by,
            shown=self._row_cells(pid),
        )


def _placed(
    prev: Row,
    place: int,
    shared: bool,
    unresolved: bool,
    decided_by: str,
    tiebreaks: tuple[tuple[str, str], ...] | None = None,
    cells: tuple[tuple[str, Cell], ...] | None = None,
) -> Row:
    """`prev` at another place (and with other `tiebreaks` and `cells`, when given): as
    `make_row` would build it again (its other fields read what did not change: the player
    and their rounds), without the frozen dataclass's field by field construction."""
    row: Row = object.__new__(Row)
    fields = row.__dict__
    fields.update(prev.__dict__)
    fields.update(place=place, shared=shared, unresolved=unresolved, decided_by=decided_by)
    if tiebreaks is not None and cells is not None:
        fields.update(tiebreaks=tiebreaks, cells=cells)
    return row


__all__ = ["GroupedTable", "Shown"]
