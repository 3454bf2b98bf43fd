from __future__ import annotations

import json
import os
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
# The test folders mirror the source (tests/unit/projections/tiebreaks/, ...). A few test
# modules reuse another's scenarios by name (`import test_decider_playoff_guards as guards`):
# every unit and integration test folder is importable, as the default import mode needs
# unique basenames anyway (tests/unit/services/test_imports.py checks they are); not bench/
# nor fuzz/, whose module names (`feed`, `go`, ...) would shadow others.
for _kind in ("unit", "integration"):
    for _folder in sorted((Path(__file__).parent / _kind).glob("**/")):
        if any(_folder.glob("test_*.py")) and str(_folder) not in sys.path:
            sys.path.append(str(_folder))

from services.eventlog.base import EventLog  # noqa: E402

LogFactory = Callable[[], EventLog]

#: The fuzz apps' request counts (tests/fuzz/conftest.py): this process's own, or on xdist's
#: controller (`-n 2`) the sum of the workers'.
FUZZ_STATS = pytest.StashKey[Any]()  # a fuzz.fuzz_support.Stats


def kafka_bootstrap() -> str | None:
    """The broker started by deploy/kafka/start. CI sets ARBITER_REQUIRE_KAFKA=1, so a missing
    broker fails there instead of silently skipping."""
    addr = os.environ.get("KAFKA_BOOTSTRAP")
    if not addr:
        if os.environ.get("ARBITER_REQUIRE_KAFKA") == "1":
            pytest.fail("KAFKA_BOOTSTRAP is not set but ARBITER_REQUIRE_KAFKA=1")
        pytest.skip("no broker: run deploy/kafka/start and export KAFKA_BOOTSTRAP")
    return addr


@pytest.fixture(params=["sqlite", pytest.param("kafka", marks=pytest.mark.kafka)])
def log_factory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LogFactory]:
    """Opens logs that share one store (a file, or a fresh Kafka topic), like separate
    processes would. The Kafka case is marked `kafka`, so `-m "not kafka"` leaves it out."""
    opened: list[EventLog] = []
    if request.param == "sqlite":
        from services.eventlog.sqlite import SQLiteEventLog

        path = tmp_path / "events.sqlite3"

        def make() -> EventLog:
            opened.append(SQLiteEventLog(path))
            return opened[-1]
    else:
        bootstrap = kafka_bootstrap()
        assert bootstrap is not None
        from services.eventlog.kafka import KafkaEventLog

        topic = f"arbiter.test.{uuid.uuid4().hex[:12]}"

        def make() -> EventLog:
            opened.append(KafkaEventLog(bootstrap, topic=topic, partitions=3))
            return opened[-1]

    yield make
    for log in opened:
        log.close()


@pytest.fixture
def log(log_factory: LogFactory) -> EventLog:
    return log_factory()


# -- the fuzz summary line ("fuzz: N requests, 0 × 5xx", tests/fuzz/conftest.py) --------------


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """xdist's controller: add a finished worker's fuzz counts to the session's."""
    counts = getattr(node, "workeroutput", {}).get("fuzz_stats")
    if not counts:
        return
    from fuzz.fuzz_support import Stats

    stats = node.config.stash.setdefault(FUZZ_STATS, Stats())
    stats.requests += counts["requests"]
    stats.statuses.update({int(k): v for k, v in counts["statuses"].items()})
    stats.server_errors += counts["server_errors"]
    stats.seconds += counts["seconds"]


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    stats = config.stash.get(FUZZ_STATS, None)
    if stats is None or hasattr(config, "workerinput"):
        return
    terminalreporter.write_line(
        f"fuzz: {stats.requests} requests, {len(stats.server_errors)} × 5xx "
        f"({stats.seconds:.1f} s with the fuzz apps up); statuses "
        + ", ".join(f"{k}×{v}" for k, v in sorted(stats.statuses.items()))
    )
    for line in stats.server_errors[:20]:
        terminalreporter.write_line(f"  5xx: {line}")
    out = Path(config.rootpath) / ".pytest_cache" / "fuzz-stats.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "requests": stats.requests,
                "statuses": dict(sorted(stats.statuses.items())),
                "server_errors": stats.server_errors,
                "seconds": round(stats.seconds, 1),
            },
            indent=1,
        )
    )
