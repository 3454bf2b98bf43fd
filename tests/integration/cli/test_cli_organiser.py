"""The organiser's path through a playoff on the command line (issue 12): `arbiter lot --next`,
`arbiter playoff --schedule`, the tour playoff's prizes and series status, a series id given
to `arbiter playoff`, and one formatting of points in the terminal."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from builders import created, player, result, round_
from tests_support import append_events, cli_db, cli_json, cli_run
from typer.testing import CliRunner

from events_schema import events as ev
from services.cli.main import app

runner = CliRunner()


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return cli_db(tmp_path, monkeypatch)


def _append(db: Path, tid: str, *events: ev.Event) -> None:
    append_events(db, tid, *events)


def _count(tid: str) -> int:
    return len(runner.invoke(app, ["events", tid, "--json"]).stdout.splitlines())


# --- a GCT rapid & blitz event: a, b and c tie for first ------------------------------------


def _three_way_tie(db: Path) -> None:
    _append(
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


def _results(tid: str, res: str) -> None:
    view = cli_json("playoff", tid)
    for req in view["required_next"]:
        if req["kind"] == "results":
            for g in req["games"]:
                how = "agreement" if res == "1/2-1/2" else "resignation"
                payload = {"game_id": g["game_id"], "result": res, "termination": how}
                cli_run("append", tid, "--type", "GameEnded", "--payload", json.dumps(payload))


def test_lot_next_and_schedule_walk_a_gct_playoff_to_armageddon_with_a_bye(db: Path):
    """`lot --next` draws what `required_next` asks (pick included: a coin toss picks 1);
    `playoff --schedule` appends the prescribed rounds, the Armageddon byes with the games."""
    _three_way_tie(db)
    out = cli_run("lot", "rb", "--next", "--seed", "rr")
    assert "LotDrawn pairing_numbers gct-playoff-rr" in out
    out = cli_run("playoff", "rb", "--schedule")
    assert out.count("RoundScheduled gct-playoff-rr") == 3
    _results("rb", "1/2-1/2")  # all level: Armageddon, 3 players -> 1 game + 1 bye
    cli_run("lot", "rb", "--next", "--seed", "bye")
    [toss] = [r["lot"] for r in cli_json("playoff", "rb")["required_next"] if r["kind"] == "lot"]
    assert (toss["purpose"], toss["pick"]) == ("coin_toss", 1)
    # A coin toss drawn by hand without --pick 1 is refused before it is stored.
    before = _count("rb")
    by_hand = ["--purpose", "coin_toss", "--subject", toss["subject"]]
    by_hand += [x for c in toss["candidates"] for x in ("-c", c)]
    out = cli_run("lot", "rb", *by_hand, code=1)
    assert "refused lot.not_required" in out and "--pick 1" in out
    assert f"arbiter lot rb --next --subject {toss['subject']}" in out
    assert _count("rb") == before
    out = cli_run("lot", "rb", "--next", "--seed", "toss")
    assert f"LotDrawn coin_toss {toss['subject']}" in out
    view = cli_json("playoff", "rb")
    [sched] = [r for r in view["required_next"] if r["kind"] == "schedule"]
    assert len(sched["byes"]) == 1
    out = cli_run("playoff", "rb", "--schedule")
    assert f"byes {sched['byes'][0]['player_id'].title()}" in out  # by name (builders.player)
    last = json.loads(runner.invoke(app, ["events", "rb", "--json"]).stdout.splitlines()[-1])
    assert last["type"] == "RoundScheduled"
    assert last["payload"]["byes"] == sched["byes"]  # nothing added by hand
    assert [r["kind"] for r in cli_json("playoff", "rb")["required_next"]] == ["results"]


def test_lot_next_errors_name_the_fix(db: Path):
    _three_way_tie(db)
    out = cli_run("lot", "rb", code=1)
    assert "cli.usage" in out and "arbiter lot rb --next" in out
    out = cli_run("lot", "rb", "--next", "--pick", "1", code=1)
    assert "lot.not_required (--pick)" in out and "leave out --pick" in out
    out = cli_run("lot", "rb", "--next", "--subject", "nothing", code=1)
    assert "gct-playoff-rr" in out and "--next --subject SUBJECT" in out
    cli_run("lot", "rb", "--next")
    out = cli_run("lot", "rb", "--next", code=1)
    assert "requires no lot now" in out and "schedule (gct-playoff-rr)" in out
    out = cli_run("playoff", "rb", "--stage", "x", code=1)
    assert "add --schedule" in out
    _append(db, "plain", created(), player("a"))
    out = cli_run("lot", "plain", "--next", code=1)
    assert "define no playoff" in out and "--purpose, --subject and --candidate" in out


# --- a GCT tour and its §4 tour playoff ------------------------------------------------------

TOUR = ev.SeriesCreated(
    name="GCT 2022",
    kind="gct-tour",
    points_table=[Decimal(13), Decimal(10), Decimal(8), Decimal(7)],
    bonus=ev.PrizeTable(
        prizes=[
            ev.Prize(place=i, amount=Decimal(a))
            for i, a in enumerate(["100000", "50000", "25000", "10000"], 1)
        ]
    ),
)
TIE_AB = {"ab": "=", "cd": "c", "ac": "a", "bd": "b", "ad": "a", "bc": "b"}  # a, b 2½; c 1
BC_SHARE = {"ab": "a", "cd": "c", "ac": "a", "bd": "b", "ad": "a", "bc": "="}  # b, c 1½


def _event(db: Path, tid: str, outcome: dict[str, str], series: str = "gct") -> None:
    """A four-player round robin; outcome per pair: the winner, or "=" for a draw."""
    evs: list[ev.Event] = [
        created(rounds=3, rules_preset="gct-rapid-blitz", series_id=series),
        *[player(p) for p in "abcd"],
    ]
    for r, pairs in enumerate((("ab", "cd"), ("ac", "bd"), ("ad", "bc")), start=1):
        evs.append(round_(r, *[(f"{tid}-{p}", p[0], p[1]) for p in pairs]))
        for p in pairs:
            won = outcome[p]
            res = "1/2-1/2" if won == "=" else ("1-0" if won == p[0] else "0-1")
            evs.append(result(f"{tid}-{p}", res, "agreement" if won == "=" else "resignation"))
    _append(db, tid, *evs)


def _tour_playoff(db: Path) -> None:
    _append(
        db,
        "gct-po",
        created(fmt="playoff", rules_preset="gct-tour-playoff", series_id="gct"),
        *[player(p) for p in "abcd"],
    )


def test_tour_playoff_prizes_series_status_and_a_series_id_given_to_playoff(db: Path):
    _append(db, "gct", TOUR)
    _event(db, "e1", TIE_AB)
    _event(db, "e2", TIE_AB)
    # A series without a tour playoff: what a series is, and which command to run.
    out = cli_run("playoff", "gct", code=1)
    assert "is a series (gct-tour 'GCT 2022'), not a tournament" in out
    assert "arbiter series gct" in out and "gct-tour-playoff" in out
    assert "has no events" not in out
    _tour_playoff(db)
    # The series id now shows its tour playoff.
    assert cli_json("playoff", "gct")["kind"] == "gct-tour"
    # Prizes of the tour playoff: the 4.2 bonus by the overall places before the playoff.
    split = cli_json("prizes", "gct-po")
    assert split["kind"] == "gct-tour-bonus"
    assert [ln["prize"] for ln in split["lines"]] == [
        "75000.00",
        "75000.00",
        "25000.00",
        "10000.00",
    ]
    assert "classical" not in cli_run("prizes", "gct-po")
    # Series: the tour playoff is in progress until its machine has a final order.
    body = cli_json("series", "gct")
    assert body["tournaments_counted"] == ["e1", "e2"]
    assert body["tournaments_in_progress"] == ["gct-po"]
    assert body["tour_playoffs"][0]["done"] is False
    cli_run("lot", "gct-po", "--next", "--seed", "s")
    cli_run("playoff", "gct-po", "--schedule")
    _results("gct-po", "1-0")  # 1–1: still tied; then RR2 with colours reversed ...
    cli_run("playoff", "gct-po", "--schedule")
    view = cli_json("playoff", "gct-po")
    games = [g for r in view["required_next"] for g in r["games"]]
    payload = {"game_id": games[0]["game_id"], "result": "1-0", "termination": "resignation"}
    cli_run("append", "gct-po", "--type", "GameEnded", "--payload", json.dumps(payload))
    payload = {"game_id": games[1]["game_id"], "result": "1/2-1/2", "termination": "agreement"}
    cli_run("append", "gct-po", "--type", "GameEnded", "--payload", json.dumps(payload))
    assert cli_json("playoff", "gct-po")["status"] == "decided"
    body = cli_json("series", "gct")
    assert body["tournaments_in_progress"] == []
    assert body["tour_playoffs"][0]["done"] is True
    out = cli_run("series", "gct")
    assert "tour playoff gct-po: decided" in out and "in progress" not in out


def test_tie_for_second_inside_the_top_three_reads_the_same_in_series_and_playoff(db: Path):
    _append(db, "gct", TOUR)
    _event(db, "e1", BC_SHARE)
    _tour_playoff(db)
    [tie] = cli_json("series", "gct")["table"]["ties"]
    assert (tie["places"], tie["playoff"], tie["article"]) == ([2, 3], False, "GCT 4.2")
    out = cli_run("series", "gct")
    assert "not broken" in out and "broken by playoff" not in out
    view = cli_json("playoff", "gct-po")
    assert view["status"] == "not_needed"
    assert any("GCT 4.2" in n and "2–3" in n for n in view["notes"])


def test_points_are_shown_one_way_in_the_terminal(db: Path):
    """Tour points 23/2 are 11½ in the terminal (the standings' formatter); JSON unchanged."""
    _append(db, "gct", TOUR)
    _event(db, "e1", TIE_AB)
    out = cli_run("prizes", "e1")
    assert "11½" in out and "23/2" not in out
    out = cli_run("series", "gct")  # a and b tie for first on 11½
    assert "on 11½ points" in out and "11.5" not in out
    _event(db, "e2", BC_SHARE)  # a 13, b and c 9: a 24½, b 20½, c 17
    out = cli_run("series", "gct")
    assert "24½" in out and "points 24½–20½" in out and "points 20½–17" in out
    assert "24.5" not in out and "20.5" not in out and "/2" not in out
    assert cli_json("series", "gct")["table"]["rows"][0]["points"] == "24.5"
    assert cli_json("prizes", "e1")["lines"][0]["tour_points"] == "11.5"


def test_prizes_without_a_gct_preset_names_the_option(db: Path):
    _append(
        db,
        "plain",
        created(prize_table=ev.PrizeTable(prizes=[ev.Prize(place=1, amount="100")])),
        player("a"),
        player("b"),
    )
    out = cli_run("prizes", "plain", code=1)
    assert "classical=True/False" not in out
    assert "--premium rapid-blitz" in out
    cli_run("prizes", "plain", "--premium", "classical")
