"""`arbiter games TOURNAMENT [--json] [--at SEQ]` (projections/games.py): one row per game:
game, round, players, result, termination, the rule that ended it, plies, and for an imported
game its source's ending and whether they disagree; below the table, where a clock was
unknown (a move without timing, until the next reported clock)."""

from __future__ import annotations

import typer

from services.cli.common import AsJson, At, Backend, Db, tournament_records
from services.cli.render import out, print_json


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

    records = tournament_records(tournament, "games", at, backend, db)
    rows = game_rows(records)
    seq = records[-1].envelope.seq
    if as_json:
        print_json({"tournament_id": tournament, "seq": seq, "games": [r.as_dict() for r in rows]})
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
    for r in rows:
        if r.clock_unknown:  # a move without timing: no flag falls until a clock is reported
            out.print(f"{r.game_id}: {r.clock_note()}")


def register(app: typer.Typer) -> None:
    """Add `games` to the `arbiter` app."""
    app.command("games")(games)
