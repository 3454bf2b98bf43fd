"""`arbiter` commands for feed (registered by services/cli/main.py)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this module's commands to the `arbiter` app."""
