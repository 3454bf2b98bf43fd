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
from services.cli.main import app
from services.commands.auth import TokenStore
from services.commands.lots import redraw
from services.commands.service import CommandService
from services.eventlog.sqlite import SQLiteEventLog

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


def test_api_and_cli_export_the_same_file_numbered_by_the_initial_ranking(db: Path, api):
    """The default export numbers the field as our Dutch did (C.04.2 initial order: rating,
    then title), the same over HTTP and from the CLI; `order` asks for another numbering."""
    client, t = api
    _append(
        db,
        created(fmt="swiss", rounds=3),
        *(
            ev.PlayerRegistered(player_id=p, name=p.title(), rating=r, title=title)
            for p, r, title in (("al", 2200, None), ("bo", 2200, "FM"), ("cy", 2300, None))
        ),
    )
    assert client.post(f"/tournaments/{TID}/pair", json={}, headers=H(t["arbiter"])).is_success
    url = f"/tournaments/{TID}/trf"
    trf = client.get(url, headers=H(t["broadcaster"]))
    cli = _run("export", "trf", TID)
    assert trf.status_code == 200 and trf.content == cli.stdout_bytes

    def names(text: str) -> list[str]:
        return [line[14:47].strip() for line in text.splitlines() if line.startswith("001")]

    assert names(trf.text) == ["Cy", "Bo", "Al"]  # FM before no title at 2200 (C.04.2 b)
    reg = client.get(url, params={"order": "registration"}, headers=H(t["broadcaster"]))
    assert names(reg.text) == ["Al", "Bo", "Cy"]
    assert reg.content == _run("export", "trf", TID, "--order", "registration").stdout_bytes
    bad = client.get(url, params={"order": "seed"}, headers=H(t["broadcaster"]))
    assert bad.status_code == 422


# -- re-pairing: --replace ----------------------------------------------------------------------


def _rounds_in_force(db: Path) -> dict[tuple[str, int], str]:
    state = fold([Recorded.of(e) for e in _events(db)])
    return {k: str(v) for k, v in state.round_keys.items()}


