"""`arbiter create`, `register`, `players`, `withdraw` and `bye`: the organiser's entry path
(issue 24), through the use cases of `services/commands/entries/`.

A PLAYER argument is a start number, a player id or a unique start of the name (accents and
case ignored); `arbiter players T` lists the start numbers in force (a late entry can change
those ranked below it: `services/commands/entries/players.py`). Every command that appends acts
as `--as NAME`, `--token` or ARBITER_ACTOR / ARBITER_TOKEN (`services.cli.common.local_actor`)
and prints what it appended, with the seqs."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from services.cli.common import (
    ActToken,
    As,
    AsJson,
    Backend,
    Db,
    fail,
    fail_all,
    local_actor,
    local_log,
)
from services.cli.render import escape, out, print_json

if TYPE_CHECKING:
    from services.commands.entries import EntryRow
    from services.eventlog.base import AppendResult

# The command path, the projections and the entry-list readers are imported inside the
# commands: `arbiter --help` imports this module (tests/unit/services/cli/test_cli_startup.py).

Player = Annotated[
    str,
    typer.Argument(help="a start number, a player id or the start of a name", show_default=False),
]
_BYE_WORDS = {"half": "½", "zero": "0"}


def _seqs(result: AppendResult) -> str:
    seqs = [e.seq for e in result.envelopes]
    if not seqs:
        return "nothing appended"
    return f"seq {seqs[0]}" if len(seqs) == 1 else f"seqs {seqs[0]}-{seqs[-1]}"


def _row_line(row: EntryRow) -> str:
    bits = [b for b in (row.title, str(row.rating) if row.rating else None, row.federation) if b]
    return f"{row.start_no:>3}  {escape(row.name)}" + (f" ({' '.join(bits)})" if bits else "")


def create(
    tournament: str,
    name: Annotated[str, typer.Option("--name", help="the tournament's name, as published")],
    format_: Annotated[
        str,
        typer.Option(
            "--format",
            help="swiss, round_robin, cup, knockout, league, match, playoff, mcmahon, porous_swiss",
        ),
    ] = "swiss",
    rounds: Annotated[int | None, typer.Option("--rounds", min=1, help="rounds planned")] = None,
    preset: Annotated[
        str | None,
        typer.Option(
            "--preset",
            help="rules preset: tie-breaks and playoff rules, e.g. fide-swiss, gct-classical, "
            "lgc (an unknown one is refused naming those known)",
        ),
    ] = None,
    start: Annotated[
        datetime | None, typer.Option("--start", formats=["%Y-%m-%d"], help="first day")
    ] = None,
    end: Annotated[
        datetime | None, typer.Option("--end", formats=["%Y-%m-%d"], help="last day")
    ] = None,
    time_control: Annotated[
        str | None,
        typer.Option(
            "--time-control",
            help="minutes[+seconds of increment]: 90+30, 25+10, G/60 (US: game in 60)",
        ),
    ] = None,
    game: Annotated[str | None, typer.Option("--game", help="chess (default) or go")] = None,
    pairing: Annotated[
        str | None,
        typer.Option(
            "--pairing",
            help="pairing system if not the format's own: dutch, galway, berger, monrad, "
            "tcec-cup, mcmahon, go-swiss (OpenGotha's Swiss for Go), manual",
        ),
    ] = None,
    as_: As = None,
    token: ActToken = None,
    as_json: AsJson = False,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Create a tournament (a TournamentCreated). The tie-breaks are the preset's, chosen
    here once and for all: without --preset tied players share their place.

    Example (a FIDE Swiss, FIDE C.07 tie-breaks):

    \b
      arbiter create open-2026 --name "Club Open 2026" --format swiss --rounds 7 \\
        --preset fide-swiss --time-control 90+30 --start 2026-05-01 --end 2026-05-03"""
    from services.commands.entries import create_tournament
    from services.commands.service import CommandService

    actor = local_actor(as_, token, tournament)
    with local_log(backend, db) as log:
        result = create_tournament(
            CommandService(log),
            tournament,
            actor,
            name=name,
            format=format_,
            rounds=rounds,
            preset=preset,
            start=start.date() if start else None,
            end=end.date() if end else None,
            time_control=time_control,
            game=game,
            pairing=pairing,
        )
    env = result.envelopes[0]
    if as_json:
        print_json({"tournament_id": tournament, "seq": env.seq, "payload": env.payload})
        return
    p = env.payload
    what = ", ".join(
        x
        for x in (
            p.get("format"),
            f"{p['rounds']} rounds" if p.get("rounds") else None,
            p.get("rules_preset"),
            p["time_controls"][0]["name"] if p.get("time_controls") else None,
        )
        if x
    )
    out.print(
        f"{tournament}#{env.seq} TournamentCreated {escape(p['name'])!r} ({what}) "
        f"by {escape(env.actor.id)}",
        soft_wrap=True,
    )
    fide = {"swiss": "fide-swiss", "round_robin": "fide-round-robin"}.get(p.get("format", ""))
    if fide and not p.get("rules_preset") and not p.get("tiebreaks") and p.get("game") != "go":
        out.print(
            f"no --preset: tied players will share their place, no tie-break decides (for "
            f"FIDE C.07's, create the tournament with --preset {fide})",
            soft_wrap=True,
        )
    out.print(
        f"next: arbiter register {tournament} --file entries.csv "
        f'(or arbiter register {tournament} "Surname, First" --rating 2100)',
        soft_wrap=True,
    )


