"""The adjudicator processor (`arbiter processor adjudicator`): games ended by rule for arenas
that append moves straight to the log, sent back through the command path.

First its core on a SQLite log (what the Faust agent does, by hand: fold, send, settle), then
the real thing as a subprocess against the real broker (KAFKA_BOOTSTRAP; skipped without it):
mate and the TCEC draw rule in a tournament with adjudication "manual", once each across
kill -9, restart and redelivery; a poison event that holds its own tournament only; Gaviota
tablebase endings (skipped without the tables: apt-get install gaviotatb).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import orjson
import pytest
from builders import created, move, new_event, player, round_
from kafka import KafkaProducer
from tests_support import (
    ADMIN_ACTOR,
    fresh_kafka_log,
    processor_args,
    read_topic,
    tail_logs,
    terminate,
)

from events_schema import Command, CommandBatch, Envelope, Event
from events_schema import events as ev
from events_schema.envelope import envelope_from_bytes
from events_schema.registry import encode_payload
from projections.endings.tablebase import WDL
from services.commands.service import CommandService
from services.eventlog.base import utcnow
from services.eventlog.kafka import KafkaEventLog, partition_for
from services.eventlog.sqlite import SQLiteEventLog
from services.projection.processors.adjudicator import AdjudicatorCore, Candidate, command_id
from services.projection.processors.config import ADJUDICATOR, ProcessorConfig

REPO = Path(__file__).resolve().parents[3]
GAVIOTA = Path("/usr/share/gaviotatb/gtb4")

CHECKMATE = "tcec-rules Leagues 10.4"
DRAW_RULE = "tcec-rules Leagues 10.2"
TABLEBASE = "tcec-rules Leagues 10.3"
FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]  # 0-1 at ply 4
PAWNS_FEN = "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1"  # 2 non-pawn men: the draw rule counts
QUIET = ["a2a3", "a7a6", "b2b3", "b7b6", "c2c3", "c7c6", "d2d3", "d7d6"]  # 8 plies, no repetition
KQ_KR_FEN = "3r3k/8/8/8/8/8/8/3Q2K1 w - - 0 1"  # Qxd8+ leaves KQ v K, Black to move: 1-0


def tournament(*games: tuple[str, str, str], adjudication: str = "manual") -> list[Event]:
    players = sorted({p for _g, w, b in games for p in (w, b)})
    return [
        created(fmt="league", rules_preset="tcec-league", adjudication=adjudication),
        *(player(p) for p in players),
        round_(1, *games),
    ]


def moves(game_id: str, ucis: list[str], **kw: Any) -> list[ev.MovePlayed]:
    return [move(game_id, i, uci, **kw) for i, uci in enumerate(ucis, start=1)]


def endings(envs: list[Envelope]) -> dict[tuple[str, str], list[Envelope]]:
    out: dict[tuple[str, str], list[Envelope]] = {}
    for env in envs:
        if env.type == "GameEnded":
            out.setdefault((env.tournament_id, env.payload["game_id"]), []).append(env)
    return out


def move_id(envs: list[Envelope], tid: str, game_id: str, ply: int) -> uuid.UUID:
    return next(
        e.event_id
        for e in envs
        if e.tournament_id == tid
        and e.type == "MovePlayed"
        and e.payload["game_id"] == game_id
        and e.payload["ply"] == ply
    )


def check_ending(
    envs: list[Envelope], tid: str, game_id: str, ply: int, result: str, term: str, rule: str
) -> None:
    """Exactly one GameEnded for the game: the rule's, sent by the adjudicator for the move
    at `ply`."""
    found = endings(envs).get((tid, game_id), [])
    assert len(found) == 1, f"{tid}/{game_id}: {len(found)} GameEnded"
    env = found[0]
    assert (env.payload["result"], env.payload["termination"], env.payload["rule"]) == (
        result,
        term,
        rule,
    )
    assert env.payload["detail"].startswith(f"ply {ply}: ")
    mid = move_id(envs, tid, game_id, ply)
    assert env.event_id == command_id(mid) == uuid.uuid5(mid, "adjudicator")
    assert env.causation_id == mid
    assert env.actor.id == "processor:adjudicator" and env.actor.role == "system"


class ThreeMen:
    """A stand-in prober: with three men on the board the side to move loses."""

    def probe_wdl(self, board: chess.Board) -> WDL | None:
        return "loss" if board.occupied.bit_count() == 3 else None


# -- the core on a SQLite log ---------------------------------------------------------------


class Rig:
    """The adjudicator's core as the Faust agent drives it, on a SQLite log: the arena appends
    to the log directly, `pump` delivers what is new (or everything again), folds and sends."""

    def __init__(self, tmp: Path, prober: Any = None) -> None:
        self.log = SQLiteEventLog(tmp / "events.sqlite3")
        self.prober = prober
        self.core = self.restart()

    def restart(self) -> AdjudicatorCore:
        """A fresh core (a new process): it has folded nothing."""
        self.core = AdjudicatorCore(ProcessorConfig(ADJUDICATOR), self.prober, lambda: self.log)
        self.fed = 0
        return self.core

    def arena(self, tid: str, events: list[Event]) -> None:
        for e in events:  # one append per move, as an arena writes them
            self.log.append(tid, [new_event(e)])

    def envelopes(self) -> list[Envelope]:
        return list(self.log.read_all())

    def pump(self, everything: bool = False, one_by_one: bool = False) -> None:
        """Deliver what is new (`everything`: all again), in one batch or one batch per
        event, and send what each batch leaves pending."""
        if everything:
            self.fed = 0
        while True:
            new = self.envelopes()[self.fed :]
            if not new:
                return
            self.fed += len(new)
            for batch in [[e] for e in new] if one_by_one else [new]:
                self.core.send_now(
                    self.core.fold((e.tournament_id.encode(), e.to_bytes()) for e in batch)
                )


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    r = Rig(tmp_path)
    yield r
    r.log.close()


def test_core_ends_manual_games_by_rule_once(rig: Rig):
    rig.arena("t1", tournament(("g1", "a", "b"), ("g2", "c", "d"), ("g3", "e", "f")))
    rig.arena("t1", [ev.GameStarted(game_id="g2", fen=PAWNS_FEN)])
    rig.arena("t1", moves("g1", FOOLS_MATE))
    rig.arena("t1", moves("g2", QUIET, eval_cp=0))
    rig.arena("t1", moves("g3", FOOLS_MATE[:3]))  # not over
    rig.pump()
    envs = rig.envelopes()
    check_ending(envs, "t1", "g1", 4, "0-1", "checkmate", CHECKMATE)
    check_ending(envs, "t1", "g2", 8, "1/2-1/2", "tcec_draw_rule", DRAW_RULE)
    assert ("t1", "g3") not in endings(envs)
    assert rig.core.stats["appended"] == 2

    # Redelivery of everything, then a new process folding the whole log: nothing new.
    rig.pump(everything=True)
    assert rig.core.duplicates >= len(envs)
    core = rig.restart()
    rig.pump()
    assert core.pending() == []
    assert core.stats["appended"] == core.stats["already_stored"] == core.stats["refused"] == 0
    assert len(rig.envelopes()) == len(envs)

    # Even a resend of the same ending appends nothing: the command path knows its id.
    stored = endings(envs)[("t1", "g1")][0]
    mid = move_id(envs, "t1", "g1", 4)
    ending = core.streams["t1"].watches["g1"].ending
    assert ending is not None
    core.handled.clear()
    sent = core.send([Candidate("t1", "g1", mid, ending)])
    assert [s.outcome for s in sent] == ["already_stored"]
    assert len(rig.envelopes()) == len(envs) and stored.event_id == command_id(mid)


def test_core_refusal_is_logged_and_skipped(rig: Rig):
    rig.arena("t1", tournament(("g1", "a", "b")))
    rig.arena("t1", moves("g1", FOOLS_MATE))
    new = [(e.tournament_id.encode(), e.to_bytes()) for e in rig.envelopes()]
    rig.fed = len(new)
    candidates = rig.core.fold(new)
    assert [c.game_id for c in candidates] == ["g1"]
    # A person ends the game before the ending is sent (the command path's race).
    CommandService(rig.log).handle(
        "t1",
        CommandBatch(
            commands=[
                Command(
                    type="GameEnded",
                    payload=encode_payload(
                        ev.GameEnded(game_id="g1", result="1-0", termination="resignation")
                    ),
                )
            ]
        ),
        ADMIN_ACTOR,
    )
    sent = rig.core.send(candidates)
    assert [(s.outcome, s.detail.split(":")[0]) for s in sent] == [
        ("refused", "game.already_ended")
    ]
    rig.core.settle(sent)
    rig.pump()  # the resignation is folded; nothing is tried again
    assert rig.core.stats["refused"] == 1 and rig.core.stats["appended"] == 0
    assert rig.core.status()["refusals"][0]["refusal"].startswith("game.already_ended")
    assert rig.core.pending() == []
    [only] = endings(rig.envelopes())[("t1", "g1")]
    assert only.payload["termination"] == "resignation"

    # The admin retracts the resignation: the game has no result in force, but its ending
    # was met by a result, so it is the arbiter's now (as evolve reads an overruled ending),
    # also for a new process that folds the whole log.
    CommandService(rig.log).handle("t1", CommandBatch(commands=[_retract(only)]), ADMIN_ACTOR)
    rig.pump()
    rig.restart()
    rig.pump()
    assert rig.core.streams["t1"].state.games["g1"].results == []
    assert rig.core.pending() == [] and rig.core.stats["appended"] == 0


def test_core_a_retracted_ending_is_the_arbiters(rig: Rig):
    rig.arena("t1", tournament(("g1", "a", "b")))
    rig.arena("t1", moves("g1", FOOLS_MATE))
    rig.pump()
    [sent] = endings(rig.envelopes())[("t1", "g1")]
    # The admin overrules it: retracted, the game has no result in force.
    CommandService(rig.log).handle("t1", CommandBatch(commands=[_retract(sent)]), ADMIN_ACTOR)
    rig.pump()
    assert rig.core.pending() == []
    rig.restart()  # nor after a restart, which folds the whole log
    rig.pump()
    assert rig.core.pending() == [] and rig.core.stats["appended"] == 0
    assert len(endings(rig.envelopes())[("t1", "g1")]) == 1


def test_core_in_rules_tournaments_only_tablebase_endings(tmp_path: Path):
    rig = Rig(tmp_path, prober=ThreeMen())
    try:
        service = CommandService(rig.log)
        for e in [
            *tournament(("g1", "a", "b"), ("g2", "c", "d"), adjudication="rules"),
            ev.GameStarted(game_id="g2", fen=KQ_KR_FEN),
        ]:
            service.handle("r1", CommandBatch(commands=[_cmd(e)]), ADMIN_ACTOR)
        # Through the command path: the mate ends g1 there, in the move's batch; Qxd8+ does
        # not end g2 (the decider has no tables).
        for m in [*moves("g1", FOOLS_MATE), *moves("g2", ["d1d8"])]:
            service.handle("r1", CommandBatch(commands=[_cmd(m)]), ADMIN_ACTOR)
        before = endings(rig.envelopes())
        assert [k for k in before] == [("r1", "g1")]
        # One event per batch: the mate is folded before the GameEnded appended with it.
        rig.pump(one_by_one=True)
        envs = rig.envelopes()
        check_ending(envs, "r1", "g2", 1, "1-0", "tablebase", TABLEBASE)
        assert endings(envs)[("r1", "g1")] == before[("r1", "g1")]  # untouched
        assert rig.core.stats["appended"] == 1 and rig.core.stats["refused"] == 0

        # Without tables the processor leaves rules tournaments alone.
        core = AdjudicatorCore(ProcessorConfig(ADJUDICATOR), None, lambda: rig.log)
        core.fold((e.tournament_id.encode(), e.to_bytes()) for e in envs)
        assert core.streams["r1"].watches == {} and core.pending() == []
    finally:
        rig.log.close()


def test_core_poison_holds_its_tournament_only(rig: Rig):
    rig.arena("bad", tournament(("g1", "a", "b")))
    rig.arena("bad", moves("g1", FOOLS_MATE[:3]))
    rig.arena("ok", tournament(("g1", "a", "b")))
    rig.pump()
    core = rig.core
    seq = core.streams["bad"].state.seq
    poison = [(b"bad", b"\x00 not an event")]
    last = new_event(moves("g1", FOOLS_MATE)[3]).sealed("bad", seq + 2, "0" * 64, utcnow())
    assert core.fold([*poison, (b"bad", last.to_bytes())]) == []  # held: nothing to send
    assert core.status()["unreadable"]["bad"]["seq"] == seq + 1
    assert core.streams["bad"].watches["g1"].ending is not None  # found, not sent
    rig.arena("ok", moves("g1", FOOLS_MATE))
    rig.pump()
    check_ending(rig.envelopes(), "ok", "g1", 4, "0-1", "checkmate", CHECKMATE)
    assert core.pending() == []


def _cmd(e: Event) -> Command:
    return Command(type=e.event_type, payload=encode_payload(e))


def _retract(env: Envelope) -> Command:
    return _cmd(ev.EventRetracted(retracted_event_id=env.event_id, reason="overruled"))


# -- the processor on the real broker -------------------------------------------------------


class Adjudicator:
    """`arbiter processor adjudicator` as a subprocess."""

    def __init__(self, bootstrap: str, topic: str, tmp: Path) -> None:
        self.bootstrap, self.topic, self.tmp = bootstrap, topic, tmp
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self, *extra: str) -> None:
        self.starts += 1
        (self.tmp / ADJUDICATOR / "status.json").unlink(missing_ok=True)
        with open(self.tmp / f"adjudicator.{self.starts}.log", "wb") as logf:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    *processor_args(
                        ADJUDICATOR, self.bootstrap, self.topic, self.tmp, *extra, batch=None
                    ),
                ],
                cwd=REPO,
                stdout=logf,
                stderr=subprocess.STDOUT,
            )

    def status(self) -> dict[str, Any] | None:
        try:
            return dict(orjson.loads((self.tmp / ADJUDICATOR / "status.json").read_bytes()))
        except (FileNotFoundError, orjson.JSONDecodeError):
            return None

    def wait_status(self, pred: Any, timeout: float = 45) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            assert self.proc is not None and self.proc.poll() is None, self.logs()
            st = self.status()
            if st is not None and st["pid"] == self.proc.pid and pred(st):
                return st
            assert time.monotonic() < deadline, f"status {st}\n{self.logs()}"
            time.sleep(0.2)

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            terminate(self.proc)
            self.proc = None

    def logs(self) -> str:
        return tail_logs(self.tmp)


def _envelopes(bootstrap: str, topic: str) -> list[Envelope]:
    """The decodable envelopes, each (tournament, seq) once (raw copies dropped)."""
    seen: set[tuple[str, int]] = set()
    out = []
    for rec in read_topic(bootstrap, topic):
        try:
            env = envelope_from_bytes(rec.value)
        except Exception:
            continue  # the poison record
        if (env.tournament_id, env.seq) not in seen:
            seen.add((env.tournament_id, env.seq))
            out.append(env)
    return out


def wait_endings(
    bootstrap: str, topic: str, want: set[tuple[str, str]], proc: Adjudicator, timeout: float = 30
) -> list[Envelope]:
    deadline = time.monotonic() + timeout
    while True:
        envs = _envelopes(bootstrap, topic)
        if want <= set(endings(envs)):
            return envs
        assert proc.proc is not None and proc.proc.poll() is None, proc.logs()
        assert time.monotonic() < deadline, f"no ending for {want - set(endings(envs))}\n" + (
            proc.logs()
        )
        time.sleep(0.2)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[tuple[str, str, KafkaEventLog, Adjudicator]]:
    with fresh_kafka_log("adj", 3) as (bootstrap, topic, log):
        proc = Adjudicator(bootstrap, topic, tmp_path)
        try:
            yield bootstrap, topic, log, proc
        finally:
            proc.stop()


def _arena(log: KafkaEventLog, tid: str, events: list[Event]) -> None:
    for e in events:  # straight to the log, one append per event: no command path
        log.append(tid, [new_event(e)])


@pytest.mark.kafka
def test_manual_arena_endings_once_across_kill9_restart_and_redelivery(broker):
    bootstrap, topic, log, proc = broker
    games = (("g1", "a", "b"), ("g2", "c", "d"), ("g3", "e", "f"))
    _arena(log, "arena", [*tournament(*games), ev.GameStarted(game_id="g2", fen=PAWNS_FEN)])
    _arena(log, "arena", moves("g1", FOOLS_MATE))  # before the processor runs: the rebuild
    proc.start()
    wait_endings(bootstrap, topic, {("arena", "g1")}, proc)
    proc.wait_status(lambda st: st["agent_started_at"] is not None)
    _arena(log, "arena", moves("g2", QUIET, eval_cp=0))  # while it runs: the agent
    envs = wait_endings(bootstrap, topic, {("arena", "g2")}, proc)
    check_ending(envs, "arena", "g1", 4, "0-1", "checkmate", CHECKMATE)
    check_ending(envs, "arena", "g2", 8, "1/2-1/2", "tcec_draw_rule", DRAW_RULE)

    # kill -9; while it is down the arena mates in g3 and every record is delivered again
    # (raw copies: a broker-side redelivery as the consumer sees it).
    proc.kill9()
    _arena(log, "arena", moves("g3", FOOLS_MATE))
    records = read_topic(bootstrap, topic)
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
    for rec in records:
        producer.send(topic, key=rec.key, value=rec.value)
    producer.flush()
    producer.close()
    proc.start()
    envs = wait_endings(bootstrap, topic, {("arena", "g3")}, proc)
    # The copies, folded (as duplicates), and g3's ending counted.
    proc.wait_status(lambda st: st["duplicates"] >= len(records) and st["appended"] >= 1)
    time.sleep(1.0)  # let a (wrong) second append land before counting
    envs = _envelopes(bootstrap, topic)
    check_ending(envs, "arena", "g1", 4, "0-1", "checkmate", CHECKMATE)
    check_ending(envs, "arena", "g2", 8, "1/2-1/2", "tcec_draw_rule", DRAW_RULE)
    check_ending(envs, "arena", "g3", 4, "0-1", "checkmate", CHECKMATE)
    st = proc.wait_status(lambda st: True)
    assert (st["appended"], st["refused"], st["send_errors"], st["pending"]) == (1, 0, 0, 0)
    assert st["gaps"] == 0 and st["held"] == {} and st["failed"] == {}


def plant_poison(log: KafkaEventLog, tid: str) -> None:
    """A record no reader can decode, as an older writer of ours would have stored it: in a
    transaction under the partition's transactional id, which fences the current writer (it
    re-reads the partition before its next append, so the poison takes its seq)."""
    part = partition_for(tid, log.partitions)
    producer = KafkaProducer(
        bootstrap_servers=log.bootstrap,
        transactional_id=f"{log.topic}-writer-p{part}",
        acks="all",
        enable_idempotence=True,
    )
    producer.init_transactions()
    producer.begin_transaction()
    producer.send(log.topic, key=tid.encode(), value=b"\x00 not an event", partition=part)
    producer.commit_transaction()
    producer.close()


@pytest.mark.kafka
def test_a_poison_event_holds_its_tournament_only(broker):
    bootstrap, topic, log, proc = broker
    _arena(log, "poisoned", tournament(("g1", "a", "b")))
    _arena(log, "poisoned", moves("g1", FOOLS_MATE[:3]))
    plant_poison(log, "poisoned")
    _arena(log, "poisoned", moves("g1", FOOLS_MATE)[3:])  # the mate, after the poison
    proc.start()
    st = proc.wait_status(lambda st: "poisoned" in st["unreadable"])
    _arena(log, "clean", tournament(("g1", "a", "b")))
    _arena(log, "clean", moves("g1", FOOLS_MATE))
    envs = wait_endings(bootstrap, topic, {("clean", "g1")}, proc)
    check_ending(envs, "clean", "g1", 4, "0-1", "checkmate", CHECKMATE)
    assert ("poisoned", "g1") not in endings(envs)

    # The admin retracts the poison (the remedy status.json names): the ending goes out.
    poison_id = st["unreadable"]["poisoned"]["event_id"]
    retract = ev.EventRetracted(retracted_event_id=uuid.UUID(poison_id), reason="poison")
    CommandService(log).handle("poisoned", CommandBatch(commands=[_cmd(retract)]), ADMIN_ACTOR)
    envs = wait_endings(bootstrap, topic, {("poisoned", "g1")}, proc)
    check_ending(envs, "poisoned", "g1", 4, "0-1", "checkmate", CHECKMATE)
    proc.wait_status(lambda st: st["unreadable"] == {} and st["appended"] >= 2)
    time.sleep(1.0)  # a (wrong) second send would be counted by now
    st = proc.wait_status(lambda st: True)
    assert (st["appended"], st["refused"], st["pending"]) == (2, 0, 0)
    assert len(endings(_envelopes(bootstrap, topic))[("poisoned", "g1")]) == 1


@pytest.mark.kafka
def test_gaviota_tablebase_endings(broker):
    if not (GAVIOTA / "kqk.gtb.cp4").is_file():
        pytest.skip(f"no Gaviota tables in {GAVIOTA} (apt-get install gaviotatb)")
    bootstrap, topic, log, proc = broker
    # An arena writing straight to the log, adjudication "manual" ...
    _arena(log, "tb-manual", tournament(("g1", "a", "b")))
    _arena(log, "tb-manual", [ev.GameStarted(game_id="g1", fen=KQ_KR_FEN)])
    # ... and the pure command path ("rules"), which has no tables.
    service = CommandService(log)
    for e in [
        *tournament(("g1", "a", "b"), adjudication="rules"),
        ev.GameStarted(game_id="g1", fen=KQ_KR_FEN),
    ]:
        service.handle("tb-rules", CommandBatch(commands=[_cmd(e)]), ADMIN_ACTOR)
    proc.start("--tablebases", str(GAVIOTA))
    st = proc.wait_status(lambda st: st["agent_started_at"] is not None)
    assert "Gaviota" in st["tablebases"]
    _arena(log, "tb-manual", moves("g1", ["d1d8"]))  # Qxd8+: KQ v K, Black to move
    service.handle("tb-rules", CommandBatch(commands=[_cmd(moves("g1", ["d1d8"])[0])]), ADMIN_ACTOR)
    envs = wait_endings(bootstrap, topic, {("tb-manual", "g1"), ("tb-rules", "g1")}, proc)
    for tid in ("tb-manual", "tb-rules"):
        check_ending(envs, tid, "g1", 1, "1-0", "tablebase", TABLEBASE)
        [ended] = endings(envs)[(tid, "g1")]
        assert "3 men, Black to move loses" in ended.payload["detail"]
