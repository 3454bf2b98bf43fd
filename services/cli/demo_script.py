"""The main job: a seven-player Swiss on the embedded log, run as an organiser would: each round
paired by the tournament's system (FIDE Dutch, `services/commands/pairing.py`, what `arbiter pair`
runs) with its lots recorded, results entered through the real command path (decide ->
append), refused commands, a correction after the next round was paired (flagged, not
re-paired), a forfeit, then the standings. Run with `arbiter demo`."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from events_schema import GENESIS_HASH, Actor, Command, CommandBatch, Recorded
from events_schema import events as ev
from projections.documents import corrections_after_pairing
from projections.standings import fold, standings
from services.cli.render import print_standings
from services.commands.pairing import pair_next
from services.commands.service import CommandRejected, CommandService
from services.config import Settings
from services.eventlog.sqlite import SQLiteEventLog
from services.projection.projector import Projector

TID = "demo-open-2026"
ARBITER = Actor(id="arbiter:demo", role="arbiter")
ADMIN = Actor(id="admin:demo", role="admin")
PLAYERS = [
    ("ana", "Ana Ortega", 2612),
    ("bram", "Bram de Vries", 2587),
    ("chen", "Chen Wei", 2555),
    ("dara", "Dara Okafor", 2530),
    ("eli", "Eli Navarro", 2498),
    ("fen", "Fen Lindqvist", 2461),
    ("gus", "Gus Moreau", 2420),
]
RATING = {p: r for p, _, r in PLAYERS}
NAME = {p: n for p, n, _ in PLAYERS}
ROUNDS = 4
SCHOLARS_MATE = ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"]


def _cmd(type_: str, **payload: Any) -> Command:
    return Command(type=type_, payload=payload)


def _expected(white: str, black: str, rnd: int) -> str:
    """The demo's results: the higher rated wins, except close games in even rounds."""
    if rnd % 2 == 0 and abs(RATING[white] - RATING[black]) < 60:
        return "1/2-1/2"
    return "1-0" if RATING[white] > RATING[black] else "0-1"


