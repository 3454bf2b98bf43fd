"""Concurrent commands to one tournament through the command path share Kafka transactions
(issue 27 item 1: through the API each transaction held one event, because the tournament's
lock was held across the whole commit), while each command is still checked against the state
it is appended after. Against the real broker (`deploy/kafka/start`, KAFKA_BOOTSTRAP).

The first commit is held until every other command has been decided and queued behind it (or
a generous limit passes: with the lock held across the commit they never are), so the number
of transactions is counted, not timed: the first, then one for all the others.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import kafka_bootstrap
from tests_support import assert_chain

from events_schema import Actor, Command, CommandBatch
from services.commands.service import CommandRejected, CommandService
from services.eventlog.kafka import KafkaEventLog

pytestmark = pytest.mark.kafka

ARBITER = Actor(id="chief", role="admin")
N = 16  # players registered at once
TID = "pipelined"


@pytest.fixture
def log() -> Iterator[KafkaEventLog]:
    bootstrap = kafka_bootstrap()
    assert bootstrap is not None
    opened = KafkaEventLog(
        bootstrap, topic=f"arbiter.test.pipe.{uuid.uuid4().hex[:12]}", partitions=1
    )
    yield opened
    opened.close()


def _cmd(type_: str, **payload: Any) -> CommandBatch:
    return CommandBatch(commands=[Command(type=type_, payload=payload)])


def _register_all(
    log: KafkaEventLog,
    svc: CommandService,
    pids: list[str],
    while_held: Any = None,
    hold: bool = True,
) -> tuple[list[BaseException], list[CommandRejected], int]:
    """One thread per player id, the first commit held (`hold`) until the others are
    queued. Returns the errors, the refusals, and the transactions committed meanwhile."""
    part = log._parts[0]
    refused: list[CommandRejected] = []
    errors: list[BaseException] = []
    first = threading.Event()
    real = log._commit_group

    def held(p: Any, group: Any) -> None:
        if hold and not first.is_set():
            first.set()
            limit = time.monotonic() + 10  # never reached once appends are pipelined
            while len(part.queue) < len(pids) - 1 and time.monotonic() < limit:
                time.sleep(0.01)
            if while_held is not None:
                while_held()
        real(p, group)

    log._commit_group = held  # type: ignore[method-assign]
    before = part.transactions

    def register(pid: str) -> None:
        try:
            svc.handle(TID, _cmd("PlayerRegistered", player_id=pid, name=pid.title()), ARBITER)
        except CommandRejected as exc:
            refused.append(exc)
        except BaseException as exc:  # reported by the assertion
            errors.append(exc)

    threads = [threading.Thread(target=register, args=(pid,)) for pid in pids]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    del log._commit_group
    return errors, refused, part.transactions - before


PLAYERS = [f"p{i:02d}" for i in range(N)]


def _assert_stream(log: KafkaEventLog, players: list[str], extra: int = 0) -> None:
    envs = list(log.read(TID))
    assert_chain(envs)  # seqs 1..n, gapless, each linked to the previous hash
    assert len({e.event_id for e in envs}) == len(envs)  # nothing duplicated
    stored = sorted(e.payload["player_id"] for e in envs if e.type == "PlayerRegistered")
    assert stored == sorted(players)  # nothing lost
    assert len(envs) == 1 + len(players) + extra


def test_concurrent_commands_to_one_tournament_share_transactions(log: KafkaEventLog) -> None:
    svc = CommandService(log)
    svc.handle(TID, _cmd("TournamentCreated", name="Pipelined", format="swiss"), ARBITER)

    errors, refused, transactions = _register_all(log, svc, PLAYERS)

    assert errors == [] and refused == []
    # The first commit alone, then every other command, decided meanwhile, in one transaction
    # (with the tournament's lock held across each commit: one transaction per command).
    assert transactions == 2
    _assert_stream(log, PLAYERS)


def test_a_command_refused_while_another_is_in_flight_is_refused_on_committed_state(
    log: KafkaEventLog,
) -> None:
    """Two registrations of one player among others: one is stored, the other refused by the
    decider, and every other player stored once."""
    svc = CommandService(log)
    svc.handle(TID, _cmd("TournamentCreated", name="Pipelined", format="swiss"), ARBITER)

    errors, refused, _ = _register_all(log, svc, [*PLAYERS, "dup", "dup"], hold=False)

    assert errors == []
    assert len(refused) == 1 and "dup" in refused[0].message
    _assert_stream(log, [*PLAYERS, "dup"])


def test_a_batch_decided_after_one_that_fails_is_decided_again(log: KafkaEventLog) -> None:
    """Another process appends while the first commit is held: that commit is fenced and
    its command conflicts; every command queued behind it was decided after it, so each is
    refused by the writer (`after`) and decided again: nothing lost, nothing twice."""
    svc = CommandService(log)
    svc.handle(TID, _cmd("TournamentCreated", name="Pipelined", format="swiss"), ARBITER)
    bootstrap = kafka_bootstrap()
    assert bootstrap is not None
    other = KafkaEventLog(bootstrap, topic=log.topic, partitions=1)

    def another_process_appends() -> None:
        CommandService(other).handle(
            TID,
            _cmd("RulingIssued", ruling_id="r1", by="deputy", subject="s", text="meanwhile"),
            ARBITER,
        )

    try:
        errors, refused, _ = _register_all(log, svc, PLAYERS, while_held=another_process_appends)
    finally:
        other.close()

    assert errors == [] and refused == []
    _assert_stream(log, PLAYERS, extra=1)
