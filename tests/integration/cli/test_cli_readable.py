"""Readable output (issue 24 item 4), end to end through `arbiter` on the embedded log: names,
not ids, in playoff, prizes and diff; standings with the players' identity, the correction
flags and the playoff's winner; a crosstable; money with its currency; Sonneborn-Berger in the
score's notation; tie-break columns headed in words with the rule in the legend; long names
never wrapped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from builders import created, gct_event_played, player, prizes, result, round_
from tests_support import append_events, cli_db
from typer.testing import CliRunner

from events_schema import Recorded
from events_schema import events as ev
from events_schema.go import GoSettings
from services.cli import render
from services.cli.main import app
from services.eventlog.sqlite import SQLiteEventLog

runner = CliRunner()


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return cli_db(tmp_path, monkeypatch)


@pytest.fixture
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    """A terminal of 200 columns."""
    monkeypatch.setattr(render.out, "width", 200)


def _ok(*args: str) -> str:
    res = runner.invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res.stdout


def _json(*args: str) -> Any:
    return json.loads(_ok(*args, "--json"))


def _lines_with(text: str, *words: str) -> list[str]:
    return [line for line in text.splitlines() if all(w in line for w in words)]


# --- a Swiss with identities, a correction after the next round was paired ---------------------

LONG = "Maximiliana Alexandrovna Konstantinopolskaya-Wittgenstein"


def _registered(pid: str, name: str, rating: int, title: str | None, fed: str) -> ev.Event:
    return ev.PlayerRegistered(player_id=pid, name=name, rating=rating, title=title, federation=fed)


def _swiss(db: Path) -> None:
    """Four players, two rounds; round 1's p2-p4 (1-0) is corrected to 0-1 after round 2 was
    paired. Round 1: p1 beat p3, p4 beat p2 (corrected); round 2: p1-p4 ½, p2-p3 1-0.
    Sonneborn-Berger p1: p3 (0) x 1 + p4 (1½) x ½ = ¾."""
    append_events(
        db,
        "open",
        created(fmt="swiss", rounds=2, rules_preset="fide-swiss"),
        _registered("p1", LONG, 2450, "IM", "GER"),
        _registered("p2", "Bo Berg", 2300, None, "SWE"),
        _registered("p3", "Cy Chan", 2200, "FM", "HKG"),
        _registered("p4", "Di Diaz", 2100, None, "ESP"),
        round_(1, ("r1b1", "p1", "p3"), ("r1b2", "p2", "p4")),
        result("r1b1", "1-0", "resignation"),
        result("r1b2", "1-0", "resignation"),
        round_(2, ("r2b1", "p4", "p1"), ("r2b2", "p2", "p3")),
    )
    log = SQLiteEventLog(db)
    try:
        ended = next(
            env.event_id
            for env in log.read("open")
            if isinstance(e := Recorded.of(env).event, ev.GameEnded) and e.game_id == "r1b2"
        )
    finally:
        log.close()
    append_events(
        db,
        "open",
        ev.ResultCorrected(
            corrects_event_id=ended,
            game_id="r1b2",
            result="0-1",
            termination="resignation",
            reason="scoresheets signed 0-1",
        ),
        result("r2b1", "1/2-1/2"),
        result("r2b2", "1-0", "resignation"),
    )


def test_standings_show_identity_and_the_correction_flags_in_text_and_json(db: Path, wide: None):
    _swiss(db)
    text = _ok("standings", "open")
    [header] = _lines_with(text, "player", "score")
    for column in ("title", "fed", "rating"):
        assert column in header, header
    [p1] = _lines_with(text, "Cy Chan")
    assert "FM" in p1 and "HKG" in p1 and "2200" in p1
    # The correction after round 2 was paired: named, in words, under the table.
    [flag] = _lines_with(text, "flag")
    assert "correction after pairing: round 1, Bo Berg – Di Diaz (r1b2)" in flag
    assert "after round(s) 2 had been paired" in flag
    body = _json("standings", "open")
    [f] = body["flags"]
    assert (f["kind"], f["game_id"], f["round"], f["rounds_paired_before"]) == (
        "correction_after_pairing",
        "r1b2",
        1,
        [2],
    )
    assert f["white"] == {"player_id": "p2", "name": "Bo Berg"}
    assert f["black"] == {"player_id": "p4", "name": "Di Diaz"}


def test_tiebreak_columns_are_headed_in_words_with_the_rule_in_a_legend(db: Path, wide: None):
    _swiss(db)
    text = _ok("standings", "open")
    header = "\n".join(_lines_with(text, "┃"))
    for words in ("Buchholz cut 1", "Buchholz", "Direct encounter", "Wins"):
        assert all(w in header for w in words.split()), header  # a heading wraps at spaces
    assert "Sonneborn-" in header and "Berger" in header  # broken after its hyphen, not cut
    assert "C.07" not in header and "Cut-1" not in header
    lines = text.splitlines()
    assert "Buchholz cut 1: FIDE C.07 2026, 8.1, 16.3-16.5, 14.1" in lines
    assert "Sonneborn-Berger: FIDE C.07 2026, 9.1, 16.3-16.5" in lines
    # explain: the criterion in words, the article beside it; the players by name
    explained = _ok("explain", "open", "p2", "p4")
    assert _lines_with(explained, "Points", "all")
    assert "Bo Berg" in explained and "Di Diaz" in explained


def test_sonneborn_berger_in_the_notation_of_the_score(db: Path, wide: None):
    _swiss(db)
    body = _json("standings", "open")
    sb = {r["player_id"]: r["tiebreaks"]["fide-sonneborn-berger"] for r in body["rows"]}
    assert sb["p1"]["display"] == "¾" and sb["p1"]["value"] == "0.75"  # exact value kept
    text = _ok("standings", "open")
    assert not any(c in line for line in _lines_with(text, "│") for c in (".5", ".75", ".25"))


def test_a_long_name_is_never_wrapped_at_200_columns(db: Path, wide: None):
    _swiss(db)
    for command in ("standings", "crosstable"):
        text = _ok(command, "open")
        assert _lines_with(text, LONG), text  # whole, on one line


def test_a_long_name_is_cut_not_wrapped_at_80_columns(db: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(render.out, "width", 80)
    _swiss(db)
    text = _ok("standings", "open")
    [row] = _lines_with(text, "Maximiliana")
    assert "…" in row
    assert not _lines_with(text, "Wittgenstein")  # no second line carrying the rest
    assert all(len(line) <= 80 for line in text.splitlines())
    bottom = next(line for line in text.splitlines() if line.startswith("└"))
    assert bottom.endswith("┘"), bottom  # the whole table, not cropped at the right


def test_crosstable_in_standings_order_with_start_numbers_and_cells(db: Path, wide: None):
    _swiss(db)
    text = _ok("crosstable", "open")
    # Start numbers as the TRF export gives them (Dutch: by rating): p1 1, p2 2, p3 3, p4 4.
    # Round 1 p2 lost to p4 (corrected), round 2 beat p3 with White.
    [bo] = _lines_with(text, "Bo Berg")
    cells = [c.strip() for c in bo.strip("│ ").split("│")]
    assert cells[1:3] == ["2", "Bo Berg"]  # start number, name
    assert "4w0" in cells and "3w1" in cells
    [di] = _lines_with(text, "Di Diaz")
    assert "2b1" in di and "1w½" in di
    body = _json("crosstable", "open")
    rows = {r["player_id"]: r for r in body["rows"]}
    assert [r["player_id"] for r in body["rows"]] == [
        r["player_id"] for r in _json("standings", "open")["rows"]
    ]
    assert [c["text"] for c in rows["p4"]["rounds"]] == ["2b1", "1w½"]
    assert rows["p4"]["start_no"] == 4 and rows["p4"]["score"]["display"] == "1½"
    assert {c["heading"] for c in body["columns"]} >= {"Buchholz cut 1", "Sonneborn-Berger"}


def test_crosstable_bye_and_forfeit_notation(db: Path, wide: None):
    append_events(
        db,
        "byes",
        created(fmt="swiss", rounds=2, rules_preset="fide-swiss"),
        *[player(p, 2400 - 100 * i) for i, p in enumerate("abc")],
        round_(1, ("g1", "a", "b"), byes=("c",)),
        result("g1", "1-0", "forfeit"),
        ev.RoundScheduled(
            round=2,
            pairings=[ev.Pairing(game_id="g2", white="c", black="a")],
            byes=[ev.Bye(player_id="b", kind="half")],
        ),
    )
    rows = {r["player_id"]: r for r in _json("crosstable", "byes")["rows"]}
    assert [c["text"] for c in rows["a"]["rounds"]] == ["2w+", "3b"]  # forfeit won; paired
    assert [c["text"] for c in rows["b"]["rounds"]] == ["1b-", "="]  # forfeit lost; half bye
    assert [c["text"] for c in rows["c"]["rounds"]] == ["+", "1w"]  # the bye; then paired


# --- GCT: a playoff decided, prizes -------------------------------------------------------------


def _gct(db: Path) -> None:
    append_events(
        db, "gct", *gct_event_played(prize_table=prizes("40000", "25000", "20000", "15000"))
    )


def _decide_playoff() -> None:
    _ok("lot", "gct", "--next", "--seed", "s1")
    _ok("playoff", "gct", "--schedule")
    games = [
        g["game_id"] for s in _json("playoff", "gct")["stages"] for g in s["games"] if g["white"]
    ]
    for game_id in games:  # A wins both: with White 1-0, with Black 0-1
        white = next(
            g["white"]
            for s in _json("playoff", "gct")["stages"]
            for g in s["games"]
            if g["game_id"] == game_id
        )
        res = "1-0" if white == "a" else "0-1"
        _ok(
            "append",
            "gct",
            "--type",
            "GameEnded",
            "--payload",
            json.dumps({"game_id": game_id, "result": res, "termination": "resignation"}),
        )


def test_playoff_names_players_and_json_keeps_ids_with_names(db: Path, wide: None):
    append_events(
        db,
        "gct",
        created(rules_preset="gct-rapid-blitz", rounds=3),
        ev.PlayerRegistered(player_id="p-a", name="Alice Aronian"),
        ev.PlayerRegistered(player_id="p-b", name="Boris Bacrot"),
        ev.PlayerRegistered(player_id="p-c", name="Carla Caruana"),
        ev.PlayerRegistered(player_id="p-d", name="Dmitri Ding"),
        round_(1, ("g1", "p-a", "p-b"), ("g2", "p-c", "p-d")),
        result("g1", "1/2-1/2"),
        result("g2", "0-1", "resignation"),
        round_(2, ("g3", "p-a", "p-c"), ("g4", "p-b", "p-d")),
        result("g3", "1-0", "resignation"),
        result("g4", "1-0", "resignation"),
        round_(3, ("g5", "p-d", "p-a"), ("g6", "p-c", "p-b")),
        result("g5", "0-1", "resignation"),
        result("g6", "0-1", "resignation"),
    )
    text = _ok("playoff", "gct")
    assert "tied: Alice Aronian, Boris Bacrot" in text
    assert "p-a" not in text[: text.find("note:")]  # the notes are the projection's text
    body = _json("playoff", "gct")
    assert body["tied"] == ["p-a", "p-b"]
    assert body["names"]["p-a"] == "Alice Aronian"


def test_after_a_decided_playoff_standings_name_the_winner(db: Path, wide: None):
    _gct(db)
    before = _ok("standings", "gct")
    assert "tie between A, B" in before and "won by" not in before
    _decide_playoff()
    text = _ok("standings", "gct")
    [line] = _lines_with(text, "playoff")
    assert line.startswith("playoff: won by A (gct-event,")
    body = _json("standings", "gct")
    assert body["playoff"]["status"] == "decided"
    assert (body["playoff"]["winner"], body["playoff"]["winner_name"]) == ("a", "A")
    assert "winner: A" in _ok("playoff", "gct")


def test_prizes_print_names_and_money_with_currency_and_thousands(db: Path, wide: None):
    _gct(db)
    _decide_playoff()
    text = _ok("prizes", "gct")
    [a] = _lines_with(text, "│ A ")
    assert "USD 35,000.00" in a and "USD 30,000.00" in a and "USD 5,000.00" in a
    assert "35000.00" not in a
    [totals] = _lines_with(text, "pool:")
    assert "pool: USD 100,000.00" in totals and "paid: USD 100,000.00" in totals
    body = _json("prizes", "gct")
    line = next(ln for ln in body["lines"] if ln["player_id"] == "a")
    assert (line["name"], line["prize"]) == ("A", "35000.00")  # exact string, name beside
    assert body["playoff_winner_name"] == "A"


def test_money_formatting_is_exact():
    from decimal import Decimal

    assert render.money(Decimal("12500"), "USD") == "USD 12,500.00"
    assert render.money("1234567.89", "EUR") == "EUR 1,234,567.89"
    assert render.money(Decimal("0.01")) == "0.01"


# --- diff by name -------------------------------------------------------------------------------


def test_diff_names_players_and_games(db: Path, wide: None):
    _swiss(db)
    text = _ok("diff", "open", "--from", "9", "--to", "12")
    assert _lines_with(text, "  Cy Chan: ")
    assert not _lines_with(text, "  p3: ")
    assert _lines_with(text, "Bo Berg – Cy Chan (r2b2): ")
    report = _json("diff", "open", "--from", "9", "--to", "12")
    rows = {r["key"]: r for r in report["projections"]["standings"]["rows"]}
    assert rows["p3"]["name"] == "Cy Chan"  # the id stays the key; the name beside it


# --- Go: rank, handicap and komi ----------------------------------------------------------------


def test_go_standings_show_rank_and_the_crosstable_handicap_and_komi(db: Path, wide: None):
    append_events(
        db,
        "go",
        ev.TournamentCreated(
            name="LGC McMahon",
            game="go",
            format="mcmahon",
            rounds=1,
            board_size=9,
            go=GoSettings(mcmahon_bar="1d", mcmahon_floor="10k"),
        ),
        *(
            ev.PlayerRegistered(player_id=p, name=p.title(), go_rank=r)
            for p, r in (("kim", "2d"), ("lee", "1d"), ("mo", "1k"), ("ng", "4k"))
        ),
        ev.RoundScheduled(
            round=1,
            pairings=[
                ev.Pairing(game_id="b1", white="kim", black="lee"),
                ev.Pairing(game_id="b2", white="mo", black="ng", handicap=3),
            ],
        ),
        ev.GameEnded(game_id="b1", result="1-0", termination="resignation"),
        ev.GameEnded(game_id="b2", result="0-1", termination="resignation"),
    )
    text = _ok("standings", "go")
    [header] = _lines_with(text, "player", "score")
    assert "rank" in header and "McMahon score" in header and "MMS" not in header
    [ng] = _lines_with(text, "│ Ng ")
    assert "4k" in ng
    assert _json("standings", "go")["rows"][0]["go_rank"] == "2d"
    cross = _ok("crosstable", "go")
    assert "3b1 h3" in "\n".join(_lines_with(cross, "Ng"))
    assert "komi 7.5 in an even game, 0.5 with a handicap" in cross
    rows = {r["player_id"]: r for r in _json("crosstable", "go")["rows"]}
    [cell] = rows["ng"]["rounds"]
    assert (cell["handicap"], cell["komi"]) == (3, "0.5")
    assert (rows["kim"]["rounds"][0]["handicap"], rows["kim"]["rounds"][0]["komi"]) == (0, "7.5")


def test_series_table_names_its_players(db: Path, wide: None):
    append_events(db, "cz-2026", ev.SeriesCreated(name="Club series 2026", kind="czech-series"))
    append_events(
        db,
        "cz-1",
        created(rounds=1, rules_preset="czech-single", series_id="cz-2026"),
        ev.PlayerRegistered(player_id="p-a", name="Alice Aronian"),
        ev.PlayerRegistered(player_id="p-b", name="Boris Bacrot"),
        round_(1, ("g1", "p-a", "p-b")),
        result("g1", "1-0", "resignation"),
    )
    text = _ok("series", "cz-2026")
    assert _lines_with(text, "Alice Aronian") and _lines_with(text, "Boris Bacrot")
    assert not _lines_with(text, "p-a")
    body = _json("series", "cz-2026")
    assert body["names"] == {"p-a": "Alice Aronian", "p-b": "Boris Bacrot"}
    assert body["table"]["rows"][0]["player_id"] == "p-a"  # the ids stay
