"""`arbiter lot` and `arbiter playoff`: the lots a playoff (or a pairing) needs, drawn with a
recorded seed, and the playoff's state, with `--schedule` appending the rounds it requires next
(services/commands/playoff.py; what it asks for: services/cli/prescribed.py)."""

from __future__ import annotations

import sys
import typing
from collections.abc import Iterable, Mapping
from typing import Annotated, NoReturn

import typer

from services.cli.common import AsJson, At, Backend, Db, fail, fold_known, local_actor, local_log
from services.cli.render import err, escape, name_column, name_of, names_of, out, points

if typing.TYPE_CHECKING:
    from projections.playoffs.base import PlayoffView


def lot_purposes() -> tuple[str, ...]:
    """What `arbiter lot --purpose` accepts (the LotDrawn event's purposes)."""
    from events_schema import events as ev

    return typing.get_args(ev.LotDrawn.model_fields["purpose"].annotation)


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
                nothing_to_schedule(tid, view, stage)
            names = names_of(state)
            for seq, rs in done.appended:
                games = ", ".join(
                    f"{p.game_id} {name_of(names, p.white)}–{name_of(names, p.black)}"
                    for p in rs.pairings
                )
                bye_names = ", ".join(name_of(names, b.player_id) for b in rs.byes)
                byes = f"; byes {bye_names}" if bye_names else ""
                err.print(f"{tid}#{seq} RoundScheduled {rs.stage} round {rs.round}: {games}{byes}")
            view = done.view
    names = names_of(state)
    if as_json:
        body = view.as_dict()
        # The ids stay; their names beside them (`names`, and the winner's).
        body["names"] = {pid: names[pid] for pid in sorted(names)}
        body["winner"] = view.winner
        body["winner_name"] = None if view.winner is None else name_of(names, view.winner)
        sys.stdout.write(dumps(body).decode() + "\n")
        return
    print_playoff(tid, view, names)


def nothing_to_schedule(tid: str, view: PlayoffView, stage: str | None) -> NoReturn:
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


def print_playoff(tid: str, view: PlayoffView, names: Mapping[str, str] | None = None) -> None:
    """The playoff as `arbiter playoff` shows it: stages, games, what is required next; the
    players by name (`names`: id -> name; an id without one is shown as it is)."""
    from rich.table import Table

    from services.cli import prescribed

    names = names or {}

    def who(pids: Iterable[str]) -> str:
        return ", ".join(escape(name_of(names, p)) for p in pids)

    out.print(f"[bold]{view.kind}[/bold] ({view.rule}): {view.status}")
    if view.tied:
        out.print(f"tied: {who(view.tied)}; still in: {who(view.still_in) or '—'}")
    for st in view.stages:
        t = Table(title=f"{st.name} ({st.kind}){' complete' if st.complete else ''}")
        t.add_column("round")
        t.add_column("game")
        name_column(t, "white")
        name_column(t, "black")
        t.add_column("time control")
        t.add_column("result")
        for g in st.games:
            t.add_row(
                str(g.round),
                g.game_id,
                escape(name_of(names, g.white)),
                escape(name_of(names, g.black)),
                g.time_control.name,
                g.result or ("scheduled" if g.scheduled else "to schedule"),
            )
        out.print(t)
        if st.scores:
            out.print(
                "scores: "
                + ", ".join(f"{escape(name_of(names, p))} {points(s)}" for p, s in st.scores)
            )
        if st.byes:
            out.print(f"byes: {who(st.byes)}")
    for req in view.required_next:
        h = prescribed.hint(tid, view, req)
        out.print(
            f"[yellow]next[/yellow] {req.kind} ({req.stage}): {req.text}"
            + (f"\n  run: {h}" if h else "")
        )
    if view.final_order:
        order = " > ".join(
            " = ".join(escape(name_of(names, p)) for p in block) for block in view.final_order
        )
        out.print(f"final order: {order}")
    if view.winner is not None:
        out.print(f"[bold]winner[/bold]: {escape(name_of(names, view.winner))}")
    for note in view.notes:
        out.print(f"[dim]note: {note}[/dim]")


def register(app: typer.Typer) -> None:
    """Add `lot` and `playoff` to the `arbiter` app."""
    for command in (lot, playoff):
        app.command()(command)
