"""`arbiter arena TOURNAMENT --engine NAME=COMMAND [option.X=Y …] … [--concurrency N]
[--openings FILE] [--nodes N | --time-control BASE+INC] [--rounds K]`: UCI engines play the
tournament's own schedule (services/arena/), every move appended as it is played.

`--engine` is written as cutechess-cli writes it: the engine's name, `=`, its command line
(shell-quoted when it has spaces), then any `option.NAME=VALUE` words, which belong to the
`--engine` before them, and `nodes=N`, that engine's own node limit. NAME is a registered
player's id (`arbiter players`), else their name.

`arbiter arena-status TOURNAMENT [--json] [--at SEQ]`: the arena's games as a person follows
them (projections/arena.py), the JSON `GET /tournaments/{id}/arena` answers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from services.cli.common import (
    ActToken,
    As,
    AsJson,
    At,
    Backend,
    Db,
    fail,
    local_actor,
    local_log,
    tournament_records,
)
from services.cli.games import clock, shown_result
from services.cli.render import escape, out, print_json


def _engines(args: list[str]) -> list[tuple[str, list[str]]]:
    """`--engine VALUE [option.X=Y …]` groups, in order, from the words typer left over."""
    found: list[tuple[str, list[str]]] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word.startswith("--engine="):
            found.append((word.removeprefix("--engine="), []))
        elif word == "--engine":
            if i + 1 >= len(args):
                fail("cli.usage", "--engine", "give --engine NAME=COMMAND")
            found.append((args[i + 1], []))
            i += 1
        elif (word.startswith("option.") or word.startswith("nodes=")) and found:
            found[-1][1].append(word)
        else:
            fail(
                "cli.usage",
                word,
                "unexpected word: give --engine NAME=COMMAND, then its option.X=Y and nodes=N "
                "words; see arbiter arena --help",
            )
        i += 1
    return found


def arena(
    ctx: typer.Context,
    tournament: str,
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, help="games played at the same time")
    ] = 1,
    openings: Annotated[
        Path | None,
        typer.Option(
            "--openings",
            help="EPD or PGN file: each pair of games plays one opening, colours reversed",
        ),
    ] = None,
    nodes: Annotated[
        int | None,
        typer.Option("--nodes", min=1, help="run-level limit: nodes a move (recorded)"),
    ] = None,
    time_control: Annotated[
        str | None,
        typer.Option(
            "--time-control",
            help="run-level clock BASE+INC in seconds, as cutechess (2+0.1); recorded",
        ),
    ] = None,
    rounds: Annotated[
        int | None, typer.Option("--rounds", min=1, help="play at most K rounds in this run")
    ] = None,
    grace: Annotated[
        float,
        typer.Option(
            "--grace",
            min=0.1,
            help="seconds past its time (under --nodes: in all) before an engine that does "
            "not answer is declared hung",
        ),
    ] = 5.0,
    stage: Annotated[str, typer.Option("--stage", help="the stage to play")] = "main",
    as_json: AsJson = False,
    as_: As = None,
    token: ActToken = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """Play the tournament's schedule with UCI engines: --engine NAME=COMMAND [option.X=Y …]
    [nodes=N] for every player (NAME: the player's id or name; option.X=Y: a UCI option;
    nodes=N: that engine's own node limit), e.g.

      arbiter arena tcec-s1 --engine sf=/usr/games/stockfish option.Threads=1
      --engine "lc0=/opt/lc0 --backend=blas" --nodes 1000

    The scheduled round's unfinished games are played, then the next round is paired (as
    `arbiter pair` does) until the schedule is complete. Every move is appended as it is
    played; endings are decided by the preset's rules; a crash, a hang, an illegal move or an
    engine that never starts is an EngineCrashed. Killed (even kill -9), run it again: it
    resumes from the log, a game cut off being a server interruption (TCEC Swiss 7.b).

    On a Go tournament the engines speak GTP (e.g. "gnugo --mode gtp --level 1"): the next
    McMahon round with its handicaps, moves and passes, both engines' final_status_list dead
    as the status agreement and the LGC count; clocks from the Go time control, else
    --time-control."""
    from services.arena.arena import Arena, ArenaConfig
    from services.arena.engines import EngineSpec
    from services.arena.limits import RunLimit
    from services.arena.openings import OpeningsError, read_openings
    from services.commands.service import CommandService

    specs = []
    for value, words in _engines(list(ctx.args)):
        try:
            specs.append(EngineSpec.parse(value, words))
        except ValueError as exc:
            fail("arena.bad_engine", "--engine", str(exc))
    if not specs:
        fail("cli.usage", "--engine", "give --engine NAME=COMMAND for each player")
    if nodes is not None and time_control is not None:
        fail("cli.usage", "--nodes/--time-control", "give one run-level limit, not both")
    limit = RunLimit(nodes=nodes) if nodes is not None else None
    if time_control is not None:
        try:
            limit = RunLimit.parse_time_control(time_control)
        except ValueError as exc:
            fail("arena.bad_time_control", "--time-control", str(exc))
    book = []
    if openings is not None:
        try:
            book = read_openings(openings)
        except (OSError, OpeningsError) as exc:
            fail("arena.bad_openings", "--openings", str(exc))
    config = ArenaConfig(specs, limit, concurrency, book, rounds, grace, stage)
    with local_log(backend, db) as log:
        actor = local_actor(as_, token, tournament)
        runner = Arena(
            CommandService(log), tournament, actor, config, progress=None if as_json else out.print
        )
        report = runner.run()
    if as_json:
        print_json(
            {
                "tournament_id": report.tournament_id,
                "rounds_paired": report.rounds_paired,
                "stopped": report.stopped,
                "games": [vars(g) for g in report.games],
            }
        )
        return
    out.print(f"[bold]{tournament}[/bold]: arena stopped: {report.stopped}")


def evaluation_text(evaluation: dict[str, Any] | None) -> str:
    """An evaluation as a broadcast shows it, White's point of view: "+0.28 d25", "#-3"."""
    if evaluation is None:
        return ""
    if evaluation.get("mate_in") is not None:
        text = f"#{evaluation['mate_in']}"
    else:
        text = f"{evaluation['cp'] / 100:+.2f}"
    depth = evaluation.get("depth")
    return f"{text} d{depth}" if depth is not None else text


