"""The arena survives kill -9 (issue 25): `arbiter arena` run as a process, its process group
killed with SIGKILL (the arena and its engines: a power cut) once a game is well under way,
then started again: the tournament completes, no move is lost (every move logged before the
kill is still the game's), none is played twice (per game, plies 1..n contiguous; no event id
twice), and the game cut off is a server interruption adjudicated by the preset's rule (TCEC
Leagues 14.1: a restart from the position reached, scenario 5)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests_support import ADMIN_ACTOR, append_events

from events_schema import Recorded
from events_schema import events as ev
from services.arena.arena import Arena, ArenaConfig, event_id
from services.arena.engines import EngineSpec
from services.commands.pairing import pair_next
from services.commands.service import CommandService
from services.eventlog.sqlite import SQLiteEventLog

ROOT = Path(__file__).resolve().parents[3]
ENGINE = ROOT / "tests" / "engines" / "uci_engine.py"
T = "arena-kill"
CLI = "import sys; from services.cli.main import main; sys.argv[0] = 'arbiter'; main()"
PLAYERS = ["p1", "p2", "p3", "p4"]


def _create(db: Path) -> None:
    players = [ev.PlayerRegistered(player_id=p, name=p.upper(), kind="engine") for p in PLAYERS]
    created = ev.TournamentCreated(name="Kill", format="round_robin", rules_preset="tcec-league")
    append_events(db, T, created, *players)


def _args(db: Path, pace_ms: int) -> list[str]:
    args = [sys.executable, "-c", CLI, "arena", T, "--db", str(db), "--nodes", "10"]
    for p in PLAYERS:
        args += ["--engine", f"{p}={sys.executable} {ENGINE} paced {pace_ms}"]
    return [*args, "--concurrency", "2"]


def _records(db: Path) -> list[Recorded]:
    log = SQLiteEventLog(db)
    try:
        return [Recorded.of(e) for e in log.read(T, 1)]
    finally:
        log.close()


def _moves(records: list[Recorded]) -> dict[str, list[ev.MovePlayed]]:
    found: dict[str, list[ev.MovePlayed]] = {}
    for r in records:
        if isinstance(r.event, ev.MovePlayed):
            found.setdefault(r.event.game_id, []).append(r.event)
    return found


@pytest.mark.slow
def test_kill_9_in_mid_game_then_again_completes_the_tournament_nothing_lost_or_repeated(
    tmp_path: Path,
) -> None:
    db = tmp_path / "events.sqlite3"
    _create(db)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ARBITER_DATA": str(tmp_path)}
    proc = subprocess.Popen(
        _args(db, 20),
        cwd=ROOT,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            records = _records(db) if db.exists() else []
            ended = {r.event.game_id for r in records if isinstance(r.event, ev.GameEnded)}
            going = {g: m for g, m in _moves(records).items() if g not in ended}
            if any(len(m) >= 12 for m in going.values()):
                break
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.05)
        else:
            pytest.fail("no game reached 12 plies")
        os.killpg(proc.pid, signal.SIGKILL)  # the arena and its engines: a power cut
        proc.wait(10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        if proc.stderr:
            proc.stderr.close()
    before = _records(db)
    ended_before = {r.event.game_id for r in before if isinstance(r.event, ev.GameEnded)}
    cut = {g: [m.uci for m in ms] for g, ms in _moves(before).items() if g not in ended_before}
    assert cut  # at least one game was cut off in the middle

    again = subprocess.run(_args(db, 1), cwd=ROOT, env=env, capture_output=True, timeout=240)
    assert again.returncode == 0, again.stderr.decode()[-3000:]

    after = _records(db)
    ids = [r.envelope.event_id for r in after]
    assert len(ids) == len(set(ids))
    scheduled = [r.event for r in after if isinstance(r.event, ev.RoundScheduled)]
    assert [r.round for r in scheduled] == [1, 2, 3]
    games = {p.game_id for r in scheduled for p in r.pairings}
    endings = [r.event for r in after if isinstance(r.event, ev.GameEnded)]
    assert sorted(e.game_id for e in endings) == sorted(games)  # each ended once
    moves = _moves(after)
    for gid, ms in moves.items():
        assert [m.ply for m in ms] == list(range(1, len(ms) + 1)), gid
    for gid, ucis in cut.items():
        assert [m.uci for m in moves[gid]][: len(ucis)] == ucis  # nothing lost or replaced
    interruptions = [r.event for r in after if isinstance(r.event, ev.ServerInterrupted)]
    assert {i.game_id for i in interruptions} == set(cut)
    rulings = [r.event for r in after if isinstance(r.event, ev.AdjudicationIssued)]
    for i in interruptions:
        assert i.ply == len(cut[i.game_id])
        (rule,) = [a for a in rulings if a.game_id == i.game_id]
        assert rule.rule.startswith("tcec-rules Leagues 14.1")
        if rule.outcome == "restart":  # played on from the position reached
            assert rule.restart_from_ply == i.ply and len(moves[i.game_id]) > i.ply


def test_a_resent_move_after_a_lost_answer_appends_nothing(tmp_path: Path) -> None:
    """A crash between the append and its answer: the arena proposes the same events with the
    same ids again; the command path answers with what was stored."""
    db = tmp_path / "events.sqlite3"
    _create(db)
    log = SQLiteEventLog(db)
    try:
        service = CommandService(log)
        engine = f"{sys.executable} {ENGINE} random"
        config = ArenaConfig([EngineSpec.parse(f"{p}={engine}") for p in PLAYERS])
        arena = Arena(service, T, ADMIN_ACTOR, config)
        rnd = pair_next(service, T, ADMIN_ACTOR).round
        gid = rnd.pairings[0].game_id
        started = ev.GameStarted(game_id=gid)
        move = ev.MovePlayed(game_id=gid, ply=1, colour="white", uci="e2e4", move_time_ms=5)
        batch = [(started, event_id(T, gid, "start")), (move, event_id(T, gid, "ply:1"))]
        first = arena.append(batch)
        count = len(list(log.read(T, 1)))
        second = arena.append(batch)
        assert second.duplicate and not first.duplicate
        assert [e.seq for e in second.envelopes] == [e.seq for e in first.envelopes]
        assert len(list(log.read(T, 1))) == count
    finally:
        log.close()
