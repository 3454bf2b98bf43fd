"""`arbiter` commands for audit (registered by services/cli/main.py).

replay / diff / verify read the log (SQLite or Kafka, `--backend`); correct / retract append
through the one command path (`CommandService`) as the local admin. The pure parts live in
`services/audit/replay.py`.
"""

from __future__ import annotations

import contextlib
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

from projections.names import PROJECTIONS
from services.cli.common import (
    ActToken,
    As,
    AsJson,
    Backend,
    Db,
    add_group,
    fail,
    local_actor,
    local_log,
    settings,
)
from services.cli.render import err, escape, out

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from events_schema import Envelope
    from services.audit import replay as audit
    from services.eventlog.base import EventLog

# The event contract, the projections and services.audit.replay are imported where used: `arbiter
# --help` imports this module (services/cli/main.py).

PointOpt = "SEQ, an ISO time (recorded_at <= it), or round:N / round:STAGE:N"

#: Streams at least this long get a progress bar even when stderr is not a terminal.
LONG_LOG = 100_000


@contextlib.contextmanager
def _progress(total: int, label: str) -> Iterator[Callable[[int], None] | None]:
    """A progress bar on stderr when stderr is a terminal or the log is long."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

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
        fail("audit.unknown_tournament", "TOURNAMENT", f"{tournament!r} has no events")
    return envs


def _resolve(text: str, option: str, envs: list[Envelope]) -> audit.Resolved:
    from services.audit import replay as audit

    try:
        return audit.resolve_point(audit.parse_point(text), envs)
    except (ValueError, LookupError) as exc:
        fail("audit.bad_point", option, str(exc))


# The registered identity the standings rows carry (v4): not printed in the terminal table.
_IDENTITY = ("kind", "rating", "federation", "title", "fide_id")


def _rows_table(title: str, rows: list[dict[str, Any]], skip: tuple[str, ...] = ()) -> Table:
    from rich.table import Table

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
    if isinstance(v, dict) and "player_id" in v and "name" in v:  # a player: by name
        return str(v["name"])
    if isinstance(v, list) and v and all(isinstance(x, dict) and "player" in x for x in v):
        return ", ".join(f"{_cell(x['player'])} ({x.get('kind', '')})" for x in v)  # byes
    if isinstance(v, dict) and "display" in v:  # a quantity (events_schema.documents)
        return str(v["display"])
    if (
        isinstance(v, dict)
        and v
        and all(isinstance(x, dict) and "display" in x for x in v.values())
    ):
        return ", ".join(f"{k} {x['display']}" for k, x in v.items())
    if isinstance(v, dict | list):
        from events_schema.codec import dumps

        return dumps(v).decode()
    return str(v)


def _print_message(
    console: Console, name: str, message: dict[str, Any], names: dict[str, str] | None = None
) -> None:
    """One replayed projection; players by name (`names`: id -> name, from the standings)."""
    names = names or {}

    def who(pid: str) -> str:
        return names.get(pid, pid)

    data = message["data"]
    head = f"{name} (as of seq {message['as_of_seq']})"
    if name == "standings":
        console.print(_rows_table(f"Standings {head}", data["rows"], skip=_IDENTITY))
        for flag in data.get("flags", []):
            console.print(f"[yellow]flag[/yellow] {flag['text']}")
    elif name == "tiebreaks":
        chain = ", ".join(c["name"] for c in data["chain"])
        rows = [
            {
                "place": r["place"],
                "player": who(r["player_id"]),
                **{k: _cell(v) for k, v in r["values"].items()},
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
            console.print(f"  tied: {', '.join(who(p) for p in data['tied'])}")
        for req in data.get("required_next", []):
            console.print(f"  next: {req.get('text', req)}")
        if data.get("final_order"):
            console.print(
                "  final order: "
                + " > ".join(" = ".join(who(p) for p in b) for b in data["final_order"])
            )
    elif name == "prizes":
        if not data.get("defined"):
            console.print(f"[bold]{head}[/bold]: no prizes defined")
            return
        if "error" in data:
            console.print(f"[bold]{head}[/bold]: [red]{data['error']}[/red]")
            return
        from services.cli.render import money

        cur = data.get("currency")
        lines = [
            {
                "player": who(ln["player_id"]),
                **{
                    k: money(v, cur) if k in ("prize", "share", "premium") and v else v
                    for k, v in ln.items()
                    if k != "player_id"
                },
            }
            for ln in data.get("lines", [])
        ]
        console.print(_rows_table(f"Prizes {head}", lines))
        totals = data.get("totals", {})
        console.print("  ".join(f"{k}: {money(v, cur)}" for k, v in totals.items()))
    elif name == "games":
        rnd = data.get("round")
        if rnd is None:
            console.print(f"[bold]{head}[/bold]: no round scheduled")
            return
        title = (
            f"Games (as of seq {message['as_of_seq']}): {rnd['stage']} round {rnd['round']},"
            f" {rnd['ended']}/{rnd['games']} ended, {rnd['in_progress']} in progress"
        )
        rows = [
            {
                "board": g["board"],
                "white": g["white"]["name"],
                "black": g["black"]["name"],
                "status": g["status"],
                "result": g["result"] or "",
                "plies": g["plies"],
                "last move": _move_text(g["last_move"]),
            }
            for g in data["pairings"]
        ]
        console.print(_rows_table(title, rows))


def _move_text(move: dict[str, Any] | None) -> str:
    """A games document's last move as written: SAN, else UCI, else a Go point."""
    if move is None:
        return ""
    return str(move.get("san") or move.get("uci") or move.get("point") or "")


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
    from events_schema.codec import loads
    from services.audit import replay as audit

    if projection is not None and projection not in PROJECTIONS:
        fail("audit.bad_projection", "--projection", f"one of {', '.join(PROJECTIONS)}")
    names = [projection] if projection else list(PROJECTIONS)
    # The standings are folded too: their rows name the players the others show by id.
    folded = names if "standings" in names else ["standings", *names]
    with local_log(backend, db) as log:
        point = _parse(until, "--until")
        # A seq point reads only its prefix; time and round points need the stream.
        envs = _read(log, tournament, max(point.seq, 1) if point.kind == "seq" else None)
        resolved = _resolve(until, "--until", envs)
        with _progress(resolved.seq, f"replaying {tournament}") as tick:
            msgs = audit.replay_to(envs, tournament, resolved.seq, folded, tick)
    if not resolved.complete:
        err.print(f"[yellow]round incomplete[/yellow]: {resolved.note}")
    held = audit.held_at(envs, tournament, resolved.seq)
    if held is not None:
        err.print(
            f"[yellow]held[/yellow] at seq {resolved.seq}: the event at seq "
            f"{held.get('seq')} ({held.get('event_id')}) cannot be read "
            f"({held.get('detail')}); nothing was published from it until it is "
            f"retracted ({held.get('remedy')})"
        )
    if as_json:
        for name in names:
            if name in msgs:
                sys.stdout.buffer.write(msgs[name] + b"\n")
        sys.stdout.flush()
        return
    out.print(f"[bold]{tournament}[/bold] replayed to seq {resolved.seq} ({until})")
    for actor, seqs in audit.appended_by(envs, resolved.seq):
        out.print(f"  appended by {escape(actor)}: seq {seqs}", soft_wrap=True)
    standings_rows = loads(msgs["standings"])["data"].get("rows", []) if "standings" in msgs else []
    players = {r["player_id"]: r["name"] for r in standings_rows}
    for name in names:
        if name in msgs:
            _print_message(out, name, loads(msgs[name]), players)


