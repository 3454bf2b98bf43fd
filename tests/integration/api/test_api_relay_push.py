"""The relay's push route over HTTP (services/api/relay.py): a PGN body answered per game in
the shape of lichess's push answer (`tags`, `moves` or `error`), pairings matched by the
players' names, a resend appending nothing, a game with an illegal move held while the other
goes on; 401 without a token, 403 for a token of another tournament or a reader, 404 for an
unknown tournament, 422 for a body with no game; a take-back pushed with an arbiter's token
held (only an admin retracts)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests_support import cmd

from services.api.app import create_app
from services.commands.auth import TokenStore
from services.eventlog.sqlite import SQLiteEventLog

T = "club"


def H(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def api(tmp_path: Path):
    tokens = TokenStore(tmp_path / "tokens.sqlite3")
    log = SQLiteEventLog(tmp_path / "events.sqlite3")
    client = TestClient(create_app(log, tokens))
    t = {
        "admin": tokens.create("admin", "chief")[0],
        "arbiter": tokens.create("arbiter", "ref-1", [T])[0],
        "other": tokens.create("arbiter", "ref-2", ["elsewhere"])[0],
        "auditor": tokens.create("auditor", "audit")[0],
    }
    setup = {
        "commands": [
            cmd("TournamentCreated", name="Club", format="swiss", rounds=3),
            cmd("PlayerRegistered", player_id="a", name="Ann"),
            cmd("PlayerRegistered", player_id="b", name="Bob"),
            cmd("PlayerRegistered", player_id="c", name="Cid"),
            cmd("PlayerRegistered", player_id="d", name="Dan"),
            cmd(
                "RoundScheduled",
                round=1,
                pairings=[
                    {"game_id": "g1", "white": "a", "black": "b", "board": 1},
                    {"game_id": "g2", "white": "c", "black": "d", "board": 2},
                ],
            ),
        ]
    }
    r = client.post(f"/tournaments/{T}/commands", json=setup, headers=H(t["admin"]))
    assert r.status_code == 201, r.text
    yield client, t, log
    log.close()


def _pgn(white: str, black: str, moves: str) -> str:
    return f'[Round "1"]\n[White "{white}"]\n[Black "{black}"]\n[Result "*"]\n\n{moves}\n\n'


def _push(client: TestClient, token: str | None, body: str, tid: str = T):
    headers = {"Content-Type": "application/x-chess-pgn", **(H(token) if token else {})}
    return client.post(f"/tournaments/{tid}/relay", content=body.encode(), headers=headers)


def test_a_push_answers_per_game(api) -> None:
    client, t, log = api
    body = _pgn("Ann", "Bob", "1. e4 {[%clk 1:30:00]} e5 *") + _pgn("Cid", "Dan", "1. d4 Ke7 *")
    r = _push(client, t["arbiter"], body)
    assert r.status_code == 200, r.text
    one, two = r.json()["games"]
    assert one["tags"] == {"Round": "1", "White": "Ann", "Black": "Bob", "Result": "*"}
    assert (one["moves"], one["game_id"], one["appended"]) == (2, "g1", 2)
    assert "error" not in one and "moves" not in two
    assert two["rule"] == "pgn.malformed" and "Ke7" in two["error"]
    assert two["tags"]["White"] == "Cid"  # a game held keeps its tags, as lichess answers
    moves = [e.payload for e in log.read(T) if e.type == "MovePlayed"]
    assert [(m["game_id"], m["uci"], m.get("clock_ms")) for m in moves] == [
        ("g1", "e2e4", 5_400_000),
        ("g1", "e7e5", None),
    ]
    assert next(e for e in log.read(T) if e.type == "MovePlayed").actor.id == "ref-1"
    again = _push(client, t["arbiter"], body)
    assert again.json()["appended"] == 0

    # a take-back with an arbiter's token: held (only an admin retracts); with an admin's: done
    back = _pgn("Ann", "Bob", "1. e4 c5 *")
    held = _push(client, t["arbiter"], back).json()["games"][0]
    assert held["rule"] == "auth.admin_only" and "EventRetracted" in held["error"]
    done = _push(client, t["admin"], back).json()["games"][0]
    assert (done["moves"], done["retracted"], done["appended"]) == (2, 1, 1)


def test_a_push_s_refusals(api) -> None:
    client, t, _ = api
    body = _pgn("Ann", "Bob", "1. e4 *")
    assert _push(client, None, body).status_code == 401
    assert _push(client, "not-a-token", body).status_code == 401
    for who in ("other", "auditor"):
        r = _push(client, t[who], body)
        assert r.status_code == 403 and r.json()["error"]["rule"] == "auth.forbidden"
    r = _push(client, t["admin"], body, tid="nowhere")
    assert r.status_code == 404 and r.json()["error"]["rule"] == "relay.unknown_tournament"
    r = _push(client, t["admin"], "no games here")
    assert r.status_code == 422 and r.json()["error"]["rule"] == "relay.no_games"


def test_boards_pushed_one_at_a_time_are_known_by_their_players(api) -> None:
    """As lichess's push is used: each board in a request of its own (every game the first
    of its body); a board pushed again goes on from its moves, the other is not touched."""
    client, t, log = api
    assert _push(client, t["arbiter"], _pgn("Ann", "Bob", "1. e4 *")).status_code == 200
    r = _push(client, t["arbiter"], _pgn("Cid", "Dan", "1. d4 d5 *"))
    assert r.json()["games"][0]["game_id"] == "g2"
    r = _push(client, t["arbiter"], _pgn("Ann", "Bob", "1. e4 e5 2. Nf3 *"))
    (game,) = r.json()["games"]
    assert (game["game_id"], game["moves"], game["appended"], game["retracted"]) == ("g1", 3, 2, 0)
    started = [e.payload for e in log.read(T) if e.type == "GameStarted"]
    assert [(p["game_id"], p["source"]["file"]) for p in started] == [
        ("g1", "push: round 1, Ann - Bob"),
        ("g2", "push: round 1, Cid - Dan"),
    ]
