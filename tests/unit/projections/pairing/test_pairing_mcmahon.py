"""McMahon pairing for Go (projections/pairing/mcmahon.py; LGC "Top groups", OpenGotha
conventions): score groups by MMS, split and fold within a group with the odd one floating
down, no rematch while a pairing without one exists, the bye (fewest byes, then the lowest
rank + 2 x MMS), players skipping the round left out, colours by balance, handicaps from the
MMS difference. Worked examples are driven through the decider and both folds (`Sim`, as the
edge would), the hand computation in the comments; a property test runs random tournaments.

Start scores with bar 1d: 3d/2d/1d start on 30 (the bar), 1k on 29, 3k on 27, 4k on 26 (rank
value + 30, OpenGotha's McMahon zero at 30k). Results are PGN-style: "1-0" White won.
"""

from __future__ import annotations

import random
from decimal import Decimal

import pytest
from bench.pairing import Sim
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events_schema import events as ev
from events_schema.go import GoSettings
from projections.pairing import mcmahon, systems
from projections.pairing.base import PairingContext, PairingRefused, Proposal
from projections.tournament.decide import Rejected


def go_sim(
    go: GoSettings | None,
    ranks: list[str | None],
    rounds: int | None = 5,
    komi: Decimal = Decimal("7.5"),
) -> Sim:
    """A McMahon tournament p1, p2, ... with these ranks, registered in this order (a jigo
    needs an integer `komi`: with 7.5 the decider refuses a ½-½, LGC Scoring)."""
    sim = Sim(mcmahon.propose, tid="mcmahon-test")
    created = ev.TournamentCreated(
        name="LGC", game="go", format="mcmahon", rounds=rounds, go=go, komi=komi
    )
    sim.add(created)
    for i, rank in enumerate(ranks, start=1):
        sim.add(ev.PlayerRegistered(player_id=f"p{i}", name=f"P{i}", go_rank=rank))
    return sim


def pairs(rnd: ev.RoundScheduled) -> list[tuple[str, str]]:
    return [(p.white, p.black) for p in rnd.pairings]


def play(sim: Sim, rnd: ev.RoundScheduled, results: dict[str, str]) -> None:
    """Results by White's id: "1-0", "0-1", "1/2-1/2"."""
    for p in rnd.pairings:
        res = results[p.white]
        term = "counting" if res == "1/2-1/2" else "resignation"
        sim.add(ev.GameEnded(game_id=p.game_id, result=res, termination=term))  # type: ignore[arg-type]


def schedule(sim: Sim) -> tuple[ev.RoundScheduled, Proposal]:
    prop = mcmahon.propose(sim.context())
    assert prop.round is not None and not prop.lots
    sim.add(prop.round)
    return prop.round, prop


BAR_1D = GoSettings(mcmahon_bar="1d")
EIGHT = ["3d", "2d", "1d", "1d", "1k", "1k", "3k", "4k"]


# --- P1: groups, fold, floaters, no rematch, colours -----------------------------------------


def test_round_1_folds_each_group_and_floats_the_odd_one_down() -> None:
    # Groups: 30 = p1 3d, p2 2d, p3 1d, p4 1d (placed by rank, then registration); 29 = p5,
    # p6; 27 = p7 alone; 26 = p8. Fold: p1-p4, p2-p3; p5-p6; p7 floats down to p8. Colours
    # level everywhere: the higher placed takes White.
    sim = go_sim(BAR_1D, EIGHT)
    rnd, prop = schedule(sim)
    assert pairs(rnd) == [("p1", "p4"), ("p2", "p3"), ("p5", "p6"), ("p7", "p8")]
    assert [p.board for p in rnd.pairings] == [1, 2, 3, 4]
    assert rnd.pairings[0].game_id == "main-r1-b1"
    assert rnd.byes == [] and prop.handicaps == {}


def test_round_2_pairs_by_mms_avoids_the_rematch_and_balances_colours() -> None:
    sim = go_sim(BAR_1D, EIGHT)
    first, _ = schedule(sim)
    play(sim, first, {"p1": "1-0", "p2": "0-1", "p5": "1-0", "p7": "0-1"})
    # MMS: p1 31, p3 31, p2 30, p4 30, p5 30, p6 29, p7 27, p8 27.
    # Group 31: p1, p3 (SOS 30 each, SOSOS 31 each, p1 the higher rank) -> p1-p3.
    # Group 30: p2, p4 (SOS 31) before p5 (SOS 29); odd: p2-p4, p5 floats down. Its first
    # choice, p6, is a rematch: p5 takes p7 (group 27: p7 3k before p8 4k); p6-p8.
    # Colours: p3 and p4 had Black: they take White; p5/p7 both had White, p6/p8 both Black:
    # level, the higher placed (p5, p6) takes White.
    second, _ = schedule(sim)
    assert pairs(second) == [("p3", "p1"), ("p4", "p2"), ("p5", "p7"), ("p6", "p8")]


