"""`arbiter schedule` on a TCEC Cup (`projections.pairing.systems.planned`, bracket branch):
the bracket so far in the terminal and in `--json`, for a Cup paired round by round by `arbiter
pair` on the embedded log (tcec-rules Cup 2-3)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from builders import created, result
from tests_support import append_events, cli_db, cli_ok, cli_words

from events_schema import events as ev

TID = "cup"


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return cli_db(tmp_path, monkeypatch)


_run, _text = cli_ok, cli_words


def _cup(db: Path, size: int) -> None:
    append_events(
        db,
        TID,
        created(fmt="cup", rules_preset="tcec-cup"),
        *[
            ev.PlayerRegistered(player_id=f"e{s}", name=f"Engine {s}", kind="engine", seed=s)
            for s in range(1, size + 1)
        ],
    )


def _result(game: dict[str, Any]) -> str:
    """sf-m1 (1 v 3): the higher seed wins every game. sf-m2 (2 v 4): the 12 regular games
    drawn, then seed 4 wins the first game of tiebreak pair 1 and draws the second."""
    white, black, number = game["white"], game["black"], int(game["game_id"].rsplit("g", 1)[1])
    if {white, black} == {"e1", "e3"}:
        return "1-0" if white == "e1" else "0-1"
    if number == 13:
        return "1-0" if white == "e4" else "0-1"
    return "1/2-1/2"


def test_schedule_prints_the_bracket_so_far(db: Path) -> None:
    _cup(db, 4)
    for _ in range(14):  # sf-m1 ends after game 7 (Cup 3.a), sf-m2 after game 14 (3.e)
        body = json.loads(_run("pair", TID, "--seed", "s", "--json"))
        append_events(db, TID, *[result(g["game_id"], _result(g)) for g in body["pairings"]])
    body = json.loads(_run("pair", TID, "--seed", "s", "--json"))  # final and bronze, game 1
    # Cup 2.e: the winners meet in the final, the losers in the bronze match; 3.b: the lower
    # seed White first.
    assert {(g["white"], g["black"]) for g in body["pairings"]} == {("e4", "e1"), ("e3", "e2")}

    text = _text("schedule", TID)
    assert "cup main: tcec-cup" in text
    assert "semi-finals (complete)" in text
    assert "sf-m1 Engine 1 (#1) Engine 3 (#3) 6 7 7–0 Engine 1 wins (early, after game 7)" in text
    assert (
        "sf-m2 Engine 2 (#2) Engine 4 (#4) 6 14 6½–7½ Engine 4 wins (tiebreak, after game 14)"
        in text
    )
    assert "final and bronze match (in progress)" in text
    assert "final Engine 1 (#1) Engine 4 (#4) 12 0 0–0 undecided" in text
    assert "bronze Engine 2 (#2) Engine 3 (#3) 8 0 0–0 undecided" in text
    assert text.index("semi-finals") < text.index("final and bronze match")
    # The rounds scheduled so far are listed above the bracket.
    assert text.index("round 15 (scheduled)") < text.index("semi-finals (complete)")

    sched = json.loads(_run("schedule", TID, "--json"))
    rounds = sched["bracket"]["rounds"]
    assert [r["code"] for r in rounds] == ["sf", "final"]
    decided = {
        m["match_id"]: (m["winner"], m["decided"], m["decided_after"]) for m in rounds[0]["matches"]
    }
    assert decided == {"sf-m1": ("e1", "early", 7), "sf-m2": ("e4", "tiebreak", 14)}


def test_schedule_before_the_bracket_lot_says_what_it_awaits(db: Path) -> None:
    _cup(db, 16)
    text = _text("schedule", TID)
    assert "bracket: 8 engines await the lot (tcec-rules Cup 2.c.2" in text
    assert "round of 16" not in text
