"""The FIDE Dutch wrapper (projections/pairing/dutch.py): worked examples worked out by hand
from C.04.3, and the absolute criteria as properties of random small tournaments (forfeits,
requested byes, late entries, withdrawals), with a brute-force search standing behind every
"no legal pairing"."""

from __future__ import annotations

import importlib.metadata
import random
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from bench.pairing import (
    Shape,
    Sim,
    legal_pairing_exists,
    present_players,
    random_swiss,
    violations,
)
from builders import T0, created, new_event, player
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from events_schema import Recorded
from events_schema import events as ev
from projections.pairing import dutch
from projections.pairing.base import LotRequest, PairingRefused, PlayerHistory, context
from projections.rejection import Rejected
from projections.standings.state import evolve as standings_evolve

COLOUR = dutch.colour_subject("main")


def lot(colour: str) -> ev.LotDrawn:
    return ev.LotDrawn(
        purpose="colours", subject=COLOUR, candidates=["black", "white"], outcome=[colour]
    )


def sim_of(n: int, rounds: int = 5, colour: str = "white", **kw: object) -> Sim:
    """Players p01.. rated 2500, 2490, ... (p01 is pairing number 1), the colour lot drawn."""
    sim = Sim(dutch.propose, seed=1)
    sim.add(created(fmt="swiss", rounds=rounds, **kw))
    for i in range(1, n + 1):
        sim.add(player(f"p{i:02d}", 2510 - 10 * i))
    sim.add(lot(colour))
    return sim


def pairs(rnd: ev.RoundScheduled) -> list[tuple[str, str]]:
    return [(g.white, g.black) for g in rnd.pairings]


def result(sim: Sim, white: str, black: str, res: str, forfeit: bool = False) -> None:
    rnd = max(sim.context().scheduled.values(), key=lambda r: r.round)
    (g,) = [g for g in rnd.pairings if (g.white, g.black) == (white, black)]
    term = "forfeit" if forfeit else ("agreement" if res == "1/2-1/2" else "resignation")
    sim.add(ev.GameEnded(game_id=g.game_id, result=res, termination=term))  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# Worked examples
# ---------------------------------------------------------------------------------------------


def test_initial_ranking_rating_then_seed_then_name():
    # C.04.2 "Initial order": rating, title (not in the fold: the organiser's seed stands in),
    # then alphabetical; unrated players last.
    field = [
        PlayerHistory("z", "Zed", 2400, None, 0, None),
        PlayerHistory("a", "amy", None, None, 1, None),
        PlayerHistory("b", "Bob", 2500, None, 2, None),
        PlayerHistory("c", "carl", 2400, None, 3, None),
        PlayerHistory("d", "Dan", 2400, 1, 4, None),
        PlayerHistory("e", "Eve", None, None, 5, None),
        PlayerHistory("f", "Carl", 2400, None, 6, None),
    ]
    assert dutch.initial_ranking(field) == ("b", "d", "c", "f", "z", "a", "e")  # c, f: by id


def test_round_one_top_half_meets_bottom_half_colours_alternate_from_the_lot():
    # C.04.3: one scoregroup, S1 = 1..5, S2 = 6..10, 1-6, 2-7, ...; art. 5.2.5: the higher
    # ranked player of each pair takes the initial colour when odd, the other when even.
    sim = sim_of(10)
    rnd = sim.pair()
    assert pairs(rnd) == [
        ("p01", "p06"),
        ("p07", "p02"),
        ("p03", "p08"),
        ("p09", "p04"),
        ("p05", "p10"),
    ]
    assert [g.board for g in rnd.pairings] == [1, 2, 3, 4, 5]
    assert [g.game_id for g in rnd.pairings] == [f"main-r1-b{b}" for b in range(1, 6)]
    assert rnd.byes == []

    black = sim_of(10, colour="black").pair()
    assert pairs(black) == [(b, w) for w, b in pairs(rnd)]


def test_odd_field_the_lowest_gets_the_pairing_allocated_bye():
    rnd = sim_of(11).pair()
    assert pairs(rnd)[0] == ("p01", "p06")
    assert rnd.byes == [ev.Bye(player_id="p11", kind="pairing_allocated")]