# --- P2: the bye ------------------------------------------------------------------------------


def test_the_bye_goes_to_the_lowest_weight_without_a_bye() -> None:
    # No bar: 2d 31, 1d 30, 1k 29, 2k 28, 5k 25. OpenGotha's weight rank + 2 x MMS: 2d 63,
    # 1d 60, 1k 57, 2k 54, 5k 45 -> the 5k (p5). The others are one per group: p1 floats to
    # p2, p3 to p4.
    sim = go_sim(None, ["2d", "1d", "1k", "2k", "5k"])
    first, prop = schedule(sim)
    assert [b.player_id for b in first.byes] == ["p5"]
    assert [b.kind for b in first.byes] == ["pairing_allocated"]
    assert pairs(first) == [("p1", "p2"), ("p3", "p4")]
    assert any("{p5} has the bye" in n for n in prop.notes)
    play(sim, first, {"p1": "1-0", "p3": "1-0"})
    # MMS: p1 32, p2 30, p3 30, p4 28, p5 25 + 1 (bye) = 26. p5 had a bye: the others first,
    # weights p1 1 + 64 = 65, p2 60, p3 -1 + 60 = 59, p4 -2 + 56 = 54 -> p4.
    # p1 (alone on 32) floats: p2 is a rematch, p3 (group 30, after p2 on SOS 32 vs 28) it is;
    # p2 meets p5.
    second, _ = schedule(sim)
    assert [b.player_id for b in second.byes] == ["p4"]
    assert sorted(map(sorted, pairs(second))) == [["p1", "p3"], ["p2", "p5"]]


# --- P3: players who skip the round -----------------------------------------------------------


def test_a_player_skipping_the_round_is_not_paired_and_gets_no_bye() -> None:
    sim = go_sim(BAR_1D, EIGHT)
    # 4k and 3k are not in a top group (30, 29): they skip by notice.
    sim.add(ev.RoundSkipped(player_id="p8", round=1))
    sim.add(ev.RoundSkipped(player_id="p7", round=2))
    first, prop = schedule(sim)
    # Seven play round 1: the bye to the lowest weight, p7 (3k: -3 + 2 x 27 = 51); then p1-p4,
    # p2-p3, p5-p6 as before.
    assert [b.player_id for b in first.byes] == ["p7"]
    assert pairs(first) == [("p1", "p4"), ("p2", "p3"), ("p5", "p6")]
    assert any("{p8} skip round 1" in n for n in prop.notes)
    play(sim, first, {"p1": "1-0", "p2": "1-0", "p5": "1-0"})
    # Round 2 without p7; p8 (26 + ½ for the absence, rounded down: 26) has the lowest weight,
    # -4 + 52 = 48, and no bye yet.
    second, _ = schedule(sim)
    seen = {p for pr in pairs(second) for p in pr}
    assert "p7" not in seen and seen == {"p1", "p2", "p3", "p4", "p5", "p6"}
    assert [b.player_id for b in second.byes] == ["p8"]


def test_a_top_group_player_skips_only_exceptionally() -> None:
    sim = go_sim(BAR_1D, EIGHT)
    with pytest.raises(Rejected) as refused:  # the decider, with mcmahon.top_group
        sim.add(ev.RoundSkipped(player_id="p5", round=1))  # 1k: the group just below the bar
    assert refused.value.rule == "round_skip.top_group"
    sim.add(ev.RoundSkipped(player_id="p5", round=1, notice="exceptional", reason="doctor"))
    first, _ = schedule(sim)
    assert "p5" not in {p for pr in pairs(first) for p in pr}


# --- P4: handicaps ----------------------------------------------------------------------------

HANDICAP = GoSettings(mcmahon_bar="1d", handicap="rank_difference")


def test_handicap_from_the_mms_difference_less_the_correction() -> None:
    # A 1d 30, B 1k 29, C 5k 25, D 9k 21. Top groups: 30 and 29, so MMS is capped at 29 for
    # the handicap (no handicap among the top groups). A floats to B: 29 vs 29, even, the
    # higher placed White. C-D: 25 - 21 = 4, less the correction 1 = 3 stones, C White.
    sim = go_sim(HANDICAP, ["1d", "1k", "5k", "9k"])
    rnd, prop = schedule(sim)
    assert pairs(rnd) == [("p1", "p2"), ("p3", "p4")]
    assert prop.handicaps == {"main-r1-b2": 3}
    assert any("board 2: {p3} (White) gives {p4} handicap 3" in n for n in prop.notes)


