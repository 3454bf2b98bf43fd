"""`arbiter checkpoint` and `arbiter verify --checkpoint` end to end on the embedded log, with
the SQLite file edited by hand the way a tamperer (or a bad migration) would."""

from __future__ import annotations

import base64
import json
import sqlite3
import stat
import uuid
from pathlib import Path

import httpx
import pytest
from builders import T0, batch, created, player, result, round_
from fastapi.testclient import TestClient
from tests_support import ADMIN_ACTOR
from typer.testing import CliRunner

from events_schema import events as ev
from events_schema.codec import dumps, loads
from events_schema.envelope import chain_hash
from services.api.app import create_app
from services.cli.main import app
from services.commands.auth import TokenStore
from services.commands.service import CommandService
from services.config import Settings
from services.eventlog.base import NewEvent
from services.eventlog.sqlite import SQLiteEventLog

runner = CliRunner()
TID = "audit-rr"


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "events.sqlite3"
    monkeypatch.setenv("ARBITER_DB", str(path))
    monkeypatch.setenv("ARBITER_DATA", str(tmp_path))
    monkeypatch.setenv("ARBITER_LOG", "sqlite")
    monkeypatch.delenv("ARBITER_CHECKPOINT_KEY", raising=False)
    monkeypatch.delenv("ARBITER_CHECKPOINTS_DB", raising=False)
    monkeypatch.delenv("ARBITER_TOKEN", raising=False)
    return path


def _append(db: Path, *events: ev.Event, tid: str = TID) -> None:
    log = SQLiteEventLog(db)
    CommandService(log).handle(tid, batch(*events), ADMIN_ACTOR)
    log.close()


def _run(*args: str, code: int = 0):
    res = runner.invoke(app, list(args))
    assert res.exit_code == code, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    return res


def _two_rounds(db: Path) -> None:
    _append(
        db,
        created(rounds=3),
        *[player(p) for p in "abcd"],  # seq 2..5
        round_(1, ("g1", "a", "b"), ("g2", "c", "d")),  # seq 6
        result("g1", "1-0", "resignation"),  # seq 7
        result("g2", "1/2-1/2"),  # seq 8
        round_(2, ("g3", "a", "c"), ("g4", "b", "d")),  # seq 9
        result("g3", "1/2-1/2"),  # seq 10
    )


def _sql(db: Path, *statements: tuple[str, tuple]) -> None:
    conn = sqlite3.connect(db)
    with conn:
        for sql, args in statements:
            conn.execute(sql, args)
    conn.close()


def _sign(tmp_path: Path, name: str = "cp.json", tid: str = TID) -> tuple[Path, dict]:
    res = _run("checkpoint", tid)
    doc = json.loads(res.stdout)
    path = tmp_path / name
    path.write_text(res.stdout)
    return path, doc


def _verify(*args: str, code: int = 0):
    res = _run("verify", TID, *args, code=code)
    data = json.loads(_run("verify", TID, *args, "--json", code=code).stdout)
    return res, data


def _rewrite_suffix(db: Path, from_seq: int, mutate) -> None:
    """Alter the event at `from_seq` and re-hash it and every event after it, bodies and hash
    columns alike: the chain stays self-consistent."""
    conn = sqlite3.connect(db)
    rows = conn.execute(
        "SELECT seq, body FROM events WHERE tournament_id = ? AND seq >= ? ORDER BY seq",
        (TID, from_seq - 1),
    ).fetchall()
    prev = loads(rows[0][1])["hash"]
    with conn:
        for seq, body in rows[1:]:
            doc = loads(body)
            if seq == from_seq:
                mutate(doc)
            doc["prev_hash"] = prev
            doc["hash"] = chain_hash(doc)
            prev = doc["hash"]
            conn.execute(
                "UPDATE events SET body = ?, hash = ? WHERE tournament_id = ? AND seq = ?",
                (dumps(doc), doc["hash"], TID, seq),
            )
    conn.close()


# -- signing, storing, verifying -----------------------------------------------------------------


