"""The TCEC Swiss as a pairing system (projections/pairing/monrad.py; tcec-rules Swiss 1–2):
round 1 from the organisers' seeded groups (2.a), double rounds as two stage rounds with the
same pair and reversed colours (2.b), standard Monrad pairing by score then seed with no rematch
(2.d), the bye, and a full 12-double-round Swiss. Events are appended and folded as the edge
would; the pairing algorithm's corner cases are also shown on hand-built contexts."""

from __future__ import annotations

import random
from collections import Counter
from datetime import timedelta

import pytest
from builders import T0, created, new_event, result

from events_schema import GENESIS_HASH, Event, Recorded
from events_schema import events as ev
from projections.pairing.base import (
    PairingContext,
    PairingRefused,
    PlayerHistory,
    RoundEntry,
    context,
)
from projections.pairing.monrad import GROUPS_SUBJECT, monrad_round, propose
from projections.standings import StandingsState, evolve

STAGE = "swiss"


class Log:
    """An event stream sealed and folded as it grows."""

    def __init__(self, events: list[Event]) -> None:
        self.events: list[Event] = []
        self.state = StandingsState()
        self.prev = GENESIS_HASH
        for e in events:
            self.append(e)

    def append(self, event: Event) -> None:
        seq = len(self.events) + 1
        env = new_event(event, seq).sealed("t1", seq, self.prev, T0 + timedelta(seconds=seq))
        self.prev = env.hash
        self.events.append(event)
        evolve(self.state, Recorded(env, event))

    def ctx(self) -> PairingContext:
        return context(self.state, STAGE)


def eng(seed: int) -> str:
    return f"e{seed:02d}"


def groups_ruling(groups: list[list[str]], ruling_id: str = "groups-1") -> ev.RulingIssued:
    return ev.RulingIssued(
        ruling_id=ruling_id,
        by="TCEC organisers",
        subject=GROUPS_SUBJECT,
        rule="tcec-rules Swiss 2.a",
        text="the seeded groups of round 1",
        decision={"groups": groups},
    )


def swiss(sizes: list[int] | None, n: int | None = None, rounds: int | None = None) -> Log:
    """Engines e01.. seeded 1..n; `sizes` the groups of consecutive seeds (None: no ruling)."""
    total = n if n is not None else sum(sizes or [])
    events: list[Event] = [
        created(fmt="swiss", rules_preset="tcec-swiss", pairing="monrad", rounds=rounds),
        *(
            ev.PlayerRegistered(player_id=eng(s), name=f"Engine {s}", kind="engine", seed=s)
            for s in range(1, total + 1)
        ),
    ]
    if sizes is not None:
        groups, start = [], 1
        for size in sizes:
            groups.append([eng(s) for s in range(start, start + size)])
            start += size
        events.append(groups_ruling(groups))
    return Log(events)


def schedule(log: Log) -> ev.RoundScheduled:
    proposal = propose(log.ctx())
    assert proposal.round is not None
    log.append(proposal.round)
    return proposal.round


def pairs(rnd: ev.RoundScheduled) -> list[tuple[str, str]]:
    return [(p.white, p.black) for p in rnd.pairings]


# --- round 1: the seeded groups (2.a) -------------------------------------------------------


def test_round_1_is_refused_until_the_organisers_set_the_groups() -> None:
    log = swiss(None, n=12)
    with pytest.raises(PairingRefused) as refused:
        propose(log.ctx())
    assert (refused.value.rule, refused.value.field) == ("tcec-swiss.groups", "rulings")
    assert GROUPS_SUBJECT in refused.value.message


def test_round_1_pairs_the_groups_two_by_two_at_equal_distance() -> None:
    log = swiss([6, 6])
    rnd = schedule(log)
    assert (rnd.stage, rnd.round, rnd.byes) == (STAGE, 1, [])
    # Group 1 (seeds 1-6) meets group 2 (seeds 7-12) engine by engine: 1-7, 2-8, ...; the
    # lower seed White in the first game.
    assert pairs(rnd) == [(eng(s + 6), eng(s)) for s in range(1, 7)]
    assert [p.board for p in rnd.pairings] == [1, 2, 3, 4, 5, 6]
    assert rnd.pairings[0].game_id == "swiss-r1-b1"
    assert rnd.pairings[0].pair_id == "swiss-d1-b1"


