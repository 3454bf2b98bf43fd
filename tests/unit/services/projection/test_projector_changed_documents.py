"""The projector builds only the documents an event can change (issue 27 item 3): a move or a
clock of a game without a result changes the games document alone
(`projections.documents.changed_by`); everything else, and a move of a game with a result
(TCEC r-mobility and average moves read the moves of decided games), all of them. Checked the
way that would fail if it were wrong: event by event, the messages published are exactly those
of a projector that builds every document every time; and a processor of one projection builds
only its own."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from builders import T0, created, move, new_event, player, result, round_

import projections.documents as docs
from events_schema import GENESIS_HASH, Envelope, Event
from events_schema import events as ev
from services.projection.projector import Message, Projector

UCI = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1", "f8e7"]


def _stream(preset: str) -> list[Event]:
    out: list[Event] = [
        created(rules_preset=preset),
        *[player(p, 2700 - i) for i, p in enumerate("abcd")],
    ]
    rounds = [[("g1", "a", "b"), ("g2", "c", "d")], [("g3", "a", "c"), ("g4", "b", "d")]]
    results = {"g1": "1-0", "g2": "1/2-1/2", "g3": "0-1", "g4": "1/2-1/2"}
    for n, pairs in enumerate(rounds, start=1):
        out.append(round_(n, *pairs))
        for g, _, _ in pairs:
            out.append(ev.GameStarted(game_id=g))
        for ply, uci in enumerate(UCI, start=1):
            for g, _, _ in pairs:
                out.append(move(g, ply, uci, clock_ms=60_000 - ply, eval_cp=ply))
            if ply % 4 == 0:
                out.append(ev.ClockReported(game_id=pairs[0][0], white_ms=50_000, black_ms=49_000))
        for g, _, _ in pairs:
            out.append(result(g, results[g]))
        # A move recorded after its game's result (an import, a late entry): the table's too.
        out.append(move(pairs[0][0], len(UCI) + 1, "d2d4"))
    return out


def _envelopes(tid: str, events: list[Event]) -> Iterator[Envelope]:
    prev = GENESIS_HASH
    for seq, e in enumerate(events, start=1):
        env = new_event(e, seq).sealed(tid, seq, prev, T0)
        prev = env.hash
        yield env


class EveryDocument(Projector):
    """The reference: every document built after every event (the projector before)."""

    def messages(self, tournament_id: str) -> list[Message]:
        self.mark_all_changed(tournament_id)
        return super().messages(tournament_id)


@pytest.mark.parametrize("preset", ["fide-round-robin", "tcec-league"])
def test_event_by_event_the_messages_are_those_of_building_every_document(preset: str) -> None:
    fast, reference = Projector(), EveryDocument()
    games_only = 0
    for env in _envelopes("t", _stream(preset)):
        got, want = fast.run([env]), reference.run([env])
        assert [(m.projection, m.body) for m in got] == [(m.projection, m.body) for m in want], (
            env.seq,
            env.type,
        )
        games_only += env.type == "MovePlayed"
    assert games_only > 40
    assert fast.snapshot("t") == reference.snapshot("t")


def test_a_move_builds_the_games_document_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    projector = Projector()
    events = _stream("fide-round-robin")
    first_move = next(i for i, e in enumerate(events) if isinstance(e, ev.MovePlayed))
    envs = list(_envelopes("t", events))
    projector.run(envs[:first_move])
    built: list[Any] = []
    original = docs.documents

    def spy(*args: Any, **kw: Any) -> Any:
        out = original(*args, **kw)
        built.append(sorted(out))
        return out

    monkeypatch.setattr("services.projection.projector.documents", spy)
    msgs = projector.run([envs[first_move]])
    assert built == [["games"]]
    assert [m.projection for m in msgs] == ["games"]
    built.clear()
    ending = next(i for i, e in enumerate(events) if isinstance(e, ev.GameEnded))
    projector.run(envs[first_move + 1 : ending + 1])
    assert built[-1] == sorted(docs.PROJECTIONS)


def test_a_processor_of_one_projection_builds_only_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[Any] = []
    original = docs.documents

    def spy(*args: Any, **kw: Any) -> Any:
        out = original(*args, **kw)
        built.append(sorted(out))
        return out

    monkeypatch.setattr("services.projection.projector.documents", spy)
    projector = Projector(projections=("standings",))
    msgs = projector.run(list(_envelopes("t", _stream("fide-round-robin"))))
    assert {m.projection for m in msgs} == {"standings"}
    assert built and all(b == ["standings"] for b in built)
