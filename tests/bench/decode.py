"""Decode of stored events (issue 27 item 5): a one-pass decode beside the reader's two-pass
decode and `orjson.loads`, on the same bodies in the same run, as one JSON document.

The bodies: the replay benchmark's tournaments (`tests.bench.replay.tournament_events`: a
16-player Swiss, real moves with clocks and evals, results), sealed into a hash chain in memory
twice: at each type's current `schema_version` (the payload upcast first: what a tournament
stores today) and at the versions the replay benchmark writes (v1, PlayerRegistered v2: every
payload upcast on read). Per body set, events per CPU second of this process (best of
`REPEATS` passes, the peers' passes interleaved, one thread: on a machine shared with other
work the CPU time is the steadier figure) of:

- `orjson_loads`: `orjson.loads` of each body (the raw peer);
- `two_pass`: what every reader does (`Recorded.of(read_envelope(body))`):
  `Envelope.model_validate_json` (the payload a plain dict), then the payload dict validated
  into its class (upcast first when old);
- `one_pass`: the design issue 27 item 5 proposes, built in `tests.bench.one_pass` (not wired
  into the readers): a peek at the body's last keys (canonical bytes end with
  `"schema_version":N,...,"type":"X"}`) picks the envelope model specialised to that type at
  its current version (`type` and `schema_version` literals, `payload` the event class: no
  union to dispatch on), validated once in strict mode; the payload dict the envelope must
  keep (it is hashed and served) is taken from the event's values (exact for fields of
  JSON-native types in strict mode), and the event goes with it. Old versions (and types whose
  payload holds nested models) take the two passes after the peek.

`ratios`: each rate over `orjson_loads`, and `one_pass_over_two_pass`. Before each run, a
sample of bodies is checked to decode to the same envelope, payload dict and event both ways.

What it showed on 2 shared cores (issue 27, CPU time, `--quick`, 3 runs): the one pass is
1.00–1.02× the two passes on current versions and 0.83–0.89× on old ones. Counted in
instructions (callgrind, 1,000 mixed bodies): the readers' two passes cost about 75,000 a
current body and 80,000 an old one; the specialised strict pass with the payload dict built
beside it (a second field aliased to `payload`, the earlier attempt) 67,700, with the dict
taken from the event's values 68,500, the peek that picks the model 6,100 to 7,300 of those,
which an old body pays for nothing (+7.6 %). Typed validation of the payload costs pydantic
about as much from the JSON as from the dict, and the dict must be built either way (it is
hashed and served), so the one pass saves only the hop between the passes, which the peek
and the glue give back. The readers keep the two passes.

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

from events_schema import (  # noqa: E402
    EVENT_TYPES,
    GENESIS_HASH,
    Envelope,
    Recorded,
    decode,
)
from events_schema.envelope import read_envelope  # noqa: E402
from events_schema.upcasters import upcast  # noqa: E402
from services.eventlog.base import NewEvent  # noqa: E402

from .one_pass import decode_current  # noqa: E402
from .replay import tournament_events  # noqa: E402

REPEATS = 7


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


def _one_pass(body: bytes) -> Any:
    rec = decode_current(body)
    return (rec if rec is not None else Recorded.of(read_envelope(body))).event


def _two_pass(body: bytes) -> Any:
    return Recorded.of(read_envelope(body)).event


def _rates(fns: dict[str, Callable[[bytes], Any]], data: list[bytes]) -> dict[str, float]:
    """Events per CPU second of each, best of REPEATS passes, the peers' passes interleaved (the
    machine's other load falls on all of them alike)."""
    best = dict.fromkeys(fns, float("inf"))
    gc.collect()
    for _ in range(REPEATS):
        for name, fn in fns.items():
            t0 = time.process_time()
            for b in data:
                fn(b)
            best[name] = min(best[name], time.process_time() - t0)
    return {name: len(data) / t for name, t in best.items()}


def measure(data: list[bytes]) -> dict[str, Any]:
    # Same answers first: the one-pass decode is the two-pass decode.
    for b in data[:: max(1, len(data) // 500)]:
        ref = Envelope.model_validate_json(b)
        rec = decode_current(b)
        if rec is not None:
            assert rec.envelope == ref and rec.envelope.payload == ref.payload
            assert rec.envelope.to_bytes() == b
        assert _one_pass(b) == _two_pass(b) == decode(ref)
    rates = _rates(
        {"orjson_loads": orjson.loads, "two_pass": _two_pass, "one_pass": _one_pass}, data
    )
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
