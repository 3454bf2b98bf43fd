"""Settings from the environment; every service's composition root starts here."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from events_schema.limits import Limits
from services.eventlog.base import EventLog


@dataclass(frozen=True)
class Settings:
    backend: str = "sqlite"  # ARBITER_LOG: sqlite (embedded default) | kafka
    data_dir: Path = Path("arbiter-data")  # ARBITER_DATA
    sqlite_path: Path = Path("arbiter-data/events.sqlite3")  # ARBITER_DB
    tokens_path: Path = Path("arbiter-data/tokens.sqlite3")  # ARBITER_TOKENS_DB
    kafka_bootstrap: str = "127.0.0.1:19092"  # KAFKA_BOOTSTRAP
    kafka_topic: str = "arbiter.events"  # ARBITER_TOPIC
    kafka_partitions: int = 8  # ARBITER_PARTITIONS
    # Of the topics created; None: min(3, brokers in the cluster).
    kafka_replication: int | None = None  # ARBITER_KAFKA_REPLICATION
    # The Kafka writer's group commit; None: the log's defaults (3 ms, 1000 events).
    kafka_group_commit_ms: float | None = None  # ARBITER_KAFKA_GROUP_COMMIT_MS
    kafka_group_max_events: int | None = None  # ARBITER_KAFKA_GROUP_MAX_EVENTS
    # Several API processes on one cluster (services/eventlog/kafka/ownership.py): "single"
    # (default: every process writes every partition, fencing the others), or "group" (each
    # writes the partitions the consumer group assigns it and forwards the others' appends to
    # their owner's advertised URL, authenticated by the shared forward secret).
    kafka_ownership: str = "single"  # ARBITER_KAFKA_OWNERSHIP
    advertised_url: str | None = None  # ARBITER_ADVERTISED_URL
    forward_secret: str | None = None  # ARBITER_FORWARD_SECRET
    sqlite_synchronous: str = "FULL"  # ARBITER_SQLITE_SYNCHRONOUS: FULL, NORMAL or EXTRA
    # Seconds between a processor's checkpoints (0: none).
    snapshot_every: float = 30.0  # ARBITER_SNAPSHOT_EVERY
    # Signed checkpoints (services/audit/checkpoints/): the signing key, which must exist
    # (None: data_dir/checkpoint-key.pem, generated on first use), and the store (None:
    # data_dir/checkpoints.sqlite3).
    checkpoint_key: Path | None = None  # ARBITER_CHECKPOINT_KEY
    checkpoints_db: Path | None = None  # ARBITER_CHECKPOINTS_DB
    # The adjudicator's endgame tables (None: no tablebase adjudication); `--tablebases`
    # overrides it.
    tablebases: Path | None = None  # ARBITER_TABLEBASES
    # Who the CLI acts as (issue 24, "who did it"): a person's name recorded as the actor of
    # what the local commands append, or an API token whose subject and role they act with;
    # `--as` / `--token` override them (services/cli/common.py `local_actor`).
    actor: str | None = None  # ARBITER_ACTOR
    token: str | None = None  # ARBITER_TOKEN

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        env = os.environ
        data = Path(env.get("ARBITER_DATA", "arbiter-data"))
        values: dict[str, object] = {
            "backend": env.get("ARBITER_LOG", "sqlite"),
            "data_dir": data,
            "sqlite_path": Path(env.get("ARBITER_DB", data / "events.sqlite3")),
            "tokens_path": Path(env.get("ARBITER_TOKENS_DB", data / "tokens.sqlite3")),
            "kafka_bootstrap": env.get("KAFKA_BOOTSTRAP", "127.0.0.1:19092"),
            "kafka_topic": env.get("ARBITER_TOPIC", "arbiter.events"),
            "kafka_partitions": int(env.get("ARBITER_PARTITIONS", "8")),
            "kafka_replication": int(env["ARBITER_KAFKA_REPLICATION"])
            if env.get("ARBITER_KAFKA_REPLICATION")
            else None,
            "kafka_group_commit_ms": _non_negative("ARBITER_KAFKA_GROUP_COMMIT_MS"),
            "kafka_group_max_events": _count("ARBITER_KAFKA_GROUP_MAX_EVENTS"),
            "kafka_ownership": env.get("ARBITER_KAFKA_OWNERSHIP", "").strip() or "single",
            "advertised_url": env.get("ARBITER_ADVERTISED_URL", "").strip() or None,
            "forward_secret": env.get("ARBITER_FORWARD_SECRET", "").strip() or None,
            "sqlite_synchronous": _synchronous(),
            "snapshot_every": float(env.get("ARBITER_SNAPSHOT_EVERY", "30")),
            "checkpoint_key": _path("ARBITER_CHECKPOINT_KEY"),
            "checkpoints_db": _path("ARBITER_CHECKPOINTS_DB"),
            "tablebases": _path("ARBITER_TABLEBASES", strip=True),
            "actor": env.get("ARBITER_ACTOR", "").strip() or None,
            "token": env.get("ARBITER_TOKEN", "").strip() or None,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        if values["backend"] not in ("sqlite", "kafka"):
            raise ValueError(f"ARBITER_LOG must be sqlite or kafka, not {values['backend']!r}")
        return cls(**values)  # type: ignore[arg-type]

    def kafka_options(self) -> dict[str, Any]:
        """The `KafkaEventLog` arguments the environment set (the log's defaults for the
        others): replication factor and group commit."""
        options = {
            "replication_factor": self.kafka_replication,
            "group_commit_ms": self.kafka_group_commit_ms,
            "group_max_events": self.kafka_group_max_events,
        }
        return {k: v for k, v in options.items() if v is not None}

    def ownership_options(self) -> dict[str, Any]:
        """The serving process's partition ownership (`ARBITER_KAFKA_OWNERSHIP`; only
        `arbiter serve` and services/api/main.py join the group: a CLI command or a processor
        that appends is a one-off writer, fenced and re-reading as with `single`)."""
        if self.kafka_ownership == "single":
            return {}
        return {
            "ownership": self.kafka_ownership,
            "advertised_url": self.advertised_url,
            "forward_secret": self.forward_secret,
        }


def _path(name: str, strip: bool = False) -> Path | None:
    """A path variable; None when unset or empty (or blank, with `strip`)."""
    raw = os.environ.get(name, "")
    value = raw.strip() if strip else raw
    return Path(value) if value else None


def _non_negative(name: str) -> float | None:
    """A number variable (milliseconds, a count); None when unset or empty."""
    raw = os.environ.get(name)
    if not raw:
        return None
    value = float(raw)
    if value < 0:
        raise ValueError(f"{name} must be >= 0, not {raw}")
    return value


def _count(name: str) -> int | None:
    value = _non_negative(name)
    return None if value is None else int(value)


def _synchronous() -> str:
    from services.eventlog.sqlite import SYNCHRONOUS_MODES

    mode = os.environ.get("ARBITER_SQLITE_SYNCHRONOUS", "FULL").upper()
    if mode not in SYNCHRONOUS_MODES:
        raise ValueError(f"ARBITER_SQLITE_SYNCHRONOUS must be one of {SYNCHRONOUS_MODES}")
    return mode


#: Seconds between `arbiter serve`'s scheduled checkpoint signing runs.
CHECKPOINT_EVERY = 60.0


def checkpoint_every(environ: Mapping[str, str] | None = None) -> float:
    """`ARBITER_CHECKPOINT_EVERY`: seconds between scheduled signing runs (default 60; 0 or
    less disables), read by `arbiter serve` (the only process that schedules signing)."""
    env = os.environ if environ is None else environ
    raw = env.get("ARBITER_CHECKPOINT_EVERY", "").strip() or str(CHECKPOINT_EVERY)
    try:
        return float(raw)
    except ValueError:
        raise ValueError(
            f"ARBITER_CHECKPOINT_EVERY must be seconds (0 disables), not {raw!r}"
        ) from None


def limits_from_env() -> Limits:
    """The contract's limits, overridden by the environment's `ARBITER_MAX_*` variables."""
    return Limits.from_env(os.environ)


@dataclass(frozen=True)
class FeedSettings:
    """The live feed's settings (services/feed/routes.py says what each one bounds), read by
    the API process's composition root and handed to `create_app`."""

    keepalive: float = 15.0  # ARBITER_FEED_KEEPALIVE: seconds of quiet before `: keep-alive`
    # ARBITER_FEED_REAUTH: an open stream re-checks its token this often (seconds) and closes
    # (after an `event: revoked`) once the token is revoked or no longer covers the tournament.
    reauth: float = 10.0
    max_subscribers: int = 5_000  # ARBITER_MAX_SUBSCRIBERS: open streams per process
    # ARBITER_FEED_MAX_BACKLOG: bytes of messages a lagging stream is sent one by one (beyond:
    # the latest of each projection).
    max_backlog: int = 1 << 20
    # ARBITER_FEED_SOURCE: on the Kafka log, the processors' output topics unless "log" (the
    # embedded runner folds the log in this process).
    source: str = ""
    # ARBITER_PROJECTION_PREFIX: the processors' output topics' prefix (None: their naming
    # rule for the log's events topic).
    projection_prefix: str | None = None
    # ARBITER_FEED_DELAY_TICK: the longest the broadcast delay's timer sleeps (seconds;
    # services/feed/delay.py); it also wakes when an event is due or the live feed publishes.
    # 0: no timer (the views are released on request only).
    delay_tick: float = 1.0

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> FeedSettings:
        env = os.environ if environ is None else environ
        default = cls()
        return cls(
            keepalive=float(env.get("ARBITER_FEED_KEEPALIVE", str(default.keepalive))),
            reauth=float(env.get("ARBITER_FEED_REAUTH", str(default.reauth))),
            max_subscribers=int(env.get("ARBITER_MAX_SUBSCRIBERS", str(default.max_subscribers))),
            max_backlog=int(env.get("ARBITER_FEED_MAX_BACKLOG", str(default.max_backlog))),
            source=env.get("ARBITER_FEED_SOURCE", ""),
            projection_prefix=env.get("ARBITER_PROJECTION_PREFIX"),
            delay_tick=float(env.get("ARBITER_FEED_DELAY_TICK", str(default.delay_tick))),
        )


def open_log(settings: Settings, serving: bool = False) -> EventLog:
    """The configured log, with the limits of the environment (`ARBITER_MAX_*`): the same on
    both backends, and on Kafka the topic's `max.message.bytes` follows them."""
    limits = limits_from_env()
    if settings.backend == "kafka":
        from services.eventlog.kafka import KafkaEventLog

        return KafkaEventLog(
            settings.kafka_bootstrap,
            topic=settings.kafka_topic,
            partitions=settings.kafka_partitions,
            limits=limits,
            **settings.kafka_options(),
            **(settings.ownership_options() if serving else {}),
        )
    from services.eventlog.sqlite import SQLiteEventLog

    log = SQLiteEventLog(settings.sqlite_path, synchronous=settings.sqlite_synchronous)
    log.limits = limits
    return log
