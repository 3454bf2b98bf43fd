"""Smoke test of the endings benchmark: it runs (quick) and reports rates for the same moves.
No timing assertion: the figures depend on the machine."""

from __future__ import annotations

import math

import pytest
from bench import endings

pytestmark = pytest.mark.slow  # make test-fast leaves it out


def test_quick_run_reports_three_rates_on_the_same_moves():
    doc = endings.run(quick=True)
    if "skipped" in doc:
        pytest.skip(doc["skipped"])
    assert doc["games"] == 18
    assert doc["moves"] == 2554  # every game cut where the adjudicator ends it
    for name in ("bare_push", "push_uci", "adjudicator"):
        rate = doc["moves_per_s"][name]
        assert isinstance(rate, int) and rate > 0 and math.isfinite(rate)
    assert doc["adjudicator_vs_bare_push"] > 0
