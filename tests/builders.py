"""Tiny builders for tests, in the style of lila's `pairing(1, "a", "b", "1-0")`."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from events_schema import Actor, Command, CommandBatch, Event, Recorded, encode_payload
from events_schema import events as ev
from events_schema.ids import GENESIS_HASH
from projections.go import Colour as GoColour
from projections.go import GoBoard, Point
from services.eventlog.base import NewEvent

T0 = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
ADMIN = Actor(id="admin-1", role="admin")
ARBITER = Actor(id="arbiter-1", role="arbiter")


def eid(n: int) -> uuid.UUID:
    """Deterministic event ids for golden tests."""
    return uuid.UUID(int=n)


def new_event(event: Event, n: int | None = None, actor: Actor = ADMIN) -> NewEvent:
    return NewEvent(
        event_id=eid(n) if n is not None else uuid.uuid4(),
        type=event.event_type,
        schema_version=event.schema_version,
        occurred_at=T0 + timedelta(seconds=n or 0),
        actor=actor,
        payload=encode_payload(event),
    )


def recorded(tid: str, events: list[Event]) -> list[Recorded]:
    """Seal events into a stream (seq 1..n, real hash chain) for folding in pure tests."""
    out, prev = [], GENESIS_HASH
    for i, e in enumerate(events, start=1):
        env = new_event(e, i).sealed(tid, i, prev, T0 + timedelta(seconds=i))
        prev = env.hash
        out.append(Recorded(env, e))
    return out


def command(event: Event, event_id: uuid.UUID | None = None, **kw: Any) -> Command:
    return Command(type=event.event_type, payload=encode_payload(event), event_id=event_id, **kw)


def batch(*events: Event, expected_seq: int | None = None) -> CommandBatch:
    return CommandBatch(commands=[command(e) for e in events], expected_seq=expected_seq)


def created(game: str = "chess", fmt: str = "round_robin", **kw: Any) -> ev.TournamentCreated:
    return ev.TournamentCreated(name="Test Open", game=game, format=fmt, **kw)  # type: ignore[arg-type]


def player(pid: str, rating: int | None = None, kind: str = "human") -> ev.PlayerRegistered:
    return ev.PlayerRegistered(player_id=pid, name=pid.title(), rating=rating, kind=kind)  # type: ignore[arg-type]


def round_(
    n: int, *pairs: tuple[str, str, str], stage: str = "main", byes: tuple[str, ...] = ()
) -> ev.RoundScheduled:
    """round_(1, ("g1", "a", "b")) schedules game g1, a White, b Black."""
    return ev.RoundScheduled(
        round=n,
        stage=stage,
        pairings=[ev.Pairing(game_id=g, white=w, black=b) for g, w, b in pairs],
        byes=[ev.Bye(player_id=p) for p in byes],
    )


def result(game_id: str, res: str, termination: str | None = None) -> ev.GameEnded:
    """A result; without a termination one that agrees with it (the decider refuses a win by
    agreement: projections/tournament/rules/consistency.py): a draw by agreement, a win by
    resignation, a double loss "other"."""
    if termination is None:
        termination = {"1/2-1/2": "agreement", "0-0": "other"}.get(res, "resignation")
    return ev.GameEnded(game_id=game_id, result=res, termination=termination)  # type: ignore[arg-type]


def move(game_id: str, ply: int, uci: str, colour: str | None = None, **kw: Any) -> ev.MovePlayed:
    col = colour or ("white" if ply % 2 == 1 else "black")
    return ev.MovePlayed(game_id=game_id, ply=ply, colour=col, uci=uci, **kw)  # type: ignore[arg-type]


def prizes(*amounts: str, premium: str | None = None, currency: str = "USD") -> ev.PrizeTable:
    """prizes("40000", "20000") pays 40,000 to 1st place and 20,000 to 2nd."""
    return ev.PrizeTable(
        currency=currency,
        prizes=[ev.Prize(place=i, amount=Decimal(a)) for i, a in enumerate(amounts, start=1)],
        winner_premium=Decimal(premium) if premium is not None else None,
    )


def gct_event_played(preset: str = "gct-rapid-blitz", **kw: Any) -> list[Event]:
    """A four-player GCT event played out, `kw` to its TournamentCreated."""
    # a–b drawn, a and b beat c and d, c–d drawn: a 2½, b 2½ share 1st; c ½, d ½ share 3rd.
    games = [("g1", "a", "b", "1/2-1/2"), ("g2", "a", "c", "1-0"), ("g3", "b", "d", "1-0")]
    games += [("g4", "c", "d", "1/2-1/2"), ("g5", "d", "a", "0-1"), ("g6", "c", "b", "0-1")]
    out: list[Event] = [created(rules_preset=preset, **kw), *[player(p) for p in "abcd"]]
    for n, (g, w, b, _) in enumerate(games, start=1):
        out.append(round_(n, (g, w, b)))
    out += [result(g, r) for g, _, _, r in games]
    return out


def small_tournament() -> list[Event]:
    """Three players, one round with a bye: the shared opening of many tests."""
    return [
        created(),
        player("alice", 2700),
        player("bob", 2650),
        player("carol", 2600),
        round_(1, ("r1g1", "alice", "bob"), byes=("carol",)),
    ]


def go_position(diagram: str, to_move: GoColour = "black") -> GoBoard:
    """The board of `diagram` (rows top first), `to_move` to play."""
    rows = diagram.split()
    size = len(rows)
    black: list[Point] = []
    white: list[Point] = []
    for i, row in enumerate(rows):
        assert len(row) == size
        for col, mark in enumerate(row):
            if mark == "X":
                black.append((size - 1 - i, col))
            elif mark == "O":
                white.append((size - 1 - i, col))
    board = GoBoard(size)
    sides: tuple[tuple[GoColour, list[Point]], ...] = (("black", black), ("white", white))
    for i in range(max(len(black), len(white))):
        for colour, stones in sides:
            result = board.play(colour, stones[i] if i < len(stones) else None)
            assert result.legal and not result.captured
    if board.to_move != to_move:
        board.play(board.to_move, None)
    return board
