"""Smoke test of the arena benchmark: it runs (quick) and reports both loops on the same games.
No timing assertions: the figures depend on the machine (and its other load)."""

from __future__ import annotations

import pytest

from .arena import run

pytestmark = pytest.mark.slow


def test_quick_arena_bench_reports_the_arena_beside_the_bare_loop() -> None:
    doc = run(True)
    (first,) = doc["runs"]
    assert first["moves"] == sum(first["plies_per_game"]) > 0
    rates = first["moves_per_s"]
    assert rates["arena"] > 0 and rates["bare_engine_play"] > 0
    assert doc["arena_vs_bare"] == first["arena_vs_bare"] > 0
