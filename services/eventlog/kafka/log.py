"""`KafkaEventLog`: the production event log on Apache Kafka, composed of the indexed reader
(`reader.py`) and the group-commit writer (`writer.py`) over the events topic (`admin.py`)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import quote
from uuid import UUID

import orjson
from kafka import TopicPartition
from kafka.errors import KafkaConfigurationError, KafkaError
from pydantic import TypeAdapter

from events_schema import Envelope
from events_schema.limits import LimitExceeded, Limits
from services.eventlog.base import (
    AppendConflict,
    AppendResult,
    EventIdConflict,
    EventLog,
    EventLogUnavailable,
    ForwardUnanswered,
    NewEvent,
    Subscription,
)
from services.eventlog.kafka.admin import open_events_topic
from services.eventlog.kafka.clients import KafkaUnavailable, partition_for
from services.eventlog.kafka.forward import ForwardClient, ForwardError, NotSent
from services.eventlog.kafka.ownership import NotOwner, Ownership
from services.eventlog.kafka.partition import Partition
from services.eventlog.kafka.subscription import KafkaSubscription
from services.eventlog.kafka.writer import (
    DEFAULT_GROUP_COMMIT_MS,
    DEFAULT_GROUP_MAX_EVENTS,
    GroupCommitWriter,
    Pending,
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
        ownership: str = "single",
        advertised_url: str | None = None,
        forward_secret: str | None = None,
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
        self.forwarded = 0  # appends sent to another process (ownership by group)
        self.forwarded_commands = 0  # of which commands, decided by their stream's owner
        self.partitions = found or partitions
        self._parts = [Partition(n) for n in range(self.partitions)]
        self._tps = [TopicPartition(topic, n) for n in range(self.partitions)]
        #: `ARBITER_KAFKA_OWNERSHIP=group` (ownership.py): this process writes only the
        #: partitions the consumer group assigns it and forwards the others' appends.
        self.ownership: Ownership | None = None
        self.forward_secret = forward_secret or ""
        if ownership == "group":
            if not advertised_url or not forward_secret:
                raise ValueError(
                    "ARBITER_KAFKA_OWNERSHIP=group needs ARBITER_ADVERTISED_URL (this process's "
                    "URL, reachable by the other API processes) and ARBITER_FORWARD_SECRET"
                )
            self.ownership = Ownership(bootstrap, topic, advertised_url, client_id)
            self._forwarder = ForwardClient()  # kept connections (forward.py)
        elif ownership != "single":
            raise ValueError(f"ARBITER_KAFKA_OWNERSHIP must be single or group, not {ownership!r}")

    # -- ownership (ARBITER_KAFKA_OWNERSHIP=group) -----------------------------------------

    def _may_write(self, part: Partition) -> bool:
        """With ownership by group: whether this process owns the partition now. A writer
        kept from an earlier period of ownership (the partition was another process's in
        between) is dropped, so the next one fences the other and re-reads the partition
        before deciding, never deciding on what this process saw before."""
        if self.ownership is None:
            return True
        since = self.ownership.owned_since(part.number)
        if since is None:
            return False
        if part.writer_generation != since:
            self._drop_writer(part)
            part.writer_generation = since
        return True

    def append(
        self, tournament_id: str, events: Sequence[NewEvent], expected_seq: int | None = None
    ) -> AppendResult:
        """With ownership by group: appended here when this process owns the stream's
        partition, else sent to the owner (the same batch, the same event ids: a batch that
        landed before an owner changed comes back as a duplicate)."""
        if self.ownership is None or not events:
            return super().append(tournament_id, events, expected_seq)
        return self._route(tournament_id, events, expected_seq, None)

    def _route(
        self,
        tournament_id: str,
        events: Sequence[NewEvent],
        expected_seq: int | None,
        after: UUID | None,
    ) -> AppendResult:
        """`append` with ownership by group, with the pipelined path's `after` (writer.py)."""
        assert self.ownership is not None
        number = partition_for(tournament_id, self.partitions)
        deadline = time.monotonic() + self.APPEND_TIMEOUT_S
        last: Exception | None = None
        while True:
            owner = self.ownership.owner(number, deadline)
            try:
                if owner == self.ownership.url:
                    return GroupCommitWriter.submit(
                        self, tournament_id, events, expected_seq, after
                    )()
                return self._forward(owner, tournament_id, events, expected_seq, deadline, after)
            except (NotOwner, *ForwardError) as exc:
                last = exc  # the owner changed, or died: wait for the group to say who now
            if time.monotonic() >= deadline:
                raise KafkaUnavailable(
                    f"{self.topic}[{number}]: no owner took the append within "
                    f"{self.APPEND_TIMEOUT_S:.0f} s (last: {last!r}); resend it with the "
                    "same event ids (a batch that landed comes back as a duplicate)",
                    maybe_committed=True,
                )
            time.sleep(0.05)

    def submit(
        self,
        tournament_id: str,
        events: Sequence[NewEvent],
        expected_seq: int | None = None,
        after: UUID | None = None,
    ) -> Callable[[], AppendResult]:
        """The command path's pipelined append (writer.py). With ownership by group it is
        pipelined too (issue 27: it used to be appended, or forwarded, under the tournament's
        lock, one batch at a time per tournament and process): a stream this process owns
        joins its committer's queue; another's is forwarded with its `after` when the caller
        waits (outside the tournament's lock), so the next command is decided meanwhile and
        the owner admits it only right after the batch it was decided after. A batch whose
        partition moved before its commit (`NotOwner`) is then routed to the new owner, with
        the same `after`."""
        if self.ownership is None or not events:
            return super().submit(tournament_id, events, expected_seq, after)
        number = partition_for(tournament_id, self.partitions)
        if not self.ownership.owns(number):
            return lambda: self._route(tournament_id, events, expected_seq, after)
        queued = super().submit(tournament_id, events, expected_seq, after)

        def answer() -> AppendResult:
            try:
                return queued()
            except NotOwner:
                return self._route(tournament_id, events, expected_seq, after)

        if not isinstance(queued, Pending):
            return answer  # the caller's thread commits (a lone writer)
        # Once answered, a `NotOwner` answer still routes the batch: waited on a thread.
        return Pending(answer, queued.when_done, queued.patience_s, final=False)

    def command_owner(self, tournament_id: str) -> str | None:
        """With ownership by group: the URL of the process that writes the tournament's
        stream when it is another one (the API sends it the command: services/api/app.py);
        else None (decided here)."""
        if self.ownership is None:
            return None
        owner = self.ownership.current_owner(partition_for(tournament_id, self.partitions))
        return owner if owner and owner != self.ownership.url else None

    def forward_command(
        self,
        url: str,
        tournament_id: str,
        actor_json: str,
        raw: bytes,
        minted: Sequence[UUID] = (),
    ) -> tuple[int, bytes, dict[str, str]] | None:
        """Send a command body to the stream's owner (`POST /internal/commands/{id}`): its
        answer (status, body, the headers a client needs), or None when the owner could not
        be reached (then decided here). `minted`: the event ids this process chose for the
        commands that name none (`MINTED_HEADER`), so that should the owner die before it
        answers, the command can be resent with them and is found if it was stored
        (services/api/app.py). Raises `ForwardUnanswered` when it was sent and not
        answered."""
        self.forwarded += 1  # an append sent to its owner, as a command
        self.forwarded_commands += 1
        headers = {
            "content-type": "application/json",
            FORWARD_HEADER: self.forward_secret,
            ACTOR_HEADER: actor_json,
        }
        if minted:
            headers[MINTED_HEADER] = ",".join(str(i) for i in minted)
        try:
            status, content, answer_headers = self._forwarder.exchange(
                f"{url}/internal/commands/{quote(tournament_id, safe='')}",
                raw,
                headers,
                timeout=self.APPEND_TIMEOUT_S + self.VISIBLE_TIMEOUT_S + 5.0,
            )
        except NotSent:
            return None  # nothing sent: decided here
        except ForwardError as exc:
            # Sent, not answered: it may have been appended there; resent with its ids.
            raise ForwardUnanswered(
                f"the owner of {tournament_id}'s stream ({url}) did not answer ({exc!r}); "
                "the command may have been appended: read the stream before resending it, "
                "or resend it with event ids"
            ) from exc
        if status == 404:
            return None  # not served there (no secret, another setting): decided here
        keep = {k: v for k, v in answer_headers.items() if k.lower() == "retry-after"}
        return status, content, keep

    def _forward(
        self,
        url: str,
        tournament_id: str,
        events: Sequence[NewEvent],
        expected_seq: int | None,
        deadline: float,
        after: UUID | None = None,
    ) -> AppendResult:
        body = {
            "tournament_id": tournament_id,
            "expected_seq": expected_seq,
            "after": str(after) if after is not None else None,
            "events": _EVENTS.dump_python(list(events), mode="json"),
        }
        self.forwarded += 1
        status, content = self._forwarder.post(
            f"{url}/internal/log/append",
            orjson.dumps(body),
            {"content-type": "application/json", FORWARD_HEADER: self.forward_secret},
            timeout=max(deadline - time.monotonic(), 0.5) + self.VISIBLE_TIMEOUT_S,
        )
        return answer_result(status, content)

    def append_forwarded(self, raw: bytes) -> tuple[int, bytes]:
        """The owner's side of `_forward` (`POST /internal/log/append`): the status and body
        `answer_result` reads back."""
        data = orjson.loads(raw)
        events = _EVENTS.validate_python(data["events"])
        tid = str(data["tournament_id"])
        if self.ownership is None or not self.ownership.owns(partition_for(tid, self.partitions)):
            return 421, orjson.dumps({"error": "NotOwner", "message": "not the owner"})
        try:
            after = UUID(str(data["after"])) if data.get("after") else None
            result = GroupCommitWriter.submit(self, tid, events, data.get("expected_seq"), after)()
        except NotOwner as exc:
            return 421, orjson.dumps({"error": "NotOwner", "message": str(exc)})
        except AppendConflict as exc:
            return 409, orjson.dumps(
                {
                    "error": "AppendConflict",
                    "tid": tid,
                    "expected": exc.expected,
                    "actual": exc.actual,
                }
            )
        except EventIdConflict as exc:
            return 409, orjson.dumps({"error": "EventIdConflict", "message": str(exc)})
        except LimitExceeded as exc:
            return 413, orjson.dumps(
                {
                    "error": "LimitExceeded",
                    "limit": exc.limit,
                    "field": exc.field,
                    "message": exc.message,
                    "status": exc.status,
                }
            )
        except EventLogUnavailable as exc:
            return 503, orjson.dumps(
                {
                    "error": "Unavailable",
                    "message": str(exc),
                    "maybe_committed": bool(getattr(exc, "maybe_committed", False)),
                }
            )
        return 200, orjson.dumps(
            {
                "duplicate": result.duplicate,
                "envelopes": [e.model_dump(mode="json") for e in result.envelopes],
            }
        )

    def subscribe(self, from_beginning: bool = False) -> Subscription:
        return KafkaSubscription(
            self.bootstrap, self.client_id, self._tps, self.READ_TIMEOUT_S, from_beginning
        )

    def close(self) -> None:
        """Stop the committers (the groups under way finish; appends still queued are
        refused, nothing of them appended), then the producers and the reader."""
        with contextlib.suppress(AttributeError):  # a log whose __init__ failed
            self._closed = True
            if self.ownership is not None:
                self.ownership.close()  # leave the group: the others take our partitions
                self._forwarder.close()
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