def test_round_1_with_a_group_left_over_pairs_it_at_equal_distance() -> None:
    log = swiss([6, 6, 6])
    rnd = schedule(log)
    assert pairs(rnd)[:6] == [(eng(s + 6), eng(s)) for s in range(1, 7)]
    # Group 3 has no partner group: its top half meets its bottom half, 13-16, 14-17, 15-18.
    assert pairs(rnd)[6:] == [("e16", "e13"), ("e17", "e14"), ("e18", "e15")]


def test_round_1_follows_the_groups_as_the_organisers_ordered_them() -> None:
    log = swiss(None, n=10)
    log.append(
        groups_ruling(
            [
                ["e01", "e04", "e05", "e08", "e09"],
                ["e02", "e03", "e06", "e07", "e10"],
            ]
        )
    )
    rnd = schedule(log)
    assert sorted(tuple(sorted(p)) for p in pairs(rnd)) == [
        ("e01", "e02"),
        ("e03", "e04"),
        ("e05", "e06"),
        ("e07", "e08"),
        ("e09", "e10"),
    ]


def test_an_odd_field_gives_the_lowest_seed_the_bye_in_both_games() -> None:
    log = swiss([7, 6])  # 13 engines
    first = schedule(log)
    assert [b.player_id for b in first.byes] == ["e13"]
    assert [b.kind for b in first.byes] == ["pairing_allocated"]
    # e13 leaves group 2 (now e08-e12): 1-8 ... 5-12, and the spare e06, e07 meet.
    assert pairs(first) == [(eng(s + 7), eng(s)) for s in range(1, 6)] + [("e07", "e06")]
    second = schedule(log)
    assert [b.player_id for b in second.byes] == ["e13"]


@pytest.mark.parametrize(
    "groups",
    [
        [[eng(s) for s in range(1, 5)], [eng(s) for s in range(5, 11)]],  # a group of 4
        [[eng(s) for s in range(1, 6)], [eng(s) for s in range(6, 10)] + ["e01"]],  # twice
        [[eng(s) for s in range(1, 6)], [eng(s) for s in range(6, 10)] + ["x"]],  # unknown
        [[eng(s) for s in range(1, 6)], [eng(s) for s in range(6, 10)]],  # e10 missing
        "not a list",
    ],
)
def test_groups_that_do_not_fit_are_refused(groups: object) -> None:
    log = swiss(None, n=10)
    log.append(
        ev.RulingIssued(
            ruling_id="g",
            by="organisers",
            subject=GROUPS_SUBJECT,
            text="groups",
            decision={"groups": groups},
        )
    )
    with pytest.raises(PairingRefused) as refused:
        propose(log.ctx())
    assert refused.value.rule == "tcec-swiss.groups"


def test_a_later_ruling_replaces_the_groups() -> None:
    log = swiss(None, n=10)
    log.append(groups_ruling([[eng(s) for s in range(1, 5)], [eng(s) for s in range(5, 11)]]))
    with pytest.raises(PairingRefused):
        propose(log.ctx())
    log.append(groups_ruling([[eng(s) for s in range(1, 6)], [eng(s) for s in range(6, 11)]]))
    assert pairs(schedule(log))[0] == ("e06", "e01")


# --- double rounds (2.b) --------------------------------------------------------------------


def test_the_second_game_reverses_colours_with_the_same_pair_and_opening() -> None:
    log = swiss([6, 6])
    first = propose(log.ctx()).round
    assert first is not None
    booked = first.model_copy(
        update={
            "pairings": [
                p.model_copy(update={"opening": f"exit-{i}"}) for i, p in enumerate(first.pairings)
            ]
        }
    )
    log.append(booked)
    # The return games are fixed by the first: no result is needed to schedule them.
    second = schedule(log)
    assert second.round == 2
    for p1, p2 in zip(booked.pairings, second.pairings, strict=True):
        assert (p2.white, p2.black) == (p1.black, p1.white)
        assert (p2.pair_id, p2.opening, p2.board) == (p1.pair_id, p1.opening, p1.board)
        assert p2.game_id != p1.game_id


