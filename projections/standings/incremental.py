"""Incremental standings: the table of `projections.standings.table.standings`, advanced event
by event, recomputing only what an event can change.

`IncrementalStandings` is advanced by the same records as the standings fold (it holds one,
`state`) and gives, at any point, `table()` equal to `standings(state, stage)`: the same rows,
values, places, reasons, ranking trace and crosstable. Per event it recomputes:

- a result (`GameEnded`, `ResultCorrected`, `EventRetracted` of either) of a game of the stage:
  the game and the crosstable entries of its two players; then each criterion's values for the
  players within the criterion's dependency radius of the two (`RADIUS`): 0, the two players
  (wins, ARO, progressive score: their own rounds); 1, the two and their opponents (Buchholz,
  Sonneborn-Berger, fore-Buchholz, APRO: an opponent's adjusted score or the 16.4.1 cap reads
  the opponent's rounds); 2, the opponents' opponents too (AOB: the opponents' Buchholz). A
  criterion it cannot bound (Koya, the Czech, TCEC and Go criteria) is recomputed over the field.
  The ranking is redone only for the points groups whose members or values changed (a group's
  order reads only its members' values, the games between them and the rulings:
  `rank_group`); rows are rebuilt only where something they show changed.
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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

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
    Table,
    cell,
    chain_edition,
    column_keys,
    entry_stats,
    make_row,
    standings,
    tournament_chain,
)
from projections.tiebreaks import fide, mcmahon
from projections.tiebreaks.chain import (
    Boundary,
    GroupRanking,
    GroupValues,
    Ranking,
    Step,
    field_key,
    rank_group,
)
from projections.tiebreaks.registry import Value, half_points

# A criterion family's dependency radius: whose values a changed game can change (0: its two
# players; 1: and their opponents; 2: and their opponents' opponents). Not listed: unbounded.
RADIUS: dict[str, int] = {
    "fide-wins": 0,
    "fide-games-won": 0,
    "fide-black-games": 0,
    "fide-black-wins": 0,
    "fide-progressive": 0,
    "fide-aro": 0,
    "fide-tpr": 0,
    "fide-apro": 1,
    "buchholz": 1,
    "fide-sonneborn-berger": 1,
    "fide-fore-buchholz": 1,
    "sonneborn-berger": 1,
    "fide-aob": 2,
}
# Group-relative criteria that read only the games between the group's members.
_GROUP_LOCAL = frozenset({"direct-encounter", "fide-direct-encounter", "czech-mini-table"})
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


def radius(name: str) -> int | None:
    fam = fide.family_of(name)
    family = fam[0] if fam is not None else name
    return RADIUS.get(family)


class _Crosstable(Crosstable):
    """A crosstable whose `games` are in `game_sort_key` order and whose entries name every
    game: the games between a group are found from the members' entries, not a scan."""

    def games_between(self, group: Any) -> list[Game]:
        members = set(group)
        found: dict[str, Game] = {}
        for p in members:
            for e in self.entries.get(p, ()):
                g = e.game
                if g is not None and g.white in members and g.black in members:
                    found[g.game_id] = g
        return sorted(found.values(), key=game_sort_key)


