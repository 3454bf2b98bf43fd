"""The printed crosstable (projections/standings/grid.py): rows in standings order, each
round's cell as FIDE / Swiss-Manager print it, numbered by the start order given."""

from __future__ import annotations

from builders import created, player, recorded, result, round_

from events_schema import events as ev
from projections.standings import fold, standings
from projections.standings.grid import crosstable_grid
from projections.tiebreaks.registry import REGISTRY


def _state() -> object:
    # a beat b with White; c had the bye; round 2 c-a drawn, b a half-point bye.
    return fold(
        recorded(
            "t",
            [
                created(fmt="swiss", rounds=2, rules_preset="fide-swiss"),
                *[player(p, 2400 - 100 * i) for i, p in enumerate("abc")],
                round_(1, ("g1", "a", "b"), byes=("c",)),
                result("g1", "1-0", "resignation"),
                ev.RoundScheduled(
                    round=2,
                    pairings=[ev.Pairing(game_id="g2", white="c", black="a")],
                    byes=[ev.Bye(player_id="b", kind="half")],
                ),
                result("g2", "1/2-1/2"),
            ],
        )
    )


def test_cells_rows_and_start_numbers():
    state = _state()
    table = standings(state)
    grid = crosstable_grid(state, table, ["c", "a", "b"])  # start numbers: c 1, a 2, b 3
    rows = {r.player_id: r for r in grid.rows}
    assert [r.player_id for r in grid.rows] == [r.player_id for r in table.rows]
    assert (rows["c"].start_no, rows["a"].start_no, rows["b"].start_no) == (1, 2, 3)
    assert [c.text for c in rows["a"].cells] == ["3w1", "1b½"]
    assert [c.text for c in rows["b"].cells] == ["2b0", "="]
    assert [c.text for c in rows["c"].cells] == ["+", "2w½"]
    assert rows["a"].score == "1½"
    assert grid.komi is None and "handicap" not in rows["a"].cells[0].as_dict()  # chess


def test_columns_are_headed_in_words_and_cite_their_rule():
    state = _state()
    grid = crosstable_grid(state, standings(state), [])
    heads = {c.key: (c.heading, c.source) for c in grid.columns}
    # (no start date, no edition stated: the fold reads the 2024 text)
    assert heads["buchholz-cut1"] == ("Buchholz cut 1", "FIDE C.07 2024, 8.1, 16.3-16.5, 14.1")
    assert heads["fide-sonneborn-berger"][0] == "Sonneborn-Berger"
    assert REGISTRY["mms"].words == "McMahon score" and REGISTRY["fide-wins"].words == "Wins"
