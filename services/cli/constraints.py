"""`arbiter prohibit` and `arbiter accelerate`: the pairing constraints an arbiter sets before
pairing a Dutch Swiss (issue 26), through `services/commands/constraints.py`.

- `arbiter prohibit T PLAYER PLAYER ... [--reason TEXT] [--from-round N] [--to-round N]`: no
  two of the players are paired (a `PairingsProhibited`, TRF26 record 260);
- `arbiter accelerate T --baku` (FIDE C.04.5.1) or `--file VALUES.txt` (lines `ROUNDS POINTS
  PLAYER`, e.g. `1-3 1 12`) or `--none`: an `AccelerationSet` (TRF26 record 250).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from services.cli.common import ActToken, As, Backend, Db, fail, local_actor, local_log
from services.cli.render import escape, out


def prohibit(
    tournament: str,
    players: Annotated[
        list[str],
        typer.Argument(help="two or more: start numbers, player ids or starts of names"),
    ],
    reason: Annotated[str, typer.Option("--reason", help="why (recorded)")] = "",
    from_round: Annotated[int, typer.Option("--from-round", min=1)] = 1,
    to_round: Annotated[
        int | None, typer.Option("--to-round", min=1, help="default: to the last round")
    ] = None,
    as_: As = None,
    token: ActToken = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Forbid these players to be paired with one another (family members, club mates): a
    PairingsProhibited (TRF26 record 260) the Dutch pairing honours.

    Example: arbiter prohibit open-2026 12 14 --reason "brothers\""""
    from services.commands.constraints import prohibit_pairings
    from services.commands.service import CommandService

    actor = local_actor(as_, token, tournament)
    with local_log(backend, db) as log:
        result = prohibit_pairings(
            CommandService(log),
            tournament,
            players,
            actor,
            reason=reason,
            first_round=from_round,
            last_round=to_round,
        )
    env = result.envelopes[0]
    rounds = f"rounds {from_round}-{to_round}" if to_round else f"from round {from_round}"
    out.print(
        f"{tournament}#{env.seq} PairingsProhibited {', '.join(env.payload['players'])} "
        f"{rounds}{': ' + escape(reason) if reason else ''} (by {escape(env.actor.id)})",
        soft_wrap=True,
    )


def accelerate(
    tournament: str,
    baku: Annotated[
        bool,
        typer.Option(
            "--baku", help="FIDE C.04.5.1 Baku acceleration, read from the field at each pairing"
        ),
    ] = False,
    file: Annotated[
        Path | None,
        typer.Option("--file", help="explicit values, lines 'ROUNDS POINTS PLAYER'"),
    ] = None,
    none: Annotated[bool, typer.Option("--none", help="remove the acceleration")] = False,
    reason: Annotated[str, typer.Option("--reason", help="why (recorded)")] = "",
    as_: As = None,
    token: ActToken = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Set the accelerated rounds (an AccelerationSet, TRF26 record 250): virtual points added
    to the pairing score of the top players in the first rounds (never to their score).

    Example: arbiter accelerate open-2026 --baku"""
    from services.commands.constraints import parse_acceleration_file, set_acceleration
    from services.commands.service import CommandService

    if sum((baku, file is not None, none)) != 1:
        fail("acceleration.choose", "--baku", "give one of --baku, --file or --none")
    values = []
    if file is not None:
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            fail("acceleration.file_unreadable", "--file", f"{file}: {exc}")
    actor = local_actor(as_, token, tournament)
    with local_log(backend, db) as log:
        if file is not None:
            values = parse_acceleration_file(text, str(file))
        result = set_acceleration(
            CommandService(log), tournament, actor, baku=baku, values=values, reason=reason
        )
    env = result.envelopes[0]
    count = len(env.payload["values"])
    players = len({v["player_id"] for v in env.payload["values"]})
    what = (
        f"{env.payload['method']}: {count} values for {players} players"
        if count
        else "none: the acceleration removed"
    )
    out.print(
        f"{tournament}#{env.seq} AccelerationSet {what} (by {escape(env.actor.id)})",
        soft_wrap=True,
    )


def register(app: typer.Typer) -> None:
    """Add `prohibit` and `accelerate` to the `arbiter` app."""
    app.command()(prohibit)
    app.command()(accelerate)
