"""The TCEC Cup bracket as a pairing system (projections/pairing/knockout.py; tcec-rules Cup
1–3): the bracket lot, the equal-distance lines of seeds 1–8 (2.c), the first round's
pairings, one game per match per round with the lower seed White first in every pair (3.a,
3.b), a match stopped once decided (3.a), tiebreak pairs (3.d, 3.e), the bracket advancing by
itself, and the lengths of every round (3.c). Events are appended and folded as the edge would
(`tests/unit/projections/playoffs/test_playoff_tcec.py`'s style)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta

import pytest
from builders import T0, created, new_event, recorded, result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events_schema import GENESIS_HASH, Event, Recorded
from events_schema import events as ev
from projections.pairing.base import PairingContext, PairingRefused, context
from projections.pairing.knockout import (
    BRONZE_PAIRS,
    REGULAR_PAIRS,
    Bracket,
    CupGame,
    CupMatch,
    bracket,
    lot_subject,
    propose,
    seeded_lines,
)
from projections.playoffs.tcec_match import match
from projections.standings import StandingsState, evolve, fold

STAGE = "cup"
Script = Callable[[CupMatch, CupGame], str]


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

    def bracket(self) -> Bracket:
        return bracket(self.ctx())


def eng(seed: int) -> str:
    return f"e{seed:02d}"


def cup(size: int = 32, seeds: list[int | None] | None = None) -> Log:
    seeds = seeds if seeds is not None else list(range(1, size + 1))
    return Log(
        [
            created(fmt="cup", rules_preset="tcec-cup", pairing="tcec-cup"),
            *(
                ev.PlayerRegistered(
                    player_id=eng(i + 1), name=f"Engine {i + 1}", kind="engine", seed=s
                )
                for i, s in enumerate(seeds)
            ),
        ]
    )


def reversed_lot(log: Log) -> list[str]:
    """Draw the bracket lot with a known outcome: the unseeded engines, weakest first."""
    proposal = propose(log.ctx())
    (req,) = proposal.lots
    outcome = list(reversed(req.candidates))
    log.append(
        ev.LotDrawn(
            purpose=req.purpose,
            subject=req.subject,
            candidates=list(req.candidates),
            outcome=outcome,
            seed="test",
        )
    )
    return outcome


def schedule(log: Log) -> ev.RoundScheduled:
    proposal = propose(log.ctx())
    assert proposal.round is not None and not proposal.lots
    log.append(proposal.round)
    return proposal.round


def play(log: Log, script: Script) -> None:
    """Enter a result for every pending game, as `script(match, game)` says."""
    b = log.bracket()
    assert b.current is not None
    for m in b.current.matches:
        for g in m.games:
            if g.result is None:
                log.append(result(g.game_id, script(m, g)))


def win_for(pid: str, g: CupGame) -> str:
    return "1-0" if g.white == pid else "0-1"


DRAW = "1/2-1/2"


def run(log: Log, script: Script, max_rounds: int = 400) -> list[ev.RoundScheduled]:
    """Schedule and play rounds until the Cup is decided."""
    rounds = []
    for _ in range(max_rounds):
        try:
            rnd = schedule(log)
        except PairingRefused as e:
            assert e.rule == "tcec-cup.decided", e.message
            return rounds
        rounds.append(rnd)
        play(log, script)
    raise AssertionError("the Cup did not finish")


def higher_seed_wins_last_regular_game(m: CupMatch, g: CupGame) -> str:
    """Draws, except that the higher seed wins the last regular game: every match is played
    in full and decided by its last regular game."""
    return win_for(m.high, g) if g.number == m.regular_games else DRAW


def higher_seed_always_wins(m: CupMatch, g: CupGame) -> str:
    return win_for(m.high, g)


# --- the bracket ----------------------------------------------------------------------------


def test_the_bracket_lot_comes_first() -> None:
    log = cup()
    proposal = propose(log.ctx())
    assert proposal.round is None
    (req,) = proposal.lots
    assert req.purpose == "bracket"
    assert req.subject == lot_subject(STAGE) == "cup bracket"
    assert req.candidates == tuple(eng(s) for s in range(9, 33))  # Cup 2.c.2: the other 24
    assert req.pick is None  # an ordering of them all
    assert "2.c" in req.rule


def test_seeds_1_to_8_equal_distance_and_the_other_24_by_the_lot() -> None:
    log = cup()
    outcome = reversed_lot(log)
    lines = log.bracket().lines
    # Cup 2.c.1: seed s on line bitreverse(s - 1): one per block of 4, 1 and 2 in opposite
    # halves, 1-4 in different quarters.
    expected_seed_lines = [0, 16, 8, 24, 4, 20, 12, 28]
    assert seeded_lines(32) == expected_seed_lines
    for s, line in enumerate(expected_seed_lines, start=1):
        assert lines[line] == eng(s)
    # Cup 2.c.2: the open lines, top to bottom, take the lot's outcome in order.
    open_lines = [i for i in range(32) if i not in expected_seed_lines]
    assert [lines[i] for i in open_lines] == outcome
    assert lines[:6] == ("e01", "e32", "e31", "e30", "e05", "e29")
    assert sorted(lines) == [eng(s) for s in range(1, 33)]  # type: ignore[type-var]


def test_round_1_pairs_the_lines_lower_seed_white_first() -> None:
    log = cup()
    reversed_lot(log)
    lines = log.bracket().lines
    rnd = schedule(log)
    assert (rnd.stage, rnd.round) == (STAGE, 1)
    assert len(rnd.pairings) == 16  # one game for each of the 16 matches
    for k, p in enumerate(rnd.pairings):
        a, b = lines[2 * k], lines[2 * k + 1]
        assert {p.white, p.black} == {a, b}
        assert int(p.white[1:]) > int(p.black[1:])  # Cup 3.b: the lower seed starts White
        assert p.game_id == f"cup-r32-m{k + 1:02d}-g1"
        assert p.pair_id == f"cup-r32-m{k + 1:02d}-p1"
    assert (rnd.pairings[0].white, rnd.pairings[0].black) == ("e32", "e01")


def test_the_second_game_of_a_pair_reverses_colours_with_the_same_pair_and_opening() -> None:
    log = cup()
    reversed_lot(log)
    first = propose(log.ctx()).round
    assert first is not None
    # The arbiter schedules the book exits (Cup 4): the return game must keep them.
    booked = first.model_copy(
        update={
            "pairings": [
                p.model_copy(update={"opening": f"book32-{i}"})
                for i, p in enumerate(first.pairings)
            ]
        }
    )
    log.append(booked)
    play(log, lambda m, g: DRAW)
    second = schedule(log)
    assert second.round == 2
    for p1, p2 in zip(booked.pairings, second.pairings, strict=True):
        assert (p2.white, p2.black) == (p1.black, p1.white)
        assert p2.pair_id == p1.pair_id
        assert p2.opening == p1.opening
        assert p2.game_id.endswith("-g2")


def test_refused_while_a_game_lacks_its_result() -> None:
    log = cup()
    reversed_lot(log)
    rnd = schedule(log)
    for p in rnd.pairings[:-1]:
        log.append(result(p.game_id, DRAW))
    with pytest.raises(PairingRefused) as refused:
        propose(log.ctx())
    assert refused.value.rule == "pairing.round_unfinished"
    assert refused.value.field == "round"
    assert rnd.pairings[-1].game_id in refused.value.message
    log.append(result(rnd.pairings[-1].game_id, DRAW))
    assert propose(log.ctx()).round is not None


# --- matches --------------------------------------------------------------------------------


def test_a_match_stops_once_decided_cup_3a() -> None:
    log = cup()
    reversed_lot(log)

    def script(m: CupMatch, g: CupGame) -> str:
        return win_for(m.high, g) if m.match_id == "r32-m01" else DRAW

    schedule(log)
    play(log, script)
    schedule(log)
    play(log, script)
    # 2-0 with two games left: 4 half-points can still be caught up.
    m01 = log.bracket().rounds[0].matches[0]
    assert m01.winner is None and m01.score == "2–0"
    assert any(p.game_id == "cup-r32-m01-g3" for p in schedule(log).pairings)
    play(log, script)
    # 3-0 with one game left: decided (3.a); game 4 is not scheduled.
    m01 = log.bracket().rounds[0].matches[0]
    assert (m01.winner, m01.decided, m01.decided_after, m01.score) == ("e01", "early", 3, "3–0")
    fourth = schedule(log)
    assert len(fourth.pairings) == 15
    assert all("r32-m01" not in p.game_id for p in fourth.pairings)


def test_tiebreak_pairs_until_one_is_decisive_cup_3d_3e() -> None:
    log = cup()
    reversed_lot(log)
    tied = "r32-m02"

    def script(m: CupMatch, g: CupGame) -> str:
        if m.match_id != tied:
            return win_for(m.high, g)  # decided after 3 games
        if g.number <= 4:
            return DRAW  # 2-2 after the 2 regular pairs
        if g.pair == 3:
            return "1-0"  # tiebreak pair 1: each wins with White, 1-1
        return win_for(m.low, g) if g.number == 8 else DRAW  # pair 2: the lower seed wins

    rounds = [schedule(log)]
    play(log, script)
    for _ in range(3):
        rounds.append(schedule(log))
        play(log, script)
    assert [len(r.pairings) for r in rounds] == [16, 16, 16, 1]  # only m02 plays game 4
    m02 = log.bracket().rounds[0].matches[1]
    assert m02.winner is None and m02.score == "2–2"
    fifth = schedule(log)
    (p5,) = fifth.pairings
    assert p5.game_id == "cup-r32-m02-g5" and p5.pair_id == "cup-r32-m02-p3"
    assert p5.white == m02.low  # Cup 3.b: every pair starts with the lower seed White
    play(log, script)
    (p6,) = schedule(log).pairings
    assert (p6.white, p6.pair_id) == (m02.high, "cup-r32-m02-p3")
    play(log, script)
    m02 = log.bracket().rounds[0].matches[1]
    assert m02.winner is None and m02.score == "3–3"  # tiebreak pair 1 was 1-1
    for n in (7, 8):
        (p,) = schedule(log).pairings
        assert p.game_id == f"cup-r32-m02-g{n}" and p.pair_id == "cup-r32-m02-p4"
        play(log, script)
    m02 = log.bracket().rounds[0].matches[1]
    assert (m02.winner, m02.decided, m02.decided_after) == (m02.low, "tiebreak", 8)
    assert m02.score == "3½–4½"
    # The bracket advances by itself: the round of 16 comes next, with m02's winner.
    r16 = schedule(log)
    assert len(r16.pairings) == 8
    assert any(m02.low in (p.white, p.black) for p in r16.pairings[:1])


def test_the_bracket_advances_by_itself_when_a_round_is_decided() -> None:
    log = cup()
    reversed_lot(log)
    for _ in range(3):
        schedule(log)
        play(log, higher_seed_always_wins)
    first = log.bracket().rounds[0]
    assert first.complete
    winners = [m.winner for m in first.matches]
    r16 = schedule(log)
    assert r16.round == 4
    assert len(r16.pairings) == 8
    for k, p in enumerate(r16.pairings):
        a, b = winners[2 * k], winners[2 * k + 1]
        assert a is not None and b is not None
        assert {p.white, p.black} == {a, b}  # winners of matches 2k-1 and 2k
        assert p.white == max(a, b)  # the lower seed White first (e.g. e05 vs e01)
        assert p.pair_id == f"cup-r16-m{k + 1}-p1"
    # Equal distance (Cup 2.c.1): the top 8 won, each heads a match of the round of 16, in
    # the order that makes the quarter-finals 1-5, 3-7, 2-6, 4-8.
    highs = [m.high for m in log.bracket().rounds[1].matches]
    assert highs == [eng(s) for s in (1, 5, 3, 7, 2, 6, 4, 8)]


def test_every_round_has_its_length_bronze_8_pairs_final_12_pairs() -> None:
    log = cup()
    reversed_lot(log)
    rounds = run(log, higher_seed_wins_last_regular_game)
    b = log.bracket()
    lengths = {r.code: {len(m.games) for m in r.matches} for r in b.rounds}
    # Cup 3.c: 2, 3, 4, 6 pairs; the final 12 and the bronze match 8.
    assert lengths == {"r32": {4}, "r16": {6}, "qf": {8}, "sf": {12}, "final": {24, 16}}
    final, bronze = b.rounds[-1].matches
    assert (final.match_id, final.pairs, len(final.games)) == ("final", 12, 24)
    assert (bronze.match_id, bronze.pairs, len(bronze.games)) == ("bronze", 8, 16)
    assert final.decided == bronze.decided == "regular"
    # The losing semi-finalists meet in the bronze match (Cup 2.e).
    semis = b.rounds[-2].matches
    assert {bronze.high, bronze.low} == {m.loser for m in semis}
    # One game per match per round: 4 + 6 + 8 + 12 + 24 rounds; the final and the bronze
    # match share their first 16 rounds.
    assert len(rounds) == 54
    assert [len(r.pairings) for r in rounds[30:]] == [2] * 16 + [1] * 8
    assert b.final_order == ("e01", "e02", "e03", "e04")
    assert b.champion == "e01"
    # A replay of the log pairs the same way (pure, deterministic).
    again = bracket(context(fold(recorded("t1", log.events)), STAGE))
    assert json.dumps(again.as_dict()) == json.dumps(b.as_dict())


def test_matches_stop_early_when_the_higher_seed_wins_every_game() -> None:
    log = cup()
    reversed_lot(log)
    run(log, higher_seed_always_wins)
    b = log.bracket()
    # Cup 3.a: decided as soon as the margin exceeds what the games left can give:
    # 3 of 4, 4 of 6, 5 of 8, 7 of 12, 9 of 16 (bronze), 13 of 24 (final).
    lengths = {m.match_id: len(m.games) for r in b.rounds for m in r.matches}
    assert {lengths[k] for k in lengths if k.startswith("r32")} == {3}
    assert {lengths[k] for k in lengths if k.startswith("r16")} == {4}
    assert {lengths[k] for k in lengths if k.startswith("qf")} == {5}
    assert {lengths[k] for k in lengths if k.startswith("sf")} == {7}
    assert (lengths["bronze"], lengths["final"]) == (9, 13)
    assert all(m.decided == "early" for r in b.rounds for m in r.matches)
    with pytest.raises(PairingRefused) as refused:
        propose(log.ctx())
    assert refused.value.rule == "tcec-cup.decided"


# --- smaller fields -------------------------------------------------------------------------


def test_a_field_of_16_seeds_8_on_the_even_lines_and_draws_the_rest() -> None:
    log = cup(16)
    (req,) = propose(log.ctx()).lots
    assert req.candidates == tuple(eng(s) for s in range(9, 17))
    outcome = reversed_lot(log)
    lines = log.bracket().lines
    assert [lines[i] for i in (0, 8, 4, 12, 2, 10, 6, 14)] == [eng(s) for s in range(1, 9)]
    assert [lines[i] for i in range(1, 16, 2)] == outcome
    rnd = schedule(log)
    assert len(rnd.pairings) == 8
    assert rnd.pairings[0].pair_id == "cup-r16-m1-p1"
    assert log.bracket().rounds[0].matches[0].pairs == 3  # Cup 3.c: round of 16


def test_a_field_of_8_needs_no_lot_and_starts_with_the_quarter_finals() -> None:
    log = cup(8)
    rnd = schedule(log)  # no lot: all 8 are pre-seeded
    assert [(p.white, p.black) for p in rnd.pairings] == [
        ("e05", "e01"),
        ("e07", "e03"),
        ("e06", "e02"),
        ("e08", "e04"),
    ]
    assert log.bracket().rounds[0].matches[0].pairs == 4
    play(log, higher_seed_wins_last_regular_game)
    rounds = run(log, higher_seed_wins_last_regular_game)
    assert len(rounds) + 1 == 8 + 12 + 24
    assert log.bracket().final_order == ("e01", "e02", "e03", "e04")


# --- refusals -------------------------------------------------------------------------------


def test_a_field_that_is_not_a_power_of_two_is_refused() -> None:
    with pytest.raises(PairingRefused) as refused:
        propose(cup(12).ctx())
    assert (refused.value.rule, refused.value.field) == ("tcec-cup.field", "players")


@pytest.mark.parametrize("seeds", [[1, 2, 3, None], [1, 2, 2, 4]])
def test_missing_or_shared_seeds_are_refused(seeds: list[int | None]) -> None:
    with pytest.raises(PairingRefused) as refused:
        propose(cup(4, seeds).ctx())
    assert (refused.value.rule, refused.value.field) == ("tcec-cup.seeds", "seed")


def test_seeds_rank_the_field_even_when_not_consecutive() -> None:
    log = cup(4, [3, 1, 10, 7])  # e02 is the top seed, then e01, e04, e03
    rnd = schedule(log)
    assert [(p.white, p.black) for p in rnd.pairings] == [("e04", "e02"), ("e03", "e01")]


def test_a_lot_that_does_not_fit_is_refused() -> None:
    log = cup(16)
    log.append(
        ev.LotDrawn(
            purpose="bracket",
            subject=lot_subject(STAGE),
            candidates=[eng(s) for s in range(8, 16)],
            outcome=[eng(s) for s in range(8, 16)],
        )
    )
    with pytest.raises(PairingRefused) as refused:
        propose(log.ctx())
    assert refused.value.rule == "lot.mismatch"


def test_a_game_outside_the_bracket_is_ignored_with_a_note() -> None:
    log = cup(8)
    log.append(
        ev.RoundScheduled(
            round=1,
            stage=STAGE,
            pairings=[ev.Pairing(game_id="stray", white="e01", black="e02")],
        )
    )
    log.append(result("stray", "1-0"))
    b = log.bracket()
    assert any("stray" in n and "not a match" in n for n in b.notes)
    assert all(not m.games for m in b.rounds[0].matches)


# --- one decision: the bracket and the Cup match machine agree ------------------------------

# A game's result seen from the match: the higher seed wins, the lower seed wins, a draw, or a
# double loss ("0-0").
GameOutcome = str
OUTCOMES = ("high", "low", "draw", "none")
# Which matches play the drawn sequence: the first match of the first bracket round of a field
# (Cup 3.c: 2, 3, 4, 6 pairs), or the final (12 pairs) and the bronze match (8) after semi-finals
# the higher seeds win.
KINDS = {"r32": 32, "r16": 16, "qf": 8, "sf": 4, "final+bronze": 4}


def _outcome_result(outcome: GameOutcome, high: str, white: str) -> str:
    if outcome == "draw":
        return DRAW
    if outcome == "none":
        return "0-0"
    winner_white = (white == high) == (outcome == "high")
    return "1-0" if winner_white else "0-1"


def _nth(outcomes: list[GameOutcome], n: int) -> GameOutcome:
    """Game n of the match: the drawn sequence, then the higher seed wins (so every match ends)."""
    return outcomes[n - 1] if n <= len(outcomes) else "high"


Decided = tuple[str, str, int]  # (winner: "high" or "low", how, the game after which)


def _bracket_decisions(kind: str, outcomes: list[GameOutcome]) -> dict[str, Decided]:
    """Play a Cup bracket through `propose` until the matches that play `outcomes` are decided."""
    log = cup(KINDS[kind])
    if KINDS[kind] > 8:
        reversed_lot(log)
    target = 1 if kind == "final+bronze" else 0
    drawn = ("final", "bronze") if target else ("r32-m01", "r16-m1", "qf-m1", "sf-m1")

    def script(m: CupMatch, g: CupGame) -> str:
        if m.match_id in drawn:
            return _outcome_result(_nth(outcomes, g.number), m.high, g.white)
        return win_for(m.high, g)

    b = log.bracket()
    while not (len(b.rounds) > target and b.rounds[target].complete):
        schedule(log)
        play(log, script)
        b = log.bracket()
    played = [m for m in b.rounds[target].matches if m.match_id in drawn]
    out: dict[str, Decided] = {}
    for m in played:
        assert m.winner is not None and m.decided is not None and m.decided_after is not None
        # One game at a time: nothing was scheduled for the match after its deciding game.
        assert len(m.games) == m.decided_after
        out[m.match_id] = ("high" if m.winner == m.high else "low", m.decided, m.decided_after)
    return out


def _machine_decision(pairs: int, outcomes: list[GameOutcome]) -> Decided:
    """Drive the `tcec-cup` match machine (Cup 3) with the same games: schedule what it asks
    for, enter the results it asks for, until it asks for nothing."""
    log = Log(
        [
            created(fmt="match", rounds=2 * pairs, rules_preset="tcec-cup"),
            ev.PlayerRegistered(player_id="hi", name="Higher seed", kind="engine", seed=1),
            ev.PlayerRegistered(player_id="lo", name="Lower seed", kind="engine", seed=2),
        ]
    )
    regular = 2 * pairs
    entered = 0
    view = match(log.state)
    for _ in range(400):
        if not view.required_next:
            break
        for req in view.required_next:
            if req.kind == "schedule":
                first = req.games[0]
                log.append(
                    ev.RoundScheduled(
                        round=first.round,
                        stage=first.stage,
                        pairings=[
                            ev.Pairing(
                                game_id=g.game_id,
                                white=g.white,
                                black=g.black,
                                pair_id=g.pair_id,  # type: ignore[attr-defined]
                            )
                            for g in req.games
                        ],
                    )
                )
            else:
                assert req.kind == "results", req
                for g in req.games:
                    extra = g.stage.removeprefix("extra-pair-")
                    n = g.round if g.stage == "main" else regular + 2 * (int(extra) - 1) + g.round
                    entered += 1
                    assert n == entered  # one game's result at a time, in match order
                    log.append(result(g.game_id, _outcome_result(_nth(outcomes, n), "hi", g.white)))
        view = match(log.state)
    assert view.status == "decided", view.notes
    (winner,), _ = view.final_order
    how = "tiebreak" if len(view.stages) > 1 else "early" if entered < regular else "regular"
    return ("high" if winner == "hi" else "low", how, entered)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(sorted(KINDS)),
    outcomes=st.lists(st.sampled_from(OUTCOMES), max_size=36),
)
@pytest.mark.slow
def test_the_bracket_and_the_cup_match_machine_decide_alike(
    kind: str, outcomes: list[GameOutcome]
) -> None:
    """Cup 3.a/3.d/3.e are read once (`tcec_match.cup_decision`): for any games, a bracket match
    and the `tcec-cup` match machine of the same length agree on the winner, on how, and on the
    game after which the match was decided."""
    decided = _bracket_decisions(kind, outcomes)
    assert decided
    lengths = {"final": REGULAR_PAIRS[2], "bronze": BRONZE_PAIRS}
    for match_id, got in decided.items():
        pairs = lengths.get(match_id, REGULAR_PAIRS[KINDS[kind]])
        assert got == _machine_decision(pairs, outcomes), (match_id, pairs)


@pytest.mark.parametrize(
    ("pairs", "outcomes", "expected"),
    [
        # Cup 3.a: 3-0 with one game of 2 pairs left cannot be caught.
        (2, ["high", "high", "high"], ("high", "early", 3)),
        # A win then three draws: 1-0 is never out of reach before the last regular game.
        (2, ["low", "draw", "draw", "draw"], ("low", "regular", 4)),
        # Level (double losses count nothing), a 1-1 tiebreak pair, then a decisive pair.
        (2, ["none", "none", "draw", "draw", "high", "low", "draw", "low"], ("low", "tiebreak", 8)),
        # Final (12 pairs): 13 straight wins are needed before the 24 games are up.
        (12, ["high"] * 13, ("high", "early", 13)),
    ],
)
def test_worked_cup_decisions(pairs: int, outcomes: list[GameOutcome], expected: Decided) -> None:
    assert _machine_decision(pairs, outcomes) == expected
    assert _machine_decision(pairs, [*outcomes, "low", "low"]) == expected  # later games: moot
