"""Partition ownership for several API processes on one cluster (`ARBITER_KAFKA_OWNERSHIP=group`,
issue 27 item 2): each process writes only the partitions Kafka assigns it, and forwards an
append to any other partition to the process that owns it.

Why a consumer group over the events topic (and not a commands topic consumed by a
command-processor group): the group is only the *assignment*, the write path stays the one
the log already has (decide, then one transactional append with `expected_seq`, group commit,
read-after-append). A commands topic would add a second durable hop to every command (produce
the command, a processor consumes, decides, appends, and the answer travels back to the HTTP
caller through a third channel), a second copy of what was asked next to what was decided, and
its own exactly-once problem (a command consumed twice after a rebalance); and the command
layer (services/commands) would have to be split at its seam. With the group, an append that
reaches the wrong process costs one HTTP hop to the owner (`POST /internal/log/append`), and
everything the owner does is exactly what one process does today.

How it works:

- Every API process joins the consumer group `<topic>.writers`, subscribed to the events topic,
  with the `OwnersAssignor` below. A member's subscription metadata carries the URL the process
  advertises (`ARBITER_ADVERTISED_URL`); the group leader assigns partitions by ranges (Kafka's
  range assignor) and writes the whole map partition -> owner URL into every member's
  assignment, so each process learns at once which partitions it owns and where every other
  partition goes. The consumer fetches nothing (its partitions stay paused): it only keeps the
  membership alive (heartbeats); a process that dies (kill -9) leaves the group after the
  session timeout (`SESSION_TIMEOUT_MS`) and its partitions are assigned to the others.
- The fencing guarantees are those of `writer.py`, unchanged: one transactional id per
  partition; the new owner's `init_transactions()` fences the previous one, completes or
  aborts its open transaction, and the new owner re-reads the partition before deciding. A
  process that lost a partition stops committing to it (its committer checks ownership before
  every attempt and answers the group with `NotOwner`; `append` then forwards the same batch,
  same event ids, to the new owner, where a batch that did land comes back as a duplicate).
  Should two processes both believe they own a partition for a moment (a rebalance under way),
  the old fencing settles it, as between any two writers today.
- During a rebalance (eager protocol: every member gives up its partitions until the new
  assignment) an append waits for the new owner, within its own deadline.

A client that sent no `expected_seq` therefore never loses to another process's writer: the
only conflicts are real ones (another append to the same tournament came first), and the
command layer re-reads and decides again as it does with one process.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import orjson
from kafka import ConsumerRebalanceListener, KafkaConsumer
from kafka.coordinator.assignors.abstract import AbstractPartitionAssignor
from kafka.coordinator.assignors.range import RangePartitionAssignor
from kafka.protocol.consumer.metadata import (
    ConsumerProtocolAssignment,
    ConsumerProtocolSubscription,
)

from services.eventlog.base import EventLogUnavailable
from services.eventlog.kafka.clients import API_VERSION

log = logging.getLogger("arbiter.eventlog.kafka.ownership")

#: How long a dead process keeps its partitions (the broker's group.min.session.timeout.ms
#: is 6 s by default): appends to them wait this long after a kill -9, then move.
SESSION_TIMEOUT_MS = 6000
HEARTBEAT_INTERVAL_MS = 1000


class NotOwner(EventLogUnavailable):
    """This process does not (or no longer) own the partition: nothing of the append was
    committed here by this attempt; `append` sends it to the owner."""

    rule = "eventlog.not_owner"


class OwnersAssignor(AbstractPartitionAssignor):  # type: ignore[misc]
    """Kafka's range assignment, plus the owners' map (partition -> advertised URL) in every
    member's assignment (its `user_data`), read from the members' subscription metadata."""

    name = "arbiter-owners"
    version = 0

    def __init__(self, url: str, on_owners: Callable[[dict[int, str], int], None]) -> None:
        self.url = url
        self.on_owners = on_owners

    def assign(self, cluster: Any, members: Any) -> dict[str, ConsumerProtocolAssignment]:
        ranges = RangePartitionAssignor.assign(cluster, members)
        urls = {m.member_id: bytes(m.metadata.user_data or b"").decode() for m in members}
        owners: dict[str, str] = {}
        for member_id, assignment in ranges.items():
            for _topic, partitions in assignment.assigned_partitions:
                for p in partitions:
                    owners[str(p)] = urls[member_id]
        data = orjson.dumps(owners)
        return {
            member_id: ConsumerProtocolAssignment(
                self.version, assignment.assigned_partitions, data
            )
            for member_id, assignment in ranges.items()
        }

    def metadata(self, topics: Any) -> ConsumerProtocolSubscription:
        return ConsumerProtocolSubscription(self.version, list(topics), self.url.encode())

    def on_assignment(self, assignment: Any, generation: int) -> None:
        raw = orjson.loads(bytes(assignment.user_data or b"{}") or b"{}")
        self.on_owners({int(p): str(u) for p, u in raw.items()}, generation)


class Ownership:
    """This process's view of who owns which partition of the events topic, kept by a
    consumer-group member in its own thread."""

    def __init__(self, bootstrap: str, topic: str, url: str, client_id: str = "arbiter") -> None:
        self.url = url.rstrip("/")
        self.topic = topic
        self._cond = threading.Condition()
        self._owners: dict[int, str] = {}  # empty while a rebalance is under way
        # The generation since which this process has owned each of its partitions without
        # interruption (an assignment that gives a partition back after another process had
        # it starts a new period: the writer of the old one is stale).
        self._since: dict[int, int] = {}
        self._last: dict[int, str] = {}  # the last assignment (kept through a rebalance)
        self.generation = -1
        self.assignments = 0  # assignments received (the test counts rebalances)
        self._stop = False
        self._assignor = OwnersAssignor(self.url, self._set_owners)
        self._consumer = KafkaConsumer(
            bootstrap_servers=bootstrap,
            client_id=f"{client_id}-owner",
            api_version=API_VERSION,
            group_id=f"{topic}.writers",
            enable_auto_commit=False,
            partition_assignment_strategy=[self._assignor],
            session_timeout_ms=SESSION_TIMEOUT_MS,
            heartbeat_interval_ms=HEARTBEAT_INTERVAL_MS,
            max_poll_interval_ms=300_000,
            reconnect_backoff_max_ms=1000,
            metadata_max_age_ms=5000,
        )
        self._consumer.subscribe([topic], listener=_Listener(self))
        self._thread = threading.Thread(
            target=self._run, name=f"arbiter-kafka-owners-{topic}", daemon=True
        )
        self._thread.start()

    def _set_owners(self, owners: dict[int, str], generation: int) -> None:
        with self._cond:
            self._since = {
                p: self._since.get(p, generation) if self._last.get(p) == self.url else generation
                for p, url in owners.items()
                if url == self.url
            }
            self._owners = dict(owners)
            self._last = dict(owners)
            self.generation = generation
            self.assignments += 1
            self._cond.notify_all()
        log.info("generation %s: owns %s", generation, sorted(self.owned()))

    def _revoked(self) -> None:
        with self._cond:
            self._owners = {}

    def _run(self) -> None:
        while not self._stop:
            try:
                self._consumer.poll(timeout_ms=200)
                self._resume_orphaned_join()
                assigned = self._consumer.assignment()
                if assigned:
                    self._consumer.pause(*assigned)  # membership only: fetch nothing
            except Exception:  # the cluster is away: keep trying, appends wait or fail
                if self._stop:
                    return
                log.warning("ownership poll failed", exc_info=True)
                time.sleep(0.5)

    def _resume_orphaned_join(self) -> None:
        """Keep a rejoin that kafka-python started going until its assignment is applied.

        kafka-python 3.0.12 rejoins when the leader's metadata snapshot differs from the one
        it assigned with, without setting `rejoin_needed` (the Java client's KAFKA-9815 fix,
        apache/kafka#8420, sets it). It revokes every partition, sends JoinGroup and, as
        leader, clears that difference while it performs the assignment in its IO thread. A
        poll that gave up (200 ms) before the SyncGroup answer then finds nothing to rejoin
        for: the join is never awaited again, its assignment never applied, the heartbeats
        stay off, the group drops this process after the session timeout and the others take
        every partition while this one owns none, for good (issue 27: a CI run saw one process
        at generation 1 with no owners, the other owning everything). `rejoining` is set from
        the revocation until the assignment is applied; it and no rejoin pending after a poll
        is that state: asking to rejoin makes the next poll await the join (or send a new
        one, which the broker answers, as to any member, with a rebalance or
        UNKNOWN_MEMBER_ID and then a fresh join)."""
        coordinator = getattr(self._consumer, "_coordinator", None)
        if coordinator is None:  # pragma: no cover - another kafka-python layout
            return
        if getattr(coordinator, "rejoining", False) and not coordinator.need_rejoin():
            log.warning("ownership: a rejoin was left unfinished by the Kafka client; resuming it")
            coordinator.request_rejoin()

    def owned(self) -> set[int]:
        with self._cond:
            return {p for p, u in self._owners.items() if u == self.url}

    def owns(self, partition: int) -> bool:
        with self._cond:
            return self._owners.get(partition) == self.url

    def current_owner(self, partition: int) -> str | None:
        """The partition's owner now, without waiting (None during a rebalance)."""
        with self._cond:
            return self._owners.get(partition)

    def owned_since(self, partition: int) -> int | None:
        """The generation this process's uninterrupted ownership of the partition began in;
        None when it does not own it now."""
        with self._cond:
            if self._owners.get(partition) != self.url:
                return None
            return self._since.get(partition)

    def owner(self, partition: int, deadline: float) -> str:
        """The URL of the partition's owner, waiting for a rebalance under way until the
        deadline (then `EventLogUnavailable`: nothing was appended)."""
        with self._cond:
            while True:
                url = self._owners.get(partition)
                if url:
                    return url
                left = deadline - time.monotonic()
                if left <= 0 or self._stop:
                    raise EventLogUnavailable(
                        f"{self.topic}[{partition}] has no writer yet (the API processes are "
                        "rebalancing); nothing was appended"
                    )
                self._cond.wait(min(left, 0.2))

    def describe(self) -> dict[str, Any]:
        with self._cond:
            return {
                "url": self.url,
                "generation": self.generation,
                "assignments": self.assignments,
                "owners": {str(p): u for p, u in sorted(self._owners.items())},
            }

    def close(self) -> None:
        self._stop = True
        self._thread.join(timeout=2)
        try:
            self._consumer.close(autocommit=False)
        except Exception:  # pragma: no cover - closing against a dead cluster
            log.debug("ownership consumer close failed", exc_info=True)


class _Listener(ConsumerRebalanceListener):  # type: ignore[misc]
    """Eager rebalance: every member gives up its partitions before the new assignment."""

    def __init__(self, ownership: Ownership) -> None:
        self.ownership = ownership

    def on_partitions_revoked(self, revoked: Any) -> None:
        self.ownership._revoked()

    def on_partitions_assigned(self, assigned: Any) -> None:
        pass