def test_checkpoint_signs_the_head_and_verify_checks_it(db: Path, tmp_path: Path):
    _two_rounds(db)
    res = _run("checkpoint", TID)
    assert "generated a checkpoint signing key" in res.stderr
    key = tmp_path / "checkpoint-key.pem"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    doc = json.loads(res.stdout)
    head = SQLiteEventLog(db)
    last = list(head.read(TID))[-1]
    head.close()
    assert doc["checkpoint"]["seq"] == 10 and doc["checkpoint"]["head_hash"] == last.hash
    assert doc["checkpoint"]["tournament_id"] == TID
    [pub] = tmp_path.glob("checkpoint-*.pub.pem")
    assert doc["key_id"] in pub.name
    cp_file = tmp_path / "cp.json"
    cp_file.write_text(res.stdout)

    res, data = _verify("--checkpoint", str(cp_file))
    assert "OK" in res.stdout and "matches checkpoint" in res.stdout
    assert "self-asserted" in res.stderr  # nothing pinned: the embedded key, with a warning
    assert data["ok"] and data["checkpoints"][0]["status"] == "ok"
    res, data = _verify("--checkpoint", str(cp_file), "--public-key", str(pub))
    assert "self-asserted" not in res.stderr and data["checkpoints"][0]["trust"] == "pinned"
    assert "generated" not in _run("checkpoint", TID).stderr  # the key is reused

    listed = json.loads(_run("checkpoint", "list", TID, "--json").stdout)
    assert [c["checkpoint"]["seq"] for c in listed["checkpoints"]] == [10, 10]
    latest = json.loads(_run("checkpoint", "list", TID, "--latest", "--json").stdout)
    assert latest == listed["checkpoints"][-1]
    assert "checkpoints of" in _run("checkpoint", "list", TID).stdout
    _run("checkpoint", "list", "nobody", code=1)
    assert _run("checkpoint", "public-key").stdout == pub.read_text()
    # The CLI's own store, as a source.
    assert _verify("--stored")[1]["checkpoints"][0]["source"] == "store#1"


def test_checkpoint_of_an_unknown_tournament_is_refused(db: Path):
    _two_rounds(db)
    res = _run("checkpoint", "nobody", code=1)
    assert "checkpoint.no_events" in res.output


@pytest.mark.parametrize("cut", [1, 100])
def test_truncation_of_the_last_events_is_detected(db: Path, tmp_path: Path, cut: int):
    _append(db, created(rounds=3), *[player(f"p{i:03d}") for i in range(120)])  # seq 1..121
    cp_file, _ = _sign(tmp_path)
    _sql(db, ("DELETE FROM events WHERE tournament_id = ? AND seq > ?", (TID, 121 - cut)))
    assert "OK" in _run("verify", TID).stdout  # the chain alone cannot see a cut end
    res, data = _verify("--checkpoint", str(cp_file), code=1)
    assert "BROKEN" in res.stdout and "truncated" in res.stdout
    text = " ".join(res.stdout.split())
    assert "seq 121 is signed in checkpoint" in text
    assert f"but the stream ends at {121 - cut}" in text
    assert data["problem"]["kind"] == "truncated" and data["problem"]["seq"] == 121
    # The local store remembers too, and the signer will not sign the shorter stream.
    assert _verify("--stored", code=1)[1]["problem"]["kind"] == "truncated"
    assert "checkpoint.truncated" in _run("checkpoint", TID, code=1).output


def test_an_edited_and_rehashed_suffix_is_detected(db: Path, tmp_path: Path):
    _two_rounds(db)
    early = _sign(tmp_path, "early.json")[0]
    _append(db, result("g4", "1-0", "resignation"))  # seq 11
    cp_file, doc = _sign(tmp_path)

    def flip(d: dict) -> None:
        d["payload"]["result"] = "0-1"

    _rewrite_suffix(db, 7, flip)
    assert "OK" in _run("verify", TID).stdout  # self-consistent chain
    res, data = _verify("--checkpoint", str(early), "--checkpoint", str(cp_file), code=1)
    assert data["problem"]["kind"] == "rewritten" and data["problem"]["seq"] == 10
    assert [c["status"] for c in data["checkpoints"]] == ["rewritten", "rewritten"]
    assert "rewritten at or before seq 10" in " ".join(res.stdout.split())
    assert "checkpoint.rewritten" in _run("checkpoint", TID, code=1).output
    assert doc["checkpoint"]["head_hash"] in " ".join(res.stdout.split())


