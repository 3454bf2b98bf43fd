"""The Swiss system for Go (projections/pairing/go_swiss.py; OpenGotha
`TournamentParameterSet.initForSwiss`): score groups by NBW (no start score), split and slip
within a group, rating before rank, the odd one out floating down, the bye (fewest byes, then
the lowest rank + 2 x MMS, worth `nbw_bye_points` of NBW), no handicap, colours by balance;
chosen by `pairing` "go-swiss" or by NBW as the first criterion of a format "mcmahon" Go
tournament (OpenGotha `tournamentType`).

Given a tournament as its events, driven through the decider and both folds (`Sim`), when the
next round is asked for, then the round worked by hand in the comments.

The worked example: 7 players, registered in this order, their ratings in rank order
(p1 2d 2100, p2 1d 2000, p3 1k 1900, p4 2k 1800, p5 3k 1700, p6 4k 1600, p7 5k 1500),
criteria NBW, SOSW, SOSOSW (OpenGotha's Swiss default). McMahon start scores (default
settings: rank + 30, no bar) only weigh in the bye choice (OpenGotha `chooseAByePlayer`).
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from bench.pairing import Sim

from events_schema import events as ev
from events_schema.go import GoSettings
from projections.pairing import go_swiss, mcmahon, systems
from projections.pairing.base import PairingRefused, Proposal

SWISS = GoSettings(criteria=["NBW", "SOSW", "SOSOSW"])
RANKS = ["2d", "1d", "1k", "2k", "3k", "4k", "5k"]
RATINGS = [2100, 2000, 1900, 1800, 1700, 1600, 1500]


def given_swiss(
    go: GoSettings = SWISS,
    pairing: ev.PairingName | None = "go-swiss",
    ranks: list[str] = RANKS,
    ratings: list[int] = RATINGS,
    rounds: int = 3,
) -> Sim:
    sim = Sim(go_swiss.propose, tid="go-swiss-test")
    sim.add(
        ev.TournamentCreated(
            name="Swiss", game="go", format="mcmahon", pairing=pairing, rounds=rounds, go=go
        )
    )
    for i, (rank, rating) in enumerate(zip(ranks, ratings, strict=True), start=1):
        sim.add(ev.PlayerRegistered(player_id=f"p{i}", name=f"P{i}", go_rank=rank, rating=rating))
    return sim


def when_paired(sim: Sim) -> tuple[ev.RoundScheduled, Proposal]:
    """The next round as `arbiter pair` asks for it (the registry chooses the system)."""
    prop = systems.propose(sim.context())
    assert prop.round is not None and not prop.lots
    sim.add(prop.round)
    return prop.round, prop


def pairs(rnd: ev.RoundScheduled) -> list[tuple[str, str]]:
    return [(p.white, p.black) for p in rnd.pairings]


def play(sim: Sim, rnd: ev.RoundScheduled, winners: set[str]) -> None:
    for p in rnd.pairings:
        res = "1-0" if p.white in winners else "0-1"
        sim.add(ev.GameEnded(game_id=p.game_id, result=res, termination="resignation"))


def test_the_swiss_is_the_system_of_pairing_go_swiss_and_of_nbw_first() -> None:
    # Given pairing "go-swiss": the Swiss. Given no pairing, format "mcmahon" and NBW first
    # (an OpenGotha Swiss file imported before "go-swiss" existed): the Swiss too. Given
    # the McMahon criteria: McMahon.
    named = given_swiss().context().created
    derived = given_swiss(pairing=None).context().created
    mm = given_swiss(go=GoSettings(), pairing=None).context().created
    assert systems.system_name(named) == "go-swiss"
    assert systems.system_name(derived) == "go-swiss"
    assert systems.system_name(mm) == "mcmahon"


def test_round_1_one_group_split_and_slip_the_weakest_has_the_bye() -> None:
    # Given 7 players, all on NBW 0: one group, ordered by rating (initForSwiss: RATING).
    # When round 1 is paired: odd, so the bye first: no byes yet, lowest rank + 2 x MMS
    # (MMS = rank + 30): p7 5k, -5 + 2 x 25 = 45, the lowest. Then the 6 left slip: the upper
    # half p1 p2 p3 meets the lower half p4 p5 p6 in order (McMahon's fold would give p1-p6).
    # Colours level: the higher placed White. No handicap (initForSwiss: hdCeiling 0).
    sim = given_swiss()
    rnd, prop = when_paired(sim)
    assert pairs(rnd) == [("p1", "p4"), ("p2", "p5"), ("p3", "p6")]
    assert rnd.byes == [ev.Bye(player_id="p7", kind="pairing_allocated")]
    assert [p.handicap for p in rnd.pairings] == [0, 0, 0] and prop.handicaps == {}
    assert [p.game_id for p in rnd.pairings] == ["main-r1-b1", "main-r1-b2", "main-r1-b3"]
    assert any("(1 NBW point)" in n for n in prop.notes)
    assert any("split and slip" in n for n in prop.notes)


def test_round_2_groups_by_nbw_bye_then_the_odd_one_floats_down() -> None:
    # Given round 1 as above, p1, p2 and p6 winning (p6 4k beats p3 1k), p7's bye worth 1
    # NBW (genNBW2ValueBye). NBW 1: p1, p2, p6, p7; NBW 0: p3, p4, p5.
    sim = given_swiss()
    first, _ = when_paired(sim)
    play(sim, first, winners={"p1", "p2", "p6"})
    # When round 2 is paired. The bye: p7 has had one; of the others, lowest rank + 2 x MMS:
    # p6 4k with a win, -4 + 2 x 27 = 50, before p5 3k, -3 + 2 x 27 = 51: p6, a winner.
    # Group NBW 1 is then p1, p2, p7 (SOSW 0 each: the bye counts no opponent; by rating):
    # odd, its last p7 floats down; p1-p2 slip. Group NBW 0: p3, p4, p5 (SOSW 1 each: p6,
    # p1, p2 have 1 NBW; by rating): the floater p7 meets its first, p3; p4-p5.
    # Colours: p1 and p2 both had White once: the higher placed p1 White. p7 (a bye: no
    # colour) against p3 (White in round 1): fewer whites, p7 White. p4 and p5 both Black.
    rnd, prop = when_paired(sim)
    assert pairs(rnd) == [("p1", "p2"), ("p7", "p3"), ("p4", "p5")]
    assert rnd.byes == [ev.Bye(player_id="p6", kind="pairing_allocated")]
    assert any("2 NBW groups (NBW 1 … 0)" in n for n in prop.notes)


def test_no_rematch_forces_the_leader_to_float_two_groups_down() -> None:
    # Given 4 players p1 2d 2100, p2 1d 2000, p3 1k 1900, p4 2k 1800. Round 1 slips p1-p3,
    # p2-p4; p1 and p4 win. Round 2: NBW 1 p1, p4; NBW 0 p2, p3: p1-p4 and p2-p3, White to
    # the one who had Black (p4, p3); p1 and p3 win.
    sim = given_swiss(ranks=RANKS[:4], ratings=RATINGS[:4])
    first, _ = when_paired(sim)
    assert pairs(first) == [("p1", "p3"), ("p2", "p4")]
    play(sim, first, winners={"p1"})  # p2 (White) loses to p4
    second, _ = when_paired(sim)
    assert pairs(second) == [("p4", "p1"), ("p3", "p2")]
    play(sim, second, winners={"p3"})  # p4 (White) loses to p1
    # When round 3 is paired: NBW 2 p1 alone; NBW 1 p3, p4; NBW 0 p2. p1 floats down, but
    # has met both of group 1 (p3 in round 1, p4 in round 2): no rematch while a pairing
    # without one exists, so p1 floats on to p2; p3-p4 stay together. No rematch note.
    third, prop = when_paired(sim)
    assert {frozenset(p) for p in pairs(third)} == {
        frozenset({"p1", "p2"}),
        frozenset({"p3", "p4"}),
    }
    assert third.pairings[0].board == 1 and "p1" in pairs(third)[0]  # the leader's board first
    assert not any("rematch" in n for n in prop.notes)


def test_the_same_field_under_mcmahon_folds_instead() -> None:
    # Given the same 7 players under McMahon (MMS groups from the ranks: every player its own
    # group), round 1 differs: the Swiss is not McMahon with another name.
    sim = given_swiss(go=GoSettings(), pairing="mcmahon")
    mm = mcmahon.propose(sim.context())
    sw = go_swiss.propose(given_swiss().context())
    assert mm.round is not None and sw.round is not None
    assert pairs(mm.round) != pairs(sw.round)


def test_handicap_only_when_the_settings_say_so_from_the_ranks() -> None:
    # Given handicap "rank_difference", correction 0: p1 2d against p4 2k is 3 ranks apart
    # (2d, 1d, 1k, 2k), 3 stones, p1 White giving them; p2 1d - p5 3k: 3; p3 1k - p6 4k: 3.
    go = GoSettings(criteria=["NBW"], handicap="rank_difference", handicap_correction=0)
    sim = given_swiss(go=go)
    rnd, prop = when_paired(sim)
    assert [(p.white, p.black, p.handicap) for p in rnd.pairings] == [
        ("p1", "p4", 3),
        ("p2", "p5", 3),
        ("p3", "p6", 3),
    ]
    assert prop.handicaps == {"main-r1-b1": 3, "main-r1-b2": 3, "main-r1-b3": 3}


@pytest.mark.parametrize(
    ("round_down", "expected", "groups"),
    [
        # Not rounded down: NBW 1 p1 p2 p6; ½ p7; 0 p3 p4 p5. The groups are the exact NBW
        # (McMahon's rule of rounding scores down is not applied to the groups). p1-p2; p7
        # alone on ½ floats to the first of the 0s, p3; p4-p5.
        (False, [("p1", "p2"), ("p7", "p3"), ("p4", "p5")], "3 NBW groups (NBW 1 … 0)"),
        # Rounded down (genRoundDownNBWMMS, the default): p7's ½ counts 0, so the 0 group is
        # p3 p4 p5 (SOSW 1 each) then p7 (SOSW 0): slipped p3-p5, p4-p7; White to the one
        # with fewer whites: p5 (Black in round 1) against p3 (White), p4 (Black) against p7
        # (the bye: none).
        (True, [("p1", "p2"), ("p5", "p3"), ("p4", "p7")], "2 NBW groups (NBW 1 … 0)"),
    ],
)
def test_a_half_point_bye_and_the_rounding_down_of_nbw(
    round_down: bool, expected: list[tuple[str, str]], groups: str
) -> None:
    # Given nbw_bye_points ½ (genNBW2ValueBye 1, in half points) and round 1 as in the worked
    # example (bye p7; p1, p2, p6 win); the bye of round 2 is p6 again (McMahon points
    # decide it, unchanged).
    go = GoSettings(
        criteria=["NBW", "SOSW", "SOSOSW"], nbw_bye_points=Decimal("0.5"), round_down=round_down
    )
    sim = given_swiss(go=go)
    first, prop = when_paired(sim)
    assert any("(0.5 NBW point)" in n for n in prop.notes)
    play(sim, first, winners={"p1", "p2", "p6"})
    rnd, prop = when_paired(sim)
    assert rnd.byes == [ev.Bye(player_id="p6", kind="pairing_allocated")]
    assert pairs(rnd) == expected
    assert any(groups in n for n in prop.notes)


def test_no_round_beyond_the_planned_ones() -> None:
    sim = given_swiss(ranks=RANKS[:2], ratings=RATINGS[:2], rounds=1)
    first, _ = when_paired(sim)
    play(sim, first, winners={"p1"})
    with pytest.raises(PairingRefused) as info:
        systems.propose(sim.context())
    assert (info.value.rule, info.value.field) == ("go_swiss.complete", "round")


@pytest.mark.parametrize("criteria", [["NBW", "SDC", "RATING"], ["NBW", "DC", "RANK", "CAT"]])
def test_criteria_read_by_the_standings_only_leave_the_order_to_rating(
    criteria: list[str],
) -> None:
    # Given DC, SDC, RATING, RANK or CAT after NBW (Levallois: NBW, SDC, Rating): they are
    # not read in the pairing order (no KeyError), so round 1 is the rating order slipped.
    go = GoSettings(criteria=criteria)  # type: ignore[arg-type]
    rnd, _ = when_paired(given_swiss(go=go))
    assert pairs(rnd) == [("p1", "p4"), ("p2", "p5"), ("p3", "p6")]


def test_mcmahon_with_dc_in_its_criteria_pairs_too() -> None:
    # The shared placement: a McMahon tournament whose criteria hold DC and RATING pairs (it
    # read every criterion from GoScores before, which holds neither).
    go = GoSettings(mcmahon_bar="1d", criteria=["MMS", "DC", "RATING"])
    prop = mcmahon.propose(given_swiss(go=go, pairing="mcmahon").context())
    assert prop.round is not None and len(prop.round.pairings) == 3
