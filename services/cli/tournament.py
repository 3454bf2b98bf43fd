"""`arbiter append`, `events`, `standings`, `explain` and `crosstable`: a tournament's stream,
in and out.

`append` records one command or a batch through the command path (`CommandService`), on the
local log or through the HTTP API (`--api`); `events` prints the stream; `standings` and
`explain` fold it (projections/standings; the crosstable's rows: projections/standings/grid.py)."""

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
    """Print the standings with the players' rating, title and federation (a Go rank),
    tiebreak columns and why each row is below the one above; then the correction flags, the
    playoff's outcome and, for a Galway tournament, its section winners.

    Example: arbiter standings open-2026 (--at SEQ: as it stood then; --json)"""
    from events_schema.codec import dumps
    from projections.documents import corrections_after_pairing
    from projections.standings import standings as standings_table
    from projections.standings.sections import galway_sections
    from services.cli import tables
    from services.cli.render import named_flags, names_of, playoff_summary

    with local_log(backend, db) as log:
        state = fold_known(log, tournament, at, "standings")
        view = tables.playoff_for(log, tournament, state)
    table = standings_table(state)
    sections = galway_sections(state, table)
    flags = named_flags(corrections_after_pairing(state), state)
    playoff = playoff_summary(view, names_of(state)) if view is not None else None
    if as_json:
        body = table.as_dict()
        ct = table.crosstable
        if ct is not None and ct.go is not None:  # Go: each player's rank beside the rating
            for row in body["rows"]:
                row["go_rank"] = ct.players[row["player_id"]].go_rank
        body["flags"] = flags
        if playoff is not None:
            body["playoff"] = playoff
        if sections is not None:
            body["sections"] = sections
        sys.stdout.write(dumps(body).decode() + "\n")
        return
    name = state.created.name if state.created is not None else ""
    print_standings(
        f"{name} ({tournament})" if name else tournament,
        table,
        sections=sections,
        flags=flags,
        playoff=playoff,
    )


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
    from projections.standings.grid import tiebreak_columns
    from projections.tiebreaks.registry import REGISTRY

    rows = {r.player_id: r for r in table.rows}
    ra, rb = rows[a], rows[b]
    # Each criterion in the words of its column, and the rule it cites (the article stays
    # out of the standings' header: here and in the legend under the table).
    sources = {c.key.split("(")[0]: c.source for c in tiebreak_columns(table)}
    t = Table(title=f"{tournament}: {ra.name} vs {rb.name} (as of seq {table.seq})")
    for col in ("criterion", "rule", "group", ra.name, rb.name, ""):
        t.add_column(col)
    names = {r.player_id: r.name for r in table.rows}
    for st in steps:
        crit = REGISTRY.get(st["criterion"])
        words = crit.words if crit is not None else st["label"].capitalize()
        rule = sources.get(st["criterion"], crit.source if crit is not None else "")
        group = ", ".join(names.get(p, p) for p in st["group"]) if st["group"] else "all"
        verdict = "separates them" if st["separates"] else "level"
        t.add_row(words, rule, group, st[a], st[b], verdict)
    out.print(t)
    if ra.place == rb.place:
        state = "unresolved (organisers decide)" if ra.unresolved else "shared"
        out.print(f"{ra.name} and {rb.name} share place {ra.place}: {state}")
    else:
        hi, lo = (ra, rb) if ra.place < rb.place else (rb, ra)
        out.print(f"{hi.name} (place {hi.place}) is above {lo.name} (place {lo.place})")


def crosstable(
    tournament: str,
    at: At = None,
    as_json: AsJson = False,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """The crosstable: in standings order, each player's place, start number (as the TRF
    export numbers them), name, rating, every round ("12w1": beat start number 12 with White;
    "5b½"; "7w+"/"7b-" a forfeit; "+", "=", "-" a bye worth a win, a half, nothing), points
    and tie-breaks (projections/standings/grid.py).

    Example: arbiter crosstable open-2026"""
    from events_schema.codec import dumps
    from projections.standings import standings as standings_table
    from projections.standings.grid import crosstable_grid
    from services.cli.render import print_grid
    from services.interchange.trf.write import pairing_order

    with local_log(backend, db) as log:
        state = fold_known(log, tournament, at, "crosstable")
    table = standings_table(state)
    grid = crosstable_grid(state, table, pairing_order(state))
    name = state.created.name if state.created is not None else ""
    if as_json:
        body = {"tournament_id": tournament, "name": name, **grid.as_dict()}
        sys.stdout.write(dumps(body).decode() + "\n")
        return
    title = f"Crosstable: {name} ({tournament})" if name else f"Crosstable: {tournament}"
    print_grid(f"{title} (as of seq {grid.seq})", grid)


def register(app: typer.Typer) -> None:
    """Add `append`, `events`, `standings`, `explain` and `crosstable` to the `arbiter` app."""
    for command in (append, events, standings, explain, crosstable):
        app.command()(command)
