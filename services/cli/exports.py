"""`arbiter export pgn|h9|aga`: a tournament's files for other programs and rating bodies
(registered in the `export` group by `services/cli/interchange.py`).

- `export pgn TOURNAMENT [--round N] [--out/-o FILE]`: every chess game of the tournament as
  PGN (services/interchange/pgn/export.py): the tags (Round "round.board", Elo, TimeControl,
  Termination and the rule that ended it in `TerminationRule`), `[%clk]`, `[%emt]`,
  `[%eval]` in the move comments; `arbiter import pgn` reads it back to the same games.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from services.cli.common import Backend, Db, fail, tournament_records
from services.cli.render import out

OutFile = Annotated[Path | None, typer.Option("--out", "-o", help="file (default: stdout)")]


def _write(text: str, out_file: Path | None, what: str, kind: str) -> None:
    """`text` on stdout, or into `out_file` (refused as `<kind>.unwritable`)."""
    if out_file is None:
        sys.stdout.write(text)
        return
    try:
        out_file.write_bytes(text.encode("utf-8"))
    except OSError as exc:
        fail(f"{kind}.unwritable", "--out", str(exc))
    out.print(f"wrote {what} to {out_file}")


def export_pgn_cmd(
    tournament: str,
    round_: Annotated[
        int | None, typer.Option("--round", min=1, help="this round only (main stage)")
    ] = None,
    out_file: OutFile = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Write every chess game of a tournament as PGN (clocks, evaluations, the rule that ended
    each game), as `arbiter import pgn` reads it back."""
    from services.interchange.pgn.export import ExportRefused, export_tournament_pgn

    records = tournament_records(tournament, "pgn", backend=backend, db=db)
    try:
        text = export_tournament_pgn(records, round_)
    except ExportRefused as exc:
        fail(exc.rule, exc.field, exc.message)
    _write(text, out_file, tournament, "pgn")


#: The `export` group's commands defined here, in their --help order.
COMMANDS = {"pgn": export_pgn_cmd}
