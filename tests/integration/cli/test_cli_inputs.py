"""The organiser's documented inputs through their commands (issue 24 item 5): each worked
example of docs/examples/ runs through the command that reads it, a file with several mistakes
is refused with all of them in one run (nothing appended), and `arbiter schedule` names the
same next lot that `arbiter lot --next` draws."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from builders import created, player, result, round_
from tests_support import append_events, cli_db
from typer.testing import CliRunner

from services.cli.main import app
from services.inputs import EXAMPLES_DIR

runner = CliRunner()
PLAN = EXAMPLES_DIR / "season-plan.json"
PRIZES = EXAMPLES_DIR / "prize-table.json"
GO = EXAMPLES_DIR / "go-settings.json"
TOSS = EXAMPLES_DIR / "coin-toss-choice.json"


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return cli_db(tmp_path, monkeypatch)


def _run(*args: str, code: int = 0) -> str:
    res = runner.invoke(app, list(args))
    assert res.exit_code == code, res.output
    return res.output


def _json(*args: str) -> Any:
    return json.loads(_run(*args, "--json"))


def _events(tid: str) -> list[dict[str, Any]]:
    out = runner.invoke(app, ["events", tid, "--json"]).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


# --- each example through its command ----------------------------------------------------------


def test_the_season_plan_example_starts_a_season(db: Path) -> None:
    _run("schema", "validate", "season-plan", str(PLAN))
    assert "season created" in _run("season", "start", "s1", "--plan", str(PLAN))
    season = _json("season", "show", "s1")
    assert season["format"] == "tcec-4k" and season["stages"][0]["tournament_id"] == "s1-pool"
    assert _events("s1")[0]["payload"]["name"] == "TCEC 4k Season 1"  # the plan's title
    assert "nothing appended" in _run("season", "start", "s1", "--plan", str(PLAN))


def test_a_plan_with_three_mistakes_is_refused_with_all_three_in_one_run(
    db: Path, tmp_path: Path
) -> None:
    plan = json.loads(PLAN.read_text())
    plan["engines"][1]["rating"] = 9000  # the schema: a rating is at most 4000
    plan["holder"] = "stockfish"  # the format: tcec-4k reads no holder
    plan["field"][3] = "komodo"  # the plan: the field names an engine not in engines
    bad = tmp_path / "plan.json"
    bad.write_text(json.dumps(plan))
    out = " ".join(_run("season", "start", "s1", "--plan", str(bad), code=1).split())
    assert "3 problems, nothing was appended" in out
    assert "refused season.invalid_plan (plan.engines[1].rating)" in out
    assert "refused season.invalid_plan (plan.holder): not read by the tcec-4k format" in out
    assert "refused season.invalid_plan (plan.field): komodo not in plan.engines" in out
    assert _events("s1") == []


def test_the_prize_table_example_sets_the_table_the_prizes_pay(db: Path) -> None:
    append_events(db, "rb", created(rounds=3, rules_preset="gct-rapid-blitz"))
    assert "RulingIssued prize_table" in _run("prize-table", "rb", str(PRIZES))
    body = _json("prizes", "rb")
    assert body["sources"]["prize_table"] == "RulingIssued prize-table-1"
    assert body["currency"] == "USD" and body["premium_rule"] == "5000.00"
    assert [u["amount"] for u in body["unawarded"]] == [
        "40000.00",
        "25000.00",
        "15000.00",
        "10000.50",
    ]
    assert "nothing appended" in _run("prize-table", "rb", str(PRIZES))
    assert len(_events("rb")) == 2


def test_a_prize_table_with_mistakes_appends_nothing(db: Path, tmp_path: Path) -> None:
    append_events(db, "rb", created(rounds=3, rules_preset="gct-rapid-blitz"))
    bad = tmp_path / "prizes.json"
    bad.write_text('{"currency": "usd", "prizes": [{"place": 1, "amount": "1"}, {"place": 1}]}')
    out = " ".join(_run("prize-table", "rb", str(bad), code=1).split())
    assert "refused prizes.invalid_table (prize_table.currency)" in out
    assert "(prize_table.prizes[1].amount): Field required" in out
    assert "(prize_table.prizes[1].place): place 1 is listed twice" in out
    assert len(_events("rb")) == 1


def test_the_go_settings_example_is_a_go_tournaments_settings(db: Path) -> None:
    _run("schema", "validate", "go-settings", str(GO))
    go = json.loads(GO.read_text())
    payload = {"name": "LGC Open", "game": "go", "format": "mcmahon", "go": go}
    _run("append", "lgc", "--type", "TournamentCreated", "--payload", json.dumps(payload))
    [stored] = _events("lgc")
    assert stored["payload"]["go"]["mcmahon_bar"] == "3d"
    assert stored["payload"]["go"]["handicap"] == "rank_difference"


def test_go_settings_with_mistakes_are_refused_with_all_of_them(db: Path) -> None:
    go = {"mcmahon_bar": "10d", "handicap": "always"}
    payload = {"name": "LGC Open", "game": "go", "format": "mcmahon", "go": go}
    out = " ".join(
        _run(
            "append", "lgc", "--type", "TournamentCreated", "--payload", json.dumps(payload), code=1
        ).split()
    )
    assert "2 problems" in out
    assert "(commands[0].payload.go.mcmahon_bar)" in out
    assert "(commands[0].payload.go.handicap)" in out
    assert _events("lgc") == []


# --- a GCT playoff: the coin toss, its choice, and the next lot ---------------------------------


def _three_way_tie(db: Path) -> None:
    """a, b and c tie for first in a GCT rapid & blitz event."""
    append_events(
        db,
        "rb",
        created(rounds=3, rules_preset="gct-rapid-blitz"),
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


def _draw_all(tid: str) -> None:
    for req in _json("playoff", tid)["required_next"]:
        for g in req["games"] if req["kind"] == "results" else []:
            payload = {"game_id": g["game_id"], "result": "1/2-1/2", "termination": "agreement"}
            _run("append", tid, "--type", "GameEnded", "--payload", json.dumps(payload))


def _agree(tid: str) -> dict[str, Any]:
    """`arbiter schedule` names the next lot; `arbiter lot --next` draws that very lot."""
    [named] = _json("schedule", tid)["next_lots"]
    assert named["run"].startswith(f"arbiter lot {tid} --next")
    out = " ".join(_run("lot", tid, "--next", "--seed", "s").split())
    assert f"LotDrawn {named['purpose']} {named['subject']}:" in out
    last = _events(tid)[-1]
    assert last["type"] == "LotDrawn"
    assert (last["payload"]["purpose"], last["payload"]["subject"]) == (
        named["purpose"],
        named["subject"],
    )
    assert sorted(last["payload"]["candidates"]) == sorted(named["candidates"])
    return named


def test_schedule_and_lot_next_agree_through_a_gct_playoff_to_its_coin_toss(db: Path) -> None:
    _three_way_tie(db)
    assert _agree("rb")["subject"] == "gct-playoff-rr"
    _run("playoff", "rb", "--schedule")
    _draw_all("rb")  # all level: Armageddon, 3 players -> a bye and one game
    assert _agree("rb")["purpose"] == "bye"
    toss = _agree("rb")
    assert (toss["purpose"], toss["subject"], toss["source"]) == (
        "coin_toss",
        "gct-armageddon-1-b1",
        "playoff",
    )
    assert _json("schedule", "rb")["next_lots"] == []


def test_the_coin_toss_choice_example_gives_the_winner_black(db: Path) -> None:
    _three_way_tie(db)
    _run("lot", "rb", "--next", "--seed", "rr")
    _run("playoff", "rb", "--schedule")
    _draw_all("rb")
    _run("lot", "rb", "--next", "--seed", "bye")
    _run("lot", "rb", "--next", "--seed", "toss")
    winner = _events("rb")[-1]["payload"]["outcome"][0]
    # Choices that cannot be read are named together; so are choices of games without a toss.
    before = len(_events("rb"))
    out = " ".join(
        _run(
            "playoff",
            "rb",
            "--schedule",
            "--toss-choice",
            "gct-armageddon-1-b1=purple",
            "--toss-choice",
            "=black",
            code=1,
        ).split()
    )
    assert "2 problems" in out
    assert "(--toss-choice[0].winner_plays)" in out and "(--toss-choice[1].game_id)" in out
    out = " ".join(
        _run(
            "playoff",
            "rb",
            "--schedule",
            "--toss-choice",
            "gct-armageddon-1-b9=black",
            "--toss-choice",
            "g1=white",
            code=1,
        ).split()
    )
    assert "2 problems" in out and "(those: gct-armageddon-1-b1)" in out
    assert len(_events("rb")) == before
    _run("playoff", "rb", "--schedule", "--toss-choice", str(TOSS))
    last = _events("rb")[-1]
    assert last["type"] == "RoundScheduled"
    [game] = last["payload"]["pairings"]
    assert game["game_id"] == "gct-armageddon-1-b1" and game["black"] == winner
    view = _json("playoff", "rb")
    assert [r["kind"] for r in view["required_next"]] == ["results"]
    assert not any("scheduled" in n and "prescribed" in n for n in view["notes"])


# --- a TCEC round robin: the engine-order lot ---------------------------------------------------


def test_schedule_and_lot_next_agree_on_a_tcec_round_robins_engine_order(db: Path) -> None:
    engines = [player(p, kind="engine") for p in ("sf", "lc0", "dragon")]
    append_events(db, "tl", created(rules_preset="tcec-league", cycles=2), *engines)
    named = _agree("tl")
    assert (named["purpose"], named["subject"], named["source"]) == (
        "engine_order",
        "main/engine-order",
        "pairing",
    )
    after = _json("schedule", "tl")
    assert after["next_lots"] == [] and len(after["rounds"]) == 6  # the table, from the lot
    # `arbiter pair` uses the lot drawn, drawing none of its own.
    paired = _json("pair", "tl")
    assert paired["lots"] == []


def test_lot_next_without_anything_to_draw_says_so(db: Path) -> None:
    append_events(db, "plain", created(), player("a"))
    out = " ".join(_run("lot", "plain", "--next", code=1).split())
    assert "define no playoff and its pairing system needs no lot now" in out
    assert _json("schedule", "plain")["next_lots"] == []


def test_playoff_notes_and_requirements_name_the_players(db: Path) -> None:
    """The machine's texts carry player ids as fields (`{a}`); `arbiter playoff` renders the
    names, `--json` keeps the text with ids and gives the template beside it."""
    _three_way_tie(db)
    out = _run("playoff", "rb")
    assert "tie for first between A, B, C: playoff" in " ".join(out.split())
    body = _json("playoff", "rb")
    assert "tie for first between a, b, c: playoff (2.1)" in body["notes"]
    assert "tie for first between {a}, {b}, {c}: playoff (2.1)" in body["note_templates"]
