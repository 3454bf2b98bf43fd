"""`arbiter arena`'s command line: every refusal names its rule and option, nothing appended;
`--json` reports each game with the rule that ended it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from tests_support import append_events, cli_db
from typer.testing import CliRunner

from events_schema import events as ev
from services.cli.main import app
from services.eventlog.sqlite import SQLiteEventLog

ENGINE = Path(__file__).resolve().parents[2] / "engines" / "uci_engine.py"
RANDOM = f"{sys.executable} {ENGINE} random"
T = "cli-arena"
runner = CliRunner()


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = cli_db(tmp_path, monkeypatch)
    players = [ev.PlayerRegistered(player_id=p, name=p.title(), kind="engine") for p in "ab"]
    created = ev.TournamentCreated(name="CLI", format="round_robin", rules_preset="tcec-league")
    append_events(path, T, created, *players)
    return path


def _count(db: Path) -> int:
    log = SQLiteEventLog(db)
    try:
        return len(list(log.read(T, 1)))
    finally:
        log.close()


@pytest.mark.parametrize(
    ("args", "refusal"),
    [
        (["--engine", f"z={RANDOM}", "--nodes", "5"], "arena.unknown_engine (--engine)"),
        (["--engine", f"a={RANDOM}", "--nodes", "5"], "arena.no_engine (--engine)"),
        (["--engine", f"a={RANDOM}", "--engine", f"b={RANDOM}"], "arena.no_time_control"),
        (["--engine", f"a={RANDOM}", "--engine", f"A={RANDOM}"], "arena.engine_twice"),
        (["--engine", "a"], "arena.bad_engine (--engine)"),
        (["--nodes", "5"], "cli.usage (--engine)"),
        (["--engine", f"a={RANDOM}", "--time-control", "fast"], "arena.bad_time_control"),
    ],
)
def test_a_refused_run_names_its_rule_and_appends_nothing_but_its_recorded_limit(
    db: Path, args: list[str], refusal: str
) -> None:
    before = _count(db)
    res = runner.invoke(app, ["arena", T, *args])
    assert res.exit_code == 1, res.output
    assert f"refused {refusal}" in " ".join(res.output.split())
    assert not [g for g in _games(db)]  # no round was paired, no game started
    assert _count(db) - before <= 1  # at most the run's limit ruling, recorded before pairing


def _games(db: Path) -> list[str]:
    log = SQLiteEventLog(db)
    try:
        return [e.type for e in log.read(T, 1) if e.type in ("RoundScheduled", "GameStarted")]
    finally:
        log.close()


def test_json_reports_each_game_with_its_rule(db: Path) -> None:
    res = runner.invoke(
        app,
        [
            "arena",
            T,
            "--engine",
            f"a={RANDOM}",
            "--engine",
            f"B={RANDOM}",
            "--nodes",
            "5",
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    body = json.loads(res.stdout)
    assert body["rounds_paired"] == [1]
    (game,) = body["games"]
    assert game["result"] in ("1-0", "0-1", "1/2-1/2") and game["rule"].startswith("tcec-rules")
    assert game["plies"] > 0 and "pairing.round_robin_complete" in body["stopped"]
