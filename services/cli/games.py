"""`arbiter import pgn FILE` (services/interchange/pgn/), `arbiter import sgf FILE…`
(services/interchange/sgf/), `arbiter export sgf TOURNAMENT GAME`
(services/interchange/sgf/export.py) and
`arbiter games TOURNAMENT` (projections/games.py): games in from a PGN or SGF file, one Go game
out as SGF, and one row per game out.

- `import pgn FILE [--rules PRESET] [--tournament ID] [--adjudicate] [--format F] [--json]`:
  record the file as a new tournament; every game whose recorded ending disagrees with the
  file's (another result, another ply, another rule) is printed on stderr and listed in the
  JSON. A malformed file is refused with its line, appending nothing; importing the same file
  again appends nothing.
- `import sgf FILE… [--tournament ID] [--adjudicate] [--format F] [--json]`: record the Go
  games of the files (one game or a collection each) as a new tournament, with the same
  contract: a progress bar on many files, a malformed file refused with its node and reason
  appending nothing, each game's RE kept beside Arbiter's ending, every disagreement printed
  on stderr and listed in the JSON, nothing appended by a second import.
- `export sgf TOURNAMENT GAME [--out FILE]`: the game as SGF (size, komi, handicap, players,
  ranks, result, the moves in force), on stdout without --out.
- `games TOURNAMENT [--json] [--at SEQ]`: game, round, players, result, termination, the rule
  that ended it, plies, and for an imported game its source's ending and whether they
  disagree.

Registered by `register(app)`: `pgn` and `sgf` join the `import` group of the main CLI, `sgf`
the `export` group, `games` the main commands."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, get_args

import typer

from services.cli.common import (
    AsJson,
    At,
    Backend,
    Db,
    fail,
    local_actor,
    local_log,
    records_of,
)
from services.cli.render import err, out

LARGE_FILE = 1024 * 1024  # bytes: a progress bar from here on
MANY_FILES = 20  # SGF files: a progress bar from here on


def _formats() -> tuple[str, ...]:
    """The tournament formats `--format` takes (imported here: `arbiter --help` imports this
    module, and the event contract is not needed for it)."""
    from events_schema import events as ev

    return get_args(ev.TournamentCreated.model_fields["format"].annotation)


def _print_json(body: dict[str, Any]) -> None:
    print(json.dumps(body, ensure_ascii=False, indent=2))


@contextmanager
def _progress(enabled: bool) -> Iterator[Callable[[str, int, int], None] | None]:
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

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


def _check_format(fmt: str | None, kind: str) -> None:
    """`--format`, when given, is a tournament format (refused as `<kind>.invalid`)."""
    if fmt is not None and fmt not in _formats():
        fail(f"{kind}.invalid", "--format", f"{fmt!r} is not one of {', '.join(_formats())}")


def _tournament_id(tournament: str | None, file: Path, kind: str) -> str:
    """--tournament, else an id from the file's name (refused as `<kind>.invalid`)."""
    from services.interchange.pipeline import tournament_id_for

    try:
        return tournament or tournament_id_for(file)
    except ValueError as exc:
        fail(f"{kind}.invalid", "--tournament", str(exc))


@contextmanager
def _import_refusals(
    kind: str, malformed: type[ValueError], where: Callable[[Any], str], invalid: str
) -> Iterator[None]:
    """An import's refusals as the CLI's: a malformed file (`<kind>.malformed` at `where` of
    the error, its reason), a refused command or a limit (their rule and place), a value out
    of an event's range (`<kind>.invalid` at `invalid`)."""
    from events_schema.limits import LimitExceeded
    from services.interchange.pipeline import ImportRefused

    try:
        yield
    except malformed as exc:
        fail(f"{kind}.malformed", where(exc), getattr(exc, "reason", str(exc)))
    except ImportRefused as exc:
        fail(exc.rule, exc.where, exc.message)
    except LimitExceeded as exc:
        fail(exc.rule, exc.field, exc.message)
    except ValueError as exc:  # a header or property value out of an event's range
        fail(f"{kind}.invalid", invalid, str(exc))


def _print_appended(tid: str, report: Any, what: str) -> None:
    """What the append did: nothing (imported already), or `what` in how many events."""
    if report.duplicate:
        out.print(f"{tid}: already imported: nothing appended (last seq {report.last_seq})")
    else:
        out.print(
            f"{tid}: imported {what}: "
            f"{report.appended} events in {report.batches} batches (last seq {report.last_seq})"
        )


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
    from services.interchange.pgn import PgnError, import_pgn

    _check_format(fmt, "pgn")
    try:
        data = file.read_bytes()
    except OSError as exc:
        fail("pgn.unreadable", "FILE", str(exc))
    tid = _tournament_id(tournament, file, "pgn")
    with (
        local_log(backend, db) as log,
        _progress(len(data) >= LARGE_FILE and err.is_terminal) as progress,
        _import_refusals("pgn", PgnError, lambda e: f"{file.name}:{e.line}", str(file)),
    ):
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
    _print_appended(tid, report, f"{games} games, {report.players} players, {report.rounds} rounds")
    how = f"by the rules of {rules or 'the FIDE Laws'}" if adjudicate else "as the file says"
    out.print(f"endings {how}: {matched} of {games} agree with the file")