def test_signature_tampering_is_detected(db: Path, tmp_path: Path):
    _two_rounds(db)
    _, doc = _sign(tmp_path)
    sig = bytearray(base64.b64decode(doc["signature"]))
    sig[5] ^= 0x10
    bad_sig = {**doc, "signature": base64.b64encode(bytes(sig)).decode()}
    moved = {**doc, "checkpoint": {**doc["checkpoint"], "seq": 9}}
    for name, forged in (("sig", bad_sig), ("seq", moved)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(forged))
        res, data = _verify("--checkpoint", str(path), code=1)
        assert data["problem"]["kind"] == "bad_signature", name
        assert "BROKEN" in res.stdout and "signature does not verify" in res.stdout
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    assert "verify.checkpoint_malformed" in _run("verify", TID, "--checkpoint", str(garbage),
                                                 code=1).output  # fmt: skip
    _run("verify", TID, "--checkpoint", str(tmp_path / "missing.json"), code=1)


def test_key_rotation_old_and_new_checkpoints_verify(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    _two_rounds(db)
    res = _run("checkpoint", "keygen", "--out", str(tmp_path / "k1"))
    k1 = tmp_path / "k1" / "checkpoint-key.pem"
    assert stat.S_IMODE(k1.stat().st_mode) == 0o600 and "BEGIN PUBLIC KEY" in res.stdout
    [pub1] = (tmp_path / "k1").glob("*.pub.pem")
    assert pub1.read_text() == res.stdout
    monkeypatch.setenv("ARBITER_CHECKPOINT_KEY", str(k1))
    cp1, doc1 = _sign(tmp_path, "cp1.json")
    assert doc1["key_id"] in pub1.name

    _append(db, result("g4", "1-0", "resignation"))
    _run("checkpoint", "keygen", "--out", str(tmp_path / "k2"))
    [pub2] = (tmp_path / "k2").glob("*.pub.pem")
    monkeypatch.setenv("ARBITER_CHECKPOINT_KEY", str(tmp_path / "k2" / "checkpoint-key.pem"))
    cp2, doc2 = _sign(tmp_path, "cp2.json")
    assert doc2["key_id"] != doc1["key_id"]

    args = ("--checkpoint", str(cp1), "--checkpoint", str(cp2))
    res, data = _verify(*args, "--public-key", str(pub1), "--public-key", str(pub2))
    assert data["ok"] and [c["status"] for c in data["checkpoints"]] == ["ok", "ok"]
    assert [c["seq"] for c in data["checkpoints"]] == [10, 11]
    res, data = _verify(*args, "--public-key", str(pub2), code=1)
    assert data["problem"]["kind"] == "unknown_key" and doc1["key_id"] in res.stdout

    res = _run("checkpoint", "keygen", "--out", str(tmp_path / "k1"), code=1)
    assert "checkpoint.key_exists" in res.output  # never overwrites a key
    monkeypatch.setenv("ARBITER_CHECKPOINT_KEY", str(tmp_path / "nope.pem"))
    assert "checkpoint.key" in _run("checkpoint", TID, code=1).output  # configured: must exist
    bad = tmp_path / "bad.pub"
    bad.write_text("nope")
    _run("verify", TID, "--public-key", str(bad), code=1)


# -- malformed rows: a verdict naming the seq, never a traceback ----------------------------------

WHERE = "WHERE tournament_id = ? AND seq = ?"


@pytest.mark.parametrize(
    ("sql", "args", "seq", "kind"),
    [
        (f"UPDATE events SET body = X'00ff00ff' {WHERE}", (TID, 5), 5, "altered"),
        (f"UPDATE events SET body = substr(body, 1, 60) {WHERE}", (TID, 5), 5, "altered"),
        (f"UPDATE events SET body = CAST(X'7b22736571223aff' AS TEXT) {WHERE}", (TID, 5), 5,
         "altered"),
        (f"UPDATE events SET body = 'not an envelope' {WHERE}", (TID, 5), 5, "altered"),
        (f"UPDATE events SET body = 42 {WHERE}", (TID, 5), 5, "altered"),
        (f"DELETE FROM events {WHERE}", (TID, 5), 5, "removed"),
        (f"UPDATE events SET seq = 99 {WHERE}", (TID, 5), 5, "reordered"),
        (f"UPDATE events SET seq = 11 {WHERE}", (TID, 10), 10, "altered"),
        (f"UPDATE events SET seq = 'x' {WHERE}", (TID, 10), 10, "altered"),
        (f"UPDATE events SET hash = '{'f' * 64}' {WHERE}", (TID, 5), 5, "altered"),
        (f"UPDATE events SET event_id = '{uuid.UUID(int=1)}' {WHERE}", (TID, 5), 5, "altered"),
    ],
)  # fmt: skip
def test_malformed_rows_are_named_by_seq(db: Path, sql: str, args: tuple, seq: int, kind: str):
    _two_rounds(db)
    _sql(db, (sql, args))
    res, data = _verify(code=1)
    assert f"BROKEN {TID} at seq {seq}: {kind}" in res.stdout
    assert (data["broken"]["seq"], data["broken"]["kind"]) == (seq, kind)


def test_a_body_stored_as_text_is_still_intact(db: Path):
    _two_rounds(db)
    _sql(db, (f"UPDATE events SET body = CAST(body AS TEXT) {WHERE}", (TID, 5)))
    res, data = _verify()
    assert "OK" in res.stdout and data["head_seq"] == 10


# -- intact but unreadable events -------------------------------------------------------------


def test_intact_but_unreadable_events_are_a_warning(db: Path):
    from services.eventlog.base import content_digest

    _two_rounds(db)
    log = SQLiteEventLog(db)
    head = list(log.read(TID))[-1]
    log.close()
    payload = {"game_id": "g4", "result": "2-0"}  # stored by an older bug: no such result
    env = NewEvent(
        event_id=uuid.uuid4(),
        type="GameEnded",
        schema_version=1,
        occurred_at=T0,
        actor=ADMIN_ACTOR,
        payload=payload,
    ).sealed(TID, 11, head.hash, T0)
    _sql(
        db,
        (
            "INSERT INTO events (tournament_id, seq, event_id, digest, hash, body) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (TID, 11, str(env.event_id), content_digest(TID, "GameEnded", 1, payload),
             env.hash, env.to_bytes()),
        ),
    )  # fmt: skip
    res, data = _verify()
    assert "OK" in res.stdout and data["ok"] and data["head_seq"] == 11
    warning = " ".join(res.stderr.split())
    assert f"seq 11 event_id {env.event_id}" in warning
    assert (
        f"unreadable: an admin can retract it with EventRetracted retracted_event_id={env.event_id}"
    ) in warning
    [u] = data["unreadable"]
    assert (u["seq"], u["event_id"], u["type"]) == (11, str(env.event_id), "GameEnded")


