"""`arbiter`: the command line (typer + rich).

Each command is its own composition root: it reads the settings and opens the log through
`services.cli.common` (`local_log`, which also turns a refused command or a log error into
`refused RULE (FIELD): message`); what it prints goes through `services.cli.render`. The audit,
processor and feed commands live in their own modules and are registered at the end."""

from __future__ import annotations

import json
import sys
import typing
import uuid
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from services.cli import audit, feed, games, pairing, processors, schema_export, seasons
from services.cli.common import (
    ROLE_NAMES,
    AsJson,
    At,
    Backend,
    Db,
    fail,
    fold_known,
    local_actor,
    local_log,
    records_of,
    settings,
    standings_of,
)
from services.cli.render import err, out, points, print_standings

if typing.TYPE_CHECKING:
    from projections.playoffs.base import PlayoffView

# Start-up: `arbiter --help` imports this module and every command's signature, so what a
# command needs beyond typer, rich and the standard library (the event contract, the
# projections, the command path, httpx) is imported inside it
# (tests/unit/services/cli/test_cli_startup.py).


def lot_purposes() -> tuple[str, ...]:
    """What `arbiter lot --purpose` accepts (the LotDrawn event's purposes)."""
    from events_schema import events as ev

    return typing.get_args(ev.LotDrawn.model_fields["purpose"].annotation)


app = typer.Typer(
    rich_markup_mode=None,
    help="Arbiter: an event-sourced tournament backend.",
    no_args_is_help=True,
)
token_app = typer.Typer(
    rich_markup_mode=None, help="API tokens (stored hashed).", no_args_is_help=True
)
schema_app = typer.Typer(
    rich_markup_mode=None, help="JSON Schema of the event contract.", no_args_is_help=True
)
app.add_typer(token_app, name="token")
app.add_typer(schema_app, name="schema")
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
        result = CommandService(log).handle(tournament, batch, local_actor())
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


@app.command()
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


@app.command()
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


