"""Smoke test of the replay benchmark: it runs (a few thousand events) and reports Arbiter's
replay beside both peers, `orjson.loads` of the same stored bodies and pyeventsourcing's
notification projection of the same events (issue 27 item 7); the peer folded every event
Arbiter stored, type by type. No timing assertions."""

from __future__ import annotations

import pytest

from .replay import main

pytestmark = pytest.mark.slow


def test_replay_bench_reports_replay_beside_orjson_and_pyeventsourcing() -> None:
    doc = main(["--events", "3000", "--repeats", "1"], emit=False)["sqlite"]
    assert doc["replay"]["events"] == 3000
    peer = doc["pyeventsourcing"]
    # One `Created` per aggregate (pyeventsourcing's own), then every event Arbiter stored.
    assert peer["per_type"].pop("Created") == peer["aggregates"] == doc["tournaments"]
    assert sum(peer["per_type"].values()) == 3000
    assert peer["per_type"]["TournamentCreated"] == doc["tournaments"]
    assert peer["per_type"]["MovePlayed"] > 2000
    assert peer["events_per_s"] > 0
    for name in ("replay_over_orjson_loads", "replay_over_pyeventsourcing"):
        assert doc["ratios"][name] > 0, name