def run_demo(db: Path, out: Console) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    log = SQLiteEventLog(db, synchronous=Settings.from_env().sqlite_synchronous)
    service = CommandService(log)

    def show(envs: Any) -> None:
        for env in envs:
            out.print(f"  [dim]#{env.seq:<3}[/dim] {env.type:<18} {_brief(env.payload)}")

    def send(actor: Actor, *cmds: Command) -> list[Any]:
        result = service.handle(TID, CommandBatch(commands=list(cmds)), actor)
        show(result.envelopes)
        return result.envelopes

    def pair(rnd: int) -> ev.RoundScheduled:
        # What `arbiter pair` does: the tournament's system (FIDE Dutch here) proposes the
        # round from the results in force; its lots and the round are appended in one batch.
        paired = pair_next(service, TID, ARBITER, expected_round=rnd, seed=f"demo-{rnd}")
        for lot in paired.lots:
            out.print(f"  lot: {lot.purpose} {lot.subject} -> {' '.join(lot.outcome)}")
        for i, p in enumerate(paired.round.pairings, start=1):
            out.print(f"  board {i}: {NAME[p.white]} – {NAME[p.black]}  [dim]{p.game_id}[/dim]")
        for b in paired.round.byes:
            out.print(f"  bye ({b.kind}): {NAME[b.player_id]}")
        first, last = paired.seqs[0], paired.seqs[-1]
        where = f"seq {first}" if first == last else f"seqs {first}–{last} (lots first)"
        out.print(f"  [dim]appended at {where}[/dim]")
        return paired.round

    out.rule(f"[bold]Arbiter demo[/bold]: a {len(PLAYERS)}-player Swiss on the embedded log")
    out.print(f"event log: {db} (SQLite, WAL)\n")
    send(
        ADMIN,
        _cmd(
            "TournamentCreated",
            name="Demo Open 2026",
            game="chess",
            format="swiss",
            rounds=ROUNDS,
            rules_preset="fide-swiss",
            time_controls=[{"name": "rapid", "base_seconds": 900, "increment_seconds": 10}],
        ),
        *[_cmd("PlayerRegistered", player_id=p, name=n, rating=r) for p, n, r in PLAYERS],
    )
    wrong_event_id = None
    corrected_game = ""
    for rnd in range(1, ROUNDS + 1):
        out.print(f"\n[bold]Round {rnd}[/bold]: arbiter pair")
        scheduled = pair(rnd)
        if rnd == 1:
            out.print("  pairing again before the results are in is refused:")
            try:
                pair_next(service, TID, ARBITER)
            except CommandRejected as exc:
                out.print(f"  [red]refused[/red] {exc.rule} ({exc.field}): {exc.message}")
        for board, p in enumerate(scheduled.pairings, start=1):
            res = _expected(p.white, p.black, rnd)
            if rnd == 1 and board == 1:
                out.print(f"  {p.game_id} is played move by move:")
                moves = [
                    _cmd(
                        "MovePlayed",
                        game_id=p.game_id,
                        ply=i,
                        colour="white" if i % 2 else "black",
                        uci=u,
                    )
                    for i, u in enumerate(SCHOLARS_MATE, start=1)
                ]
                envs = send(ARBITER, *moves)
                ended = envs[-1].payload
                out.print(
                    f"  the last move ended it by rule: {ended['result']} "
                    f"{ended['termination']} ({ended['rule']}), in the same batch"
                )
                continue
            if rnd == 1 and board == 2:
                # entered by mistake; corrected after round 2 is paired
                wrong = send(
                    ARBITER,
                    _cmd("GameEnded", game_id=p.game_id, result="1-0", termination="resignation"),
                )
                wrong_event_id, corrected_game = wrong[0].event_id, p.game_id
                out.print("  [dim](entered by mistake: the scoresheet says 0-1)[/dim]")
                continue
            if rnd == ROUNDS and board == len(scheduled.pairings):
                send(
                    ARBITER,
                    _cmd(
                        "GameEnded",
                        game_id=p.game_id,
                        result="1-0",
                        termination="forfeit",
                        detail=f"{NAME[p.black]} did not arrive",
                    ),
                )
                continue
            send(ARBITER, _cmd("GameEnded", game_id=p.game_id, result=res, termination=_term(res)))
            if rnd == 1 and board == 3:
                out.print("  a second result for a finished game is refused:")
                try:
                    send(
                        ARBITER,
                        _cmd(
                            "GameEnded", game_id=p.game_id, result="0-1", termination="resignation"
                        ),
                    )
                except CommandRejected as exc:
                    out.print(f"  [red]refused[/red] {exc.rule} ({exc.field}): {exc.message}")
        if rnd == 2 and wrong_event_id is not None:
            out.print(
                f"\n[bold]A correction after round 2 was paired[/bold]: {corrected_game} was 0-1"
            )
            send(
                ADMIN,
                _cmd(
                    "ResultCorrected",
                    corrects_event_id=str(wrong_event_id),
                    game_id=corrected_game,
                    result="0-1",
                    termination="resignation",
                    reason="both players signed a scoresheet showing 0-1",
                ),
            )
            out.print("  round 2 stands as published; the standings flag it for the arbiter")

    out.print()
    state = fold([Recorded.of(e) for e in log.read(TID)])
    print_standings(TID, standings(state), out)
    for flag in corrections_after_pairing(state):
        out.print(f"[yellow]flag[/yellow] {flag['kind']}: {flag['text']}")
    envs = list(log.read(TID))
    prev = GENESIS_HASH
    for env in envs:
        assert env.prev_hash == prev and env.computed_hash() == env.hash, f"broken at {env.seq}"
        prev = env.hash
    out.print(f"{len(envs)} events, hash chain verified; head {prev[:16]}…")
    # The same projections the live feed and the Kafka processors publish, run in-process
    # over the embedded log (services/projection/projector.py), one message per projection.
    messages = Projector().run(envs)
    published = ", ".join(f"{m.projection} (as of seq {m.as_of_seq})" for m in messages)
    out.print(f"embedded projections published: {published}")
    cli = os.path.relpath(sys.argv[0]) if sys.argv and sys.argv[0] else "arbiter"
    out.print(f"inspect them: {cli} events {TID} --db {db}")
    out.print(f"             {cli} schedule {TID} --db {db}")
    out.print(f"             {cli} explain {TID} ana bram --db {db}")
    out.print(
        f"live page:   {cli} token create --role broadcaster; ARBITER_DB={db} {cli} serve; "
        f"open http://127.0.0.1:8000/tournaments/{TID}/live?token=<token>"
    )
    log.close()


def _term(res: str) -> str:
    return "agreement" if res == "1/2-1/2" else "resignation"


def _brief(payload: dict[str, Any]) -> str:
    keys = (
        "name",
        "player_id",
        "game_id",
        "round",
        "san",
        "result",
        "termination",
        "rule",
        "reason",
    )
    parts = [str(payload[k]) for k in keys if k in payload]
    return " ".join(parts)[:90]
