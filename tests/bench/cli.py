"""CLI start-up benchmark (issue 12, item 5): the wall time of `arbiter --help` and of
`arbiter standings` on a small log (the demo's), each a fresh process, beside a raw peer in
the same run: `python -c pass`, the interpreter's own start-up.

Run: `python -m tests.bench.cli [--runs N]` from the repository root; prints one JSON
document. Medians of N runs (default 5) after one warm-up run each. No figure is asserted:
the import guard is tests/unit/test_cli_startup.py. With PYTHONDONTWRITEBYTECODE set, the
project's modules are compiled on every start (`pyc_cache` says which case was measured).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
DEMO_TOURNAMENT = "demo-open-2026"


def arbiter() -> list[str]:
    """The `arbiter` console script beside this interpreter, else the module."""
    script = Path(sys.executable).parent / "arbiter"
    return [str(script)] if script.exists() else [sys.executable, "-m", "services.cli.main"]


def wall(argv: Sequence[str], runs: int) -> float:
    """Median wall time (s) of `argv`, a fresh process each run, after one warm-up run."""
    times = []
    for i in range(runs + 1):
        t0 = time.perf_counter()
        subprocess.run(argv, cwd=REPO, check=True, stdout=subprocess.DEVNULL)
        if i:
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


def run(runs: int = 5) -> dict[str, Any]:
    cli = arbiter()
    with tempfile.TemporaryDirectory(prefix="arbiter-bench-cli-") as tmp:
        db = Path(tmp) / "demo.sqlite3"
        subprocess.run([*cli, "demo", "--db", str(db)], cwd=REPO, check=True, capture_output=True)
        python = wall([sys.executable, "-c", "pass"], runs)
        help_s = wall([*cli, "--help"], runs)
        standings_s = wall([*cli, "standings", DEMO_TOURNAMENT, "--db", str(db)], runs)
    return {
        "runs": runs,
        "command": cli,
        "pyc_cache": "PYTHONDONTWRITEBYTECODE" not in os.environ,
        "python_pass_s": round(python, 4),
        "help_s": round(help_s, 4),
        "standings_s": round(standings_s, 4),
        "help_over_python": round(help_s / python, 1),
        "standings_over_python": round(standings_s / python, 1),
    }


def main(argv: Sequence[str] | None = None, emit: bool = True) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.cli")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    doc = run(args.runs)
    if emit:
        print(json.dumps(doc, indent=2))
    return doc


if __name__ == "__main__":
    main()