def _copy(ct: Crosstable, **changes: Any) -> _Crosstable:
    fields = {f.name: getattr(ct, f.name) for f in dataclasses.fields(ct) if f.name != "_memo"}
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
        self._keys = column_keys(self._chain)
        self._chain_names = dict(zip(self._keys, (s.name for s in self._chain.specs), strict=True))
        self._cycle_of = cycle_of_round(state.created)
        self._game_pos = {gid: i for i, gid in enumerate(state.games)}
        self._games = list(ct.games)
        self._round_count: Counter[int] = Counter(e.round for es in ct.entries.values() for e in es)
        self._values: dict[int, dict[str, Value]] = {}
        for i, (crit, params) in enumerate(self._criteria):
            if not crit.terminal and not crit.group_relative:
                values = crit.compute(ct, tuple(ct.players), params)
                ct._memo[field_key(crit, params)] = values
                self._values[i] = values
        self._stats = {pid: entry_stats(es) for pid, es in ct.entries.items()}
        self._group_rank: dict[tuple[str, ...], GroupRanking] = {}
        self._group_cells: dict[tuple[int, tuple[str, ...]], dict[str, Cell]] = {}
        self._cells: dict[int, dict[str, Cell]] = {}  # column -> player -> cell (kept current)
        self._relative: dict[tuple[int, tuple[str, ...]], dict[str, Value]] = {}
        self._relative_of: dict[str, set[tuple[int, tuple[str, ...]]]] = {}
        self._rows: dict[str, Row] = {}
        self._group_blocks: dict[tuple[str, ...], list[list[str]]] = {}
        self._cell_cache: dict[tuple[str, Value], Cell] = {}
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
        memo = ct._memo
        for k, v in old._memo.items():
            if k[0] in _PER_PLAYER_MEMO and k[1] not in changed:
                memo[k] = v
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
            r = radius(crit.name)
            dirty = rings[r] if r is not None else list(ct.players)
            values = dict(self._values[i])
            fresh = crit.compute(ct, dirty, params) if dirty else {}
            moved_i = moved[i] = set()
            for p, v in fresh.items():
                if values.get(p) != v:
                    moved_i.add(p)
                values[p] = v
            affected |= moved_i
            self._values[i] = values
            memo[field_key(crit, params)] = values
            self.counters.values += len(dirty)
            self.counters.last_values[self._keys[i]] = len(dirty)
        self.counters.last_players = frozenset(changed)
        self._ct = ct
        self._table = self._assemble(ct, changed, affected, moved)
        return True

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
        members (`_GROUP_LOCAL`); a cached entry is dropped when a game between two of its
        members changes (`_forget_relative`)."""
        cache, of = self._relative, self._relative_of
        criteria = self._criteria
        if len(cache) > 8 * len(ct.players) + 1024:  # bound the memory: start again
            cache.clear()
            of.clear()

        def values(i: int, group: Sequence[str]) -> dict[str, Value]:
            crit, params = criteria[i]
            if crit.name not in _GROUP_LOCAL:
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

    def _assemble(
        self,
        ct: Crosstable,
        changed: set[str] | None,
        affected: set[str] | None,
        moved: Mapping[int, set[str]] | None,
    ) -> Table:
        """The table; `changed`: the players whose rounds changed, `affected`: and those whose
        values changed, `moved`: per column, the players whose value changed (None:
        everyone)."""
        chain = self._chain
        relative = self._group_values(ct)
        points = ct.points
        by_points: dict[int, list[str]] = {}
        for p in ct.players:
            by_points.setdefault(points.get(p, 0), []).append(p)
        group_local = all(
            c.name in _GROUP_LOCAL for c, _ in self._criteria if c.group_relative
        ) and not any(c.name == "organisers-decide" for c, _ in self._criteria)
        ranks: dict[tuple[str, ...], GroupRanking] = {}
        blocks: list[list[str]] = []
        bounds: list[Boundary] = []
        trace: list[Step] = []
        unresolved: set[str] = set()
        ruled: dict[str, str] = {}
        fresh_groups: set[tuple[str, ...]] = set()
        group_blocks: dict[tuple[str, ...], list[list[str]]] = {}
        for pts in sorted(by_points, reverse=True):
            group = tuple(sorted(by_points[pts]))
            cached = self._group_rank.get(group)
            if (
                cached is None
                or affected is None
                or not group_local
                or any(p in affected for p in group)
            ):
                cached = rank_group(ct, chain, group, relative)
                fresh_groups.add(group)
                self.counters.groups += 1
            ranks[group] = cached
            if blocks:
                upper = points.get(blocks[-1][0], 0)
                bounds.append(Boundary("points", "points", half_points(upper), half_points(pts)))
            lists = self._group_blocks.get(group) if group not in fresh_groups else None
            if lists is None:
                lists = [list(b) for b in cached.blocks]
            group_blocks[group] = lists
            blocks += lists  # shared with the previous table: never mutated
            bounds += cached.boundaries
            trace += cached.trace
            unresolved |= cached.unresolved
            ruled.update(cached.ruled)
        self._group_rank = ranks
        self._group_blocks = group_blocks
        ranking = Ranking(blocks, bounds, unresolved, trace, ruled)
        cols, fresh_players = self._columns(by_points, changed, moved, group_local, relative)
        rows: list[Row] = []
        place = 1
        new_rows: dict[str, Row] = {}
        old_rows = self._rows
        for b, block in enumerate(ranking.blocks):
            reason = ranking.boundaries[b - 1].text() if b else ""
            shared = len(block) > 1
            for i, pid in enumerate(block):
                is_unresolved = pid in unresolved
                decided = (
                    ("unresolved: organisers decide" if is_unresolved else "shared")
                    if i
                    else reason
                )
                prev = old_rows.get(pid)
                if prev is None or pid in fresh_players:
                    row = self._row(ct, cols, pid, place, shared, is_unresolved, decided)
                elif (
                    prev.place == place
                    and prev.shared == shared
                    and prev.unresolved == is_unresolved
                    and prev.decided_by == decided
                ):
                    row = prev
                else:  # only its place or how it was decided changed
                    row = _placed(prev, place, shared, is_unresolved, decided)
                new_rows[pid] = row
                rows.append(row)
            place += len(block)
        self._rows = new_rows
        return Table(
            self.state.seq,
            chain,
            tuple(rows),
            ranking,
            chain_edition(ct, chain),
            ct,
            by_chain=False,
        )

    def _columns(
        self,
        by_points: Mapping[int, list[str]],
        changed: set[str] | None,
        moved: Mapping[int, set[str]] | None,
        group_local: bool,
        relative: GroupValues,
    ) -> tuple[dict[str, dict[str, Cell]], set[str]]:
        """Each column's cells (as `table.columns`), kept current: updated where a value
        changed (`moved`; None: everyone); and the players whose cells changed. The columns
        are read only while the rows are built (a table does not hold them)."""
        out: dict[str, dict[str, Cell]] = {}
        fresh: set[str] = set()
        group_cells: dict[tuple[int, tuple[str, ...]], dict[str, Cell]] = {}
        for i, (key, (crit, _params)) in enumerate(zip(self._keys, self._criteria, strict=True)):
            if crit.terminal:
                continue
            shown = self._cells.get(i)
            if shown is None or moved is None:
                shown = self._cells[i] = {}
            if crit.group_relative:
                for members in by_points.values():
                    group = tuple(sorted(members))
                    previous = self._group_cells.get((i, group))
                    cached = previous
                    if (
                        cached is None
                        or changed is None
                        or not group_local
                        or any(p in changed for p in group)
                    ):
                        computed = relative(i, members)
                        cached = {p: self._cell(crit.name, v) for p, v in computed.items()}
                        for p in members:
                            c = cached.get(p)
                            if previous is None or previous.get(p) != c:
                                fresh.add(p)
                            if c is None:
                                shown.pop(p, None)
                            else:
                                shown[p] = c
                    group_cells[(i, group)] = cached
            else:
                values = self._values[i]
                who = values if moved is None else moved.get(i, ())
                for p in who:
                    shown[p] = self._cell(crit.name, values[p])
                    fresh.add(p)
            out[key] = shown
        self._group_cells = group_cells
        if changed is not None:
            fresh |= changed
        return out, fresh

    def _cell(self, name: str, v: Value) -> Cell:
        """`table.cell`, once per criterion and value."""
        key = (name, v)
        found = self._cell_cache.get(key)
        if found is None:
            found = self._cell_cache[key] = cell(name, v)
        return found

    def _row(
        self,
        ct: Crosstable,
        cols: Mapping[str, Mapping[str, Cell]],
        pid: str,
        place: int,
        shared: bool,
        unresolved: bool,
        decided_by: str,
    ) -> Row:
        return make_row(
            ct,
            cols,
            self._chain_names,
            pid,
            self._stats[pid],
            place=place,
            shared=shared,
            unresolved=unresolved,
            decided_by=decided_by,
        )


def _placed(prev: Row, place: int, shared: bool, unresolved: bool, decided_by: str) -> Row:
    """`prev` at another place: as `make_row` would build it again (its other fields read
    what did not change), without reading the columns again."""
    row: Row = object.__new__(Row)
    fields = row.__dict__
    fields.update(prev.__dict__)
    fields.update(place=place, shared=shared, unresolved=unresolved, decided_by=decided_by)
    return row


def incremental(records: Sequence[Recorded], stage: str = "main") -> IncrementalStandings:
    """An incremental standings advanced by `records`."""
    inc = IncrementalStandings(stage)
    for rec in records:
        inc.apply(rec)
    return inc


__all__ = ["RADIUS", "Counters", "IncrementalStandings", "incremental", "radius"]
