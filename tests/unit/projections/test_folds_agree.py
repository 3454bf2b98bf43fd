"""The decider's fold and the standings fold read every log alike.

Two folds keep "the facts in force" of a tournament: `projections.tournament.evolve` (what the
decider checks against) and `projections.standings.state` (what the ranking is built from).
On every generated log they must agree on: which games exist with which players (stage and
round too), whether each game has started, the result and the moves in force per game, the
byes, the registered players and their withdrawals, and the unreadable events holding the
tournament. Neither may raise on any log.

The logs are of two kinds: tournaments driven through `decide` (what the command path
stores), and raw logs that `decide` never saw (old or hand-made histories): repeated
`RoundScheduled` of one round or of the same game ids, second registrations, withdrawals of
unknown players, starts of started games, moves and results for any game, corrections of any
event, retractions of anything (GameStarted, moves, results, corrections, rounds,
registrations, withdrawals, retractions, unreadable events, ids never stored), unreadable
events, and redeliveries of earlier records. Where the folds once disagreed the decider's
reading was chosen (see the docstring of `projections/tournament/evolve.py`).
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest
from builders import ADMIN, T0, created, eid, new_event
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_properties import Play, plays

from events_schema import GENESIS_HASH, Event, Recorded
from events_schema import events as ev
from projections import standings
from projections.tournament import TournamentState
from projections.tournament import fold as tournament_fold
from services.eventlog.base import NewEvent

pytestmark = pytest.mark.slow  # make test-fast leaves it out


TID = "agree-t1"
POOL = ["a", "b", "c", "d"]
GAMES = ["g1", "g2", "g3"]
UCI = ["e2e4", "e7e5", "g1f3", "a1a8"]
TYPES_FOR_UNREADABLE = ["GameEnded", "RoundScheduled", "MovePlayed", "FutureEvent"]

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# --- the two views ----------------------------------------------------------------------------


def tournament_view(s: TournamentState) -> dict[str, Any]:
    return {
        "games": {
            gid: {
                "where": (g.stage, g.round),
                "players": (g.white, g.black),
                "started": g.started,
                "result": (g.result.result, g.result.termination) if g.result else None,
                "moves": list(g.moves),
            }
            for gid, g in s.games.items()
        },
        "byes": sorted((k[0], k[1], pid) for k, pids in s.byes.items() for pid in pids),
        "players": {
            pid: (p.withdrawn, p.withdrawn_from_round) for pid, p in sorted(s.players.items())
        },
        "unreadable": sorted(s.unreadable),
    }


def standings_view(s: standings.StandingsState) -> dict[str, Any]:
    withdrawn = {pid: rnd for pid, rnd in s.withdrawals.values() if pid in s.players}
    return {
        "games": {
            gid: {
                "where": (g.stage, g.round),
                "players": (g.white, g.black),
                "started": g.started,
                "result": tuple(g.results[-1][2:]) if g.results else None,
                "moves": list(g.moves),
            }
            for gid, g in s.games.items()
        },
        "byes": sorted(
            (b.stage, b.round, b.player_id) for _, byes in s.rounds.values() for b in byes
        ),
        "players": {pid: (pid in withdrawn, withdrawn.get(pid)) for pid in sorted(s.players)},
        "unreadable": sorted(s.unreadable),
    }


def assert_agree(records: list[Recorded]) -> None:
    t = tournament_view(tournament_fold(records))
    s = standings_view(standings.fold(records))
    for key in t:
        assert t[key] == s[key], key
    # Folding step by step (each event delivered twice) gives the same facts.
    doubled = [r for rec in records for r in (rec, rec)]
    assert tournament_view(tournament_fold(doubled)) == t
    assert standings_view(standings.fold(doubled)) == s


# --- raw logs -----------------------------------------------------------------------------------


def _seal(items: list[Event | NewEvent]) -> list[Recorded]:
    """Seq 1..n on one hash chain; event ids are eid(seq), so a log can name its own events
    by position. A `NewEvent` stands for a stored event no reader can decode."""
    out, prev = [], GENESIS_HASH
    for seq, item in enumerate(items, start=1):
        new = item if isinstance(item, NewEvent) else new_event(item, seq)
        env = new.sealed(TID, seq, prev, T0 + timedelta(seconds=seq))
        prev = env.hash
        out.append(Recorded(env, item) if isinstance(item, Event) else Recorded.of(env))
    return out


def _unreadable(seq: int, type_: str) -> NewEvent:
    return NewEvent(
        event_id=eid(seq),
        type=type_,
        schema_version=1,
        occurred_at=T0,
        actor=ADMIN,
        payload={"game_id": "g1", "nonsense": True},
    )


@st.composite
def raw_logs(draw: Any, max_steps: int = 40) -> list[Recorded]:
    items: list[Event | NewEvent] = [created(game=draw(st.sampled_from(["chess", "go"])))]
    pid, gid = st.sampled_from(POOL), st.sampled_from(GAMES)
    for _ in range(draw(st.integers(0, max_steps))):
        seq = len(items) + 1
        earlier = st.integers(1, len(items)).map(eid)
        target = earlier | st.just(uuid.UUID(int=10**9))  # sometimes an id never stored
        kind = draw(
            st.sampled_from(
                ["register"] * 2
                + ["withdraw", "round", "round", "start", "move", "move", "move"]
                + ["end", "end", "correct", "retract", "retract", "retract", "unreadable"]
                + ["recreate"]
            )
        )
        item: Event | NewEvent
        match kind:
            case "register":
                item = ev.PlayerRegistered(player_id=draw(pid), name="P")
            case "withdraw":
                item = ev.PlayerWithdrew(
                    player_id=draw(pid), from_round=draw(st.none() | st.integers(1, 3))
                )
            case "round":
                pairs = draw(st.lists(st.tuples(gid, pid, pid), max_size=2))
                byes = draw(st.lists(pid, max_size=1))
                item = ev.RoundScheduled(
                    round=draw(st.integers(1, 2)),
                    stage=draw(st.sampled_from(["main", "playoff"])),
                    pairings=[ev.Pairing(game_id=g, white=w, black=b) for g, w, b in pairs],
                    byes=[ev.Bye(player_id=p) for p in byes],
                )
            case "start":
                fen = draw(st.sampled_from([None, "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1"]))
                item = ev.GameStarted(game_id=draw(gid), fen=fen)
            case "move":
                uci = draw(st.sampled_from(UCI))
                item = ev.MovePlayed(game_id=draw(gid), ply=1, colour="white", uci=uci)
            case "end":
                item = ev.GameEnded(
                    game_id=draw(gid),
                    result=draw(st.sampled_from(["1-0", "0-1", "1/2-1/2", "0-0"])),
                    termination="agreement",
                )
            case "correct":
                item = ev.ResultCorrected(
                    corrects_event_id=draw(target),
                    game_id=draw(gid),
                    result=draw(st.sampled_from(["1-0", "0-1", "1/2-1/2"])),
                    termination="arbiter_decision",
                    reason="scoresheet",
                )
            case "retract":
                item = ev.EventRetracted(retracted_event_id=draw(target), reason="mistake")
            case "unreadable":
                item = _unreadable(seq, draw(st.sampled_from(TYPES_FOR_UNREADABLE)))
            case _:
                item = created()
        items.append(item)
    records = _seal(items)
    # Redeliveries: some earlier records delivered again further on (a consumer re-reading
    # from an older offset); both folds skip a seq already applied.
    for _ in range(draw(st.integers(0, 3))):
        if records:
            at = draw(st.integers(0, len(records)))
            again = draw(st.integers(0, len(records) - 1))
            records.insert(at, records[again])
    return records


# --- the property -----------------------------------------------------------------------------


def _log(*items: Event | NewEvent) -> list[Recorded]:
    return _seal([created(), ev.PlayerRegistered(player_id="a", name="A"), *items])


@SETTINGS
@given(raw_logs())
@example(  # a repeated round (and its retraction) -- seq 3 is the first, 5 the repeat
    _log(
        ev.PlayerRegistered(player_id="b", name="B"),
        ev.RoundScheduled(round=1, pairings=[ev.Pairing(game_id="g1", white="a", black="b")]),
        ev.RoundScheduled(
            round=1,
            pairings=[ev.Pairing(game_id="g2", white="b", black="a")],
            byes=[ev.Bye(player_id="a")],
        ),
        ev.EventRetracted(retracted_event_id=eid(5), reason="sent twice"),
    )
)
@example(  # a second registration retracted; a withdrawal repeated, then one retracted
    _log(
        ev.PlayerRegistered(player_id="a", name="A again"),
        ev.EventRetracted(retracted_event_id=eid(3), reason="duplicate"),
        ev.PlayerWithdrew(player_id="a", from_round=2),
        ev.PlayerWithdrew(player_id="a", from_round=3),
        ev.EventRetracted(retracted_event_id=eid(6), reason="duplicate"),
    )
)
@example(  # un-starting a game with a move in force; a restart of a started game
    _log(
        ev.PlayerRegistered(player_id="b", name="B"),
        ev.RoundScheduled(round=1, pairings=[ev.Pairing(game_id="g1", white="a", black="b")]),
        ev.GameStarted(game_id="g1"),
        ev.MovePlayed(game_id="g1", ply=1, colour="white", uci="e2e4"),
        ev.GameStarted(game_id="g1", fen="4k3/8/8/8/8/8/4P3/4K3 b - - 0 1"),
        ev.EventRetracted(retracted_event_id=eid(5), reason="wrong board"),
    )
)
@example(  # a result retracted after its round was retracted (standings used to raise)
    _log(
        ev.PlayerRegistered(player_id="b", name="B"),
        ev.RoundScheduled(round=1, pairings=[ev.Pairing(game_id="g1", white="a", black="b")]),
        ev.GameEnded(game_id="g1", result="1-0", termination="agreement"),
        ev.EventRetracted(retracted_event_id=eid(4), reason="wrong round"),
        ev.EventRetracted(retracted_event_id=eid(5), reason="wrong result"),
    )
)
def test_the_two_folds_agree_on_raw_logs(records: list[Recorded]) -> None:
    assert_agree(records)


@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
@given(plays())
def test_the_two_folds_agree_on_decided_tournaments(play: Play) -> None:
    assert_agree(play.records)


def test_a_repeated_round_is_ignored_by_both_folds() -> None:
    """The decider refuses a second RoundScheduled of a round (round.duplicate), so neither
    fold gives it an effect: not its games, not its byes; retracting it leaves the first."""
    records = _log(
        ev.PlayerRegistered(player_id="b", name="B"),
        ev.RoundScheduled(round=1, pairings=[ev.Pairing(game_id="g1", white="a", black="b")]),
        ev.RoundScheduled(
            round=1,
            pairings=[ev.Pairing(game_id="g2", white="b", black="a")],
            byes=[ev.Bye(player_id="a")],
        ),
        ev.EventRetracted(retracted_event_id=eid(5), reason="sent twice"),
    )
    assert list(tournament_fold(records).games) == ["g1"]
    table = standings.fold(records)
    assert list(table.games) == ["g1"] and [b for _, b in table.rounds.values()] == [[]]
