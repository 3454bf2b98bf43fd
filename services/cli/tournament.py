"""`arbiter append`, `events`, `standings` and `explain`: a tournament's stream, in and out.

`append` records one command or a batch through the command path (`CommandService`), on the
local log or through the HTTP API (`--api`); `events` prints the stream; `standings` and
`explain` fold it (projections/standings)."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path
from typing import Annotated

import typer

from services.cli.common import (
    As,
    AsJson,
    At,
    Backend,
    Db,
    fail,
    fold_known,
    local_actor,
    local_log,
    standings_of,
)
from services.cli.render import out, print_standings


def append(
    tournament: str,
    type_: Annotated[str | None, typer.Option("--type", help="event type, e.g. GameEnded")] = None,
    payload: Annotated[str, typer.Option(help="payload JSON")] = "{}",
    file: Annotated[
        Path | None, typer.Option(help='batch JSON file: {"commands": [...]}, or - for stdin')
    ] = None,
    expected_seq: Annotated[int | None, typer.Option(help="refuse unless last seq is this")] = None,
    event_id: Annotated[str | None, typer.Option(help="idempotency key (UUID)")] = None,
    api: Annotated[str | None, typer.Option(help="append through the HTTP API at this URL")] = None,
    token: Annotated[
        str | None,
        typer.Option(
            envvar="ARBITER_TOKEN",
            help="API token (with --api; locally: act as its subject and role)",
        ),
    ] = None,
    as_: As = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Append one command (--type/--payload) or a batch (--file) to a tournament."""
    from events_schema import Command, CommandBatch
    from events_schema.codec import dumps, loads
    from services.commands.service import CommandService

    try:
        if file is not None:
            raw = sys.stdin.read() if str(file) == "-" else file.read_text()
            data = loads(raw)
            if "commands" not in data:
                data = {"commands": [data]}
            if expected_seq is not None:
                data["expected_seq"] = expected_seq
            batch = CommandBatch.model_validate(data)
        elif type_ is not None:
            cmd = Command(
                type=type_,
                payload=loads(payload),
                event_id=uuid.UUID(event_id) if event_id else None,
            )
            batch = CommandBatch(commands=[cmd], expected_seq=expected_seq)
        else:
            fail("cli.usage", "--type/--file", "give --type and --payload, or --file")
    except ValueError as exc:  # JSON or validation error
        fail("cli.invalid_input", "--payload/--file", str(exc))
    if api is not None:
        import httpx  # only here: the other commands never load it

        r = httpx.post(
            f"{api.rstrip('/')}/tournaments/{tournament}/commands",
            content=dumps(batch.model_dump(mode="json", exclude_none=True)),
            headers={"Authorization": f"Bearer {token or ''}", "Content-Type": "application/json"},
            timeout=30,
        )
        body = r.json()
        if r.status_code >= 400:
            e = body["error"]
            fail(e["rule"], e["field"], f"HTTP {r.status_code}: {e['message']}")
        for ev in body["events"]:
            out.print(f"{tournament}#{ev['seq']} {ev['type']} {ev['event_id']}")
        return
    with local_log(backend, db) as log:
        result = CommandService(log).handle(tournament, batch, local_actor(as_, token, tournament))
    note = " (already recorded: nothing appended)" if result.duplicate else ""
    for env in result.envelopes:
        out.print(f"{tournament}#{env.seq} {env.type} {env.event_id}{note}")


def events(
    tournament: str,
    from_seq: Annotated[int, typer.Option(min=1)] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON envelope per line")] = False,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Print a tournament's events in order."""
    from rich.table import Table

    from events_schema.codec import dumps

    with local_log(backend, db) as log:
        envs = list(log.read(tournament, from_seq))
    if as_json:
        for env in envs:
            sys.stdout.write(env.to_bytes().decode() + "\n")
        return
    table = Table(title=f"{tournament}: {len(envs)} events")
    for col in ("seq", "type", "occurred at", "actor", "payload"):
        table.add_column(col)
    for env in envs:
        body = dumps(env.payload).decode()
        table.add_row(
            str(env.seq),
            env.type,
            env.occurred_at.strftime("%Y-%m-%d %H:%M:%S"),
            f"{env.actor.id} ({env.actor.role})",
            body if len(body) <= 80 else body[:77] + "...",
        )
    out.print(table)


def standings(
    tournament: str,
    at: At = None,
    as_json: AsJson = False,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Print the standings with tiebreak columns and why each row is below the one above (and,
    for a Galway tournament, its section winners)."""
    from events_schema.codec import dumps
    from projections.standings import standings as standings_table
    from projections.standings.sections import galway_sections

    with local_log(backend, db) as log:
        state = fold_known(log, tournament, at, "standings")
    table = standings_table(state)
    sections = galway_sections(state, table)
    if as_json:
        body = table.as_dict()
        if sections is not None:
            body["sections"] = sections
        sys.stdout.write(dumps(body).decode() + "\n")
        return
    print_standings(tournament, table, sections=sections)


def explain(
    tournament: str,
    a: str,
    b: str,
    at: At = None,
    as_json: AsJson = False,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Why A and B stand where they do, criterion by criterion."""
    from rich.table import Table

    from events_schema.codec import dumps
    from projections.standings import explain as explain_rows

    with local_log(backend, db) as log:
        table = standings_of(log, tournament, at)
    try:
        steps = explain_rows(table, a, b)
    except KeyError as exc:
        fail("standings.unknown_player", "A/B", str(exc.args[0]))
    if as_json:
        sys.stdout.write(dumps(steps).decode() + "\n")
        return
    t = Table(title=f"{tournament}: {a} vs {b} (as of seq {table.seq})")
    for col in ("criterion", "group", a, b, ""):
        t.add_column(col)
    for st in steps:
        group = ", ".join(st["group"]) if st["group"] else "all"
        verdict = "separates them" if st["separates"] else "level"
        t.add_row(st["label"], group, st[a], st[b], verdict)
    out.print(t)
    rows = {r.player_id: r for r in table.rows}
    ra, rb = rows[a], rows[b]
    if ra.place == rb.place:
        state = "unresolved (organisers decide)" if ra.unresolved else "shared"
        out.print(f"{a} and {b} share place {ra.place}: {state}")
    else:
        hi, lo = (ra, rb) if ra.place < rb.place else (rb, ra)
        out.print(f"{hi.player_id} (place {hi.place}) is above {lo.player_id} (place {lo.place})")


def register(app: typer.Typer) -> None:
    """Add `append`, `events`, `standings` and `explain` to the `arbiter` app."""
    for command in (append, events, standings, explain):
        app.command()(command)
