"""Signed checkpoints (services/audit/checkpoints/) and the verify parts they rely on: pure, no
log."""

from __future__ import annotations

import base64
import sqlite3
import stat
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from builders import ADMIN, T0, created, player, recorded, result, round_

from events_schema import GENESIS_HASH
from events_schema.codec import dumps, loads
from events_schema.envelope import chain_hash
from services.audit import checkpoints as cps
from services.audit import replay as audit
from services.eventlog.base import NewEvent

TID = "t"


def _envs(n_players: int = 2):
    events = [
        created(rounds=2),
        *[player(f"p{i}") for i in range(n_players)],
        round_(1, ("g1", "p0", "p1")),
        result("g1", "1-0", "resignation"),
    ]
    return [r.envelope for r in recorded(TID, events)]


def _raw(envs) -> list[bytes]:
    return [e.to_bytes() for e in envs]


def _rewrite_from(raws: list[bytes], index: int, name: str = "Mallory") -> list[bytes]:
    """Alter the event at `index` and re-hash it and every later one: a self-consistent chain."""
    out = list(raws[:index])
    prev = loads(out[-1])["hash"] if out else GENESIS_HASH
    for i, body in enumerate(raws[index:]):
        doc = loads(body)
        if i == 0:
            doc["payload"]["name"] = name
        doc["prev_hash"] = prev
        doc["hash"] = chain_hash(doc)
        prev = doc["hash"]
        out.append(dumps(doc))
    return out


def _cp(key: cps.SigningKey, raws: list[bytes], seq: int | None = None, tid: str = TID):
    doc = loads(raws[(seq or len(raws)) - 1])
    return key.sign(tid, doc["seq"], doc["hash"])


def _check(raws, *cps_, pinned=None):
    return cps.verify_against(TID, raws, [(f"cp{i}", c) for i, c in enumerate(cps_)], pinned)


@pytest.fixture
def key() -> cps.SigningKey:
    return cps.SigningKey.generate()


# -- format and signature ------------------------------------------------------------------------


def test_sign_and_verify_roundtrip(key: cps.SigningKey):
    raws = _raw(_envs())
    cp = _cp(key, raws)
    doc = cp.as_dict()
    assert set(doc) == {"checkpoint", "signature", "public_key", "key_id"}
    assert set(doc["checkpoint"]) == {"tournament_id", "seq", "head_hash", "signed_at", "key_id"}
    assert doc["checkpoint"]["seq"] == len(raws) and doc["key_id"] == key.key_id
    assert doc["checkpoint"]["signed_at"].endswith("Z")
    assert base64.b64decode(doc["public_key"]) == key.public_key and len(key.public_key) == 32
    assert key.key_id == cps.key_id_of(key.public_key) and len(key.key_id) == 16
    # The signed bytes are the canonical bytes of the checkpoint object.
    assert cp.body == dumps(doc["checkpoint"])
    back = cps.SignedCheckpoint.from_dict(loads(cp.to_json()))
    assert back == cp
    assert cps.check_signature(back, {key.key_id: key.public_key}).status == "ok"
    embedded = cps.check_signature(back, None)
    assert embedded.status == "ok" and embedded.self_asserted
    report = _check(raws, back, pinned={key.key_id: key.public_key})
    assert report.ok and report.checkpoints[0].status == "ok" and not report.warnings
    assert report.as_dict()["problem"] is None


def test_unpinned_key_is_accepted_with_a_warning(key: cps.SigningKey):
    raws = _raw(_envs())
    report = _check(raws, _cp(key, raws))
    assert report.ok
    [warning] = report.warnings
    assert key.key_id in warning and "self-asserted" in warning
    assert report.as_dict()["checkpoints"][0]["trust"] == "self-asserted"


def _tampered(cp: cps.SignedCheckpoint, **change) -> dict:
    doc = cp.as_dict()
    for k, v in change.items():
        if k in doc["checkpoint"]:
            doc["checkpoint"][k] = v
        else:
            doc[k] = v
    return doc


