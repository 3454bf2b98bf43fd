"""Galway "porous sections" (projections/pairing/galway.py): section count and sizes from the
entries, the pairing bonus, rounds 2-4 across sections and rounds 1, 5, 6 inside them, and the
section winners."""

from __future__ import annotations

from dataclasses import replace

import pytest
from bench.pairing import Shape, Sim, random_swiss, violations
from builders import created, player

from events_schema import events as ev
from projections.pairing import dutch, galway
from projections.pairing.base import PairingContext, PairingRefused


@pytest.mark.parametrize(
    ("entries", "sizes"),
    [
        (60, (14, 14, 14, 18)),
        (99, (24, 24, 24, 27)),  # the remainder may exceed 24 (rules/README)
        (100, (20, 20, 20, 20, 20)),
        (124, (24, 24, 24, 24, 28)),
        (125, (20, 20, 20, 20, 20, 25)),
        (150, (24, 24, 24, 24, 24, 30)),
    ],
)
def test_section_sizes_from_the_entries(entries: int, sizes: tuple[int, ...]):
    assert galway.section_sizes(entries) == sizes
    assert galway.section_count(entries) == len(sizes)


def test_section_sizes_rule_for_every_field():
    for n in range(8, 400):
        *upper, last = galway.section_sizes(n)
        s = upper[0]
        assert sum(upper) + last == n
        assert len(upper) + 1 == (4 if n < 100 else 5 if n <= 124 else 6)
        assert set(upper) == {s} and s % 2 == 0 and 2 <= s <= 24
        assert last >= s  # the remainder is the same or larger
        # ... and s is the largest even size allowed
        assert s == 24 or n - len(upper) * (s + 2) < s + 2
    with pytest.raises(PairingRefused) as exc:
        galway.section_sizes(7)
    assert exc.value.rule == "galway.too_few_entries"


def test_sections_are_runs_of_the_initial_ranking_uncounted_players_join_from_above():
    order = [f"r{i:02d}" for i in range(12)]
    counted = [p for p in order if p not in ("r00", "r05", "r11")]  # 9 counted: 2, 2, 2, 3
    secs = galway.form_sections(order, counted)
    assert secs.sizes == (2, 2, 2, 3)
    assert secs.members == (
        ("r00", "r01", "r02"),  # r00 (a first-round bye, top rated) joins the top section
        ("r03", "r04", "r05"),  # r05 joins r04's section
        ("r06", "r07"),
        ("r08", "r09", "r10", "r11"),
    )
    assert secs.bonus(ev.Scoring()) == {
        **dict.fromkeys(secs.members[0], 6),
        **dict.fromkeys(secs.members[1], 4),
        **dict.fromkeys(secs.members[2], 2),
        **dict.fromkeys(secs.members[3], 0),
    }


def test_section_winners_on_the_real_score():
    secs = galway.form_sections(
        [f"q{i}" for i in range(9)], [f"q{i}" for i in range(9)]
    )  # 2, 2, 2, 3
    points = {"q0": 8, "q1": 6, "q2": 3, "q3": 3, "q4": 9, "q5": 1, "q6": 4, "q7": 10, "q8": 10}
    assert galway.section_winners(secs, points) == (("q0",), ("q2", "q3"), ("q4",), ("q7", "q8"))


def galway_sim(n: int, seed: int = 1, rounds: int = 6) -> Sim:
    sim = Sim(galway.propose, seed=seed)
    sim.add(created(fmt="porous_swiss", rounds=rounds))
    for i in range(n):
        sim.add(player(f"g{i:03d}", 2400 - 5 * i))
    return sim


def cross(secs: galway.Sections, rnd: ev.RoundScheduled) -> int:
    return sum(secs.section_of(g.white) != secs.section_of(g.black) for g in rnd.pairings)


def test_round_two_losers_above_meet_winners_below():
    # 64 entries: four sections of 16. Round 1 inside the sections, White wins everywhere.
    # Round 2 on score + bonus: A's winners (4) among themselves; A's losers and B's winners
    # (3) together, A (higher pairing numbers) in S1 against B in S2, colours compatible
    # (they had Black, B's winners White), so every such pair crosses; and so on down; D's
    # losers (0) among themselves. Nobody's shown score includes a bonus.
    sim = galway_sim(64)
    first = sim.pair()
    secs = galway.sections(sim.context())
    assert secs.sizes == (16, 16, 16, 16)
    assert cross(secs, first) == 0
    for g in first.pairings:
        sim.add(ev.GameEnded(game_id=g.game_id, result="1-0", termination="resignation"))
    won = {g.white for g in first.pairings}
    second = sim.pair()
    for g in second.pairings:
        sw, sb = secs.section_of(g.white), secs.section_of(g.black)
        a, b = sorted([(sw, g.white), (sb, g.black)])
        if a[0] == b[0]:  # within a section: both winners of A or both losers of D
            assert (a[0], a[1] in won, b[1] in won) in ((0, True, True), (3, False, False))
        else:  # a loser of the section above against a winner of the one below
            assert b[0] == a[0] + 1 and a[1] not in won and b[1] in won
    assert cross(secs, second) == 24
    ctx = sim.context()
    assert ctx.crosstable is not None
    assert max(ctx.crosstable.points.values()) == 2  # one win: one point, no bonus