def _count_batches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of commands of every batch handed to the command path."""
    sizes: list[int] = []
    handle = CommandService.handle

    def counting(self, tid, batch, actor):  # type: ignore[no-untyped-def]
        sizes.append(len(batch.commands))
        return handle(self, tid, batch, actor)

    monkeypatch.setattr(CommandService, "handle", counting)
    return sizes


def test_replace_repairs_an_unstarted_round_in_one_batch(db: Path, monkeypatch):
    _swiss(db)
    r1 = _pair_json("--seed", "demo")
    old_id = _rounds_in_force(db)[("main", 1)]
    _append(db, player("fay", 2500))  # entered before round 1 began: re-pair it
    before = len(_events(db))
    sizes = _count_batches(monkeypatch)
    body = _pair_json("--replace", "--reason", "fay's entry was missed")
    envs = _events(db)
    assert sizes == [2] and len(envs) == before + 2  # ONE batch: retraction, new round
    retraction, new = envs[-2:]
    assert (retraction.type, new.type) == ("EventRetracted", "RoundScheduled")
    assert retraction.payload == {
        "retracted_event_id": old_id,
        "reason": "fay's entry was missed",
    }
    assert retraction.correlation_id is not None
    assert body["appended"] and body["round"] == 1 and body["round_seq"] == new.seq
    assert body["replaced"] == {
        "stage": "main",
        "round": 1,
        "event_id": old_id,
        "seq": r1["round_seq"],
        "retraction_seq": retraction.seq,
    }
    assert body["lots"] == []  # the initial colour drawn for the first pairing stays in force
    # a valid round 1 of the six: each once, fay (top rated) on board 1, no bye
    players = [x for p in body["pairings"] for x in (p["white"], p["black"])]
    assert sorted(players) == sorted([*RATINGS, "fay"]) and body["byes"] == []
    assert "fay" in (body["pairings"][0]["white"], body["pairings"][0]["black"])
    assert _rounds_in_force(db) == {("main", 1): str(new.event_id)}
    # the tournament goes on from the new round
    _finish(db, body)
    assert _pair_json()["round"] == 2


def test_replace_is_refused_once_a_game_has_started(db: Path):
    _swiss(db)
    r1 = _pair_json()
    game = r1["pairings"][1]["game_id"]
    _append(db, ev.GameStarted(game_id=game))  # started, no result yet
    before = _events(db)
    res = _run("pair", TID, "--replace", code=1)
    assert "pairing.round_in_play" in res.output
    assert f"game {game} has started (no result yet)" in res.output
    assert _events(db) == before  # nothing appended


def test_replace_is_refused_once_a_game_has_ended(db: Path):
    _swiss(db)
    r1 = _pair_json()
    game = r1["pairings"][0]["game_id"]
    _append(db, result(game, "1/2-1/2"))  # ended without a GameStarted
    before = _events(db)
    res = _run("pair", TID, "--replace", code=1)
    assert "pairing.round_in_play" in res.output and f"game {game} has ended" in res.output
    assert _events(db) == before


def test_replace_is_all_or_nothing(db: Path, monkeypatch):
    """A new round the decider refuses takes the retraction down with it."""
    import services.commands.pairing as pairing

    _swiss(db)
    _pair_json()
    plan = pairing.plan

    def twice(ctx, seed=None, drawer=pairing.draw):  # type: ignore[no-untyped-def]
        rnd, lots, notes = plan(ctx, seed, drawer)
        first = rnd.pairings[0]
        bad = first.model_copy(update={"black": rnd.pairings[1].white})
        return rnd.model_copy(update={"pairings": [bad, *rnd.pairings[1:]]}), lots, notes

    monkeypatch.setattr(pairing, "plan", twice)
    before = _events(db)
    res = _run("pair", TID, "--replace", code=1)
    assert "pairing.player_twice" in res.output, res.output
    assert _events(db) == before


def test_replace_needs_a_latest_round_to_replace(db: Path):
    _swiss(db)
    res = _run("pair", TID, "--replace", code=1)
    assert "pairing.nothing_to_replace" in res.output
    r1 = _pair_json()
    _finish(db, r1)
    _pair_json()
    res = _run("pair", TID, "--replace", "--round", "1", code=1)
    assert "pairing.not_latest_round" in res.output and "(2)" in res.output
    res = _run("pair", TID, "--reason", "no", code=1)
    assert "pairing.reason_without_replace" in res.output


def test_api_replace(db: Path, api, tmp_path: Path):
    client, t = api
    admin = TokenStore(tmp_path / "tokens.sqlite3").create("admin", "chief")[0]
    _swiss(db)
    r1 = client.post(f"/tournaments/{TID}/pair", json={}, headers=H(t["arbiter"]))
    assert r1.status_code == 201
    n = len(_events(db))
    # only the tournament's arbiter (or an admin) may re-pair: refused before pairing
    for who in ("broadcaster", "other"):
        r = client.post(f"/tournaments/{TID}/pair", json={"replace": True}, headers=H(t[who]))
        assert r.status_code == 403, r.text
    assert len(_events(db)) == n
    r = client.post(
        f"/tournaments/{TID}/pair",
        json={"replace": True, "round": 1, "reason": "wrong rating used"},
        headers=H(t["arbiter"]),
    )
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["round"] == 1 and body["replaced"]["round"] == 1
    assert [e.type for e in _events(db)[n:]] == ["EventRetracted", "RoundScheduled"]
    n = len(_events(db))
    r = client.post(f"/tournaments/{TID}/pair", json={"replace": True}, headers=H(admin))
    assert r.status_code == 201, r.text
    assert [e.type for e in _events(db)[n:]] == ["EventRetracted", "RoundScheduled"]
    game = body["pairings"][0]["game_id"]
    _append(db, ev.GameStarted(game_id=game))
    n = len(_events(db))
    r = client.post(f"/tournaments/{TID}/pair", json={"replace": True}, headers=H(admin))
    assert r.status_code == 422 and r.json()["error"]["rule"] == "pairing.round_in_play"
    assert len(_events(db)) == n
    r = client.post(f"/tournaments/{TID}/pair", json={"reason": "x"}, headers=H(admin))
    assert r.status_code == 422 and r.json()["error"]["rule"] == "pairing.reason_without_replace"


def test_an_arbiter_retracts_only_the_round_the_batch_schedules_again(db: Path):
    """services/commands/service.py `_check_repair`: an arbiter's EventRetracted is accepted only as
    a re-pair (the retracted RoundScheduled's stage and round scheduled again in the same
    batch); a retraction alone, or of another event, stays admin-only and appends nothing."""
    from events_schema import Actor
    from services.commands.service import CommandRejected

    _swiss(db)
    r1 = _pair_json()
    _finish(db, r1)
    r2 = _pair_json()
    envs = _events(db)
    rounds = [e for e in envs if e.type == "RoundScheduled"]
    first, second = rounds[0].event_id, rounds[1].event_id
    result_id = next(e.event_id for e in envs if e.type == "GameEnded")
    arbiter = Actor(id="ref-1", role="arbiter")
    again = ev.RoundScheduled.model_validate(
        {"round": 2, "stage": "main", "pairings": r2["pairings"], "byes": r2["byes"]}
    )
    log = SQLiteEventLog(db)
    service = CommandService(log)
    try:
        for target, rnd in (
            (second, None),  # a retraction alone
            (result_id, again),  # a result, not a round
            (first, again),  # round 1 retracted, round 2 scheduled
        ):
            events = [ev.EventRetracted(retracted_event_id=target, reason="x")]
            if rnd is not None:
                events.append(rnd)
            with pytest.raises(CommandRejected) as exc:
                service.handle(TID, batch(*events), arbiter)
            assert exc.value.rule == "auth.admin_only" and exc.value.status == 403
        assert len(list(log.read(TID))) == len(envs)
        ok = service.handle(
            TID,
            batch(ev.EventRetracted(retracted_event_id=second, reason="re-pair"), again),
            arbiter,
        )
        assert [e.type for e in ok.envelopes] == ["EventRetracted", "RoundScheduled"]
    finally:
        log.close()


def test_api_schedule_names_the_next_lots_as_the_cli_does(db: Path, api):
    """GET /tournaments/{id}/schedule and `arbiter schedule --json` are one use case
    (services/commands/schedule.py): before round 1, the Swiss's initial-colour lot and the
    command that draws it."""
    client, t = api
    _swiss(db)
    sched = client.get(f"/tournaments/{TID}/schedule", headers=H(t["broadcaster"]))
    assert sched.status_code == 200, sched.text
    (lot,) = sched.json()["next_lots"]
    assert (lot["purpose"], lot["source"]) == ("colours", "pairing")
    assert lot["run"].startswith(f"arbiter lot {TID} --next")
    assert sched.json() == json.loads(_run("schedule", TID, "--json").stdout)
