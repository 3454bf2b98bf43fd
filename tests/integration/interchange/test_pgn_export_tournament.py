"""`arbiter export pgn T` and `GET /tournaments/{id}/games.pgn` (issue 26 item 4): every game
of a tournament as PGN, read back by `arbiter import pgn` to the same games.

Given a real TCEC archive imported (services/interchange/pgn), when its tournament is exported
and the export imported into a new tournament, then the players, rounds, every move's facts
(clock, move time, evaluation, depth, nodes) and every ending (result, termination, the rule
that ended it) are the same; only the words naming the source file differ."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import chess.pgn
import pytest
from fastapi.testclient import TestClient
from tests_support import cli_db, cli_ok, cli_run, log_events, pgn_sample

from services.api.app import create_app
from services.commands.auth import TokenStore
from services.eventlog.sqlite import SQLiteEventLog

S28 = "TCEC_Season_28_-_Entrance_League_Tiebreak_1.pgn"
CUP4 = "TCEC_Cup_4_Bronze.pgn"
S16 = "TCEC_Season_16_-_Frc_Cpu_League_2_Playoff.pgn"
KEPT = ("PlayerRegistered", "RoundScheduled", "MovePlayed", "GameEnded", "AdjudicationIssued")
KEPT += ("EngineCrashed", "TournamentCreated")


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return cli_db(tmp_path, monkeypatch)


def _games_of(db: Path, tid: str) -> list[tuple[str, dict[str, Any]]]:
    """The events that make the games, without what names the file they came from (the
    ending's detail and an adjudication's basis quote the file name and its tags)."""
    out = []
    for env in log_events(db, tid):
        if env.type not in KEPT:
            continue
        payload = dict(env.payload)
        for words in ("detail", "basis"):
            if words in payload:
                payload[words] = re.sub(
                    r"^.*? game (\d+):.*?after", r"game \1 after", payload[words]
                )
        payload.pop("source", None)
        out.append((env.type, payload))
    return out


@pytest.mark.parametrize(
    ("sample", "options"),
    [
        (S28, ("--adjudicate",)),  # ended by the preset's rules at the ply
        (CUP4, ()),  # repetition, fifty moves, SyzygyTB, the TCEC win rule: as the file says
        (S16, ()),  # Chess960 starts, disconnects (crashes at ply 0 and 1)
    ],
)
def test_an_exported_tournament_imports_back_to_the_same_games(
    db: Path, tmp_path: Path, sample: str, options: tuple[str, ...]
):
    cli_ok("import", "pgn", str(pgn_sample(sample)), "--tournament", "first", *options)
    out = tmp_path / "first.pgn"
    cli_ok("export", "pgn", "first", "-o", str(out))
    cli_ok("import", "pgn", str(out), "--tournament", "again", *options)

    first, again = _games_of(db, "first"), _games_of(db, "again")
    assert [t for t, _ in first].count("MovePlayed") > 100
    assert again == first


def test_the_export_carries_the_tags_clocks_evaluations_and_the_rule(db: Path, tmp_path: Path):
    cli_ok("import", "pgn", str(pgn_sample(S28)), "--tournament", "s28", "--adjudicate")
    text = cli_ok("export", "pgn", "s28")
    games = []
    stream = io.StringIO(text)
    while (game := chess.pgn.read_game(stream)) is not None:
        assert not game.errors
        games.append(game)
    assert len(games) == 2
    h = games[0].headers
    assert (h["Event"], h["Round"], h["White"], h["Black"]) == (
        "TCEC Season 28 - Entrance League Tiebreak 1",
        "1.1",  # round.board
        "ScorpioNN 3.0.15.13-s",
        "DeepSjeng 3.6 a41",
    )
    assert (h["WhiteElo"], h["BlackElo"], h["TimeControl"]) == ("3431", "3451", "1800+3")
    assert (h["Result"], h["Termination"]) == ("1/2-1/2", "normal")
    # the rule in force that ended it, as the decider recorded it (GameEnded.rule)
    ended = [e for e in log_events(db, "s28") if e.type == "GameEnded"]
    assert h["TerminationRule"] == ended[0].payload["rule"]
    assert games[1].headers["TerminationRule"] == "FIDE Laws 5.1.1"  # White mates, by rule
    assert games[1].headers["Round"] == "2.1"
    moves = list(games[0].mainline())
    assert len(moves) == 237
    # book moves keep the base time; the ninth move's TCEC comment: tl=1742290, wv=1.11, d=14
    assert moves[0].clock() == 1800.0
    ninth = moves[16]
    assert ninth.clock() == pytest.approx(1742.29)
    assert ninth.eval() is not None and ninth.eval().white().score() == 111
    assert "[%emt 0:01:00.710]" in ninth.comment and "[%nodes 9555929]" in ninth.comment
    assert "d=14" not in ninth.comment and "[%eval 1.11,14]" in ninth.comment


def test_one_round_and_the_refusals(db: Path):
    cli_ok("import", "pgn", str(pgn_sample(S28)), "--tournament", "s28", "--adjudicate")
    round2 = cli_ok("export", "pgn", "s28", "--round", "2")
    assert round2.count("[Event ") == 1 and '[Round "2.1"]' in round2
    missing = cli_run("export", "pgn", "s28", "--round", "9", code=1)
    assert "pgn.unknown_round" in missing and "--round" in missing
    cli_ok("create", "go-open", "--name", "Go Open", "--game", "go", "--format", "mcmahon")
    assert "pgn.not_chess" in cli_run("export", "pgn", "go-open", code=1)


def test_the_http_route_serves_the_same_file(db: Path, tmp_path: Path):
    cli_ok("import", "pgn", str(pgn_sample(S28)), "--tournament", "s28", "--adjudicate")
    cli_text = cli_ok("export", "pgn", "s28")
    tokens = TokenStore(tmp_path / "tokens.sqlite3")
    viewer = tokens.create("auditor", "spectator")[0]
    log = SQLiteEventLog(db)
    try:
        client = TestClient(create_app(log, tokens))
        res = client.get(
            "/tournaments/s28/games.pgn", headers={"Authorization": f"Bearer {viewer}"}
        )
        assert res.status_code == 200, res.text
        assert res.headers["content-type"].startswith("application/x-chess-pgn")
        assert 'filename="s28.pgn"' in res.headers["content-disposition"]
        assert res.text == cli_text
        one = client.get("/tournaments/s28/games.pgn", params={"round": 1, "token": viewer})
        assert one.status_code == 200, one.text
        assert one.text.count("[Event ") == 1
        gone = client.get("/tournaments/s28/games.pgn", params={"round": 7, "token": viewer})
        assert gone.status_code == 404 and gone.json()["error"]["rule"] == "pgn.unknown_round"
        nobody = client.get("/tournaments/nobody/games.pgn", params={"token": viewer})
        assert nobody.status_code == 404
        assert nobody.json()["error"]["rule"] == "pgn.unknown_tournament"
        assert client.get("/tournaments/s28/games.pgn").status_code == 401
    finally:
        log.close()
