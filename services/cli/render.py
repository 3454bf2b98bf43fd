"""What the `arbiter` commands print: the consoles, points (one formatting everywhere: `points`)
and the standings table."""

from __future__ import annotations

import sys
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING

from rich.console import Console

if TYPE_CHECKING:
    from projections.standings import Table as StandingsTable

# Wide enough for the standings' tiebreak columns when printing to a file or a pipe.
out = Console(width=None if sys.stdout.isatty() else 160)
err = Console(stderr=True)


def points(value: Fraction | Decimal | int | str) -> str:
    """Points as every command prints them: the standings' half-point formatter (11½, ½, 3).
    Takes a number or the exact string a JSON document carries ("11.5", "31/3"); a string
    that is not a number (already shown, "1½") is printed as it is."""
    from projections.tiebreaks.registry import half_points

    try:
        exact = Fraction(value)
    except ValueError:  # already shown ("1½", "2½ (max 3½)"): as it is
        return str(value)
    return half_points(exact * 2 if exact.denominator > 2 else int(exact * 2))


def print_standings(tournament: str, table: StandingsTable, console: Console | None = None) -> None:
    """The standings with a column per tiebreak and why each row is below the one above."""
    from rich.table import Table

    from projections.standings.table import column_keys

    pairs = [
        (key, c.label)
        for key, (c, _) in zip(column_keys(table.chain), table.chain.criteria(), strict=True)
        if not c.terminal
    ]
    crit_cols = [key for key, _ in pairs]
    labels = [label for _, label in pairs]
    # Short headers: the criteria's labels, or the full key where a label repeats.
    heads_tb = [lab if labels.count(lab) == 1 else key for key, lab in pairs]
    t = Table(title=f"Standings: {tournament} (as of seq {table.seq})")
    if table.edition:
        t.caption = f"FIDE C.07 {table.edition.edition} ({table.edition.source})"
    heads = ["#", "player", "score", "played", "W", "D", "L", "byes", "ff +/-"]
    for col in [*heads, *heads_tb, "decided by"]:
        t.add_column(col, justify="left" if col in ("player", "decided by") else "right")
    for r in table.rows:
        place = f"{r.place}{'=' if r.shared else ''}{'?' if r.unresolved else ''}"
        tb = dict(r.tiebreaks)
        t.add_row(
            place,
            r.name + (" (withdrawn)" if r.withdrawn else ""),
            r.score,
            str(r.played),
            str(r.wins),
            str(r.draws),
            str(r.losses),
            str(r.byes),
            f"{r.forfeit_wins}/{r.forfeit_losses}",
            *[tb.get(c, "–") for c in crit_cols],
            r.decided_by,
        )
    (console or out).print(t)
