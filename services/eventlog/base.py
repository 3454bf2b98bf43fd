"""One event-log interface, two backends (embedded SQLite, Apache Kafka).

Semantics every backend must keep (tests/conformance checks them on both):
- `append` is atomic for a batch: all events or none.
- `seq` is per stream (tournament or series), 1-based and gapless; the log assigns it, and the
  hash chain (`prev_hash` -> `hash`) with it.
- `expected_seq`, when given, must equal the stream's last seq, else `AppendConflict`.
- Idempotent on `event_id`: a batch whose events are all stored already (same stream, type,
  version and payload) returns the stored envelopes and appends nothing; an `event_id` reused
  for different content is refused with `EventIdConflict`.
- `read` returns a stream in seq order; `read_all` every stream, each in seq order.
- `subscribe` tails events appended after it started (or from the beginning).
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from events_schema import Actor, Envelope, seal
from events_schema.codec import dumps
from events_schema.envelope import envelope_from_bytes
from events_schema.limits import DEFAULT_LIMITS, Limits
from events_schema.registry import decode


@dataclass(frozen=True)
class NewEvent:
    """An event to append: the log gives it its seq, recorded_at and place in the hash chain."""

    event_id: UUID
    type: str
    schema_version: int
    occurred_at: datetime
    actor: Actor
    payload: dict[str, Any]
    causation_id: UUID | None = None
    correlation_id: UUID | None = None

    def digest(self, tournament_id: str) -> str:
        """What makes a redelivery the same event: stream, type, version and payload."""
        return content_digest(tournament_id, self.type, self.schema_version, self.payload)

    def sealed(
        self, tournament_id: str, seq: int, prev_hash: str, recorded_at: datetime
    ) -> Envelope:
        return seal(
            event_id=self.event_id,
            tournament_id=tournament_id,
            seq=seq,
            type=self.type,
            schema_version=self.schema_version,
            occurred_at=self.occurred_at,
            recorded_at=recorded_at,
            actor=self.actor,
            causation_id=self.causation_id,
            correlation_id=self.correlation_id,
            payload=self.payload,
            prev_hash=prev_hash,
        )


def content_digest(tournament_id: str, type_: str, version: int, payload: dict[str, Any]) -> str:
    body = {"t": tournament_id, "type": type_, "v": version, "payload": payload}
    return hashlib.sha256(dumps(body)).hexdigest()


def utcnow() -> datetime:
    return datetime.now(UTC)


class EventLogError(Exception):
    """Base of the refusals an event log gives; nothing was appended."""

    rule = "eventlog"
    field = "events"

    def as_dict(self) -> dict[str, str]:
        return {"rule": self.rule, "field": self.field, "message": str(self)}


class AppendConflict(EventLogError):
    rule = "concurrency.expected_seq"
    field = "expected_seq"

    def __init__(self, tournament_id: str, expected: int, actual: int) -> None:
        super().__init__(
            f"{tournament_id}: expected last seq {expected}, but it is {actual} "
            "(another writer appended first; re-read and retry)"
        )
        self.tournament_id = tournament_id
        self.expected = expected
        self.actual = actual


class EventIdConflict(EventLogError):
    rule = "idempotency.event_id_reused"
    field = "event_id"


class EventLogUnavailable(EventLogError):
    """The log cannot be reached or did not answer in time (HTTP 503 with Retry-After).
    Usually nothing was appended by the failed call (a Kafka transaction that did not commit
    is aborted or fenced; SQLite rolled back). On Kafka an append that timed out after sending
    its commit (`maybe_committed`) may still land: resending the same event ids is safe (it
    then comes back as a duplicate)."""

    rule = "eventlog.unavailable"
    field = ""
    retry_after = 5


class ForwardUnanswered(EventLogUnavailable):
    """An append sent to the process that writes its stream was not answered (that process
    died or stalled): it may have been appended there (`maybe_committed`); a resend with
    the same event ids is found if it was."""

    maybe_committed = True


class UnreadableOnWrite(EventLogError):
    """A sealed envelope did not read back as itself with the readers' own decoder: it is
    refused rather than stored (nothing is stored that cannot be read back)."""

    rule = "eventlog.unreadable_on_write"


def encode_checked(sealed: Sequence[Envelope], limits: Limits) -> list[bytes]:
    """The stored bytes of a batch of sealed envelopes, after checking that every one is
    within the limits (`LimitExceeded`, 413) and decodes back, with the decoder every reader
    uses, to the same envelope and a valid typed event (`UnreadableOnWrite`). Both logs call
    this just before they commit, so the two refuse exactly the same batches."""
    return encode_read_back(sealed, limits)[0]


def encode_read_back(
    sealed: Sequence[Envelope], limits: Limits
) -> tuple[list[bytes], list[Envelope]]:
    """`encode_checked`, with the envelopes its check decoded from the bytes: what a reader
    of those bytes gets (`read_envelope`), handed to this process's tail without reading the
    rows back (services/eventlog/sqlite.py)."""
    out = [env.to_bytes() for env in sealed]
    limits.check_envelope_bytes(len(b) for b in out)
    backs: list[Envelope] = []
    for i, (env, body) in enumerate(zip(sealed, out, strict=True)):
        try:
            back = envelope_from_bytes(body)
            decode(back)
        except Exception as exc:
            raise UnreadableOnWrite(
                f"commands[{i}]: the sealed {env.type} would not decode back ({exc}); "
                "nothing was stored"
            ) from None
        if back != env:
            raise UnreadableOnWrite(
                f"commands[{i}]: the sealed {env.type} decodes to a different value; "
                "nothing was stored"
            )
        backs.append(back)
    return out, backs


@dataclass
class AppendResult:
    envelopes: list[Envelope]
    duplicate: bool = False  # True: every event was stored already; nothing was appended
    # The stored bytes of `envelopes` (`Envelope.to_bytes`), when the log has them at hand:
    # the API answers with them as they are instead of serialising the envelopes again.
    bodies: list[bytes] | None = field(default=None, compare=False, repr=False)

    @property
    def last_seq(self) -> int:
        return self.envelopes[-1].seq if self.envelopes else 0


@dataclass(frozen=True)
class StoredRow:
    """One stored record as the storage keeps it: its own columns (what the log indexes the
    record by) next to the stored bytes. `seq` is the column's value as read, whatever type a
    hand edit left there; a column the storage does not keep is None."""

    body: bytes | None
    seq: object = None
    event_id: str | None = None
    hash: str | None = None


@dataclass
class Subscription(ABC):
    """A tail of the log: `poll` returns the next events (possibly none) within `timeout`."""

    closed: bool = field(default=False, init=False)

    @abstractmethod
    def poll(self, timeout: float = 1.0, max_events: int = 10_000) -> list[Envelope]: ...

    def close(self) -> None:
        self.closed = True

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class EventLog(ABC):
    backend: str = "?"
    #: Bounds checked on every append (`encode_checked`); a backend may be given others.
    limits: Limits = DEFAULT_LIMITS

    @abstractmethod
    def append(
        self, tournament_id: str, events: Sequence[NewEvent], expected_seq: int | None = None
    ) -> AppendResult: ...

    @abstractmethod
    def read(
        self, tournament_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> Iterator[Envelope]: ...

    @abstractmethod
    def read_all(self) -> Iterator[Envelope]: ...

    @abstractmethod
    def last_seq(self, tournament_id: str) -> int: ...

    @abstractmethod
    def find(self, event_id: UUID, tournament_id: str | None = None) -> Envelope | None:
        """The stored event with this id, if any (the idempotency check before deciding).
        With `tournament_id`, a backend may look only where that stream lives."""

    @abstractmethod
    def stream_ids(self) -> list[str]: ...

    @abstractmethod
    def subscribe(self, from_beginning: bool = False) -> Subscription: ...

    def close(self) -> None:  # noqa: B027 - optional hook
        pass

    def __enter__(self) -> EventLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def reused_id_message(event_id: UUID, tournament_id: str, stored: Envelope) -> str:
    """The refusal of a reused event id. It names the stored event only when it is in the
    caller's own stream: a caller scoped to one tournament learns nothing of another."""
    if stored.tournament_id == tournament_id:
        return (
            f"event_id {event_id} is already stored as {tournament_id}#{stored.seq} "
            f"({stored.type}) with different content; use a fresh event_id"
        )
    return f"event_id {event_id} is already used by another event; use a fresh event_id"


def check_duplicates(
    tournament_id: str, events: Sequence[NewEvent], stored: dict[UUID, tuple[str, Envelope]]
) -> AppendResult | None:
    """Shared idempotency rule. `stored` maps the batch's already-stored event ids to
    (digest, envelope). Returns the stored result for a pure redelivery, None for a fresh
    batch, and raises for a reused id or a batch that is only partly stored."""
    ids = [e.event_id for e in events]
    if len(set(ids)) != len(ids):
        raise EventIdConflict("the batch uses the same event_id twice")
    if not stored:
        return None
    for e in events:
        hit = stored.get(e.event_id)
        if hit is not None and (
            hit[1].tournament_id != tournament_id or hit[0] != e.digest(tournament_id)
        ):
            raise EventIdConflict(reused_id_message(e.event_id, tournament_id, hit[1]))
    if len(stored) != len(events):
        raise EventIdConflict(
            "part of this batch is stored already (event ids "
            + ", ".join(str(i) for i in stored)
            + "); resend exactly the original batch or use fresh ids"
        )
    return AppendResult([stored[e.event_id][1] for e in events], duplicate=True)
