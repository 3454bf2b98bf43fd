"""The production event log on Apache Kafka.

Layout: one topic (default `arbiter.events`), keyed by tournament id, so all of a tournament's
events live in one partition, in order. Infinite retention (`retention.ms=-1`). Created with
kafka-python's admin client.

The package, along its seams:

- `clients.py`: what every client shares (settings, the partitioner, a record's decode,
  `KafkaUnavailable`);
- `admin.py`: topic admin (replication factor, durability and size settings, creating the
  events topic);
- `partition.py`: one partition's offset index and writer state in this process;
- `reader.py`: the indexed reader (catch-up of the index, `read`, `read_all`, `find`, ...);
- `writer.py`: the group-commit writer (the fenced single writer per partition, and the
  groups it commits in one transaction each);
- `subscription.py`: the tail;
- `log.py`: `KafkaEventLog`, the reader and the writer over the topic.
- `ownership.py`: with `ARBITER_KAFKA_OWNERSHIP=group`, which API process writes which
  partition (a consumer group over the events topic); `log.py` forwards the others' appends.

Writers must all use `KafkaEventLog` (a producer that writes to the topic outside the writer's
protocol would break its guarantee). On Kafka, event-id idempotency is checked within the
stream's partition (event ids are UUIDs); SQLite checks it globally.

When the cluster cannot be reached, has no leader for the partition or too few in-sync
replicas, calls raise `EventLogUnavailable` (HTTP 503) in bounded time: reads after
`READ_TIMEOUT_S` without progress, appends once `APPEND_TIMEOUT_S` (retries included) has
passed. An append that raised `EventLogUnavailable` after its commit was sent
(`maybe_committed`) may still land: resending the same event ids is safe.
"""

from __future__ import annotations

from services.eventlog.kafka.admin import (
    MESSAGE_HEADROOM,
    create_topic,
    durability_configs,
    events_topic_configs,
    replication_factor_for,
)
from services.eventlog.kafka.clients import (
    API_VERSION,
    KafkaUnavailable,
    client_options,
    decode_record,
    partition_for,
)
from services.eventlog.kafka.log import KafkaEventLog
from services.eventlog.kafka.reader import spans
from services.eventlog.kafka.writer import DEFAULT_GROUP_COMMIT_MS, DEFAULT_GROUP_MAX_EVENTS

__all__ = [
    "API_VERSION",
    "DEFAULT_GROUP_COMMIT_MS",
    "DEFAULT_GROUP_MAX_EVENTS",
    "MESSAGE_HEADROOM",
    "KafkaEventLog",
    "KafkaUnavailable",
    "client_options",
    "create_topic",
    "decode_record",
    "durability_configs",
    "events_topic_configs",
    "partition_for",
    "replication_factor_for",
    "spans",
]
