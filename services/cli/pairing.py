"""`arbiter pair` and `arbiter schedule`: the organiser's pairing commands.

`pair` runs the tournament's pairing system (services/commands/pairing.py) and appends the lots it
needed and the round, in one batch (`--replace`: the latest round's retraction too, to re-pair
it before any of its games starts); `schedule` shows the rounds scheduled so far and, for a
round robin, the rounds to come, or the knockout bracket so far."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Any

import typer

from services.cli.common import (
    ActToken,
    As,
    AsJson,
    Backend,
    Db,
    fail,
    fold_known,
    local_actor,
    local_log,
)
from services.cli.render import escape, out, print_bracket

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
    replace: Annotated[
        bool,
        typer.Option(
            "--replace",
            help="re-pair the latest round instead: retract it and pair it again, in one "
            "batch; refused once any of its games has started or ended (issue 14)",
        ),
    ] = False,
    reason: Annotated[
        str | None, typer.Option("--reason", help="why the round is re-paired (with --replace)")
    ] = None,
    as_json: AsJson = False,
    as_: As = None,
    token: ActToken = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Pair the next round: append the lots it needs and the RoundScheduled, print it.

    With --replace, re-pair the latest round: its retraction, the lots and the new round go in
    one batch (all or nothing), refused while any game of it has started or ended.

    Example: arbiter pair open-2026; re-pair: arbiter pair open-2026 --replace --reason
    'a late entry missed'"""
    from services.commands.pairing import pair_next, paired_json
    from services.commands.repair import REASON_WITHOUT_REPLACE, reason_without_replace
    from services.commands.service import CommandService

    if reason_without_replace(replace, reason):
        fail(REASON_WITHOUT_REPLACE, "--reason", "--reason goes with --replace")
    with local_log(backend, db) as log:
        service = CommandService(log)
        paired = pair_next(
            service,
            tournament,
            local_actor(as_, token, tournament),
            stage=stage,
            expected_round=rnd,
            seed=seed,
            scheduled_at=at,
            replace=replace,
            reason=reason,
        )
        state = fold_known(log, tournament, None, "pairing")
    body = paired_json(paired)
    if as_json:
        print(json.dumps(body, ensure_ascii=False, indent=2))
        return
    from services.commands.entries import start_numbers

    numbers = start_numbers(state)  # as `arbiter round`, the crosstable and the TRF number them
    names = {
        pid: f"{name} ({numbers[pid]})" if pid in numbers else name
        for pid, name in _names(state).items()
    }
    r = paired.round
    head = f"{tournament} {r.stage} round {r.round} ({paired.system})"
    if paired.result is None:
        head += ": already scheduled, nothing appended"
    else:
        head += f": appended at seq {body['round_seq']}"
    if paired.replaced is not None:
        head += f", replacing the round at seq {paired.replaced.seq} (retracted)"
    out.print(f"[bold]{head}[/bold]")
    for lot in body["lots"]:  # type: ignore[attr-defined]
        # A lot of players (pairing numbers, engine order) by name; any other outcome as drawn.
        drawn = [escape(names.get(o, o)) for o in lot["outcome"]]
        outcome = " · ".join(drawn) if any(o in names for o in lot["outcome"]) else " ".join(drawn)
        out.print(
            f"  lot #{lot['seq']} {lot['purpose']} {lot['subject']}: {outcome} (seed {lot['seed']})"
        )
    from rich.table import Table

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
    for note in paired.notes:  # players by name (services/commands/pairing.py)
        out.print(f"  [dim]{escape(note)}[/dim]")


#: A bye's kind (`Bye.kind`) as `arbiter schedule` says it.
BYE_WORDS = {
    "pairing_allocated": "bye (a win, allocated by the pairing)",
    "half": "½-point bye (requested)",
    "zero": "0-point bye (requested)",
    "advance": "advances without a game",
}


def schedule(
    tournament: str,
    stage: Stage = "main",
    as_json: AsJson = False,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """The rounds scheduled so far and, for a round robin, the rounds to come; for a cup,
    the bracket so far; then the lots to draw next and the command that draws each.

    Example: arbiter schedule open-2026 (--json: as GET /tournaments/open-2026/schedule)"""
    from projections.pairing.base import PairingRefused
    from services.cli import tables
    from services.commands.schedule import schedule_of

    with local_log(backend, db) as log:
        state = fold_known(log, tournament, None, "schedule")
        view = tables.playoff_for(log, tournament, state)
    try:
        body = schedule_of(tournament, state, view, stage)
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
            w = escape(names.get(p["white"], p["white"]))
            b = escape(names.get(p["black"], p["black"]))
            out.print(f"  {p['board']:>3}  {w} – {b}  {p.get('result') or ''}")
        for bye in rnd["byes"]:
            kind = BYE_WORDS.get(bye.get("kind") or "pairing_allocated", "bye")
            out.print(f"       {escape(names.get(bye['player_id'], bye['player_id']))}: {kind}")
    if "bracket" in body:
        print_bracket(body["bracket"], names)
    for note in body.get("notes", []):
        out.print(f"[dim]{note}[/dim]")
    for lot in body["next_lots"]:
        out.print(
            f"[yellow]next[/yellow] draw the lot {lot['subject']!r} ({lot['purpose']}, "
            f"{lot['source']}): {lot['why']}\n  run: {lot['run']}"
        )


def register(app: typer.Typer) -> None:
    app.command()(pair)
    app.command()(schedule)
