"""Fuzzing the HTTP API in process (issue 9, "no 500 for client input").

Each test module gets its own app (`fuzz_api`): the SQLite log and the token store in a tmp
dir, an admin token and an arbiter token scoped to `open-2026` (a swiss tournament with two
players and a round). Every request goes through `FuzzApi.call`, which counts it and fails on
any status ≥ 500, naming the request. The count is printed in the terminal summary
("fuzz: N requests, 0 × 5xx"), and written to `.pytest_cache/fuzz-stats.json`, by
tests/conftest.py, which also adds up the counts of xdist's workers (`-n 2`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from conftest import FUZZ_STATS
from fastapi.testclient import TestClient

from services.api.app import create_app
from services.commands.auth import TokenStore
from services.config import FeedSettings, Settings
from services.eventlog.sqlite import SQLiteEventLog

from .fuzz_support import TID, FuzzApi, Stats


@pytest.fixture(scope="session")
def fuzz_stats(request: pytest.FixtureRequest) -> Stats:
    stats = Stats()
    request.config.stash[FUZZ_STATS] = stats
    return stats


def pytest_sessionfinish(session: pytest.Session) -> None:
    """On an xdist worker: hand this worker's counts to the controller (tests/conftest.py's
    `pytest_testnodedown` adds them up for the summary)."""
    stats = session.config.stash.get(FUZZ_STATS, None)
    workeroutput = getattr(session.config, "workeroutput", None)
    if stats is not None and workeroutput is not None:
        workeroutput["fuzz_stats"] = {  # plain types: execnet sends no Counter
            "requests": stats.requests,
            "statuses": {int(k): int(v) for k, v in stats.statuses.items()},
            "server_errors": list(stats.server_errors),
            "seconds": stats.seconds,
        }


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