# -- checkpoints fetched from the API -------------------------------------------------------------


def test_verify_fetches_checkpoints_from_the_api(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    _two_rounds(db)
    tokens = TokenStore(tmp_path / "tokens.sqlite3")
    admin = tokens.create("admin", "chief")[0]
    reader = tokens.create("broadcaster", "tv")[0]
    log = SQLiteEventLog(db)
    # The API process's settings: its checkpoint key and store in the same ARBITER_DATA.
    client = TestClient(create_app(log, tokens, settings=Settings.from_env()))
    r = client.post(f"/tournaments/{TID}/checkpoints", headers={"Authorization": f"Bearer {admin}"})
    assert r.status_code == 201, r.text

    def get(url: str, headers: dict | None = None, **_: object) -> httpx.Response:
        return client.get(url.removeprefix("http://testserver"), headers=headers)

    monkeypatch.setattr(httpx, "get", get)
    base = f"http://testserver/tournaments/{TID}/checkpoints"
    for url in (base, f"{base}/latest"):
        res, data = _verify("--checkpoint", url, "--token", reader)
        assert data["ok"] and data["checkpoints"][0]["seq"] == 10
    res = _run("verify", TID, "--checkpoint", base, code=1)  # no token
    assert "HTTP 401" in res.output
    _sql(db, ("DELETE FROM events WHERE tournament_id = ? AND seq = 10", (TID,)))
    _, data = _verify("--checkpoint", base, "--token", reader, code=1)
    assert data["problem"]["kind"] == "truncated"
    log.close()
    tokens.close()
