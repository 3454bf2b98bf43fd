"""Round robins by the FIDE Berger tables (projections/pairing/berger.py, round_robin.py).

The tables are checked against FIDE Handbook C.05 Annex 1 as published (4, 6, 8, 10, 12, 14
players, hard-coded below) and, for every size 3–16, against gacrux's two independent
constructions (`gacrux.berger`, by the author of FIDE's tie-break server). The round-robin
system is checked on worked examples built from events: lots, odd fields, withdrawals,
double and n-fold cycles, TCEC game pairs and deferred reverse games; every proposed round is
fed to the decider, which must accept it.
"""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

import pytest
from builders import created, recorded, result
from gacrux import berger as gacrux_berger

from events_schema import Event
from events_schema import events as ev
from projections.pairing.base import LotRequest, PairingRefused, Proposal, context
from projections.pairing.berger import (
    berger_round,
    berger_table,
    bye_number,
    reversed_round,
    round_order,
    table_size,
)
from projections.pairing.round_robin import plan, propose, schedule
from projections.standings import fold as standings_fold
from projections.tournament import decide
from projections.tournament import fold as tournament_fold

# --- the published tables (FIDE Handbook C.05 Annex 1), White first -------------------------


def _parse(text: str) -> list[list[tuple[int, int]]]:
    return [
        [(int(w), int(b)) for w, b in (g.split("-") for g in line.split())]
        for line in text.strip().splitlines()
    ]


PUBLISHED = {
    4: _parse("""
        1-4 2-3
        4-3 1-2
        2-4 3-1
    """),
    6: _parse("""
        1-6 2-5 3-4
        6-4 5-3 1-2
        2-6 3-1 4-5
        6-5 1-4 2-3
        3-6 4-2 5-1
    """),
    8: _parse("""
        1-8 2-7 3-6 4-5
        8-5 6-4 7-3 1-2
        2-8 3-1 4-7 5-6
        8-6 7-5 1-4 2-3
        3-8 4-2 5-1 6-7
        8-7 1-6 2-5 3-4
        4-8 5-3 6-2 7-1
    """),
    10: _parse("""
        1-10 2-9 3-8 4-7 5-6
        10-6 7-5 8-4 9-3 1-2
        2-10 3-1 4-9 5-8 6-7
        10-7 8-6 9-5 1-4 2-3
        3-10 4-2 5-1 6-9 7-8
        10-8 9-7 1-6 2-5 3-4
        4-10 5-3 6-2 7-1 8-9
        10-9 1-8 2-7 3-6 4-5
        5-10 6-4 7-3 8-2 9-1
    """),
    12: _parse("""
        1-12 2-11 3-10 4-9 5-8 6-7
        12-7 8-6 9-5 10-4 11-3 1-2
        2-12 3-1 4-11 5-10 6-9 7-8
        12-8 9-7 10-6 11-5 1-4 2-3
        3-12 4-2 5-1 6-11 7-10 8-9
        12-9 10-8 11-7 1-6 2-5 3-4
        4-12 5-3 6-2 7-1 8-11 9-10
        12-10 11-9 1-8 2-7 3-6 4-5
        5-12 6-4 7-3 8-2 9-1 10-11
        12-11 1-10 2-9 3-8 4-7 5-6
        6-12 7-5 8-4 9-3 10-2 11-1
    """),
    14: _parse("""
        1-14 2-13 3-12 4-11 5-10 6-9 7-8
        14-8 9-7 10-6 11-5 12-4 13-3 1-2
        2-14 3-1 4-13 5-12 6-11 7-10 8-9
        14-9 10-8 11-7 12-6 13-5 1-4 2-3
        3-14 4-2 5-1 6-13 7-12 8-11 9-10
        14-10 11-9 12-8 13-7 1-6 2-5 3-4
        4-14 5-3 6-2 7-1 8-13 9-12 10-11
        14-11 12-10 13-9 1-8 2-7 3-6 4-5
        5-14 6-4 7-3 8-2 9-1 10-13 11-12
        14-12 13-11 1-10 2-9 3-8 4-7 5-6
        6-14 7-5 8-4 9-3 10-2 11-1 12-13
        14-13 1-12 2-11 3-10 4-9 5-8 6-7
        7-14 8-6 9-5 10-4 11-3 12-2 13-1
    """),
}