def test_signature_tampering_is_detected(key: cps.SigningKey):
    raws = _raw(_envs())
    cp = _cp(key, raws)
    pinned = {key.key_id: key.public_key}
    sig = bytearray(cp.signature)
    sig[0] ^= 1
    other = cps.SigningKey.generate()
    cases = [
        _tampered(cp, signature=base64.b64encode(bytes(sig)).decode()),
        _tampered(cp, seq=cp.seq - 1),  # a checkpoint moved back to before the cut
        _tampered(cp, head_hash="0" * 64),
        _tampered(cp, signed_at="2030-01-01T00:00:00.000Z"),
    ]
    for doc in cases:
        signed = cps.SignedCheckpoint.from_dict(doc)
        for trust in (pinned, None):
            assert cps.check_signature(signed, trust).status == "bad_signature", doc
        report = _check(raws, signed, pinned=pinned)
        assert not report.ok and report.problems[0]["kind"] == "bad_signature"
        assert "signature does not verify" in report.problems[0]["detail"]
    # Someone re-signs with their own key and embeds it: self-consistent, but not pinned.
    forged = other.sign(TID, cp.seq, cp.head_hash)
    assert cps.check_signature(forged, None).status == "ok"
    r = _check(raws, forged, pinned=pinned)
    assert r.problems[0]["kind"] == "unknown_key" and other.key_id in r.problems[0]["detail"]
    # The embedded key swapped for another one: its key_id no longer matches.
    swapped = _tampered(cp, public_key=base64.b64encode(other.public_key).decode())
    check = cps.check_signature(cps.SignedCheckpoint.from_dict(swapped), None)
    assert check.status == "bad_signature" and "key_id" in check.detail
    # The outer key_id relabelled to a pinned key.
    relabelled = cps.SignedCheckpoint.from_dict(_tampered(forged, key_id=key.key_id))
    assert cps.check_signature(relabelled, pinned).status == "bad_signature"


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.pop("signature"),
        lambda d: d.update(signature="not base64!"),
        lambda d: d.update(public_key=base64.b64encode(b"short").decode()),
        lambda d: d["checkpoint"].update(seq=0),
        lambda d: d["checkpoint"].update(seq="5"),
        lambda d: d["checkpoint"].update(head_hash="xyz"),
        lambda d: d["checkpoint"].update(signed_at="yesterday"),
        lambda d: d["checkpoint"].update(extra=1),
        lambda d: d["checkpoint"].pop("key_id"),
    ],
)
def test_malformed_checkpoints_are_refused_by_name(key: cps.SigningKey, mutate):
    doc = _cp(key, _raw(_envs())).as_dict()
    mutate(doc)
    with pytest.raises(cps.CheckpointFormatError):
        cps.SignedCheckpoint.from_dict(doc)
    [item] = cps.parse_published(doc)
    report = cps.verify_against(TID, _raw(_envs()), [("f.json", item)])
    assert not report.ok and report.problems[0]["kind"] == "malformed"
    assert report.problems[0]["detail"].startswith("f.json: ")


def test_parse_published_accepts_one_a_list_or_the_api_document(key: cps.SigningKey):
    raws = _raw(_envs())
    a, b = _cp(key, raws, 2), _cp(key, raws)
    assert cps.parse_published(a.as_dict()) == [a]
    assert cps.parse_published([a.as_dict(), b.as_dict()]) == [a, b]
    assert cps.parse_published({"tournament_id": TID, "checkpoints": [a.as_dict()]}) == [a]


# -- truncation and rewrites ---------------------------------------------------------------------


@pytest.mark.parametrize("cut", [1, 100])
def test_truncation_of_the_end_is_detected(key: cps.SigningKey, cut: int):
    raws = _raw(_envs(n_players=120))
    cp = _cp(key, raws)
    assert audit.verify_chain(TID, raws[:-cut]).ok  # the chain alone cannot see it
    report = _check(raws[:-cut], cp, pinned={key.key_id: key.public_key})
    assert not report.ok
    p = report.problems[0]
    assert (p["seq"], p["kind"]) == (len(raws), "truncated")
    assert p["detail"].startswith(f"seq {len(raws)} is signed in checkpoint cp0 (key {key.key_id}")
    assert p["detail"].endswith(f"but the stream ends at {len(raws) - cut}")


def test_a_fully_deleted_stream_is_a_truncation(key: cps.SigningKey):
    raws = _raw(_envs())
    report = _check([], _cp(key, raws))
    assert report.problems[0]["kind"] == "truncated"
    assert report.problems[0]["detail"].endswith("but the stream ends at 0")


