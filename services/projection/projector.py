"""Folding the event stream into the published projections, idempotent by (tournament, seq).

One `Projector` per process: the Kafka processors, the embedded runner and `arbiter replay`
all fold through it, and all build messages with `projections.documents.documents`, so a
replay to a seq reproduces, byte for byte, what was published at that seq.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from events_schema import Envelope, Recorded
from events_schema.codec import dumps
from events_schema.envelope import UnreadableEnvelope
from projections.documents import changed_by, documents
from projections.names import PROJECTIONS
from projections.standings.incremental import IncrementalStandings
from projections.standings.state import StandingsState

log = logging.getLogger("arbiter.projector")


class GapDetected(Exception):
    """An event from the future: the stream skipped a seq. It is not folded."""

    def __init__(self, tournament_id: str, expected: int, got: int) -> None:
        super().__init__(f"{tournament_id}: expected seq {expected}, got {got}; not folded")
        self.tournament_id, self.expected, self.got = tournament_id, expected, got


@dataclass(frozen=True)
class Message:
    """A projection message: Kafka key `tournament_id`, SSE id `as_of_seq`."""

    tournament_id: str
    projection: str
    as_of_seq: int
    body: bytes  # canonical JSON of the whole message
    # Set by the feed hub for `?patches=true` streams (`services.feed.patch`): the body of the
    # `event: patch` that turns the message of `base_seq` into this one; None: send in full.
    base_seq: int = field(default=-1, compare=False)
    patch: bytes | None = field(default=None, compare=False, repr=False)


@dataclass
class Projector:
    projections: Sequence[str] = PROJECTIONS
    states: dict[str, StandingsState] = field(default_factory=dict)
    # The data part last published per (tournament, projection): unchanged data is not
    # published again.
    published: dict[tuple[str, str], bytes] = field(default_factory=dict)
    duplicates: int = 0
    # Tournaments whose projection code failed (a bug, not bad data): held with the error,
    # every other tournament goes on. Cleared only by a restart (which refolds).
    failed: dict[str, str] = field(default_factory=dict)
    # Ids of unreadable records whose seq the bytes did not say (Kafka poison), folded at
    # their stream's next seq: a redelivery of one is recognised by its id.
    _positioned: set[tuple[str, UUID]] = field(default_factory=set)
    # Per tournament, the main stage's standings advanced result by result (issue 11 item 4):
    # it folds `states[tid]` itself and ranks only what a result can change.
    _incremental: dict[str, IncrementalStandings] = field(default_factory=dict)
    # Per tournament, the projections the events folded since its last `messages()` can
    # change (`projections.documents.changed_by`: a move or a clock, the games document
    # alone); None or absent: all of them.
    _changed: dict[str, set[str] | None] = field(default_factory=dict)

    def _standings(self, tournament_id: str) -> IncrementalStandings:
        """The tournament's incremental standings over `states[tournament_id]` (a new one, from
        a full ranking, if that state was replaced from outside)."""
        state = self.states.get(tournament_id)
        if state is None:  # (not setdefault: that would build a state for every event)
            state = self.states[tournament_id] = StandingsState()
        inc = self._incremental.get(tournament_id)
        if inc is None or inc.state is not state:
            inc = self._incremental[tournament_id] = IncrementalStandings("main", state)
        return inc

    def apply(self, env: Envelope) -> bool:
        """Fold one event. False for a redelivery (seq already folded); raises GapDetected for
        a seq beyond the next one. An unreadable event is folded as `Unreadable`: it holds
        its tournament (see `held`), never the others."""
        inc = self._standings(env.tournament_id)
        state = inc.state
        if isinstance(env, UnreadableEnvelope) and env.seq == 0:
            # A record whose bytes do not even say its seq stands at its stream's next seq
            # (a stream's records are its seqs in log order).
            key = (env.tournament_id, env.event_id)
            if key in self._positioned:
                self.duplicates += 1
                return False
            self._positioned.add(key)
            env = env.model_copy(update={"seq": state.seq + 1})
        if env.seq <= state.seq:
            self.duplicates += 1
            return False
        if env.seq != state.seq + 1:
            raise GapDetected(env.tournament_id, state.seq + 1, env.seq)
        rec = Recorded.of(env)
        if rec.unreadable:
            log.error(
                "%s seq %d (event %s) cannot be read: %s; its projections are held until an "
                "admin retracts it",
                env.tournament_id,
                env.seq,
                env.event_id,
                getattr(rec.event, "reason", ""),
            )
        inc.apply(rec)  # folds `state` (as `evolve` does) and notes what the result changed
        tid = env.tournament_id
        can_change = None if rec.unreadable else changed_by(rec.event, state)
        if can_change is None:
            self._changed[tid] = None
        elif tid not in self._changed:
            self._changed[tid] = set(can_change)
        elif (so_far := self._changed[tid]) is not None:
            so_far.update(can_change)
        return True

    def mark_all_changed(self, tournament_id: str) -> None:
        """The next `messages()` of this tournament builds every document (its state was
        replaced from outside, or a caller wants them all compared)."""
        self._changed[tournament_id] = None

    def held(self) -> dict[str, dict[str, Any]]:
        """Tournaments whose projections are not being published, and why: the first stored
        event that cannot be read (seq, event id to retract, type, reason), or a failure."""
        out: dict[str, dict[str, Any]] = {}
        for tid, state in self.states.items():
            if state.unreadable:
                eid, (seq, type_, reason) = min(state.unreadable.items(), key=lambda kv: kv[1][0])
                out[tid] = {
                    "reason": "unreadable_event",
                    "seq": seq,
                    "event_id": str(eid),
                    "type": type_,
                    "detail": reason,
                    "unreadable": len(state.unreadable),
                    "remedy": f"an admin retracts it: EventRetracted retracted_event_id={eid}",
                }
        for tid, error in self.failed.items():
            out[tid] = {"reason": "projection_failed", "detail": error}
        return out

    def messages(self, tournament_id: str) -> list[Message]:
        """The messages whose data changed since the last publication for this tournament.
        None while the tournament is held by an unreadable event."""
        state = self.states.get(tournament_id)
        changed = self._changed.pop(tournament_id, None)
        if state is None or state.created is None or state.unreadable:
            return []
        # Only this processor's projections, and of those only what the events since the last
        # call can change (a move: the games document; its table is not even ranked).
        only = set(self.projections) if changed is None else changed & set(self.projections)
        if not only:
            return []
        out = []
        table = self._standings(tournament_id).table() if only - {"games"} else None
        for name, doc in documents(state, tournament_id, table, only).items():
            data = dumps(doc["data"])
            if self.published.get((tournament_id, name)) == data:
                continue
            self.published[(tournament_id, name)] = data
            out.append(Message(tournament_id, name, state.seq, dumps(doc)))
        return out

    def run(self, envelopes: Iterable[Envelope]) -> list[Message]:
        """Fold a batch, then publish once per touched tournament (batching: the state after
        the batch is what is published)."""
        touched: list[str] = []
        for env in envelopes:
            tid = env.tournament_id
            if tid in self.failed:
                continue
            try:
                if self.apply(env) and tid not in touched:
                    touched.append(tid)
            except GapDetected:
                raise
            except Exception as exc:
                self.fail(tid, f"folding seq {env.seq}: {type(exc).__name__}: {exc}")
        out: list[Message] = []
        for tid in touched:
            if tid in self.failed:
                continue
            try:
                out.extend(self.messages(tid))
            except Exception as exc:
                self.fail(tid, f"building its projections: {type(exc).__name__}: {exc}")
        return out

    def snapshot(self, tournament_id: str) -> dict[str, bytes]:
        """The whole messages (one per projection) of a tournament as of what was folded (an
        auditor's replay): the bytes the live feed published at that seq. Empty before its creation
        and while it is held by an unreadable event (nothing was published then)."""
        state = self.states.get(tournament_id)
        if state is None or state.created is None or state.unreadable:
            return {}
        table = self._standings(tournament_id).table()
        return {name: dumps(doc) for name, doc in documents(state, tournament_id, table).items()}

    # -- snapshots (services/projection/processors/snapshots.py: a processor's restart without
    # replay) --

    def export_tournament(self, tournament_id: str) -> tuple[StandingsState, list[UUID]]:
        """What a snapshot of one tournament holds: its fold state and the ids of the
        unreadable records placed at a seq (redeliveries of them are recognised by id)."""
        ids = sorted(str(e) for t, e in self._positioned if t == tournament_id)
        return self.states[tournament_id], [UUID(e) for e in ids]

    def restore_tournament(
        self, tournament_id: str, state: StandingsState, positioned: Iterable[UUID]
    ) -> None:
        """Install a tournament's state read back from a snapshot (its incremental standings
        are rebuilt from it by a full ranking on first use)."""
        self.states[tournament_id] = state
        self._incremental.pop(tournament_id, None)
        self.mark_all_changed(tournament_id)
        self._positioned.update((tournament_id, e) for e in positioned)

    def forget(self, which: Callable[[str], bool]) -> None:
        """Drop everything held for the tournaments `which` selects (a processor whose
        partition moved to another worker of its group)."""
        for tid in [t for t in self.states if which(t)]:
            del self.states[tid]
        for tid in [t for t in self._incremental if which(t)]:
            del self._incremental[tid]
        for tid in [t for t in self.failed if which(t)]:
            del self.failed[tid]
        self.published = {k: v for k, v in self.published.items() if not which(k[0])}
        self._positioned = {k for k in self._positioned if not which(k[0])}

    def fail(self, tournament_id: str, error: str) -> None:
        self.failed[tournament_id] = error[:500]
        log.exception("%s held: %s", tournament_id, error)


def replay(envelopes: Iterable[Envelope], tournament_id: str) -> dict[str, bytes]:
    """The messages (one per projection) for a tournament as of the last envelope given
    (auditor replay)."""
    projector = Projector()
    for env in envelopes:
        if env.tournament_id == tournament_id:
            projector.apply(env)
    return projector.snapshot(tournament_id)