def test_six_rounds_cross_sections_in_rounds_2_to_4_only():
    sim = Sim(galway.propose, seed=4)
    seen: dict[int, int] = {}
    broken: list[str] = []

    def check(ctx: PairingContext, rnd: ev.RoundScheduled) -> None:
        secs = galway.sections(ctx)
        groups = None if rnd.round in galway.CROSS_ROUNDS else secs.members
        broken.extend(f"round {rnd.round}: {v}" for v in violations(ctx, rnd, groups))
        seen[rnd.round] = cross(secs, rnd)

    events = Shape(players=70, rounds=6, forfeits=0.03, late=0.5, withdraw=0.02, byes=0.03)
    random_swiss(sim, events, fmt="porous_swiss", check=check)
    assert broken == []
    assert seen[1] == seen[5] == seen[6] == 0
    assert seen[2] > 0 and seen[3] > 0 and seen[4] > 0
    ctx = sim.context()
    secs = galway.sections(ctx)
    first = ctx.scheduled[1]
    in_first = [p for g in first.pairings for p in (g.white, g.black)]
    in_first += [b.player_id for b in first.byes if b.kind == "pairing_allocated"]
    assert secs.entries == len(in_first) <= 70
    assert secs.sizes == galway.section_sizes(secs.entries)
    assert ctx.crosstable is not None
    points = ctx.crosstable.points
    assert max(points.values()) <= 2 * 6  # six rounds: no bonus in any score
    winners = galway.section_winners(secs, points)
    assert [len(w) >= 1 for w in winners] == [True] * 4
    for w, members in zip(winners, secs.members, strict=True):
        assert set(w) <= set(members)
        assert all(points[p] == max(points[m] for m in members) for p in w)


def test_first_round_byes_do_not_count_and_late_entries_join_by_rating():
    sim = galway_sim(101)
    sim.request_byes(1, {"g000": "half", "g050": "zero"})  # 99 counted: 24, 24, 24, 27
    first = sim.pair()
    assert {(b.player_id, b.kind) for b in first.byes} >= {("g000", "half"), ("g050", "zero")}
    for g in first.pairings:
        sim.add(ev.GameEnded(game_id=g.game_id, result="1/2-1/2", termination="agreement"))
    sim.add(player("newcomer", 2400 - 5 * 30 - 1))  # rated just below g030
    ctx = sim.context()
    secs = galway.sections(ctx)
    assert secs.entries == 99 and secs.sizes == (24, 24, 24, 27)
    assert secs.section_of("g000") == 0  # above everybody: the top section
    assert secs.section_of("g050") == secs.section_of("g049")
    assert secs.section_of("newcomer") == secs.section_of("g030") == 1
    assert [len(m) for m in secs.members] == [25, 25, 25, 27]
    prop = galway.propose(ctx)
    assert prop.round is not None
    assert "99 entries" in prop.notes[1] and "4 sections of 24, 24, 24, 27" in prop.notes[1]
    assert violations(ctx, prop.round) == []


def test_rounds_five_and_six_stay_inside_sections_whatever_the_scores():
    sim = galway_sim(40, seed=2)  # 10, 10, 10, 10
    for _ in range(4):
        sim.play(sim.pair())
    secs = galway.sections(sim.context())
    for _ in range(2):
        ctx = sim.context()
        rnd = sim.pair()
        assert cross(secs, rnd) == 0
        assert violations(ctx, rnd, secs.members) == []
        sim.play(rnd)
    with pytest.raises(PairingRefused) as exc:
        sim.pair()
    assert exc.value.rule == "pairing.all_rounds_paired"


def test_galway_needs_eight_entries_and_asks_for_the_colour_lot():
    small = galway_sim(7)
    prop = galway.propose(small.context())
    assert [lot.subject for lot in prop.lots] == [dutch.colour_subject("main")]
    with pytest.raises(PairingRefused) as exc:
        small.pair()
    assert exc.value.rule == "galway.too_few_entries"


def test_a_section_paired_alone_sees_outsiders_only_through_their_scores():
    # Inside a section, gacrux is given the section and, after it, the outsiders it met with
    # their scores only (dutch.gacrux_input). That must pair exactly as if the whole field
    # were there, not present, after the section.
    sim = galway_sim(48, seed=6)
    for _ in range(4):
        sim.play(sim.pair(), forfeits=0.05)
    ctx = sim.context()
    secs = galway.sections(ctx)
    colour = dutch.initial_colour(ctx)
    assert colour == "white" or colour == "black"
    bonus = secs.bonus(ctx.scoring)
    by_round = {r: bonus for r in range(1, 5)}
    ranking = dutch.initial_ranking(ctx.players.values())
    outsiders_met = 0
    for members in secs.members:
        others = [p for p in ranking if p not in members]
        outsiders_met += sum(e.opponent in others for p in members for e in ctx.players[p].rounds)
        req = dutch.DutchRound(ctx.players, members, members, 5, ctx.scoring, colour, 6, by_round)
        alone = dutch.pair_round(req)
        whole = dutch.pair_round(replace(req, order=[*members, *others]))
        assert alone == whole
        _tournament, cids = dutch.gacrux_input(req)
        assert len(members) < len(cids) < len(ctx.players)  # some outsiders, not the field
    assert outsiders_met > 0
