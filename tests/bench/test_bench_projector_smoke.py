"""Smoke test of the projector benchmark: it runs (quick) and reports the projector's cost per
live move beside its peers. No timing assertions: the figures depend on the machine (and its
other load)."""

from __future__ import annotations

import pytest

from .projector import run

pytestmark = pytest.mark.slow


def test_quick_projector_bench_reports_a_live_move_beside_its_peers() -> None:
    doc = run(True)
    assert doc["moves"] > 0
    for key in ("projector_us", "apply_us", "messages_us", "full_rebuild_us"):
        assert doc[key]["mean"] > 0, key
    assert doc["orjson_dumps_games_us"]["mean"] > 0
    assert doc["projector_vs_orjson"] > 0 and doc["projector_vs_full_rebuild"] > 0
    # A move changes the games document only: one message per move, whatever the speed.
    assert doc["published_per_move"] == 1.0
