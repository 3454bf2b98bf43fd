"""What the `arbiter` commands share: settings, opening the log, failing with a rule and a
field, the local actor, reading a tournament's standings."""

from __future__ import annotations

import contextlib
import getpass
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from services.cli.render import err, out

if TYPE_CHECKING:
    from events_schema import Actor, Recorded
    from events_schema import events as ev
    from projections.standings import StandingsState
    from projections.standings import Table as StandingsTable
    from services.config import Settings
    from services.eventlog.base import EventLog

# Only typer, rich and the standard library at import: `arbiter --help` imports every CLI
# module, so the event contract, the projections and the log are imported where used.

Backend = Annotated[str | None, typer.Option("--backend", help="sqlite (default) or kafka")]
Db = Annotated[Path | None, typer.Option("--db", help="SQLite event log file")]
At = Annotated[int | None, typer.Option("--at", help="as it was at this seq")]
AsJson = Annotated[bool, typer.Option("--json")]
#: Who a command that appends acts as (`local_actor`): a person's name, or an API token.
As = Annotated[
    str | None,
    typer.Option(
        "--as",
        help="act as this person: the name recorded as the actor of what is appended "
        "(default: ARBITER_ACTOR, else cli:<login>; the local operator's admin role)",
    ),
]
ActToken = Annotated[
    str | None,
    typer.Option(
        "--token",
        help="act as this API token's subject, with its role and tournaments "
        "(default: ARBITER_TOKEN)",
    ),
]

#: The token roles (services.commands.auth.ROLES, which imports hashlib and sqlite3), for the help
#: text
#: of `arbiter token create`; tests/unit/services/cli/test_cli_startup.py keeps the two equal.
ROLE_NAMES: tuple[str, ...] = ("admin", "arbiter", "broadcaster", "auditor")


def settings(backend: str | None = None, db: Path | None = None) -> Settings:
    from services.config import Settings

    return Settings.from_env(backend=backend, sqlite_path=db)


def local_actor(
    as_: str | None = None,
    token: str | None = None,
    tournament: str | None = None,
    using: Settings | None = None,
) -> Actor:
    """Who a command that appends acts as (issue 24, "who did it"), the first given of:

    1. `--token`: the API token's subject and role (`services.commands.auth.TokenStore` of the
       settings' tokens file), refused when unknown or revoked, or when its role may not
       write to `tournament`; then the command path's role rules apply (an arbiter may not
       correct a result);
    2. `--as NAME`: NAME, with the local operator's role (admin: whoever can open the log file
       directly is its operator);
    3. the settings' `ARBITER_TOKEN`, then `ARBITER_ACTOR`, the same way;
    4. `cli:<login>`, admin (before issue 24, every local action's actor).

    `--as` and `--token` together are refused: a token names its person."""
    from events_schema import Actor

    if as_ is not None and token is not None:
        fail("cli.usage", "--as/--token", "give --as NAME or --token, not both")
    cfg = using if using is not None else settings()
    option = "--token"
    if token is None and as_ is None:
        token, as_, option = cfg.token, cfg.actor, "ARBITER_TOKEN"
    if token is not None:
        return _token_actor(token, tournament, cfg, option)
    if as_ is not None:
        name = " ".join(as_.split())
        if not name or len(name) > 128:
            fail("cli.actor", "--as", "the name of a person, 1 to 128 characters")
        return Actor(id=name, role="admin")
    return Actor(id=f"cli:{getpass.getuser()}", role="admin")


def _token_actor(token: str, tournament: str | None, cfg: Settings, option: str) -> Actor:
    from events_schema import Actor
    from services.commands.auth import TokenStore

    store = TokenStore(cfg.tokens_path)
    try:
        who = store.authenticate(token)
    finally:
        store.close()
    if who is None:
        fail(
            "auth.invalid_token",
            option,
            f"unknown or revoked in the local token store ({cfg.tokens_path}); act as a "
            "person with --as NAME instead",
        )
    if tournament is not None and not who.may_write(tournament):
        fail("auth.forbidden", option, f"{who.role} {who.subject} may not append to {tournament}")
    return Actor(id=who.subject, role=who.role)


