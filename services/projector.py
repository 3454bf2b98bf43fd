"""Folding the event stream into the published projections, idempotent by (tournament, seq).

One `Projector` per process: the Kafka processors, the embedded runner and `arbiter replay`
all fold through it, and all build messages with `projections.documents.documents`, so a
replay to a seq reproduces, byte for byte, what was published at that seq.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from events_schema import Envelope, Recorded
from events_schema.codec import dumps
from projections.documents import PROJECTIONS, documents
from projections.standings.state import StandingsState, evolve


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


@dataclass
class Projector:
    projections: Sequence[str] = PROJECTIONS
    states: dict[str, StandingsState] = field(default_factory=dict)
    # The data part last published per (tournament, projection): unchanged data is not
    # published again.
    published: dict[tuple[str, str], bytes] = field(default_factory=dict)
    duplicates: int = 0

    def apply(self, env: Envelope) -> bool:
        """Fold one event. False for a redelivery (seq already folded); raises GapDetected for
        a seq beyond the next one."""
        state = self.states.setdefault(env.tournament_id, StandingsState())
        if env.seq <= state.seq:
            self.duplicates += 1
            return False
        if env.seq != state.seq + 1:
            raise GapDetected(env.tournament_id, state.seq + 1, env.seq)
        evolve(state, Recorded.of(env))
        return True

    def messages(self, tournament_id: str) -> list[Message]:
        """The messages whose data changed since the last publication for this tournament."""
        state = self.states.get(tournament_id)
        if state is None or state.created is None:
            return []
        out = []
        for name, doc in documents(state, tournament_id).items():
            if name not in self.projections:
                continue
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
            if self.apply(env) and env.tournament_id not in touched:
                touched.append(env.tournament_id)
        return [m for tid in touched for m in self.messages(tid)]


def replay(envelopes: Iterable[Envelope], tournament_id: str) -> dict[str, bytes]:
    """The four messages for a tournament as of the last envelope given (auditor replay)."""
    projector = Projector()
    for env in envelopes:
        if env.tournament_id == tournament_id:
            projector.apply(env)
    state = projector.states.get(tournament_id)
    if state is None:
        return {}
    return {name: dumps(doc) for name, doc in documents(state, tournament_id).items()}