@pytest.mark.parametrize(
    ("update", "stones"),
    [
        ({"handicap_ceiling": 2}, {"main-r1-b2": 2}),
        ({"handicap_correction": 0}, {"main-r1-b2": 4}),
        ({"handicap_correction": 4}, {}),
        ({"handicap": "none"}, {}),
    ],
)
def test_handicap_ceiling_correction_and_none(update: dict[str, object], stones: dict) -> None:
    sim = go_sim(HANDICAP.model_copy(update=update), ["1d", "1k", "5k", "9k"])
    _, prop = schedule(sim)
    assert prop.handicaps == stones


def test_the_weaker_player_takes_black_whatever_the_colour_balance() -> None:
    sim = go_sim(HANDICAP, ["1d", "1k", "5k", "9k", "12k", "15k"])
    first, prop = schedule(sim)
    # 30 A floats to B (even); C 25 - D 21: 3 stones; E 18 - F 15: 3 - 1 = 2 stones.
    assert pairs(first) == [("p1", "p2"), ("p3", "p4"), ("p5", "p6")]
    assert prop.handicaps == {"main-r1-b2": 3, "main-r1-b3": 2}
    play(sim, first, {"p1": "1-0", "p3": "1-0", "p5": "0-1"})
    # MMS: A 31, B 29, C 26, D 21, E 18, F 16: one player per group. A floats past B (met) to
    # C; B to D would leave E-F, a rematch, so B takes E and D takes F.
    # Stones (MMS capped at 29, less 1): A-C 29 - 26 - 1 = 2; B-E 29 - 18 - 1 = 10, the
    # ceiling 9; D-F 21 - 16 - 1 = 4. C gave stones in round 1 and takes Black now.
    second, prop2 = schedule(sim)
    assert pairs(second) == [("p1", "p3"), ("p2", "p5"), ("p4", "p6")]
    assert prop2.handicaps == {"main-r2-b1": 2, "main-r2-b2": 9, "main-r2-b3": 4}


# --- refusals, determinism, the system --------------------------------------------------------


def test_a_round_waits_for_every_result_and_stops_after_the_last() -> None:
    sim = go_sim(BAR_1D, EIGHT, rounds=2)
    rnd, _ = schedule(sim)
    with pytest.raises(PairingRefused) as refused:
        mcmahon.propose(sim.context())
    assert refused.value.rule == "pairing.round_unfinished"
    play(sim, rnd, {p.white: "1-0" for p in rnd.pairings})
    rnd, _ = schedule(sim)
    play(sim, rnd, {p.white: "1-0" for p in rnd.pairings})
    with pytest.raises(PairingRefused) as refused:
        mcmahon.propose(sim.context())
    assert refused.value.rule == "mcmahon.complete"


def test_rematches_only_when_no_pairing_avoids_them() -> None:
    sim = go_sim(None, ["1d", "1k", "2k", "3k"], rounds=4)
    for _ in range(3):  # three rounds: everyone has met everyone
        rnd, prop = schedule(sim)
        assert not any("rematch" in n for n in prop.notes)
        play(sim, rnd, {p.white: "1-0" for p in rnd.pairings})
    fourth, prop = schedule(sim)
    assert len(fourth.pairings) == 2
    assert any("no pairing without a rematch" in n for n in prop.notes)


def test_the_system_of_a_mcmahon_tournament() -> None:
    created = ev.TournamentCreated(name="LGC", game="go", format="mcmahon")
    assert systems.system_name(created) == "mcmahon"
    assert systems.SYSTEMS["mcmahon"] is mcmahon.SYSTEM
    assert systems.system_of(created) is mcmahon.SYSTEM
    assert mcmahon.SYSTEM.propose is mcmahon.propose


def test_the_public_helpers_are_reexported() -> None:
    assert mcmahon.rank_value("1d") == 0
    assert mcmahon.start_score(BAR_1D, "5d") == 30
    assert mcmahon.top_group(BAR_1D, {"a": "2d", "b": "1k", "c": "5k"}) == {"a", "b"}


# --- the property -----------------------------------------------------------------------------

RANKS = ["5d", "3d", "2d", "1d", "1k", "2k", "4k", "6k", "9k", "12k", "20k", None]