def test_round_two_scoregroups_and_colour_preferences():
    # Round 1: p01-p03 (p01 White) 1-0, p04-p02 (p04 White) 1-0. Round 2: {p01, p04} on 1
    # point, both had White: the higher ranked (p01) gets his preference, Black (art. 5.2.4);
    # {p02, p03} on 0, both had Black: p02 gets White. Boards by score.
    sim = sim_of(4)
    assert pairs(sim.pair()) == [("p01", "p03"), ("p04", "p02")]
    result(sim, "p01", "p03", "1-0")
    result(sim, "p04", "p02", "1-0")
    assert pairs(sim.pair()) == [("p04", "p01"), ("p02", "p03")]


def test_a_forfeit_gives_no_colour():
    # As above, but p03 does not turn up: p01 scores without playing, so he has no colour
    # yet and p04 (White in round 1) gets Black. Counting the forfeit as played White would
    # pair p04-p01.
    sim = sim_of(4)
    sim.pair()
    result(sim, "p01", "p03", "1-0", forfeit=True)
    result(sim, "p04", "p02", "1-0")
    assert pairs(sim.pair()) == [("p01", "p04"), ("p02", "p03")]


def test_forfeit_opponents_may_meet_again_played_ones_may_not():
    sim = sim_of(2, rounds=3)
    sim.pair()
    result(sim, "p01", "p02", "1-0", forfeit=True)
    second = sim.pair()  # the forfeit was not a game: they may (must) meet again
    assert sorted(pairs(second)[0]) == ["p01", "p02"]
    w, b = pairs(second)[0]
    result(sim, w, b, "1/2-1/2")
    with pytest.raises(PairingRefused) as exc:
        sim.pair()
    assert exc.value.rule == "pairing.no_legal_pairing"


def test_requested_byes_withdrawals_and_late_entries():
    sim = sim_of(8)
    first = sim.pair()
    for w, b in pairs(first):
        result(sim, w, b, "1-0")
    sim.add(ev.PlayerWithdrew(player_id="p08", from_round=2))
    sim.add(player("late", 2600))  # rated above everybody: pairing number 1 from now on
    sim.request_byes(2, {"p03": "half", "p05": "zero", "p08": "half"})  # p08: gone, ignored
    ctx = sim.context()
    assert dutch.requested_byes(ctx) == {"p03": "half", "p05": "zero"}
    assert dutch.initial_ranking(ctx.players.values())[0] == "late"
    prop = dutch.propose(ctx)
    assert prop.round is not None
    assert "1 {late} · 2 {p01}" in prop.notes[1]  # players named by the edge
    rnd = prop.round
    playing = {p for g in rnd.pairings for p in (g.white, g.black)}
    assert playing | {b.player_id for b in rnd.byes} == {
        "late",
        "p01",
        "p02",
        "p03",
        "p04",
        "p05",
        "p06",
        "p07",
    }
    assert "p08" not in playing and not {"p03", "p05"} & playing
    assert [b for b in rnd.byes if b.kind != "pairing_allocated"] == [
        ev.Bye(player_id="p03", kind="half"),
        ev.Bye(player_id="p05", kind="zero"),
    ]
    assert violations(ctx, rnd) == []
    sim.add(rnd)  # the decider accepts it


def test_the_initial_colour_is_a_lot_asked_for_once():
    sim = Sim(dutch.propose, seed=3)
    sim.add(created(fmt="swiss", rounds=3))
    for i in range(1, 5):
        sim.add(player(f"p{i}", 2000 - i))
    prop = dutch.propose(sim.context())
    assert prop.round is None
    assert prop.lots == (LotRequest("colours", COLOUR, ("black", "white"), 1, dutch.COLOUR_RULE),)
    rnd = sim.pair()  # draws it (seeded), then pairs
    drawn = sim.context().lot(COLOUR)
    assert drawn is not None and drawn.outcome[0] in ("white", "black")
    top = rnd.pairings[0]
    assert (top.white == "p1") == (drawn.outcome[0] == "white")


