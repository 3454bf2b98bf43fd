"""The result routes over HTTP (services/api/results.py, issue 24's organiser HTTP contract),
with FastAPI's TestClient on both event logs: a round's boards, one board's result, a whole
round, a correction by board (admins only), and their refusals."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests_support import cmd

from services.api.app import create_app
from services.commands.auth import TokenStore

T = "open-2026"


@pytest.fixture
def api(log_factory, tmp_path: Path):
    tokens = TokenStore(tmp_path / "tokens.sqlite3")
    log = log_factory()
    client = TestClient(create_app(log, tokens))
    t = {
        "admin": tokens.create("admin", "chief")[0],
        "arbiter": tokens.create("arbiter", "ref-1", [T])[0],
        "other": tokens.create("arbiter", "ref-2", ["elsewhere"])[0],
        "auditor": tokens.create("auditor", "audit")[0],
    }
    setup = {
        "commands": [
            cmd("TournamentCreated", name="Open 2026", format="swiss", rounds=5),
            *[cmd("PlayerRegistered", player_id=p, name=n) for p, n in PLAYERS],
            cmd(
                "RoundScheduled",
                round=1,
                pairings=[
                    {"game_id": "g1", "white": "a", "black": "b", "board": 1},
                    {"game_id": "g2", "white": "c", "black": "d", "board": 2},
                    {"game_id": "g3", "white": "e", "black": "f", "board": 3},
                ],
                byes=[{"player_id": "g"}],
            ),
        ]
    }
    r = client.post(f"/tournaments/{T}/commands", json=setup, headers=H(t["admin"]))
    assert r.status_code == 201, r.text
    return client, t, log


PLAYERS = [
    ("a", "Carlsen, Magnus"),
    ("b", "Caruana, Fabiano"),
    ("c", "Nakamura, Hikaru"),
    ("d", "Ding, Liren"),
    ("e", "Firouzja, Alireza"),
    ("f", "Gukesh, D"),
    ("g", "Giri, Anish"),
]


def H(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _error(r, status: int, rule: str) -> dict[str, str]:
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert err["rule"] == rule, err
    return err


def test_rounds_and_a_rounds_boards(api) -> None:
    client, t, _ = api
    r = client.get(f"/tournaments/{T}/rounds", headers=H(t["auditor"]))
    assert r.status_code == 200
    assert r.json() == {"tournament_id": T, "current_round": 1, "rounds": [1]}
    r = client.get(f"/tournaments/{T}/rounds?stage=playoff", headers=H(t["auditor"]))
    assert r.json() == {"tournament_id": T, "current_round": None, "rounds": []}
    body = client.get(f"/tournaments/{T}/rounds/1", headers=H(t["arbiter"])).json()
    assert (body["tournament_id"], body["round"], body["stage"]) == (T, 1, "main")
    assert body["boards"][0] == {
        "board": 1,
        "game_id": "g1",
        "white": {"player_id": "a", "name": "Carlsen, Magnus", "start_no": 1},
        "black": {"player_id": "b", "name": "Caruana, Fabiano", "start_no": 2},
        "result": None,
        "termination": None,
        "ending": "",
        "corrected": False,
    }
    assert body["byes"] == [{"player_id": "g", "name": "Giri, Anish", "kind": "pairing_allocated"}]
    _error(
        client.get(f"/tournaments/{T}/rounds/2", headers=H(t["arbiter"])),
        404,
        "result.no_such_round",
    )
    unknown = _error(
        client.get("/tournaments/nope/rounds/1", headers=H(t["admin"])),
        404,
        "result.unknown_tournament",
    )
    assert unknown["field"] == "tournament_id"  # this API's name, not the CLI's TOURNAMENT
    _error(client.get(f"/tournaments/{T}/rounds/1"), 401, "auth.missing_token")


def test_one_boards_result_then_a_resend_then_another_result(api) -> None:
    client, t, log = api
    url = f"/tournaments/{T}/rounds/1/boards/2/result"
    r = client.post(url, json={"result": "0-1", "how": "resignation"}, headers=H(t["arbiter"]))
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["tournament_id"] == T and body["duplicate"] is False
    (event,) = body["events"]
    assert event["type"] == "GameEnded" and event["seq"] == body["last_seq"]
    payload = event["payload"]
    assert (payload["game_id"], payload["result"], payload["termination"]) == (
        "g2",
        "0-1",
        "resignation",
    )
    assert event["actor"] == {"id": "ref-1", "role": "arbiter"}
    boards = client.get(f"/tournaments/{T}/rounds/1", headers=H(t["arbiter"])).json()["boards"]
    assert (boards[1]["termination"], boards[1]["ending"]) == ("resignation", "resignation")
    r = client.post(url, json={"result": "0-1"}, headers=H(t["arbiter"]))  # a resend
    assert r.status_code == 200
    assert r.json() == {
        "tournament_id": T,
        "duplicate": True,
        "last_seq": body["last_seq"],
        "events": [],
    }
    err = _error(
        client.post(url, json={"result": "½"}, headers=H(t["arbiter"])),
        409,
        "result.already_entered",
    )
    assert "arbiter correct" in err["message"]
    assert log.last_seq(T) == body["last_seq"]


def test_refusals_of_a_boards_result(api) -> None:
    client, t, log = api
    seq = log.last_seq(T)
    base = f"/tournaments/{T}/rounds/1/boards"
    err = _error(
        client.post(f"{base}/9/result", json={"result": "1-0"}, headers=H(t["arbiter"])),
        404,
        "result.no_such_board",
    )
    assert "1–3" in err["message"]
    err = _error(
        client.post(f"{base}/1/result", json={"result": "1:O"}, headers=H(t["arbiter"])),
        422,
        "result.bad_notation",
    )
    assert err["field"] == "result"
    err = _error(
        client.post(
            f"{base}/1/result", json={"result": "½", "how": "resignation"}, headers=H(t["arbiter"])
        ),
        422,
        "result.termination_mismatch",
    )
    assert "FIDE Laws 5.1.2" in err["message"]
    _error(
        client.post(
            f"{base}/1/result", json={"result": "1-0", "colour": "w"}, headers=H(t["arbiter"])
        ),
        422,
        "request.invalid",
    )
    _error(
        client.post(f"{base}/1/result", json={"result": "1-0"}, headers=H(t["other"])),
        403,
        "auth.forbidden",
    )
    _error(
        client.post(f"{base}/1/result", json={"result": "1-0"}, headers=H(t["auditor"])),
        403,
        "auth.forbidden",
    )
    _error(client.post(f"{base}/1/result", json={"result": "1-0"}), 401, "auth.missing_token")
    assert log.last_seq(T) == seq


def test_a_whole_round_is_all_or_nothing(api) -> None:
    client, t, log = api
    url = f"/tournaments/{T}/rounds/1/results"
    seq = log.last_seq(T)
    err = _error(
        client.post(url, json={"results": "1-0 ½"}, headers=H(t["arbiter"])),
        422,
        "result.count_mismatch",
    )
    assert "2 result(s) for the 3 board(s)" in err["message"]
    err = _error(
        client.post(url, json={"results": "1-0 ½ x"}, headers=H(t["arbiter"])),
        422,
        "result.bad_notation",
    )
    assert err["field"] == "results[2]"
    assert log.last_seq(T) == seq
    r = client.post(url, json={"results": "1-0 ½ -+"}, headers=H(t["arbiter"]))
    assert r.status_code == 201, r.text
    got = [
        (e["payload"]["game_id"], e["payload"]["result"], e["payload"]["termination"])
        for e in r.json()["events"]
    ]
    assert got == [("g1", "1-0", "other"), ("g2", "1/2-1/2", "agreement"), ("g3", "0-1", "forfeit")]
    again = client.post(url, json={"results": ["1-0", "1/2", "-+"]}, headers=H(t["arbiter"]))
    assert again.status_code == 200 and again.json()["events"] == []


def test_a_round_from_a_csv_body(api) -> None:
    client, t, _ = api
    headers = {**H(t["arbiter"]), "Content-Type": "text/csv"}
    r = client.post(
        f"/tournaments/{T}/rounds/1/results", content="board,result\n2,1-0\n", headers=headers
    )
    assert r.status_code == 201, r.text
    assert [e["payload"]["game_id"] for e in r.json()["events"]] == ["g2"]
    bad = client.post(
        f"/tournaments/{T}/rounds/1/results",
        content="board,result\n2,1-0\n2,0-1\n",
        headers=headers,
    )
    assert _error(bad, 422, "result.bad_csv")["field"] == "body:3:board"


def test_a_correction_by_board_is_for_admins(api) -> None:
    client, t, log = api
    early = client.post(
        f"/tournaments/{T}/rounds/1/boards/1/correction",
        json={"result": "0-1", "reason": "x"},
        headers=H(t["admin"]),
    )
    assert _error(early, 422, "correction.no_result")["field"] == "board"
    client.post(
        f"/tournaments/{T}/rounds/1/results", json={"results": "1-0 ½ 0-1"}, headers=H(t["arbiter"])
    )
    url = f"/tournaments/{T}/rounds/1/boards/1/correction"
    seq = log.last_seq(T)
    err = _error(
        client.post(url, json={"result": "0-1", "reason": "swapped"}, headers=H(t["arbiter"])),
        403,
        "auth.admin_only",
    )
    assert "ref-1" in err["message"]
    _error(client.post(url, json={"result": "0-1"}, headers=H(t["admin"])), 422, "request.invalid")
    assert log.last_seq(T) == seq
    r = client.post(url, json={"result": "½", "reason": "score sheet"}, headers=H(t["admin"]))
    assert r.status_code == 201, r.text
    (fix,) = r.json()["events"]
    assert fix["type"] == "ResultCorrected"
    assert (fix["payload"]["result"], fix["payload"]["termination"]) == ("1/2-1/2", "agreement")
    again = client.post(url, json={"result": "½", "reason": "again"}, headers=H(t["admin"]))
    _error(again, 422, "correction.no_change")
    board = client.get(f"/tournaments/{T}/rounds/1", headers=H(t["admin"])).json()["boards"][0]
    assert (board["result"], board["corrected"]) == ("1/2-1/2", True)
    err = _error(
        client.post(
            f"/tournaments/{T}/rounds/1/boards/1/correction",
            json={"result": "1-0", "reason": "x", "how": "stalemate"},
            headers=H(t["admin"]),
        ),
        422,
        "result.termination_mismatch",
    )
    assert "5.2.1" in err["message"]


def test_a_result_entered_without_its_ending_reads_in_words(api) -> None:
    """The stored termination is "other"; the route names it as the console shows it."""
    client, t, _ = api
    url = f"/tournaments/{T}/rounds/1/boards/1/result"
    assert client.post(url, json={"result": "1-0"}, headers=H(t["arbiter"])).status_code == 201
    (board, *_) = client.get(f"/tournaments/{T}/rounds/1", headers=H(t["arbiter"])).json()["boards"]
    assert (board["termination"], board["ending"]) == ("other", "result entered by the arbiter")
