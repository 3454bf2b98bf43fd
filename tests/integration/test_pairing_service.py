"""`arbiter pair` / `arbiter schedule` and `POST /tournaments/{id}/pair` end to end on the
embedded log: the lots and the round are appended in one batch through the command path, an
unfinished round refuses the next (appending nothing), a resend with `--round` appends nothing,
a correction after pairing leaves the published round standing and flagged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from builders import batch, created, player, result
from fastapi.testclient import TestClient
from tests_support import ADMIN_ACTOR
from typer.testing import CliRunner

from events_schema import Recorded
from events_schema import events as ev
from projections.documents import corrections_after_pairing
from projections.standings import fold
from services.api.app import create_app
from services.auth import TokenStore
from services.cli.main import app
from services.commands import CommandService
from services.eventlog.sqlite import SQLiteEventLog
from services.lots import redraw

runner = CliRunner()
TID = "pair-open"
RATINGS = {"ana": 2400, "bo": 2350, "cy": 2300, "di": 2250, "ed": 2200}


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


def _events(db: Path, tid: str = TID):
    log = SQLiteEventLog(db)
    envs = list(log.read(tid))
    log.close()
    return envs


def _run(*args: str, code: int = 0):
    res = runner.invoke(app, list(args))
    assert res.exit_code == code, res.output
    return res


def _pair_json(*args: str) -> dict:
    return json.loads(_run("pair", TID, "--json", *args).stdout)


def _swiss(db: Path, fmt: str = "swiss", **kw) -> None:
    _append(
        db,
        created(fmt=fmt, rounds=kw.pop("rounds", 4), **kw),
        *[player(p, r) for p, r in RATINGS.items()],
    )


def _finish(db: Path, body: dict, res: str = "1-0") -> None:
    _append(db, *[result(p["game_id"], res) for p in body["pairings"]])


def test_pair_appends_its_lots_then_the_round_in_one_batch(db: Path):
    _swiss(db)
    body = _pair_json("--seed", "demo")
    assert body["appended"] and body["round"] == 1 and body["system"] == "dutch"
    envs = _events(db)
    tail = envs[-(len(body["lots"]) + 1) :]
    assert [e.type for e in tail] == ["LotDrawn"] * len(body["lots"]) + ["RoundScheduled"]
    assert body["round_seq"] == envs[-1].seq
    # one batch: the lots and the round share the first command's correlation id
    assert len({e.correlation_id for e in tail}) <= len(tail)
    # 5 players: 2 games and a pairing-allocated bye to the lowest (C.04.3: the PAB)
    assert len(body["pairings"]) == 2
    assert [b["player_id"] for b in body["byes"]] == ["ed"]
    paired = {p["white"] for p in body["pairings"]} | {p["black"] for p in body["pairings"]}
    assert paired == {"ana", "bo", "cy", "di"}
    for lot in body["lots"]:  # every lot can be re-run from its seed by an auditor
        stored = next(e for e in envs if e.seq == lot["seq"])
        assert redraw(Recorded.of(stored).event) == lot["outcome"]  # type: ignore[arg-type]


def test_an_unfinished_round_refuses_the_next_and_appends_nothing(db: Path):
    _swiss(db)
    _pair_json()
    before = len(_events(db))
    res = _run("pair", TID, code=1)
    assert "pairing.round_unfinished" in res.output
    assert len(_events(db)) == before


def test_a_resend_with_round_appends_nothing(db: Path):
    _swiss(db)
    first = _pair_json("--round", "1")
    again = _pair_json("--round", "1")
    assert not again["appended"] and again["pairings"] == first["pairings"]
    res = _run("pair", TID, "--round", "3", code=1)
    assert "pairing.not_next_round" in res.output


def test_rounds_follow_scores_and_never_repeat_an_opponent(db: Path):
    _swiss(db, rounds=4)
    met: set[frozenset[str]] = set()
    byes: list[str] = []
    for rnd in range(1, 5):
        body = _pair_json()
        assert body["round"] == rnd
        for p in body["pairings"]:
            pair = frozenset((p["white"], p["black"]))
            assert pair not in met, f"rematch {pair} in round {rnd}"
            met.add(pair)
        byes += [b["player_id"] for b in body["byes"]]
        _finish(db, body)
    assert len(byes) == len(set(byes)) == 4  # one bye per round, never twice to a player


def test_a_correction_after_pairing_is_flagged_not_repaired(db: Path):
    _swiss(db)
    r1 = _pair_json()
    _finish(db, r1)
    r2 = _pair_json()
    wrong = next(e for e in _events(db) if e.type == "GameEnded")
    g = wrong.payload["game_id"]
    _run("correct", TID, g, "--result", "0-1", "--reason", "scoresheet shows 0-1")
    state = fold([Recorded.of(e) for e in _events(db)])
    flags = corrections_after_pairing(state)
    assert [(f["game_id"], f["rounds_paired_before"]) for f in flags] == [(g, [2])]
    again = _pair_json("--round", "2")  # round 2 stands as published
    assert again["pairings"] == r2["pairings"] and not again["appended"]


def test_round_robin_schedule_lists_every_round_once_numbers_are_drawn(db: Path):
    _append(db, created(fmt="round_robin", rounds=3), *[player(p) for p in "abcd"])
    body = _pair_json("--seed", "s")
    assert [lot["purpose"] for lot in body["lots"]] == ["pairing_numbers"]
    sched = json.loads(_run("schedule", TID, "--json").stdout)
    assert sched["system"] == "berger"
    assert [(r["round"], r["status"]) for r in sched["rounds"]] == [
        (1, "scheduled"),
        (2, "planned"),
        (3, "planned"),
    ]
    seen = [frozenset((p["white"], p["black"])) for r in sched["rounds"] for p in r["pairings"]]
    assert len(seen) == len(set(seen)) == 6  # every pair meets exactly once


def test_a_tournament_without_a_system_is_refused(db: Path):
    _append(db, created(fmt="match"), player("a"), player("b"))
    res = _run("pair", TID, code=1)
    assert "pairing.no_system" in res.output
    assert [e.type for e in _events(db)] == ["TournamentCreated"] + ["PlayerRegistered"] * 2


# -- HTTP ---------------------------------------------------------------------------------------


@pytest.fixture
def api(db: Path, tmp_path: Path):
    tokens = TokenStore(tmp_path / "tokens.sqlite3")
    log = SQLiteEventLog(db)
    client = TestClient(create_app(log, tokens))
    t = {
        "arbiter": tokens.create("arbiter", "ref-1", [TID])[0],
        "other": tokens.create("arbiter", "ref-2", ["elsewhere"])[0],
        "broadcaster": tokens.create("broadcaster", "tv")[0],
    }
    yield client, t
    log.close()


def H(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_api_pair_needs_the_tournaments_arbiter(db: Path, api):
    client, t = api
    _swiss(db)
    n = len(_events(db))
    assert client.post(f"/tournaments/{TID}/pair").status_code == 401
    for who in ("broadcaster", "other"):
        r = client.post(f"/tournaments/{TID}/pair", json={}, headers=H(t[who]))
        assert r.status_code == 403, r.text
    assert len(_events(db)) == n  # unauthorised callers get nothing
    r = client.post(f"/tournaments/{TID}/pair", json={"round": 1}, headers=H(t["arbiter"]))
    assert r.status_code == 201, r.text
    assert r.json()["round"] == 1
    again = client.post(f"/tournaments/{TID}/pair", json={"round": 1}, headers=H(t["arbiter"]))
    assert again.status_code == 200 and not again.json()["appended"]
    bad = client.post(f"/tournaments/{TID}/pair", json={"round": 0}, headers=H(t["arbiter"]))
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "body.round"
    busy = client.post(f"/tournaments/{TID}/pair", json={}, headers=H(t["arbiter"]))
    assert busy.status_code == 422
    assert busy.json()["error"]["rule"] == "pairing.round_unfinished"
    sched = client.get(f"/tournaments/{TID}/schedule", headers=H(t["broadcaster"]))
    assert sched.status_code == 200 and sched.json()["rounds"][0]["round"] == 1


def test_api_exports_the_paired_rounds_as_trf(db: Path, api):
    client, t = api
    _swiss(db)
    r = client.post(f"/tournaments/{TID}/pair", json={}, headers=H(t["arbiter"]))
    assert r.status_code == 201
    assert client.get(f"/tournaments/{TID}/trf").status_code == 401
    trf = client.get(f"/tournaments/{TID}/trf", headers=H(t["broadcaster"]))
    assert trf.status_code == 200 and trf.headers["content-type"].startswith("text/plain")
    lines = trf.text.splitlines()
    assert "XXR 4" in lines
    assert sum(1 for line in lines if line.startswith("001 ")) == len(RATINGS)
    missing = client.get("/tournaments/nobody-here/trf", headers=H(t["broadcaster"]))
    assert missing.status_code == 404
