"""`arbiter import pgn FILE` (services/pgn_import.py) and `arbiter games TOURNAMENT`
(projections/games.py): games in from a PGN file, and one row per game out.

- `import pgn FILE [--rules PRESET] [--tournament ID] [--adjudicate] [--format F] [--json]`:
  record the file as a new tournament; every game whose recorded ending disagrees with the
  file's (another result, another ply, another rule) is printed on stderr and listed in the
  JSON. A malformed file is refused with its line, appending nothing; importing the same file
  again appends nothing.
- `games TOURNAMENT [--json] [--at SEQ]`: game, round, players, result, termination, the rule
  that ended it, plies, and for an imported game its source's ending and whether they
  disagree.

Registered by `register(app)`: `pgn` joins the `import` group of the main CLI, `games` the main
commands."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, get_args

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from events_schema import Recorded
from events_schema import events as ev
from events_schema.limits import LimitExceeded
from projections.games import game_rows
from services.cli.common import AsJson, At, Backend, Db, fail, local_actor, local_log
from services.cli.render import err, out

LARGE_FILE = 1024 * 1024  # bytes: a progress bar from here on
_FORMATS: tuple[str, ...] = get_args(ev.TournamentCreated.model_fields["format"].annotation)


def _print_json(body: dict[str, Any]) -> None:
    print(json.dumps(body, ensure_ascii=False, indent=2))


@contextmanager
def _progress(enabled: bool) -> Iterator[Callable[[str, int, int], None] | None]:
    if not enabled:
        yield None
        return
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=err,
        transient=True,
    )
    tasks: dict[str, Any] = {}
    labels = {"read": "reading", "decide": "deciding games", "append": "appending"}

    def update(stage: str, done: int, total: int) -> None:
        if stage not in tasks:
            tasks[stage] = bar.add_task(labels.get(stage, stage), total=total)
        bar.update(tasks[stage], completed=done, total=total)

    with bar:
        yield update


def import_pgn_cmd(
    file: Path,
    rules: Annotated[
        str | None, typer.Option("--rules", help="rules preset, e.g. tcec-league")
    ] = None,
    tournament: Annotated[
        str | None, typer.Option("--tournament", help="tournament id (default: file name)")
    ] = None,
    adjudicate: Annotated[
        bool,
        typer.Option(
            "--adjudicate",
            help="end games by the preset's rules from their moves (adjudication 'rules'); "
            "without it every ending is the file's",
        ),
    ] = False,
    fmt: Annotated[
        str | None,
        typer.Option("--format", help="tournament format (default: from the headers)"),
    ] = None,
    as_json: AsJson = False,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Record a PGN file (TCEC, cutechess/fastchess, lichess) as a new tournament."""
    from services.pgn_import import ImportRefused, PgnError, import_pgn
    from services.trf import tournament_id_for

    if fmt is not None and fmt not in _FORMATS:
        fail("pgn.invalid", "--format", f"{fmt!r} is not one of {', '.join(_FORMATS)}")
    try:
        data = file.read_bytes()
    except OSError as exc:
        fail("pgn.unreadable", "FILE", str(exc))
    try:
        tid = tournament or tournament_id_for(file)
    except ValueError as exc:
        fail("pgn.invalid", "--tournament", str(exc))
    with (
        local_log(backend, db) as log,
        _progress(len(data) >= LARGE_FILE and err.is_terminal) as progress,
    ):
        try:
            report = import_pgn(
                log,
                data,
                file_name=file.name,
                tournament_id=tid,
                actor=local_actor(),
                rules=rules,
                adjudicate=adjudicate,
                fmt=fmt,
                progress=progress,
            )
        except PgnError as exc:
            fail("pgn.malformed", f"{file.name}:{exc.line}", exc.reason)
        except ImportRefused as exc:
            fail(exc.rule, exc.where, exc.message)
        except LimitExceeded as exc:
            fail(exc.rule, exc.field, exc.message)
        except ValueError as exc:  # a header value out of an event's range
            fail("pgn.invalid", str(file), str(exc))
    for g in report.disagreements:
        err.print(
            f"[yellow]disagreement[/yellow] {file.name} game {g.index} (line {g.line}, "
            f"{g.game_id}): {g.why}"
        )
    if as_json:
        _print_json(report.as_dict())
        return
    games = len(report.games)
    matched = games - len(report.disagreements)
    if report.duplicate:
        out.print(f"{tid}: already imported: nothing appended (last seq {report.last_seq})")
    else:
        out.print(
            f"{tid}: imported {games} games, {report.players} players, {report.rounds} rounds: "
            f"{report.appended} events in {report.batches} batches (last seq {report.last_seq})"
        )
    how = f"by the rules of {rules or 'the FIDE Laws'}" if adjudicate else "as the file says"
    out.print(f"endings {how}: {matched} of {games} agree with the file")


def games(
    tournament: str,
    as_json: AsJson = False,
    at: At = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """One row per game: players, result, the rule that ended it, plies, its source."""
    with local_log(backend, db) as log:
        records = [Recorded.of(e) for e in log.read(tournament, 1, at)]
    if not records:
        fail("games.unknown_tournament", "TOURNAMENT", f"{tournament!r} has no events")
    rows = game_rows(records)
    seq = records[-1].envelope.seq
    if as_json:
        _print_json({"tournament_id": tournament, "seq": seq, "games": [r.as_dict() for r in rows]})
        return
    t = Table(title=f"Games: {tournament} (as of seq {seq})")
    for col in ("game", "round", "white", "black", "result", "rule", "plies", "source", "agrees"):
        t.add_column(col, justify="right" if col in ("round", "plies") else "left")
    for r in rows:
        src = ""
        if r.source is not None:
            words = r.source.details or r.source.termination
            src = f"{r.source.result} {words}".strip()
        t.add_row(
            r.game_id,
            str(r.round) if r.stage == "main" else f"{r.stage} {r.round}",
            r.white,
            r.black,
            r.result or "",
            r.rule,
            str(r.plies),
            src,
            "" if r.source is None else ("[red]no[/red]: " + r.why if r.disagrees else "yes"),
        )
    out.print(t)


def _has(group: typer.Typer, name: str) -> bool:
    return any(
        (c.name or getattr(c.callback, "__name__", "")) == name for c in group.registered_commands
    )


def register(app: typer.Typer) -> None:
    """Add `import pgn` (to the `import` group, made if missing) and `games`; idempotent."""
    import_app: typer.Typer | None = None
    for group in app.registered_groups:
        if group.name == "import" and isinstance(group.typer_instance, typer.Typer):
            import_app = group.typer_instance
            break
    if import_app is None:
        import_app = typer.Typer(help="Import a tournament from a file.", no_args_is_help=True)
        app.add_typer(import_app, name="import")
    if not _has(import_app, "pgn"):
        import_app.command("pgn")(import_pgn_cmd)
    if not _has(app, "games"):
        app.command("games")(games)
