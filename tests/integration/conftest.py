"""Fixtures the CLI tests share."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests_support import cli_db


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An embedded log for a CLI test (`tests_support.cli_db`). A module that needs another
    log defines its own `db`, which takes precedence."""
    return cli_db(tmp_path, monkeypatch)
