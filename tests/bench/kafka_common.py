"""What the Kafka benchmark parts share (kafka_append, http_kafka): the log's options as the
environment sets them, fresh topics and their deletion, rates and ratios, and the progress
lines on stderr. Needs a broker (`deploy/kafka/start`; `KAFKA_BOOTSTRAP`)."""

from __future__ import annotations

import contextlib
import sys
import uuid
from pathlib import Path
from typing import Any

_repo = Path(__file__).resolve().parents[2]
for _p in (_repo / "tests", _repo):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from kafka import KafkaAdminClient  # noqa: E402

from services.config import Settings  # noqa: E402
from services.eventlog.kafka import API_VERSION  # noqa: E402

#: Client threads of the append runs.
CLIENTS = 50


def log_options() -> dict[str, Any]:
    """What the environment sets of the log (ARBITER_KAFKA_GROUP_COMMIT_MS, ...), as the API's."""
    return Settings.from_env().kafka_options()


def fresh_topic(part: str, kind: str) -> str:
    """A new topic name `arbiter.bench.<part>.<kind>.<random>` (created by its first log)."""
    return f"arbiter.bench.{part}.{kind}.{uuid.uuid4().hex[:10]}"


def delete_topics(bootstrap: str, topics: list[str]) -> None:
    """Delete the run's topics (best effort: a benchmark's result is printed anyway)."""
    with contextlib.suppress(Exception):
        admin = KafkaAdminClient(bootstrap_servers=bootstrap, api_version=API_VERSION)
        admin.delete_topics(topics)
        admin.close()


def rate(n: int, seconds: float) -> float:
    return round(n / seconds, 1) if seconds > 0 else 0.0


def ratio(a: float, b: float) -> float | None:
    return round(a / b, 3) if b else None


def progress(part: str, msg: str) -> None:
    print(f"[bench.{part}] {msg}", file=sys.stderr, flush=True)
