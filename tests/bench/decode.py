"""Decode of stored events (issue 27 item 5): the one-pass decode beside its peers on the same
bodies in the same run, as one JSON document.

The bodies: the replay benchmark's tournaments (`tests.bench.replay.tournament_events`: a
16-player Swiss, real moves with clocks and evals, results), sealed into a hash chain in memory
twice: at each type's current `schema_version` (the payload upcast first: what a tournament
stores today) and at the versions the replay benchmark writes (v1, PlayerRegistered v2: every
payload upcast on read). Per body set, events/s of (best of `REPEATS` passes, single thread):

- `orjson_loads`: `orjson.loads` of each body (the raw peer);
- `two_pass`: `Envelope.model_validate_json` (the payload a plain dict), then `Recorded.of`
  validates the payload dict into its class (upcast, `model_validate`): how every reader
  decoded stored events before;
- `one_pass`: `read_envelope` + `Recorded.of`, what every reader does now: one `validate_json`
  over the discriminated union of `events_schema/stored.py` (older versions: the envelope in
  that pass, then the upcast payload validated as before).

`ratios`: each rate over `orjson_loads`, and `one_pass_over_two_pass`.

Run: `python -m tests.bench.decode [--quick]` (also `python -m tests.bench --only decode`).
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import random
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import orjson

from .runner import ensure_paths, random_games

ensure_paths()

from builders import T0  # noqa: E402

from events_schema import EVENT_TYPES, GENESIS_HASH, Envelope, Recorded, decode  # noqa: E402
from events_schema.envelope import read_envelope  # noqa: E402
from events_schema.upcasters import upcast  # noqa: E402
from services.eventlog.base import NewEvent  # noqa: E402

from .replay import tournament_events  # noqa: E402

REPEATS = 5


def _current(e: NewEvent) -> NewEvent:
    target = EVENT_TYPES[e.type].schema_version
    payload = upcast(e.type, e.schema_version, e.payload, target)
    return dataclasses.replace(e, schema_version=target, payload=payload)


def bodies(tournaments: int, current: bool, seed: int = 2026) -> list[bytes]:
    rng = random.Random(seed)
    games = random_games(12, rng)
    out: list[bytes] = []
    for t in range(tournaments):
        tid = f"bench-{t:03d}"
        prev = GENESIS_HASH
        for seq, e in enumerate(tournament_events(tid, rng, games), start=1):
            env = (_current(e) if current else e).sealed(
                tid, seq, prev, T0 + timedelta(seconds=seq)
            )
            prev = env.hash
            out.append(env.to_bytes())
    return out


def _two_pass(body: bytes) -> Any:
    return Recorded.of(Envelope.model_validate_json(body)).event


def _one_pass(body: bytes) -> Any:
    return Recorded.of(read_envelope(body)).event


def _rate(fn: Callable[[bytes], Any], data: list[bytes]) -> float:
    best = float("inf")
    gc.collect()
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        for b in data:
            fn(b)
        best = min(best, time.perf_counter() - t0)
    return len(data) / best


def measure(data: list[bytes]) -> dict[str, Any]:
    # Same answers first: the one-pass decode is the two-pass decode, faster.
    for b in data[:: max(1, len(data) // 500)]:
        assert _one_pass(b) == _two_pass(b) == decode(Envelope.model_validate_json(b))
        assert read_envelope(b) == Envelope.model_validate_json(b)
    _one_pass(data[0])  # the union is built on first use, not timed
    rates = {
        "orjson_loads": _rate(orjson.loads, data),
        "two_pass": _rate(_two_pass, data),
        "one_pass": _rate(_one_pass, data),
    }
    return {
        "events": len(data),
        "events_per_s": {k: round(v) for k, v in rates.items()},
        "us_per_event": {k: round(1e6 / v, 2) for k, v in rates.items()},
        "ratios": {
            "two_pass_over_orjson_loads": round(rates["two_pass"] / rates["orjson_loads"], 3),
            "one_pass_over_orjson_loads": round(rates["one_pass"] / rates["orjson_loads"], 3),
            "one_pass_over_two_pass": round(rates["one_pass"] / rates["two_pass"], 3),
        },
    }


def run(quick: bool) -> dict[str, Any]:
    n = 1 if quick else 4
    return {
        "tournaments": n,
        "repeats": REPEATS,
        "current_versions": measure(bodies(n, current=True)),
        "old_versions_upcast": measure(bodies(n, current=False)),
    }


def main(argv: list[str] | None = None, emit: bool = True) -> dict[str, Any]:
    ap = argparse.ArgumentParser(prog="python -m tests.bench.decode")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    doc = run(args.quick)
    if emit:
        print(json.dumps(doc, indent=2))
    return doc


if __name__ == "__main__":
    main()
