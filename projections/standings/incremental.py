"""Incremental standings: the table of `projections.standings.table.standings`, advanced event
by event, recomputing only what an event can change.

`IncrementalStandings` is advanced by the same records as the standings fold (it holds one,
`state`) and gives, at any point, `table()` equal to `standings(state, stage)`: the same rows,
values, places, reasons, ranking trace and crosstable. Per event it recomputes:

- a result (`GameEnded`, `ResultCorrected`, `EventRetracted` of either) of a game of the stage:
  the game and the crosstable entries of its two players; then each criterion's values for the
  players within the dependency radius its registration declares (`registry.Radius`) of the
  two: 0, the two players (wins, ARO, progressive score: their own rounds); 1, the two and their
  opponents (Buchholz, Sonneborn-Berger, fore-Buchholz, APRO: an opponent's adjusted score or
  the 16.4.1 cap reads the opponent's rounds); 2, the opponents' opponents too (AOB: the
  opponents' Buchholz). A criterion declared `FIELD` (Koya, the Czech, TCEC and Go criteria) is
  recomputed over the field. A group-relative criterion declared `GROUP` (direct encounter, the
  Czech mini-table) reads only the games between the group's members: its values are kept per
  group until such a game changes.
  The ranking is redone only for the points groups whose members or values changed (a group's
  order reads only its members' values, the games between them and the rulings:
  `rank_group`), and within such a group, when the chain's first criterion is absolute, only
  for the buckets of players level on it that a changed player left or joined (`chain.Split`,
  `chain.resplit`). The points groups, their rankings and rows are kept per group: a row is
  built again only when its player's rounds changed, read again only when one of its cells
  changed, and moved when only its place or reason changed; a group whose ranking, place and
  cells did not change keeps its rows.
- an event that changes nothing the table reads (a start or a move of a game without a
  result, a clock reading, a redelivery): nothing but `seq`.
- anything else, or a result that changes the number of rounds R (every unplayed-round slot
  and the 16.4.2 cap read it): a full recompute, counted in `full_recomputes`.

Mutable like the fold it advances (no clock, randomness or I/O); the tables it returns are
immutable and never change afterwards.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from events_schema import events as ev
from events_schema.registry import Recorded
from projections.standings.crosstable import (
    Crosstable,
    Entry,
    Game,
    build,
    cycle_of_round,
    game_entries,
    game_of,
    game_sort_key,
)
from projections.standings.state import StandingsState, evolve
from projections.standings.table import (
    Cell,
    Row,
    RowCells,
    Table,
    cell,
    chain_edition,
    column_keys,
    entry_stats,
    make_row,
    no_cell,
    standings,
    tournament_chain,
)
from projections.tiebreaks import fide, mcmahon
from projections.tiebreaks.chain import (
    Boundary,
    GroupRanking,
    GroupValues,
    Ranking,
    Split,
    Step,
    field_key,
    rank_group,
    resplit,
    split_group,
)
from projections.tiebreaks.registry import GROUP, Value, half_points

# Crosstable memo entries that are a function of one player's own rounds (and R): carried over
# to the next crosstable for the players whose rounds did not change.
_PER_PLAYER_MEMO = frozenset({"fide.slots", "fide.adjusted", "fide.fore"})
# Events that only touch a game's start or moves.
_GAME_PROGRESS = (
    ev.GameStarted,
    ev.MovePlayed,
    ev.IllegalMoveNoticed,
    ev.ColourErrorNoticed,
    ev.PositionDisturbed,
)
# Events the table never reads, whatever the game's state: the clocks (the live games document
# shows them; no standings value or ranking reads a clock).
_CLOCKS = (ev.ClockReported, ev.ClockSet, ev.ClockPaused, ev.ClockResumed, ev.ClockStarted)


T = TypeVar("T")

# A column's cell of one value, with the row's (column key, cell) and (column key, shown).
_Shown = tuple[Cell, tuple[str, Cell], tuple[str, str]]


@dataclass(frozen=True)
class _Crosstable(Crosstable):
    """A crosstable whose `games` are in `game_sort_key` order and whose entries name every
    game: the games between a group are found from the members' entries, not a scan. It
    records the memo keys computed on it (`computed`): the next crosstable carries over the
    per-player ones (`_PER_PLAYER_MEMO`) without a scan of the memo."""

    computed: list[Hashable] = field(default_factory=list, compare=False, repr=False)

    def games_between(self, group: Any) -> list[Game]:
        members = set(group)
        found = [
            e.game
            for p in members
            for e in self.entries.get(p, ())
            if e.game is not None and e.colour == "white" and e.opponent in members
        ]  # each game once: from its white player's side
        found.sort(key=game_sort_key)
        return found

    def memo(self, key: Hashable, compute: Callable[[], T]) -> T:
        memo = self._memo
        if key not in memo:
            memo[key] = compute()
            self.computed.append(key)
        return cast(T, memo[key])


def _copy(ct: Crosstable, **changes: Any) -> _Crosstable:
    fields = {
        f.name: getattr(ct, f.name)
        for f in dataclasses.fields(ct)
        if f.name not in ("_memo", "computed")
    }
    fields.update(changes)
    return _Crosstable(**fields)


@dataclass
class Counters:
    """What was recomputed: full recomputes, incremental updates, and per update the players
    whose criterion values were recomputed (summed over criteria) and the groups re-ranked."""

    full: int = 0
    incremental: int = 0
    values: int = 0  # player values recomputed, summed over the criteria
    groups: int = 0  # points groups re-ranked
    last_values: dict[str, int] = field(default_factory=dict)  # column -> players, last update
    last_players: frozenset[str] = frozenset()  # players whose rounds changed, last update


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


class IncrementalStandings:
    """The standings of one stage, advanced record by record (see the module docstring)."""

    def __init__(self, stage: str = "main", state: StandingsState | None = None) -> None:
        self.stage = stage
        self.state = state if state is not None else StandingsState()
        self.counters = Counters()
        self._full_pending = True
        self._changed: set[str] = set()  # game ids whose result in force may have changed
        self._table: Table | None = None
        self._ct: _Crosstable | None = None

    # --- advancing ---------------------------------------------------------------------------

    def apply(self, rec: Recorded) -> None:
        """Advance by one record, as `evolve` advances the fold."""
        state = self.state
        if rec.envelope.seq <= state.seq:
            return
        event = rec.event
        if isinstance(event, _CLOCKS):
            evolve(state, rec)
            return
        gid = self._result_game(event)
        if gid is None and isinstance(event, _GAME_PROGRESS):
            game = state.games.get(event.game_id)
            if game is not None and not game.results:
                evolve(state, rec)  # a game without a result: not in the crosstable
                return
        if gid is None and isinstance(event, ev.EventRetracted):
            target = event.retracted_event_id
            if target not in state.result_game and self._harmless_target(target):
                evolve(state, rec)
                return
        evolve(state, rec)
        if gid is None:
            self._full_pending = True
        else:
            self._changed.add(gid)

    def _result_game(self, event: ev.Event | Any) -> str | None:
        """The game whose result in force the event changes, when that is all it changes."""
        if isinstance(event, ev.GameEnded | ev.ResultCorrected):
            gid = event.game_id
        elif isinstance(event, ev.EventRetracted):
            found = self.state.result_game.get(event.retracted_event_id)
            if found is None:
                return None
            gid = found
        else:
            return None
        game = self.state.games.get(gid)
        if game is None:
            return None
        return gid

    def _harmless_target(self, target: Any) -> bool:
        """Retracting `target` changes nothing the table reads: a move or a start of a game
        without a result, or an id the fold does not hold."""
        state = self.state
        for index in (state.move_game, state.start_game):
            if target in index:
                game = state.games.get(index[target])
                return game is None or not game.results
        held = (
            state.withdrawals,
            state.rulings,
            state.lots,
            state.skipped,
            state.unreadable,
            state.rounds,
            state.registrations,
        )
        return not any(target in h for h in held)

    # --- the table ---------------------------------------------------------------------------

    def table(self) -> Table:
        """Equal to `standings(self.state, self.stage)`."""
        if self._full_pending or (self._changed and not self._update(sorted(self._changed))):
            self._full()
        self._changed.clear()
        assert self._table is not None
        if self._table.seq != self.state.seq:
            self._table = dataclasses.replace(self._table, seq=self.state.seq)
        return self._table

    def _full(self) -> None:
        self.counters.full += 1
        self._full_pending = False
        self._changed.clear()
        state = self.state
        if mcmahon.mcmahon_ranked(state.created):
            self._table = standings(state, self.stage)
            self._ct = None
            return
        ct = _copy(build(state, self.stage))
        self._ct = ct
        self._chain = dataclasses.replace(tournament_chain(state), edition=ct.edition.edition)
        self._criteria = self._chain.criteria()
        # The edition reads the creation and the rulings: they change only by a full recompute.
        self._edition = chain_edition(ct, self._chain)
        self._keys = column_keys(self._chain)
        self._chain_names = dict(zip(self._keys, (s.name for s in self._chain.specs), strict=True))
        self._cycle_of = cycle_of_round(state.created)
        self._game_pos = {gid: i for i, gid in enumerate(state.games)}
        self._games = list(ct.games)
        self._round_count: Counter[int] = Counter(e.round for es in ct.entries.values() for e in es)
        self._values: dict[int, dict[str, Value]] = {}
        self._field_keys: dict[int, tuple[Any, ...]] = {}  # column -> `field_key`
        for i, (crit, params) in enumerate(self._criteria):
            if not crit.terminal and not crit.group_relative:
                values = crit.compute(ct, tuple(ct.players), params)
                self._field_keys[i] = field_key(crit, params)
                ct._memo[self._field_keys[i]] = values
                self._values[i] = values
        self._stats = {pid: entry_stats(es) for pid, es in ct.entries.items()}
        self._ranking_criteria = self._chain.criteria(cited=False)
        self._groups: dict[int, tuple[str, ...]] = {}  # points -> members, sorted
        self._points: dict[str, int] = {}  # player -> points, as grouped
        self._group_state: dict[int, _Group] = {}  # points -> its group's ranking and rows
        # (column, points) -> the group's members and its cells of a group-relative criterion
        self._group_cells: dict[tuple[int, int], tuple[tuple[str, ...], dict[str, _Shown]]] = {}
        self._cells: dict[int, dict[str, _Shown]] = {}  # column -> player -> cell (kept current)
        self._relative: dict[tuple[int, tuple[str, ...]], dict[str, Value]] = {}
        self._relative_of: dict[str, set[tuple[int, tuple[str, ...]]]] = {}
        self._rows: dict[str, Row] = {}  # player -> their row in the last table
        self._memo_of: dict[str, list[Hashable]] = {}  # player -> memo keys carried over
        self._block_lists: dict[tuple[str, ...], list[str]] = {}
        self._points_bounds: dict[tuple[int, int], tuple[Boundary, str]] = {}
        self._cell_cache: dict[tuple[Any, ...], _Shown] = {}
        # Per column shown: its index and what a player without a cell in it shows.
        self._no_cells: list[tuple[int, _Shown]] = []
        for i, (key, (crit, _params)) in enumerate(zip(self._keys, self._criteria, strict=True)):
            if not crit.terminal:
                none = no_cell(crit.name)
                self._no_cells.append((i, (none, (key, none), (key, none.display))))
        self._table = self._assemble(ct, None, None, None)

    def _update(self, gids: Sequence[str]) -> bool:
        """Apply changed results; False when a full recompute is needed."""
        old = self._ct
        if old is None:
            return False
        state = self.state
        entries = dict(old.entries)
        points = dict(old.points)
        changed: set[str] = set()
        games = self._games
        round_count = self._round_count
        for gid in gids:
            rec = state.games.get(gid)
            if rec is None or gid not in self._game_pos:
                return False
            if rec.stage != self.stage or rec.white not in entries or rec.black not in entries:
                continue
            if rec.white == rec.black:
                return False
            new = game_of(rec, old.scoring, self._cycle_of(rec.round, rec.cycle))
            previous: Game | None = None
            for e in entries[rec.white]:
                if e.game is not None and e.game.game_id == gid:
                    previous = e.game
            if previous is not None:
                i = bisect.bisect_left(games, game_sort_key(previous), key=game_sort_key)
                assert games[i] is previous
                del games[i]
            if new is not None:
                bisect.insort(games, new, key=game_sort_key)
            added = dict(game_entries(new)) if new is not None else {}
            for pid in (rec.white, rec.black):
                es = []
                for e in entries[pid]:
                    if e.game is not None and e.game.game_id == gid:
                        round_count[e.round] -= 1
                    else:
                        es.append(e)
                if pid in added:
                    es.append(added[pid])
                    round_count[added[pid].round] += 1
                    es.sort(key=self._entry_key)
                entries[pid] = tuple(es)
                points[pid] = sum(e.points for e in es)
                changed.add(pid)
            self._forget_relative(rec.white, rec.black)
        last = max((r for r, n in round_count.items() if n > 0), default=0)
        if last != old.last_round:
            return False
        if not changed:
            return True
        self.counters.incremental += 1
        ct = _copy(old, games=tuple(games), entries=entries)
        ct.__dict__["points"] = points
        ct.__dict__["last_round"] = last
        self._carry_memo(old, ct, changed)
        for pid in changed:
            self._stats[pid] = entry_stats(entries[pid])
        rings = self._rings(ct, changed)
        self._seed_buchholz(old, ct, rings)
        affected = set(changed)
        moved: dict[int, set[str]] = {}  # column -> players whose value changed
        self.counters.last_values = {}
        for i, (crit, params) in enumerate(self._criteria):
            if i not in self._values:
                continue
            r = crit.radius  # an absolute criterion's: 0, 1, 2 or FIELD
            dirty = rings[r] if isinstance(r, int) else list(ct.players)
            values = dict(self._values[i])
            fresh = crit.compute(ct, dirty, params) if dirty else {}
            moved_i = moved[i] = set()
            for p, v in fresh.items():
                if values.get(p) != v:
                    moved_i.add(p)
                values[p] = v
            affected |= moved_i
            self._values[i] = values
            ct._memo[self._field_keys[i]] = values
            self.counters.values += len(dirty)
            self.counters.last_values[self._keys[i]] = len(dirty)
        self.counters.last_players = frozenset(changed)
        self._ct = ct
        self._table = self._assemble(ct, changed, affected, moved)
        return True

    def _carry_memo(self, old: _Crosstable, ct: _Crosstable, changed: set[str]) -> None:
        """Carry `old`'s memo over to `ct`: only the per-player entries (`_PER_PLAYER_MEMO`)
        of the players whose rounds did not change. The memo holds those carried (indexed by
        player in `_memo_of`), those computed on `old` (`old.computed`) and the ones set here:
        the field values (`_field_keys`, set again once computed) and the field Buchholz
        (`_seed_buchholz`, seeded again)."""
        memo = ct._memo
        memo.update(old._memo)
        for fk in self._field_keys.values():
            memo.pop(fk, None)
        of = self._memo_of
        for k in old.computed:
            if not isinstance(k, tuple) or k[0] not in _PER_PLAYER_MEMO or k[1] in changed:
                memo.pop(k, None)
            else:
                of.setdefault(k[1], []).append(k)
        for pid in changed:
            for k in of.pop(pid, ()):
                memo.pop(k, None)

    def _forget_relative(self, a: str, b: str) -> None:
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

    def _entry_key(self, e: Entry) -> tuple[int, int, int]:
        if e.game is not None:
            return (e.round, 0, self._game_pos[e.game.game_id])
        return (e.round, 1, 0)

    @staticmethod
    def _rings(ct: Crosstable, changed: set[str]) -> dict[int, list[str]]:
        """The players within 0, 1 and 2 opponents of the changed players, sorted."""
        out: dict[int, list[str]] = {}
        ring = set(changed)
        for r in range(3):
            out[r] = sorted(ring)
            if r < 2:
                ring = ring | {
                    e.opponent for p in ring for e in ct.entries.get(p, ()) if e.opponent
                }
        return out

    def _seed_buchholz(self, old: Crosstable, ct: Crosstable, rings: dict[int, list[str]]) -> None:
        """The field's Buchholz that AOB averages (`fide.field_buchholz`), for radius 1."""
        for family in ("buchholz", "fide-fore-buchholz"):
            key = fide.field_buchholz_key(family)
            if key in old._memo:
                values = dict(old._memo[key])
                for p in rings[1]:
                    values[p] = fide.buchholz_of(ct, family, p)
                ct._memo[key] = values

    # --- ranking, columns, rows --------------------------------------------------------------

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

    def _assemble(
        self,
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
            self.state.seq,
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

    def _cell(self, i: int, v: Value) -> _Shown:
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


def incremental(records: Sequence[Recorded], stage: str = "main") -> IncrementalStandings:
    """An incremental standings advanced by `records`."""
    inc = IncrementalStandings(stage)
    for rec in records:
        inc.apply(rec)
    return inc


__all__ = ["Counters", "IncrementalStandings", "incremental"]
