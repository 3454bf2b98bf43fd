"""`arbiter export pgn|h9|aga`: a tournament's files for other programs and rating bodies
(registered in the `export` group by `services/cli/interchange.py`).

- `export pgn TOURNAMENT [--round N] [--out/-o FILE]`: every chess game of the tournament as
  PGN (services/interchange/pgn/export.py): the tags (Round "round.board", Elo, TimeControl,
  Termination and the rule that ended it in `TerminationRule`), `[%clk]`, `[%emt]`,
  `[%eval]` in the move comments; `arbiter import pgn` reads it back to the same games.
- `export h9 TOURNAMENT [--class A|B|C|D] [--place 'FR,Paris'] [-o FILE]`: a Go tournament's
  results as the EGF h9 file (services/interchange/egf/h9.py).
- `export aga TOURNAMENT [--place P] [--rules AGA] [-o FILE]`: a Go tournament's results as
  the AGA results file (services/interchange/egf/aga.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from services.cli.common import Backend, Db, fail, tournament_records, write_out

OutFile = Annotated[Path | None, typer.Option("--out", "-o", help="file (default: stdout)")]


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
    write_out(text, out_file, tournament, "pgn")


def export_h9_cmd(
    tournament: str,
    egf_class: Annotated[
        str | None,
        typer.Option(
            "--class",
            help="the EGF tournament class A, B, C or D (default: from the time control, as "
            "OpenGotha computes it)",
        ),
    ] = None,
    place: Annotated[
        str, typer.Option("--place", help="country code and town, e.g. 'FR,Paris'")
    ] = ",",
    out_file: OutFile = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Write a Go tournament's results as the EGF's h9 file (for the European Go Database)."""
    from services.interchange.egf.common import ResultsFileRefused
    from services.interchange.egf.h9 import export_h9

    if egf_class is not None and egf_class not in ("A", "B", "C", "D"):
        fail("h9.invalid", "--class", f"{egf_class!r} is not an EGF class (A, B, C, D)")
    records = tournament_records(tournament, "h9", backend=backend, db=db)
    try:
        text = export_h9(records, egf_class=egf_class, place=place)
    except ResultsFileRefused as exc:
        fail(exc.rule, exc.field, exc.message)
    write_out(text, out_file, tournament, "h9")


def export_aga_cmd(
    tournament: str,
    place: Annotated[str, typer.Option("--place", help="where it was played")] = "",
    rules: Annotated[str, typer.Option("--rules", help="rules of play: AGA, Ing, ...")] = "AGA",
    out_file: OutFile = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Write a Go tournament's results as the AGA's results file (for AGA rating)."""
    from services.interchange.egf.aga import export_aga
    from services.interchange.egf.common import ResultsFileRefused

    records = tournament_records(tournament, "aga", backend=backend, db=db)
    try:
        text = export_aga(records, place=place, rules=rules)
    except ResultsFileRefused as exc:
        fail(exc.rule, exc.field, exc.message)
    write_out(text, out_file, tournament, "aga")


#: The `export` group's commands defined here, in their --help order.
COMMANDS: dict[str, Callable[..., Any]] = {
    "pgn": export_pgn_cmd,
    "h9": export_h9_cmd,
    "aga": export_aga_cmd,
}