class Refusal(Exception):
    """Why a command cannot go on, in the CLI's terms: the rule, the option or argument it is
    about, and a message that names what to run instead. Raised by the helpers the commands
    share (`services.cli.tables`, `services.cli.prescribed`); `refusals` ends the command
    with it."""

    def __init__(self, rule: str, field: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.field = field
        self.message = message


def fail(rule: str, field: str, message: str, code: int = 1) -> NoReturn:
    """Print `refused RULE (FIELD): MESSAGE` on stderr and exit with `code`."""
    err.print(f"[red]refused[/red] {rule} ({field}): {message}")
    raise typer.Exit(code)


def fail_all(found: Sequence[tuple[str, str, str]], code: int = 1) -> NoReturn:
    """Print every (rule, field, message) of a refusal, one `refused RULE (FIELD): MESSAGE`
    line each (an input file is refused with all its mistakes at once), and exit."""
    if len(found) > 1:
        err.print(f"[red]refused[/red]: {len(found)} problems, nothing was appended")
    for rule, field, message in found:
        err.print(f"[red]refused[/red] {rule} ({field}): {message}")
    raise typer.Exit(code)


def write_out(data: str | bytes, out_file: Path | None, what: str, kind: str) -> None:
    """An exported file (`data`, UTF-8) on stdout, or into `out_file` (`--out`) with a
    `wrote WHAT to FILE` line; a file that cannot be written is refused as `<kind>.unwritable`."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if out_file is None:
        sys.stdout.write(raw.decode("utf-8"))
        return
    try:
        out_file.write_bytes(raw)
    except OSError as exc:
        fail(f"{kind}.unwritable", "--out", str(exc))
    out.print(f"wrote {what} to {out_file}")


@contextlib.contextmanager
def refusals() -> Iterator[None]:
    """A refusal, a refused command or a failing log ends the command through `fail`, with its
    rule and field."""
    from services.eventlog.base import EventLogError

    try:
        yield
    except Refusal as exc:
        fail(exc.rule, exc.field, exc.message)
    except EventLogError as exc:
        fail(exc.rule, exc.field, str(exc))
    except Exception as exc:
        # The command path is imported only by the commands that append: a command refused
        # there has loaded it.
        from services.commands.service import CommandRejected

        if isinstance(exc, CommandRejected):
            fail_all([(p.rule, p.field, p.message) for p in exc.errors])
        from events_schema.limits import LimitExceeded

        if isinstance(exc, LimitExceeded):  # e.g. an entry list longer than one batch
            fail(exc.rule, exc.field, exc.message)
        raise


@contextlib.contextmanager
def local_log(
    backend: str | None = None, db: Path | None = None, *, using: Settings | None = None
) -> Iterator[EventLog]:
    """The log the settings name (`using`, else from the environment with --backend/--db),
    closed on exit; a refused command or a log error inside ends the command (`refusals`).
    Every command that reads or appends opens the log through this."""
    from services.config import open_log

    with refusals(), open_log(using if using is not None else settings(backend, db)) as log:
        yield log


def records_of(log: EventLog, tournament: str, what: str, at: int | None = None) -> list[Recorded]:
    """The tournament's decoded events up to `at`; refused (`<what>.unknown_tournament`) when
    it has none."""
    from events_schema import Recorded

    records = [Recorded.of(e) for e in log.read(tournament, 1, at)]
    if not records:
        fail(f"{what}.unknown_tournament", "TOURNAMENT", f"{tournament!r} has no events")
    return records


def tournament_records(
    tournament: str,
    what: str,
    at: int | None = None,
    backend: str | None = None,
    db: Path | None = None,
) -> list[Recorded]:
    """`records_of` on the log --backend/--db name, opened for the read alone."""
    with local_log(backend, db) as log:
        return records_of(log, tournament, what, at)


def fold_known(log: EventLog, tournament: str, at: int | None, what: str) -> StandingsState:
    """The tournament's standings fold up to `at`; refused when the tournament has no events,
    or when the id is a series' (which command shows a series is named)."""
    from events_schema import Recorded
    from events_schema import events as ev
    from projections.standings import fold as standings_fold

    records = [Recorded.of(e) for e in log.read(tournament, 1, at)]
    state = standings_fold(records)
    if state.created is None:
        series = next((r.event for r in records if isinstance(r.event, ev.SeriesCreated)), None)
        if series is not None:
            fail(f"{what}.not_a_tournament", "TOURNAMENT", not_a_tournament(tournament, series))
        from services.commands.entries import create_first

        fail(f"{what}.unknown_tournament", "TOURNAMENT", create_first(tournament))
    return state


def not_a_tournament(series_id: str, series: ev.SeriesCreated) -> str:
    """What a series is and which command shows it, for a command given a series id."""
    show = (
        f"`arbiter season show {series_id}`"
        if series.kind == "tcec-season"
        else f"`arbiter series {series_id}`"
    )
    return (
        f"{series_id!r} is a series ({series.kind} {series.name!r}), not a tournament: a "
        f"series groups tournaments (each created with series_id {series_id!r}) and ranks "
        f"them together; see it with {show}, and run this command on one of its tournaments"
    )


def standings_of(log: EventLog, tournament: str, at: int | None = None) -> StandingsTable:
    """The standings table of a tournament as at `at`; refused when it has no events."""
    from projections.standings import standings as standings_table

    return standings_table(fold_known(log, tournament, at, "standings"))


def add_group(
    app: typer.Typer,
    name: str,
    help_text: str,
    commands: Mapping[str, Callable[..., Any]],
    cls: type[typer.core.TyperGroup] | None = None,
) -> None:
    """Add the sub-command group `name` (`arbiter NAME COMMAND`) to `app`, with `commands`
    ({command name: function}) in their order; every group of the CLI is made here."""
    group = typer.Typer(rich_markup_mode=None, help=help_text, no_args_is_help=True, cls=cls)
    for command, callback in commands.items():
        group.command(command)(callback)
    app.add_typer(group, name=name)