@app.command()
def lot(
    tournament: str,
    next_: Annotated[
        bool,
        typer.Option(
            "--next",
            help="draw the lot the playoff requires next (`arbiter playoff T`): purpose, "
            "subject, candidates and pick are read from it",
        ),
    ] = False,
    purpose: Annotated[
        str | None, typer.Option(help="pairing_numbers, bye, colours, engine_order, …")
    ] = None,
    subject: Annotated[
        str | None,
        typer.Option(help="what it is for, as the playoff asks (with --next: which lot)"),
    ] = None,
    candidate: Annotated[
        list[str] | None, typer.Option("--candidate", "-c", help="repeatable")
    ] = None,
    pick: Annotated[int | None, typer.Option(help="draw this many (default: order all)")] = None,
    seed: Annotated[str | None, typer.Option(help="seed (default: random, recorded)")] = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Draw a lot with a recorded seed and append it as a LotDrawn event.

    With --next the playoff's next required lot is drawn as it asks; without, a lot for a
    subject the playoff asks a lot for must be that lot (refused before it is appended)."""
    from events_schema import Command, CommandBatch, encode_payload
    from services.cli import prescribed, tables
    from services.commands.lots import draw
    from services.commands.service import CommandService

    candidates = list(candidate or [])
    if not next_ and (purpose is None or subject is None or not candidates):
        fail(
            "cli.usage",
            "--purpose/--subject/--candidate",
            "give --purpose, --subject and --candidate (repeatable), or --next to draw the lot "
            f"the playoff requires next (`arbiter lot {tournament} --next`)",
        )
    with local_log(backend, db) as log:
        state = fold_known(log, tournament, None, "lot")
        view = tables.playoff_for(log, tournament, state)
        if next_:
            spec = prescribed.next_lot(
                tournament,
                view,
                state,
                subject=subject,
                purpose=purpose,
                candidates=candidates,
                pick=pick,
            )
        else:
            assert purpose is not None and subject is not None
            spec = prescribed.LotSpec(purpose, subject, tuple(candidates), pick)
            prescribed.check_lot(tournament, view, spec)
        try:
            drawn = draw(spec.purpose, spec.subject, spec.candidates, spec.pick, seed)
        except ValueError as exc:
            fail(
                "lot.invalid",
                "--purpose/--candidate/--pick",
                f"{exc} (--purpose is one of {', '.join(lot_purposes())}; --candidate is "
                "repeatable: -c A -c B; --pick N draws N of them)",
            )
        batch = CommandBatch(
            commands=[Command(type="LotDrawn", payload=encode_payload(drawn))],
            expected_seq=state.seq,
        )
        result = CommandService(log).handle(tournament, batch, local_actor())
    env = result.envelopes[0]
    out.print(
        f"{tournament}#{env.seq} LotDrawn {drawn.purpose} {drawn.subject}: "
        f"{' '.join(drawn.outcome)} (seed {drawn.seed})"
    )


@app.command()
def playoff(
    tournament: str,
    at: At = None,
    as_json: AsJson = False,
    schedule: Annotated[
        bool,
        typer.Option(
            "--schedule",
            help="append the RoundScheduled(s) the playoff requires next (games, colours, "
            "time controls, byes), then show the playoff",
        ),
    ] = False,
    stage: Annotated[
        str | None, typer.Option("--stage", help="with --schedule: only this stage")
    ] = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """The playoff state: stage, who is in, games, what is required next, final order.

    Given a series id, shows the series' tour playoff (a tournament of its own) if it has one."""
    from functools import partial

    from events_schema.codec import dumps
    from services.cli import tables
    from services.commands import playoff as playoff_commands

    if stage is not None and not schedule:
        fail("cli.usage", "--stage", "--stage chooses what --schedule appends: add --schedule")
    if schedule and at is not None:
        fail("cli.usage", "--at", "--schedule appends to the stream as it is now: leave out --at")
    with local_log(backend, db) as log:
        tid = tables.playoff_tournament(log, tournament, at)
        if tid != tournament:
            err.print(f"{tournament} is a series; its tour playoff is the tournament {tid}")
        state = fold_known(log, tid, at, "playoff")
        view = tables.playoff_for(log, tid, state)
        if view is None:
            preset = state.created.rules_preset if state.created else None
            fail("playoff.none", "rules_preset", f"the rules {preset!r} define no playoff")
        if schedule:
            view_of = partial(tables.playoff_for, log, tid)
            done = playoff_commands.schedule(
                log, tid, state, view, view_of, stage=stage, actor=local_actor()
            )
            if not done.appended:
                _nothing_to_schedule(tid, view, stage)
            for seq, rs in done.appended:
                games = ", ".join(f"{p.game_id} {p.white}–{p.black}" for p in rs.pairings)
                byes = f"; byes {', '.join(b.player_id for b in rs.byes)}" if rs.byes else ""
                err.print(f"{tid}#{seq} RoundScheduled {rs.stage} round {rs.round}: {games}{byes}")
            view = done.view
    if as_json:
        sys.stdout.write(dumps(view.as_dict()).decode() + "\n")
        return
    _print_playoff(tid, view)


def _nothing_to_schedule(tid: str, view: PlayoffView, stage: str | None) -> NoReturn:
    """Refuse `--schedule` when the playoff requires no schedule, naming what it requires."""
    from services.cli import prescribed

    nxt = "; ".join(
        f"{r.kind} ({r.stage})" + (f": {h}" if (h := prescribed.hint(tid, view, r)) else "")
        for r in view.required_next
    )
    where = f" in stage {stage!r}" if stage else ""
    fail(
        "playoff.nothing_to_schedule",
        "--schedule",
        f"the playoff of {tid!r} ({view.status}) requires no schedule{where} now; "
        f"it requires: {nxt or 'nothing'}",
    )


def _print_playoff(tid: str, view: PlayoffView) -> None:
    """The playoff as `arbiter playoff` shows it: stages, games, what is required next."""
    from rich.table import Table

    from services.cli import prescribed

    out.print(f"[bold]{view.kind}[/bold] ({view.rule}): {view.status}")
    if view.tied:
        out.print(f"tied: {', '.join(view.tied)}; still in: {', '.join(view.still_in) or '—'}")
    for st in view.stages:
        t = Table(title=f"{st.name} ({st.kind}){' complete' if st.complete else ''}")
        for col in ("round", "game", "white", "black", "time control", "result"):
            t.add_column(col)
        for g in st.games:
            t.add_row(
                str(g.round),
                g.game_id,
                g.white,
                g.black,
                g.time_control.name,
                g.result or ("scheduled" if g.scheduled else "to schedule"),
            )
        out.print(t)
        if st.scores:
            out.print("scores: " + ", ".join(f"{p} {points(s)}" for p, s in st.scores))
        if st.byes:
            out.print(f"byes: {', '.join(st.byes)}")
    for req in view.required_next:
        h = prescribed.hint(tid, view, req)
        out.print(
            f"[yellow]next[/yellow] {req.kind} ({req.stage}): {req.text}"
            + (f"\n  run: {h}" if h else "")
        )
    if view.final_order:
        order = " > ".join(" = ".join(block) for block in view.final_order)
        out.print(f"final order: {order}")
    for note in view.notes:
        out.print(f"[dim]note: {note}[/dim]")


@app.command()
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
    body = split.as_dict()
    if as_json:
        sys.stdout.write(dumps(body).decode() + "\n")
        return
    t = Table(title=f"Prizes: {tournament} ({body.get('status', '')})")
    if split.kind == "gct-tour-bonus":
        t.caption = (
            "GCT 4.2: the tour bonus by the overall places before the playoff; "
            "the playoff does not change it"
        )
    for col in ("player", "places", "prize", "share", "premium", "tour points", "note"):
        t.add_column(col)
    for line in split.lines:
        pending = f" (+{line.premium_pending} if playoff won)" if line.premium_pending else ""
        t.add_row(
            line.player_id,
            line.places,
            str(line.prize),
            str(line.share),
            f"{line.premium}{pending}",
            "" if line.tour_points is None else points(line.tour_points),
            line.note,
        )
    out.print(t)
    out.print(" ".join(f"{k}: {v}" for k, v in body["totals"].items()))


@app.command()
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
    for col in ("#", "player", "points", "decided by"):
        t.add_column(col)
    for i, r in enumerate(rows):
        place = f"{r['place']}{'=' if r.get('shared') else ''}"
        decided_by = r.get("decided_by", "")
        if i and decided_by.startswith("points "):  # the terminal's formatting of points
            decided_by = f"points {points(rows[i - 1]['points'])}–{points(r['points'])}"
        t.add_row(place, r["player_id"], points(r["points"]), decided_by)
    out.print(t)
    for tie in body["table"].get("ties", []):
        shown = points(tie["points"])
        text = tie["text"].replace(f" on {tie['points']} points", f" on {shown} points")
        out.print(f"tie: {text}")
    for po in body.get("tour_playoffs", []):
        if po["done"]:
            order = " > ".join(" = ".join(block) for block in po["final_order"])
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


# --------------------------------------------------------------------------------------------
# tokens, schema, serve
# --------------------------------------------------------------------------------------------


@token_app.command("create")
def token_create(
    role: Annotated[str, typer.Option(help=f"one of {', '.join(ROLE_NAMES)}")],
    subject: Annotated[str | None, typer.Option(help="who holds it")] = None,
    tournament: Annotated[
        list[str] | None, typer.Option("--tournament", "-t", help="scope (repeatable)")
    ] = None,
) -> None:
    """Create a token; it is shown once and stored only as a hash."""
    from services.commands.auth import TokenStore

    store = TokenStore(settings().tokens_path)
    try:
        token, who = store.create(role, subject or f"{role}-{uuid.uuid4().hex[:6]}", tournament)
    except ValueError as exc:
        fail("token.invalid", "--role/--tournament", str(exc))
    err.print(f"created token {who.token_id} for {who.subject} ({who.role}); shown once:")
    out.print(token)


@token_app.command("list")
def token_list() -> None:
    """List the tokens (id, role, subject, tournaments, created, revoked; never the secret)."""
    from services.commands.auth import TokenStore

    for row in TokenStore(settings().tokens_path).list():
        out.print(json.dumps(row))


@token_app.command("revoke")
def token_revoke(token_id: str) -> None:
    """Revoke a token by its id: it is refused from then on, and open streams using it end."""
    from services.commands.auth import TokenStore

    if not TokenStore(settings().tokens_path).revoke(token_id):
        fail("token.unknown", "token_id", f"no active token {token_id}")


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
        fail("schema.drift", str(directory), "out of date: " + ", ".join(drift))
    out.print("schemas match the models")


@app.command()
def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Run the HTTP API (and sign checkpoints of moved heads on a schedule)."""
    import uvicorn

    from services.api.app import create_app
    from services.audit.checkpoints import attach_scheduler
    from services.commands.auth import TokenStore
    from services.config import FeedSettings, checkpoint_every, open_log

    cfg = settings(backend, db)
    api = create_app(
        open_log(cfg), TokenStore(cfg.tokens_path), feed=FeedSettings.from_env(), settings=cfg
    )
    # A server process: see services.projection.embedded._freeze_heap.
    api.state.feed.freeze_heap = True
    # Signs moved heads every ARBITER_CHECKPOINT_EVERY s (0: off).
    attach_scheduler(api, checkpoint_every())
    uvicorn.run(api, host=host, port=port)


@app.command()
def demo(
    db: Annotated[Path, typer.Option(help="demo log file (recreated)")] = Path(
        "arbiter-data/demo.sqlite3"
    ),
) -> None:
    """The main job: a small tournament on the embedded log, start to standings."""
    from services.cli.demo import run_demo

    run_demo(db, out)


# --------------------------------------------------------------------------------------------
# import / export: TRF-16 (services/trf)
# --------------------------------------------------------------------------------------------

import_app = typer.Typer(
    rich_markup_mode=None, help="Import a tournament from a file.", no_args_is_help=True
)
export_app = typer.Typer(
    rich_markup_mode=None, help="Export a tournament to a file.", no_args_is_help=True
)
app.add_typer(import_app, name="import")
app.add_typer(export_app, name="export")


@import_app.command("trf")
def import_trf(
    file: Path,
    rules: Annotated[str | None, typer.Option("--rules", help="rules preset, e.g. gct")] = None,
    tournament: Annotated[
        str | None, typer.Option("--tournament", help="tournament id (default: file name)")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="tournament format")] = "swiss",
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Record a FIDE TRF-16 file as a new tournament, through the command path."""
    import hashlib

    from services.interchange.pipeline import ImportRefused, tournament_id_for
    from services.interchange.trf import (
        edition_choice,
        import_trf,
        points_mismatches,
        to_events,
    )
    from services.interchange.trf.parse import TrfError, decode_trf, parse_trf

    try:
        raw = file.read_bytes()
        tid = tournament or tournament_id_for(file)
        trf = parse_trf(decode_trf(raw))
        digest = hashlib.sha256(raw).hexdigest()
        planned = to_events(trf, name=file.stem, fmt=fmt, rules_preset=rules, file_name=file.name)
    except OSError as exc:
        fail("trf.unreadable", "FILE", str(exc))
    except TrfError as exc:
        fail("trf.malformed", f"{file.name}:{exc.line}", str(exc))
    except ValueError as exc:  # a tournament id or an event field out of range
        fail("trf.invalid", str(file), str(exc))
    for warning in points_mismatches(trf):
        err.print(f"[yellow]warning[/yellow] {warning}")
    out.print(f"{tid}: {edition_choice(trf)}")
    with local_log(backend, db) as log:
        try:
            report = import_trf(
                log,
                trf,
                tournament_id=tid,
                actor=local_actor(),
                id_namespace=f"{tid}:{digest}",
                planned=planned,
            )
        except ImportRefused as exc:
            fail(exc.rule, exc.where, exc.message)
    if report.duplicate:
        out.print(f"{tid}: already imported: nothing appended (last seq {report.last_seq})")
    else:
        out.print(
            f"{tid}: imported {report.players} players, {report.rounds} rounds: "
            f"{report.appended} events (last seq {report.last_seq})"
        )


@export_app.command("trf")
def export_trf_cmd(
    tournament: str,
    out_file: Annotated[Path | None, typer.Option("--out", help="file (default: stdout)")] = None,
    order: Annotated[
        typing.Literal["pairing", "registration", "rating"],
        typer.Option(
            "--order",
            help="start ranks: 'pairing' (default) the pairing system's own pairing numbers "
            "(Dutch/Galway: the C.04.2 initial ranking; round robin: the Berger lot; Monrad, "
            "Cup: seeds), so a pairing checker re-checks the file as it is; 'registration'; "
            "'rating'",
        ),
    ] = "pairing",
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Write a tournament as a FIDE TRF-16 file."""
    from services.interchange.trf import export_trf

    with local_log(backend, db) as log:
        records = records_of(log, tournament, "standings")
    try:
        text = export_trf(records, order=order)
    except ValueError as exc:
        fail("trf.unrepresentable", "TOURNAMENT", str(exc))
    if out_file is None:
        sys.stdout.write(text)
        return
    out_file.write_bytes(text.encode())
    out.print(f"wrote {tournament} to {out_file}")


for _module in (audit, processors, feed, pairing, seasons, games):
    _module.register(app)


def main() -> None:
    """The `arbiter` console script. Typer converts every command's signature when it builds
    the whole group (about 80 commands, tens of milliseconds), so a top-level command named
    first on the command line is built alone, in a group of its own named `arbiter` (same
    options, same help, same errors); anything else (`--help`, a sub-group such as
    `arbiter token`, an unknown name) goes through the whole app."""
    import os

    # No pydantic plugins are used; looking for them scans every installed package's metadata.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    args = sys.argv[1:]
    if args and not args[0].startswith("-"):
        from typer.main import get_command, get_command_name

        for info in app.registered_commands:
            name = info.name or get_command_name(info.callback.__name__ if info.callback else "")
            if name == args[0]:
                solo = typer.Typer(rich_markup_mode=None, add_completion=False)
                solo.registered_commands.append(info)
                solo.callback()(_group)  # a group, so the command keeps its name
                get_command(solo)(args, prog_name="arbiter")
                return
    app(prog_name="arbiter")


def _group() -> None:
    """Arbiter: an event-sourced tournament backend."""


if __name__ == "__main__":
    main()