def test_refusals():
    sim = sim_of(4, rounds=1)
    first = sim.pair()
    with pytest.raises(PairingRefused) as exc:
        sim.pair()
    assert exc.value.rule == "pairing.round_unfinished"
    w, b = min(pairs(first))  # named as the organiser knows them, not by id
    assert f"(e.g. {w.title()} – {b.title()})" in exc.value.message
    for w, b in pairs(first):
        result(sim, w, b, "0-1")
    with pytest.raises(PairingRefused) as exc:
        sim.pair()
    assert exc.value.rule == "pairing.all_rounds_paired"

    lone = sim_of(1)
    with pytest.raises(PairingRefused) as exc:
        lone.pair()
    assert exc.value.rule == "pairing.too_few_players"

    bad = sim_of(4)
    malformed = ev.RulingIssued(
        ruling_id="b",
        by="arbiter",
        subject=dutch.byes_subject("main", 1),
        text="byes",
        decision={"byes": {"p01": "full"}},
    )
    with pytest.raises(Rejected) as refused:  # the decider refuses it (projections/rulings.py)
        bad.add(malformed)
    assert refused.value.rule == "ruling.invalid_decision"
    # An old log may still hold one: stored past the decider, pairing names it.
    n = len(bad.events) + 1
    env = new_event(malformed, n).sealed(bad.tid, n, bad.prev, T0 + timedelta(seconds=n))
    bad.prev = env.hash
    standings_evolve(bad.state, Recorded(env, malformed))
    bad.events.append(malformed)
    with pytest.raises(PairingRefused) as exc:
        bad.pair()
    assert exc.value.rule == "pairing.byes_malformed"


def test_pair_round_bonus_changes_the_pairing_score_only():
    # Two virtual points for p03 and p04 in round 1 put them in a scoregroup of their own.
    sim = sim_of(4)
    ctx = sim.context()
    order = dutch.initial_ranking(ctx.players.values())
    plain = dutch.pair_round(dutch.DutchRound(ctx.players, order, order, 1, ctx.scoring, "white"))
    assert plain.pairs == (("p01", "p03"), ("p04", "p02"))
    bonus = {1: {"p03": 2, "p04": 2}}
    boosted = dutch.pair_round(
        dutch.DutchRound(ctx.players, order, order, 1, ctx.scoring, "white", bonus=bonus)
    )
    assert boosted.pairs == (("p03", "p04"), ("p01", "p02"))


def test_deterministic_silent_and_leaves_random_alone(capsys: pytest.CaptureFixture[str]):
    sim = Sim(dutch.propose, seed=5)
    random_swiss(sim, Shape(players=15, rounds=4, forfeits=0.1, late=0.5, byes=0.1))
    assert capsys.readouterr() == ("", "")  # gacrux printed nothing in four rounds
    sim2 = sim_of(15)
    ctx = sim2.context()
    state = random.getstate()
    a, b = dutch.propose(ctx), dutch.propose(ctx)
    assert a == b
    assert random.getstate() == state
    assert capsys.readouterr() == ("", "")
    tournament, cids = dutch.gacrux_input(
        dutch.DutchRound(ctx.players, list(ctx.players), list(ctx.players), 1, ctx.scoring, "white")
    )
    assert tournament["topColor"] == "w"
    assert [c["random"] for c in tournament["competitors"]] == list(range(1, 16))
    assert cids == tuple(ctx.players)


def test_other_scoring_pairs_on_its_own_points():
    # 3-1-0: a win outweighs two draws; the criteria still hold.
    scoring = ev.Scoring(win=6, draw=2, loss=0, bye=6, half_bye=2, forfeit_win=6)
    sim = Sim(dutch.propose, seed=9)
    sim.add(created(fmt="swiss", rounds=5, scoring=scoring))
    for i in range(1, 12):
        sim.add(player(f"p{i:02d}", 2510 - 10 * i))
    for _ in range(5):
        ctx = sim.context()
        rnd = sim.pair()
        assert violations(ctx, rnd) == []
        sim.play(rnd, forfeits=0.1)


def test_gacrux_is_the_pinned_version():
    # The crosscheck re-checks whole tournaments against exactly this engine.
    assert importlib.metadata.version("gacrux") == dutch.GACRUX_VERSION


