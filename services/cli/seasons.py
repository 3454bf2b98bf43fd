"""`arbiter season start|advance|show`: a season of tournaments played in stages (TCEC Leagues
Season, Swiss and Cup, FRD, 4k; `projections/seasons/`, `services/commands/seasons.py`).

- `start SERIES --plan PLAN.json [--name NAME]`: the series and the organisers' plan;
- `advance SERIES [--seed S] [--dry-run] [--json]`: record the fields the finished stages
  give (rulings an arbiter can overrule), create those stages, register their engines;
- `show SERIES [--json]`: the stages, their status and fields, the moves, the placement.

Registered by `register(app)` (services/cli/main.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from services.cli.common import (
    ActToken,
    As,
    AsJson,
    Backend,
    Db,
    add_group,
    local_actor,
    local_log,
)
from services.cli.render import out, print_json


def _print_view(body: dict[str, Any]) -> None:
    from rich.table import Table

    out.print(f"[bold]{body['series_id']}[/bold]: {body.get('title') or '?'} ({body['format']})")
    for problem in body.get("problems", []):
        out.print(f"[red]problem[/red] {problem}")
    for st in body.get("stages", []):
        outcome = st["outcome"]
        head = f"{st['name']} ({st['tournament_id']}): {st['status']}"
        if outcome.get("champion") and st["status"] == "finished":
            head += f", winner {outcome['champion']}"
        out.print(f"[bold]{head}[/bold]  [dim]{st['article']}[/dim]")
        if st["field"]:
            t = Table(show_edge=False)
            for col in ("seed", "engine", "from", "place", "rule"):
                t.add_column(col)
            for e in st["field"]:
                origin = e["from"]
                t.add_row(
                    str(e["seed"]),
                    e["name"],
                    str(origin.get("source") or ""),
                    "" if origin.get("place") is None else str(origin["place"]),
                    e["rule"],
                )
            out.print(t)
            src = st["field_source"] + (f" {st['field_ruling']}" if st["field_ruling"] else "")
            out.print(f"  [dim]field: {src}{' (stale)' if st['stale'] else ''}[/dim]")
        if st["promoted"]:
            moves = ", ".join(f"{m['player_id']} → {m['to']}" for m in st["promoted"])
            out.print(f"  promoted: {moves}")
        if st["blocked"]:
            out.print(f"  [yellow]{st['blocked']['kind']}[/yellow]: {st['blocked']['text']}")
        for note in st["notes"]:
            out.print(f"  [dim]{note}[/dim]")
    placement = body.get("placement")
    if placement:
        out.print(f"[bold]next Season ({placement['source']})[/bold]")
        for league, engines in placement["placed"].items():
            out.print(f"  {league}: {', '.join(engines)}")
        if placement["left"]:
            out.print(f"  leaving the Leagues: {', '.join(placement['left'])}")
    elif body.get("placement_blocked"):
        out.print(f"[dim]next Season: {body['placement_blocked']['text']}[/dim]")
    if body.get("champion"):
        out.print(f"[bold]champion[/bold]: {body['champion']}")


def start(
    series: str,
    plan: Annotated[
        Path,
        typer.Option(
            "--plan",
            help="the plan (JSON): format, engines and the keys the format reads; schema "
            "events_schema/json/inputs/season-plan.schema.json",
        ),
    ],
    name: Annotated[str | None, typer.Option("--name", help="the season's name")] = None,
    as_json: AsJson = False,
    as_: As = None,
    token: ActToken = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Create the season: the series and the organisers' plan (one batch).

    The plan names the format (tcec-season, tcec-leagues, tcec-swiss-cup, tcec-frd,
    tcec-4k), every engine once in `engines`, and what the format reads: `field` (the
    single field of a Swiss, FRD or 4k, in seed order), `placed` (Leagues 1.8: League key ->
    engines), `swiss_qualifiers`, `holder`, `cup_holder`, `vacancies`. A plan with mistakes
    is refused with all of them, each with its place (plan.engines[0].rating); nothing is
    appended. Example (docs/examples/season-plan.json):

    \b
    {"format": "tcec-4k", "title": "TCEC 4k Season 1",
     "engines": [{"player_id": "stockfish", "name": "Stockfish", "rating": 3640},
                 {"player_id": "lc0", "name": "Leela Chess Zero"},
                 {"player_id": "dragon", "name": "Dragon"},
                 {"player_id": "berserk", "name": "Berserk"}],
     "field": ["stockfish", "lc0", "dragon", "berserk"]}

    Check a plan first with `arbiter schema validate season-plan FILE`."""
    from services.commands.seasons import start as start_season
    from services.commands.service import CommandService
    from services.inputs import read_json

    with local_log(backend, db) as log:
        body = read_json(plan, "--plan", "season.plan_unreadable")
        title = body.get("title") if isinstance(body, dict) else None
        seqs = start_season(
            CommandService(log),
            series,
            name or title or series,
            body,
            local_actor(as_, token, series),
        )
    if as_json:
        print_json({"series_id": series, "appended": bool(seqs), "seqs": seqs})
        return
    if seqs:
        out.print(f"{series}: season created (seq {seqs[0]}-{seqs[-1]})")
    else:
        out.print(f"{series}: already created with this plan; nothing appended")


def advance(
    series: str,
    seed: Annotated[
        str | None, typer.Option(help="seed for the lots (default: random; always recorded)")
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="append nothing")] = False,
    as_json: AsJson = False,
    as_: As = None,
    token: ActToken = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Record the fields the finished stages give and create the next stage(s)."""
    from services.commands.seasons import advance as advance_season
    from services.commands.service import CommandService

    with local_log(backend, db) as log:
        done = advance_season(
            CommandService(log), series, local_actor(as_, token, series), seed=seed, dry_run=dry_run
        )
    if as_json:
        print_json(done.as_dict())
        return
    if dry_run:
        out.print(f"[bold]{series}[/bold]: dry run, would append:")
        for line in done.planned or ["nothing"]:
            out.print(f"  {line}")
    elif done.nothing_appended:
        out.print(f"[bold]{series}[/bold]: nothing to append")
    for a in done.appended:
        out.print(f"  {a.stream}: {a.what} (seq {a.seqs[0]}-{a.seqs[-1]}): {', '.join(a.types)}")
    for problem in done.problems:
        out.print(f"[yellow]needs the organisers[/yellow] {problem}")
    _print_view(done.view.as_dict())


def show(
    series: str,
    as_json: AsJson = False,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """The stages, their status and fields, the moves and the next Season's placement."""
    from services.commands.seasons import show as show_season

    with local_log(backend, db) as log:
        view = show_season(log, series)
    body = view.as_dict()
    if as_json:
        print_json(body)
        return
    _print_view(body)


def register(app: typer.Typer) -> None:
    """Add the `season` group (`start`, `advance`, `show`) to the `arbiter` app."""
    add_group(
        app,
        "season",
        "Seasons played in stages: fields derived from the standings, promotions, "
        "relegations (tcec-rules Leagues, Swiss, Cup, FRD, 4k).",
        {"start": start, "advance": advance, "show": show},
    )
