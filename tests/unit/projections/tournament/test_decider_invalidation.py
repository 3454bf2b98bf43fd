"""TCEC Swiss 7.d: a wrong automated pairing made after an unpaused crash is invalidated with
the games already played on it, as events: a ruling names the round, then its retraction is
accepted although games were played; both folds drop the round and its games."""

from __future__ import annotations

import pytest
from builders import created, player, recorded, result, round_

from events_schema import Event
from events_schema import events as ev
from projections.rejection import Rejected
from projections.standings import fold as standings_fold
from projections.standings import standings
from projections.tournament import decide, fold

RULE = "tcec-rules Swiss 7.d"


def _history() -> list[Event]:
    return [
        created(fmt="swiss", rules_preset="tcec-swiss"),
        *[player(p, kind="engine") for p in "abcd"],
        round_(1, ("g1", "a", "b"), ("g2", "c", "d")),  # seq 6
        result("g1", "1-0"),
        result("g2", "1/2-1/2"),
        round_(2, ("g3", "a", "c"), ("g4", "b", "d")),  # seq 9: the wrong pairing
        result("g3", "1-0"),  # played on it
    ]


def _ids(events: list[Event]):
    return [r.envelope.event_id for r in recorded("t1", events)]


def _ruling(round_id, rule: str = RULE) -> ev.RulingIssued:
    return ev.RulingIssued(
        ruling_id="sd-7d",
        by="TCEC organisers",
        subject="round 2 pairing",
        rule=rule,
        text="the server crashed during round 1 and the tournament was not paused",
        decision={"invalidates_round": str(round_id)},
    )


def test_a_played_round_cannot_be_retracted_without_the_ruling():
    events = _history()
    r2 = _ids(events)[8]
    with pytest.raises(Rejected) as info:
        decide(fold(recorded("t1", events)), ev.EventRetracted(retracted_event_id=r2, reason="x"))
    assert info.value.rule == "retraction.round_in_play"


def test_the_ruling_then_the_retraction_invalidate_the_round_and_its_games():
    events = _history()
    r2 = _ids(events)[8]
    ruling = _ruling(r2)
    assert decide(fold(recorded("t1", events)), ruling) == [ruling]
    retract = ev.EventRetracted(retracted_event_id=r2, reason="Swiss 7.d: invalidated")
    events = [*events, ruling]
    assert decide(fold(recorded("t1", events)), retract) == [retract]
    events = [*events, retract]
    state = fold(recorded("t1", events))
    assert ("main", 2) not in state.rounds and "g3" not in state.games
    table = standings(standings_fold(recorded("t1", events)))
    a = next(r for r in table.rows if r.player_id == "a")
    assert a.played == 1  # g3 no longer counts; the round can be paired again
    again = round_(2, ("g5", "a", "d"), ("g6", "b", "c"))
    assert decide(state, again) == [again]


def test_the_ruling_must_cite_7d_name_a_round_and_not_come_while_paused():
    events = _history()
    ids = _ids(events)
    state = fold(recorded("t1", events))
    with pytest.raises(Rejected) as info:
        decide(state, _ruling(ids[6]))  # a GameEnded, not a round
    assert info.value.rule == "ruling.invalid_round"
    paused = [*events, ev.TournamentPaused(reason="server crash")]
    with pytest.raises(Rejected) as info:
        decide(fold(recorded("t1", paused)), _ruling(ids[8]))
    assert info.value.rule == "ruling.tournament_paused"
    # a ruling citing another article does not open the round
    other = _ruling(ids[8], rule="organisers' decision")
    state = fold(recorded("t1", [*events, other]))
    with pytest.raises(Rejected) as info:
        decide(state, ev.EventRetracted(retracted_event_id=ids[8], reason="x"))
    assert info.value.rule == "retraction.round_in_play"