def test_gacrux_loads_on_first_use_silently():
    code = (
        "import sys\n"
        "import projections.pairing.dutch as d\n"
        "assert 'gacrux.pairingdutch' not in sys.modules and 'networkx' not in sys.modules\n"
        "import gacrux.pairingdutch, gacrux.gacruxexeptions\n"
    )
    root = Path(__file__).resolve().parents[4]
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert (done.stdout, done.stderr) == ("", "")


# ---------------------------------------------------------------------------------------------
# The checks can fail
# ---------------------------------------------------------------------------------------------


def test_violations_flags_a_rematch_a_second_bye_and_colour_limits():
    sim = sim_of(4)
    first = sim.pair()
    for w, b in pairs(first):
        result(sim, w, b, "1-0")
    ctx = sim.context()
    rematch = ev.RoundScheduled(
        round=2,
        pairings=[
            ev.Pairing(game_id="main-r2-b1", white="p03", black="p01", board=1),
            ev.Pairing(game_id="main-r2-b2", white="p02", black="p04", board=2),
        ],
    )
    assert any("rematch" in v for v in violations(ctx, rematch))
    assert legal_pairing_exists(ctx, present_players(ctx))
    # p01 has no legal opponent once everybody else has met him: nothing to find
    assert not legal_pairing_exists(ctx, ["p01", "p03"])

    odd = sim_of(3, rounds=3)
    r1 = odd.pair()
    for w, b in pairs(r1):
        result(odd, w, b, "1-0")
    assert r1.byes == [ev.Bye(player_id="p03")]
    again = ev.RoundScheduled(
        round=2,
        pairings=[ev.Pairing(game_id="main-r2-b1", white="p01", black="p02", board=1)],
        byes=[ev.Bye(player_id="p03")],
    )
    assert any("second pairing-allocated bye" in v for v in violations(odd.context(), again))


# ---------------------------------------------------------------------------------------------
# Properties: the absolute criteria on random small tournaments
# ---------------------------------------------------------------------------------------------


@st.composite
def tournaments(draw: st.DrawFn) -> tuple[int, Shape]:
    """A seed, and a shape whose size comes from it (uniform: hypothesis would otherwise
    favour the smallest fields and the fewest rounds)."""
    seed = draw(st.integers(0, 10**9))
    sizes = random.Random(seed)
    n = sizes.randint(3, 14)
    return seed, Shape(
        players=n,
        rounds=sizes.randint(2, min(9, n + 1)),
        forfeits=draw(st.sampled_from([0.0, 0.1, 0.3])),
        late=draw(st.sampled_from([0.0, 0.4])),
        withdraw=draw(st.sampled_from([0.0, 0.05, 0.15])),
        byes=draw(st.sampled_from([0.0, 0.1])),
        unrated=draw(st.sampled_from([0.0, 0.2])),
    )


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tournaments())
def test_absolute_criteria_hold_or_no_legal_pairing_exists(case: tuple[int, Shape]):
    seed, shape = case
    sim = Sim(dutch.propose, seed=seed)
    rng = sim.rng
    sim.add(created(fmt="swiss", rounds=shape.rounds))
    for i in range(shape.players):
        sim.add(
            player(f"p{i:02d}", None if rng.random() < shape.unrated else rng.randint(1400, 2700))
        )
    sim.add(lot(rng.choice(["white", "black"])))
    for r in range(1, shape.rounds + 1):
        if r > 1 and rng.random() < shape.late:
            sim.add(player(f"late{r}", rng.randint(1400, 2700)))
        for pid in sim.active():
            if r > 1 and rng.random() < shape.withdraw:
                sim.add(ev.PlayerWithdrew(player_id=pid, from_round=r))
        if shape.byes:
            sim.request_byes(r, {p: "half" for p in sim.active() if rng.random() < shape.byes})
        ctx = context(sim.state)
        try:
            rnd = sim.pair()
        except PairingRefused as exc:
            present = present_players(ctx)
            if exc.rule == "pairing.too_few_players":
                assert len(present) < 2
            else:
                assert exc.rule == "pairing.no_legal_pairing", exc.rule
                assert not legal_pairing_exists(ctx, present), "gacrux missed a legal pairing"
            event(f"refused: {exc.rule}")
            return
        assert violations(ctx, rnd) == []
        sim.play(rnd, shape.forfeits)
    event(f"paired all {shape.rounds} rounds")
