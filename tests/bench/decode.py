"""Decode of stored events (issue 27 item 5): a one-pass decode beside the reader's two-pass
decode and `orjson.loads`, on the same bodies in the same run, as one JSON document.

The bodies: the replay benchmark's tournaments (`tests.bench.replay.tournament_events`: a
16-player Swiss, real moves with clocks and evals, results), sealed into a hash chain in memory
twice: at each type's current `schema_version` (the payload upcast first: what a tournament
stores today) and at the versions the replay benchmark writes (v1, PlayerRegistered v2: every
payload upcast on read). Per body set, events/s (best of `REPEATS` passes, the peers' passes
interleaved, one thread) of:

- `orjson_loads`: `orjson.loads` of each body (the raw peer);
- `two_pass`: what every reader does (`Recorded.of(read_envelope(body))`):
  `Envelope.model_validate_json` (the payload a plain dict), then the payload dict validated
  into its class (upcast first when old);
- `one_pass`: the design issue 27 item 5 proposes, built here: one `validate_json` over a
  union tagged by `type` then `schema_version` whose member for a current version validates
  `payload` into the event class and, under the same key, `raw`, the plain dict the `Envelope`
  must keep (its hash and stored bytes are the dict's); the member becomes the `Envelope`
  (same layout) and the event comes with it. Older versions: the envelope in that pass, the
  upcast payload validated as before.

`ratios`: each rate over `orjson_loads`, and `one_pass_over_two_pass`.

What it showed on 2 shared cores (issue 27): this one pass, handing its event straight to
`Recorded`, is 1.25–1.29× the two passes on current versions (about 9.3 µs against 11.8 per
event) and 0.91–1.05× on old ones. Wired into the readers as they are (the log returns
envelopes, `Recorded.of` decodes later: the event carried on the envelope in pydantic's private
slot, `read_envelope` trying the union first) the gain fell to about 1.05× (9.8 µs against
10.3), and old versions lost 5–9 %: each hop costs about 0.3–0.4 µs here. So the readers keep
the two-pass decode; the gain needs the log to return (envelope, event) pairs from its reads.
Either way the payload dict the envelope keeps (hashed and served as stored) is built in the
same pass (`raw`, about 1.3–1.7 µs), which is why the issue's 8.4 µs union (payload typed
only) is not reached, nor 25 % of `orjson_loads`.

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
from typing import Annotated, Any, Literal, Union

import orjson

from .runner import ensure_paths, random_games

ensure_paths()

from builders import T0  # noqa: E402
from pydantic import Field, TypeAdapter, create_model  # noqa: E402

from events_schema import (  # noqa: E402
    EVENT_CLASSES,
    EVENT_TYPES,
    GENESIS_HASH,
    Envelope,
    Event,
    Recorded,
    decode,
)
from events_schema.envelope import read_envelope  # noqa: E402
from events_schema.upcasters import UPCASTERS, upcast  # noqa: E402
from services.eventlog.base import NewEvent  # noqa: E402

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


def _member(cls: type[Event], version: int) -> type[Envelope]:
    fields: dict[str, Any] = {
        "type": (Literal[cls.event_type], ...),
        "schema_version": (Literal[version], ...),
    }
    if version == cls.schema_version:
        fields["payload"] = (cls, ...)
        fields["raw"] = (dict[str, Any], Field(validation_alias="payload"))
    return create_model(f"Stored{cls.event_type}V{version}", __base__=Envelope, **fields)


def _union() -> TypeAdapter[Any]:
    per_type: list[Any] = []
    for cls in EVENT_CLASSES:
        olds = sorted(v for (t, v) in UPCASTERS if t == cls.event_type)
        members = [_member(cls, v) for v in (*olds, cls.schema_version)]
        per_type.append(
            members[0]
            if len(members) == 1
            else Annotated[Union[tuple(members)], Field(discriminator="schema_version")]  # noqa: UP007
        )
    union: Any = Annotated[Union[tuple(per_type)], Field(discriminator="type")]  # noqa: UP007
    return TypeAdapter(union)


_UNION: TypeAdapter[Any] | None = None


def _one_pass(body: bytes) -> Any:
    """The envelope and its event from one validation (see the module docstring); what the
    union refuses goes the two-pass way, which names why."""
    try:
        env = _UNION.validate_json(body)  # type: ignore[union-attr]
    except Exception:
        return _two_pass(body)
    values = env.__dict__
    event = None
    if "raw" in values:
        event = values["payload"]
        values["payload"] = values.pop("raw")
        env.__pydantic_fields_set__.discard("raw")
    object.__setattr__(env, "__class__", Envelope)
    return Recorded(env, event).event if event is not None else Recorded.of(env).event


def _two_pass(body: bytes) -> Any:
    return Recorded.of(read_envelope(body)).event


def _rates(fns: dict[str, Callable[[bytes], Any]], data: list[bytes]) -> dict[str, float]:
    """Events/s of each, best of REPEATS passes, the peers' passes interleaved (the machine's
    other load falls on all of them alike)."""
    best = dict.fromkeys(fns, float("inf"))
    gc.collect()
    for _ in range(REPEATS):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            for b in data:
                fn(b)
            best[name] = min(best[name], time.perf_counter() - t0)
    return {name: len(data) / t for name, t in best.items()}


def measure(data: list[bytes]) -> dict[str, Any]:
    # Same answers first: the one-pass decode is the two-pass decode, faster.
    global _UNION
    if _UNION is None:
        _UNION = _union()  # built once, not timed
    for b in data[:: max(1, len(data) // 500)]:
        assert _one_pass(b) == _two_pass(b) == decode(Envelope.model_validate_json(b))
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
