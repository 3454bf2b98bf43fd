"""Series tables: the Czech club series (place points, two-cycle bonus, best-75 % cut re-applied
after every tournament, the four-level order) and the GCT tour (accumulated event tour points
with 2.7/2.8 splits, §4.1 ties flagged, 4.2 bonus)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from builders import created, player, recorded, result, round_
from hypothesis import given, settings
from hypothesis import strategies as st

from events_schema import events as ev
from projections.playoffs.gct_tour import OverallRow, played_off
from projections.playoffs.gct_tour import view as tour_view
from projections.prizes import tour_bonus_split
from projections.series import (
    EventStanding,
    Placing,
    counted_per_player,
    czech_series_progression,
    czech_series_table,
    gct_tour_table,
)
from projections.standings import fold

D = Decimal
F = Fraction
CZECH = ev.SeriesCreated(name="Klubová série", kind="czech-series")


def es(tid: str, *order: str | tuple[str, ...], cycles: int = 1, **kw) -> EventStanding:
    """es("t1", "a", ("b", "c"), "d"): a 1st, b and c share 2nd (places 2–3), d 4th."""
    rows, place = [], 1
    for item in order:
        block = (item,) if isinstance(item, str) else item
        rows += [Placing(place, p) for p in block]
        place += len(block)
    return EventStanding(tid, tid.upper(), cycles, tuple(rows), **kw)


def pts(table, **expected):
    return {r.player_id: r.points for r in table.rows if r.player_id in expected} == expected


# ---------------------------------------------------------------------------------------------
# Czech series
# ---------------------------------------------------------------------------------------------


def test_place_points_n_to_1_and_the_multi_cycle_winner_bonus():
    # 5 participants: 5, 4, 3, 2, 1. Two cycles: the winner gets 5 + 1 = 6. Three cycles too.
    single = czech_series_table(CZECH, [es("t1", *"abcde")])
    assert [(r.player_id, r.points) for r in single.rows] == [
        ("a", 5),
        ("b", 4),
        ("c", 3),
        ("d", 2),
        ("e", 1),
    ]
    double = czech_series_table(CZECH, [es("t1", *"abcde", cycles=2)])
    assert double.row("a").points == 6 and double.row("b").points == 4
    assert double.row("a").results[0].bonus == 1
    assert "winner's bonus +1 (2 cycles)" in double.row("a").results[0].note
    triple = czech_series_table(CZECH, [es("t1", *"abc", cycles=3)])
    assert triple.row("a").points == 4  # 3 + 1


def test_shared_places_share_the_places_points_and_a_shared_win_shares_the_bonus():
    # czech-series/shared-place-points: b, c share places 2–3 of 5 → (4 + 3) / 2 = 7/2 each.
    # czech-series/multi-cycle-bonus: a, b share 1st of a 2-cycle 4-player event →
    # (4 + 3) / 2 + 1/2 = 4 each; both have a first place.
    t = czech_series_table(CZECH, [es("t1", "a", ("b", "c"), "d", "e")])
    assert t.row("b").points == t.row("c").points == F(7, 2)
    assert "places 2–3 of 5 shared: (4 + 3) / 2 = 3.5" in t.row("b").results[0].note
    t = czech_series_table(CZECH, [es("t1", ("a", "b"), "c", "d", cycles=2)])
    assert t.row("a").points == t.row("b").points == 4
    assert t.row("a").results[0].bonus == F(1, 2)
    assert t.row("a").first_places == t.row("b").first_places == 1
    assert [(r.place, r.shared) for r in t.rows[:2]] == [(1, True), (1, True)]


def test_counted_per_player_is_the_floor_of_three_quarters():
    assert [counted_per_player(h)[0] for h in range(1, 9)] == [1, 1, 2, 3, 3, 4, 5, 6]
    assert counted_per_player(1, min_counted=0) == (0, "⌊0.75 × 1⌋ = 0")
    assert counted_per_player(5)[1] == "⌊0.75 × 5⌋ = 3"
    assert "at least 1" in counted_per_player(1)[1]


# Five 4-player tournaments (4, 3, 2, 1 points):
#   T1: a b c d      a 4  b 3  c 2  d 1
#   T2: a c d b      a 4  c 3  d 2  b 1
#   T3: b c a d      b 4  c 3  a 2  d 1
#   T4: b c a d      b 4  c 3  a 2  d 1
#   T5: c b d a      c 4  b 3  d 2  a 1
FIVE = [
    es("t1", *"abcd"),
    es("t2", *"acdb"),
    es("t3", *"bcad"),
    es("t4", *"bcad"),
    es("t5", *"cbda"),
]


def test_the_75_percent_cut_is_reapplied_after_every_tournament():
    tables = czech_series_progression(CZECH, FIVE)
    assert [t.cap for t in tables] == [1, 1, 2, 3, 3]

    # held 1: ⌊0.75⌋ = 0, at least 1 counts (reading): a 4, b 3, c 2, d 1.
    assert [(r.player_id, r.points) for r in tables[0].rows] == [
        ("a", 4),
        ("b", 3),
        ("c", 2),
        ("d", 1),
    ]
    # held 2: ⌊1.5⌋ = 1 counts. a max(4, 4) = 4 (T1, the earlier); b max(3, 1) = 3;
    # c max(2, 3) = 3; d max(1, 2) = 2. b and c: 3 points, 1 counted, no first place each:
    # level on every criterion → they share 2nd.
    t2 = tables[1]
    assert [(r.place, r.player_id, r.points) for r in t2.rows] == [
        (1, "a", 4),
        (2, "b", 3),
        (2, "c", 3),
        (4, "d", 2),
    ]
    assert t2.rows[2].decided_by == "shared"
    assert [r.counted for r in t2.row("a").results] == [True, False]  # equal: earlier counts
    # held 3: ⌊2.25⌋ = 2 count. a 4 + 4 = 8 (T1, T2; T3's 2 dropped); b 4 + 3 = 7 (T3, T1);
    # c 3 + 3 = 6 (T2, T3); d 2 + 1 = 3 (T2, T1).
    t3 = tables[2]
    assert [(r.player_id, r.points) for r in t3.rows] == [("a", 8), ("b", 7), ("c", 6), ("d", 3)]
    assert [r.counted for r in t3.row("a").results] == [True, True, False]
    assert t3.row("a").running_total == 10  # 4 + 4 + 2 before the cut
    # held 4: ⌊3⌋ = 3 count. b 4 + 4 + 3 = 11 overtakes a 4 + 4 + 2 = 10; c 3 + 3 + 3 = 9;
    # d 2 + 1 + 1 = 4.
    t4 = tables[3]
    assert [(r.player_id, r.points) for r in t4.rows] == [
        ("b", 11),
        ("a", 10),
        ("c", 9),
        ("d", 4),
    ]
    assert t4.rows[1].decided_by == "points 11–10"
    # held 5: ⌊3.75⌋ = 3 still. b 4 + 4 + 3 = 11 (T3, T4, T1; T5's equal 3 not counted);
    # a 4 + 4 + 2 = 10; c 4 + 3 + 3 = 10 (T5, T2, T3); d 2 + 2 + 1 = 5.
    # a and c: 10 points, 3 counted each; first places a 2 (T1, T2), c 1 (T5) → a ahead.
    t5 = tables[4]
    assert [(r.place, r.player_id, r.points) for r in t5.rows] == [
        (1, "b", 11),
        (2, "a", 10),
        (3, "c", 10),
        (4, "d", 5),
    ]
    assert t5.rows[2].decided_by == "more first places 2–1"
    b = t5.row("b")
    assert [(r.tournament_id, r.counted) for r in b.results] == [
        ("t1", True),
        ("t2", False),
        ("t3", True),
        ("t4", True),
        ("t5", False),
    ]
    assert b.results[4].reason == (
        "not counted: result #4 of 5; only the best 3 count (⌊0.75 × 5⌋ = 3)"
    )
    assert b.results[0].reason.startswith("counted: result #3 of 5; the best 3 count")
    assert (b.first_places, b.first_place_sizes) == (2, (4, 4))


def test_bare_formula_counts_nothing_after_one_tournament():
    t = czech_series_table(CZECH, FIVE[:1], min_counted=0)
    assert t.cap == 0 and {r.points for r in t.rows} == {0}
    # all on 0 points, 0 counted: a's first place (czech-series/first-places: counted or not)
    # puts a ahead; b, c, d are level on everything and share 2nd.
    assert [(r.player_id, r.place) for r in t.rows] == [("a", 1), ("b", 2), ("c", 2), ("d", 2)]
    assert t.rows[1].decided_by == "more first places 1–0"


def test_fewer_counted_tournaments_beats_more_first_places():
    # Five held → 3 count. x played only T1 and T2 (wins of 6-player events): 6 + 6 = 12 with
    # 2 counted. y: T1 3rd of 6 = 4, T3/T4/T5 wins of 4-player events = 4 each → best three
    # 4 + 4 + 4 = 12 (T1, T3, T4; equal T5 not counted), 3 counted, 3 first places to x's 2.
    # Criterion 2 comes first: x is ahead, "nikoliv odehraných" (counted, not played).
    events = [
        es("t1", "x", "f1", "y", "f2", "f3", "f4"),
        es("t2", "x", "f1", "f2", "f3", "f4", "f5"),
        es("t3", "y", "f1", "f2", "f3"),
        es("t4", "y", "f1", "f2", "f3"),
        es("t5", "y", "f1", "f2", "f3"),
    ]
    t = czech_series_table(CZECH, events)
    x, y = t.row("x"), t.row("y")
    assert (x.points, x.counted, x.first_places) == (12, 2, 2)
    assert (y.points, y.counted, y.first_places) == (12, 3, 3)
    assert x.place < y.place
    assert y.decided_by == "fewer counted tournaments 2–3"


def test_first_places_from_larger_tournaments_decide_last():
    # Four held → 3 count; p and q play only T1 (5 players) and T2 (6 players).
    # p: 1st of 5 = 5, 3rd of 6 = 4 → 9. q: 3rd of 5 = 3, 1st of 6 = 6 → 9.
    # Equal points (9), counted (2), first places (1): q's first place is from the larger
    # event (6 > 5) → q ahead. r and s mirror each other exactly → they share.
    events = [
        es("t1", "p", "f1", "q", "f2", "f3"),
        es("t2", "q", "f1", "p", "f2", "f3", "f4"),
        es("t3", "r", "s", "g1"),
        es("t4", "s", "r", "g1"),
    ]
    t = czech_series_table(CZECH, events)
    p, q = t.row("p"), t.row("q")
    assert (p.points, p.counted, p.first_places) == (q.points, q.counted, q.first_places)
    assert (q.first_place_sizes, p.first_place_sizes) == ((6,), (5,))
    assert q.place + 1 == p.place
    assert p.decided_by == "first places in larger tournaments (6) – (5)"
    r, s = t.row("r"), t.row("s")
    assert (r.place, r.shared, s.place, s.shared) == (s.place, True, r.place, True)
    assert (r.points, r.counted, r.first_places) == (5, 2, 1)  # 3 + 2


def test_points_decide_first_and_rows_explain_the_cut():
    t = czech_series_table(CZECH, FIVE[:3])
    assert t.rows[1].decided_by == "points 8–7"
    d = t.as_dict()
    assert d["counted_per_player"] == 2 and d["cap"] == "⌊0.75 × 3⌋ = 2"
    assert "czech-series/shared-place-points" in d["readings"]
    first = d["rows"][0]
    assert first["points"] == "8" and first["results"][2]["counted"] is False


def test_czech_series_from_real_folds_double_round_robin():
    # 3 players, two cycles (rounds 1–3, 4–6): a wins all four games, b beats c twice.
    # a 4, b 2, c 0 → places 1, 2, 3: a 3 + 1 (two-cycle bonus) = 4, b 2, c 1.
    pairs = [("a", "b"), ("b", "c"), ("c", "a"), ("b", "a"), ("c", "b"), ("a", "c")]
    winners = ["a", "b", "a", "a", "b", "a"]
    evs: list[ev.Event] = [
        created(rules_preset="czech-multi", cycles=2, rounds=6, series_id="club"),
        *[player(p) for p in "abc"],
    ]
    for n, ((w, b), win) in enumerate(zip(pairs, winners, strict=True), start=1):
        evs += [round_(n, (f"g{n}", w, b)), result(f"g{n}", "1-0" if win == w else "0-1")]
    state = fold(recorded("club-1", evs))
    t = czech_series_table(CZECH, [("club-1", state)], series_id="club")
    assert [(r.player_id, r.points) for r in t.rows] == [("a", 4), ("b", 2), ("c", 1)]
    with pytest.raises(ValueError, match="belongs to series 'club'"):
        czech_series_table(CZECH, [("club-1", state)], series_id="other")
    with pytest.raises(ValueError, match="given twice"):
        czech_series_table(CZECH, [("club-1", state), ("club-1", state)])


# ---------------------------------------------------------------------------------------------
# GCT tour
# ---------------------------------------------------------------------------------------------

TOUR = ev.SeriesCreated(
    name="GCT 2022",
    kind="gct-tour",
    points_table=[D(13), D(10), D(8), D(7), D(6)],
    bonus=ev.PrizeTable(
        prizes=[
            ev.Prize(place=i, amount=D(a))
            for i, a in enumerate(["100000", "50000", "25000", "10000"], 1)
        ]
    ),
)


def _gct_fold() -> tuple[str, object]:
    """E3 as a real tournament: 5-player R&B round robin where b and e tie for first.

    b–e drawn, b and e beat everyone else; a beats d and c; d beats c.
    b 3½, e 3½, a 2, d 1, c 0 → b, e 1–2; a 3; d 4; c 5."""
    games = [
        ("b", "e", "1/2-1/2"),
        ("b", "a", "1-0"),
        ("b", "d", "1-0"),
        ("b", "c", "1-0"),
        ("e", "a", "1-0"),
        ("e", "d", "1-0"),
        ("e", "c", "1-0"),
        ("a", "d", "1-0"),
        ("a", "c", "1-0"),
        ("d", "c", "1-0"),
    ]
    evs: list[ev.Event] = [created(rules_preset="gct-rapid-blitz"), *[player(p) for p in "abcde"]]
    for n, (w, b, r) in enumerate(games, start=1):
        evs += [round_(n, (f"g{n}", w, b)), result(f"g{n}", r)]
    return "e3", fold(recorded("e3", evs))


def test_gct_tour_accumulates_three_events_with_shared_places():
    # Series points 13, 10, 8, 7, 6; E2 has its own 12, 10, 8, 6, 4.
    # E1: a, b tie 1st → (13 + 10) / 2 = 23/2 each (2.7, playoff: bonus points withheld);
    #     c 8; d 7; e 6.
    # E2: a 12; c, d tie 2–3 → (10 + 8) / 2 = 9 each (2.8); b 6; e 4.
    # E3 (a real fold): b, e tie 1st → 23/2 each; a 8; d 7; c 6.
    # Totals: a 23/2 + 12 + 8 = 63/2 (31.5); b 23/2 + 6 + 23/2 = 29; c 8 + 9 + 6 = 23;
    #         d 7 + 9 + 7 = 23; e 6 + 4 + 23/2 = 43/2 (21.5).
    # c and d tie for places 3–4: it covers 3rd → flagged for the §4.1 playoff.
    e1 = es("e1", ("a", "b"), "c", "d", "e")
    e2 = es("e2", "a", ("c", "d"), "b", "e", points_table=(D(12), D(10), D(8), D(6), D(4)))
    table = gct_tour_table(TOUR, [e1, e2, _gct_fold()])
    assert [(r.place, r.player_id, r.points, r.shared) for r in table.rows] == [
        (1, "a", F(63, 2), False),
        (2, "b", F(29), False),
        (3, "c", F(23), True),
        (3, "d", F(23), True),
        (5, "e", F(43, 2), False),
    ]
    assert {r.events_counted for r in table.rows} == {3}
    assert table.bonus_points_withheld == ("e1", "e3")
    (tie,) = table.ties
    assert (tie.first_place, tie.last_place, tie.players, tie.playoff) == (3, 4, ("c", "d"), True)
    assert (tie.covers_first, tie.covers_third, tie.article) == (False, True, "GCT 4.1")
    assert [p.players for p in table.playoffs] == [("c", "d")]
    assert table.rows[2].playoff == "third" and table.rows[0].playoff is None
    assert table.rows[1].decided_by == "points 31.5–29"
    c = table.rows[2]
    assert [r.tour_points for r in c.results] == [8, 9, 6]
    assert c.results[1].note == "GCT 2.8: places 2–3 shared: (T2 10 + T3 8) / 2 = 9"
    assert "GCT 2.7" in table.rows[0].results[0].note
    assert table.as_dict()["rows"][0]["points"] == "31.5"

    # GCT 4.2: the bonus by these (pre-playoff) places: c and d share (25,000 + 10,000) / 2.
    bonus = tour_bonus_split(table.rows, TOUR.bonus)
    assert [str(ln.prize) for ln in bonus.lines] == [
        "100000.00",
        "50000.00",
        "17500.00",
        "17500.00",
        "0.00",
    ]


def test_gct_tour_ties_for_first_and_for_other_places():
    # E1: a 13, b 10, c 8, d 7, e 6. E2: b 13, a 10, c 8, e 7, d 6.
    # a 23, b 23 (tie 1–2: playoff for first, 4.1); c 16; d 13, e 13 (tie 4–5: stays, 4.2).
    # g plays E2 only (6th: 1 point): one event counted.
    e1 = es("e1", *"abcde")
    e2 = es("e2", *"bacedg", points_table=(D(13), D(10), D(8), D(7), D(6), D(1)))
    table = gct_tour_table(TOUR, [e1, e2])
    ties = {t.players: t for t in table.ties}
    first, low = ties[("a", "b")], ties[("d", "e")]
    assert first.playoff and first.covers_first and not first.covers_third
    assert not low.playoff and low.article == "GCT 4.2"
    assert "not broken" in low.text
    assert table.rows[0].playoff == "first"
    g = next(r for r in table.rows if r.player_id == "g")
    assert (g.points, g.events_counted, g.place) == (1, 1, 6)


def test_gct_tour_three_way_tie_for_first_is_the_tie_for_first_only():
    # Three-way tie for 1st–3rd: it includes 1st place (4.1), but it does not straddle 3rd
    # (all three are in the first three whatever happens): the tie for 1st only, as the
    # playoff machine cuts it (rules/README "GCT overall standings (4.x)").
    table = gct_tour_table(TOUR, [es("e1", ("a", "b", "c"), "d")])
    assert table.ties[0].covers_first and not table.ties[0].covers_third
    assert table.rows[0].playoff == "first"
    assert {r.points for r in table.rows[:3]} == {F(31, 3)}


def test_gct_tour_tie_covering_first_and_third():
    # Four-way tie for 1st–4th straddles both boundaries: first and third.
    table = gct_tour_table(TOUR, [es("e1", ("a", "b", "c", "d"))])
    assert table.ties[0].covers_first and table.ties[0].covers_third
    assert table.rows[0].playoff == "first and third"


def test_gct_tour_tie_for_second_inside_the_top_three_is_not_broken():
    # Issue 12: a 2nd–3rd tie. The pinned reading (rules/README "GCT overall standings
    # (4.x)"): a tie inside the top three is not broken (4.2), as the playoff machine says.
    # E1: a 13, b and c share 2–3 ((10 + 8) / 2 = 9 each), d 7.
    table = gct_tour_table(TOUR, [es("e1", "a", ("b", "c"), "d")])
    (tie,) = table.ties
    assert (tie.first_place, tie.last_place) == (2, 3)
    assert (tie.playoff, tie.covers_first, tie.covers_third) == (False, False, False)
    assert tie.article == "GCT 4.2"
    assert "not broken" in tie.text and "broken by playoff" not in tie.text
    assert [r.playoff for r in table.rows] == [None, None, None, None]
    assert table.playoffs == ()
    machine = tour_view([OverallRow(r.player_id, r.points) for r in table.rows], None)
    assert machine.status == "not_needed"
    assert any("GCT 4.2" in n and "2–3" in n for n in machine.notes)


@pytest.mark.parametrize(
    ("order", "first", "third"),
    [
        (("a", ("b", "c", "d")), False, True),  # 2–4 straddles 3rd: played off for 3rd
        (("a", "b", ("c", "d")), False, True),  # 3–4
        (("a", "b", "c", ("d", "e")), False, False),  # 4–5: wholly below 3rd
        ((("a", "b"), "c", "d"), True, False),  # 1–2
    ],
)
def test_gct_tour_ties_agree_with_the_playoff_machine(order, first, third):
    table = gct_tour_table(TOUR, [es("e1", *order)])
    (tie,) = table.ties
    assert (tie.covers_first, tie.covers_third) == (first, third)
    assert tie.playoff == played_off(tie.first_place, tie.last_place)


def test_gct_tour_without_any_points_table_is_noted():
    bare = ev.SeriesCreated(name="bare", kind="gct-tour")
    table = gct_tour_table(bare, [es("e1", "a", "b")])
    assert {r.points for r in table.rows} == {0}
    assert table.notes == ("e1: no tour points table (event or series): 0 points",)


# ---------------------------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------------------------


@st.composite
def czech_series(draw: st.DrawFn) -> list[EventStanding]:
    pool = [f"p{i}" for i in range(8)]
    out = []
    for n in range(draw(st.integers(1, 7))):
        players = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=8, unique=True))
        cuts = (
            sorted(draw(st.sets(st.integers(1, len(players) - 1), max_size=3)))
            if len(players) > 1
            else []
        )
        order = [
            tuple(players[a:b]) for a, b in zip([0, *cuts], [*cuts, len(players)], strict=True)
        ]
        out.append(es(f"t{n}", *order, cycles=draw(st.integers(1, 3))))
    return out


@settings(max_examples=200, deadline=None)
@given(czech_series())
def test_property_czech_counts_the_best_results_and_orders_by_the_four_criteria(events):
    t = czech_series_table(CZECH, events)
    assert t.cap == max(1, 3 * len(events) // 4)
    keys = []
    for r in t.rows:
        totals = sorted((x.points for x in r.results), reverse=True)
        assert r.counted == min(r.played, t.cap)
        assert r.points == sum(totals[: t.cap], F(0))  # the best results, whichever they are
        assert r.running_total == sum(totals, F(0))
        assert all(x.points > 0 for x in r.results)
        keys.append((-r.points, r.counted, -r.first_places, tuple(-s for s in r.first_place_sizes)))
    assert keys == sorted(keys)
    for above, below, ka, kb in zip(t.rows, t.rows[1:], keys, keys[1:], strict=False):
        if ka == kb:  # level on all four criteria: they share (1, 2, 2, 4)
            assert below.place == above.place and above.shared and below.shared
        else:
            assert below.place == above.place + sum(r.place == above.place for r in t.rows)
    # the place points of each tournament are N…1 (plus one bonus point): nothing lost
    for e in events:
        n = e.participants
        got = sum(
            (x.points for r in t.rows for x in r.results if x.tournament_id == e.tournament_id),
            F(0),
        )
        assert got == n * (n + 1) // 2 + (1 if e.cycles >= 2 else 0)