def test_the_next_double_round_waits_for_every_result() -> None:
    log = swiss([6, 6])
    first, second = schedule(log), schedule(log)
    for p in first.pairings + second.pairings[1:]:
        log.append(result(p.game_id, "1/2-1/2"))
    with pytest.raises(PairingRefused) as refused:
        propose(log.ctx())
    assert refused.value.rule == "pairing.round_unfinished"
    log.append(result(second.pairings[0].game_id, "1/2-1/2"))
    assert propose(log.ctx()).round is not None


# --- Monrad (2.d) ---------------------------------------------------------------------------


def test_double_round_2_worked_example() -> None:
    log = swiss([6, 6])
    first, second = schedule(log), schedule(log)
    # Double round 1 (1-7, 2-8, ..., 6-12), results for the higher seed, by pair:
    # e01 wins both, e02 and e04 and e06 split, e03 loses both, e05 wins both.
    score = {"e01": "win", "e02": "split", "e03": "loss", "e04": "split", "e05": "win"}
    score["e06"] = "split"
    for rnd in (first, second):
        for p in rnd.pairings:
            high = min(p.white, p.black)
            how = score[high]
            if how == "split":
                res = "1-0"  # each wins with White: 1-1
            else:
                winner = high if how == "win" else max(p.white, p.black)
                res = "1-0" if p.white == winner else "0-1"
            log.append(result(p.game_id, res))
    third = schedule(log)
    assert third.round == 3
    # Scores (points): 2: e01 e05 e09; 1: e02 e04 e06 e08 e10 e12; 0: e03 e07 e11.
    # Ranked by score then seed, each meets the next one down not yet met:
    # e01-e05, e09-e02, e04-e06, e08-e10, e12-e03, e07-e11; the lower seed White.
    assert pairs(third) == [
        ("e05", "e01"),
        ("e09", "e02"),
        ("e06", "e04"),
        ("e10", "e08"),
        ("e12", "e03"),
        ("e11", "e07"),
    ]
    assert third.pairings[0].pair_id == "swiss-d2-b1"


def _history(pid: str, seed: int, points: int, met: list[str], bye: bool = False) -> PlayerHistory:
    rounds = [
        RoundEntry(r, opp, "white", points if r == 1 else 0, "played")
        for r, opp in enumerate(met, start=1)
    ]
    if bye:
        rounds.append(RoundEntry(len(rounds) + 1, None, None, 0, "bye"))
    return PlayerHistory(pid, pid, None, seed, seed - 1, None, tuple(rounds))


def _hand_ctx(histories: list[PlayerHistory], rnd: int = 3) -> PairingContext:
    return PairingContext(
        created=created(fmt="swiss", rules_preset="tcec-swiss"),
        stage=STAGE,
        round=rnd,
        players={h.player_id: h for h in histories},
        scoring=ev.Scoring(),
    )


def test_no_rematch_the_top_engine_skips_the_opponent_it_has_met() -> None:
    # a and b lead and have met: a takes c, the next one down, and b takes d.
    ctx = _hand_ctx(
        [
            _history("a", 1, 4, ["b"]),
            _history("b", 2, 3, ["a"]),
            _history("c", 3, 2, ["e"]),
            _history("d", 4, 2, ["f"]),
            _history("e", 5, 0, ["c"]),
            _history("f", 6, 0, ["d"]),
        ]
    )
    got, bye, _ = monrad_round(ctx, list(ctx.players), list(ctx.players))
    assert (got, bye) == ([("a", "c"), ("b", "d"), ("e", "f")], None)


def test_no_rematch_at_the_bottom_the_pairing_above_gives_way() -> None:
    # Top-down a-b, c-d would leave e-f, who have met. Backtracking: c-e would leave d-f,
    # who have met too; c-f leaves d-e.
    ctx = _hand_ctx(
        [
            _history("a", 1, 4, ["x1"]),
            _history("b", 2, 4, ["x2"]),
            _history("c", 3, 2, ["x3"]),
            _history("d", 4, 2, ["f"]),
            _history("e", 5, 0, ["f"]),
            _history("f", 6, 0, ["e", "d"]),
        ]
    )
    got, _, _ = monrad_round(ctx, list(ctx.players), list(ctx.players))
    assert got == [("a", "b"), ("c", "f"), ("d", "e")]


