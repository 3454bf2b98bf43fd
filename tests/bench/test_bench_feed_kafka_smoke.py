"""Smoke test of the Kafka feed fan-out benchmark (`python -m tests.bench.feed_kafka`): it runs
(quick) against the real broker and reports deliveries per CPU-second for 1 and 2 feed
processes beside the bare asyncio peer, every subscriber served. No timing assertions: the
figures depend on the machine."""

from __future__ import annotations

import pytest
from conftest import kafka_bootstrap

from .feed_kafka import run

pytestmark = [pytest.mark.slow, pytest.mark.kafka]


def test_quick_feed_kafka_bench_reports_one_and_two_feed_processes_beside_the_peer() -> None:
    kafka_bootstrap()  # skips (or fails under ARBITER_REQUIRE_KAFKA) without a broker
    doc = run(True)
    for n in ("1", "2"):
        part = doc["feed_processes"][n]
        assert part["feed_processes"] == int(n) and len(part["per_process"]) == int(n)
        assert part["events"] > 0 and part["post_errors"] == 0
        # every event reached every subscriber, on whichever feed process it was
        assert part["undelivered"] == 0 and part["refused_subscribers"] == 0
        assert part["deliveries"] == part["events"] * part["subscribers"]
        assert all(p["deliveries"] > 0 for p in part["per_process"].values())
    rates = doc["deliveries_per_cpu_s"]
    assert rates["1_feed_process"] > 0 and rates["2_feed_processes"] > 0
    assert rates["raw_peer"] > 0 and rates["ratio_1_to_peer"] > 0
