"""`arbiter games TOURNAMENT [--json] [--at SEQ]` (projections/games.py): one row per game:
game, round, players, result, termination, the rule that ended it, plies, and for an imported
game its source's ending and whether they disagree; below the table, where a clock was
unknown (a move without timing, until the next reported clock)."""

from __future__ import annotations

import typer

from services.cli.common import AsJson, At, Backend, Db, tournament_records
from services.cli.render import escape, out, print_json


def shown_result(result: str | None, termination: str | None) -> str:
    """A result as organisers read it: "½-½", "+-"/"-+"/"--" for a forfeit, "" for none."""
    if result is None:
        return ""
    if termination == "forfeit":
        return {"1-0": "+-", "0-1": "-+", "0-0": "--", "1-1": "++"}.get(result, result)
    return "½-½" if result == "1/2-1/2" else result


def clock(ms: int | None) -> str:
    """A clock reading as a clock shows it: "1:05:09", "4:07"; "–" when none was read."""
    if ms is None:
        return "–"
    secs = ms // 1000
    h, m, sec = secs // 3600, secs // 60 % 60, secs % 60
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def games(
    tournament: str,
    as_json: AsJson = False,
    at: At = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """One row per game: board, players, result, how it ended (in words, with the rule that
    ended it), clocks, plies, and for an imported game its source.

    Example: arbiter games open-2026"""
    from rich.table import Table

    from projections.games import game_rows

    records = tournament_records(tournament, "games", at, backend, db)
    rows = game_rows(records)
    seq = records[-1].envelope.seq
    if as_json:
        print_json({"tournament_id": tournament, "seq": seq, "games": [r.as_dict() for r in rows]})
        return
    t = Table(title=f"Games: {tournament} (as of seq {seq})")
    # Columns an organiser's games leave empty (no clock read, no imported source) are left out.
    clocked = any(r.white_ms is not None or r.black_ms is not None for r in rows)
    sourced = any(r.source is not None for r in rows)
    cols = ["round", "board", "white", "result", "black", "how it ended"]
    cols += ["clocks"] * clocked + ["plies", "game"] + ["source", "agrees"] * sourced
    for col in cols:
        t.add_column(col, justify="right" if col in ("round", "board", "plies") else "left")
    for r in rows:
        cells = [
            str(r.round) if r.stage == "main" else f"{r.stage} {r.round}",
            str(r.board) if r.board is not None else "",
            r.white,
            shown_result(r.result, r.termination),
            r.black,
            r.rule,
        ]
        if clocked:
            cells.append(f"{clock(r.white_ms)} – {clock(r.black_ms)}")
        cells += [str(r.plies), r.game_id]
        cells = [escape(c) for c in cells]
        if sourced:
            src = ""
            if r.source is not None:
                words = r.source.details or r.source.termination
                src = f"{r.source.result} {words}".strip()
            agrees = "" if r.source is None else "yes"
            if r.disagrees:
                agrees = "[red]no[/red]: " + escape(r.why)
            cells += [escape(src), agrees]
        t.add_row(*cells)
    out.print(t)
    for r in rows:
        if r.clock_unknown:  # a move without timing: no flag falls until a clock is reported
            out.print(f"{r.game_id}: {r.clock_note()}")


def register(app: typer.Typer) -> None:
    """Add `games` to the `arbiter` app."""
    app.command("games")(games)