def test_a_rewritten_and_rehashed_suffix_is_detected(key: cps.SigningKey):
    raws = _raw(_envs())
    cp = _cp(key, raws)
    early = _cp(key, raws, 1)  # before the rewrite: still fine
    forged = _rewrite_from(raws, 2)  # seq 3 onwards re-hashed
    assert audit.verify_chain(TID, forged).ok  # self-consistent
    report = _check(forged, early, cp)
    assert not report.ok
    p = report.problems[0]
    assert (p["seq"], p["kind"]) == (len(raws), "rewritten")
    assert cp.head_hash in p["detail"] and "rewritten at or before" in p["detail"]
    assert [c.status for c in report.checkpoints] == ["ok", "rewritten"]


def test_a_rewrite_that_keeps_the_length_but_cuts_before_a_checkpoint(key: cps.SigningKey):
    raws = _raw(_envs())
    cp3 = _cp(key, raws, 3)
    report = _check(_rewrite_from(raws, 1), cp3, _cp(key, raws, 1))
    # Problems come in seq order: the first checkpoint's seq that disagrees is named first.
    assert [p["kind"] for p in report.problems] == ["rewritten"]
    assert report.problems[0]["seq"] == 3


def test_chain_break_comes_before_checkpoint_problems(key: cps.SigningKey):
    raws = _raw(_envs())
    cp = _cp(key, raws)
    broken = [*raws[:2], b"garbage", *raws[3:]]
    report = _check(broken, cp)
    assert report.problems[0] == {
        "seq": 3,
        "kind": "altered",
        "detail": report.verdict.broken["detail"],
    }
    assert report.checkpoints[0].status == "unchecked"


def test_rotation_both_keys_pinned(key: cps.SigningKey):
    raws = _raw(_envs())
    new = cps.SigningKey.generate()
    assert new.key_id != key.key_id
    old_cp, new_cp = _cp(key, raws, 2), _cp(new, raws)
    both = {key.key_id: key.public_key, new.key_id: new.public_key}
    report = _check(raws, old_cp, new_cp, pinned=both)
    assert report.ok and [c.status for c in report.checkpoints] == ["ok", "ok"]
    only_new = _check(raws, old_cp, new_cp, pinned={new.key_id: new.public_key})
    assert only_new.problems[0]["kind"] == "unknown_key"
    assert only_new.problems[0]["seq"] == 2


def test_a_checkpoint_of_another_stream_is_a_problem(key: cps.SigningKey):
    raws = _raw(_envs())
    report = _check(raws, _cp(key, raws, tid="u"))
    assert report.problems[0]["kind"] == "other_tournament"


# -- verify_chain: unreadable events and storage rows ----------------------------------------


def _sealed_after(envs, type_: str, payload: dict):
    prev = envs[-1]
    return NewEvent(
        event_id=uuid.uuid4(),
        type=type_,
        schema_version=1,
        occurred_at=T0,
        actor=ADMIN,
        payload=payload,
    ).sealed(TID, prev.seq + 1, prev.hash, T0 + timedelta(minutes=5))


def test_intact_but_unreadable_events_are_warnings_not_breaks():
    envs = _envs()
    bad = _sealed_after(envs, "GameEnded", {"game_id": "g1", "result": "2-0"})
    unknown = _sealed_after([*envs, bad], "TeleportedKing", {"to": "h8"})
    raws = _raw([*envs, bad, unknown])
    v = audit.verify_chain(TID, raws)
    assert v.ok and v.head_seq == unknown.seq
    assert [(u["seq"], u["event_id"], u["type"]) for u in v.unreadable] == [
        (bad.seq, str(bad.event_id), "GameEnded"),
        (unknown.seq, str(unknown.event_id), "TeleportedKing"),
    ]
    assert "unknown event type" in v.unreadable[1]["reason"]
    assert v.as_dict()["unreadable"] == v.unreadable
    assert audit.verify_chain(TID, raws, check_decode=False).unreadable == []
    # The same through the Kafka path (decoded envelopes' JSON form).
    assert audit.verify_chain(TID, [loads(r) for r in raws]).unreadable == v.unreadable


def _rows(raws: list[bytes]) -> list[audit.StoredRow]:
    return [
        audit.StoredRow(body=r, seq=loads(r)["seq"], event_id=loads(r)["event_id"],
                        hash=loads(r)["hash"])
        for r in raws
    ]  # fmt: skip


