"""Incremental standings (`projections.standings.incremental`) equal a full `standings()` after
every event, and recompute only the players each criterion's dependency radius names."""

from __future__ import annotations

from typing import Any

import pytest
from builders import created, eid, player, recorded, result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events_schema import Event, Recorded
from events_schema import events as ev
from events_schema.go import GoSettings
from projections.standings import standings
from projections.standings.incremental import IncrementalStandings
from projections.standings.state import StandingsState, evolve
from projections.tiebreaks import REGISTRY, mcmahon
from projections.tiebreaks.registry import (
    ABSOLUTE_RADII,
    GROUP,
    GROUP_RADII,
    criterion,
    points_key,
)

pytestmark = pytest.mark.slow  # make test-fast leaves it out


SWISS_CHAINS = [
    ["buchholz-cut1", "buchholz", "fide-direct-encounter", "fide-sonneborn-berger", "fide-wins"],
    ["fide-aob", "fide-fore-buchholz", "fide-apro", "fide-progressive", "fide-aro-cut1"],
    ["fide-tpr", "fide-koya", "sonneborn-berger", "direct-encounter", "organisers-decide"],
]
RR_PRESETS = ["fide-round-robin", "czech-single", "tcec-league", None]
RESULTS = ["1-0", "0-1", "1/2-1/2"]
# Every registered criterion but the terminal ones and the Go criteria (a McMahon-ranked
# tournament is always recomputed in full: `mcmahon.mcmahon_ranked`).
CRITERIA = sorted(
    name
    for name, crit in REGISTRY.items()
    if not crit.terminal and name not in mcmahon.CRITERION_OF.values()
)


def _view(table: Any) -> Any:
    return (table.as_dict(), [r.as_dict() for r in table.rows], table.ranking, table.edition)


def _correct(draw: st.DrawFn, evs: list[Event], results: list[tuple[int, str]]) -> None:
    """Append a correction of one of `results` (seq, game id) and note it as a result."""
    seq, gid = draw(st.sampled_from(results))
    evs.append(
        ev.ResultCorrected(
            corrects_event_id=eid(seq),
            game_id=gid,
            result=draw(st.sampled_from(RESULTS)),
            termination="adjudication",
            reason="scoresheet",
        )
    )
    results.append((len(evs), gid))


