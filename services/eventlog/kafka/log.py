"""`KafkaEventLog`: the production event log on Apache Kafka, composed of the indexed reader
(`reader.py`) and the group-commit writer (`writer.py`) over the events topic (`admin.py`)."""

from __future__ import annotations

import contextlib
import threading

from kafka import TopicPartition
from kafka.errors import KafkaConfigurationError, KafkaError

from events_schema.limits import Limits
from services.eventlog.base import EventLog, Subscription
from services.eventlog.kafka.admin import open_events_topic
from services.eventlog.kafka.clients import KafkaUnavailable
from services.eventlog.kafka.partition import Partition
from services.eventlog.kafka.subscription import KafkaSubscription
from services.eventlog.kafka.writer import (
    DEFAULT_GROUP_COMMIT_MS,
    DEFAULT_GROUP_MAX_EVENTS,
    GroupCommitWriter,
)


class KafkaEventLog(GroupCommitWriter, EventLog):
    """The event log on one Kafka topic (see the package docstring)."""

    backend = "kafka"

    def __init__(
        self,
        bootstrap: str,
        topic: str = "arbiter.events",
        partitions: int = 8,
        client_id: str = "arbiter",
        replication_factor: int | None = None,
        limits: Limits | None = None,
        group_commit_ms: float = DEFAULT_GROUP_COMMIT_MS,
        group_max_events: int = DEFAULT_GROUP_MAX_EVENTS,
    ) -> None:
        self.bootstrap = bootstrap
        if group_commit_ms < 0 or group_max_events < 1:
            raise ValueError("group_commit_ms must be >= 0 and group_max_events >= 1")
        self.group_window_s = group_commit_ms / 1000
        self.group_max_events = group_max_events
        self._closed = False
        self.topic = topic
        self.client_id = client_id
        if limits is not None:
            self.limits = limits
        try:
            found, self.replication_factor = open_events_topic(
                bootstrap,
                client_id,
                topic,
                partitions,
                replication_factor,
                self.limits,
                self.READ_TIMEOUT_S,
            )
        except KafkaConfigurationError:
            raise
        except KafkaError as exc:
            raise KafkaUnavailable(f"kafka at {bootstrap}: cannot open {topic}: {exc}") from exc
        self._reader = self._consumer(f"{client_id}-reader")
        self._reader_lock = threading.RLock()
        self._seeker = None
        self.fetch_rounds = 0
        self.partitions = found or partitions
        self._parts = [Partition(n) for n in range(self.partitions)]
        self._tps = [TopicPartition(topic, n) for n in range(self.partitions)]

    def subscribe(self, from_beginning: bool = False) -> Subscription:
        return KafkaSubscription(
            self.bootstrap, self.client_id, self._tps, self.READ_TIMEOUT_S, from_beginning
        )

    def close(self) -> None:
        """Stop the committers (the groups under way finish; appends still queued are
        refused, nothing of them appended), then the producers and the reader."""
        with contextlib.suppress(AttributeError):  # a log whose __init__ failed
            self._closed = True
            for part in self._parts:
                with part.cond:
                    part.closing = True
                    part.cond.notify_all()
            for part in self._parts:
                if part.committer is not None:
                    part.committer.join(timeout=self.APPEND_TIMEOUT_S + self.VISIBLE_TIMEOUT_S)
                self._drop_writer(part)
                if part.watcher is not None:
                    part.watcher.close()
                    part.watcher = None
            self._reader.close()
            if self._seeker is not None:
                self._seeker.close()