def test_verify_chain_never_raises_and_names_the_seq():
    raws = _raw(_envs())
    n = len(raws)

    def failing():
        yield from raws[:2]
        raise sqlite3.OperationalError("Could not decode to UTF-8 column 'body'")

    cases = {
        "text body": ([raws[0].decode(), *raws[1:]], None),
        "garbage": ([*raws[:2], b"\x00\xff\x00", *raws[3:]], 3),
        "truncated": ([*raws[:3], raws[3][:40], *raws[4:]], 4),
        "empty": ([*raws[:1], b"", *raws[2:]], 2),
        "json list": ([*raws[:1], b"[1, 2]", *raws[2:]], 2),
        "not bytes": ([*raws[:1], 3.5, *raws[2:]], 2),
        "storage error": (failing(), 3),
        "deep": ([*raws[:1], b"[" * 5000 + b"]" * 5000, *raws[2:]], 2),
    }
    for name, (stored, seq) in cases.items():
        v = audit.verify_chain(TID, stored)
        if seq is None:
            assert v.ok and v.head_seq == n, name
        else:
            assert not v.ok and v.broken is not None, name
            assert (v.broken["seq"], v.broken["kind"]) == (seq, "altered"), name
            assert f"seq {seq}" in v.broken["detail"], name


def test_storage_columns_are_checked_against_the_bytes():
    raws = _raw(_envs())
    n = len(raws)
    rows = _rows(raws)
    assert audit.verify_chain(TID, rows).ok
    # The last row's seq column changed: the chain is intact but readers lose the event.
    moved = [*rows[:-1], audit.StoredRow(rows[-1].body, n + 1, rows[-1].event_id, rows[-1].hash)]
    v = audit.verify_chain(TID, moved)
    assert (v.broken["seq"], v.broken["kind"]) == (n, "altered")
    assert f"row numbered {n + 1}" in v.broken["detail"]
    # A middle row's seq column changed: it sorts last; the gap is named.
    mid = rows[2]
    shuffled = [*rows[:2], *rows[3:], audit.StoredRow(mid.body, 99, mid.event_id, mid.hash)]
    v = audit.verify_chain(TID, shuffled)
    assert (v.broken["seq"], v.broken["kind"]) == (3, "reordered")
    assert "row numbered 99" in v.broken["detail"]
    # A seq column that is not a seq; an event_id column edited; a hash column edited.
    text = [*rows[:-1], audit.StoredRow(rows[-1].body, "x", rows[-1].event_id, rows[-1].hash)]
    assert audit.verify_chain(TID, text).broken["seq"] == n
    eid = [*rows[:1], audit.StoredRow(rows[1].body, 2, str(uuid.uuid4()), rows[1].hash), *rows[2:]]
    assert audit.verify_chain(TID, eid).broken["seq"] == 2
    hashed = [*rows[:-1], audit.StoredRow(rows[-1].body, n, rows[-1].event_id, "f" * 64)]
    v = audit.verify_chain(TID, hashed)
    assert (v.broken["seq"], v.head_seq) == (n, n - 1)
    # Garbage in a row the storage numbers after a deleted one: the deletion is named.
    gap = [*rows[:2], audit.StoredRow(b"garbage", 4, None, None), *rows[4:]]
    assert (audit.verify_chain(TID, gap).broken["seq"], "removed") == (3, "removed")


def test_verify_chain_resumes_from_a_known_seq():
    raws = _raw(_envs())
    v = audit.verify_chain(TID, raws[2:], from_seq=3, prev_hash=None, at_seqs=(3,))
    assert v.ok and v.hashes == {3: loads(raws[2])["hash"]} and v.head_seq == len(raws)
    v = audit.verify_chain(TID, raws[2:], from_seq=3, prev_hash="0" * 64)
    assert not v.ok and v.broken["seq"] == 3


# -- signing against a log -------------------------------------------------------------------


class FakeLog:
    """The parts of an EventLog the signer uses, over a list of stored bytes per stream."""

    backend = "fake"

    def __init__(self, streams: dict[str, list[bytes]]) -> None:
        self.streams = streams

    def read_raw(self, tid: str):
        return iter(self.streams.get(tid, []))

    def read(self, tid: str, from_seq: int = 1, to_seq: int | None = None):
        from events_schema.envelope import read_envelope

        for body in self.streams.get(tid, [])[from_seq - 1 : to_seq]:
            yield read_envelope(body)

    def last_seq(self, tid: str) -> int:
        return len(self.streams.get(tid, []))

    def stream_ids(self) -> list[str]:
        return sorted(t for t, s in self.streams.items() if s)


@pytest.fixture
def store(tmp_path: Path):
    s = cps.CheckpointStore(tmp_path / "checkpoints.sqlite3")
    yield s
    s.close()