def register_players(
    tournament: str,
    name: Annotated[
        str | None, typer.Argument(help='the player: "Surname, First"', show_default=False)
    ] = None,
    file: Annotated[
        Path | None,
        typer.Option(
            "--file",
            help="an entry list: CSV (a header row: name, rating, title, federation, fide_id, "
            "club, go_rank; comma or semicolon) or TRF (its 001 player records)",
        ),
    ] = None,
    rating: Annotated[int | None, typer.Option("--rating", help="Elo (0: unrated)")] = None,
    title: Annotated[str | None, typer.Option("--title", help="GM, IM, FM, ...")] = None,
    federation: Annotated[str | None, typer.Option("--federation", help="e.g. NOR")] = None,
    fide_id: Annotated[int | None, typer.Option("--fide-id", help="FIDE id")] = None,
    club: Annotated[str | None, typer.Option("--club", help="the player's club")] = None,
    go_rank: Annotated[str | None, typer.Option("--go-rank", help="Go: 5k, 2d, 1p")] = None,
    as_: As = None,
    token: ActToken = None,
    as_json: AsJson = False,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Register a player, or every player of an entry list (--file) in one batch: a bad row
    is refused with its line and column and nothing of the file is registered. After round 1
    is paired this is a late entry, paired from the next round.

    CSV example (UTF-8; a semicolon works as well as a comma; an empty rating is an unrated
    player):

    \b
      name,rating,title,federation,fide_id,club
      "Carlsen, Magnus",2830,GM,NOR,1503014,Offerspill
      "Ó Súilleabháin, Seán",,,IRL,,Galway

    Example: arbiter register open-2026 --file entries.csv; one player: arbiter register
    open-2026 "Carlsen, Magnus" --rating 2830 --title GM --federation NOR"""
    from services.commands.entries import register_entries
    from services.commands.service import CommandService
    from services.interchange.entries import EntriesError, make_entry, parse_entries

    given = {
        "rating": rating,
        "title": title,
        "federation": federation,
        "fide_id": fide_id,
        "club": club,
        "go_rank": go_rank,
    }
    try:
        if file is not None:
            if name is not None or any(v is not None for v in given.values()):
                fail("cli.usage", "--file", "give an entry list (--file) or one player, not both")
            try:
                data = file.read_bytes()
            except OSError as exc:
                fail("entries.unreadable", "--file", f"{file}: {exc.strerror or exc}")
            entries = parse_entries(data, file.name)
        elif name is not None:
            options = {k: f"--{k.replace('_', '-')}" for k in given}
            entries = [make_entry({"name": name, **given}, columns={"name": "NAME", **options})]
        else:
            fail("cli.usage", "NAME/--file", 'give a name ("Surname, First") or --file')
    except EntriesError as exc:
        fail_all(exc.problems())
    actor = local_actor(as_, token, tournament)
    with local_log(backend, db) as log:
        done = register_entries(CommandService(log), tournament, entries, actor)
    rows = done.new_rows()
    if as_json:
        print_json(
            {
                "tournament_id": tournament,
                "last_seq": done.result.last_seq,
                "late": done.late,
                "players": [r.as_dict() for r in rows],
            }
        )
        return
    late = " (late entries: paired from the next round)" if done.late else ""
    count = f"{len(rows)} player" + ("s" if len(rows) != 1 else "")
    out.print(
        f"{tournament}: registered {count}, {_seqs(done.result)}, by "
        f"{escape(done.result.envelopes[0].actor.id)}{late}",
        soft_wrap=True,
    )
    for row in rows:
        out.print(f"{_row_line(row)}  [dim]{row.player_id}[/dim]", soft_wrap=True)
    if len(done.rows) != len(rows):
        out.print(f"{len(done.rows)} players in all: arbiter players {tournament}")


def players(
    tournament: str,
    as_json: AsJson = False,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """The entry list: start numbers (those of the pairing and the TRF export, in force now),
    rating, title, federation, club, status, requested byes.

    Example: arbiter players open-2026 (--json for the same list as data)"""
    from rich.table import Table

    from services.commands.entries import entry_list, fold_tournament
    from services.commands.service import CommandService

    with local_log(backend, db) as log:
        rows = entry_list(fold_tournament(CommandService(log), tournament, "players"))
    if as_json:
        print_json({"tournament_id": tournament, "players": [r.as_dict() for r in rows]})
        return
    table = Table(title=f"{tournament}: {len(rows)} players", show_edge=False)
    go = any(r.go_rank for r in rows)
    for col, justify in (
        ("no.", "right"),
        ("name", "left"),
        ("title", "left"),
        ("rank" if go else "rating", "right"),
        ("fed", "left"),
        ("club", "left"),
        ("status", "left"),
        ("byes", "left"),
        ("id", "left"),
    ):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for r in rows:
        table.add_row(
            str(r.start_no),
            escape(r.name),
            r.title or "",
            (r.go_rank or "") if go else str(r.rating) if r.rating is not None else "unrated",
            r.federation or "",
            escape(r.club or ""),
            "active" if r.withdrawn_from is None else f"withdrawn from round {r.withdrawn_from}",
            ", ".join(f"round {n}: {_BYE_WORDS.get(k, k)}" for n, k in sorted(r.byes.items())),
            r.player_id,
        )
    out.print(table)


def withdraw(
    tournament: str,
    player: Player,
    from_round: Annotated[
        int | None,
        typer.Option(
            "--from-round", min=1, help="the first round missed (default: from the next round)"
        ),
    ] = None,
    reason: Annotated[str, typer.Option("--reason", help="why (recorded)")] = "",
    as_: As = None,
    token: ActToken = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Withdraw a player (a PlayerWithdrew): not paired from --from-round on (FIDE C.06 5.4: a
    withdrawal announced for a later round plays the rounds before it).

    Example: arbiter withdraw open-2026 Carlsen --from-round 5 --reason ill"""
    from services.commands.entries import withdraw_player
    from services.commands.service import CommandService

    actor = local_actor(as_, token, tournament)
    with local_log(backend, db) as log:
        done = withdraw_player(
            CommandService(log), tournament, player, actor, from_round=from_round, reason=reason
        )
    env = done.result.envelopes[0]
    when = f"from round {from_round}" if from_round else "from the next round"
    why = f": {escape(reason)}" if reason else ""
    out.print(
        f"{tournament}#{env.seq} PlayerWithdrew {escape(done.player.label())} {when}{why} "
        f"(by {escape(env.actor.id)})",
        soft_wrap=True,
    )


def bye(
    tournament: str,
    player: Player,
    rnd: Annotated[int, typer.Option("--round", min=1, help="the round not to be paired in")],
    points: Annotated[
        str, typer.Option("--points", help="½ (also 0.5 or 1/2) or 0; 1 is refused")
    ] = "½",
    cancel: Annotated[
        bool, typer.Option("--cancel", help="withdraw the bye requested for that round")
    ] = False,
    as_: As = None,
    token: ActToken = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Request a bye for a round not yet paired (FIDE C.04.2 requested byes, TRF26 record
    240): the player is not paired in it and scores the points given (½ or 0). Appends the
    round's byes ruling (every bye of the round, this one merged in).

    Example: arbiter bye open-2026 12 --round 4 --points ½"""
    from services.commands.entries import request_bye
    from services.commands.service import CommandService

    actor = local_actor(as_, token, tournament)
    with local_log(backend, db) as log:
        done = request_bye(
            CommandService(log), tournament, player, rnd, actor, points=points, cancel=cancel
        )
    env = done.result.envelopes[0]
    what = "bye cancelled" if done.kind is None else f"{_BYE_WORDS[done.kind]}-point bye"
    out.print(
        f"{tournament}#{env.seq} RulingIssued {env.payload['ruling_id']}: "
        f"{escape(done.player.label())}: {what} in round {rnd} (by {escape(env.actor.id)})",
        soft_wrap=True,
    )
    byes = "; ".join(
        f"{escape(done.labels.get(pid, pid))} {_BYE_WORDS.get(k, k)}"
        for pid, k in done.byes.items()
    )
    out.print(f"  round {rnd} byes now: {byes or 'none'}", soft_wrap=True)


def register(app: typer.Typer) -> None:
    """Add `create`, `register`, `players`, `withdraw` and `bye` to the `arbiter` app."""
    app.command()(create)
    app.command("register")(register_players)
    app.command()(players)
    app.command()(withdraw)
    app.command()(bye)
