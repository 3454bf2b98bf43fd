"""`arbiter lot` and `arbiter playoff`: the lots a playoff (or a pairing) needs, drawn with a
recorded seed, and the playoff's state, with `--schedule` appending the rounds it requires next
(services/commands/playoff.py; what it asks for: services/cli/prescribed.py)."""

from __future__ import annotations

import sys
import typing
from collections.abc import Iterable, Mapping
from typing import Annotated, NoReturn

import typer

from services.cli.common import (
    ActToken,
    As,
    AsJson,
    At,
    Backend,
    Db,
    fail,
    fold_known,
    local_actor,
    local_log,
)
from services.cli.render import err, escape, name_column, name_of, names_of, out, points

if typing.TYPE_CHECKING:
    from events_schema.inputs import CoinTossChoice
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
            help="draw the lot the tournament requires next, as `arbiter schedule T` names "
            "it (its pairing system's, e.g. a TCEC round robin's engine order, or its "
            "playoff's): purpose, subject, candidates and pick are read from it",
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
    as_: As = None,
    token: ActToken = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Draw a lot with a recorded seed and append it as a LotDrawn event.

    With --next the next required lot (services/cli/prescribed.py lots_wanted, the source
    `arbiter schedule` names it from) is drawn as it asks; without, a lot for a subject the
    playoff asks a lot for must be that lot (refused before it is appended)."""
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
        result = CommandService(log).handle(tournament, batch, local_actor(as_, token, tournament))
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
    toss_choice: Annotated[
        list[str] | None,
        typer.Option(
            "--toss-choice",
            help="with --schedule, GCT 2.5.3/3.5.3: the colour the winner of a game's coin "
            "toss chose, GAME=white|black (repeatable; or a JSON file, schema "
            "events_schema/json/inputs/coin-toss-choice.schema.json); default: the winner "
            "plays White",
            metavar="GAME=COLOUR",
        ),
    ] = None,
    stage: Annotated[
        str | None, typer.Option("--stage", help="with --schedule: only this stage")
    ] = None,
    as_: As = None,
    token: ActToken = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """The playoff state: stage, who is in, games, what is required next, final order.

    Given a series id, shows the series' tour playoff (a tournament of its own) if it has one.

    A GCT Armageddon game's colours follow its coin toss (GCT 2.5.3: the winner of the toss
    has choice of color): after `arbiter lot T --next` records the toss, schedule with the
    winner's choice; without one, the winner plays White. For example:

    \b
    arbiter playoff gct-rb --schedule --toss-choice gct-armageddon-1-b1=black
    arbiter playoff gct-rb --schedule --toss-choice choice.json
      (choice.json, as docs/examples/coin-toss-choice.json:
       {"game_id": "gct-armageddon-1-b1", "winner_plays": "black"})"""
    from functools import partial

    from events_schema.codec import dumps
    from services.cli import tables
    from services.commands import playoff as playoff_commands

    if stage is not None and not schedule:
        fail("cli.usage", "--stage", "--stage chooses what --schedule appends: add --schedule")
    if toss_choice and not schedule:
        fail("cli.usage", "--toss-choice", "--toss-choice goes with --schedule: add --schedule")
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
                log,
                tid,
                state,
                view,
                view_of,
                stage=stage,
                actor=local_actor(as_, token, tid),
                toss_choices=toss_choices(toss_choice or []),
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


def toss_choices(given: list[str]) -> list[CoinTossChoice]:
    """`--toss-choice GAME=white|black` or `--toss-choice FILE.json` (one CoinTossChoice), each
    read as the coin-toss-choice input; refused with every problem at once."""
    from pathlib import Path

    from events_schema.inputs import CoinTossChoice, Problem
    from services.commands.service import CommandRejected
    from services.inputs import check, read_json

    chosen: list[CoinTossChoice] = []
    found: list[Problem] = []
    for i, value in enumerate(given):
        game, eq, colour = value.partition("=")
        raw = (
            {"game_id": game, "winner_plays": colour.lower()}
            if eq
            else read_json(Path(value), f"--toss-choice[{i}]", "playoff.invalid_toss_choice")
        )
        try:
            choice = check("coin-toss-choice", raw)
        except CommandRejected as exc:
            found += [
                Problem(p.rule, f"--toss-choice[{i}]{p.field[11:]}", p.message) for p in exc.errors
            ]
            continue
        assert isinstance(choice, CoinTossChoice)
        chosen.append(choice)
    if found:
        raise CommandRejected.of(found)
    return chosen


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

    from projections.playoffs.base import said
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
            f"[yellow]next[/yellow] {req.kind} ({req.stage}): {escape(said(req.text, names))}"
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
        out.print(f"[dim]note: {escape(said(note, names))}[/dim]")


def register(app: typer.Typer) -> None:
    """Add `lot` and `playoff` to the `arbiter` app."""
    for command in (lot, playoff):
        app.command()(command)
