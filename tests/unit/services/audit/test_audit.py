"""The pure parts of the audit: points, replay to a point, diff, chain verification."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from builders import T0, created, player, recorded, result, round_

from events_schema.codec import dumps, loads
from services.audit import replay as audit
from services.projection.projector import replay


def _stream():
    events = [
        created(rounds=2),
        player("a"),
        player("b"),
        round_(1, ("g1", "a", "b")),  # seq 4
        result("g1", "1-0", "resignation"),  # seq 5
        round_(2, ("g2", "b", "a")),  # seq 6
    ]
    return [r.envelope for r in recorded("t", events)]  # recorded_at = T0 + seq seconds


def test_parse_point():
    assert audit.parse_point("12") == audit.Point("seq", seq=12, text="12")
    p = audit.parse_point("round:3")
    assert (p.kind, p.round, p.stage) == ("round", 3, "main")
    p = audit.parse_point("round:playoff:2")
    assert (p.kind, p.round, p.stage) == ("round", 2, "playoff")
    p = audit.parse_point("2026-11-21T13:00:00+01:00")
    assert p.time == datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
    assert audit.parse_point("2026-11-21").time == datetime(2026, 11, 21, tzinfo=UTC)
    for bad in ("round:0", "2026-11-21T12:00:00", "soon", "-1"):
        with pytest.raises(ValueError):
            audit.parse_point(bad)


def test_resolve_seq_time_round():
    envs = _stream()
    assert audit.resolve_point(audit.parse_point("3"), envs).seq == 3
    assert audit.resolve_point(audit.parse_point("99"), envs).seq == 6
    at = (T0 + timedelta(seconds=4)).isoformat()
    assert audit.resolve_point(audit.parse_point(at), envs).seq == 4
    r1 = audit.resolve_point(audit.parse_point("round:1"), envs)
    assert (r1.seq, r1.complete) == (5, True)
    r2 = audit.resolve_point(audit.parse_point("round:2"), envs)
    assert (r2.seq, r2.complete) == (6, False) and "g2" in r2.note
    with pytest.raises(LookupError):
        audit.resolve_point(audit.parse_point("round:3"), envs)


def test_time_point_is_a_prefix_even_if_a_clock_stepped_back():
    envs = _stream()
    envs[2] = envs[2].model_copy(update={"recorded_at": T0 + timedelta(hours=1)})
    at = (T0 + timedelta(seconds=30)).isoformat()
    assert audit.resolve_point(audit.parse_point(at), envs).seq == 2


def test_replay_to_matches_projector_replay():
    envs = _stream()
    for seq in range(1, 7):
        assert audit.replay_to(envs, "t", seq) == replay(envs[:seq], "t")
    assert audit.replay_to(envs, "t", 0) == {}
    assert list(audit.replay_to(envs, "t", 5, ["prizes"])) == ["prizes"]
    ticks: list[int] = []
    audit.replay_to(envs, "t", 4, on_event=ticks.append)
    assert ticks == [1, 2, 3, 4]


def test_diff_document_rows_fields_and_flags():
    before = {"rows": [{"player_id": "a", "place": 1, "score": "1"}], "flags": []}
    after = {
        "rows": [{"player_id": "a", "place": 2, "score": "1"}, {"player_id": "b", "place": 1}],
        "flags": [{"game_id": "g1", "text": "x"}],
    }
    d = audit.diff_document("standings", before, after)
    assert d["changed"]
    assert d["rows"][0] == {"key": "a", "change": "changed", "fields": {"place": [1, 2]}}
    assert d["rows"][1]["change"] == "added"
    assert d["flags_added"] == [{"game_id": "g1", "text": "x"}]
    tb = audit.diff_document(
        "tiebreaks",
        {"rows": [{"player_id": "a", "values": {"bh": "1"}}]},
        {"rows": [{"player_id": "a", "values": {"bh": "2"}}]},
    )
    assert tb["rows"][0]["fields"] == {"values.bh": ["1", "2"]}
    po = audit.diff_document("playoff", {"status": "waiting"}, {"status": "decided"})
    assert po["status"] == ["waiting", "decided"]
    assert audit.diff_document("prizes", {}, {})["changed"] is False


def test_diff_lists_events_and_counts_moves():
    envs = _stream()
    d = audit.diff(envs, "t", 4, 6)
    assert [e["seq"] for e in d["events"]] == [5, 6]
    assert d["events"][0]["result"] == "1-0" and d["events"][0]["game_id"] == "g1"
    with pytest.raises(ValueError):
        audit.diff(envs, "t", 6, 4)


def _raw():
    return [e.to_bytes() for e in _stream()]


def test_verify_chain_ok_and_empty():
    v = audit.verify_chain("t", _raw())
    assert v.ok and v.head_seq == 6 and v.head_hash == _stream()[-1].hash
    assert v.as_dict()["head_hash"] == v.head_hash
    assert audit.verify_chain("t", []).ok


@pytest.mark.parametrize(
    ("tamper", "seq", "kind"),
    [
        (lambda rs: rs[:3] + rs[4:], 4, "removed"),
        (lambda rs: [rs[0], rs[2], rs[1], *rs[3:]], 2, "reordered"),
        (lambda rs: [*rs[:2], rs[1], *rs[2:]], 3, "reordered"),  # a repeated event
        (lambda rs: [*rs[:4], b"not json", rs[5]], 5, "altered"),
        (lambda rs: [*rs[:4], rs[4].replace(b'"1-0"', b'"0-1"'), rs[5]], 5, "altered"),
        (
            lambda rs: [
                *rs[:4],
                rs[4].replace(b'"tournament_id":"t"', b'"tournament_id":"u"'),
                rs[5],
            ],
            5,
            "altered",
        ),
    ],
)
def test_verify_chain_names_the_first_broken_link(tamper, seq, kind):
    v = audit.verify_chain("t", tamper(_raw()))
    assert not v.ok
    assert v.broken is not None and (v.broken["seq"], v.broken["kind"]) == (seq, kind)
    assert v.head_seq == seq - 1


def test_verify_chain_rehashed_alteration_shows_at_the_next_link():
    from events_schema.envelope import chain_hash

    raws = _raw()
    doc = loads(raws[2])
    doc["payload"]["name"] = "Mallory"
    doc["hash"] = chain_hash(doc)
    raws[2] = dumps(doc)
    v = audit.verify_chain("t", raws)
    assert v.broken is not None and (v.broken["seq"], v.broken["kind"]) == (4, "altered")
    assert "prev_hash" in v.broken["detail"]


@pytest.mark.slow
def test_replay_benchmark_smoke(monkeypatch: pytest.MonkeyPatch):
    """`python -m tests.bench.replay` at a tiny size: it runs and reports every figure."""
    monkeypatch.delenv("KAFKA_BOOTSTRAP", raising=False)
    from tests.bench.replay import main

    doc = main(["--events", "1500"], emit=False)
    sq = doc["sqlite"]
    assert sq["events"] == 1500
    for key in ("read_raw", "read_decode", "replay"):
        assert sq[key]["events"] == 1500 and sq[key]["events_per_s"] > 0, key
    assert doc["kafka"] == {"skipped": "no KAFKA_BOOTSTRAP"}
