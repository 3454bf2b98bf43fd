"""`arbiter relay T --source FILE --once` (services/cli/relay.py): one poll printed per game,
--json as one line per poll, a second poll appending nothing; a game an import left in
progress continued by the relay of the same file; the refusals (an unknown tournament, an
unreadable source, a bad interval)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests_support import cli_db
from typer.testing import CliRunner

from services.cli.main import app
from services.eventlog.sqlite import SQLiteEventLog

runner = CliRunner()


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return cli_db(tmp_path, monkeypatch)


def _pgn(moves: str, result: str = "*") -> str:
    return (
        f'[Event "Club"]\n[Round "1"]\n[White "Ann"]\n[Black "Bob"]\n[Result "{result}"]\n\n'
        f"{moves} {result}\n"
    )


def test_an_import_in_progress_is_continued_by_the_relay(db: Path, tmp_path: Path):
    path = tmp_path / "round.pgn"
    path.write_text(_pgn("1. e4 {[%clk 0:10:00]} e5 {[%clk 0:10:00]}"), encoding="utf-8")
    res = runner.invoke(app, ["import", "pgn", str(path), "--tournament", "club", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["in_progress"] == ["g0001"]

    path.write_text(_pgn("1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7#", "1-0"), encoding="utf-8")
    res = runner.invoke(app, ["relay", "club", "--source", str(path), "--once"])
    assert res.exit_code == 0, res.output
    assert "g0001 Ann – Bob: +5 moves, 1-0 (checkmate); ply 7" in " ".join(res.stdout.split())
    res = runner.invoke(app, ["relay", "club", "--source", str(path), "--once", "--json"])
    body = json.loads(res.stdout)
    assert body["appended"] == 0 and body["games"][0]["moves"] == 7
    log = SQLiteEventLog(db)
    types = [e.type for e in log.read("club")]
    log.close()
    assert types.count("GameStarted") == 1 and types.count("GameEnded") == 1
    # the source read in progress (`*`, its plies unknown) is no disagreement once it ended
    res = runner.invoke(app, ["games", "club", "--json"])
    (row,) = json.loads(res.stdout)["games"]
    assert (row["result"], row["plies"], row["disagrees"]) == ("1-0", 7, False), row


def test_the_relay_s_refusals(db: Path, tmp_path: Path):
    path = tmp_path / "round.pgn"
    path.write_text(_pgn("1. e4"), encoding="utf-8")
    res = runner.invoke(app, ["relay", "nowhere", "--source", str(path), "--once"])
    assert res.exit_code == 1 and "relay.unknown_tournament" in res.output
    res = runner.invoke(app, ["relay", "nowhere", "--source", str(tmp_path / "no.pgn"), "--once"])
    assert res.exit_code == 1 and "relay.source_unreadable (--source)" in res.output
    res = runner.invoke(app, ["relay", "t", "--source", str(path), "--every", "soon"])
    assert res.exit_code == 1 and "relay.invalid (--every)" in res.output