def test_sign_head_stores_and_extends(key: cps.SigningKey, store: cps.CheckpointStore):
    raws = _raw(_envs())
    log = FakeLog({TID: raws[:3]})
    first = cps.sign_head(log, store, key, TID)
    assert (first.seq, first.head_hash) == (3, loads(raws[2])["hash"])
    log.streams[TID] = raws
    second = cps.sign_head(log, store, key, TID)
    assert second.seq == len(raws)
    assert store.all(TID) == [first, second] and store.latest(TID) == second
    assert store.latest("nobody") is None and store.all("nobody") == []
    with pytest.raises(cps.CheckpointRefused) as exc:
        cps.sign_head(log, store, key, "nobody")
    assert exc.value.rule == "checkpoint.no_events" and exc.value.status == 404


def test_sign_head_refuses_truncated_rewritten_or_broken(key, store):
    raws = _raw(_envs())
    log = FakeLog({TID: raws})
    cps.sign_head(log, store, key, TID)
    log.streams[TID] = raws[:-1]
    with pytest.raises(cps.CheckpointRefused) as exc:
        cps.sign_head(log, store, key, TID)
    assert exc.value.rule == "checkpoint.truncated" and f"seq {len(raws)}" in str(exc.value)
    log.streams[TID] = _rewrite_from(raws, 1)
    with pytest.raises(cps.CheckpointRefused) as exc:
        cps.sign_head(log, store, key, TID)
    assert exc.value.rule == "checkpoint.rewritten"
    other = cps.CheckpointStore(Path(store.path).with_name("other.sqlite3"))
    with pytest.raises(cps.CheckpointRefused) as exc:
        cps.sign_head(FakeLog({TID: [*raws[:2], b"garbage"]}), other, key, TID)
    assert exc.value.rule == "checkpoint.chain_broken" and "seq 3" in str(exc.value)
    assert len(store.all(TID)) == 1 and other.all(TID) == []
    other.close()


def test_store_is_append_only(key, store):
    raws = _raw(_envs())
    cps.sign_head(FakeLog({TID: raws}), store, key, TID)
    conn = sqlite3.connect(store.path)
    for sql in ("UPDATE checkpoints SET seq = 1", "DELETE FROM checkpoints"):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute(sql)
    conn.close()


def test_a_tampered_store_is_not_built_upon(key, store):
    raws = _raw(_envs())
    log = FakeLog({TID: raws})
    cp = cps.sign_head(log, store, key, TID)
    forged = cps.SignedCheckpoint.from_dict(_tampered(cp, seq=1))
    store.add(forged)
    with pytest.raises(cps.CheckpointRefused) as exc:
        cps.sign_head(log, store, key, TID)
    assert exc.value.rule == "checkpoint.store_tampered"


def test_sign_due_signs_moved_heads_only(key, store):
    raws = _raw(_envs(n_players=10))
    log = FakeLog({TID: raws[:5], "u": raws[:0]})
    now = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
    r = cps.sign_due(log, store, key, now=now)
    assert [c.seq for c in r.signed] == [5] and not r.refused
    r = cps.sign_due(log, store, key, now=now)
    assert r.signed == [] and r.unchanged == 1
    log.streams[TID] = raws[:7]  # moved by 2
    assert cps.sign_due(log, store, key, every_events=3, now=now).signed == []
    later = now + timedelta(seconds=30)
    assert cps.sign_due(log, store, key, every_events=3, every_seconds=60, now=later).signed == []
    r = cps.sign_due(log, store, key, every_events=3, every_seconds=20, now=later)
    assert [c.seq for c in r.signed] == [7]
    log.streams[TID] = raws[:10]
    r = cps.sign_due(log, store, key, every_events=3, now=later)
    assert [c.seq for c in r.signed] == [10]
    # A cut end or a rewrite is always due, and refused.
    log.streams[TID] = raws[:9]
    r = cps.sign_due(log, store, key, every_events=100, now=later)
    assert r.signed == [] and r.refused[TID].rule == "checkpoint.truncated"
    log.streams[TID] = _rewrite_from(raws, 3)
    r = cps.sign_due(log, store, key, every_events=100, now=later)
    assert r.refused[TID].rule == "checkpoint.rewritten"


# -- keys ----------------------------------------------------------------------------------------