#: The header that carries `ARBITER_FORWARD_SECRET` on a forwarded append.
FORWARD_HEADER = "x-arbiter-forward-secret"
#: The actor a forwarded command is decided for (JSON; trusted with the secret only).
ACTOR_HEADER = "x-arbiter-actor"
#: The event ids the forwarding process chose for a forwarded command's commands that name
#: none, in order (comma-separated; trusted with the secret only): fresh, so the owner looks
#: none of them up, and known to the sender, so a resend after a lost answer is found.
MINTED_HEADER = "x-arbiter-minted-ids"
_EVENTS: TypeAdapter[list[NewEvent]] = TypeAdapter(list[NewEvent])


def answer_result(status: int, content: bytes) -> AppendResult:
    """The owner's answer to a forwarded append, as the caller's own append would give it."""
    data: dict[str, Any] = orjson.loads(content) if content else {}
    if status == 200:
        return AppendResult(
            [Envelope.model_validate(e) for e in data["envelopes"]], bool(data["duplicate"])
        )
    kind = data.get("error")
    if kind == "NotOwner":
        raise NotOwner(str(data.get("message", "")))
    if kind == "AppendConflict":
        raise AppendConflict(str(data["tid"]), int(data["expected"]), int(data["actual"]))
    if kind == "EventIdConflict":
        raise EventIdConflict(str(data["message"]))
    if kind == "LimitExceeded":
        raise LimitExceeded(
            str(data["limit"]), str(data["field"]), str(data["message"]), int(data["status"])
        )
    raise KafkaUnavailable(
        f"the owner answered {status}: {data.get('message') or content[:200]!r}",
        maybe_committed=bool(data.get("maybe_committed", True)),
    )
