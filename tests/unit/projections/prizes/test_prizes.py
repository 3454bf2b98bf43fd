"""GCT prize money and tour points (2.6–2.8, 3.6–3.8, 4.2): worked examples checked by hand,
corrections by ruling, and property tests (money and points are conserved exactly)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import pytest
from builders import gct_event_played, prizes, recorded
from hypothesis import given, settings
from hypothesis import strategies as st

from events_schema import events as ev
from projections.prizes import (
    event_prizes,
    event_split,
    points_str,
    split_money,
    tour_bonus_split,
)
from projections.standings import fold

D = Decimal
F = Fraction
POINTS = [D(13), D(10), D(8), D(7), D(6), D(5), D(4), D(3), D(2), D(1)]


@dataclass(frozen=True)
class R:
    place: int
    player_id: str


def rows(*blocks: str) -> list[R]:
    """rows("ab", "c", "de") → a, b share place 1, c place 3, d, e share place 4."""
    out, place = [], 1
    for block in blocks:
        out += [R(place, p) for p in block]
        place += len(block)
    return out


RB = prizes("37500", "25000", "20000", "15000", "12500", "10000", "10000", "7500", "7500", "5000")


# ---------------------------------------------------------------------------------------------
# Worked examples
# ---------------------------------------------------------------------------------------------


def test_clear_places_pay_their_own_prize_and_points():
    split = event_split(rows("a", "b", "c"), RB, POINTS, classical=False, playoff_winner=None)
    assert [(ln.player_id, str(ln.prize), ln.tour_points) for ln in split.lines] == [
        ("a", "37500.00", 13),
        ("b", "25000.00", 10),
        ("c", "20000.00", 8),
    ]
    assert split.status == "final"
    assert not split.playoff_needed and not split.bonus_points_withheld
    assert split.remainder == 0 and split.pending == 0
    # places 4–10 are in the table but nobody took them
    assert [p for p, _ in split.unawarded] == [4, 5, 6, 7, 8, 9, 10]
    # a clear winner needs no playoff: naming someone else as its winner is refused
    with pytest.raises(ValueError, match="not among the players on first place"):
        event_split(rows("a", "b"), RB, POINTS, classical=False, playoff_winner="b")


def test_two_way_tie_for_first_rapid_blitz():
    # GCT 2.6: premium 5,000. P1 37,500 + P2 25,000 = 62,500 for the two tied players.
    # Shared: (37,500 − 5,000 + 25,000) / 2 = 57,500 / 2 = 28,750.00 each.
    # Winner b: 5,000 + 28,750 = 33,750.00; a: 28,750.00. 33,750 + 28,750 = 62,500. ✓
    # GCT 2.7: tour points (13 + 10) / 2 = 11.5 each; no bonus points.
    split = event_split(rows("ab", "c"), RB, POINTS, classical=False, playoff_winner="b")
    a, b, c = split.lines
    assert (b.prize, b.premium, b.share) == (D("33750.00"), D("5000.00"), D("28750.00"))
    assert (a.prize, a.premium, a.share) == (D("28750.00"), D("0.00"), D("28750.00"))
    assert a.tour_points == b.tour_points == F(23, 2)
    assert (c.prize, c.tour_points) == (D("20000.00"), 8)  # 3rd is untouched
    assert split.status == "final" and split.playoff_needed and split.bonus_points_withheld
    assert split.groups[0].remainder == 0
    assert "GCT 2.6" in b.note and "won the playoff" in b.note and "lost the playoff" in a.note
    assert "GCT 2.7" in a.note and "no GCT bonus points" in a.note


def test_two_way_tie_for_first_classical_premium_is_10000():
    # GCT 3.6: the same table with the classical premium of 10,000:
    # (37,500 − 10,000 + 25,000) / 2 = 52,500 / 2 = 26,250.00 each; winner 36,250.00.
    # Against R&B (previous test): the winner gets 2,500 more, the other 2,500 less.
    split = event_split(rows("ab", "c"), RB, POINTS, classical=True, playoff_winner="a")
    a, b = split.line("a"), split.line("b")
    assert (a.prize, a.premium, a.share) == (D("36250.00"), D("10000.00"), D("26250.00"))
    assert b.prize == D("26250.00")
    assert split.kind == "gct-classical" and split.premium_source == "GCT 3.6"
    assert "GCT 3.6" in a.note and "GCT 3.7" in a.note


def test_three_way_tie_for_first_with_a_remainder_cent():
    # Classical, P1 20,000, P2 10,000, P3 5,000 → pool 35,000.
    # (20,000 − 10,000 + 10,000 + 5,000) / 3 = 25,000 / 3 = 8,333.33 each, 0.01 left over.
    # Winner c: 10,000 + 8,333.33 = 18,333.33. Paid 18,333.33 + 2 × 8,333.33 = 34,999.99,
    # + 0.01 remainder = 35,000.00. ✓  Tour points (13 + 10 + 8) / 3 = 31/3 each.
    table = prizes("20000", "10000", "5000", "3000")
    split = event_split(rows("abc", "d"), table, POINTS, classical=True, playoff_winner="c")
    g = split.groups[0]
    assert (g.pool, g.premium, g.share, g.remainder) == (
        D("35000.00"),
        D("10000.00"),
        D("8333.33"),
        D("0.01"),
    )
    assert split.line("c").prize == D("18333.33")
    assert split.line("a").prize == split.line("b").prize == D("8333.33")
    assert split.line("a").tour_points == F(31, 3)
    assert points_str(F(31, 3)) == "31/3"
    assert split.paid + split.remainder == D("38000.00")  # 35,000 + P4 3,000
    assert "remainder 0.01 stated" in g.text
    assert split.as_dict()["totals"] == {
        "pool": "38000.00",
        "paid": "37999.99",
        "remainder": "0.01",
        "pending": "0.00",
    }


def test_four_way_tie_for_first_remainder_of_three_cents():
    # R&B. P1 15,000, P2 10,000, P3 7,500, P4 5,000.03 → pool 37,500.03.
    # (15,000 − 5,000 + 10,000 + 7,500 + 5,000.03) / 4 = 32,500.03 / 4:
    # 3,250,003 cents = 4 × 812,500 + 3 → 8,125.00 each, 0.03 stated.
    # Winner d: 13,125.00. 13,125 + 3 × 8,125 + 0.03 = 37,500.03. ✓
    # Tour points (13 + 10 + 8 + 7) / 4 = 38 / 4 = 9.5 each.
    table = prizes("15000", "10000", "7500", "5000.03")
    split = event_split(rows("abcd"), table, POINTS, classical=False, playoff_winner="d")
    g = split.groups[0]
    assert (g.share, g.remainder) == (D("8125.00"), D("0.03"))
    assert split.line("d").prize == D("13125.00")
    assert {ln.tour_points for ln in split.lines} == {F(19, 2)}
    assert split.paid + split.remainder == g.pool == D("37500.03")


def test_premium_larger_than_the_first_prize():
    # R&B premium 5,000 but P1 is only 3,000: the winner's premium is P1 (3,000) and the rest,
    # (3,000 − 3,000 + 2,000) / 2 = 1,000.00, is shared. Winner a: 3,000 + 1,000 = 4,000.00,
    # b: 1,000.00. 4,000 + 1,000 = 5,000 = P1 + P2. ✓ Nobody is paid more than the pool.
    table = prizes("3000", "2000", "1000")
    split = event_split(rows("ab", "c"), table, POINTS, classical=False, playoff_winner="a")
    g = split.groups[0]
    assert (g.premium, g.share, g.remainder) == (D("3000.00"), D("1000.00"), D("0.00"))
    assert split.premium_rule == D("5000.00")
    assert (split.line("a").prize, split.line("b").prize) == (D("4000.00"), D("1000.00"))
    assert "P1 is below the 5,000.00 premium" in g.text


def test_undecided_playoff_shows_shares_and_the_premium_as_pending():
    # Same as the two-way R&B tie, before the playoff: 28,750.00 each is certain; 5,000.00 is
    # pending for whoever wins. 2 × 28,750 + 5,000 pending = 62,500. ✓
    split = event_split(rows("ab", "c"), RB, POINTS, classical=False, playoff_winner=None)
    assert split.status == "pending_playoff" and split.playoff_winner is None
    for pid in "ab":
        ln = split.line(pid)
        assert (ln.prize, ln.premium, ln.premium_pending) == (
            D("28750.00"),
            D("0.00"),
            D("5000.00"),
        )
        assert "playoff pending" in ln.note
    assert split.groups[0].premium_status == "pending"
    assert split.pending == D("5000.00")
    assert split.paid + split.remainder + split.pending == split.pool == D("82500.00")
    assert split.line("c").premium_pending is None
    d = split.as_dict()
    assert d["lines"][0]["premium_pending"] == "5000.00" and d["status"] == "pending_playoff"


def test_tie_for_third_and_fourth_shares_prize_and_points():
    # GCT 2.8: (P3 20,000 + P4 15,000) / 2 = 17,500.00 each; (8 + 7) / 2 = 7.5 points each.
    # No playoff, no premium, bonus points not withheld.
    split = event_split(rows("a", "b", "cd", "e"), RB, POINTS, classical=False, playoff_winner=None)
    c, d = split.line("c"), split.line("d")
    assert c.prize == d.prize == D("17500.00")
    assert c.tour_points == d.tour_points == F(15, 2)
    assert (c.first_place, c.last_place, c.places) == (3, 4, "3–4")
    assert split.line("e").prize == D("12500.00") and split.line("e").tour_points == 6
    assert split.status == "final" and not split.bonus_points_withheld
    assert split.groups[2].article == "GCT 2.8" and "GCT 2.8" in c.note
    assert split.as_dict()["lines"][2]["tour_points"] == "7.5"


def test_three_sharing_10000_leave_one_cent_stated():
    # Places 3–5 with P3 5,000 + P4 3,000 + P5 2,000 = 10,000.00 among 3:
    # 1,000,000 cents = 3 × 333,333 + 1 → 3,333.33 each, 0.01 remainder stated.
    table = prizes("20000", "10000", "5000", "3000", "2000")
    split = event_split(rows("a", "b", "cde"), table, POINTS, classical=True, playoff_winner=None)
    g = split.groups[2]
    assert (g.share, g.remainder) == (D("3333.33"), D("0.01"))
    assert split.as_dict()["groups"][2]["remainder"] == "0.01"
    assert split.as_dict()["lines"][4]["prize"] == "3333.33"
    # tour points (8 + 7 + 6) / 3 = 7 exactly
    assert split.line("e").tour_points == 7


def test_prize_table_premium_overrides_the_default_and_places_beyond_the_table_pay_nothing():
    # winner_premium 7,500 from the table; P1 10,000, P2 4,000, P3 and P4 not listed (0).
    # (10,000 − 7,500 + 4,000 + 0 + 0) / 4 = 6,500 / 4 = 1,625.00 each; winner 9,125.00.
    # Points: the table has 2 entries, so (13 + 10 + 0 + 0) / 4 = 23/4 = 5.75.
    table = prizes("10000", "4000", premium="7500", currency="EUR")
    split = event_split(rows("abcd"), table, [D(13), D(10)], classical=False, playoff_winner="b")
    assert split.premium_source == "prize table winner_premium" and split.currency == "EUR"
    assert split.line("b").prize == D("9125.00") and split.line("a").prize == D("1625.00")
    assert split.line("a").tour_points == F(23, 4) and points_str(F(23, 4)) == "5.75"


def test_malformed_input_is_refused():
    with pytest.raises(ValueError, match="expected place 2"):
        event_split([R(1, "a"), R(3, "b")], RB, POINTS, classical=False, playoff_winner=None)
    with pytest.raises(ValueError, match="twice"):
        event_split([R(1, "a"), R(2, "a")], RB, POINTS, classical=False, playoff_winner=None)
    with pytest.raises(ValueError, match="not among"):
        event_split(rows("ab"), RB, POINTS, classical=False, playoff_winner="zed")
    dup = ev.PrizeTable(prizes=[ev.Prize(place=1, amount=D(1)), ev.Prize(place=1, amount=D(2))])
    with pytest.raises(ValueError, match="twice"):
        event_split(rows("a"), dup, POINTS, classical=False, playoff_winner=None)


def test_empty_table_and_no_prize_table():
    split = event_split([], None, [], classical=False, playoff_winner=None)
    assert split.lines == () and split.pool == 0 and split.status == "final"
    split = event_split(rows("ab"), None, [], classical=False, playoff_winner=None)
    assert [ln.prize for ln in split.lines] == [D("0.00"), D("0.00")]
    assert split.groups[0].premium == 0  # min(5,000, P1 = 0)


def test_split_money_helper():
    assert split_money(D("10000.00"), 3) == (D("3333.33"), D("0.01"))
    assert split_money(D("0.05"), 7) == (D("0.00"), D("0.05"))
    with pytest.raises(ValueError, match="whole number of cents"):
        split_money(D("0.001"), 1)


# ---------------------------------------------------------------------------------------------
# GCT 4.2: the tour bonus
# ---------------------------------------------------------------------------------------------


def test_tour_bonus_split_shares_tied_overall_places_equally():
    # Overall: a, b tied 1–2; c clear 3rd; d, e, f tied 4–6.
    # B1 100,000 + B2 50,000 → 75,000.00 each (a playoff for first changes nothing: 4.2).
    # c: 25,000.00. B4 10,000 + B5 0.01 + B6 0 = 10,000.01 / 3 → 3,333.33 each, 0.02 stated.
    bonus = prizes("100000", "50000", "25000", "10000", "0.01")
    split = tour_bonus_split(rows("ab", "c", "def"), bonus)
    assert [str(ln.prize) for ln in split.lines] == [
        "75000.00",
        "75000.00",
        "25000.00",
        "3333.33",
        "3333.33",
        "3333.33",
    ]
    assert split.groups[2].remainder == D("0.02")
    assert split.paid + split.remainder == D("185000.01")
    assert split.kind == "gct-tour-bonus" and split.groups[0].article == "GCT 4.2"
    assert all(ln.tour_points is None for ln in split.lines)
    assert "GCT 4.2" in split.lines[0].note


# ---------------------------------------------------------------------------------------------
# From a tournament's fold, with corrections by ruling
# ---------------------------------------------------------------------------------------------


def _ruling(rid: str, subject: str, decision: dict) -> ev.RulingIssued:
    return ev.RulingIssued(
        ruling_id=rid, by="chief", subject=subject, text="correction", decision=decision
    )


def test_event_prizes_from_a_fold_and_a_prize_table_corrected_by_ruling():
    table = prizes("40000", "20000", "10000", "6000")
    events = gct_event_played(prize_table=table, points_table=[D(12), D(10), D(8), D(6)])
    state = fold(recorded("rb1", events))
    split = event_prizes(state, playoff_winner=None)
    # (40,000 − 5,000 + 20,000) / 2 = 27,500.00; (10,000 + 6,000) / 2 = 8,000.00
    assert [(ln.player_id, str(ln.prize)) for ln in split.lines] == [
        ("a", "27500.00"),
        ("b", "27500.00"),
        ("c", "8000.00"),
        ("d", "8000.00"),
    ]
    assert dict(split.sources) == {
        "prize_table": "TournamentCreated",
        "points_table": "TournamentCreated",
    }

    # The organiser corrects P1 to 45,000 and the tour points: a ruling, not an edit.
    fix = _ruling(
        "r-1",
        "prize_table",
        {
            "prize_table": {
                "prizes": [{"place": 1, "amount": "45000"}, {"place": 2, "amount": "20000"}]
            }
        },
    )
    pts = _ruling("r-2", "points_table", {"points_table": ["13", "10", "8", "7"]})
    bad = _ruling("r-3", "prize_table", {"prize_table": {"prizes": [{"place": 0, "amount": "1"}]}})
    recs = recorded("rb1", [*events, fix, pts, bad])
    split = event_prizes(fold(recs), playoff_winner="b")
    # (45,000 − 5,000 + 20,000) / 2 = 30,000.00; b 35,000.00; places 3–4 now pay nothing.
    assert (split.line("b").prize, split.line("a").prize) == (D("35000.00"), D("30000.00"))
    assert split.line("c").prize == D("0.00")
    assert split.line("a").tour_points == F(23, 2) and split.line("c").tour_points == F(15, 2)
    assert dict(split.sources) == {
        "prize_table": "RulingIssued r-1",
        "points_table": "RulingIssued r-2",
    }
    assert any("r-3 ignored" in n for n in split.notes)

    # Retracting the correction brings the creation's table back.
    retract = ev.EventRetracted(retracted_event_id=recs[-3].envelope.event_id, reason="typo")
    split = event_prizes(
        fold(recorded("rb1", [*events, fix, pts, bad, retract])), playoff_winner="b"
    )
    assert split.line("b").prize == D("32500.00")  # 5,000 + 27,500


def test_event_prizes_premium_from_the_preset_and_series_points():
    events = gct_event_played("gct-classical", prize_table=prizes("40000", "20000"))
    state = fold(recorded("cl1", events))
    split = event_prizes(state, playoff_winner="a", series_points=[D(13), D(10), D(8), D(7)])
    # (40,000 − 10,000 + 20,000) / 2 = 25,000; a 35,000.00
    assert split.line("a").prize == D("35000.00") and split.kind == "gct-classical"
    assert dict(split.sources)["points_table"] == "SeriesCreated"
    assert split.line("d").tour_points == F(15, 2)
    with pytest.raises(ValueError, match="neither gct-rapid-blitz nor gct-classical"):
        event_prizes(fold(recorded("x", gct_event_played("fide"))), playoff_winner=None)
    assert event_prizes(
        fold(recorded("x", gct_event_played("fide"))), playoff_winner=None, classical=False
    )


# ---------------------------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------------------------


@st.composite
def split_inputs(draw: st.DrawFn):
    sizes = draw(st.lists(st.integers(1, 5), min_size=1, max_size=6))
    names = iter(f"p{i}" for i in range(100))
    blocks = ["".join("x" for _ in range(s)) for s in sizes]  # only the sizes matter
    table_rows, place = [], 1
    for block in blocks:
        for _ in block:
            table_rows.append(R(place, next(names)))
        place += len(block)
    n_prizes = draw(st.integers(0, 14))
    amounts = draw(st.lists(st.integers(0, 10**9), min_size=n_prizes, max_size=n_prizes))
    premium = draw(st.none() | st.integers(0, 2 * 10**7))
    table = ev.PrizeTable(
        prizes=[ev.Prize(place=i, amount=D(c).scaleb(-2)) for i, c in enumerate(amounts, 1)],
        winner_premium=None if premium is None else D(premium).scaleb(-2),
    )
    points = draw(st.lists(st.integers(0, 30), max_size=14))
    first = [r.player_id for r in table_rows if r.place == 1]
    winner = draw(st.none() | st.sampled_from(first)) if len(first) > 1 else None
    classical = draw(st.booleans())
    return table_rows, table, [D(p) for p in points], classical, winner


@settings(max_examples=300, deadline=None)
@given(split_inputs())
def test_property_money_and_points_are_conserved_exactly(inputs):
    table_rows, table, points, classical, winner = inputs
    split = event_split(table_rows, table, points, classical=classical, playoff_winner=winner)
    by_place = {p.place: p.amount for p in table.prizes}
    for g in split.groups:
        k = len(g.players)
        pool = sum((by_place.get(q, D(0)) for q in range(g.first_place, g.last_place + 1)), D(0))
        assert g.pool == pool
        # shares plus the remainder (plus the premium) are the pool, exactly
        assert k * g.share + g.remainder + g.premium == pool
        assert g.share >= 0 and g.premium >= 0 and g.premium <= pool
        assert 0 <= g.remainder < k * D("0.01")
        pts = sum(
            (
                F(points[q - 1]) if q <= len(points) else F(0)
                for q in range(g.first_place, g.last_place + 1)
            ),
            F(0),
        )
        assert g.tour_points_share is not None and k * g.tour_points_share == pts
    assert all(ln.prize >= 0 and ln.share >= 0 for ln in split.lines)
    assert split.paid + split.remainder + split.pending == split.pool
    assert sum((ln.tour_points or F(0) for ln in split.lines), F(0)) == sum(
        (F(p) for p in points[: len(table_rows)]), F(0)
    )
    if winner is not None:
        assert all(
            split.line(winner).prize >= ln.prize for ln in split.lines if ln.first_place == 1
        )
    d = split.as_dict()  # money as strings with two places
    assert all(
        ln["prize"].count(".") == 1 and len(ln["prize"].split(".")[1]) == 2 for ln in d["lines"]
    )


@settings(max_examples=200, deadline=None)
@given(split_inputs())
def test_property_bonus_split_is_conserved_and_never_negative(inputs):
    table_rows, table, _points, _classical, _winner = inputs
    split = tour_bonus_split(table_rows, table)
    for g in split.groups:
        assert len(g.players) * g.share + g.remainder == g.pool
        assert g.share >= 0 and 0 <= g.remainder < len(g.players) * D("0.01")
    assert split.paid + split.remainder == split.pool
    assert split.pending == 0


def test_documents_rank_the_table_once_and_pass_it_to_the_playoff_and_the_prizes(monkeypatch):
    from projections import documents as docs
    from projections.playoffs import gct_event
    from projections.prizes import gct

    table = prizes("40000", "20000", "10000", "6000")
    state = fold(recorded("rb1", gct_event_played(prize_table=table, points_table=[D(12), D(10)])))
    expected = docs.documents(state, "rb1")
    calls = []
    ranked = docs.standings

    def counted(s, stage="main"):
        calls.append(stage)
        return ranked(s, stage)

    def refused(*_a, **_k):
        raise AssertionError("the table is ranked again")

    monkeypatch.setattr(docs, "standings", counted)
    monkeypatch.setattr(gct_event, "standings", refused)
    monkeypatch.setattr(gct, "standings", refused)
    assert docs.documents(state, "rb1") == expected
    assert calls == ["main"]
    assert expected["playoff"]["data"]["status"] == "in_progress"
    assert expected["prizes"]["data"]["status"] == "pending_playoff"
