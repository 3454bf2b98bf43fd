"""The main job: a four-player round robin on the embedded log, through the real command path
(decide -> append), with a refused command, an admin correction and a forfeit, then the
standings. Run with `arbiter demo`."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from events_schema import GENESIS_HASH, Actor, Command, CommandBatch, Recorded
from projections.standings import fold, standings
from services.cli.render import print_standings
from services.commands import CommandRejected, CommandService
from services.eventlog.sqlite import SQLiteEventLog
from services.projector import Projector

TID = "demo-rr-2026"
ARBITER = Actor(id="arbiter:demo", role="arbiter")
ADMIN = Actor(id="admin:demo", role="admin")
PLAYERS = [
    ("ana", "Ana Ortega", 2612),
    ("bram", "Bram de Vries", 2587),
    ("chen", "Chen Wei", 2555),
    ("dara", "Dara Okafor", 2530),
]
SCHOLARS_MATE = ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"]


def _cmd(type_: str, **payload: Any) -> Command:
    return Command(type=type_, payload=payload)


def run_demo(db: Path, out: Console) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    log = SQLiteEventLog(db)
    service = CommandService(log)

    def send(actor: Actor, *cmds: Command) -> None:
        result = service.handle(TID, CommandBatch(commands=list(cmds)), actor)
        for env in result.envelopes:
            out.print(f"  [dim]#{env.seq:<3}[/dim] {env.type:<18} {_brief(env.payload)}")

    out.rule("[bold]Arbiter demo[/bold]: a 4-player round robin on the embedded log")
    out.print(f"event log: {db} (SQLite, WAL)\n")
    send(
        ADMIN,
        _cmd(
            "TournamentCreated",
            name="Demo Rapid 2026",
            game="chess",
            format="round_robin",
            rounds=3,
            rules_preset="fide-round-robin",
            time_controls=[{"name": "rapid", "base_seconds": 900, "increment_seconds": 10}],
        ),
        *[_cmd("PlayerRegistered", player_id=p, name=n, rating=r) for p, n, r in PLAYERS],
    )
    out.print("\n[bold]Round 1[/bold]")
    send(ARBITER, _round(1, ("r1-b1", "ana", "bram"), ("r1-b2", "chen", "dara")))
    moves = [
        _cmd("MovePlayed", game_id="r1-b1", ply=i, colour="white" if i % 2 else "black", uci=u)
        for i, u in enumerate(SCHOLARS_MATE, start=1)
    ]
    send(ARBITER, *moves)
    send(ARBITER, _cmd("GameEnded", game_id="r1-b1", result="1-0", termination="checkmate"))
    send(ARBITER, _cmd("GameEnded", game_id="r1-b2", result="1/2-1/2", termination="agreement"))

    out.print("\n[bold]A second result for a finished game is refused[/bold]")
    try:
        send(ARBITER, _cmd("GameEnded", game_id="r1-b2", result="1-0", termination="resignation"))
    except CommandRejected as exc:
        out.print(f"  [red]refused[/red] {exc.rule} ({exc.field}): {exc.message}")

    out.print("\n[bold]Round 2[/bold]")
    send(ARBITER, _round(2, ("r2-b1", "dara", "ana"), ("r2-b2", "bram", "chen")))
    send(ARBITER, _cmd("GameEnded", game_id="r2-b1", result="0-1", termination="resignation"))
    wrong = service.handle(
        TID,
        CommandBatch(
            commands=[_cmd("GameEnded", game_id="r2-b2", result="1-0", termination="resignation")]
        ),
        ARBITER,
    ).envelopes[0]
    out.print(f"  [dim]#{wrong.seq:<3}[/dim] GameEnded          r2-b2 1-0 (entered by mistake)")
    out.print("  an admin corrects it; history keeps both events:")
    send(
        ADMIN,
        _cmd(
            "ResultCorrected",
            corrects_event_id=str(wrong.event_id),
            game_id="r2-b2",
            result="1/2-1/2",
            termination="agreement",
            reason="both players signed a scoresheet showing a draw",
        ),
    )

    out.print("\n[bold]Round 3[/bold]")
    send(ARBITER, _round(3, ("r3-b1", "ana", "chen"), ("r3-b2", "bram", "dara")))
    send(ARBITER, _cmd("GameEnded", game_id="r3-b1", result="1/2-1/2", termination="agreement"))
    send(
        ARBITER,
        _cmd(
            "GameEnded",
            game_id="r3-b2",
            result="1-0",
            termination="forfeit",
            detail="Dara did not arrive",
        ),
    )

    out.print()
    print_standings(TID, standings(fold([Recorded.of(e) for e in log.read(TID)])), out)
    envs = list(log.read(TID))
    prev = GENESIS_HASH
    for env in envs:
        assert env.prev_hash == prev and env.computed_hash() == env.hash, f"broken at {env.seq}"
        prev = env.hash
    out.print(f"{len(envs)} events, hash chain verified; head {prev[:16]}…")
    # The same projections the live feed and the Kafka processors publish, run in-process
    # over the embedded log (services/projector.py), one message per projection.
    messages = Projector().run(envs)
    published = ", ".join(f"{m.projection} (as of seq {m.as_of_seq})" for m in messages)
    out.print(f"embedded projections published: {published}")
    cli = os.path.relpath(sys.argv[0]) if sys.argv and sys.argv[0] else "arbiter"
    out.print(f"inspect them: {cli} events {TID} --db {db}")
    out.print(f"             {cli} explain {TID} bram chen --db {db}")
    out.print(
        f"live page:   {cli} token create --role broadcaster; ARBITER_DB={db} {cli} serve; "
        f"open http://127.0.0.1:8000/tournaments/{TID}/live?token=<token>"
    )
    log.close()


def _round(n: int, *pairs: tuple[str, str, str]) -> Command:
    return _cmd(
        "RoundScheduled",
        round=n,
        pairings=[
            {"game_id": g, "white": w, "black": b, "time_control": "rapid"} for g, w, b in pairs
        ],
    )


def _brief(payload: dict[str, Any]) -> str:
    keys = ("name", "player_id", "game_id", "round", "san", "result", "termination", "reason")
    parts = [str(payload[k]) for k in keys if k in payload]
    return " ".join(parts)[:90]
