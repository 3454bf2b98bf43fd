"""The playoff, prizes, lot and series commands end to end on the embedded log."""

from __future__ import annotations

from pathlib import Path

import pytest
from builders import created, player, result, round_
from tests_support import append_events, cli_db, cli_json
from typer.testing import CliRunner

from events_schema import events as ev
from services.cli.main import app

runner = CliRunner()


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return cli_db(tmp_path, monkeypatch)


def _append(db: Path, tid: str, *events: ev.Event) -> None:
    append_events(db, tid, *events)


PRIZES = ev.PrizeTable(
    currency="USD",
    prizes=[
        ev.Prize(place=1, amount="40000"),
        ev.Prize(place=2, amount="25000"),
        ev.Prize(place=3, amount="20000"),
        ev.Prize(place=4, amount="15000"),
    ],
)


def test_gct_tie_for_first_walks_through_lot_schedule_and_prizes(db: Path):
    # Four players, single round robin; a, b and c finish on 2 points, d on 0.
    _append(
        db,
        "gct-rb",
        created(rounds=3, rules_preset="gct-rapid-blitz", prize_table=PRIZES),
        *[player(p) for p in "abcd"],
        round_(1, ("g1", "a", "b"), ("g2", "c", "d")),
        result("g1", "1/2-1/2"),
        result("g2", "1-0", "resignation"),
        round_(2, ("g3", "a", "c"), ("g4", "b", "d")),
        result("g3", "1/2-1/2"),
        result("g4", "1-0", "resignation"),
        round_(3, ("g5", "a", "d"), ("g6", "b", "c")),
        result("g5", "1-0", "resignation"),
        result("g6", "1/2-1/2"),
    )
    view = cli_json("playoff", "gct-rb")
    assert view["status"] in ("waiting", "in_progress")
    assert view["tied"] == ["a", "b", "c"]
    [req] = view["required_next"]
    assert req["kind"] == "lot" and req["lot"]["subject"] == "gct-playoff-rr"
    # GCT 2.6: $5,000 to the winner once known; (40,000 − 5,000 + 25,000 + 20,000) / 3 each.
    split = cli_json("prizes", "gct-rb")
    shares = {line["player_id"]: line for line in split["lines"]}
    assert shares["a"]["share"] == "26666.66"
    assert split["totals"]["remainder"] == "0.02"
    assert split["totals"]["pending"] == "5000.00"  # the premium waits for the playoff
    # Draw the lot at the edge with a recorded seed; the playoff now prescribes the games.
    res = runner.invoke(
        app,
        [
            "lot",
            "gct-rb",
            "--purpose",
            "pairing_numbers",
            "--subject",
            "gct-playoff-rr",
            "-c",
            "a",
            "-c",
            "b",
            "-c",
            "c",
            "--seed",
            "audit-1",
        ],
    )
    assert res.exit_code == 0, res.output
    view = cli_json("playoff", "gct-rb")
    kinds = [r["kind"] for r in view["required_next"]]
    assert "schedule" in kinds
    games = [g for r in view["required_next"] if r["kind"] == "schedule" for g in r["games"]]
    assert all(g["time_control"]["base_seconds"] == 300 for g in games)  # GCT 2.3.2: 5'+3"
    # Replaying to before the lot shows the earlier state (--at).
    last_seq = len(cli_json("standings", "gct-rb")["rows"])  # any call works; use the events
    assert last_seq == 4
    events = runner.invoke(app, ["events", "gct-rb", "--json"]).stdout.splitlines()
    before = cli_json("playoff", "gct-rb", "--at", str(len(events) - 1))
    assert before["required_next"][0]["kind"] == "lot"


def test_czech_series_table_over_two_tournaments(db: Path):
    _append(db, "cz-2026", ev.SeriesCreated(name="Club series 2026", kind="czech-series"))
    for tid, results in (("cz-1", ("1-0", "1-0", "1-0")), ("cz-2", ("0-1", "0-1", "1-0"))):
        _append(
            db,
            tid,
            created(rounds=3, rules_preset="czech-single", series_id="cz-2026"),
            *[player(p) for p in "abc"],
            round_(1, ("g1", "a", "b"), byes=()),
            result("g1", results[0]),
            round_(2, ("g2", "b", "c")),
            result("g2", results[1]),
            round_(3, ("g3", "c", "a")),
            result("g3", results[2]),
        )
    body = cli_json("series", "cz-2026")
    assert body["kind"] == "czech-series"
    assert body["tournaments_counted"] == ["cz-1", "cz-2"]
    assert len(body["table"]["rows"]) == 3


def test_commands_refuse_unknown_things(db: Path):
    assert runner.invoke(app, ["playoff", "nothing"]).exit_code == 1
    assert runner.invoke(app, ["series", "nothing"]).exit_code == 1
    _append(db, "plain", created(), player("a"))
    res = runner.invoke(app, ["playoff", "plain"])
    assert res.exit_code == 1 and "define no playoff" in res.output
