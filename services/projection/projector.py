"""Folding the event stream into the published projections, idempotent by (tournament, seq).

One `Projector` per process: the Kafka processors, the embedded runner and `arbiter replay`
all fold through it, and all build messages with `projections.documents.documents`, so a
replay to a seq reproduces, byte for byte, what was published at that seq.

A publication builds only what the events since the last one can change (issue 27 item 3):
each folded event adds the documents `projections.documents.affected` says it can change to
its tournament's `_dirty` set (a move or a clock reading: the games document only), and
`messages()` builds and serialises those alone (and only the projections this projector
publishes: a Kafka processor builds its own document); every other document's data is known
to be the bytes last published. A tournament seen for the first time, restored from a
snapshot or whose fold was replaced from outside is dirty in full, and so is a document whose
published bytes were set from outside (a processor reading its output topic back). In the games
document a move changes one game's part: the others' canonical bytes are reused as they are
(`orjson.Fragment`), so a move serialises one board, not one per board. With
`selective=False` every publication builds every document (the reference the property test
`tests/unit/services/projection/test_projector_selective.py` compares with, event by event).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import orjson

from events_schema import Envelope, Recorded
from events_schema.codec import dumps
from events_schema.envelope import UnreadableEnvelope
from projections.documents import GAMES, TABLE_READERS, affected, documents
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


def message_bytes(doc: dict[str, Any], data: bytes) -> bytes:
    """`dumps(doc)`, its `data` already serialised as `data` (the document is serialised once):
    canonical JSON sorts the keys, so the message is the keys before "data", the data's bytes,
    then the keys after it."""
    before = dumps({k: v for k, v in doc.items() if k < "data"})
    after = dumps({k: v for k, v in doc.items() if k > "data"})
    return b"".join(
        (
            before[:-1],
            b"," if len(before) > 2 else b"",
            b'"data":',
            data,
            b"," if len(after) > 2 else b"",
            after[1:],
        )
    )


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
    # False: every publication builds every document (the full rebuild, for comparison).
    selective: bool = True
    # Per tournament, the documents the events folded since its last publication can change
    # (`projections.documents.affected`); a tournament not here: every document.
    _dirty: dict[str, set[str]] = field(default_factory=dict)
    # The data bytes last built per (tournament, projection), the very object `published`
    # holds: another object there (set from outside) makes the document dirty.
    _built: dict[tuple[str, str], bytes] = field(default_factory=dict)
    # Per tournament, the games whose moves or clocks changed since its games document was
    # last built, when nothing else did (`affected` is `GAMES` for each event since); a
    # tournament not here: any game may have changed.
    _games_touched: dict[str, set[str]] = field(default_factory=dict)
    # Per tournament, the parts of the games document last serialised (its `pairings`) and
    # their canonical bytes: `projections.live` keeps a game's part, the same object, while
    # its facts are unchanged, so a move re-encodes its own game's part only.
    _part_bytes: dict[str, tuple[list[dict[str, Any]], list[orjson.Fragment]]] = field(
        default_factory=dict
    )

    def _standings(self, tournament_id: str) -> IncrementalStandings:
        """The tournament's incremental standings over `states[tournament_id]` (a new one, from
        a full ranking, if that state was replaced from outside)."""
        state = self.states.get(tournament_id)
        if state is None:  # (not setdefault: that would build a state for every event)
            state = self.states[tournament_id] = StandingsState()
        inc = self._incremental.get(tournament_id)
        if inc is None or inc.state is not state:
            inc = self._incremental[tournament_id] = IncrementalStandings("main", state)
            self._dirty.pop(tournament_id, None)  # a new fold: every document
            self._games_touched.pop(tournament_id, None)
        return inc

    def apply(self, env: Envelope) -> bool:
        """Fold one event. False for a redelivery (seq already folded); raises GapDetected for
        a seq beyond the next one. An unreadable event is folded as `Unreadable`: it holds
        its tournament (see `held`), never the others."""
        inc = self._standings(env.tournament_id)
        state = inc.state
        if env.__class__ is UnreadableEnvelope and env.seq == 0:  # (see `Recorded.of`)
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
        if self.selective:
            # What the event can change, read on the fold before it (a tournament not in
            # `_dirty` is dirty in full already). A projector that is not selective builds
            # every document at each publication and needs none of this (a replay: issue 27).
            tid = env.tournament_id
            kinds = affected(rec.event, state)
            dirty = self._dirty.get(tid)
            if dirty is not None:
                dirty.update(kinds)
            touched = self._games_touched.get(tid)
            if kinds is GAMES:
                if touched is not None:
                    touched.add(rec.event.game_id)  # type: ignore[attr-defined]
            elif kinds:
                self._games_touched.pop(tid, None)
        inc.apply(rec)  # folds `state` (as `evolve` does) and notes what the result changed
        return True

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
        None while the tournament is held by an unreadable event. Only the documents the
        events folded since the last publication can change are built (`_dirty`)."""
        state = self.states.get(tournament_id)
        if state is None or state.created is None or state.unreadable:
            return []
        inc = self._standings(tournament_id)
        dirty = self._dirty.get(tournament_id)
        published, built = self.published, self._built
        wanted = [
            name
            for name in self.projections
            if not self.selective
            or dirty is None
            or name in dirty
            or published.get(key := (tournament_id, name)) is not built.get(key)
        ]
        if not wanted:
            self._dirty[tournament_id] = set()
            return []
        table = inc.table() if TABLE_READERS.intersection(wanted) else None
        touched = self._games_touched.get(tournament_id) if self.selective else None
        out = []
        for name, doc in documents(state, tournament_id, table, wanted, touched).items():
            key = (tournament_id, name)
            body = doc["data"]
            data = dumps(self._encoded_games(tournament_id, body) if name == "games" else body)
            if self.published.get(key) == data:
                self._built[key] = self.published[key]
                continue
            self.published[key] = self._built[key] = data
            out.append(Message(tournament_id, name, state.seq, message_bytes(doc, data)))
        self._dirty[tournament_id] = set()
        if "games" in wanted:
            self._games_touched[tournament_id] = set()
        return out

    def _encoded_games(self, tournament_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """The games document's data with each game's part as its canonical bytes
        (`orjson.Fragment`, written as they are: `dumps` of the result is `dumps(body)`); a part
        that is the very object at its place in the document last serialised keeps its bytes."""
        pairings = body.get("pairings")
        if not pairings:
            return body
        held = self._part_bytes.get(tournament_id)
        if held is not None and len(held[0]) == len(pairings):
            encoded = [
                was if part is last else orjson.Fragment(dumps(part))
                for part, last, was in zip(pairings, held[0], held[1], strict=True)
            ]
        else:
            encoded = [orjson.Fragment(dumps(part)) for part in pairings]
        # (the parts are held, so no other object can take an identity compared above)
        self._part_bytes[tournament_id] = (list(pairings), encoded)
        return {**body, "pairings": encoded}

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
        self._dirty.pop(tournament_id, None)  # every document built at its next publication
        self._games_touched.pop(tournament_id, None)
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
        for tid in [t for t in self._dirty if which(t)]:
            del self._dirty[tid]
        for tid in [t for t in self._games_touched if which(t)]:
            del self._games_touched[tid]
        for tid in [t for t in self._part_bytes if which(t)]:
            del self._part_bytes[tid]
        self.published = {k: v for k, v in self.published.items() if not which(k[0])}
        self._built = {k: v for k, v in self._built.items() if not which(k[0])}
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
