"""The replay benchmark's second peer (issue 27 item 7): pyeventsourcing's notification
projection over the same events.

pyeventsourcing (`eventsourcing` on PyPI, a dev dependency) stores an application's domain
events in its application recorder, each with a notification id: the application's
notification log, which a projection follows in order. Its SQLite recorder does not support
subscriptions (its `ProjectionRunner` needs one: POPO or PostgreSQL), so on SQLite the
projection pulls the log, the way its `NotificationLogReader.select` does, in sections.

Built here:

- the same events the replay benchmark appends to Arbiter's log (`replay.generate`, same
  seed), each stored as a domain event of one aggregate per tournament (`Stream.Recorded`:
  `type`, `schema_version`, `occurred_at`, `actor` and `payload`, the payload dict as it is),
  through `Application.save` (its mapper: the JSON transcoder; its SQLite application
  recorder: one row per event with its notification id), in the same batches;
- timed: a `NotificationLogReader` over `app.notification_log` selecting every notification
  in sections of `SECTION` (as Arbiter's reader reads its rows), each mapped back to its domain
  event by the application's own mapper (`mapper.to_domain_event`: JSON decode, the event
  object), then folded by a trivial fold (events per type, last version per aggregate).

The peer does less than Arbiter's replay on purpose: no validation of the payload, no hash
chain, no documents; it is the floor an event-sourced Python library reaches.
"""

from __future__ import annotations

import time
import uuid
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate
from eventsourcing.system import NotificationLogReader

SECTION = 500  # notifications per select (Arbiter's replay bench appends in batches of 500)


class Stream(Aggregate):
    """One tournament's stream: each Arbiter event one `Recorded` domain event."""

    def __init__(self, name: str) -> None:
        self.name = name

    class Recorded(Aggregate.Event):
        type: str
        schema_version: int
        occurred_at: str
        actor: dict[str, Any]
        payload: dict[str, Any]

        def apply(self, aggregate: Aggregate) -> None:
            pass

    def record(self, e: Any) -> None:
        self.trigger_event(
            self.Recorded,
            type=e.type,
            schema_version=e.schema_version,
            occurred_at=e.occurred_at.isoformat(),
            actor={"id": e.actor.id, "role": e.actor.role},
            payload=e.payload,
        )


class Tournaments(Application[uuid.UUID]):
    log_section_size = SECTION


class _Sink:
    """What `replay.generate` appends to: each batch saved through the application."""

    def __init__(self, app: Tournaments) -> None:
        self.app = app
        self.streams: dict[str, Stream] = {}

    def append(self, tournament_id: str, batch: Sequence[Any]) -> None:
        stream = self.streams.get(tournament_id)
        if stream is None:
            stream = self.streams[tournament_id] = Stream(tournament_id)
        for e in batch:
            stream.record(e)
        self.app.save(stream)

    def last_seq(self, tournament_id: str) -> int:
        stream = self.streams.get(tournament_id)
        return stream.version if stream is not None else 0


def open_app(path: Path) -> Tournaments:
    return Tournaments(
        env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)}
    )


def store(app: Tournaments, generate: Any, events: int) -> dict[str, Any]:
    """Save `events` events (`generate(sink, events)`, the replay bench's generator), in the
    same batches. Each tournament's aggregate adds one `Created` event of its own: stored
    notifications too, which the projection folds like any other."""
    from importlib.metadata import version

    sink = _Sink(app)
    t = time.perf_counter()
    generate(sink, events)
    return {
        "library": f"eventsourcing {version('eventsourcing')}",
        "recorder": "eventsourcing.sqlite (SQLiteApplicationRecorder), JSON transcoder",
        "aggregates": len(sink.streams),
        "store_s": round(time.perf_counter() - t, 1),
    }


def project(app: Tournaments) -> tuple[int, dict[str, int]]:
    """The notification projection: every notification in order, mapped to its domain event,
    folded. Returns (events folded, events per type)."""
    reader = NotificationLogReader(app.notification_log, section_size=SECTION)
    to_event = app.mapper.to_domain_event
    per_type: Counter[str] = Counter()
    last: dict[uuid.UUID, int] = {}
    n = 0
    for section in reader.select(start=1):
        for notification in section:
            e = to_event(notification)
            per_type[getattr(e, "type", type(e).__name__)] += 1
            last[e.originator_id] = e.originator_version
            n += 1
    return n, dict(per_type)
