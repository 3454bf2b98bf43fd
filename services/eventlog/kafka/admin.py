"""Topic admin: the events topic's settings (replication, durability, record size), creating
a topic, and opening the events topic (created when missing).

Replication and availability (deploy/README.md): the topic is created with replication factor
min(3, brokers in the cluster) unless given (`replication_factor`; services/config.py reads
`ARBITER_KAFKA_REPLICATION`),
`min.insync.replicas` 2 from replication factor 3 on, and `max.message.bytes` from the limits
(`max_event_bytes` + 64 KiB, the producer's `max_request_size` too, so the limits refuse an
event before Kafka would)."""

from __future__ import annotations

import contextlib
import logging
import time

from kafka import KafkaAdminClient
from kafka.errors import (
    KafkaConfigurationError,
    KafkaError,
    KafkaTimeoutError,
    TopicAlreadyExistsError,
)

from events_schema.limits import KIB, Limits
from services.eventlog.kafka.clients import client_options

log = logging.getLogger("arbiter.eventlog.kafka")

#: Headroom of a topic's `max.message.bytes` (and the producer's `max_request_size`) above the
#: largest event the limits allow: the record batch framing and headers.
MESSAGE_HEADROOM = 64 * KIB


def replication_factor_for(admin: KafkaAdminClient, explicit: int | None = None) -> int:
    """`explicit` (services/config.py: `ARBITER_KAFKA_REPLICATION`), else min(3, brokers in
    the cluster now)
    (a broker that is down is not counted: a topic created then has one replica fewer)."""
    if explicit is not None:
        if explicit < 1:
            raise ValueError(f"replication factor must be at least 1, not {explicit}")
        return explicit
    brokers = len(admin.describe_cluster()["brokers"])
    # A node that has just started can be missing from another node's view for a moment:
    # with two of a cluster in sight, look again for a few seconds before settling on two.
    # (A single broker answers at once; production names the factor explicitly.)
    deadline = time.monotonic() + 5.0
    while brokers == 2 and time.monotonic() < deadline:
        time.sleep(0.25)
        brokers = max(brokers, len(admin.describe_cluster()["brokers"]))
    if 0 < brokers < 3:
        log.info(
            "%d broker(s) in the cluster: new topics get replication factor %d", brokers, brokers
        )
    return max(1, min(3, brokers))


def durability_configs(replication_factor: int) -> dict[str, str]:
    """What every topic of ours gets: acks=all needs 2 in-sync replicas from replication
    factor 3 on, and a replica that fell behind never becomes leader."""
    return {
        "min.insync.replicas": "2" if replication_factor >= 3 else "1",
        "unclean.leader.election.enable": "false",
    }


def events_topic_configs(replication_factor: int, limits: Limits) -> dict[str, str]:
    """The events topic: kept forever, and records as large as the limits allow."""
    return {
        "retention.ms": "-1",
        "retention.bytes": "-1",
        "cleanup.policy": "delete",
        "max.message.bytes": str(limits.max_event_bytes + MESSAGE_HEADROOM),
        **durability_configs(replication_factor),
    }


def create_topic(
    admin: KafkaAdminClient,
    name: str,
    partitions: int,
    replication_factor: int,
    configs: dict[str, str],
) -> None:
    """Create a topic (nothing if it exists) and wait until every partition has a leader."""
    with contextlib.suppress(TopicAlreadyExistsError):
        admin.create_topics(
            {
                name: {
                    "num_partitions": partitions,
                    "replication_factor": replication_factor,
                    "configs": configs,
                }
            },
            wait_for_metadata=True,
        )


def open_events_topic(
    bootstrap: str,
    client_id: str,
    topic: str,
    partitions: int,
    replication_factor: int | None,
    limits: Limits,
    timeout_s: float,
) -> tuple[int, int]:
    """Create the events topic if it is missing; (its partition count, its replication
    factor). Retries for `timeout_s` while the cluster settles."""
    admin = KafkaAdminClient(
        **client_options(bootstrap, f"{client_id}-admin", timeout_s),
        bootstrap_timeout_ms=int(timeout_s * 1000),
    )
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                info = admin.describe_topics([topic])[0]
                if info["error_code"] == 0 and info["partitions"]:
                    replicas = len(info["partitions"][0]["replica_nodes"])
                    return len(info["partitions"]), replicas
                if time.monotonic() > deadline:
                    raise KafkaTimeoutError(f"topic {topic} has no partitions (yet)")
                rf = replication_factor_for(admin, replication_factor)
                create_topic(admin, topic, partitions, rf, events_topic_configs(rf, limits))
            except KafkaConfigurationError:
                raise
            except KafkaError as exc:
                # A broker that has just (re)started is not in every metadata view yet:
                # UnknownBrokerIdError, NotControllerError, ... Try again for a while.
                if time.monotonic() > deadline:
                    raise
                log.info("opening %s: %s; retrying", topic, exc)
                time.sleep(0.2)
    finally:
        admin.close()
