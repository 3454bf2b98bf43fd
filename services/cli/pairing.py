"""`arbiter pair` and `arbiter schedule`: the organiser's pairing commands.

`pair` runs the tournament's pairing system (services/pairing.py) and appends the lots it
needed and the round, in one batch; `schedule` shows the rounds scheduled so far and, for a
round robin, the rounds to come, or the knockout bracket so far."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Any

import typer
from rich.table import Table

from services.cli.common import AsJson, Backend, Db, fail, fold_known, local_actor, local_log
from services.cli.render import out

Stage = Annotated[str, typer.Option("--stage", help="stage to pair (default: main)")]


def _names(state: Any) -> dict[str, str]:
    return {pid: p.name for pid, p in state.players.items()}


def pair(
    tournament: str,
    stage: Stage = "main",
    rnd: Annotated[
        int | None,
        typer.Option("--round", help="the round you expect to pair: a resend then appends nothing"),
    ] = None,
    seed: Annotated[
        str | None, typer.Option(help="seed for the lots (default: random; always recorded)")
    ] = None,
    at: Annotated[
        datetime | None,
        typer.Option(
            "--at",
            help="the round's start, ISO 8601 with a UTC offset (Go: lateness is measured "
            "from it, LGC Timing 'Start')",
            formats=["%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%dT%H:%M%z"],
        ),
    ] = None,
    as_json: AsJson = False,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Pair the next round: append the lots it needs and the RoundScheduled, print it."""
    from services.commands import CommandService
    from services.pairing import pair_next, paired_json

    with local_log(backend, db) as log:
        service = CommandService(log)
        paired = pair_next(
            service,
            tournament,
            local_actor(),
            stage=stage,
            expected_round=rnd,
            seed=seed,
            scheduled_at=at,
        )
        state = fold_known(log, tournament, None, "pairing")
    body = paired_json(paired)
    if as_json:
        print(json.dumps(body, ensure_ascii=False, indent=2))
        return
    names = _names(state)
    r = paired.round
    head = f"{tournament} {r.stage} round {r.round} ({paired.system})"
    if paired.result is None:
        head += ": already scheduled, nothing appended"
    else:
        head += f": appended at seq {body['round_seq']}"
    out.print(f"[bold]{head}[/bold]")
    for lot in body["lots"]:  # type: ignore[attr-defined]
        out.print(
            f"  lot #{lot['seq']} {lot['purpose']} {lot['subject']}: "
            f"{' '.join(lot['outcome'])} (seed {lot['seed']})"
        )
    table = Table(show_edge=False)
    go = any(p.handicap for p in r.pairings)
    for col in ("board", "white", "black", "game", *(("handicap",) if go else ())):
        table.add_column(col)
    for i, p in enumerate(r.pairings, start=1):
        table.add_row(
            str(p.board or i),
            names.get(p.white, p.white),
            names.get(p.black, p.black),
            p.game_id,
            *((str(p.handicap) if p.handicap else "even",) if go else ()),
        )
    for b in r.byes:
        table.add_row("–", names.get(b.player_id, b.player_id), f"bye ({b.kind})", "")
    out.print(table)
    for note in paired.notes:
        out.print(f"  [dim]{note}[/dim]")


def schedule(
    tournament: str,
    stage: Stage = "main",
    as_json: AsJson = False,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """The rounds scheduled so far and, for a round robin, the rounds to come; for a cup,
    the bracket so far."""
    from projections.pairing.base import PairingRefused
    from projections.pairing.systems import planned

    with local_log(backend, db) as log:
        state = fold_known(log, tournament, None, "schedule")
    try:
        body = planned(state, stage)
    except PairingRefused as exc:
        fail(exc.rule, exc.field, exc.message)
    if as_json:
        print(json.dumps(body, ensure_ascii=False, indent=2))
        return
    names = _names(state)
    out.print(f"[bold]{tournament} {stage}: {body['system']}[/bold]")
    for rnd in body["rounds"]:
        status = rnd["status"]
        out.print(f"round {rnd['round']} ({status})")
        for p in rnd["pairings"]:
            w, b = names.get(p["white"], p["white"]), names.get(p["black"], p["black"])
            out.print(f"  {p['board']:>3}  {w} – {b}  {p.get('result') or ''}")
        for bye in rnd["byes"]:
            out.print(f"       {names.get(bye['player_id'], bye['player_id'])}: bye")
    for note in body.get("notes", []):
        out.print(f"[dim]{note}[/dim]")


def register(app: typer.Typer) -> None:
    app.command()(pair)
    app.command()(schedule)