def test_the_bye_goes_to_the_lowest_ranked_engine_without_one() -> None:
    ctx = _hand_ctx(
        [
            _history("a", 1, 4, ["x1"]),
            _history("b", 2, 2, ["x2"]),
            _history("c", 3, 2, ["x3"]),
            _history("d", 4, 0, ["x4"]),
            _history("e", 5, 0, ["x5"], bye=True),
        ]
    )
    got, bye, notes = monrad_round(ctx, list(ctx.players), list(ctx.players))
    assert bye == "d"  # e, the lowest, had a bye already
    assert got == [("a", "b"), ("c", "e")]
    assert any("bye" in n for n in notes)


def test_no_pairing_without_a_rematch_is_refused() -> None:
    ctx = _hand_ctx([_history("a", 1, 2, ["b"]), _history("b", 2, 2, ["a"])])
    with pytest.raises(PairingRefused) as refused:
        monrad_round(ctx, ["a", "b"], ["a", "b"])
    assert refused.value.rule == "tcec-swiss.no_pairing"


# --- a whole Swiss --------------------------------------------------------------------------


def test_twelve_double_rounds_no_rematch_one_bye_at_most() -> None:
    log = swiss([7, 7, 7, 6, 6])  # 33 engines: one bye a double round
    rng = random.Random(2026)
    strength = {eng(s): 40 - s for s in range(1, 34)}
    rounds: list[ev.RoundScheduled] = []
    for _ in range(12):
        first, second = schedule(log), schedule(log)
        rounds += [first, second]
        for p in first.pairings + second.pairings:
            edge = strength[p.white] - strength[p.black] + rng.randint(-20, 20)
            res = "1-0" if edge > 5 else ("0-1" if edge < -5 else "1/2-1/2")
            log.append(result(p.game_id, res))
    assert [r.round for r in rounds] == list(range(1, 25))
    met: Counter[frozenset[str]] = Counter()
    byes: Counter[str] = Counter()
    for d in range(12):
        first, second = rounds[2 * d], rounds[2 * d + 1]
        # Every engine once in each game of the double round: 16 pairs and one bye.
        for rnd in (first, second):
            seen = [x for p in rnd.pairings for x in (p.white, p.black)]
            seen += [b.player_id for b in rnd.byes]
            assert sorted(seen) == [eng(s) for s in range(1, 34)]
        assert len(first.pairings) == 16 and len(first.byes) == 1
        assert first.byes == second.byes
        # The same pairs with colours reversed, the same pair ids (2.b).
        assert [(p.black, p.white, p.pair_id) for p in first.pairings] == [
            (p.white, p.black, p.pair_id) for p in second.pairings
        ]
        met.update(frozenset((p.white, p.black)) for p in first.pairings)
        byes.update(b.player_id for b in first.byes)
    assert max(met.values()) == 1  # no rematch in 12 double rounds
    assert max(byes.values()) == 1 and len(byes) == 12  # one bye at most per engine
    assert len({p.pair_id for r in rounds for p in r.pairings}) == 16 * 12
    with pytest.raises(PairingRefused) as refused:
        propose(log.ctx())
    assert refused.value.rule == "tcec-swiss.complete"


def test_the_leader_is_on_board_1() -> None:
    log = swiss([5, 5])
    for _ in range(2):
        rnd = schedule(log)
        for p in rnd.pairings:
            # The higher seed always wins.
            log.append(result(p.game_id, "1-0" if p.white < p.black else "0-1"))
    third = schedule(log)
    assert set(pairs(third)[0]) == {"e01", "e02"}  # 2 points each, by seed


def test_rounds_count_stage_rounds_and_must_be_even() -> None:
    with pytest.raises(PairingRefused) as refused:
        propose(swiss([5, 5], rounds=3).ctx())
    assert refused.value.rule == "tcec-swiss.rounds"
    log = swiss([5, 5], rounds=2)
    schedule(log)
    schedule(log)
    with pytest.raises(PairingRefused) as done:
        propose(log.ctx())
    assert done.value.rule == "tcec-swiss.complete"
