"""What every Kafka client of the event log shares: the client settings, the partitioner, the
decode of a record, and `KafkaUnavailable`."""

from __future__ import annotations

from typing import Any

from kafka.partitioner.default import murmur2

from events_schema import Envelope
from events_schema.envelope import read_envelope
from services.eventlog.base import EventLogUnavailable

#: The broker version the clients assume (deploy/kafka/pom.xml). Given, so that no client
#: probes the cluster when it is created (a probe against a dead cluster blocks for 30 s); each
#: connection still negotiates the versions the broker supports, this only caps them.
API_VERSION = (3, 9)


def client_options(bootstrap: str, client_id: str, request_timeout_s: float) -> dict[str, Any]:
    """Settings every client of the log shares: no probing at start, bounded requests, a
    short reconnect backoff, so that a broker that comes back is used again within a second
    (kafka-python backs off up to 30 s by default), and metadata at most 5 s old:
    kafka-python 3.0's `end_offsets` retries a NOT_LEADER_OR_FOLLOWER answer without
    refreshing its metadata (the Java client's KAFKA-9535), so after a leader moved it would
    keep asking the old leader until the metadata expires (5 minutes by default)."""
    return {
        "bootstrap_servers": bootstrap,
        "client_id": client_id,
        "api_version": API_VERSION,
        "request_timeout_ms": int(request_timeout_s * 1000),
        "reconnect_backoff_max_ms": 1000,
        "metadata_max_age_ms": 5000,
    }


class KafkaUnavailable(EventLogUnavailable):
    """`EventLogUnavailable` from the Kafka log. `maybe_committed`: the failed append had sent
    its commit and the cluster did not say whether it took it; the batch may still appear
    (resend the same event ids: it then comes back as a duplicate). False: nothing of it was
    stored."""

    def __init__(self, message: str, maybe_committed: bool = False) -> None:
        super().__init__(message)
        self.maybe_committed = maybe_committed


def partition_for(tournament_id: str, partitions: int) -> int:
    """The Java client's default partitioner (murmur2 of the key), so every client agrees."""
    return int(murmur2(tournament_id.encode()) & 0x7FFFFFFF) % partitions


def decode_record(key: bytes | None, value: bytes) -> Envelope:
    """A reader's decode of an events-topic record (never raises, see `read_envelope`): the
    record's key names the tournament when the bytes cannot. An unreadable record whose
    bytes do not say its seq gets seq 0: the fold counts it as its stream's next event."""
    return read_envelope(value, tournament_id=key.decode(errors="replace") if key else None)
