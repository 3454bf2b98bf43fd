"""`arbiter`: the command line (typer + rich).

Every command lives in a module of this package named for what it holds, which exposes
`register(app)`; `COMMANDS` lists those modules, and registering them in its order gives
`arbiter --help` its order (commands, then groups). A new command is a function in the module
of its kind, registered by that module's `register`; a new module is one more entry in
`COMMANDS`.

Each command is its own composition root: it reads the settings and opens the log through
`services.cli.common` (`local_log`, which also turns a refused command or a log error into
`refused RULE (FIELD): message`); what it prints goes through `services.cli.render`."""

from __future__ import annotations

import sys

import typer

from services.cli import (
    arena,
    audit,
    constraints,
    demo,
    entries,
    feed,
    games,
    interchange,
    opengotha,
    pairing,
    playoffs,
    prizes,
    processors,
    relay,
    results,
    schema_export,
    seasons,
    server,
    tournament,
)

# Start-up: `arbiter --help` imports every command module and every command's signature, so
# what a command needs beyond typer, rich and the standard library (the event contract, the
# projections, the command path, httpx) is imported inside it
# (tests/unit/services/cli/test_cli_startup.py).

#: The command modules, in the order `arbiter --help` lists their commands and groups.
COMMANDS = (
    tournament,  # append, events, standings, explain, crosstable
    entries,  # create, register, players, withdraw, bye
    constraints,  # prohibit, accelerate
    playoffs,  # lot, playoff
    prizes,  # prizes, series
    server,  # serve; token
    schema_export,  # schema
    demo,  # demo
    interchange,  # import trf|pgn|sgf, export trf|sgf
    opengotha,  # import opengotha, export opengotha (into interchange's groups)
    audit,  # replay, diff, verify, correct, retract; checkpoint
    processors,  # processor
    feed,  # feed
    pairing,  # pair, schedule
    seasons,  # season
    games,  # games
    results,  # round, result, results
    relay,  # relay
    arena,  # arena
)

app = typer.Typer(
    rich_markup_mode=None,
    help="Arbiter: an event-sourced tournament backend.",
    no_args_is_help=True,
)
for _module in COMMANDS:
    _module.register(app)

#: The organiser's day, listed first by `arbiter --help` in the order it is lived (a new user
#: reads create, register, pair, results, standings before the audit and the processors); the
#: other commands follow in `COMMANDS` order.
ORGANISER_FIRST = (
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
    "schedule",
    "games",
)


def organiser_first(commands: list[typer.models.CommandInfo]) -> None:
    """Sort `commands` in place: those of `ORGANISER_FIRST` in its order, then the rest as
    registered (a stable sort)."""
    from typer.main import get_command_name

    def key(info: typer.models.CommandInfo) -> int:
        name = info.name or get_command_name(info.callback.__name__ if info.callback else "")
        return ORGANISER_FIRST.index(name) if name in ORGANISER_FIRST else len(ORGANISER_FIRST)

    commands.sort(key=key)


organiser_first(app.registered_commands)


def main() -> None:
    """The `arbiter` console script. Typer converts every command's signature when it builds
    the whole group (about 80 commands, tens of milliseconds), so a top-level command named
    first on the command line is built alone, in a group of its own named `arbiter` (same
    options, same help, same errors); anything else (`--help`, a sub-group such as
    `arbiter token`, an unknown name) goes through the whole app."""
    import os

    # No pydantic plugins are used; looking for them scans every installed package's metadata.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    args = sys.argv[1:]
    if args and not args[0].startswith("-"):
        from typer.main import get_command, get_command_name

        for info in app.registered_commands:
            name = info.name or get_command_name(info.callback.__name__ if info.callback else "")
            if name == args[0]:
                solo = typer.Typer(rich_markup_mode=None, add_completion=False)
                solo.registered_commands.append(info)
                solo.callback()(_group)  # a group, so the command keeps its name
                get_command(solo)(args, prog_name="arbiter")
                return
    app(prog_name="arbiter")


def _group() -> None:
    """Arbiter: an event-sourced tournament backend."""


if __name__ == "__main__":
    main()
