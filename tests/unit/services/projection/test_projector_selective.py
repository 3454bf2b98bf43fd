"""A move costs what it changes (issue 27 item 3): the projector builds only the documents the
events since its last publication can change (`projections.documents.affected`), and what it
publishes is byte for byte what the full rebuild publishes.

The property: on generated logs (chess Swiss, TCEC league with r-mobility, Go McMahon with
OpenGotha's unentered results; starts with stones, moves, clocks, illegal moves, disturbed
positions, colour errors, results, corrections, retractions of anything, moves after a result,
unreadable events, redeliveries and every other event type), a selective projector and a full
one (`selective=False`) publish the same messages after every event, and in batches; and what
the selective one last published is what a fresh replay of the log gives.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest
from builders import ADMIN, T0, created, eid, new_event, player, recorded, result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events_schema import EVENT_TYPES, GENESIS_HASH, Envelope, Event
from events_schema import events as ev
from events_schema.codec import dumps, loads
from events_schema.go import GoSettings
from projections import documents as docs
from projections.documents import AFFECTS, EVERY, GAMES, NOTHING, PROJECTIONS, affected
from projections.standings import incremental
from projections.standings import state as standings_state
from services.eventlog.base import NewEvent
from services.projection import projector as projector_module
from services.projection.projector import Projector, message_bytes, replay

TID = "sel-t1"
PIDS = ["a", "b", "c", "d", "e"]
GAMES_IDS = ["g1", "g2", "g3", "g4"]
CHESS_LINE = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1", "f8e7"]
GO_POINTS = ["D4", "Q16", "D16", "Q4", "C3", "R17", "pass"]
RANKS = ["10k", "5k", "1k", "2d", "4d"]

#: The events no case below builds by hand, from payloads their models accept (the MINIMAL of
#: tests/fuzz/test_nasty_inputs.py, on this log's games and players).
RARE: dict[str, dict[str, Any]] = {
    "SeriesCreated": {"name": "Tour"},
    "LotDrawn": {"purpose": "colours", "candidates": ["a", "b"], "outcome": ["b", "a"]},
    "EngineCrashed": {"game_id": "g1", "player_id": "a"},
    "ServerInterrupted": {"game_id": "g1", "ply": 3, "moves_completed": 1, "pieces_on_board": 32},
    "AdjudicationIssued": {"game_id": "g1", "rule": "TCEC 7.b", "outcome": "1/2-1/2"},
    "SanctionIssued": {"player_id": "a", "level": "warning", "rule": "LGC 3"},
    "AppealFiled": {"appeal_id": "ap1", "filed_by": "a", "grounds": "clock"},
    "AppealDecided": {"appeal_id": "ap1", "decision": "rejected", "text": "no"},
    "RulingIssued": {"ruling_id": "r", "by": "chief", "subject": "s", "text": "t"},
    "TournamentPaused": {"reason": "server"},
    "GoStatusAgreed": {"game_id": "g1"},
    "GoStatusDisputed": {"game_id": "g2"},
    "RoundSkipped": {"player_id": "a", "round": 2},
    "PlayerArrived": {"game_id": "g1", "player_id": "a", "at": "2026-11-24T10:31:00+00:00"},
    "ClockPaused": {"game_id": "g1", "circumstance": 5},
    "BroadcastDelaySet": {"seconds": 30},
    "PairingsProhibited": {"players": ["a", "b"]},
    "AccelerationSet": {},
    "TrfRecordsKept": {},
    "ClockResumed": {"game_id": "g1"},
    "ClockStarted": {"game_id": "g2", "at": "2026-11-24T10:20:00+00:00"},
    "AppealsCommitteeFormed": {"members": ["a", "Referee", "TD"]},
    "ProtestStated": {"game_id": "g1", "player_id": "a"},
    "TournamentResumed": {},
}
BY_HAND = {
    "TournamentCreated",
    "PlayerRegistered",
    "PlayerWithdrew",
    "RoundScheduled",
    "GameStarted",
    "MovePlayed",
    "ClockReported",
    "ClockSet",
    "GameEnded",
    "IllegalMoveNoticed",
    "PositionDisturbed",
    "ColourErrorNoticed",
    "ResultCorrected",
    "EventRetracted",
}


def _seal(items: list[Event | NewEvent]) -> list[Envelope]:
    """Seq 1..n on one hash chain, event ids eid(seq); a `NewEvent` is a stored event no
    reader can decode."""
    out, prev = [], GENESIS_HASH
    for seq, item in enumerate(items, start=1):
        new = item if isinstance(item, NewEvent) else new_event(item, seq)
        env = new.sealed(TID, seq, prev, T0 + timedelta(seconds=seq))
        prev = env.hash
        out.append(env)
    return out


def _head(draw: st.DrawFn) -> tuple[bool, list[Event]]:
    kind = draw(st.sampled_from(["swiss", "league", "go"]))
    if kind == "swiss":
        return False, [created(fmt="swiss", rounds=3)]
    if kind == "league":
        return False, [created(fmt="league", rounds=3, rules_preset="tcec-league")]
    go = GoSettings(
        unentered_results=draw(st.sampled_from(["not_counted", "opengotha"])),
        hide_players_never_paired=draw(st.booleans()),
    )
    return True, [ev.TournamentCreated(name="Go", game="go", format="mcmahon", rounds=3, go=go)]


@st.composite
def live_logs(draw: st.DrawFn, max_steps: int = 45) -> list[Envelope]:
    go, items = _head(draw)
    items = [*items]
    pid, gid = st.sampled_from(PIDS), st.sampled_from(GAMES_IDS)
    for i, p in enumerate(PIDS[: draw(st.integers(2, len(PIDS)))]):
        items.append(
            ev.PlayerRegistered(player_id=p, name=p.upper(), go_rank=RANKS[i] if go else None)
        )
    here = PIDS[: len(items) - 1]
    if draw(st.integers(0, 4)):  # mostly a first round paired before play begins
        pairs = [(f"g{i + 1}", here[2 * i], here[2 * i + 1]) for i in range(len(here) // 2)]
        items.append(
            ev.RoundScheduled(
                round=1,
                pairings=[ev.Pairing(game_id=g, white=w, black=b) for g, w, b in pairs],
                byes=[ev.Bye(player_id=here[-1])] if len(here) % 2 else [],
            )
        )
    plies: dict[str, int] = {}
    for _ in range(draw(st.integers(0, max_steps))):
        seq = len(items) + 1
        target = st.integers(1, len(items)).map(eid) | st.just(uuid.UUID(int=10**9))
        kind = draw(
            st.sampled_from(
                ["round"] * 3
                + ["start"] * 2
                + ["move"] * 8
                + ["clock"] * 2
                + ["end"] * 3
                + ["register", "withdraw", "illegal", "disturbed", "colour", "correct"]
                + ["retract"] * 2
                + ["rare", "rare"]
                + ["unreadable"] * draw(st.integers(0, 1))
            )
        )
        item: Event | NewEvent
        match kind:
            case "register":
                item = ev.PlayerRegistered(player_id=draw(pid), name="Late", go_rank="3k")
            case "withdraw":
                item = ev.PlayerWithdrew(
                    player_id=draw(pid), from_round=draw(st.none() | st.integers(1, 3))
                )
            case "round":
                pairs = draw(st.lists(st.tuples(gid, pid, pid), max_size=3))
                item = ev.RoundScheduled(
                    round=draw(st.integers(1, 3)),
                    stage=draw(st.sampled_from(["main", "main", "playoff"])),
                    pairings=[
                        ev.Pairing(
                            game_id=g,
                            white=w,
                            black=b,
                            handicap=draw(st.integers(0, 3)) if go else 0,
                        )
                        for g, w, b in pairs
                    ],
                    byes=[ev.Bye(player_id=p) for p in draw(st.lists(pid, max_size=1))],
                )
            case "start":
                item = ev.GameStarted(
                    game_id=draw(gid), handicap=draw(st.integers(0, 4)) if go else 0
                )
            case "move":
                g = draw(gid)
                ply = plies[g] = plies.get(g, 0) + 1
                colour = "white" if ply % 2 else "black"
                if go:
                    point = GO_POINTS[(ply - 1) % len(GO_POINTS)]
                    item = ev.MovePlayed(game_id=g, ply=ply, colour=colour, point=point)
                else:
                    uci = CHESS_LINE[(ply - 1) % len(CHESS_LINE)]
                    item = ev.MovePlayed(
                        game_id=g,
                        ply=ply,
                        colour=colour,
                        uci=uci,
                        clock_ms=draw(st.none() | st.integers(0, 90_000)),
                        eval_cp=draw(st.none() | st.integers(-300, 300)),
                    )
            case "clock":
                ms = draw(st.integers(0, 90_000))
                if draw(st.booleans()):
                    item = ev.ClockReported(game_id=draw(gid), white_ms=ms, black_ms=ms + 1)
                else:
                    item = ev.ClockSet(
                        game_id=draw(gid), reason="clock_replaced", white_ms=ms, black_ms=ms
                    )
            case "illegal":
                item = ev.IllegalMoveNoticed(
                    game_id=draw(gid),
                    ply=draw(st.integers(1, 4)),
                    noticed_by="referee",
                    unwound=draw(st.booleans()),
                )
            case "disturbed":
                item = ev.PositionDisturbed(
                    game_id=draw(gid),
                    procedure=draw(st.sampled_from(["correct", "unwind", "restart"])),
                    to_ply=draw(st.none() | st.integers(0, 3)),
                )
            case "colour":
                item = ev.ColourErrorNoticed(
                    game_id=draw(gid),
                    black=draw(pid),
                    restarted=draw(st.booleans()),
                    handicap=draw(st.integers(0, 3)) if go else 0,
                )
            case "end":
                res = draw(st.sampled_from(["1-0", "0-1", "1/2-1/2", "1/2-1/2", "0-0"]))
                item = result(draw(gid), res, "forfeit" if res == "0-0" else "agreement")
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
                item = NewEvent(
                    event_id=eid(seq),
                    type=draw(st.sampled_from(["GameEnded", "MovePlayed", "FutureEvent"])),
                    schema_version=1,
                    occurred_at=T0,
                    actor=ADMIN,
                    payload={"game_id": "g1", "nonsense": True},
                )
                if draw(st.booleans()):  # retracted at once: the tournament is published again
                    items.append(item)
                    item = ev.EventRetracted(retracted_event_id=eid(seq), reason="unreadable")
            case _:
                type_ = draw(st.sampled_from(sorted(RARE)))
                item = EVENT_TYPES[type_].model_validate(RARE[type_])
        items.append(item)
    envs = _seal(items)
    for _ in range(draw(st.integers(0, 3))):  # redeliveries of earlier records
        again = draw(st.integers(0, len(envs) - 1))
        envs.insert(draw(st.integers(again + 1, len(envs))), envs[again])
    return envs


def _pair(names: tuple[str, ...]) -> tuple[Projector, Projector]:
    return Projector(projections=names), Projector(projections=names, selective=False)


def _outcome(p: Projector) -> tuple[dict[str, str], dict[tuple[str, str], bytes]]:
    return dict(p.failed), dict(p.published)


PROJECTION_SETS = st.sampled_from([PROJECTIONS, *((n,) for n in PROJECTIONS)])
SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.slow
@SETTINGS
@given(envs=live_logs(), names=PROJECTION_SETS)
def test_selective_publishes_what_the_full_rebuild_publishes_event_by_event(
    envs: list[Envelope], names: tuple[str, ...]
) -> None:
    selective, full = _pair(names)
    for env in envs:
        got, want = selective.run([env]), full.run([env])
        assert got == want, f"seq {env.seq} ({env.type})"
        assert [m.body for m in got] == [m.body for m in want]
        assert all(m.body == dumps(loads(m.body)) for m in got)  # canonical bytes
    assert _outcome(selective) == _outcome(full)
    # The bytes it kept without rebuilding are the ones a fresh replay of the log gives.
    state = selective.states.get(TID)
    if state is not None and state.created and not state.unreadable and not selective.failed:
        snap = replay(envs, TID)
        for name in names:
            data = dumps(loads(snap[name])["data"])
            assert selective.published[(TID, name)] == data, name


@pytest.mark.slow
@SETTINGS
@given(envs=live_logs(), cuts=st.lists(st.integers(1, 8), min_size=1, max_size=30))
def test_selective_publishes_what_the_full_rebuild_publishes_in_batches(
    envs: list[Envelope], cuts: list[int]
) -> None:
    selective, full = _pair(PROJECTIONS)
    i = 0
    for n in cuts * (1 + len(envs) // max(1, sum(cuts))):
        batch = envs[i : i + n]
        if not batch:
            break
        assert selective.run(batch) == full.run(batch), f"batch at {i}"
        i += n
    assert _outcome(selective) == _outcome(full)


def test_every_event_type_is_generated() -> None:
    assert set(RARE) | BY_HAND == set(EVENT_TYPES)


# -- worked examples ---------------------------------------------------------------------------


def _live() -> list[Envelope]:
    """Two players, round 1 paired, g1 started and one move played."""
    evs: list[Event] = [
        created(fmt="swiss", rounds=3),
        player("a", 2100),
        player("b", 2000),
        ev.RoundScheduled(round=1, pairings=[ev.Pairing(game_id="g1", white="a", black="b")]),
        ev.GameStarted(game_id="g1"),
        ev.MovePlayed(game_id="g1", ply=1, colour="white", uci="e2e4", clock_ms=59_000),
        ev.MovePlayed(game_id="g1", ply=2, colour="black", uci="e7e5", clock_ms=58_000),
        ev.ClockReported(game_id="g1", white_ms=57_000, black_ms=58_000),
        result("g1", "1-0", "resignation"),
    ]
    return [r.envelope for r in recorded(TID, evs)]


class _Spy:
    """`documents` as the projector calls it, recording which documents each call builds."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[tuple[str, ...]] = []
        real = projector_module.documents

        def spy(*args: Any, **kw: Any) -> dict[str, dict[str, Any]]:
            out = real(*args, **kw)
            self.calls.append(tuple(out))
            return out

        monkeypatch.setattr(projector_module, "documents", spy)


