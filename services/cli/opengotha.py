"""`arbiter import opengotha` and `arbiter export opengotha`: a Go tournament in from an
OpenGotha tournament file and out to one (services/interchange/opengotha/).

- `import opengotha FILE.xml [--tournament ID] [--json]`: the file's players, McMahon
  settings, placement criteria and every round as played (tables, colours, handicaps, byes,
  results), recorded through the command path without re-pairing. A malformed file is
  refused naming the element and the rule, appending nothing; the same file again appends
  nothing. The OpenGotha conventions Arbiter cannot express yet are printed by name (and
  listed under `not_expressed` in the JSON); the values Arbiter does not use are kept and
  written back by the export.
- `export opengotha TOURNAMENT [-o FILE]`: the tournament as an OpenGotha file, on stdout
  without `-o`.

The two commands join the `import` and `export` groups of services/cli/interchange.py
(`register` runs after that module's, `services.cli.main.COMMANDS`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from services.cli.common import (
    ActToken,
    As,
    AsJson,
    Backend,
    Db,
    fail,
    local_actor,
    local_log,
    tournament_records,
    write_out,
)
from services.cli.render import err, out, print_json


def import_opengotha_cmd(
    file: Path,
    tournament: Annotated[
        str | None, typer.Option("--tournament", help="tournament id (default: file name)")
    ] = None,
    as_json: AsJson = False,
    as_: As = None,
    token: ActToken = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Record an OpenGotha tournament file (XML) as a Go tournament, rounds as played."""
    from services.interchange.opengotha import OpenGothaError, import_opengotha, plan_file
    from services.interchange.pipeline import ImportRefused, tournament_id_for

    try:
        raw = file.read_bytes()
        tid = tournament or tournament_id_for(file)
        _, plan = plan_file(raw, name=file.stem, file_name=file.name)
    except OSError as exc:
        fail("opengotha.unreadable", "FILE", str(exc))
    except OpenGothaError as exc:
        fail(exc.rule, f"{file.name} {exc.where}", exc.message)
    except ValueError as exc:  # a tournament id or an event field out of range
        fail("opengotha.invalid", str(file), str(exc))
    with local_log(backend, db) as log:
        try:
            report = import_opengotha(
                log,
                raw,
                tournament_id=tid,
                actor=local_actor(as_, token, tid),
                file_name=file.name,
                plan=plan,
            )
        except ImportRefused as exc:
            fail(exc.rule, exc.where, exc.message)
    if as_json:
        print_json(report.as_dict())
        return
    if report.duplicate:
        out.print(f"{tid}: already imported: nothing appended (last seq {report.last_seq})")
    else:
        out.print(
            f"{tid}: imported {report.players} players, {report.rounds} rounds, "
            f"{report.games} games ({report.results} results): {report.appended} events "
            f"(last seq {report.last_seq})"
        )
    if report.conventions:
        err.print(f"{tid}: OpenGotha conventions Arbiter does not express yet:")
        for c in report.conventions:
            err.print(f"  [yellow]{c.name}[/yellow]: {c.what}")


def export_opengotha_cmd(
    tournament: str,
    out_file: Annotated[
        Path | None, typer.Option("--out", "-o", help="file (default: stdout)")
    ] = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Write a Go tournament as an OpenGotha tournament file (XML)."""
    from services.interchange.opengotha.export import ExportRefused, export_opengotha

    records = tournament_records(tournament, "opengotha", backend=backend, db=db)
    try:
        data = export_opengotha(records)
    except ExportRefused as exc:
        fail(exc.rule, "TOURNAMENT", exc.message)
    write_out(data, out_file, tournament, "opengotha")


def register(app: typer.Typer) -> None:
    """Add `opengotha` to the `import` and `export` groups (made by services/cli/interchange,
    registered before this module)."""
    groups = {g.name: g.typer_instance for g in app.registered_groups}
    for group, command in (("import", import_opengotha_cmd), ("export", export_opengotha_cmd)):
        typer_group = groups.get(group)
        if typer_group is None:
            raise RuntimeError(f"the {group!r} group is registered before services.cli.opengotha")
        typer_group.command("opengotha")(command)
