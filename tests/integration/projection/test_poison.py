"""Poison events: a stored event that no reader can decode holds its own tournament only.

Issue 9.1: an arbiter stored a `RulingIssued` nested ~220 levels deep (the JSON parser of the
envelope decoder stops at 200); from then on that tournament's reads and appends failed, the
embedded feed dropped every other tournament after a restart, and the processors died in
their rebuild. The write path now refuses such events (test_limits.py); these tests plant one
directly in the log — a SQLite row, a Kafka record — as an older bug or a manual edit would,
and drive every reader over it: the log's own reads, the command path, the projector (the
processors' and the feed's fold), the embedded feed across a restart, the processor core's
rebuild and batch fold, and the API. Then an admin retracts it by event id (no decoding
needed) and the tournament goes on.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from builders import ADMIN, ARBITER, batch, created, player
from conftest import LogFactory, kafka_bootstrap

from events_schema import events as ev
from events_schema.codec import dumps
from events_schema.envelope import UnreadableEnvelope, chain_hash
from services.commands.service import CommandRejected, CommandService
from services.eventlog.base import EventLog
from services.projection.embedded import EmbeddedRunner
from services.projection.projector import Projector


def deep(levels: int) -> dict[str, Any]:
    d: dict[str, Any] = {"x": 1}
    for _ in range(levels):
        d = {"x": d}
    return d


def poison_body(log: EventLog, tid: str, kind: str) -> tuple[bytes, str, uuid.UUID | None]:
    """Bytes of the next event of `tid` as a buggy writer would have stored them: a chained,
    correctly hashed envelope whose payload is nested too deep to decode ("deep"), or bytes
    that are not JSON at all ("garbage"). Returns (body, hash, event id if it has one)."""
    stored = list(log.read(tid))
    seq, prev = len(stored) + 1, stored[-1].hash
    if kind == "garbage":
        body = b"\x00not an envelope"
        import hashlib

        return body, hashlib.sha256(body).hexdigest(), None
    event_id = uuid.uuid4()
    now = datetime(2026, 11, 21, 12, 0, tzinfo=UTC).isoformat()
    env = {
        "event_id": str(event_id),
        "tournament_id": tid,
        "seq": seq,
        "type": "RulingIssued",
        "schema_version": 1,
        "occurred_at": now,
        "recorded_at": now,
        "actor": {"id": "ref-1", "role": "arbiter"},
        "causation_id": None,
        "correlation_id": None,
        "payload": {
            "ruling_id": "r1",
            "by": "ref",
            "subject": "x",
            "text": "deep",
            "decision": deep(220),
        },
        "prev_hash": prev,
    }
    env["hash"] = chain_hash(env)
    return dumps(env), str(env["hash"]), event_id


def plant(log: EventLog, tid: str, kind: str) -> None:
    """Store a poison event directly in the log, outside the command path."""
    body, hash_, event_id = poison_body(log, tid, kind)
    seq = log.last_seq(tid) + 1
    if log.backend == "sqlite":
        conn = log._conn()  # type: ignore[attr-defined]
        conn.execute(
            "INSERT INTO events (tournament_id, seq, event_id, digest, hash, body) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (tid, seq, str(event_id or uuid.uuid4()), "x", hash_, body),
        )
        return
    # Kafka: as an older writer of ours would have, in a transaction under the partition's
    # transactional id (which fences the current writer: it re-reads before its next append).
    from kafka import KafkaProducer

    from services.eventlog.kafka import partition_for

    part = partition_for(tid, log.partitions)  # type: ignore[attr-defined]
    producer = KafkaProducer(
        bootstrap_servers=log.bootstrap,  # type: ignore[attr-defined]
        transactional_id=f"{log.topic}-writer-p{part}",  # type: ignore[attr-defined]
        acks="all",
        enable_idempotence=True,
    )
    producer.init_transactions()
    producer.begin_transaction()
    producer.send(log.topic, key=tid.encode(), value=body, partition=part)  # type: ignore[attr-defined]
    producer.commit_transaction()
    producer.close()


def setup_two(log: EventLog) -> CommandService:
    service = CommandService(log)
    for tid in ("tA", "tB"):
        service.handle(tid, batch(created(), player("alice"), player("bob")), ADMIN)
    return service


def poison_of(log: EventLog, tid: str) -> UnreadableEnvelope:
    found = [e for e in log.read(tid) if isinstance(e, UnreadableEnvelope)]
    assert len(found) == 1
    return found[0]


@pytest.mark.parametrize("kind", ["deep", "garbage"])
def test_a_poison_event_holds_its_tournament_only_and_an_admin_retracts_it(
    log_factory: LogFactory, kind: str
) -> None:
    log = log_factory()
    setup_two(log)
    plant(log, "tA", kind)

    # Every read answers; the poison stands at its seq as a marker.
    events = list(log_factory().read("tA"))
    assert [e.seq for e in events] == [1, 2, 3, 4]
    poison = events[-1]
    assert isinstance(poison, UnreadableEnvelope)
    assert poison.to_json_dict()["unreadable"]
    assert len(list(log.read_all())) == 7

    # The command path (a fresh process) holds tA, naming the seq and the id to retract ...
    fresh = CommandService(log_factory())
    with pytest.raises(CommandRejected) as refused:
        fresh.handle("tA", batch(player("carol")), ARBITER)
    assert refused.value.rule == "stream.unreadable_event"
    assert "seq 4" in refused.value.message and str(poison.event_id) in refused.value.message
    # ... and nothing else.
    fresh.handle("tB", batch(player("carol")), ARBITER)

    # The fold (processors, feed, replay): tB published, tA held with the seq and the id.
    projector = Projector()
    messages = projector.run(log.read_all())
    assert {m.tournament_id for m in messages} == {"tB"}
    held = projector.held()
    assert set(held) == {"tA"}
    assert held["tA"]["seq"] == 4 and held["tA"]["event_id"] == str(poison.event_id)

    # An admin retracts it by id (nothing decodes its payload) and supersedes it.
    retract = ev.EventRetracted(retracted_event_id=poison.event_id, reason="unreadable ruling")
    fresh.handle("tA", batch(retract), ADMIN)
    fresh.handle("tA", batch(player("carol")), ARBITER)
    later = Projector()
    published = later.run(log.read_all())
    assert {m.tournament_id for m in published} == {"tA", "tB"}
    assert later.held() == {}
    standings = next(m for m in published if (m.tournament_id, m.projection) == ("tA", "standings"))
    assert b"carol" in standings.body


def test_only_an_admin_may_retract_the_poison_and_nothing_else_is_accepted(
    log_factory: LogFactory,
) -> None:
    log = log_factory()
    service = setup_two(log)
    plant(log, "tA", "deep")
    poison = poison_of(log, "tA")
    retract = ev.EventRetracted(retracted_event_id=poison.event_id, reason="unreadable")
    with pytest.raises(CommandRejected) as refused:
        service.handle("tA", batch(retract), ARBITER)
    assert refused.value.rule == "auth.admin_only"
    other = ev.EventRetracted(retracted_event_id=uuid.uuid4(), reason="x")
    with pytest.raises(CommandRejected, match=r"stream\.unreadable_event"):
        service.handle("tA", batch(other), ADMIN)


def test_the_embedded_feed_keeps_every_other_tournament_across_a_restart(tmp_path: Path) -> None:
    from services.eventlog.sqlite import SQLiteEventLog

    log = SQLiteEventLog(tmp_path / "events.sqlite3")
    setup_two(log)
    plant(log, "tA", "deep")
    for _restart in range(2):
        runner = EmbeddedRunner(SQLiteEventLog(tmp_path / "events.sqlite3"))
        runner.start()
        try:
            assert runner.hub.caught_up.wait(10)
            assert runner.hub.latest("tB", "standings") is not None
            assert runner.hub.latest("tA", "standings") is None
            assert runner.hub.held("tA")["tA"]["seq"] == 4
            assert runner.errors == 0
        finally:
            runner.stop()


def test_the_api_lists_the_marker_and_refuses_appends_with_the_remedy(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from services.api.app import create_app
    from services.commands.auth import TokenStore
    from services.eventlog.sqlite import SQLiteEventLog

    log = SQLiteEventLog(tmp_path / "events.sqlite3")
    setup_two(log)
    plant(log, "tA", "deep")
    tokens = TokenStore(tmp_path / "tokens.sqlite3")
    admin, _ = tokens.create("admin", "chief")
    ref, _ = tokens.create("arbiter", "ref", ["tA"])
    with TestClient(create_app(log, tokens)) as client:
        h = {"Authorization": f"Bearer {ref}"}
        r = client.get("/tournaments/tA/events", headers=h)
        assert r.status_code == 200
        marker = r.json()["events"][-1]
        assert marker["seq"] == 4 and marker["unreadable"]
        r = client.post(
            "/tournaments/tA/commands",
            headers=h,
            json={"type": "PlayerRegistered", "payload": {"player_id": "c", "name": "C"}},
        )
        assert r.status_code == 422
        assert r.json()["error"]["rule"] == "stream.unreadable_event"
        r = client.post(
            "/tournaments/tA/commands",
            headers={"Authorization": f"Bearer {admin}"},
            json={
                "type": "EventRetracted",
                "payload": {"retracted_event_id": marker["event_id"], "reason": "unreadable"},
            },
        )
        assert r.status_code == 201, r.text
        r = client.post(
            "/tournaments/tA/commands",
            headers=h,
            json={"type": "PlayerRegistered", "payload": {"player_id": "c", "name": "C"}},
        )
        assert r.status_code == 201


@pytest.mark.kafka
@pytest.mark.parametrize("kind", ["deep", "garbage"])
def test_the_processor_core_rebuilds_and_folds_past_a_poison_record(
    tmp_path: Path, kind: str
) -> None:
    """On Kafka the processors died in their rebuild (so a restart could never get past the
    poison, kept forever by infinite retention). Their core now rebuilds over it, reports it
    in status.json and folds every other tournament, in the rebuild and in live batches."""
    bootstrap = kafka_bootstrap()
    assert bootstrap is not None
    from services.eventlog.kafka import KafkaEventLog
    from services.projection.processors.config import ProcessorConfig
    from services.projection.processors.core import ProcessorCore

    topic = f"arbiter.test.{uuid.uuid4().hex[:12]}"
    log = KafkaEventLog(bootstrap, topic=topic, partitions=2)
    try:
        setup_two(log)
        plant(log, "tA", kind)
        cfg = ProcessorConfig(
            "standings", bootstrap=bootstrap, events_topic=topic, data_dir=tmp_path
        )
        core = ProcessorCore(cfg)
        core.ensure_topics()
        msgs = core.rebuild()
        assert {m.tournament_id for m in msgs} == {"tB"}
        status = core.status()
        assert status["unreadable"]["tA"]["seq"] == 4
        core.write_status()
        assert '"unreadable"' in (tmp_path / "standings" / "status.json").read_text()
        # A live batch with another poison record (garbage, seq unknown) and a good event.
        service = CommandService(log)
        good = service.handle("tB", batch(player("carol")), ARBITER).envelopes[0]
        out = core.fold([(b"tA", b"garbage"), (b"tB", good.to_bytes())])
        assert [m.tournament_id for m in out] == ["tB"]
        assert core.status()["tournaments"]["tA"] == 5  # the garbage took seq 5
        # Redelivered, neither is folded twice.
        assert core.fold([(b"tA", b"garbage"), (b"tB", good.to_bytes())]) == []
    finally:
        log.close()


def test_replay_says_where_and_why_the_feed_was_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from services.cli.main import app
    from services.eventlog.sqlite import SQLiteEventLog

    path = tmp_path / "events.sqlite3"
    monkeypatch.setenv("ARBITER_DB", str(path))
    monkeypatch.setenv("ARBITER_DATA", str(tmp_path))
    monkeypatch.setenv("ARBITER_LOG", "sqlite")
    log = SQLiteEventLog(path)
    setup_two(log)
    plant(log, "tA", "deep")
    poison = poison_of(log, "tA")
    res = CliRunner().invoke(app, ["replay", "tA", "--until", "4", "--json"])
    assert res.exit_code == 0, res.output
    assert "held" in res.output and str(poison.event_id) in res.output
    before = CliRunner().invoke(app, ["replay", "tA", "--until", "3", "--json"])
    assert before.exit_code == 0 and "held" not in before.output