def import_sgf_cmd(
    files: Annotated[list[Path], typer.Argument(help="SGF files: one game or a collection each")],
    tournament: Annotated[
        str | None,
        typer.Option("--tournament", help="tournament id (default: the first file's name)"),
    ] = None,
    adjudicate: Annotated[
        bool,
        typer.Option(
            "--adjudicate",
            help="record the tournament with adjudication 'rules' (a Go game is counted, "
            "or stopped at a resumption, by the decider either way)",
        ),
    ] = False,
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format", help="tournament format (default: match for two players, else mcmahon)"
        ),
    ] = None,
    as_json: AsJson = False,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Record SGF files of Go games as a new tournament."""
    from services.interchange.sgf import SgfError, import_sgf

    _check_format(fmt, "sgf")
    data: list[tuple[str, bytes]] = []
    for file in files:
        try:
            data.append((file.name, file.read_bytes()))
        except OSError as exc:
            fail("sgf.unreadable", str(file), str(exc))
    tid = _tournament_id(tournament, files[0], "sgf")
    many = len(files) >= MANY_FILES or sum(len(d) for _, d in data) >= LARGE_FILE
    with (
        local_log(backend, db) as log,
        _progress(many and err.is_terminal) as progress,
        _import_refusals("sgf", SgfError, lambda e: e.where, ", ".join(f.name for f in files)),
    ):
        report = import_sgf(
            log,
            data,
            tournament_id=tid,
            actor=local_actor(),
            adjudicate=adjudicate,
            fmt=fmt,
            progress=progress,
        )
    per_file = Counter(g.file for g in report.games)

    def where(g: Any) -> str:
        return f"{g.file} game {g.index}" if per_file[g.file] > 1 else g.file

    for g in report.disagreements:
        err.print(f"[yellow]disagreement[/yellow] {where(g)} ({g.game_id}): {g.why}")
    if as_json:
        _print_json(report.as_dict())
        return
    n = len(report.games)
    matched = n - len(report.disagreements)
    size = report.board_size
    _print_appended(
        tid,
        report,
        f"{n} games, {report.players} players, {report.rounds} rounds "
        f"({size}x{size}, komi {report.komi})",
    )
    for g in report.games:
        for note in g.notes:
            out.print(f"note {where(g)} ({g.game_id}): {note}")
    out.print(f"endings: {matched} of {n} agree with the files")


def export_sgf_cmd(
    tournament: str,
    game: str,
    out_file: Annotated[Path | None, typer.Option("--out", help="file (default: stdout)")] = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Write one Go game as an SGF file."""
    import sys

    from services.interchange.sgf.export import ExportRefused, export_sgf

    with local_log(backend, db) as log:
        records = records_of(log, tournament, "sgf")
    try:
        data = export_sgf(records, game)
    except ExportRefused as exc:
        fail(exc.rule, exc.field, exc.message)
    if out_file is None:
        sys.stdout.write(data.decode("utf-8"))
        return
    try:
        out_file.write_bytes(data)
    except OSError as exc:
        fail("sgf.unwritable", "--out", str(exc))
    out.print(f"wrote {tournament} {game} to {out_file}")


def games(
    tournament: str,
    as_json: AsJson = False,
    at: At = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """One row per game: players, result, the rule that ended it, plies, its source."""
    from rich.table import Table

    from projections.games import game_rows

    with local_log(backend, db) as log:
        records = records_of(log, tournament, "games", at)
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


def _group(app: typer.Typer, name: str, help_text: str) -> typer.Typer:
    """The sub-command group `name` of `app`, made if missing."""
    for group in app.registered_groups:
        if group.name == name and isinstance(group.typer_instance, typer.Typer):
            return group.typer_instance
    made = typer.Typer(rich_markup_mode=None, help=help_text, no_args_is_help=True)
    app.add_typer(made, name=name)
    return made


def register(app: typer.Typer) -> None:
    """Add `import pgn` and `import sgf` (to the `import` group), `export sgf` (to the
    `export` group; each group made if missing) and `games`; idempotent."""
    import_app = _group(app, "import", "Import a tournament from a file.")
    if not _has(import_app, "pgn"):
        import_app.command("pgn")(import_pgn_cmd)
    if not _has(import_app, "sgf"):
        import_app.command("sgf")(import_sgf_cmd)
    export_app = _group(app, "export", "Export a tournament to a file.")
    if not _has(export_app, "sgf"):
        export_app.command("sgf")(export_sgf_cmd)
    if not _has(app, "games"):
        app.command("games")(games)