@pytest.mark.parametrize("size", sorted(PUBLISHED))
def test_tables_are_the_published_fide_tables(size):
    assert berger_table(size) == PUBLISHED[size]
    # C.05 Annex 1: "the highest number counts as a bye": 3, 5, ... players use the same table.
    assert berger_table(size - 1) == PUBLISHED[size]
    assert bye_number(size - 1) == size and bye_number(size) is None


def _gacrux(n: int, build) -> list[list[tuple[int, int]]]:
    t = build(n)["pairing"]
    return [[(t[r][b]["white"], t[r][b]["black"]) for b in sorted(t[r])] for r in sorted(t)]


@pytest.mark.parametrize("n", range(3, 17))
def test_tables_match_gacrux_for_3_to_16_players(n):
    ours = berger_table(n)
    assert ours == _gacrux(n, gacrux_berger.bergertables)
    assert ours == _gacrux(n, gacrux_berger.bergertablesGeneric)


@pytest.mark.parametrize("n", range(3, 17))
def test_every_pair_meets_once_and_colours_balance(n):
    size = table_size(n)
    table = berger_table(n)
    assert len(table) == size - 1
    met = Counter(frozenset(g) for rnd in table for g in rnd)
    assert len(met) == size * (size - 1) // 2 and set(met.values()) == {1}
    for rnd in table:
        assert sorted(p for g in rnd for p in g) == list(range(1, size + 1))
    whites = Counter(w for rnd in table for w, _ in rnd)
    assert set(whites[p] for p in range(1, size + 1)) == {size // 2, size // 2 - 1}


def test_round_and_size_are_checked():
    with pytest.raises(ValueError):
        berger_round(4, 4)
    with pytest.raises(ValueError):
        berger_round(1, 1)
    assert berger_table(2) == [[(1, 2)]]


def _colour_runs(n: int, cycles: int) -> int:
    """The longest run of one colour over the games played (free rounds skipped)."""
    seq: dict[int, list[str]] = {p: [] for p in range(1, n + 1)}
    for p in plan(n, cycles, "cycle", switch_last_two=True):
        for g in p.games:
            seq[g.white].append("W")
            seq[g.black].append("B")
    longest = 0
    for s in seq.values():
        run = 0
        for i, c in enumerate(s):
            run = run + 1 if i and s[i - 1] == c else 1
            longest = max(longest, run)
    return longest


@pytest.mark.parametrize("n", range(3, 17))
def test_double_round_robin_switches_the_last_two_rounds_of_the_first_cycle(n):
    # C.05 Annex 1's recommendation: no player has three games in a row with one colour.
    m = table_size(n) - 1
    assert round_order(n, 1, 2, switch_last_two=True) == [*range(1, m - 1), m, m - 1]
    assert round_order(n, 2, 2, switch_last_two=True) == list(range(1, m + 1))
    assert _colour_runs(n, 2) <= 2
    if n != 4:  # three table rounds are too few to avoid it at every junction
        assert _colour_runs(n, 4) <= 2


# --- the system, from events -----------------------------------------------------------------


def _players(ids: str, kind: str = "human", seeds: bool = False) -> list[Event]:
    return [
        ev.PlayerRegistered(
            player_id=p,
            name=p.upper(),
            kind=kind,
            seed=i if seeds else None,  # type: ignore[arg-type]
        )
        for i, p in enumerate(ids, start=1)
    ]


def _lot(req: LotRequest, outcome: str) -> ev.LotDrawn:
    return ev.LotDrawn(
        purpose=req.purpose,
        subject=req.subject,
        candidates=list(req.candidates),
        outcome=list(outcome),
    )


def _ctx(events: list[Event], stage: str = "main"):
    return context(standings_fold(recorded("t1", events)), stage)


def _accepted(events: list[Event], event: Event) -> list[Event]:
    """The decider accepts `event` after `events`; the stream with it appended."""
    assert decide(tournament_fold(recorded("t1", events)), event) == [event]
    return [*events, event]


def run(events: list[Event], outcome: str, **kw) -> tuple[list[Event], list[ev.RoundScheduled]]:
    """Pair the whole stage: the lot (drawn as `outcome`), then every round, each accepted."""
    events = list(events)
    rounds: list[ev.RoundScheduled] = []
    while True:
        try:
            p: Proposal = propose(_ctx(events), **kw)
        except PairingRefused as e:
            assert e.rule == "pairing.round_robin_complete"
            return events, rounds
        if p.lots:
            (req,) = p.lots
            events = _accepted(events, _lot(req, outcome))
            continue
        assert p.round is not None
        events = _accepted(events, p.round)
        rounds.append(p.round)


def games(rnd: ev.RoundScheduled) -> list[str]:
    return [f"{p.white}-{p.black}" for p in rnd.pairings]


def test_first_proposal_asks_for_the_pairing_numbers_lot():
    p = propose(_ctx([created(), *_players("abcd")]))
    assert p.round is None
    (req,) = p.lots
    assert (req.purpose, req.subject, req.candidates, req.pick) == (
        "pairing_numbers",
        "main/pairing-numbers",
        ("a", "b", "c", "d"),
        None,
    )


def test_tcec_asks_for_the_engine_order():
    events = [created(fmt="league", rules_preset="tcec-league", cycles=2), *_players("abc")]
    (req,) = propose(_ctx(events, "main")).lots
    assert (req.purpose, req.subject) == ("engine_order", "main/engine-order")
    assert "randomized" in req.rule


def test_single_round_robin_follows_the_lot():
    # Pairing numbers by lot: d=1, b=2, a=3, c=4. Table for 4: 1-4 2-3 / 4-3 1-2 / 2-4 3-1.
    _, rounds = run([created(), *_players("abcd")], "dbac")
    assert [games(r) for r in rounds] == [["d-c", "b-a"], ["c-a", "d-b"], ["b-c", "a-d"]]
    assert [p.game_id for p in rounds[0].pairings] == ["main-r1-b1", "main-r1-b2"]
    assert [p.board for p in rounds[1].pairings] == [1, 2]
    assert {r.cycle for r in rounds} == {1}
    assert all(
        r.byes == [] and p.pair_id is None and p.opening is None for r in rounds for p in r.pairings
    )


def test_rounds_need_no_results_and_schedule_lists_them_all():
    events = [created(cycles=2), *_players("abcd")]
    events = _accepted(events, _lot(propose(_ctx(events)).lots[0], "abcd"))
    sched = schedule(_ctx(events))
    # Double round robin: cycle 1 plays table rounds 1, 3, 2 (last two switched, C.05 Annex 1),
    # cycle 2 table rounds 1, 2, 3 with colours reversed.
    assert [games(r) for r in sched] == [
        ["a-d", "b-c"],
        ["b-d", "c-a"],
        ["d-c", "a-b"],
        ["d-a", "c-b"],
        ["c-d", "b-a"],
        ["d-b", "a-c"],
    ]
    assert [r.cycle for r in sched] == [1, 1, 1, 2, 2, 2]
    # The recorded round is listed as recorded; propose gives the same rounds one by one.
    r1 = propose(_ctx(events)).round
    assert r1 == sched[0]
    events = _accepted(events, r1)
    events = [*events, result("main-r1-b1", "1-0")]
    again = schedule(_ctx(events))
    assert [games(r) for r in again] == [games(r) for r in sched]
    assert [p.game_id for p in again[0].pairings] == ["main-r1-b1", "main-r1-b2"]
    assert propose(_ctx(events)).round == sched[1]


def test_double_round_robin_reverses_every_game():
    _, rounds = run([created(cycles=2, rounds=10), *_players("abcdef")], "abcdef")
    assert len(rounds) == 10
    first = Counter((p.white, p.black) for r in rounds[:5] for p in r.pairings)
    second = Counter((p.black, p.white) for r in rounds[5:] for p in r.pairings)
    assert first == second and len(first) == 15
    # Round 6 is table round 1 reversed: 6-1 5-2 4-3.
    assert games(rounds[5]) == ["f-a", "e-b", "d-c"]
    # Round 4 and 5 are table rounds 5 and 4 (switched).
    assert games(rounds[3]) == ["c-f", "d-b", "e-a"]
    assert games(rounds[4]) == ["f-e", "a-d", "b-c"]


def test_three_cycles_repeat_the_table_with_alternating_colours():
    _, rounds = run([created(cycles=3), *_players("abcd")], "abcd")
    assert len(rounds) == 9 and [r.cycle for r in rounds] == [1, 1, 1, 2, 2, 2, 3, 3, 3]
    met = Counter(frozenset((p.white, p.black)) for r in rounds for p in r.pairings)
    assert set(met.values()) == {3} and len(met) == 6
    assert games(rounds[6]) == ["a-d", "b-c"]  # cycle 3 starts the table again
    whites = Counter((p.white, p.black) for r in rounds for p in r.pairings)
    assert sorted(whites.values()) == [1] * 6 + [2] * 6  # each pair: 2 games one way, 1 other


def test_odd_field_one_player_sits_out_each_round_without_a_bye():
    # 5 players use the table for 6; the number 6 is the bye. Lot: e=1, d=2, c=3, b=4, a=5.
    events, rounds = run([created(), *_players("abcde")], "edcba")
    assert len(rounds) == 5
    # Table round 1: 1-6 2-5 3-4 -> e free; d-a, c-b on boards 1 and 2.
    assert games(rounds[0]) == ["d-a", "c-b"]
    assert [p.game_id for p in rounds[0].pairings] == ["main-r1-b1", "main-r1-b2"]
    assert all(r.byes == [] for r in rounds)
    free = [({*"abcde"} - {x for p in r.pairings for x in (p.white, p.black)}) for r in rounds]
    assert free == [{"e"}, {"b"}, {"d"}, {"a"}, {"c"}]  # 1, 4, 2, 5, 3: x=(r+1)·3 mod 5
    p = propose(_ctx(events[: len(events) - 4]))
    assert any("free in round 2" in n and "no points" in n for n in p.notes)


def test_three_players_double_round_robin():
    # Table for 4, the number 4 the bye; cycle 1 plays table rounds 1, 3, 2 (switched).
    _, rounds = run([created(cycles=2), *_players("abc")], "abc")
    assert [games(r) for r in rounds] == [["b-c"], ["c-a"], ["a-b"], ["c-b"], ["b-a"], ["a-c"]]


def test_withdrawn_player_keeps_the_number_and_nobody_is_re_paired():
    events = [created(), *_players("abcd")]
    events = _accepted(events, _lot(propose(_ctx(events)).lots[0], "abcd"))
    events = _accepted(events, propose(_ctx(events)).round)  # a-d b-c
    events = _accepted(events, ev.PlayerWithdrew(player_id="c"))
    p = propose(_ctx(events))
    # Table round 2: 4-3 1-2 -> d-c is not scheduled, d sits out; a-b keeps board 2.
    assert p.round is not None and games(p.round) == ["a-b"]
    assert [x.game_id for x in p.round.pairings] == ["main-r2-b2"]
    assert any("main-r2-b1 {d}–{c} is not scheduled: {c} withdrew" in n for n in p.notes)
    events = _accepted(events, p.round)
    assert games(propose(_ctx(events)).round) == ["b-d"]  # 2-4 (3-1 dropped)


def test_player_withdrawn_before_the_lot_is_not_in_the_table():
    events = [created(), *_players("abcde"), ev.PlayerWithdrew(player_id="e")]
    (req,) = propose(_ctx(events)).lots
    assert req.candidates == ("a", "b", "c", "d")
    _, rounds = run(events, "abcd")
    assert len(rounds) == 3 and all(len(r.pairings) == 2 for r in rounds)


def test_lot_problems_are_refused():
    events = [created(), *_players("abcd")]
    req = propose(_ctx(events)).lots[0]
    late = [*events, _lot(req, "abcd"), *_players("x")]
    with pytest.raises(PairingRefused) as info:
        propose(_ctx(late))
    assert info.value.rule == "pairing.player_not_numbered"
    bad = [
        *events,
        ev.LotDrawn(
            purpose="pairing_numbers",
            subject=req.subject,
            candidates=["a", "z"],
            outcome=["z", "a"],
        ),
    ]
    with pytest.raises(PairingRefused) as info:
        propose(_ctx(bad))
    assert info.value.rule == "pairing.lot_mismatch"
    with pytest.raises(PairingRefused) as info:
        schedule(_ctx(events))
    assert info.value.rule == "pairing.lot_required"


def test_rounds_cap_and_completion():
    events, rounds = run([created(rounds=2), *_players("abcd")], "abcd")
    assert len(rounds) == 2
    with pytest.raises(PairingRefused) as info:
        propose(_ctx(events))
    assert info.value.rule == "pairing.round_robin_complete"
    assert any("rounds is 2" in n for n in propose(_ctx(events[:-1])).notes)


def test_bad_stage_name_for_game_ids_is_refused():
    events = [created(), *_players("ab")]
    events = [*events, _lot(propose(_ctx(events, "a b")).lots[0], "ab")]
    with pytest.raises(PairingRefused) as info:
        propose(_ctx(events, "a b"))
    assert info.value.rule == "pairing.game_id"


# --- TCEC ------------------------------------------------------------------------------------


def _tcec(preset: str, cycles: int, ids: str = "abcd") -> list[Event]:
    fmt = "round_robin"
    return [
        created(fmt=fmt, rules_preset=preset, cycles=cycles),
        *_players(ids, "engine", seeds=True),
    ]


def test_tcec_league_plays_game_pairs_back_to_back_lower_seed_white_first():
    # Engine order by lot: c=1, a=2, d=3, b=4. Seeds a=1 .. d=4 (d is the lowest seed).
    _, rounds = run(_tcec("tcec-league", 2), "cadb")
    assert len(rounds) == 6 and [r.cycle for r in rounds] == [1, 2, 1, 2, 1, 2]
    # Table round 1: 1-4 2-3 -> c-b, a-d; the lower seed (c over b, d over a) White first.
    assert games(rounds[0]) == ["c-b", "d-a"]
    assert games(rounds[1]) == ["b-c", "a-d"]
    for first, second in zip(rounds[::2], rounds[1::2], strict=True):
        for g1, g2 in zip(first.pairings, second.pairings, strict=True):
            assert (g1.white, g1.black) == (g2.black, g2.white)
            assert g1.pair_id == g2.pair_id and g1.opening == g2.opening is not None
            assert ev_seed(g1.white) > ev_seed(g1.black)
    assert [p.pair_id for r in rounds[::2] for p in r.pairings] == [
        f"main-p{k}" for k in range(1, 7)
    ]
    assert rounds[0].pairings[0].opening == "book exit 1"


def ev_seed(pid: str) -> int:
    return "abcd".index(pid) + 1


def test_tcec_frd_reverse_games_come_in_the_next_cycle():
    # FRD 2.b: "the reverse games will not follow immediately, except in the Final".
    _, rounds = run(_tcec("tcec-frd", 2), "cadb")
    assert [r.cycle for r in rounds] == [1, 1, 1, 2, 2, 2]
    assert games(rounds[0]) == ["c-b", "d-a"]
    assert games(rounds[1]) == ["d-b", "c-a"]  # table 4-3 1-2 = b-d c-a; d, c lower seeds
    assert games(rounds[3]) == ["b-c", "a-d"]  # the reverses of round 1, same pairs
    pairs1 = {p.pair_id: (p.white, p.black) for r in rounds[:3] for p in r.pairings}
    pairs2 = {p.pair_id: (p.black, p.white) for r in rounds[3:] for p in r.pairings}
    assert pairs1 == pairs2 and len(pairs1) == 6
    # No reverse game follows its game immediately.
    for a, b in pairwise(rounds):
        assert not {p.pair_id for p in a.pairings} & {p.pair_id for p in b.pairings}


def test_reverse_option_overrides_the_preset():
    _, deferred = run(_tcec("tcec-league", 2), "cadb", reverse="cycle")
    assert [r.cycle for r in deferred] == [1, 1, 1, 2, 2, 2]
    _, paired = run([created(cycles=2), *_players("abcd")], "abcd", reverse="pair")
    assert [games(r) for r in paired[:2]] == [["a-d", "b-c"], ["d-a", "c-b"]]
    assert paired[0].pairings[0].pair_id is None  # human events: no TCEC pair ids


def test_mode_follows_the_recorded_rounds():
    events = _tcec("tcec-league", 2)
    events = _accepted(events, _lot(propose(_ctx(events)).lots[0], "cadb"))
    for _ in range(2):
        events = _accepted(events, propose(_ctx(events), reverse="cycle").round)
    p = propose(_ctx(events))  # no option: the preset says "pair", the record says "cycle"
    assert p.round is not None and p.round.cycle == 1
    assert any("'cycle'" in n for n in p.notes)
    assert [games(r) for r in schedule(_ctx(events))][3] == ["b-c", "a-d"]


def test_odd_last_cycle_of_a_tcec_event_is_single_games():
    _, rounds = run(_tcec("tcec-league", 3, "abc"), "abc")
    assert [r.cycle for r in rounds] == [1, 2, 1, 2, 1, 2, 3, 3, 3]
    assert all(p.pair_id is None for r in rounds[6:] for p in r.pairings)
    assert all(p.pair_id is not None for r in rounds[:6] for p in r.pairings)


def test_plan_in_pairing_numbers():
    rounds = plan(4, 2, "pair", switch_last_two=False)
    assert [(r.round, r.cycle, r.table_round, r.reversed) for r in rounds[:2]] == [
        (1, 1, 1, False),
        (2, 2, 1, True),
    ]
    assert [(g.white, g.black, g.pair, g.first) for g in rounds[1].games] == [
        (4, 1, 1, False),
        (3, 2, 2, False),
    ]
    assert reversed_round(berger_round(4, 1)) == [(4, 1), (3, 2)]
