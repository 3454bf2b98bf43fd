"""The projector's cost of a live move (issue 27 item 3), beside the projector that builds every
document after every event, in the same run, as one JSON document.

One 16-player Swiss of 15 rounds (`tests.bench.replay.tournament_events`: real moves with
clocks and evals, results), folded event by event through two projectors side by side, each
publishing after every event as the live runner does (`Projector.run([env])`):

- `projector`: the projector as it is: a move or a clock of a game without a result builds and
  serialises the games document alone (`projections.documents.changed_by`);
- `every_document`: the same projector told before each event that every document may have
  changed (`mark_all_changed`): what it did before, building all five to find four byte-equal.

Per event kind (`MovePlayed`, other), µs per event (mean and p50) of each, and the ratio. Both
publish the same messages (checked on every event).

Run: `python -m tests.bench.projector_move [--quick]` (also `python -m tests.bench --only
projector_move`).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from typing import Any

from .runner import ensure_paths, random_games

ensure_paths()

from events_schema import GENESIS_HASH  # noqa: E402
from services.projection.projector import Projector  # noqa: E402

from .replay import tournament_events  # noqa: E402


def _stats(us: list[float]) -> dict[str, float]:
    return {
        "events": len(us),
        "mean_us": round(statistics.fmean(us), 1),
        "p50_us": round(statistics.median(us), 1),
    }


def run(quick: bool) -> dict[str, Any]:
    rng = random.Random(2026)
    games = random_games(12, rng)
    events = list(tournament_events("bench-move", rng, games))
    if quick:
        events = events[:1500]
    fast, every = Projector(), Projector()
    times: dict[str, dict[str, list[float]]] = {
        "projector": {"move": [], "other": []},
        "every_document": {"move": [], "other": []},
    }
    prev = GENESIS_HASH
    t_rec = events[0].occurred_at
    for seq, e in enumerate(events, start=1):
        env = e.sealed("bench-move", seq, prev, t_rec)
        prev = env.hash
        kind = "move" if env.type == "MovePlayed" else "other"
        t0 = time.perf_counter()
        got = fast.run([env])
        t1 = time.perf_counter()
        every.mark_all_changed("bench-move")
        want = every.run([env])
        t2 = time.perf_counter()
        assert [m.body for m in got] == [m.body for m in want], (seq, env.type)
        times["projector"][kind].append((t1 - t0) * 1e6)
        times["every_document"][kind].append((t2 - t1) * 1e6)
    out: dict[str, Any] = {"events": len(events)}
    for kind in ("move", "other"):
        mine = _stats(times["projector"][kind])
        peer = _stats(times["every_document"][kind])
        out[kind] = {
            "projector": mine,
            "every_document": peer,
            "speedup_mean": round(peer["mean_us"] / mine["mean_us"], 2),
        }
    return out


def main(argv: list[str] | None = None, emit: bool = True) -> dict[str, Any]:
    ap = argparse.ArgumentParser(prog="python -m tests.bench.projector_move")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    doc = run(args.quick)
    if emit:
        print(json.dumps(doc, indent=2))
    return doc


if __name__ == "__main__":
    main()
