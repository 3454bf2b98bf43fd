"""Signing and verifying checkpoints through each event log (SQLite here; Kafka with a broker,
as the conformance suite: `log` is parametrised in tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

from builders import batch, created, player
from tests_support import ADMIN_ACTOR

from services.audit import checkpoints as cps
from services.audit import replay as audit
from services.commands.service import CommandService
from services.eventlog.base import EventLog

TID = "ckpt-open"


def test_sign_due_and_verify_on_each_log(log: EventLog, tmp_path: Path):
    service = CommandService(log)
    service.handle(TID, batch(created(), player("a"), player("b")), ADMIN_ACTOR)
    store = cps.CheckpointStore(tmp_path / "checkpoints.sqlite3")
    key = cps.SigningKey.generate()
    first = cps.sign_head(log, store, key, TID)
    assert first.seq == 3 and first.head_hash == list(log.read(TID))[-1].hash
    assert cps.sign_due(log, store, key).signed == []  # unmoved
    service.handle(TID, batch(player("c")), ADMIN_ACTOR)
    [second] = [c for c in cps.sign_due(log, store, key).signed if c.tournament_id == TID]
    assert second.seq == 4
    report = cps.verify_against(
        TID,
        audit.stored_records(log, TID),
        [("store", c) for c in store.all(TID)],
        {key.key_id: key.public_key},
    )
    assert report.ok and [c.status for c in report.checkpoints] == ["ok", "ok"]
    assert report.verdict.head_seq == 4 and not report.verdict.unreadable
    store.close()