def test_a_move_builds_and_publishes_the_games_document_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    envs = _live()
    p = Projector()
    p.run(envs[:5])  # created .. started
    spy = _Spy(monkeypatch)
    msgs = p.run([envs[5]])  # the first move
    assert [m.projection for m in msgs] == ["games"]
    assert spy.calls == [("games",)]
    assert [m.projection for m in p.run(envs[6:8])] == ["games"]  # a move and a clock reading
    assert spy.calls[-1] == ("games",)
    # The result reaches the table and every document reading it.
    assert {m.projection for m in p.run([envs[8]])} >= {"standings", "tiebreaks", "games"}
    assert spy.calls[-1] == PROJECTIONS


def test_a_processor_builds_only_its_own_document(monkeypatch: pytest.MonkeyPatch) -> None:
    envs = _live()
    standings_only = Projector(projections=("standings",))
    standings_only.run(envs[:5])
    spy = _Spy(monkeypatch)
    assert standings_only.run(envs[5:8]) == []  # two moves and a clock: nothing to build
    assert spy.calls == []
    assert [m.projection for m in standings_only.run([envs[8]])] == ["standings"]
    assert spy.calls == [("standings",)]


def test_published_bytes_set_from_outside_are_rebuilt(monkeypatch: pytest.MonkeyPatch) -> None:
    """A processor reads its output topic back into `published` on assignment: a document
    whose bytes there differ from the fold's is published again, even after a move."""
    envs = _live()
    p = Projector()
    p.run(envs[:5])
    p.published[(TID, "standings")] = b'{"rows":[]}'
    spy = _Spy(monkeypatch)
    msgs = p.run([envs[5]])
    assert [m.projection for m in msgs] == ["standings", "games"]
    assert spy.calls == [("standings", "games")]