def test_key_files_generation_and_loading(tmp_path: Path):
    announced: list[str] = []
    path = tmp_path / "keys" / cps.KEY_FILE
    key = cps.load_or_create_key(path, announce=announced.append)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert key.key_id in announced[0] and str(path) in announced[0]
    again = cps.load_or_create_key(path, announce=announced.append)
    assert again.key_id == key.key_id and len(announced) == 1
    pub = cps.public_key_path(path.parent, key.key_id)
    assert cps.load_public_key(pub) == key.public_key
    assert cps.load_public_key(path) == key.public_key  # the private key's public half
    b64 = tmp_path / "k.b64"
    b64.write_text(base64.b64encode(key.public_key).decode() + "\n")
    assert cps.load_public_key(b64) == key.public_key
    with pytest.raises(FileExistsError):
        cps.write_key_files(cps.SigningKey.generate(), path)
    bad = tmp_path / "bad.pem"
    bad.write_text("hello")
    for p in (bad, tmp_path / "missing.pem"):
        with pytest.raises(cps.CheckpointKeyError):
            cps.load_public_key(p)
        with pytest.raises(cps.CheckpointKeyError):
            cps.load_signing_key(p)
    with pytest.raises(cps.CheckpointKeyError):
        cps.load_or_create_key(tmp_path / "nope.pem", create=False)
    path.chmod(0o644)
    warned: list[str] = []
    cps.load_signing_key(path, warned.append)
    assert "chmod 600" in warned[0]


def test_key_and_store_paths_from_the_settings(tmp_path: Path):
    from services.config import Settings

    settings = Settings(data_dir=tmp_path)
    assert cps.key_path(settings) == (tmp_path / "checkpoint-key.pem", False)
    assert cps.store_path(settings) == tmp_path / "checkpoints.sqlite3"
    settings = Settings(
        data_dir=tmp_path, checkpoint_key=tmp_path / "k.pem", checkpoints_db=tmp_path / "c.db"
    )
    assert cps.key_path(settings) == (tmp_path / "k.pem", True)
    assert cps.store_path(settings) == tmp_path / "c.db"


def test_checkpoint_settings_from_the_environment(tmp_path: Path, monkeypatch):
    from services.config import Settings, checkpoint_every

    monkeypatch.setenv("ARBITER_DATA", str(tmp_path))
    for var in ("ARBITER_CHECKPOINT_KEY", "ARBITER_CHECKPOINTS_DB"):
        monkeypatch.setenv(var, "")  # empty: the default, as unset
    settings = Settings.from_env()
    assert cps.key_path(settings) == (tmp_path / "checkpoint-key.pem", False)
    assert cps.store_path(settings) == tmp_path / "checkpoints.sqlite3"
    monkeypatch.setenv("ARBITER_CHECKPOINT_KEY", str(tmp_path / "k.pem"))
    monkeypatch.setenv("ARBITER_CHECKPOINTS_DB", str(tmp_path / "c.db"))
    settings = Settings.from_env()
    assert cps.key_path(settings) == (tmp_path / "k.pem", True)
    assert cps.store_path(settings) == tmp_path / "c.db"
    assert checkpoint_every({}) == 60.0 == cps.DEFAULT_EVERY
    assert checkpoint_every({"ARBITER_CHECKPOINT_EVERY": " "}) == 60.0
    assert checkpoint_every({"ARBITER_CHECKPOINT_EVERY": "0"}) == 0.0
    with pytest.raises(ValueError, match="ARBITER_CHECKPOINT_EVERY"):
        checkpoint_every({"ARBITER_CHECKPOINT_EVERY": "soon"})
    monkeypatch.setenv("ARBITER_CHECKPOINT_EVERY", "0.5")
    assert checkpoint_every() == 0.5


def test_scheduler_signs_and_keeps_going(tmp_path: Path, key):
    raws = _raw(_envs())
    log = FakeLog({TID: raws})
    service = cps.CheckpointService(
        log, cps.CheckpointStore(tmp_path / "c.sqlite3"), tmp_path / "k.pem"
    )
    service._key = key
    scheduler = cps.CheckpointScheduler(service, interval=0.01).start()
    try:
        for _ in range(500):
            if scheduler.runs >= 2:
                break
            scheduler._stop.wait(0.01)
    finally:
        scheduler.stop()
    assert scheduler.runs >= 2 and scheduler.errors == 0
    assert [c.seq for c in service.store.all(TID)] == [len(raws)]  # signed once: head unmoved
    service.close()
