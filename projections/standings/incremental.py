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
  The table is kept per points group (`projections.standings.grouped.GroupedTable`): the
  ranking is redone only for the points groups whose members or values changed (a group's
  order reads only its members' values, the games between them and the rulings:
  `rank_group`), and within such a group, when the chain's first criterion is absolute, only
  for the buckets of players level on it that a changed player left or joined (`chain.Split`,
  `chain.resplit`). The points groups, their rankings and rows are kept per group: a row is
  built again only when its player's rounds changed, read again only when one of its cells
  changed, and moved when only its place or reason changed; a group whose ranking, place and
  cells did not change keeps its rows.
- an event that changes nothing the table reads (a start or a move of a game without a
  result, a clock reading, a redelivery): nothing but `seq`. In Go a start or a colour error
  of a game without a result is a full recompute: it sets the handicap stones and colours the
  crosstable keeps of that game (`Unresulted`, read by the McMahon criteria when unentered
  results count as OpenGotha counts them).
- anything else, or a result that changes the number of rounds R (every unplayed-round slot
  and the 16.4.2 cap read it): a full recompute, counted in `full_recomputes`.

Mutable like the fold it advances (no clock, randomness or I/O); the tables it returns are
immutable and never change afterwards.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
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
    go_settings,
)
from projections.standings.grouped import GroupedTable
from projections.standings.state import StandingsState, evolve
from projections.standings.table import (
    Table,
    chain_edition,
    column_keys,
    entry_stats,
    standings,
    tournament_chain,
)
from projections.tiebreaks import fide, mcmahon
from projections.tiebreaks.chain import field_key
from projections.tiebreaks.registry import Value

# Crosstable memo entries that are a function of one player's own rounds (and R): carried over
# to the next crosstable for the players whose rounds did not change.
_PER_PLAYER_MEMO = frozenset({"fide.slots", "fide.adjusted", "fide.fore"})
# Events that only touch a game's start or moves.
GAME_PROGRESS = (
    ev.GameStarted,
    ev.MovePlayed,
    ev.IllegalMoveNoticed,
    ev.ColourErrorNoticed,
    ev.PositionDisturbed,
)
# Of those, the ones that set what a Go crosstable keeps of a game without a result
# (`Unresulted`: its colours and handicap stones, which the McMahon criteria read when the
# settings count unentered results as OpenGotha does): progress only in a chess tournament.
_GO_UNRESULTED = (ev.GameStarted, ev.ColourErrorNoticed)
# Events the table never reads, whatever the game's state: the clocks (the live games document
# shows them; no standings value or ranking reads a clock).
CLOCKS = (ev.ClockReported, ev.ClockSet, ev.ClockPaused, ev.ClockResumed, ev.ClockStarted)


T = TypeVar("T")


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
        if event.__class__ is ev.MovePlayed:  # most of every stream: the answer below, sooner
            game = state.games.get(event.game_id)
            if game is not None and not game.results:
                evolve(state, rec)  # a game without a result: not in the crosstable
                return
        if isinstance(event, CLOCKS):
            evolve(state, rec)
            return
        gid = self._result_game(event)
        if gid is None and isinstance(event, GAME_PROGRESS):
            game = state.games.get(event.game_id)
            if (
                game is not None
                and not game.results
                and not (
                    isinstance(event, _GO_UNRESULTED) and go_settings(state.created) is not None
                )
            ):
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
        if target in state.start_game and go_settings(state.created) is not None:
            return False  # the handicap of the start goes back to the pairing's (`Unresulted`)
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
        self._memo_of: dict[str, list[Hashable]] = {}  # player -> memo keys carried over
        self._tables = GroupedTable(
            self._chain,
            self._criteria,
            # The edition reads the creation and the rulings: they change only by a full recompute.
            chain_edition(ct, self._chain),
            self._keys,
            self._values,
            self._stats,
            self.counters,
        )
        self._table = self._tables.assemble(state.seq, ct, None, None, None)

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
            self._tables.forget_relative(rec.white, rec.black)
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
        self._table = self._tables.assemble(self.state.seq, ct, changed, affected, moved)
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


def incremental(records: Sequence[Recorded], stage: str = "main") -> IncrementalStandings:
    """An incremental standings advanced by `records`."""
    inc = IncrementalStandings(stage)
    for rec in records:
        inc.apply(rec)
    return inc


__all__ = ["Counters", "IncrementalStandings", "incremental"]
