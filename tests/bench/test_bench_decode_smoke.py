"""Smoke test of the decode benchmark: it runs (quick, on one tournament) and reports the
one-pass decode beside the two-pass decode and orjson.loads of the same bodies, having checked
on a sample that both decodes give the same events. No timing assertions."""

from __future__ import annotations

import pytest

from .decode import run

pytestmark = pytest.mark.slow


def test_quick_decode_bench_reports_one_pass_beside_its_peers() -> None:
    doc = run(True)
    for part in ("current_versions", "old_versions_upcast"):
        got = doc[part]
        assert got["events"] > 1000
        assert set(got["events_per_s"]) == {"orjson_loads", "two_pass", "one_pass"}
        assert all(v > 0 for v in got["events_per_s"].values())
        assert got["ratios"]["one_pass_over_orjson_loads"] > 0
