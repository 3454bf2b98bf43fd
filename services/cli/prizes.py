"""`arbiter prizes` and `arbiter series`: what a tournament pays (prize money and tour points,
split as its rules say) and the series table its tour points add up to (services/cli/tables.py
reads the folds)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from services.cli.common import (
    ActToken,
    As,
    AsJson,
    At,
    Backend,
    Db,
    fail,
    fold_known,
    local_actor,
    local_log,
)
from services.cli.render import escape, money, name_column, name_of, names_of, out, points


def prizes(
    tournament: str,
    at: At = None,
    as_json: AsJson = False,
    premium: Annotated[
        str | None,
        typer.Option(
            help="rapid-blitz (GCT 2.6: 5,000) or classical (3.6: 10,000), when the rules "
            "preset names neither"
        ),
    ] = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Prize money and tour points, split as the rules say, to the cent. For a GCT tour
    playoff: the tour bonus by the overall places before the playoff (GCT 4.2)."""
    from rich.table import Table

    from events_schema.codec import dumps
    from services.cli import tables

    with local_log(backend, db) as log:
        state = fold_known(log, tournament, at, "prizes")
        try:
            split = tables.prizes_for(log, tournament, state, premium)
        except ValueError as exc:
            fail(
                "prizes.invalid",
                "prize_table",
                f"{exc}: correct the table with `arbiter append {tournament} --type "
                'RulingIssued --payload \'{"ruling_id": "...", "by": "...", "subject": '
                '"prize_table", "text": "...", "decision": {"prize_table": {...}}}\'`',
            )
    names = names_of(state)
    body = split.as_dict()
    for line in body["lines"]:  # the ids stay; the names beside them
        line["name"] = name_of(names, line["player_id"])
    if split.playoff_winner is not None:
        body["playoff_winner_name"] = name_of(names, split.playoff_winner)
    if as_json:
        sys.stdout.write(dumps(body).decode() + "\n")
        return
    cur = split.currency
    t = Table(title=f"Prizes: {tournament} ({body.get('status', '')}, {cur})")
    if split.kind == "gct-tour-bonus":
        t.caption = (
            "GCT 4.2: the tour bonus by the overall places before the playoff; "
            "the playoff does not change it"
        )
    name_column(t)
    t.add_column("places")
    for col in ("prize", "share", "premium"):
        t.add_column(col, justify="right", no_wrap=True)
    t.add_column("tour points", justify="right")
    t.add_column("note")
    for line in split.lines:
        pending = (
            f" (+{money(line.premium_pending, cur)} if playoff won)" if line.premium_pending else ""
        )
        t.add_row(
            escape(name_of(names, line.player_id)),
            line.places,
            money(line.prize, cur),
            money(line.share, cur),
            f"{money(line.premium, cur)}{pending}",
            "" if line.tour_points is None else points(line.tour_points),
            line.note,
        )
    out.print(t)
    out.print("  ".join(f"{k}: {money(v, cur)}" for k, v in body["totals"].items()))


def series(
    series_id: str,
    at: Annotated[int | None, typer.Option("--at", help="the series stream as at this seq")] = None,
    as_json: AsJson = False,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """The series table (GCT tour or Czech series) over its completed tournaments."""
    from rich.table import Table

    from events_schema.codec import dumps
    from services.cli import tables

    with local_log(backend, db) as log:
        try:
            body = tables.series_table(log, series_id, at)
        except (LookupError, ValueError) as exc:
            fail("series.invalid", "SERIES", str(exc))
    if as_json:
        sys.stdout.write(dumps(body).decode() + "\n")
        return
    t = Table(title=f"{body['name']} ({body['kind']}): {len(body['tournaments_counted'])} events")
    rows = body["table"]["rows"]
    names = body.get("names", {})
    t.add_column("#")
    name_column(t)
    t.add_column("points")
    t.add_column("decided by")
    for i, r in enumerate(rows):
        place = f"{r['place']}{'=' if r.get('shared') else ''}"
        decided_by = r.get("decided_by", "")
        if i and decided_by.startswith("points "):  # the terminal's formatting of points
            decided_by = f"points {points(rows[i - 1]['points'])}–{points(r['points'])}"
        t.add_row(place, escape(name_of(names, r["player_id"])), points(r["points"]), decided_by)
    out.print(t)
    for tie in body["table"].get("ties", []):
        shown = points(tie["points"])
        text = tie["text"].replace(f" on {tie['points']} points", f" on {shown} points")
        out.print(f"tie: {text}")
    for po in body.get("tour_playoffs", []):
        if po["done"]:
            order = " > ".join(
                " = ".join(name_of(names, p) for p in block) for block in po["final_order"]
            )
            out.print(f"tour playoff {po['tournament_id']}: {po['status']}, final order {order}")
        else:
            out.print(
                f"tour playoff {po['tournament_id']}: {po['status']} "
                f"(`arbiter playoff {po['tournament_id']}`)"
            )
    playoff_ids = {po["tournament_id"] for po in body.get("tour_playoffs", [])}
    running = [tid for tid in body["tournaments_in_progress"] if tid not in playoff_ids]
    if running:
        out.print(f"in progress (not counted yet): {', '.join(running)}")


def prize_table(
    tournament: str,
    file: Annotated[
        Path,
        typer.Argument(
            help="the prize table (JSON); schema events_schema/json/inputs/prize-table.schema.json",
            metavar="FILE",
        ),
    ],
    reason: Annotated[
        str | None, typer.Option("--reason", help="the ruling's text (default: the table)")
    ] = None,
    as_: As = None,
    token: ActToken = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Set the prize table `arbiter prizes` pays from: a RulingIssued(subject "prize_table")
    that replaces the table of TournamentCreated (a later one replaces it again; retract it
    to go back). Setting the table in force again appends nothing. A file with mistakes is
    refused with all of them, each with its place; nothing is appended. Example
    (docs/examples/prize-table.json; amounts in the currency's units, at most 2 decimals,
    written as strings so no cent is lost; winner_premium: GCT 2.6/3.6):

    \b
    {"currency": "USD",
     "prizes": [{"place": 1, "amount": "40000"}, {"place": 2, "amount": "25000"},
                {"place": 3, "amount": "15000"}, {"place": 4, "amount": "10000.50"}],
     "winner_premium": "5000"}"""
    from events_schema.events import PrizeTable
    from services.commands.prize_table import set_prize_table
    from services.commands.service import CommandService
    from services.inputs import read

    with local_log(backend, db) as log:
        table = read("prize-table", file, "FILE")
        assert isinstance(table, PrizeTable)
        seqs = set_prize_table(
            CommandService(log), tournament, table, local_actor(as_, token, tournament), reason
        )
    if seqs:
        out.print(f"{tournament}#{seqs[0]} RulingIssued prize_table: the prize table in force")
    else:
        out.print(f"{tournament}: this prize table is already in force; nothing appended")


def register(app: typer.Typer) -> None:
    """Add `prizes`, `series` and `prize-table` to the `arbiter` app."""
    for command in (prizes, series):
        app.command()(command)
    app.command("prize-table")(prize_table)
