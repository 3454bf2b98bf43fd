"""`arbiter round`, `arbiter result`, `arbiter results`: results entered by board, as the
organiser reads them off the score sheets (services/commands/results.py); and the
correction by board that `arbiter correct T --round N BOARD RESULT --reason …`
(services/cli/audit.py) hands to `correct_by_board`.

Results are typed in the notations organisers use (`1-0`, `0-1`, `½`, `1/2`, `=`, `+-`, `-+`,
`--`, `0-0`: services/commands/notation.py); a decisive result without `--how` is stored as
entered by the arbiter (termination "other"), a draw as a draw by agreement."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from services.cli.common import ActToken, As, AsJson, Backend, Db, fail, local_actor, local_log
from services.cli.render import escape, out

if TYPE_CHECKING:
    from events_schema import Actor
    from services.commands.notation import Entered
    from services.commands.results import Board, Entries, RoundView

Round = Annotated[int, typer.Option("--round", help="the round (of --stage)", min=1)]
Stage = Annotated[str, typer.Option("--stage", help="the stage (default: main)")]
How = Annotated[
    str | None,
    typer.Option(
        "--how",
        help="how the game ended: resignation, agreement, time, checkmate, stalemate, "
        "repetition, fifty, forfeit, … (default: a draw by agreement, a win 'entered by the "
        "arbiter')",
    ),
]
NOTATIONS = "1-0, 0-1, ½ (or 1/2, =, 0.5), +- / -+ (forfeit win), -- (double forfeit), 0-0"


def _side(name: str, start_no: int | None) -> str:
    return escape(f"{name} ({start_no})" if start_no is not None else name)


def _ending(termination: str | None, detail: str = "") -> str:
    """The ending in words: "resignation", "forfeit", "entered" for a result entered
    without one."""
    from projections.games import label

    if termination is None:
        return ""
    if termination == "other" and detail:
        return "entered"
    return label(termination)


def _line(board: Board, entered: Entered, seq: int | None) -> str:
    """ "board 3: Carlsen, Magnus 1-0 Caruana, Fabiano (resignation) appended at seq 57"."""
    what = f"appended at seq {seq}" if seq is not None else "already entered, nothing appended"
    return (
        f"board {board.board}: {escape(board.white.name)} {entered.text} "
        f"{escape(board.black.name)} ({_ending(entered.termination, entered.detail)}) {what}"
    )


def _print_entries(entries: Entries) -> None:
    view = entries.view
    appended = [e for e in entries.entries if e.appended]
    head = f"{view.tournament} {view.stage} round {view.round}: "
    if appended:
        head += f"{len(appended)} result(s) appended"
    else:
        head += "nothing appended (every board had that result already)"
    out.print(f"[bold]{head}[/bold]")
    for e in entries.entries:
        out.print("  " + _line(e.board, e.entered, e.seq))
    for b in entries.skipped:
        out.print(f"  board {b.board}: left as it is ({b.shown})")
    missing = [b.board for b in _fresh(entries).boards if b.result is None]
    if missing:
        out.print(f"  [dim]without a result yet: board(s) {', '.join(map(str, missing))}[/dim]")


def _fresh(entries: Entries) -> RoundView:
    """The round after the entry: the boards entered now carry their result."""
    from dataclasses import replace

    entered = {e.board.board: e.entered for e in entries.entries}
    boards = [
        replace(b, result=entered[b.board].result, termination=entered[b.board].termination)
        if b.board in entered
        else b
        for b in entries.view.boards
    ]
    return replace(entries.view, boards=boards)


def result(
    tournament: str,
    board: Annotated[int, typer.Argument(help="the board number", min=1)],
    token: Annotated[str, typer.Argument(metavar="RESULT", help=NOTATIONS)],
    rnd: Round,
    how: How = None,
    stage: Stage = "main",
    as_: As = None,
    act_token: ActToken = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Enter one board's result: `arbiter result T --round 3 5 1-0 --how resignation`.

    The same result entered again appends nothing; another result on a board that has one is
    refused (correct it with `arbiter correct T --round N BOARD RESULT --reason …`)."""
    from services.commands.results import enter_result
    from services.commands.service import CommandService

    with local_log(backend, db) as log:
        entries = enter_result(
            CommandService(log),
            tournament,
            rnd,
            board,
            token,
            local_actor(as_, act_token, tournament),
            how,
            stage,
        )
    e = entries.entries[0]
    out.print(_line(e.board, e.entered, e.seq))


