"""CLI start-up benchmark (issue 12, item 5): the wall time of `arbiter --help` and of
`arbiter standings` on a small log (the demo's), each a fresh process, beside two raw peers in
the same run: `python -c pass`, the interpreter's own start-up, and the floor of the stack the
CLI is built on (`FLOOR_CODE`: typer, pydantic and rich doing the least a `standings` does).

Run: `python -m tests.bench.cli [--runs N]` from the repository root; prints one JSON
document. Medians of N runs (default 5) after one warm-up run each. No figure is asserted:
the import guard is tests/unit/services/cli/test_cli_startup.py. With PYTHONDONTWRITEBYTECODE set,
the
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


def wall(argv: Sequence[str], runs: int) -> tuple[float, float]:
    """Median wall time and median CPU time (user + system, s) of `argv`, a fresh process
    each run, after one warm-up run. The CPU time is what the process itself spent: on this
    shared machine it moves much less than the wall time with other jobs' load."""
    times, cpus = [], []
    for i in range(runs + 1):
        before = os.times()
        t0 = time.perf_counter()
        subprocess.run(argv, cwd=REPO, check=True, stdout=subprocess.DEVNULL)
        elapsed = time.perf_counter() - t0
        after = os.times()
        if i:
            times.append(elapsed)
            cpus.append(
                after.children_user
                - before.children_user
                + after.children_system
                - before.children_system
            )
    return statistics.median(times), statistics.median(cpus)


# The stack's own floor, a second raw peer: a one-command typer app with `standings`'s
# parameters that validates one pydantic model and prints a rich table, with pydantic's
# plugins off as in `arbiter`. What `arbiter standings` adds to it is Arbiter's: the event
# contract, the log, the fold, the tiebreaks.
FLOOR_CODE = """
import os
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
from pathlib import Path
from typing import Annotated
import pydantic, typer
class Row(pydantic.BaseModel):
    player: str
    points: int
app = typer.Typer(add_completion=False)
@app.command()
def standings(
    tournament: str,
    at: Annotated[int | None, typer.Option()] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
    backend: Annotated[str | None, typer.Option()] = None,
    db: Annotated[Path | None, typer.Option()] = None,
) -> None:
    row = Row.model_validate({"player": tournament, "points": 1})
    if as_json:
        print(row.model_dump_json())
        return
    from rich.console import Console
    from rich.table import Table
    table = Table()
    table.add_column("player")
    table.add_row(row.player)
    Console().print(table)
app()
"""


def run(runs: int = 5) -> dict[str, Any]:
    cli = arbiter()
    with tempfile.TemporaryDirectory(prefix="arbiter-bench-cli-") as tmp:
        db = Path(tmp) / "demo.sqlite3"
        subprocess.run([*cli, "demo", "--db", str(db)], cwd=REPO, check=True, capture_output=True)
        python, python_cpu = wall([sys.executable, "-c", "pass"], runs)
        help_s, help_cpu = wall([*cli, "--help"], runs)
        standings_s, standings_cpu = wall(
            [*cli, "standings", DEMO_TOURNAMENT, "--db", str(db)], runs
        )
        json_s, json_cpu = wall(
            [*cli, "standings", DEMO_TOURNAMENT, "--db", str(db), "--json"], runs
        )
        floor_s, floor_cpu = wall([sys.executable, "-c", FLOOR_CODE, DEMO_TOURNAMENT], runs)
    return {
        "runs": runs,
        "command": cli,
        "pyc_cache": "PYTHONDONTWRITEBYTECODE" not in os.environ,
        "python_pass_s": round(python, 4),
        "help_s": round(help_s, 4),
        "standings_s": round(standings_s, 4),
        "standings_json_s": round(json_s, 4),
        "cpu_s": {
            "python_pass": round(python_cpu, 4),
            "help": round(help_cpu, 4),
            "standings": round(standings_cpu, 4),
            "standings_json": round(json_cpu, 4),
            "typer_pydantic_rich_floor": round(floor_cpu, 4),
        },
        "typer_pydantic_rich_floor_s": round(floor_s, 4),
        "help_over_python": round(help_s / python, 1),
        "standings_over_python": round(standings_s / python, 1),
        "standings_over_floor": round(standings_s / floor_s, 2),
        "aim_s": 0.2,  # issue 12 item 5: `--help` and `standings` on a small log
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
