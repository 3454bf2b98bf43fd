"""`arbiter feed ...`: the projections as the live feed publishes them.

- `arbiter feed show TOURNAMENT [--projection NAME] [--at SEQ]`: the messages folded from the
  log (the embedded runner's fold, byte for byte), as JSON lines.
- `arbiter feed tail TOURNAMENT --api URL --token T [--last-event-id N]`: follow the API's SSE
  stream (`GET /tournaments/{id}/stream`) and print one JSON line per change.
- `arbiter delay TOURNAMENT SECONDS [--reason TEXT]`: set the broadcast delay (a
  `BroadcastDelaySet`, services/commands/broadcast.py): broadcaster tokens then see the
  projections as of SECONDS ago (services/feed/delay.py); 0 is live.

`arbiter serve` runs the feed in-process on the embedded log (services/feed).
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from services.cli.common import ActToken, As, Backend, Db, add_group, local_actor, local_log


def show(
    tournament: str,
    projection: Annotated[list[str] | None, typer.Option("--projection", "-p")] = None,
    at: Annotated[int | None, typer.Option(help="as of this seq")] = None,
) -> None:
    """Print the projection messages of a tournament, folded from the local log."""
    from projections.names import PROJECTIONS
    from services.projection.projector import replay

    names = projection or list(PROJECTIONS)
    unknown = [n for n in names if n not in PROJECTIONS]
    if unknown:
        raise typer.BadParameter(f"unknown projection {unknown[0]!r}: one of {PROJECTIONS}")
    with local_log() as log:
        messages = replay(log.read(tournament, 1, at), tournament)
    if not messages:
        typer.echo(f"{tournament}: no events", err=True)
        raise typer.Exit(1)
    for name in names:
        sys.stdout.write(messages[name].decode() + "\n")


def tail(
    tournament: str,
    api: Annotated[str, typer.Option(help="API base URL")] = "http://127.0.0.1:8000",
    token: Annotated[str, typer.Option(envvar="ARBITER_TOKEN", help="a reader's token")] = "",
    last_event_id: Annotated[int, typer.Option(help="resume after this as_of_seq")] = 0,
) -> None:
    """Follow the SSE stream of a tournament: one JSON message per line (Ctrl-C to stop)."""
    import httpx

    headers = {"Authorization": f"Bearer {token}", "Last-Event-ID": str(last_event_id)}
    url = f"{api.rstrip('/')}/tournaments/{tournament}/stream"
    timeout = httpx.Timeout(10.0, read=None)
    try:
        with httpx.stream("GET", url, headers=headers, timeout=timeout) as resp:
            if resp.status_code != 200:
                resp.read()
                typer.echo(resp.text, err=True)
                raise typer.Exit(1)
            for line in resp.iter_lines():
                if line.startswith("data:"):
                    sys.stdout.write(line[5:].strip() + "\n")
                    sys.stdout.flush()
    except KeyboardInterrupt:
        pass


def delay(
    tournament: str,
    seconds: Annotated[
        int, typer.Argument(min=0, max=86_400, help="broadcasters see the state of this long ago")
    ],
    reason: Annotated[str, typer.Option(help="why (recorded with the setting)")] = "",
    as_: As = None,
    act_token: ActToken = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Set the broadcast delay: broadcaster tokens see the projections as of SECONDS ago
    (snapshots, the stream, the live page); arbiters, auditors and admins see them live."""
    from services.commands.broadcast import set_broadcast_delay
    from services.commands.service import CommandService

    with local_log(backend, db) as log:
        result = set_broadcast_delay(
            CommandService(log),
            tournament,
            seconds,
            reason,
            local_actor(as_, act_token, tournament),
        )
    env = result.envelopes[0]
    what = "live" if seconds == 0 else f"{seconds} s behind"
    typer.echo(f"{tournament}: broadcasters now see the projections {what} (seq {env.seq})")


def register(app: typer.Typer) -> None:
    """Add the `feed` group (`show`, `tail`) and `delay` to the `arbiter` app."""
    add_group(app, "feed", "The live projection feed.", {"show": show, "tail": tail})
    app.command("delay")(delay)
