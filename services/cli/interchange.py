"""`arbiter import trf|pgn|sgf` and `arbiter export trf|sgf`: a tournament in from a file and
out to one, through the shared import pipeline (services/interchange/).

- `import trf FILE [--rules PRESET] [--tournament ID] [--format F]`: record a FIDE TRF-16 or
  TRF26 file (services/interchange/trf; TRF26 recognised by its records, records26.py) as a
  new tournament, through the command path.
- `import pgn FILE [--rules PRESET] [--tournament ID] [--adjudicate] [--format F] [--json]`:
  record the file (services/interchange/pgn/) as a new tournament; every game whose recorded
  ending disagrees with the file's (another result, another ply, another rule) is printed on
  stderr and listed in the JSON. A malformed file is refused with its line, appending nothing;
  importing the same file again appends nothing. A game without a final result in its
  movetext is in progress (listed as such, no ending recorded). `--tournament` naming a
  tournament that exists adds the file's games to it (matched to its pairings by the
  players' names, or created in a round it has not scheduled; a game in progress continued:
  services/interchange/pgn/match.py, sync.py).
- `import sgf FILE… [--tournament ID] [--adjudicate] [--format F] [--json]`: record the Go
  games of the files (services/interchange/sgf/; one game or a collection each) as a new
  tournament, with the same contract: a progress bar on many files, a malformed file refused
  with its node and reason appending nothing, each game's RE kept beside Arbiter's ending,
  every disagreement printed on stderr and listed in the JSON, nothing appended by a second
  import.
- `export trf TOURNAMENT [--out FILE] [--order O] [--format trf16|trf26]`: the tournament as a
  TRF-16 file, or TRF26 (services/interchange/trf/write26.py).
- `export sgf TOURNAMENT GAME [--out FILE]`: the game as SGF
  (services/interchange/sgf/export.py: size, komi, handicap, players, ranks, result, the moves
  in force), on stdout without --out.
"""

from __future__ import annotations

import typing
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, get_args

import typer

from services.cli import exports
from services.cli.common import (
    ActToken,
    As,
    AsJson,
    Backend,
    Db,
    add_group,
    fail,
    local_actor,
    local_log,
    tournament_records,
    write_out,
)
from services.cli.render import err, out, print_json

LARGE_FILE = 1024 * 1024  # bytes: a progress bar from here on
MANY_FILES = 20  # SGF files: a progress bar from here on


def _formats() -> tuple[str, ...]:
    """The tournament formats `--format` takes (imported here: `arbiter --help` imports this
    module, and the event contract is not needed for it)."""
    from events_schema import events as ev

    return get_args(ev.TournamentCreated.model_fields["format"].annotation)


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


def _read_bounded(file: Path) -> bytes:
    """The file's bytes, refused before they are read when the file is larger than one import
    may read (`limits.import_bytes`: `Limits.max_import_bytes`, ARBITER_MAX_IMPORT_BYTES);
    `OSError` as reading raises it."""
    from services.config import limits_from_env

    bound = limits_from_env().max_import_bytes
    size = file.stat().st_size
    if size > bound:
        fail(
            "limits.import_bytes",
            file.name,
            f"{size:,} bytes: one import reads at most {bound:,} (limits.max_import_bytes, "
            "ARBITER_MAX_IMPORT_BYTES); split the file",
        )
    return file.read_bytes()


def _tournament_id(tournament: str | None, file: Path, kind: str) -> str:
    """--tournament, else an id from the file's name (refused as `<kind>.invalid`: a
    tournament id is a stream id, `events_schema.ids.StreamId`)."""
    import re

    from services.interchange.pipeline import tournament_id_for

    if tournament is not None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", tournament):
        fail(
            f"{kind}.invalid",
            "--tournament",
            f"{tournament!r} is not a tournament id: 1 to 64 letters, digits, '.', '_' or '-', "
            "the first a letter or a digit",
        )
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
        str | None,
        typer.Option(
            "--tournament",
            help="tournament id (default: file name); one that exists gets the file's games "
            "(matched to its pairings, or in rounds it has not scheduled)",
        ),
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
    as_: As = None,
    token: ActToken = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Record a PGN file (TCEC, cutechess/fastchess, lichess) as a new tournament, or add its
    games to one that exists (--tournament)."""
    from services.interchange.pgn import PgnError, import_pgn

    _check_format(fmt, "pgn")
    try:
        data = _read_bounded(file)
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
            actor=local_actor(as_, token, tid),
            rules=rules,
            adjudicate=adjudicate,
            fmt=fmt,
            progress=progress,
        )
    for note in report.notes:
        err.print(f"[yellow]note[/yellow] {file.name} {note}")
    for g in report.disagreements:
        err.print(
            f"[yellow]disagreement[/yellow] {file.name} game {g.index} (line {g.line}, "
            f"{g.game_id}): {g.why}"
        )
    if as_json:
        print_json(report.as_dict())
        return
    games = len(report.games)
    matched = games - len(report.disagreements)
    _print_appended(tid, report, f"{games} games, {report.players} players, {report.rounds} rounds")
    how = f"by the rules of {rules or 'the FIDE Laws'}" if adjudicate else "as the file says"
    out.print(f"endings {how}: {matched} of {games} agree with the file")
    if report.in_progress:
        out.print(
            f"in progress (no final result in the movetext, no ending recorded): "
            f"{', '.join(g.game_id for g in report.in_progress)}"
        )


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
    as_: As = None,
    token: ActToken = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Record SGF files of Go games as a new tournament."""
    from services.interchange.sgf import SgfError, import_sgf

    _check_format(fmt, "sgf")
    data: list[tuple[str, bytes]] = []
    for file in files:
        try:
            data.append((file.name, _read_bounded(file)))
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
            actor=local_actor(as_, token, tid),
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
        print_json(report.as_dict())
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
    from services.interchange.sgf.export import ExportRefused, export_sgf

    records = tournament_records(tournament, "sgf", backend=backend, db=db)
    try:
        data = export_sgf(records, game)
    except ExportRefused as exc:
        fail(exc.rule, exc.field, exc.message)
    write_out(data, out_file, f"{tournament} {game}", "sgf")


