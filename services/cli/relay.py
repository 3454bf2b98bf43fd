"""`arbiter relay T --source URL|FILE [--every 2s] [--once] [--json]`: follow a live source's
games into tournament T as they are played (services/relay/): a multi-game PGN from a file
or a URL (lichess broadcasts, DGT LiveChess's PGN; `[%clk]` clocks), or DGT LiveChess Cloud's
round JSON (a URL ending in `round-N/index.json`). Each poll prints what changed per game
(moves appended, moves taken back, a result, a game held and why); --json prints each poll's
report on a line of its own. A source that keeps failing is read less often (exponential
back-off to a minute) until it answers again. Ctrl-C stops it; a restart appends nothing
twice."""

from __future__ import annotations

import json
import re
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from services.cli.common import ActToken, As, AsJson, Backend, Db, fail, local_actor, local_log
from services.cli.render import err, escape, out

if TYPE_CHECKING:
    from services.relay import PollReport


def seconds(text: str) -> float:
    """`2s`, `500ms`, `1m`, `2` (seconds): the polling interval; refused otherwise."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*", text)
    if m is None or float(m.group(1)) <= 0:
        fail("relay.invalid", "--every", f"{text!r} is not an interval such as 2s, 500ms, 1m")
    value = float(m.group(1))
    return {"ms": value / 1000, "m": value * 60}.get(m.group(2) or "s", value)


def _print(report: PollReport | None, error: str | None, as_json: bool) -> None:
    if error is not None:
        err.print(f"[yellow]source unreadable[/yellow]: {escape(error)} (backing off)")
        return
    if report is None:
        return  # unchanged (HTTP 304)
    if as_json:  # one compact line per poll (a long-running relay's output is NDJSON)
        sys.stdout.write(json.dumps(report.as_dict(), ensure_ascii=False) + "\n")
        sys.stdout.flush()
        return
    if report.error is not None:
        err.print(f"[yellow]source[/yellow]: {escape(report.error)}")
    for g in report.changed:
        tags = g.tags
        who = escape(f"{tags.get('White', '?')} – {tags.get('Black', '?')}")
        if g.held:
            why = escape(g.error or "")
            err.print(f"[red]held[/red] game {g.index} (line {g.line}) {who}: {g.rule}: {why}")
            continue
        what = [f"+{g.appended} moves"] if g.appended else []
        if g.retracted:
            what.append(f"{g.retracted} taken back (retracted)")
        if g.result is not None:
            what.append(f"{g.result} ({g.termination})")
        out.print(f"{g.game_id} {who}: {', '.join(what)}; ply {g.moves}")
        for note in g.notes:
            err.print(f"  [yellow]note[/yellow]: {escape(note)}")


def relay(
    tournament: str,
    source: Annotated[
        str,
        typer.Option(
            "--source",
            help="a PGN file, an http(s) URL of a PGN, or a DGT LiveChess round's …/index.json",
        ),
    ],
    every: Annotated[str, typer.Option("--every", help="polling interval: 2s, 500ms, 1m")] = "2s",
    once: Annotated[bool, typer.Option("--once", help="poll once and exit")] = False,
    as_json: AsJson = False,
    as_: As = None,
    token: ActToken = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Follow a live PGN (or DGT LiveChess) source's games into TOURNAMENT."""
    from services.interchange.pipeline import ImportRefused
    from services.relay import Relay, SourceError, follow, open_source, poll_once

    interval = seconds(every)
    actor = local_actor(as_, token, tournament)
    with local_log(backend, db) as log:
        src = open_source(source)
        rel = Relay(log, tournament, actor, src.name)
        try:
            if once:
                try:
                    report = poll_once(rel, src)
                except SourceError as exc:
                    fail("relay.source_unreadable", "--source", str(exc))
                _print(report, None, as_json)
                return
            follow(rel, src, every=interval, on_poll=lambda r, e: _print(r, e, as_json))
        except KeyboardInterrupt:
            err.print("stopped")
        except ImportRefused as exc:
            fail(exc.rule, exc.where, exc.message)


def register(app: typer.Typer) -> None:
    """Add `relay` to the `arbiter` app."""
    app.command()(relay)