def diff_cmd(
    tournament: str,
    from_: Annotated[str, typer.Option("--from", help=PointOpt)],
    to: Annotated[str, typer.Option("--to", help=PointOpt)],
    as_json: AsJson = False,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """What changed in each projection between two points, and the events that did it."""
    from events_schema.codec import dumps
    from services.audit import replay as audit

    with local_log(backend, db) as log:
        envs = _read(log, tournament)
    a = _resolve(from_, "--from", envs)
    b = _resolve(to, "--to", envs)
    try:
        with _progress(b.seq, f"replaying {tournament}") as tick:
            report = audit.diff(envs, tournament, a.seq, b.seq, tick)
    except ValueError as exc:
        fail("audit.bad_range", "--from/--to", str(exc))
    if as_json:
        sys.stdout.write(dumps(report).decode() + "\n")
        return
    _print_diff(out, report)


def verify(
    tournament: str,
    checkpoint: Annotated[
        list[str] | None,
        typer.Option(
            "--checkpoint",
            help="a signed checkpoint (or a list of them): a FILE or an http(s) URL such as "
            ".../tournaments/T/checkpoints; repeatable",
        ),
    ] = None,
    public_key: Annotated[
        list[Path] | None,
        typer.Option(
            "--public-key",
            help="a trusted checkpoint public key (PEM, or base64 of the raw key); "
            "repeatable, e.g. the old and the new key after a rotation",
        ),
    ] = None,
    stored: Annotated[
        bool,
        typer.Option("--stored", help="also check the local checkpoint store's checkpoints"),
    ] = False,
    token: Annotated[
        str | None, typer.Option(envvar="ARBITER_TOKEN", help="API token for --checkpoint URLs")
    ] = None,
    as_json: AsJson = False,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Check the hash chain, and the stream against signed checkpoints; exit 1 at the first
    problem.

    Intact but unreadable events are warnings, not failures."""
    from events_schema.codec import dumps
    from services.audit import checkpoints as cps
    from services.audit import replay as audit

    cfg = settings(backend, db)
    pinned: dict[str, bytes] = {}
    for path in public_key or []:
        try:
            raw = cps.load_public_key(path)
        except cps.CheckpointKeyError as exc:
            fail("verify.public_key", "--public-key", str(exc))
        pinned[cps.key_id_of(raw)] = raw
    sources = [item for spec in checkpoint or [] for item in _load_checkpoints(spec, token)]
    if stored:
        path = cps.store_path(cfg)
        if path.exists():
            store = cps.CheckpointStore(path)
            try:
                found = store.all(tournament)
            except cps.CheckpointError as exc:  # a row that does not parse: tampered
                fail("verify.store_malformed", "--stored", f"{path}: {exc}")
            finally:
                store.close()
            sources += [(f"store#{i}", cp) for i, cp in enumerate(found, 1)]
    with local_log(using=cfg) as log:
        report = cps.verify_against(
            tournament, audit.stored_records(log, tournament), sources, pinned
        )
    verdict = report.verdict
    if verdict.events == 0 and not sources:
        fail("audit.unknown_tournament", "TOURNAMENT", f"{tournament!r} has no events")
    for text in report.warnings:
        err.print(f"[yellow]warning[/yellow] {escape(text)}", soft_wrap=True)
    for u in verdict.unreadable:
        err.print(
            f"[yellow]warning[/yellow] seq {u['seq']} event_id {u['event_id']} "
            f"({escape(u['type'])}: {escape(u['reason'])}) is stored intact but "
            "unreadable: an admin can retract it with EventRetracted "
            f"retracted_event_id={u['event_id']}",
            soft_wrap=True,
        )
    if as_json:
        sys.stdout.write(dumps(report.as_dict()).decode() + "\n")
    elif report.ok:
        out.print(
            f"[green]OK[/green] {tournament}: {verdict.events} events, chain intact; "
            f"head seq {verdict.head_seq} hash {verdict.head_hash}",
            soft_wrap=True,
        )
        for r in report.checkpoints:
            out.print(f"  checkpoint: {escape(r.detail)}", soft_wrap=True)
    else:
        p = report.problems[0]
        where = f" at seq {p['seq']}" if p.get("seq") is not None else ""
        intact = f" (intact up to seq {verdict.head_seq})" if not verdict.ok else ""
        out.print(
            f"[red]BROKEN[/red] {tournament}{where}: {p['kind']}: "
            f"{escape(str(p['detail']))}{intact}",
            soft_wrap=True,
        )
        for other in report.problems[1:]:
            out.print(f"  also: {other['kind']}: {escape(str(other['detail']))}")
    if not report.ok:
        raise typer.Exit(1)


def correct(
    tournament: str,
    game_id: str,
    result: Annotated[str, typer.Option("--result", help="1-0, 0-1, 1/2-1/2, …")],
    reason: Annotated[str, typer.Option("--reason", help="why (recorded, mandatory)")],
    termination: Annotated[
        str | None, typer.Option("--termination", help="default: the current one")
    ] = None,
    as_: As = None,
    token: ActToken = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Correct the result in force of a game (a ResultCorrected, as the local admin)."""
    from services.commands.corrections import correct_result
    from services.commands.service import CommandService

    if not reason.strip():
        fail("audit.reason_required", "--reason", "a correction needs a reason")
    actor = local_actor(as_, token, tournament)
    with local_log(backend, db) as log:
        res, current = correct_result(
            CommandService(log), tournament, game_id, result, reason, actor, termination
        )
    env = res.envelopes[0]
    out.print(
        f"{tournament}#{env.seq} ResultCorrected {env.event_id}: {game_id} "
        f"{current.result} -> {result} (corrects {current.event_id})"
    )


def retract(
    tournament: str,
    event_id: str,
    reason: Annotated[str, typer.Option("--reason", help="why (recorded, mandatory)")],
    as_: As = None,
    token: ActToken = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Retract an event (an EventRetracted, as the local admin)."""
    from events_schema import Command, CommandBatch
    from services.commands.service import CommandService

    try:
        target = uuid.UUID(event_id)
    except ValueError:
        fail("audit.bad_event_id", "EVENT_ID", f"{event_id!r} is not a UUID")
    if not reason.strip():
        fail("audit.reason_required", "--reason", "a retraction needs a reason")
    payload = {"retracted_event_id": str(target), "reason": reason}
    batch = CommandBatch(commands=[Command(type="EventRetracted", payload=payload)])
    with local_log(backend, db) as log:
        res = CommandService(log).handle(tournament, batch, local_actor(as_, token, tournament))
    env = res.envelopes[0]
    out.print(f"{tournament}#{env.seq} EventRetracted {env.event_id} (retracts {target})")


def _parse(text: str, option: str) -> audit.Point:
    from services.audit import replay as audit

    try:
        return audit.parse_point(text)
    except ValueError as exc:
        fail("audit.bad_point", option, str(exc))


#: The parts of a quantity (`events_schema.documents`: score, tie-break value) that its
#: ``display`` already says: a changed row shows the display only.
_QUANTITY_PARTS = ("value", "half_points", "unit", "criterion", "max")


def _shown_changes(fields: dict[str, list[Any]]) -> dict[str, tuple[str, str]]:
    """A changed row's fields as printed: a quantity by its display ("score 1 -> 3½", a
    tie-break by its column heading in words: "Sonneborn-Berger 2 -> 5½"), the parts its
    display already says (and the row's half_points beside its score) left out."""
    from projections.tiebreaks.registry import REGISTRY

    shown: dict[str, tuple[str, str]] = {}
    displayed = {k.removesuffix(".display") for k in fields if k.endswith(".display")}
    for k, (before, after) in fields.items():
        prefix, _, part = k.rpartition(".")
        if prefix in displayed and part in _QUANTITY_PARTS:
            continue
        if k == "half_points" and "score" in displayed:
            continue
        label = k.removesuffix(".display")
        for head in ("values.", "tiebreaks."):
            if label.startswith(head):
                crit = REGISTRY.get(label.removeprefix(head).split("(")[0])
                label = crit.words if crit is not None else label.removeprefix(head)
        shown[label] = (_cell(before), _cell(after))
    return shown


def _print_diff(console: Console, report: dict[str, Any]) -> None:
    from rich.table import Table

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
        for row in d.get("rows", d.get("lines", d.get("pairings", []))):
            who = escape(row.get("name") or row["key"])
            if name == "games" and "name" in row:  # the players, and the game's id
                who += f" ({escape(row['key'])})"
            if row["change"] == "changed":
                fields = ", ".join(
                    f"{k} {v[0]} -> {v[1]}" for k, v in _shown_changes(row["fields"]).items()
                )
                console.print(f"  {who}: {fields}")
            else:
                console.print(f"  {who}: {row['change']}")
        for flag in d.get("flags_added", []):
            console.print(f"  [yellow]flag added[/yellow] {flag['text']}")
        for flag in d.get("flags_removed", []):
            console.print(f"  flag removed: {flag['text']}")
        for k, v in d["fields"].items():
            if k.startswith("crosstable."):  # per player, per round: `arbiter crosstable`
                continue
            console.print(f"  {k}: {_cell(v[0])} -> {_cell(v[1])}")
        if any(k.startswith("crosstable.") for k in d["fields"]):
            console.print(
                f"  crosstable: changed (`arbiter crosstable {report['tournament_id']} --at "
                f"{report['to_seq']}`)"
            )
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


# --------------------------------------------------------------------------------------------
# signed checkpoints (services/audit/checkpoints/)
# --------------------------------------------------------------------------------------------


def _load_checkpoints(spec: str, token: str | None) -> list[tuple[str, Any]]:
    """The checkpoints a `--checkpoint` names: a file or an http(s) URL holding one signed
    checkpoint, a list, or the API's `{"checkpoints": [...]}`."""
    from events_schema.codec import loads
    from services.audit import checkpoints as cps

    if spec.startswith(("http://", "https://")):
        import httpx

        headers = {"Authorization": f"Bearer {token}"} if token else {}
        try:
            r = httpx.get(spec, headers=headers, timeout=30, follow_redirects=True)
        except httpx.HTTPError as exc:
            fail("verify.checkpoint_unavailable", "--checkpoint", f"{spec}: {exc}")
        if r.status_code >= 400:
            try:
                message = r.json()["error"]["message"]
            except (ValueError, KeyError, TypeError):
                message = r.text[:200]
            fail(
                "verify.checkpoint_unavailable",
                "--checkpoint",
                f"{spec}: HTTP {r.status_code}: {message}",
            )
        raw: bytes = r.content
    else:
        try:
            raw = Path(spec).read_bytes()
        except OSError as exc:
            fail("verify.checkpoint_unavailable", "--checkpoint", f"{spec}: {exc}")
    try:
        data = loads(raw)
    except ValueError as exc:
        fail("verify.checkpoint_malformed", "--checkpoint", f"{spec}: not JSON ({exc})")
    items = cps.parse_published(data)
    if len(items) == 1:
        return [(spec, items[0])]
    return [(f"{spec}[{i}]", item) for i, item in enumerate(items)]


class SignByDefault(TyperGroup):
    """`arbiter checkpoint T` is `arbiter checkpoint sign T`."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["sign", *args]
        return super().resolve_command(ctx, args)


def _checkpoint_service(log: EventLog, settings: Any) -> Any:
    from services.audit import checkpoints as cps

    return cps.CheckpointService.from_settings(
        log, settings, announce=lambda text: err.print(f"[yellow]{escape(text)}[/yellow]")
    )


def sign(
    tournament: str,
    out_file: Annotated[
        Path | None, typer.Option("--out", help="also write the checkpoint to this file")
    ] = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Verify the head of TOURNAMENT, sign it, store the checkpoint, print it (JSON)."""
    from services.audit import checkpoints as cps

    cfg = settings(backend, db)
    with local_log(using=cfg) as log:
        svc = _checkpoint_service(log, cfg)
        try:
            cp = svc.sign(tournament)
        except cps.CheckpointError as exc:
            field = "TOURNAMENT" if exc.field == "tournament_id" else exc.field
            fail(exc.rule, field, str(exc))
        finally:
            svc.close()
    body = cp.to_json()
    if out_file is not None:
        out_file.write_bytes(body + b"\n")
    err.print(
        f"signed {tournament}#{cp.seq} {cp.head_hash} with key {cp.key_id}; stored in "
        f"{cps.store_path(cfg)}",
        soft_wrap=True,
    )
    sys.stdout.write(body.decode() + "\n")


def keygen(
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", help="directory (default: ARBITER_DATA)", file_okay=False),
    ] = None,
) -> None:
    """Generate a checkpoint signing key and print its public key (PEM).

    Writes DIR/checkpoint-key.pem (mode 0600, never over an existing key) and
    DIR/checkpoint-<key_id>.pub.pem."""
    import base64

    from services.audit import checkpoints as cps

    directory = out_dir if out_dir is not None else settings().data_dir
    private = directory / cps.KEY_FILE
    key = cps.SigningKey.generate()
    try:
        pub = cps.write_key_files(key, private)
    except FileExistsError:
        fail(
            "checkpoint.key_exists",
            "--out",
            f"{private} exists and is never overwritten; to rotate, generate the new key "
            "in another directory (--out DIR) and point ARBITER_CHECKPOINT_KEY at it, and "
            "keep publishing the old public key so that old checkpoints stay verifiable",
        )
    err.print(
        f"wrote {private} (private, mode 0600) and {pub}; key_id {key.key_id}; public key "
        f"(base64) {base64.b64encode(key.public_key).decode()}",
        soft_wrap=True,
    )
    sys.stdout.write(cps.public_pem(key.public_key).decode())


def public_key_cmd() -> None:
    """Print the public key (PEM) of the current signing key, to pin it when verifying."""
    from services.audit import checkpoints as cps

    path, _ = cps.key_path(settings())
    try:
        key = cps.load_signing_key(path, lambda t: err.print(f"[yellow]{escape(t)}[/yellow]"))
    except cps.CheckpointKeyError as exc:
        fail(exc.rule, "ARBITER_CHECKPOINT_KEY", str(exc))
    err.print(f"key_id {key.key_id} ({path})")
    sys.stdout.write(cps.public_pem(key.public_key).decode())


def list_cmd(
    tournament: str,
    latest: Annotated[bool, typer.Option("--latest", help="only the newest")] = False,
    as_json: AsJson = False,
) -> None:
    """The stored checkpoints of TOURNAMENT, oldest first.

    `--json` prints them as the API serves them, ready for `arbiter verify --checkpoint`."""
    from rich.table import Table

    from events_schema.codec import dumps
    from services.audit import checkpoints as cps

    path = cps.store_path(settings())
    store = cps.CheckpointStore(path)
    try:
        found = store.all(tournament)
    finally:
        store.close()
    if latest:
        found = found[-1:]
    if not found:
        fail("checkpoint.not_found", "TOURNAMENT", f"no checkpoint of {tournament!r}")
    if as_json:
        body: Any = (
            found[0].as_dict()
            if latest
            else {"tournament_id": tournament, "checkpoints": [c.as_dict() for c in found]}
        )
        sys.stdout.write(dumps(body).decode() + "\n")
        return
    t = Table(title=f"checkpoints of {tournament}")
    for col in ("seq", "head hash", "signed at", "key id"):
        t.add_column(col)
    for c in found:
        t.add_row(str(c.seq), c.head_hash, c.checkpoint.signed_at, c.key_id)
    out.print(t)


def register(app: typer.Typer) -> None:
    """Add `replay`, `diff`, `verify`, `correct`, `retract` and the `checkpoint` group to the
    `arbiter` app."""
    app.command()(replay)
    app.command("diff")(diff_cmd)
    app.command()(verify)
    app.command()(correct)
    app.command()(retract)
    add_group(
        app,
        "checkpoint",
        "Signed checkpoints of a stream's head (`arbiter checkpoint T` signs T's head).",
        {"sign": sign, "keygen": keygen, "public-key": public_key_cmd, "list": list_cmd},
        cls=SignByDefault,
    )
