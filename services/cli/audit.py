"""`arbiter` commands for audit (registered by services/cli/main.py).

replay / diff / verify read the log (SQLite or Kafka, `--backend`); correct / retract append
through the one command path (`CommandService`) as the local admin. The pure parts live in
`services/audit.py`.
"""

from __future__ import annotations

import contextlib
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from events_schema import Command, CommandBatch, Envelope
from events_schema.codec import dumps, loads
from projections.documents import PROJECTIONS
from services import audit
from services.eventlog.base import EventLog

Backend = Annotated[str | None, typer.Option("--backend", help="sqlite (default) or kafka")]
Db = Annotated[Path | None, typer.Option("--db", help="SQLite event log file")]
PointOpt = "SEQ, an ISO time (recorded_at <= it), or round:N / round:STAGE:N"

#: Streams at least this long get a progress bar even when stderr is not a terminal.
LONG_LOG = 100_000


def _main() -> Any:
    # Imported late: services.cli.main imports this module while it is being set up.
    from services.cli import main

    return main


@contextlib.contextmanager
def _progress(total: int, label: str) -> Iterator[Callable[[int], None] | None]:
    """A progress bar on stderr when stderr is a terminal or the log is long."""
    console = Console(stderr=True)
    if total <= 0 or not (sys.stderr.isatty() or total >= LONG_LOG):
        yield None
        return
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task(label, total=total)
        step = max(total // 200, 1)

        def advance(n: int) -> None:
            if n % step == 0 or n == total:
                bar.update(task, completed=n)

        yield advance


def _read(log: EventLog, tournament: str, to_seq: int | None = None) -> list[Envelope]:
    envs = list(log.read(tournament, 1, to_seq))
    if not envs:
        _main()._fail("audit.unknown_tournament", "TOURNAMENT", f"{tournament!r} has no events")
    return envs


def _resolve(text: str, option: str, envs: list[Envelope]) -> audit.Resolved:
    try:
        return audit.resolve_point(audit.parse_point(text), envs)
    except (ValueError, LookupError) as exc:
        _main()._fail("audit.bad_point", option, str(exc))
        raise AssertionError from exc  # unreachable: _fail exits


def _rows_table(title: str, rows: list[dict[str, Any]], skip: tuple[str, ...] = ()) -> Table:
    cols = [k for k in (rows[0] if rows else {}) if k not in skip]
    t = Table(title=title)
    for c in cols:
        t.add_column(c)
    for r in rows:
        t.add_row(*[_cell(r.get(c)) for c in cols])
    return t


def _cell(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else ""
    if isinstance(v, dict | list):
        return dumps(v).decode()
    return str(v)


def _print_message(console: Console, name: str, message: dict[str, Any]) -> None:
    data = message["data"]
    head = f"{name} (as of seq {message['as_of_seq']})"
    if name == "standings":
        console.print(_rows_table(f"Standings {head}", data["rows"]))
        for flag in data.get("flags", []):
            console.print(f"[yellow]flag[/yellow] {flag['text']}")
    elif name == "tiebreaks":
        chain = ", ".join(c["name"] for c in data["chain"])
        rows = [
            {
                "place": r["place"],
                "player": r["player_id"],
                **r["values"],
                "decided by": r["decided_by"],
            }
            for r in data["rows"]
        ]
        console.print(_rows_table(f"Tiebreaks {head}: {chain}", rows))
    elif name == "playoff":
        if not data.get("defined"):
            console.print(f"[bold]{head}[/bold]: no playoff defined")
            return
        console.print(f"[bold]{head}[/bold]: {data.get('kind')} {data.get('status')}")
        if data.get("tied"):
            console.print(f"  tied: {', '.join(data['tied'])}")
        for req in data.get("required_next", []):
            console.print(f"  next: {req.get('text', req)}")
        if data.get("final_order"):
            console.print(
                "  final order: " + " > ".join(" = ".join(b) for b in data["final_order"])
            )
    elif name == "prizes":
        if not data.get("defined"):
            console.print(f"[bold]{head}[/bold]: no prizes defined")
            return
        if "error" in data:
            console.print(f"[bold]{head}[/bold]: [red]{data['error']}[/red]")
            return
        console.print(_rows_table(f"Prizes {head}", data.get("lines", [])))
        totals = data.get("totals", {})
        console.print(" ".join(f"{k}: {v}" for k, v in totals.items()))


def register(app: typer.Typer) -> None:
    """Add this module's commands to the `arbiter` app."""

    @app.command()
    def replay(
        tournament: str,
        until: Annotated[str, typer.Option("--until", help=PointOpt)],
        projection: Annotated[
            str | None, typer.Option("--projection", help=" | ".join(PROJECTIONS))
        ] = None,
        as_json: Annotated[
            bool, typer.Option("--json", help="the exact message bytes, one per line")
        ] = False,
        backend: Backend = None,
        db: Db = None,
    ) -> None:
        """Fold the log up to a point and print the projections exactly as they were then."""
        m = _main()
        if projection is not None and projection not in PROJECTIONS:
            m._fail("audit.bad_projection", "--projection", f"one of {', '.join(PROJECTIONS)}")
        names = [projection] if projection else list(PROJECTIONS)
        with m.open_log(m._settings(backend, db)) as log:
            point = _parse(until, "--until")
            # A seq point reads only its prefix; time and round points need the stream.
            envs = _read(log, tournament, max(point.seq, 1) if point.kind == "seq" else None)
            resolved = _resolve(until, "--until", envs)
            with _progress(resolved.seq, f"replaying {tournament}") as tick:
                msgs = audit.replay_to(envs, tournament, resolved.seq, names, tick)
        if not resolved.complete:
            m.err.print(f"[yellow]round incomplete[/yellow]: {resolved.note}")
        if as_json:
            for name in names:
                if name in msgs:
                    sys.stdout.buffer.write(msgs[name] + b"\n")
            sys.stdout.flush()
            return
        m.out.print(f"[bold]{tournament}[/bold] replayed to seq {resolved.seq} ({until})")
        for name in names:
            if name in msgs:
                _print_message(m.out, name, loads(msgs[name]))

    @app.command("diff")
    def diff_cmd(
        tournament: str,
        from_: Annotated[str, typer.Option("--from", help=PointOpt)],
        to: Annotated[str, typer.Option("--to", help=PointOpt)],
        as_json: Annotated[bool, typer.Option("--json")] = False,
        backend: Backend = None,
        db: Db = None,
    ) -> None:
        """What changed in each projection between two points, and the events that did it."""
        m = _main()
        with m.open_log(m._settings(backend, db)) as log:
            envs = _read(log, tournament)
        a = _resolve(from_, "--from", envs)
        b = _resolve(to, "--to", envs)
        try:
            with _progress(b.seq, f"replaying {tournament}") as tick:
                report = audit.diff(envs, tournament, a.seq, b.seq, tick)
        except ValueError as exc:
            m._fail("audit.bad_range", "--from/--to", str(exc))
            return
        if as_json:
            sys.stdout.write(dumps(report).decode() + "\n")
            return
        _print_diff(m.out, report)

    @app.command()
    def verify(
        tournament: str,
        as_json: Annotated[bool, typer.Option("--json")] = False,
        backend: Backend = None,
        db: Db = None,
    ) -> None:
        """Check the whole hash chain from the stored envelopes; exit 1 at the first break."""
        m = _main()
        with m.open_log(m._settings(backend, db)) as log:
            verdict = audit.verify_chain(tournament, audit.stored_records(log, tournament))
        if verdict.events == 0:
            m._fail("audit.unknown_tournament", "TOURNAMENT", f"{tournament!r} has no events")
        if as_json:
            sys.stdout.write(dumps(verdict.as_dict()).decode() + "\n")
        elif verdict.ok:
            m.out.print(
                f"[green]OK[/green] {tournament}: {verdict.events} events, chain intact; "
                f"head seq {verdict.head_seq} hash {verdict.head_hash}"
            )
        else:
            b = verdict.broken or {}
            m.out.print(
                f"[red]BROKEN[/red] {tournament} at seq {b.get('seq')}: {b.get('kind')}: "
                f"{b.get('detail')} (intact up to seq {verdict.head_seq})"
            )
        if not verdict.ok:
            raise typer.Exit(1)

    @app.command()
    def correct(
        tournament: str,
        game_id: str,
        result: Annotated[str, typer.Option("--result", help="1-0, 0-1, 1/2-1/2, …")],
        reason: Annotated[str, typer.Option("--reason", help="why (recorded, mandatory)")],
        termination: Annotated[
            str | None, typer.Option("--termination", help="default: the current one")
        ] = None,
        backend: Backend = None,
        db: Db = None,
    ) -> None:
        """Correct the result in force of a game (a ResultCorrected, as the local admin)."""
        from services.commands import CommandRejected, CommandService

        m = _main()
        if not reason.strip():
            m._fail("audit.reason_required", "--reason", "a correction needs a reason")
        with m.open_log(m._settings(backend, db)) as log:
            service = CommandService(log)
            game = service.state(tournament).games.get(game_id)
            current = game.result if game is not None else None
            if current is None:
                m._fail(
                    "correction.no_result",
                    "GAME_ID",
                    f"{tournament}: {game_id} has no result in force to correct",
                )
                return
            payload = {
                "corrects_event_id": str(current.event_id),
                "game_id": game_id,
                "result": result,
                "termination": termination or current.termination,
                "reason": reason,
            }
            batch = CommandBatch(commands=[Command(type="ResultCorrected", payload=payload)])
            try:
                res = service.handle(tournament, batch, m._local_actor())
            except CommandRejected as exc:
                m._fail(exc.rule, exc.field, exc.message)
                return
        env = res.envelopes[0]
        m.out.print(
            f"{tournament}#{env.seq} ResultCorrected {env.event_id}: {game_id} "
            f"{current.result} -> {result} (corrects {current.event_id})"
        )

    @app.command()
    def retract(
        tournament: str,
        event_id: str,
        reason: Annotated[str, typer.Option("--reason", help="why (recorded, mandatory)")],
        backend: Backend = None,
        db: Db = None,
    ) -> None:
        """Retract an event (an EventRetracted, as the local admin)."""
        from services.commands import CommandRejected, CommandService

        m = _main()
        try:
            target = uuid.UUID(event_id)
        except ValueError:
            m._fail("audit.bad_event_id", "EVENT_ID", f"{event_id!r} is not a UUID")
            return
        if not reason.strip():
            m._fail("audit.reason_required", "--reason", "a retraction needs a reason")
        payload = {"retracted_event_id": str(target), "reason": reason}
        batch = CommandBatch(commands=[Command(type="EventRetracted", payload=payload)])
        with m.open_log(m._settings(backend, db)) as log:
            try:
                res = CommandService(log).handle(tournament, batch, m._local_actor())
            except CommandRejected as exc:
                m._fail(exc.rule, exc.field, exc.message)
                return
        env = res.envelopes[0]
        m.out.print(f"{tournament}#{env.seq} EventRetracted {env.event_id} (retracts {target})")


def _parse(text: str, option: str) -> audit.Point:
    try:
        return audit.parse_point(text)
    except ValueError as exc:
        _main()._fail("audit.bad_point", option, str(exc))
        raise AssertionError from exc  # unreachable: _fail exits


def _print_diff(console: Console, report: dict[str, Any]) -> None:
    console.print(
        f"[bold]{report['tournament_id']}[/bold]: seq {report['from_seq']} -> {report['to_seq']}"
    )
    for name, d in report["projections"].items():
        if not d["changed"]:
            console.print(f"{name}: unchanged")
            continue
        console.print(f"[bold]{name}[/bold]: changed")
        if name == "playoff" and d["status"][0] != d["status"][1]:
            console.print(f"  status: {d['status'][0]} -> {d['status'][1]}")
        for row in d.get("rows", d.get("lines", [])):
            if row["change"] == "changed":
                fields = ", ".join(f"{k} {v[0]} -> {v[1]}" for k, v in row["fields"].items())
                console.print(f"  {row['key']}: {fields}")
            else:
                console.print(f"  {row['key']}: {row['change']}")
        for flag in d.get("flags_added", []):
            console.print(f"  [yellow]flag added[/yellow] {flag['text']}")
        for flag in d.get("flags_removed", []):
            console.print(f"  flag removed: {flag['text']}")
        for k, v in d["fields"].items():
            console.print(f"  {k}: {_cell(v[0])} -> {_cell(v[1])}")
    t = Table(title="events between")
    for col in ("seq", "type", "actor", "game", "detail"):
        t.add_column(col)
    for e in report["events"]:
        detail = ""
        if "corrects" in e:
            c = e["corrects"]
            detail = f"corrects #{c['seq']} {c['type']} ({c['result'] or ''}): {e['reason']}"
            if e["type"] == "ResultCorrected":
                detail = f"-> {e['result']}; " + detail
        elif "result" in e:
            detail = str(e["result"])
        t.add_row(
            str(e["seq"]),
            e["type"],
            f"{e['actor']['id']} ({e['actor']['role']})",
            str(e.get("game_id", "")),
            detail,
        )
    console.print(t)
    quiet = report["events_not_listed"]
    if quiet:
        console.print("not listed: " + ", ".join(f"{n} {k}" for k, n in quiet.items()))
