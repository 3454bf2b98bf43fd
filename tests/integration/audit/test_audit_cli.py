"""`arbiter replay / diff / verify / correct / retract` end to end on the embedded log."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from builders import batch, created, player, result, round_
from tests_support import ADMIN_ACTOR
from typer.testing import CliRunner

from events_schema import events as ev
from services.cli.main import app
from services.commands.service import CommandService
from services.eventlog.sqlite import SQLiteEventLog
from services.projection.projector import Projector

runner = CliRunner()
TID = "audit-rr"


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "events.sqlite3"
    monkeypatch.setenv("ARBITER_DB", str(path))
    monkeypatch.setenv("ARBITER_DATA", str(tmp_path))
    monkeypatch.setenv("ARBITER_LOG", "sqlite")
    return path


def _append(db: Path, *events: ev.Event, tid: str = TID) -> None:
    log = SQLiteEventLog(db)
    CommandService(log).handle(tid, batch(*events), ADMIN_ACTOR)
    log.close()


def _run(*args: str, code: int = 0):
    res = runner.invoke(app, list(args))
    assert res.exit_code == code, res.output
    return res


def _json(*args: str, code: int = 0):
    return json.loads(_run(*args, "--json", code=code).stdout)


def _two_rounds(db: Path) -> None:
    """Four players; round 1 (seq 6) with g1 a-b at seq 7, round 2 paired at seq 9."""
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


def _rows(doc: dict) -> dict[str, dict]:
    return {r["player_id"]: r for r in doc["data"]["rows"]}


def _events(db: Path, tid: str = TID):
    log = SQLiteEventLog(db)
    envs = list(log.read(tid))
    log.close()
    return envs


# -- correct, replay before/after, flags --------------------------------------------------------


def test_correction_replay_shows_both_states_and_flags_pairing(db: Path):
    _two_rounds(db)
    res = _run("correct", TID, "g1", "--result", "0-1", "--reason", "scoresheet swapped")
    assert f"{TID}#11 ResultCorrected" in res.stdout
    envs = _events(db)
    corr = envs[-1]
    assert corr.type == "ResultCorrected"
    assert corr.actor.role == "admin"
    assert corr.payload["corrects_event_id"] == str(envs[6].event_id)  # seq 7: g1's GameEnded
    assert corr.payload["termination"] == "resignation"  # kept from the result in force
    assert corr.payload["reason"] == "scoresheet swapped"

    before = _json("replay", TID, "--until", "10", "--projection", "standings")
    after = _json("replay", TID, "--until", "11", "--projection", "standings")
    assert before["as_of_seq"] == 10 and after["as_of_seq"] == 11
    assert (_rows(before)["a"]["score"]["display"], _rows(before)["b"]["score"]["display"]) == (
        "1½",
        "0",
    )
    assert (_rows(after)["a"]["score"]["display"], _rows(after)["b"]["score"]["display"]) == (
        "½",
        "1",
    )
    assert before["data"]["flags"] == []
    [flag] = after["data"]["flags"]
    assert flag["game_id"] == "g1" and flag["corrected_at_seq"] == 11
    assert flag["rounds_paired_before"] == [2]

    # Human output, same point: a rich table and the flag text.
    text = _run("replay", TID, "--until", "11", "--projection", "standings").stdout
    assert "as of seq 11" in text and "corrected at seq 11" in text


def test_correct_needs_a_reason_and_a_result_in_force(db: Path):
    _two_rounds(db)
    res = _run("correct", TID, "g1", "--result", "0-1", code=2)
    assert "--reason" in res.output
    _run("correct", TID, "g1", "--result", "0-1", "--reason", "  ", code=1)
    res = _run("correct", TID, "g4", "--result", "0-1", "--reason", "x", code=1)
    assert "no result in force" in res.output
    assert "correction.no_result (GAME_ID)" in res.output
    res = _run("correct", TID, "g1", "--result", "1-0", "--reason", "same", code=1)
    assert "correction.no_change" in res.output
    assert len(_events(db)) == 10  # nothing appended


def test_retract_through_the_command_path(db: Path):
    _two_rounds(db)
    g3 = _events(db)[9]
    res = _run("retract", TID, str(g3.event_id), "--reason", "entered on the wrong board")
    assert "EventRetracted" in res.stdout
    env = _events(db)[-1]
    assert env.payload == {
        "retracted_event_id": str(g3.event_id),
        "reason": "entered on the wrong board",
    }
    d = _json("diff", TID, "--from", "10", "--to", "11")
    [e] = d["events"]
    assert e["type"] == "EventRetracted" and e["reason"] == "entered on the wrong board"
    assert e["corrects"]["seq"] == 10 and e["corrects"]["type"] == "GameEnded"
    rows = {r["key"]: r for r in d["projections"]["standings"]["rows"]}
    assert rows["a"]["fields"]["played"] == [2, 1]
    _run("retract", TID, "not-a-uuid", "--reason", "x", code=1)


# -- diff -----------------------------------------------------------------------------------------


def test_diff_names_the_correction_its_reason_and_what_changed(db: Path):
    _two_rounds(db)
    _run("correct", TID, "g1", "--result", "0-1", "--reason", "scoresheet swapped")
    d = _json("diff", TID, "--from", "10", "--to", "11")
    assert (d["from_seq"], d["to_seq"]) == (10, 11)
    [e] = d["events"]
    assert e["seq"] == 11 and e["type"] == "ResultCorrected"
    assert e["actor"]["role"] == "admin" and e["reason"] == "scoresheet swapped"
    assert e["corrects"]["seq"] == 7 and e["corrects"]["type"] == "GameEnded"
    assert e["corrects"]["result"] == "1-0" and e["result"] == "0-1"
    st = d["projections"]["standings"]
    assert st["changed"]
    rows = {r["key"]: r for r in st["rows"]}
    assert rows["a"]["fields"]["score.display"] == ["1½", "½"]
    assert rows["a"]["fields"]["score.half_points"] == [3, 1]
    assert rows["b"]["fields"]["score.display"] == ["0", "1"]
    assert "c" not in rows or "score.display" not in rows["c"]["fields"]
    assert [f["game_id"] for f in st["flags_added"]] == ["g1"]
    assert d["projections"]["playoff"]["changed"] is False
    text = _run("diff", TID, "--from", "10", "--to", "11").stdout
    assert "scoresheet swapped" in text and "flag added" in text
    _run("diff", TID, "--from", "11", "--to", "10", code=1)


def test_diff_from_zero_and_by_round(db: Path):
    _two_rounds(db)
    d = _json("diff", TID, "--from", "0", "--to", "round:1")
    assert d["to_seq"] == 8
    assert {r["change"] for r in d["projections"]["standings"]["rows"]} == {"added"}
    assert [e["seq"] for e in d["events"]] == list(range(1, 9))


# -- replay points, and byte equality with the live projector -------------------------------------


def test_replay_until_round_and_time(db: Path):
    _two_rounds(db)
    assert _json("replay", TID, "--until", "round:1", "--projection", "standings")["as_of_seq"] == 8
    # round 2: g4 has no result yet, so the point is g3's result, marked incomplete.
    res = _run("replay", TID, "--until", "round:2", "--json")
    assert json.loads(res.stdout.splitlines()[0])["as_of_seq"] == 10
    assert "round incomplete" in res.stderr and "g4" in res.stderr
    _run("replay", TID, "--until", "round:7", code=1)
    _run("replay", TID, "--until", "yesterday", code=1)
    _run("replay", TID, "--until", "1", "--projection", "nope", code=1)

    envs = _events(db)
    # All of them were recorded in one batch: at its recorded_at everything is in.
    t = envs[0].recorded_at.isoformat().replace("+00:00", "Z")
    assert _json("replay", TID, "--until", t, "--projection", "standings")["as_of_seq"] == 10
    assert _run("replay", TID, "--until", "2020-01-01T00:00:00Z", "--json").stdout == ""


def test_replay_until_byte_equals_live_messages_at_each_seq(db: Path):
    _two_rounds(db)
    _run("correct", TID, "g1", "--result", "0-1", "--reason", "scoresheet swapped")
    _append(db, result("g4", "1-0", "resignation"))
    # The live processor: one Projector, event by event, keeping what it published per seq.
    live = Projector()
    latest: dict[str, bytes] = {}
    at_seq: dict[int, dict[str, bytes]] = {}
    for env in _events(db):
        for msg in live.run([env]):
            assert msg.as_of_seq == env.seq
            latest[msg.projection] = msg.body
        at_seq[env.seq] = dict(latest)
    for seq, published in at_seq.items():
        lines = _run("replay", TID, "--until", str(seq), "--json").stdout.encode().splitlines()
        replayed = {json.loads(b)["projection"]: b for b in lines}
        assert set(replayed) == {"standings", "tiebreaks", "playoff", "prizes", "games"}
        for name, body in published.items():
            doc = json.loads(body)
            if doc["as_of_seq"] == seq:  # published at this seq: byte for byte the same
                assert replayed[name] == body, (seq, name)
            else:  # unchanged since: the same data
                assert json.loads(replayed[name])["data"] == doc["data"], (seq, name)


# -- verify ---------------------------------------------------------------------------------------


def _sql(db: Path, *statements: tuple[str, tuple]) -> None:
    conn = sqlite3.connect(db)
    with conn:
        for sql, args in statements:
            conn.execute(sql, args)
    conn.close()


def test_verify_ok_reports_the_head_hash(db: Path):
    _two_rounds(db)
    v = _json("verify", TID)
    assert v["ok"] and v["events"] == 10 and v["head_seq"] == 10
    assert v["head_hash"] == _events(db)[-1].hash
    assert "OK" in _run("verify", TID).stdout
    _run("verify", "nobody", code=1)


def test_verify_catches_an_altered_body(db: Path):
    _two_rounds(db)
    conn = sqlite3.connect(db)
    (body,) = conn.execute(
        "SELECT body FROM events WHERE tournament_id = ? AND seq = 7", (TID,)
    ).fetchone()
    conn.close()
    tampered = bytes(body).replace(b'"result":"1-0"', b'"result":"0-1"')
    assert tampered != bytes(body)
    _sql(db, ("UPDATE events SET body = ? WHERE tournament_id = ? AND seq = 7", (tampered, TID)))
    v = _json("verify", TID, code=1)
    assert not v["ok"] and v["verified_up_to_seq"] == 6
    assert (v["broken"]["seq"], v["broken"]["kind"]) == (7, "altered")
    assert "hash mismatch" in v["broken"]["detail"]
    assert "BROKEN" in _run("verify", TID, code=1).stdout


def test_verify_catches_a_removed_event(db: Path):
    _two_rounds(db)
    _sql(db, ("DELETE FROM events WHERE tournament_id = ? AND seq = 4", (TID,)))
    v = _json("verify", TID, code=1)
    assert (v["broken"]["seq"], v["broken"]["kind"]) == (4, "removed")
    assert v["broken"]["found_seq"] == 5


def test_verify_catches_reordered_events(db: Path):
    _two_rounds(db)
    q = "UPDATE events SET seq = ? WHERE tournament_id = ? AND seq = ?"
    _sql(db, (q, (-1, TID, 3)), (q, (3, TID, 8)), (q, (8, TID, -1)))
    v = _json("verify", TID, code=1)
    assert (v["broken"]["seq"], v["broken"]["kind"]) == (3, "reordered")
    assert v["broken"]["found_seq"] == 8


def test_verify_catches_a_rehashed_alteration_at_the_link(db: Path):
    # The tamperer recomputes the altered event's own hash: its successor's prev_hash betrays it.
    from events_schema.codec import dumps, loads
    from events_schema.envelope import chain_hash

    _two_rounds(db)
    raw = loads(bytes(_events(db)[6].to_bytes()))
    raw["payload"]["result"] = "0-1"
    raw["hash"] = chain_hash(raw)
    _sql(db, ("UPDATE events SET body = ? WHERE tournament_id = ? AND seq = 7", (dumps(raw), TID)))
    v = _json("verify", TID, code=1)
    assert (v["broken"]["seq"], v["broken"]["kind"]) == (8, "altered")
    assert "prev_hash" in v["broken"]["detail"] and "seq 7" in v["broken"]["detail"]


def test_replay_and_diff_show_the_current_round_of_the_games_document(db: Path):
    """The fifth document (`games`): `replay` prints the current round's boards, `diff` names
    each game that changed, keyed by its game id."""
    _two_rounds(db)
    text = _run("replay", TID, "--until", "8", "--projection", "games").stdout
    assert "main round 1, 2/2 ended, 0 in progress" in text
    assert "1-0" in text and "1/2-1/2" in text and "scheduled" not in text  # both ended
    report = _json("diff", TID, "--from", "9", "--to", "10")
    games = report["projections"]["games"]
    changed = {row["key"]: row for row in games["pairings"]}
    assert set(changed) == {"g3"}  # g4 did not change; the round is round 2 at both points
    assert changed["g3"]["fields"]["result"] == [None, "1/2-1/2"]
    assert changed["g3"]["fields"]["status"] == ["scheduled", "ended"]
    text = _run("diff", TID, "--from", "9", "--to", "10").stdout
    # Each game by its players' names, its id beside them (issue 24: names, not ids).
    [g3] = [line for line in text.splitlines() if "(g3): " in line]
    assert g3.strip().startswith(f"{changed['g3']['name']} (g3): "), g3
    assert " – " in changed["g3"]["name"] and "status scheduled -> ended" in g3
