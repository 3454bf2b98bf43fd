"""One convention for the `arbiter` commands: every command module of services/cli/ exposes
`register(app)` and is listed once in `services.cli.main.COMMANDS`, whose order is the order
`arbiter --help` lists the commands and groups in."""

from __future__ import annotations

import ast
from pathlib import Path

import typer

from services.cli import main

CLI = Path(main.__file__).resolve().parent


def _modules_with_register() -> set[str]:
    found = set()
    for path in CLI.glob("*.py"):
        tree = ast.parse(path.read_text())
        if any(isinstance(n, ast.FunctionDef) and n.name == "register" for n in tree.body):
            found.add(f"services.cli.{path.stem}")
    return found


def test_every_command_module_is_listed_once() -> None:
    listed = [m.__name__ for m in main.COMMANDS]
    assert len(listed) == len(set(listed))
    assert set(listed) == _modules_with_register()


def test_registering_the_modules_in_order_builds_the_app() -> None:
    app = typer.Typer()
    for module in main.COMMANDS:
        module.register(app)
    main.organiser_first(app.registered_commands)

    def names(group: typer.Typer) -> list[object]:
        return [(c.name, c.callback) for c in group.registered_commands] + [
            (g.name, names(g.typer_instance)) for g in group.registered_groups if g.typer_instance
        ]

    assert names(app) == names(main.app)


def test_help_lists_the_organisers_day_first() -> None:
    """`arbiter --help` starts with the commands an organiser runs, in the order of the day."""
    from typer.testing import CliRunner

    out = CliRunner().invoke(main.app, ["--help"], terminal_width=120).stdout
    listed = [
        line.split()[0] for line in out.split("Commands:")[1].splitlines() if line.startswith("  ")
    ]
    assert listed[:12] == [
        "create",
        "register",
        "players",
        "pair",
        "round",
        "result",
        "results",
        "bye",
        "withdraw",
        "correct",
        "standings",
        "crosstable",
    ]


def test_each_organiser_command_has_a_worked_example_in_its_help() -> None:
    from typer.testing import CliRunner

    runner = CliRunner()
    for name in main.ORGANISER_FIRST:
        out = " ".join(runner.invoke(main.app, [name, "--help"], terminal_width=200).stdout.split())
        assert f"arbiter {name} " in out.split("Arguments:")[0], name
