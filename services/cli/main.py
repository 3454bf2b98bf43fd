"""`arbiter`: the command line (typer + rich). Its composition root is `_ctx()`."""

from __future__ import annotations

import getpass
import json
import sys
import uuid
from pathlib import Path
from typing import Annotated, Any

import httpx
import typer
from rich.console import Console
from rich.table import Table

from events_schema import Actor, Command, CommandBatch, Recorded
from events_schema.codec import dumps, loads
from projections import standings as standings_proj
from services.auth import ROLES, TokenStore
from services.cli import schema_export
from services.commands import CommandRejected, CommandService
from services.config import Settings, open_log
from services.eventlog.base import EventLog, EventLogError

app = typer.Typer(help="Arbiter: an event-sourced tournament backend.", no_args_is_help=True)
token_app = typer.Typer(help="API tokens (stored hashed).", no_args_is_help=True)
schema_app = typer.Typer(help="JSON Schema of the event contract.", no_args_is_help=True)
app.add_typer(token_app, name="token")
app.add_typer(schema_app, name="schema")
out = Console()
err = Console(stderr=True)

Backend = Annotated[str | None, typer.Option("--backend", help="sqlite (default) or kafka")]
Db = Annotated[Path | None, typer.Option("--db", help="SQLite event log file")]


def _settings(backend: str | None = None, db: Path | None = None) -> Settings:
    return Settings.from_env(backend=backend, sqlite_path=db)


def _local_actor() -> Actor:
    # Whoever can open the log file directly is its operator: an admin.
    return Actor(id=f"cli:{getpass.getuser()}", role="admin")


def _fail(rule: str, field: str, message: str, code: int = 1) -> None:
    err.print(f"[red]refused[/red] {rule} ({field}): {message}")
    raise typer.Exit(code)


# --------------------------------------------------------------------------------------------
# append / events
# --------------------------------------------------------------------------------------------


@app.command()
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
    token: Annotated[str | None, typer.Option(envvar="ARBITER_TOKEN", help="API token")] = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Append one command (--type/--payload) or a batch (--file) to a tournament."""
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
            _fail("cli.usage", "--type/--file", "give --type and --payload, or --file")
            return
    except ValueError as exc:  # JSON or validation error
        _fail("cli.invalid_input", "--payload/--file", str(exc))
        return
    if api is not None:
        r = httpx.post(
            f"{api.rstrip('/')}/tournaments/{tournament}/commands",
            content=dumps(batch.model_dump(mode="json", exclude_none=True)),
            headers={"Authorization": f"Bearer {token or ''}", "Content-Type": "application/json"},
            timeout=30,
        )
        body = r.json()
        if r.status_code >= 400:
            e = body["error"]
            _fail(e["rule"], e["field"], f"HTTP {r.status_code}: {e['message']}")
        for ev in body["events"]:
            out.print(f"{tournament}#{ev['seq']} {ev['type']} {ev['event_id']}")
        return
    with open_log(_settings(backend, db)) as log:
        try:
            result = CommandService(log).handle(tournament, batch, _local_actor())
        except CommandRejected as exc:
            _fail(exc.rule, exc.field, exc.message)
            return
        except EventLogError as exc:
            _fail(exc.rule, exc.field, str(exc))
            return
    note = " (already recorded: nothing appended)" if result.duplicate else ""
    for env in result.envelopes:
        out.print(f"{tournament}#{env.seq} {env.type} {env.event_id}{note}")


@app.command()
def events(
    tournament: str,
    from_seq: Annotated[int, typer.Option(min=1)] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON envelope per line")] = False,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Print a tournament's events in order."""
    with open_log(_settings(backend, db)) as log:
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


