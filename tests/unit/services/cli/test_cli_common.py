"""services/cli/common.py: one way for every command to end on a refusal or a log error."""

from __future__ import annotations

import pytest
import typer

from services.cli.common import refusals
from services.commands.service import CommandRejected
from services.eventlog.base import AppendConflict, EventLogUnavailable


@pytest.mark.parametrize(
    ("exc", "line"),
    [
        (CommandRejected("game.finished", "payload.game_id", "g1 has a result"), "game.finished"),
        (AppendConflict("t1", 3, 4), "concurrency.expected_seq"),
        (EventLogUnavailable("broker down"), "eventlog.unavailable"),
    ],
)
def test_refusals_print_the_rule_and_exit_1(
    exc: Exception, line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(typer.Exit) as exited, refusals():
        raise exc
    assert exited.value.exit_code == 1
    assert f"refused {line} (" in capsys.readouterr().err


def test_other_errors_pass_through() -> None:
    with pytest.raises(KeyError), refusals():
        raise KeyError("x")