@st.composite
def tournaments(draw: st.DrawFn, chains: st.SearchStrategy[list[str]] | None = None) -> list[Event]:
    """A Swiss or round robin with byes, forfeits, double forfeits, withdrawals, late entries,
    corrections and retractions of results, clock readings; results arrive in any order within
    a round. With `chains`: a Swiss whose chain is drawn from it."""
    swiss = chains is not None or draw(st.booleans())
    n = draw(st.integers(3, 8))
    rounds = draw(st.integers(1, 5))
    ids = [f"p{i}" for i in range(n)]
    if swiss:
        chain = draw(chains if chains is not None else st.sampled_from(SWISS_CHAINS))
        head: list[Event] = [
            created(
                fmt="swiss",
                rounds=rounds,
                tiebreaks=[ev.TiebreakSpec(name=c) for c in chain],
            )
        ]
    else:
        preset = draw(st.sampled_from(RR_PRESETS))
        head = [created(fmt="round_robin", rounds=rounds, rules_preset=preset)]
    rated = draw(st.booleans())
    evs: list[Event] = [*head]
    late = draw(st.integers(0, min(2, n - 2)))
    for p in ids[: n - late]:
        evs.append(player(p, 2000 + 10 * int(p[1:]) if rated else None))
    active = ids[: n - late]
    withdrawn: set[str] = set()
    results: list[tuple[int, str]] = []  # (index in evs, game id)
    for r in range(1, rounds + 1):
        if r > 1 and late and draw(st.booleans()):
            p = ids[n - late]
            late -= 1
            evs.append(player(p, 2100 if rated else None))
            active.append(p)
        if draw(st.integers(0, 5)) == 0 and len(active) - len(withdrawn) > 2:
            w = draw(st.sampled_from([p for p in active if p not in withdrawn]))
            withdrawn.add(w)
            evs.append(ev.PlayerWithdrew(player_id=w, from_round=draw(st.sampled_from([None, r]))))
        here = draw(st.permutations([p for p in active if p not in withdrawn]))
        byes = []
        if len(here) % 2:
            kind = draw(st.sampled_from(["pairing_allocated", "half", "zero"]))
            byes.append(ev.Bye(player_id=here[-1], kind=kind))
            here = here[:-1]
        pairs = [
            ev.Pairing(game_id=f"r{r}g{i}", white=here[2 * i], black=here[2 * i + 1])
            for i in range(len(here) // 2)
        ]
        evs.append(ev.RoundScheduled(round=r, pairings=pairs, byes=byes))
        order = draw(st.permutations(range(len(pairs))))
        for i in order:
            if draw(st.integers(0, 6)) == 0:
                continue  # not played yet
            kind = draw(st.integers(0, 9))
            gid = pairs[i].game_id
            if draw(st.integers(0, 3)) == 0:  # a clock reading: the table never reads it
                evs.append(ev.ClockReported(game_id=gid, white_ms=60_000, black_ms=59_000))
            if kind == 0:
                res = draw(st.sampled_from(["1-0", "0-1"]))
                evs.append(result(gid, res, "forfeit"))
            elif kind == 1:
                evs.append(result(gid, "0-0", "forfeit"))  # double forfeit
            else:
                evs.append(result(gid, draw(st.sampled_from(RESULTS)), "resignation"))
            results.append((len(evs), gid))
        for _ in range(draw(st.integers(0, 2))):
            if not results:
                break
            if draw(st.booleans()):
                _correct(draw, evs, results)
            else:
                seq, _gid = draw(st.sampled_from(results))
                evs.append(ev.EventRetracted(retracted_event_id=eid(seq), reason="wrong board"))
    return evs


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(tournaments())
def test_incremental_equals_full_after_every_event(evs: list[Event]) -> None:
    recs = recorded("inc", evs)
    inc, state = _advanced_equal_to_full(recs)
    # a redelivery changes nothing
    inc.apply(recs[-1])
    assert inc.table() == standings(state)


def _advanced_equal_to_full(
    recs: list[Recorded],
) -> tuple[IncrementalStandings, StandingsState]:
    """An incremental standings and a fold advanced by `recs`, the incremental table checked
    equal to the full one (rows, trace, crosstable) after every record."""
    inc = IncrementalStandings()
    state = StandingsState()
    for rec in recs:
        evolve(state, rec)
        inc.apply(rec)
        got, want = inc.table(), standings(state)
        assert got == want
        assert _view(got) == _view(want)
        assert got.crosstable is not None and want.crosstable is not None
        assert got.crosstable.games == want.crosstable.games
        assert got.crosstable.entries == want.crosstable.entries
        assert got.crosstable.points == want.crosstable.points
    return inc, state


def _swiss(chain: list[str]) -> list[Event]:
    """8 players, two rounds: round 1 a1-a2, a3-a4, a5-a6, a7-a8; round 2 a1-a3, a2-a5, a4-a7,
    a6-a8, with a1-a3 reported last."""
    evs: list[Event] = [
        created(fmt="swiss", rounds=2, tiebreaks=[ev.TiebreakSpec(name=c) for c in chain]),
        *[player(f"a{i}", 2000 + i) for i in range(1, 9)],
    ]
    r1 = [("a1", "a2"), ("a3", "a4"), ("a5", "a6"), ("a7", "a8")]
    r2 = [("a2", "a5"), ("a4", "a7"), ("a6", "a8"), ("a1", "a3")]
    for rnd, pairs in ((1, r1), (2, r2)):
        evs.append(
            ev.RoundScheduled(
                round=rnd,
                pairings=[ev.Pairing(game_id=f"r{rnd}-{w}", white=w, black=b) for w, b in pairs],
            )
        )
        evs += [result(f"r{rnd}-{w}", "1-0", "resignation") for w, _b in pairs]
    return evs


def _last_update(chain: list[str]) -> IncrementalStandings:
    recs = recorded("inc", _swiss(chain))
    inc = IncrementalStandings()
    for rec in recs[:-1]:
        inc.apply(rec)
        inc.table()
    full = inc.counters.full
    inc.apply(recs[-1])
    state = StandingsState()
    for rec in recs:
        evolve(state, rec)
    assert inc.table() == standings(state)
    assert inc.counters.full == full  # the last result was an incremental update
    return inc


def test_radius_of_each_criterion() -> None:
    """a1-a3 in round 2: a1 met a2, a3 met a4; a2 met a5, a4 met a7. Wins read a1 and a3,
    Buchholz and SB also their opponents a2 and a4, AOB also a5 and a7."""
    inc = _last_update(["fide-wins", "buchholz", "fide-sonneborn-berger", "fide-aob"])
    c = inc.counters
    assert c.last_players == {"a1", "a3"}
    assert c.last_values == {
        "fide-wins": 2,
        "buchholz": 4,
        "fide-sonneborn-berger": 4,
        "fide-aob": 6,
    }


def test_every_criterion_declares_its_radius() -> None:
    """Each criterion's registration says what its values read (`registry.Radius`): the
    incremental standings read it there, so a new criterion needs no table elsewhere."""
    wrong = [
        (name, crit.radius)
        for name, crit in REGISTRY.items()
        if crit.radius not in (GROUP_RADII if crit.group_relative else ABSOLUTE_RADII)
    ]
    assert wrong == []


def test_a_radius_the_criterion_cannot_have_is_refused() -> None:
    """An absolute criterion cannot be `GROUP` (it is computed once for the field)."""
    with pytest.raises(ValueError, match="radius"):
        criterion(
            "no-such-criterion", "x", "nowhere", unit="points", reading=points_key, radius=GROUP
        )
    assert "no-such-criterion" not in REGISTRY


# In `_swiss`'s last update (a1-a3): the players within each radius of a1 and a3.
RING_SIZE = {0: 2, 1: 4, 2: 6, "field": 8}


@pytest.mark.parametrize("name", [n for n in CRITERIA if not REGISTRY[n].group_relative])
def test_each_criterion_recomputes_its_declared_radius(name: str) -> None:
    """Every absolute criterion alone in the chain: the last result recomputes the players its
    registration's radius names, and the table equals the full one."""
    inc = _last_update([name])
    assert inc.counters.last_values == {name: RING_SIZE[REGISTRY[name].radius]}


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(tournaments(st.lists(st.sampled_from(CRITERIA), min_size=1, max_size=3, unique=True)))
def test_incremental_equals_full_for_every_criterion(evs: list[Event]) -> None:
    """Chains drawn from every registered criterion, each recomputed within its declared
    radius: the incremental table equals the full one after every event."""
    _advanced_equal_to_full(recorded("inc", evs))


def test_unbounded_criterion_recomputes_the_field() -> None:
    inc = _last_update(["fide-koya"])
    assert inc.counters.last_values == {"fide-koya": 8}


def test_new_round_and_withdrawal_are_full_recomputes() -> None:
    recs = recorded("inc", _swiss(["buchholz"]))
    inc = IncrementalStandings()
    for rec in recs:
        inc.apply(rec)
        inc.table()
    full = inc.counters.full
    withdrawal = recorded("inc", [*_swiss(["buchholz"]), ev.PlayerWithdrew(player_id="a8")])
    inc.apply(withdrawal[-1])
    inc.table()
    assert inc.counters.full == full + 1


def test_group_relative_values_follow_a_game_between_members() -> None:
    """The cached direct encounter of a points group is dropped when a game between two of its
    members changes, though the group keeps its members: a1-a2 (a forfeit, not counted) is
    corrected to a game played (counted) and back; every table equals the full one."""
    chain = ["fide-direct-encounter", "buchholz"]
    evs: list[Event] = [
        created(fmt="swiss", rounds=2, tiebreaks=[ev.TiebreakSpec(name=c) for c in chain]),
        *[player(f"a{i}", 2000 + i) for i in range(1, 5)],
        ev.RoundScheduled(
            round=1,
            pairings=[
                ev.Pairing(game_id="r1-a1", white="a1", black="a2"),
                ev.Pairing(game_id="r1-a3", white="a3", black="a4"),
            ],
        ),
        result("r1-a1", "1-0", "forfeit"),
        result("r1-a3", "1-0", "resignation"),
        ev.RoundScheduled(
            round=2,
            pairings=[
                ev.Pairing(game_id="r2-a2", white="a2", black="a3"),
                ev.Pairing(game_id="r2-a4", white="a4", black="a1"),
            ],
        ),
        result("r2-a2", "1-0", "resignation"),
        result("r2-a4", "1-0", "resignation"),
    ]
    forfeit = 1 + next(i for i, e in enumerate(evs) if getattr(e, "game_id", "") == "r1-a1")
    evs.append(
        ev.ResultCorrected(
            corrects_event_id=eid(forfeit),
            game_id="r1-a1",
            result="1-0",
            termination="adjudication",
            reason="played after all",
        )
    )
    evs.append(ev.EventRetracted(retracted_event_id=eid(len(evs)), reason="it was a forfeit"))
    recs = recorded("inc", evs)
    inc = IncrementalStandings()
    state = StandingsState()
    shown: list[str] = []
    full = 0
    for k, rec in enumerate(recs):
        if k == len(recs) - 2:
            full = inc.counters.full  # before the correction
        evolve(state, rec)
        inc.apply(rec)
        got = inc.table()
        assert got == standings(state)
        assert _view(got) == _view(standings(state))
        if len(got.rows) == 4 and all(r.points == 2 for r in got.rows):  # one points group
            shown.append(
                dict(got.rows[[r.player_id for r in got.rows].index("a1")].tiebreaks)[
                    "fide-direct-encounter"
                ]
            )
    assert inc.counters.full == full  # the correction and its retraction are incremental
    assert inc.counters.last_players == {"a1", "a2"}
    assert len(shown) == 3 and shown[0] != shown[1] and shown[2] == shown[0]


def test_a_clock_reading_is_not_a_recompute() -> None:
    """Clocks change nothing the table reads (the live games document shows them): a reading
    of a finished game, and its retraction, neither recompute nor change the table."""
    recs = recorded("inc", _swiss(["buchholz", "fide-sonneborn-berger"]))
    inc = IncrementalStandings()
    for rec in recs:
        inc.apply(rec)
    before = inc.table()
    full = inc.counters.full
    clock = ev.ClockReported(game_id="r1-a1", white_ms=1_000, black_ms=2_000)
    more = recorded("inc", [*_swiss(["buchholz", "fide-sonneborn-berger"]), clock])
    inc.apply(more[-1])
    retract = ev.EventRetracted(retracted_event_id=more[-1].envelope.event_id, reason="misread")
    inc.apply(recorded("inc", [*_swiss(["buchholz", "fide-sonneborn-berger"]), clock, retract])[-1])
    after = inc.table()
    assert inc.counters.full == full
    assert after.rows == before.rows and after.seq == before.seq + 2


def test_a_go_start_with_stones_of_a_game_without_a_result_reaches_the_table() -> None:
    """OpenGotha counts a game without a result as paired (RESULT_UNKNOWN): its handicap
    stones correct the opponents' SOSM, so the start that sets them (and its retraction, back
    to the pairing's stones) changes the table, and the incremental standings follow it."""
    go = GoSettings(unentered_results="opengotha")
    evs: list[Event] = [ev.TournamentCreated(name="Go", game="go", format="mcmahon", go=go)]
    for pid, rank in (("a", "5k"), ("b", "3k"), ("c", "1d"), ("d", "10k")):
        evs.append(ev.PlayerRegistered(player_id=pid, name=pid.upper(), go_rank=rank))
    evs += [
        ev.RoundScheduled(
            round=1,
            pairings=[
                ev.Pairing(game_id="g1", white="a", black="b"),
                ev.Pairing(game_id="g2", white="c", black="d"),
            ],
        ),
        ev.GameEnded(game_id="g2", result="1-0", termination="counting"),
        ev.GameStarted(game_id="g1", handicap=4),
    ]
    evs.append(ev.EventRetracted(retracted_event_id=eid(len(evs)), reason="wrong stones"))
    inc = IncrementalStandings()
    tables = []
    for rec in recorded("inc-go", evs):
        inc.apply(rec)
        tables.append(inc.table())
        assert tables[-1].rows == standings(inc.state).rows, rec.event.event_type
    assert tables[-2].rows != tables[-3].rows  # the stones changed the SOSM
    assert tables[-1].rows == tables[-3].rows  # and their retraction changed it back


# Chains whose first criterion leaves many players level, so that a points group splits into
# buckets of several players that the later criteria (direct encounter among them) order.
SPLIT_CHAINS = [
    ["fide-wins", "fide-direct-encounter", "buchholz", "fide-sonneborn-berger"],
    ["fide-black-games", "buchholz-cut1", "fide-direct-encounter", "fide-progressive"],
    ["buchholz", "fide-direct-encounter", "fide-wins", "fide-aro-cut1"],
]


@st.composite
def split_swisses(draw: st.DrawFn) -> list[Event]:
    """A Swiss of 12-24 players in score-group order (so points groups meet within), with
    corrections and retractions of results: players move between the buckets of a points
    group, join and leave groups, and games between the members of a bucket change."""
    n = draw(st.integers(12, 24))
    rounds = draw(st.integers(2, 5))
    chain = draw(st.sampled_from(SPLIT_CHAINS))
    ids = [f"p{i:02d}" for i in range(n)]
    evs: list[Event] = [
        created(fmt="swiss", rounds=rounds, tiebreaks=[ev.TiebreakSpec(name=c) for c in chain]),
        *[player(p, 2000 + 10 * i) for i, p in enumerate(ids)],
    ]
    score = dict.fromkeys(ids, 0)
    results: list[tuple[int, str]] = []
    for r in range(1, rounds + 1):
        order = sorted(ids, key=lambda p: (-score[p], p))
        byes = [ev.Bye(player_id=order.pop())] if len(order) % 2 else []
        pairs = [
            ev.Pairing(game_id=f"r{r}g{i}", white=order[2 * i], black=order[2 * i + 1])
            for i in range(len(order) // 2)
        ]
        evs.append(ev.RoundScheduled(round=r, pairings=pairs, byes=byes))
        for b in byes:
            score[b.player_id] += 2
        for i in draw(st.permutations(range(len(pairs)))):
            res = draw(st.sampled_from(RESULTS))
            evs.append(result(pairs[i].game_id, res, "resignation"))
            results.append((len(evs), pairs[i].game_id))
            score[pairs[i].white] += {"1-0": 2, "1/2-1/2": 1, "0-1": 0}[res]
            score[pairs[i].black] += {"1-0": 0, "1/2-1/2": 1, "0-1": 2}[res]
            if draw(st.integers(0, 4)) == 0:  # a correction of an earlier result
                _correct(draw, evs, results)
    if draw(st.booleans()):
        seq, _gid = draw(st.sampled_from(results))
        evs.append(ev.EventRetracted(retracted_event_id=eid(seq), reason="wrong board"))
    return evs


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(split_swisses())
def test_partial_reranking_of_a_points_group_equals_full(evs: list[Event]) -> None:
    """Re-ranking a points group from its previous split (`chain.resplit`: only the buckets
    a changed player left or joined are ranked again) gives the full ranking and trace."""
    recs = recorded("inc", evs)
    inc, _state = _advanced_equal_to_full(recs)
    assert inc.counters.full < len(recs)  # the results were incremental updates