@app.command()
def standings(
    tournament: str,
    as_json: Annotated[bool, typer.Option("--json")] = False,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Print the points table (tiebreak columns arrive with the tiebreak projection)."""
    with open_log(_settings(backend, db)) as log:
        rows = _standings(log, tournament)
    if as_json:
        sys.stdout.write(dumps(rows).decode() + "\n")
        return
    _print_standings(tournament, rows)


def _standings(log: EventLog, tournament: str) -> list[dict[str, Any]]:
    state = standings_proj.fold([Recorded.of(e) for e in log.read(tournament)])
    rows: list[dict[str, Any]] = []
    table = standings_proj.table(state)
    for i, r in enumerate(table):
        # rules/README "Shared places": level players share the place, the next skips
        # (1, 2, 2, 4). Tiebreak chains (issue 3) will separate them first.
        place = i + 1 if i == 0 or table[i - 1].points != r.points else rows[-1]["place"]
        rows.append(
            {
                "place": place,
                "player_id": r.player_id,
                "name": r.name,
                "score": r.score,
                "half_points": r.points,
                "played": r.games,
                "won": r.wins,
                "drawn": r.draws,
                "lost": r.losses,
                "byes": r.byes,
                "forfeits_won": r.forfeit_wins,
                "forfeits_lost": r.forfeit_losses,
                "withdrawn": r.withdrawn,
            }
        )
    return rows


def _print_standings(tournament: str, rows: list[dict[str, Any]]) -> None:
    table = Table(title=f"Standings: {tournament}")
    for col in ("#", "player", "score", "played", "W", "D", "L", "byes", "forfeits +/-"):
        table.add_column(col, justify="left" if col == "player" else "right")
    for r in rows:
        table.add_row(
            str(r["place"]),
            r["name"] + (" (withdrawn)" if r["withdrawn"] else ""),
            r["score"],
            str(r["played"]),
            str(r["won"]),
            str(r["drawn"]),
            str(r["lost"]),
            str(r["byes"]),
            f"{r['forfeits_won']}/{r['forfeits_lost']}",
        )
    out.print(table)


# --------------------------------------------------------------------------------------------
# tokens, schema, serve
# --------------------------------------------------------------------------------------------


@token_app.command("create")
def token_create(
    role: Annotated[str, typer.Option(help=f"one of {', '.join(ROLES)}")],
    subject: Annotated[str | None, typer.Option(help="who holds it")] = None,
    tournament: Annotated[
        list[str] | None, typer.Option("--tournament", "-t", help="scope (repeatable)")
    ] = None,
) -> None:
    """Create a token; it is shown once and stored only as a hash."""
    store = TokenStore(_settings().tokens_path)
    try:
        token, who = store.create(role, subject or f"{role}-{uuid.uuid4().hex[:6]}", tournament)
    except ValueError as exc:
        _fail("token.invalid", "--role/--tournament", str(exc))
        return
    err.print(f"created token {who.token_id} for {who.subject} ({who.role}); shown once:")
    out.print(token)


@token_app.command("list")
def token_list() -> None:
    for row in TokenStore(_settings().tokens_path).list():
        out.print(json.dumps(row))


@token_app.command("revoke")
def token_revoke(token_id: str) -> None:
    if not TokenStore(_settings().tokens_path).revoke(token_id):
        _fail("token.unknown", "token_id", f"no active token {token_id}")


@schema_app.command("export")
def schema_export_cmd(
    directory: Annotated[Path, typer.Option("--dir")] = schema_export.DEFAULT_DIR,
) -> None:
    """Write JSON Schema for every event type into events_schema/json/."""
    paths = schema_export.export(directory)
    out.print(f"wrote {len(paths)} schema files to {directory}")


@schema_app.command("check")
def schema_check(
    directory: Annotated[Path, typer.Option("--dir")] = schema_export.DEFAULT_DIR,
) -> None:
    """Fail if the committed schemas differ from the models (run `arbiter schema export`)."""
    drift = schema_export.drift(directory)
    if drift:
        _fail("schema.drift", str(directory), "out of date: " + ", ".join(drift))
    out.print("schemas match the models")


@app.command()
def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Run the HTTP API."""
    import uvicorn

    from services.api.app import create_app

    settings = _settings(backend, db)
    uvicorn.run(
        create_app(open_log(settings), TokenStore(settings.tokens_path)), host=host, port=port
    )


@app.command()
def demo(
    db: Annotated[Path, typer.Option(help="demo log file (recreated)")] = Path(
        "arbiter-data/demo.sqlite3"
    ),
) -> None:
    """The main job: a small tournament on the embedded log, start to standings."""
    from services.demo import run_demo

    run_demo(db, out)


if __name__ == "__main__":
    app()
