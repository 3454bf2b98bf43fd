"""Smoke test of the Go arena benchmark: it runs (quick) and reports the arena beside the bare
GTP loop on the same games. No timing assertions: the figures depend on the machine."""

from __future__ import annotations

import pytest

from .arena_go import run

pytestmark = pytest.mark.slow


def test_quick_go_arena_bench_reports_the_arena_beside_the_bare_gtp_loop() -> None:
    doc = run(True)
    (first,) = doc["runs"]
    assert first["games"] == 2  # a McMahon round of four
    assert first["moves"] == sum(first["plies_per_game"]) > 0
    rates = first["moves_per_s"]
    assert rates["arena"] > 0 and rates["bare_gtp_loop"] > 0
    assert doc["arena_vs_bare"] == first["arena_vs_bare"] > 0
