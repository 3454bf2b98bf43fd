"""`arbiter demo`: the main job, a small tournament on the embedded log, start to standings
(the script it runs: services/cli/demo_script.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from services.cli.render import out


def demo(
    db: Annotated[Path, typer.Option(help="demo log file (recreated)")] = Path(
        "arbiter-data/demo.sqlite3"
    ),
) -> None:
    """The main job: a small tournament on the embedded log, start to standings."""
    from services.cli.demo_script import run_demo

    run_demo(db, out)


def register(app: typer.Typer) -> None:
    """Add `demo` to the `arbiter` app."""
    app.command()(demo)