def clocks_text(clocks: dict[str, int | None]) -> str:
    """Both clocks, White's first ("4:07 – 3:58"); "" when neither was read (a node limit)."""
    white, black = clocks["white_ms"], clocks["black_ms"]
    return "" if white is None and black is None else f"{clock(white)} – {clock(black)}"


def state_text(game: dict[str, Any]) -> str:
    """A game's state in words: "playing", "finished: 1-0 engine crash (tcec-rules Leagues
    14.2)", "crashed: Crasher's engine at ply 4: the process died (exit code 3)…"."""
    words = str(game["state"])
    if game["state"] == "finished":
        words = f"finished: {shown_result(game['result'], game['termination'])} {game['ending']}"
    for crash in game["crashes"]:
        seen = " ".join(crash["detail"].split()) or "no detail recorded"
        at = f" at ply {crash['ply']}" if crash["ply"] is not None else ""
        words += f"; {crash['name']}'s engine crashed{at}: {seen}"
    return words


def arena_status(
    tournament: str,
    as_json: AsJson = False,
    at: At = None,
    backend: Backend = None,
    db: Db = None,
) -> None:
    """The arena's games as a person follows them (projections/arena.py): players, moves so
    far, clocks, the last evaluation, and each game's state: pending, playing, finished (the
    ending with its rule) or crashed (what was seen: exit code, last lines of stderr); below,
    the run limits the arena played under.

    Example: arbiter arena-status tcec-s1"""
    from rich.table import Table

    from projections.arena import arena_status as status_of

    status = status_of(tournament_records(tournament, "arena", at, backend, db))
    if as_json:
        print_json(status)
        return
    counts = ", ".join(f"{n} {s}" for s, n in status["counts"].items() if n)
    t = Table(title=f"Arena: {tournament} (as of seq {status['seq']}): {counts or 'no games'}")
    for col in ("round", "white", "black", "moves", "clocks", "eval", "state"):
        t.add_column(col, justify="right" if col in ("round", "moves") else "left")
    for g in status["games"]:
        last = g["last_move"]
        moves = str(g["plies"])
        if last is not None and g["state"] == "playing":
            moves += f" ({last['san'] or last['uci'] or last['point']})"
        cells = [
            str(g["round"]) if g["stage"] == "main" else f"{g['stage']} {g['round']}",
            g["white"]["name"],
            g["black"]["name"],
            moves,
            clocks_text(g["clocks"]),
            evaluation_text(g["evaluation"]),
            state_text(g),
        ]
        t.add_row(*(escape(c) for c in cells))
    out.print(t)
    limits = status["limits"]
    out.print(f"limit in force: {escape(limits['in_force']['text'])}")
    for ruling in limits["rulings"]:
        out.print(f"  seq {ruling['seq']}: {escape(ruling['text'])}")
    for g in status["games"]:
        if g["clock_note"]:
            out.print(f"{g['game_id']}: {escape(g['clock_note'])}")


def register(app: typer.Typer) -> None:
    """Add `arena` (extra words: the --engine groups) and `arena-status` to the `arbiter`
    app."""
    app.command(
        "arena", context_settings={"allow_extra_args": True, "ignore_unknown_options": True}
    )(arena)
    app.command("arena-status")(arena_status)