def results(
    tournament: str,
    rnd: Round,
    tokens: Annotated[
        str | None,
        typer.Argument(
            metavar="RESULTS",
            help='one result per board in board order, e.g. "1-0 ½ 0-1 +- -+ 0-0" (* leaves '
            "a board as it is); the pairing-allocated bye needs none",
        ),
    ] = None,
    file: Annotated[
        Path | None,
        typer.Option(
            "--file",
            help="a CSV with a header row: board,result[,how] (comma or semicolon)",
            exists=True,
            dir_okay=False,
        ),
    ] = None,
    stage: Stage = "main",
    as_: As = None,
    act_token: ActToken = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Enter a whole round at once, all or nothing in one batch:
    `arbiter results T --round 3 "1-0 ½ 0-1 +- -+ 0-0"` or `--file results.csv`."""
    from services.commands.results import enter_csv, enter_round
    from services.commands.service import CommandService

    if (tokens is None) == (file is None):
        fail("result.input", "RESULTS", "give the results on the command line or --file, one")
    with local_log(backend, db) as log:
        service = CommandService(log)
        actor = local_actor(as_, act_token, tournament)
        if file is not None:
            text = file.read_text(encoding="utf-8")
            entries = enter_csv(service, tournament, rnd, text, actor, stage, file.name)
        else:
            assert tokens is not None
            entries = enter_round(service, tournament, rnd, tokens, actor, stage)
    _print_entries(entries)


def round_cmd(
    tournament: str,
    rnd: Annotated[
        int | None, typer.Argument(metavar="N", help="the round (default: the latest)", min=1)
    ] = None,
    stage: Stage = "main",
    as_json: AsJson = False,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """A round's boards: players (start numbers), results in force and byes, as the organiser
    checks them before entering results.

    Example: arbiter round open-2026 3 (the latest round without N)"""
    from services.commands.results import fold_tournament, rounds_of, view_of
    from services.commands.service import CommandService

    with local_log(backend, db) as log:
        state = fold_tournament(CommandService(log), tournament)
        if rnd is None:
            scheduled = rounds_of(state, stage)
            if not scheduled:
                fail("result.no_such_round", "N", f"no round of {stage!r} is scheduled yet")
            rnd = scheduled[-1]
        view = view_of(state, tournament, rnd, stage)
    if as_json:
        print(json.dumps(view.as_json(), ensure_ascii=False, indent=2))
        return
    _print_round(view)


def _print_round(view: RoundView) -> None:
    from rich.table import Table

    done = sum(b.result is not None for b in view.boards)
    out.print(
        f"[bold]{view.tournament} {view.stage} round {view.round}: {len(view.boards)} "
        f"board(s), {done} result(s)[/bold]"
    )
    table = Table(show_edge=False)
    for col in ("board", "white", "result", "black", "how", "game"):
        table.add_column(col, no_wrap=col in ("board", "result", "game"))
    for b in view.boards:
        how = _ending(b.termination)
        if b.corrected:
            how = f"{how}, corrected" if how else "corrected"
        table.add_row(
            str(b.board),
            _side(b.white.name, b.white.start_no),
            b.shown,
            _side(b.black.name, b.black.start_no),
            how,
            b.game_id,
        )
    for side, kind in view.byes:
        table.add_row("–", _side(side.name, side.start_no), "bye", kind.replace("_", " "), "", "")
    out.print(table)
    if done < len(view.boards):
        out.print(
            f'[dim]enter: arbiter results {view.tournament} --round {view.round} "…" (one per '
            "board in board order), or arbiter result … BOARD RESULT[/dim]"
        )


def correct_by_board(
    tournament: str,
    rnd: int,
    board: str,
    token: str,
    reason: str,
    how: str | None,
    stage: str,
    backend: str | None,
    db: Path | None,
    actor: Actor,
) -> None:
    """`arbiter correct T --round N BOARD RESULT --reason …`: the ResultCorrected of that
    board's result in force, as `actor` (the named person, else the local admin); prints
    the board before and after."""
    from services.commands.results import correct_board
    from services.commands.service import CommandService

    if not board.isdigit() or int(board) < 1:
        fail("result.no_such_board", "BOARD", f"{board!r}: with --round, give a board number")
    with local_log(backend, db) as log:
        fix = correct_board(
            CommandService(log),
            tournament,
            rnd,
            int(board),
            token,
            reason,
            actor,
            how,
            stage,
        )
    b, env = fix.board, fix.result.envelopes[0]
    termination = env.payload.get("termination")
    ending = termination if isinstance(termination, str) else None
    # The token's default ending kept ("other" for a decisive result typed without its
    # ending) reads "entered", as `arbiter result` and `results` print it.
    detail = fix.entered.detail if ending == fix.entered.termination else ""
    out.print(
        f"board {b.board}: {escape(b.white.name)} {fix.entered.text} {escape(b.black.name)} "
        f"({_ending(ending, detail)}), was {fix.old}: ResultCorrected appended at seq {env.seq}"
    )


def register(app: typer.Typer) -> None:
    """Add `round`, `result` and `results` to the `arbiter` app."""
    app.command("round")(round_cmd)
    app.command()(result)
    app.command()(results)
