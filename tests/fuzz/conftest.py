"""Fuzzing the HTTP API in process (issue 9, "no 500 for client input").

Each test module gets its own app (`fuzz_api`): the SQLite log and the token store in a tmp
dir, an admin token and an arbiter token scoped to `open-2026` (a swiss tournament with two
players and a round). Every request goes through `FuzzApi.call`, which counts it and fails on
any status ≥ 500, naming the request. The count is printed in the terminal summary
("fuzz: N requests, 0 × 5xx"), and written to `.pytest_cache/fuzz-stats.json`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from services.api.app import create_app
from services.commands.auth import TokenStore
from services.config import FeedSettings, Settings
from services.eventlog.sqlite import SQLiteEventLog

from .fuzz_support import TID, FuzzApi, Stats

STATS_KEY = pytest.StashKey[Stats]()


@pytest.fixture(scope="session")
def fuzz_stats(request: pytest.FixtureRequest) -> Stats:
    stats = Stats()
    request.config.stash[STATS_KEY] = stats
    return stats


@pytest.fixture(scope="module")
def fuzz_api(tmp_path_factory: pytest.TempPathFactory, fuzz_stats: Stats) -> Iterator[FuzzApi]:
    data = tmp_path_factory.mktemp("fuzz")
    started = time.monotonic()
    log = SQLiteEventLog(data / "events.sqlite3", synchronous="NORMAL")
    tokens = TokenStore(data / "tokens.sqlite3")
    # Anything the app makes on first use (the checkpoint key and store) goes to the tmp dir.
    settings = Settings(data_dir=data)
    app = create_app(log, tokens, feed=FeedSettings(keepalive=0.2), settings=settings)
    client = TestClient(app, raise_server_exceptions=False)
    api = FuzzApi(
        app,
        client,
        log,
        tokens,
        admin=tokens.create("admin", "chief")[0],
        arbiter=tokens.create("arbiter", "ref-1", [TID])[0],
        stats=fuzz_stats,
    )
    api.create(TID)
    try:
        yield api
    finally:
        feed = getattr(app.state, "feed", None)
        if feed is not None:
            feed.stop()
        client.close()
        log.close()
        tokens.close()
        fuzz_stats.seconds += time.monotonic() - started


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    stats = config.stash.get(STATS_KEY, None)
    if stats is None:
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
