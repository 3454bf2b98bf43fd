"""Smoke test of the projector-per-move benchmark: it runs (quick) and reports the projector
beside the every-document projector on the same events (their messages checked equal on every
event inside the run). No timing assertions."""

from __future__ import annotations

import pytest

from .projector_move import run

pytestmark = pytest.mark.slow


def test_quick_projector_move_bench_reports_both_projectors() -> None:
    doc = run(True)
    assert doc["events"] == 1500
    for kind in ("move", "other"):
        assert doc[kind]["projector"]["events"] == doc[kind]["every_document"]["events"] > 0
        assert doc[kind]["speedup_mean"] > 0