def import_trf(
    file: Path,
    rules: Annotated[str | None, typer.Option("--rules", help="rules preset, e.g. gct")] = None,
    tournament: Annotated[
        str | None, typer.Option("--tournament", help="tournament id (default: file name)")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="tournament format")] = "swiss",
    as_: As = None,
    token: ActToken = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Record a FIDE TRF-16 file as a new tournament, through the command path."""
    import hashlib

    from services.interchange.pipeline import ImportRefused
    from services.interchange.trf import (
        edition_choice,
        import_trf,
        is_trf26,
        points_mismatches,
        time_control_notes,
        to_events,
    )
    from services.interchange.trf.parse import TrfError, decode_trf, parse_trf

    tid = _tournament_id(tournament, file, "trf")
    try:
        raw = _read_bounded(file)
        trf = parse_trf(decode_trf(raw))
        digest = hashlib.sha256(raw).hexdigest()
        planned = to_events(trf, name=file.stem, fmt=fmt, rules_preset=rules, file_name=file.name)
    except OSError as exc:
        fail("trf.unreadable", "FILE", str(exc))
    except TrfError as exc:
        fail("trf.malformed", f"{file.name}:{exc.line}", str(exc))
    except ValueError as exc:  # a tournament id or an event field out of range
        fail("trf.invalid", str(file), str(exc))
    for warning in points_mismatches(trf) + time_control_notes(trf):
        err.print(f"[yellow]warning[/yellow] {warning}")
    out.print(f"{tid}: {edition_choice(trf)}")
    if is_trf26(trf):  # FIDE TRF26: records 240/250/260 read, the others kept (records26.py)
        out.print(f"{tid}: TRF26 (records 240, 250, 260 read; the others kept and written back)")
    with local_log(backend, db) as log:
        try:
            report = import_trf(
                log,
                trf,
                tournament_id=tid,
                actor=local_actor(as_, token, tid),
                id_namespace=f"{tid}:{digest}",
                file_name=file.name,
                planned=planned,
            )
        except ImportRefused as exc:
            fail(exc.rule, exc.where, exc.message)
    if report.duplicate:
        out.print(f"{tid}: already imported: nothing appended (last seq {report.last_seq})")
    else:
        out.print(
            f"{tid}: imported {report.players} players, {report.rounds} rounds: "
            f"{report.appended} events (last seq {report.last_seq})"
        )


def export_trf_cmd(
    tournament: str,
    out_file: Annotated[Path | None, typer.Option("--out", help="file (default: stdout)")] = None,
    order: Annotated[
        typing.Literal["pairing", "registration", "rating"],
        typer.Option(
            "--order",
            help="start ranks: 'pairing' (default) the pairing system's own pairing numbers "
            "(Dutch/Galway: the C.04.2 initial ranking; round robin: the Berger lot; Monrad, "
            "Cup: seeds), so a pairing checker re-checks the file as it is; 'registration'; "
            "'rating'",
        ),
    ] = "pairing",
    trf_format: Annotated[
        typing.Literal["trf16", "trf26"],
        typer.Option(
            "--format",
            help="'trf16' (default) or 'trf26': FIDE's 2026 report, with the requested byes "
            "(240), the acceleration (250), the prohibited pairings (260) and the records an "
            "import kept",
        ),
    ] = "trf16",
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Write a tournament as a FIDE TRF-16 (or, with --format trf26, TRF26) file."""
    from services.interchange.trf import export_trf, export_trf26

    records = tournament_records(tournament, "standings", backend=backend, db=db)
    try:
        if trf_format == "trf26":
            text = export_trf26(records, order=order)
        else:
            text = export_trf(records, order=order)
    except ValueError as exc:
        fail("trf.unrepresentable", "TOURNAMENT", str(exc))
    write_out(text, out_file, tournament, "trf")


def register(app: typer.Typer) -> None:
    """Add the `import` group (`trf`, `pgn`, `sgf`) and the `export` group (`trf`, `sgf`) to
    the `arbiter` app."""
    add_group(
        app,
        "import",
        "Import a tournament from a file.",
        {"trf": import_trf, "pgn": import_pgn_cmd, "sgf": import_sgf_cmd},
    )
    add_group(
        app,
        "export",
        "Export a tournament to a file.",
        {"trf": export_trf_cmd, "sgf": export_sgf_cmd, **exports.COMMANDS},
    )
