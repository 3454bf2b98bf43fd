"""Smoke test of the benchmark: it runs (quick, SQLite only) and prints the expected JSON.
No timing assertions: the figures depend on the machine."""

from __future__ import annotations

import json
import math

import pytest

from .runner import exit_code, main

pytestmark = pytest.mark.slow  # make test-fast leaves it out


SQLITE_RATES = (
    "append_batched_events_per_s",
    "append_single_events_per_s",
    "read_envelopes_per_s",
    "read_and_decode_payload_per_s",
    "decode_envelope_bytes_per_s",
)
CPU_RATES = (
    "seal_events_per_s",
    "envelope_to_bytes_per_s",
    "decode_envelope_bytes_per_s",
    "decode_payload_per_s",
)


def _positive(x: object) -> bool:
    return isinstance(x, int | float) and x > 0 and math.isfinite(x)


def test_quick_sqlite_only_prints_one_json_document(capsys: pytest.CaptureFixture[str]):
    doc = main(["--quick", "--skip-kafka"])
    out = capsys.readouterr().out
    assert json.loads(out) == json.loads(json.dumps(doc))  # stdout: exactly this document

    assert doc["machine"]["python"]
    assert _positive(doc["machine"]["cpu_count"])
    assert doc["params"]["quick"] is True
    assert doc["params"]["batch_size"] == 100

    for key in CPU_RATES:
        assert _positive(doc["cpu"][key]), key
    sqlite = doc["sqlite"]
    for key in SQLITE_RATES:
        assert _positive(sqlite[key]), key
    runs = sqlite["runs"]
    assert runs["append_batched"]["events"] == doc["params"]["sqlite_batched_events"]
    assert runs["append_single"]["events"] == doc["params"]["sqlite_single_events"]
    assert runs["read_and_decode"]["events"] == runs["append_batched"]["events"]
    assert _positive(sqlite["db_file_bytes_per_event"])

    assert doc["kafka"] == {"skipped": "--skip-kafka"}
    assert exit_code(doc) == 0


def test_events_override_scales_the_sizes(capsys: pytest.CaptureFixture[str]):
    doc = main(["--events", "300", "--skip-kafka"])
    capsys.readouterr()
    assert doc["params"]["sqlite_batched_events"] == 300
    assert doc["sqlite"]["runs"]["append_batched"]["events"] == 300
    assert _positive(doc["sqlite"]["append_batched_events_per_s"])
