"""The entry routes of the organiser's HTTP contract (services/api/entries.py): create,
register (one entry, a list, a CSV body), the entry list, withdraw and bye, each through the
command path; 401 without a token, 403 for a reader or another tournament's arbiter, a
refusal with its rule and field and nothing appended."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from services.api.app import create_app
from services.commands.auth import TokenStore


@pytest.fixture
def api(log_factory, tmp_path: Path):
    tokens = TokenStore(tmp_path / "tokens.sqlite3")
    log = log_factory()
    client = TestClient(create_app(log, tokens))
    t = {
        "admin": tokens.create("admin", "chief")[0],
        "arbiter": tokens.create("arbiter", "ref-1", ["open"])[0],
        "other": tokens.create("arbiter", "ref-2", ["elsewhere"])[0],
        "broadcaster": tokens.create("broadcaster", "tv")[0],
    }
    return client, t, log


def H(token: str, **more: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", **more}


CREATE = {"name": "Club Open", "format": "swiss", "rounds": 5, "time_control": "90+30"}
CSV = "name;rating;fed;club\nCarlsen, Magnus;2830;NOR;Offerspill\nSmith, Anna;1500;ENG;\n"


def _setup(client: TestClient, t: dict[str, str]) -> None:
    r = client.post("/tournaments/open/create", json=CREATE, headers=H(t["arbiter"]))
    assert r.status_code == 201, r.text
    r = client.post(
        "/tournaments/open/players",
        content=CSV.encode(),
        headers=H(t["arbiter"], **{"Content-Type": "text/csv"}),
    )
    assert r.status_code == 201, r.text


def test_create_register_and_list_the_players(api):
    client, t, _log = api
    r = client.post("/tournaments/open/create", json=CREATE, headers=H(t["arbiter"]))
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["tournament_id"] == "open" and body["last_seq"] == 1
    event = body["events"][0]
    assert event["type"] == "TournamentCreated"
    assert event["actor"] == {"id": "ref-1", "role": "arbiter"}
    assert event["payload"]["time_controls"][0]["base_seconds"] == 5400
    r = client.post(
        "/tournaments/open/players",
        content=CSV.encode(),
        headers=H(t["arbiter"], **{"Content-Type": "text/csv; charset=utf-8"}),
    )
    assert r.status_code == 201, r.text
    assert [e["payload"]["player_id"] for e in r.json()["events"]] == [
        "carlsen-magnus",
        "smith-anna",
    ]
    r = client.post(
        "/tournaments/open/players",
        json={"entries": [{"name": "Dvořák, Jan", "rating": 2100, "club": "Praha"}]},
        headers=H(t["admin"]),
    )
    assert r.status_code == 201, r.text
    r = client.post(
        "/tournaments/open/players", json={"name": "Solo, Han"}, headers=H(t["arbiter"])
    )
    assert r.status_code == 201, r.text
    r = client.get("/tournaments/open/players", headers=H(t["broadcaster"]))
    assert r.status_code == 200
    players = r.json()["players"]
    assert [(p["start_no"], p["name"]) for p in players] == [
        (1, "Carlsen, Magnus"),
        (2, "Dvořák, Jan"),
        (3, "Smith, Anna"),
        (4, "Solo, Han"),
    ]
    assert players[0] == {
        "start_no": 1,
        "player_id": "carlsen-magnus",
        "name": "Carlsen, Magnus",
        "rating": 2830,
        "title": None,
        "federation": "NOR",
        "fide_id": None,
        "club": "Offerspill",
        "go_rank": None,
        "status": "active",
        "withdrawn_from": None,
        "byes": {},
    }


def test_withdraw_and_bye_name_the_player_by_number_or_name(api):
    client, t, _log = api
    _setup(client, t)
    r = client.post(
        "/tournaments/open/players/smith/bye",
        json={"round": 2, "points": "½"},
        headers=H(t["arbiter"]),
    )
    assert r.status_code == 201, r.text
    ruling = r.json()["events"][0]
    assert ruling["payload"]["decision"] == {"byes": {"smith-anna": "half"}}
    assert ruling["payload"]["by"] == "ref-1"
    r = client.post(
        "/tournaments/open/players/1/withdraw",
        json={"from_round": 3, "reason": "ill"},
        headers=H(t["arbiter"]),
    )
    assert r.status_code == 201, r.text
    assert r.json()["events"][0]["payload"] == {
        "player_id": "carlsen-magnus",
        "from_round": 3,
        "reason": "ill",
    }
    players = client.get("/tournaments/open/players", headers=H(t["arbiter"])).json()["players"]
    assert players[0]["withdrawn_from"] == 3 and players[0]["status"] == "withdrawn"
    assert players[1]["byes"] == {"2": "half"}


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", "/tournaments/open/create", CREATE),
        ("post", "/tournaments/open/players", {"name": "A"}),
        ("post", "/tournaments/open/players/1/withdraw", {}),
        ("post", "/tournaments/open/players/1/bye", {"round": 2}),
        ("get", "/tournaments/open/players", None),
    ],
)
def test_every_route_needs_a_token_and_writes_need_a_writer_of_that_tournament(
    api, method: str, path: str, body
):
    client, t, log = api
    send = getattr(client, method)
    kwargs = {"json": body} if body is not None else {}
    r = send(path, **kwargs)
    assert r.status_code == 401 and r.json()["error"]["rule"] == "auth.missing_token"
    if method == "post":
        for who in ("broadcaster", "other"):
            r = send(path, headers=H(t[who]), **kwargs)
            assert r.status_code == 403 and r.json()["error"]["rule"] == "auth.forbidden"
    assert log.last_seq("open") == 0


@pytest.mark.parametrize(
    ("path", "body", "status", "rule", "field"),
    [
        ("/tournaments/open/players/smith/bye", {"round": 2, "points": "1"}, 422,
         "bye.full_point_not_offered", "points"),
        ("/tournaments/open/players/kasparov/withdraw", {}, 422, "player.unknown", "player"),
        ("/tournaments/open/players", {"entries": [{"name": "X"}, {"name": "Y", "rating": 9000}]},
         422, "entries.invalid", "body.entries[1].rating"),
        ("/tournaments/open/players", {"name": "X", "colour": "w"}, 422, "entries.invalid",
         "body.colour"),
        ("/tournaments/open/create", CREATE, 422, "stream.already_created", "commands[0].type"),
        ("/tournaments/open/create", {**CREATE, "time_control": "40/90"}, 422,
         "create.time_control", "time_control"),
        ("/tournaments/nowhere/players/1/bye", {"round": 1}, 404, "bye.unknown_tournament",
         "tournament_id"),
    ],
)  # fmt: skip
def test_a_refusal_names_its_rule_and_field_and_appends_nothing(
    api, path: str, body, status: int, rule: str, field: str
):
    client, t, log = api
    _setup(client, t)
    before = log.last_seq("open")
    r = client.post(path, json=body, headers=H(t["admin"]))
    assert r.status_code == status, r.text
    assert (r.json()["error"]["rule"], r.json()["error"]["field"]) == (rule, field)
    assert log.last_seq("open") == before


def test_a_bad_csv_row_is_refused_with_its_line_and_column(api):
    client, t, log = api
    _setup(client, t)
    r = client.post(
        "/tournaments/open/players",
        content=b"name,rating\nA,1500\nB,x\n",
        headers=H(t["arbiter"], **{"Content-Type": "text/csv"}),
    )
    assert r.status_code == 422
    assert r.json()["error"]["field"] == "line 3, column rating"
    assert log.last_seq("open") == 3