def test_a_restored_tournament_builds_every_document(monkeypatch: pytest.MonkeyPatch) -> None:
    envs = _live()
    p = Projector()
    p.run(envs[:5])
    state, positioned = p.export_tournament(TID)
    p.restore_tournament(TID, state, positioned)
    spy = _Spy(monkeypatch)
    p.run([envs[5]])
    assert spy.calls == [PROJECTIONS]


def test_a_move_on_a_game_with_a_result_can_change_every_document() -> None:
    """TCEC r-mobility and the average-moves criteria read the moves of a game with a result
    (TCEC Leagues 11.1.3): such a move (a log the decider would refuse, or an import) is not
    a live move."""
    envs = _live()
    p = Projector()
    p.run(envs)
    state = p.states[TID]
    late = ev.MovePlayed(game_id="g1", ply=3, colour="white", uci="g1f3")
    assert affected(late, state) == EVERY
    assert affected(ev.MovePlayed(game_id="g9", ply=1, colour="white", uci="e2e4"), state) == EVERY
    live = ev.ClockReported(game_id="g1", white_ms=1, black_ms=1)
    assert affected(live, standings_state.StandingsState()) == EVERY  # no such game
    assert affected(ev.TournamentPaused(reason="server"), state) == NOTHING
    assert affected(ev.EventRetracted(retracted_event_id=eid(6), reason="x"), state) == EVERY


def test_the_mapping_agrees_with_the_folds() -> None:
    """A type that changes no document is one the standings fold does not read; a type that
    changes the games document only is one the incremental standings leave the table alone for
    while its game has no result."""
    folded = standings_state.folded_types()
    for cls, kinds in AFFECTS.items():
        if kinds == NOTHING:
            assert cls not in folded, cls.__name__
        else:
            assert kinds is GAMES, cls.__name__
            assert issubclass(cls, incremental.GAME_PROGRESS + incremental.CLOCKS), cls.__name__


def test_a_message_is_its_document_serialised_once() -> None:
    envs = _live()
    p = Projector()
    p.run(envs)
    state = p.states[TID]
    for doc in docs.documents(state, TID).values():
        assert message_bytes(doc, dumps(doc["data"])) == dumps(doc)
    assert message_bytes({"data": [1]}, b"[1]") == b'{"data":[1]}'
    assert message_bytes({"a": 1, "data": {}, "z": "x"}, b"{}") == b'{"a":1,"data":{},"z":"x"}'
