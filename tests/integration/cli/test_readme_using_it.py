"""The README's "Using it" (the organiser's worked example and the lower-level commands after
it) names only commands and options `arbiter` has: each `arbiter …` line there is checked
against the CLI's own command tree."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import typer

from services.cli.main import app

README = Path(__file__).resolve().parents[3] / "README.md"


def _using_it() -> list[str]:
    text = README.read_text(encoding="utf-8")
    start = text.index("## Using it\n")
    end = text.index("\n### ", text.index("### Events, schemas, tokens"))
    block = text[start:end]
    lines, joined = [], ""
    for raw in block.splitlines():
        line = raw.split("  #")[0].rstrip()
        if joined:
            joined += " " + line.strip().rstrip("\\")
            if not line.endswith("\\"):
                lines.append(joined)
                joined = ""
        elif line.startswith(("arbiter ", "export ARBITER")):
            if line.endswith("\\"):
                joined = line.rstrip("\\")
            elif line.startswith("arbiter "):
                lines.append(line)
    return lines


def _command(words: list[str]) -> tuple[Any, list[str]]:
    """The command `words` name (a group's subcommand too) and the words after its name."""
    cmd: Any = typer.main.get_command(app)
    rest = words[1:]
    while hasattr(cmd, "commands") and rest and rest[0] in cmd.commands:
        cmd, rest = cmd.commands[rest[0]], rest[1:]
    return cmd, rest


def test_every_command_and_option_of_using_it_exists():
    lines = _using_it()
    names = {shlex.split(ln)[1] for ln in lines}
    assert {"create", "register", "players", "bye", "pair", "round", "results", "result",
            "withdraw", "correct", "standings", "crosstable", "export", "token", "serve",
            "append", "events", "schema"} <= names  # fmt: skip
    for line in lines:
        cmd, rest = _command(shlex.split(line))
        assert not hasattr(cmd, "commands"), line  # a command, not a group
        known = {opt for p in cmd.params for opt in (*p.opts, *p.secondary_opts)}
        for word in rest:
            if re.fullmatch(r"--?[a-z][a-z-]*", word):
                assert word in known, f"{line}: {word} is not an option of {cmd.name}"