def present_of(ctx: PairingContext) -> list[str]:
    return [p for p in ctx.active if p not in ctx.skipped.get(ctx.round, frozenset())]


def repeat_free_exists(ctx: PairingContext, present: list[str]) -> bool:
    """Brute force: some bye (odd count) and perfect matching of the others with no two
    players who met before."""
    n = len(present)
    met = {p: ctx.players[p].opponents for p in present}
    memo: dict[int, bool] = {}

    def perfect(mask: int) -> bool:
        if mask == 0:
            return True
        if mask not in memo:
            i = (mask & -mask).bit_length() - 1
            rest = mask & ~(1 << i)
            memo[mask] = any(
                rest >> j & 1 and present[j] not in met[present[i]] and perfect(rest & ~(1 << j))
                for j in range(n)
            )
        return memo[mask]

    full = (1 << n) - 1
    if n % 2 == 0:
        return perfect(full)
    return any(perfect(full & ~(1 << i)) for i in range(n))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(min_value=6, max_value=20),
    rounds=st.integers(min_value=3, max_value=5),
    seed=st.integers(min_value=0, max_value=10**6),
    bar=st.sampled_from([None, "1d", "3d"]),
    handicap=st.sampled_from(["none", "rank_difference"]),
    skip_rate=st.sampled_from([0.0, 0.1, 0.25]),
)
def test_random_mcmahon_tournaments_pair_everyone_once_without_needless_rematches(
    n: int, rounds: int, seed: int, bar: str | None, handicap: str, skip_rate: float
) -> None:
    rng = random.Random(seed)
    go = GoSettings(mcmahon_bar=bar, handicap=handicap)  # type: ignore[arg-type]
    sim = go_sim(go, [rng.choice(RANKS) for _ in range(n)], rounds=rounds, komi=Decimal(7))
    for r in range(1, rounds + 1):
        for pid in sim.context().active:
            if rng.random() < skip_rate:
                try:
                    sim.add(ev.RoundSkipped(player_id=pid, round=r))
                except Rejected:  # a top group: only exceptionally
                    sim.add(
                        ev.RoundSkipped(player_id=pid, round=r, notice="exceptional", reason="ill")
                    )
        if r > 1 and rng.random() < 0.2:
            active = sim.context().active
            sim.add(ev.PlayerWithdrew(player_id=rng.choice(active), from_round=r))
        ctx = sim.context()
        present = present_of(ctx)
        if len(present) < 2:
            with pytest.raises(PairingRefused):
                mcmahon.propose(ctx)
            return
        prop = mcmahon.propose(ctx)
        assert prop == mcmahon.propose(ctx)  # deterministic: the same context, the same round
        rnd = prop.round
        assert rnd is not None and rnd.round == r
        seen = [p for pr in pairs(rnd) for p in pr] + [b.player_id for b in rnd.byes]
        assert sorted(seen) == sorted(present)  # each non-skipping active player exactly once
        assert len(rnd.byes) == len(present) % 2
        assert all(b.kind == "pairing_allocated" for b in rnd.byes)
        rematch = any(b in ctx.players[w].opponents for w, b in pairs(rnd))
        if rematch:
            assert not repeat_free_exists(ctx, present)
        ids = {p.game_id for p in rnd.pairings}
        assert set(prop.handicaps) <= ids
        assert all(0 < s <= go.handicap_ceiling for s in prop.handicaps.values())
        if handicap == "none":
            assert prop.handicaps == {}
        sim.add(rnd)
        for p in rnd.pairings:
            if p.game_id in prop.handicaps:
                sim.add(ev.GameStarted(game_id=p.game_id, handicap=prop.handicaps[p.game_id]))
            res = rng.choice(["1-0", "0-1", "1-0", "0-1", "1/2-1/2", "0-0"])
            if res == "1/2-1/2" and p.game_id in prop.handicaps:
                res = "0-0"  # komi 0.5 in a handicap game (LGC Scoring): no jigo
            term = "forfeit" if res == "0-0" else "counting"
            sim.add(ev.GameEnded(game_id=p.game_id, result=res, termination=term))  # type: ignore[arg-type]


def test_the_benchmark_runs_quick_and_prints_its_figures() -> None:
    from bench import mcmahon as bench

    doc = bench.run(quick=True)
    assert [(r["players"], r["round"], r["handicap"]) for r in doc["rounds"]] == [
        (60, 3, False),
        (60, 3, True),
    ]
    for r in doc["rounds"]:
        assert r["games"] * 2 + r["byes"] <= 60
        assert r["wrapper_total_s"] > 0 and r["raw_sort_s"] > 0 and r["raw_search_s"] > 0
