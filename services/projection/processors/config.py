"""What a processor is configured with (`ProcessorConfig`: its topics, group, data dir,
batching, watchdog and snapshots), and the names every processor shares."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from events_schema.limits import DEFAULT_LIMITS, Limits
from projections.documents import PROJECTIONS

DEFAULT_EVENTS_TOPIC = "arbiter.events"
#: The processor that is not a projection: it ends games by rule through the command path
#: (services/projection/processors/adjudicator.py).
ADJUDICATOR = "adjudicator"
#: Every name `arbiter processor NAME` accepts.
PROCESSORS: tuple[str, ...] = (*PROJECTIONS, ADJUDICATOR)
#: Largest snapshot record (the snapshot topic's max.message.bytes and the producers' limit).
SNAPSHOT_MAX_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class ProcessorConfig:
    projection: str
    bootstrap: str = "127.0.0.1:19092"
    events_topic: str = DEFAULT_EVENTS_TOPIC
    output_topic: str | None = None  # default: see `out_topic`
    group: str | None = None  # default: see `group_id`
    partitions: int = 8  # only used to create a missing events topic
    # Of the topics this creates; None: min(3, brokers). (`arbiter processor`:
    # ARBITER_KAFKA_REPLICATION.)
    replication_factor: int | None = None
    # The group commit of the adjudicator's Kafka log (its appends through the command path);
    # None: the log's defaults. (`arbiter processor`: ARBITER_KAFKA_GROUP_COMMIT_MS and
    # ARBITER_KAFKA_GROUP_MAX_EVENTS.)
    group_commit_ms: float | None = None
    group_max_events: int | None = None
    data_dir: Path = Path("arbiter-data/processors")
    web_port: int | None = None  # None: Faust's web server is disabled
    batch: int = 2000
    within: float = 0.05
    session_timeout: float = 10.0
    rebuild: bool = True  # False only for a fresh group (benchmarks): see run()
    # Restart the process when the events topic grew but nothing was folded for this long
    # (a Faust consumer that never resumes after a broker restart; faust #175/#640). The
    # rebuild on start makes the restart safe. 0 disables the watchdog.
    stall_after: float = 20.0
    # Seconds between checkpoints of the fold to the snapshot topic (`arbiter processor`:
    # ARBITER_SNAPSHOT_EVERY; 0: write none, but still restore from what is there). Only with
    # `rebuild`.
    snapshot_every: float = 30.0
    # The limits the API enforces (`arbiter processor`: ARBITER_MAX_*): a missing events
    # topic is created to take any event they allow (max.message.bytes), and the
    # adjudicator's appends are checked against them.
    limits: Limits = field(default_factory=lambda: DEFAULT_LIMITS)

    # The adjudicator only (`arbiter processor adjudicator --tablebases DIR`): where its
    # tablebases are; None: no tablebase adjudication (never implicitly).
    tablebases: Path | None = None

    def __post_init__(self) -> None:
        if self.projection not in PROCESSORS:
            raise ValueError(f"projection must be one of {', '.join(PROCESSORS)}")

    @property
    def out_topic(self) -> str:
        if self.output_topic:
            return self.output_topic
        if self.events_topic == DEFAULT_EVENTS_TOPIC:
            return f"arbiter.projection.{self.projection}"
        return f"{self.events_topic}.projection.{self.projection}"

    @property
    def group_id(self) -> str:
        if self.group:
            return self.group
        if self.events_topic == DEFAULT_EVENTS_TOPIC:
            return f"arbiter-processor-{self.projection}"
        return f"arbiter-processor-{self.projection}-{self.events_topic}"

    @property
    def snapshot_topic(self) -> str:
        """The compacted topic of this processor's checkpoints (snapshots.py), named after
        its output topic (a fresh output topic starts without snapshots):
        `arbiter.snapshot.<name>` beside `arbiter.projection.<name>`, outside the prefix the
        feed readers may read."""
        if ".projection." in self.out_topic:
            return self.out_topic.replace(".projection.", ".snapshot.", 1)
        return f"{self.out_topic}.snapshots"

    @property
    def workdir(self) -> Path:
        return self.data_dir / self.projection
