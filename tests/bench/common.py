"""What the benchmark parts share: the interleaved best-of timing and the `--quick` entry
point each part runs as `python -m tests.bench.NAME`."""

from __future__ import annotations

import argparse
import gc
import json
import time
from collections.abc import Callable, Sequence
from typing import Any


def best_of(fns: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """The best time of each function, the runs interleaved (one of each per round) so that a
    slower or faster spell of the machine falls on all of them alike."""
    best = dict.fromkeys(fns, float("inf"))
    gc_was = gc.isenabled()
    gc.disable()
    try:
        for fn in fns.values():  # warm up
            fn()
        for _ in range(repeats):
            for name, fn in fns.items():
                t0 = time.perf_counter()
                fn()
                best[name] = min(best[name], time.perf_counter() - t0)
    finally:
        if gc_was:
            gc.enable()
    return best


def quick_main(
    name: str,
    run: Callable[[bool], dict[str, Any]],
    argv: Sequence[str] | None = None,
    emit: bool = True,
) -> dict[str, Any]:
    """`python -m tests.bench.NAME [--quick]`: run the part, print its JSON document."""
    ap = argparse.ArgumentParser(prog=f"python -m tests.bench.{name}")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    doc = run(args.quick)
    if emit:
        print(json.dumps(doc, indent=2))
    return doc
