"""The arena's status as a person reads it (`arbiter arena-status`, `GET
/tournaments/{id}/arena`, issue 25): per game its players, the moves so far, the clocks, the
last evaluation and its state, and the run limits the arena played under. Pure: a function of
the recorded events (`arena_status`), read through the standings fold (the games, players,
moves and results in force) and `projections/games.py` (the ending in words with its rule).

A game's state:

- ``pending``: scheduled, not started (no `GameStarted`, no move in force);
- ``playing``: started, no result in force and no engine crash;
- ``finished``: a result in force; ``ending`` names it with its rule ("engine crash
  (tcec-rules Leagues 14.2)", "TCEC draw rule (tcec-rules Leagues 10.2)": `rule_text`), and a
  game its engine's crash ended also keeps ``crashes``;
- ``crashed``: an engine crashed (`EngineCrashed` in force) and no result followed: the preset
  has no crash rule (TCEC Swiss 7.a / Leagues 14.2 have one), so the game waits for the
  arbiter. ``crashes`` holds what was seen (the player, the ply, the exit code and last lines
  of stderr the arena recorded).

The run limits: every `RulingIssued` of subject "arena:limit" in force (services/arena/
limits.py: `{"nodes": N}`, `{"base_ms", "increment_ms"}`, `{"tournament_time_control":
true}`, and the engines' own node limits) with the seq it was recorded at, so a reader sees
under which limit each move was played; ``in_force`` is the latest, else the tournament's time
controls. Clocks are each side's latest reading (`projections/live.py` `latest_clocks`; null:
none read, or unknown since a move without timing); the evaluation is the last move's that
carries one, White's point of view as `MovePlayed` records it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from uuid import UUID

from events_schema import events as ev
from events_schema.registry import Recorded
from projections.games import game_rows
from projections.live import last_evaluation, last_move, latest_clocks
from projections.standings.state import StandingsState, fold

LIMIT_SUBJECT = "arena:limit"  # services/arena/limits.py SUBJECT
STATES = ("pending", "playing", "finished", "crashed")


def _player(state: StandingsState, pid: str) -> dict[str, str]:
    info = state.players.get(pid)
    return {"player_id": pid, "name": info.name if info is not None else pid}


def _time_control(tc: ev.TimeControl) -> str:
    base = f"{tc.base_seconds // 60} min" if tc.base_seconds % 60 == 0 else f"{tc.base_seconds} s"
    if tc.increment_seconds:
        return f"{tc.name}: {base} + {tc.increment_seconds} s a move"
    return f"{tc.name}: {base}"


def arena_status(records: Iterable[Recorded]) -> dict[str, Any]:
    """The arena's status (module docstring): `{"tournament_id", "seq", "name", "limits":
    {"in_force", "rulings", "time_controls"}, "counts": {state: n}, "games": [...]}`, the
    games in the order they were scheduled."""
    recs = list(records)
    state = fold(recs)
    retracted = {r.event.retracted_event_id for r in recs if isinstance(r.event, ev.EventRetracted)}
    seq_of: dict[UUID, int] = {r.envelope.event_id: r.envelope.seq for r in recs}
    crashes: dict[str, list[dict[str, Any]]] = {}
    for r in recs:
        e = r.event
        if isinstance(e, ev.EngineCrashed) and r.envelope.event_id not in retracted:
            crashes.setdefault(e.game_id, []).append(
                {
                    "player_id": e.player_id,
                    "name": _player(state, e.player_id)["name"],
                    "ply": e.ply,
                    "detail": e.detail,
                    "seq": r.envelope.seq,
                }
            )
    rulings: list[dict[str, Any]] = sorted(
        (
            {
                "seq": seq_of.get(eid, 0),
                "ruling_id": ruling.ruling_id,
                "text": ruling.text,
                "decision": dict(ruling.decision),
            }
            for eid, ruling in state.rulings.items()
            if ruling.subject == LIMIT_SUBJECT and eid not in retracted
        ),
        key=lambda x: x["seq"],
    )
    created = state.created
    time_controls = [_time_control(tc) for tc in created.time_controls] if created else []
    latest = rulings[-1] if rulings else None
    in_force: dict[str, Any]
    if latest is None or latest["decision"].get("tournament_time_control"):
        in_force = {
            "source": "tournament",
            "text": "; ".join(time_controls) or "no time control",
            "decision": {"tournament_time_control": True},
        }
    else:
        in_force = {"source": "arena", "text": latest["text"], "decision": latest["decision"]}

    games: list[dict[str, Any]] = []
    counts = dict.fromkeys(STATES, 0)
    for row in game_rows(recs):
        game = state.games[row.game_id]
        seen = crashes.get(row.game_id, [])
        if row.result is not None:
            status = "finished"
        elif seen:
            status = "crashed"
        elif game.started:
            status = "playing"
        else:
            status = "pending"
        counts[status] += 1
        clocks = latest_clocks(game)
        games.append(
            {
                "game_id": row.game_id,
                "stage": row.stage,
                "round": row.round,
                "board": row.board,
                "white": _player(state, game.white),
                "black": _player(state, game.black),
                "state": status,
                "plies": len(game.moves),
                "last_move": last_move(game),
                "clocks": {"white_ms": clocks["white_ms"], "black_ms": clocks["black_ms"]},
                "clock_note": row.clock_note(),
                "evaluation": last_evaluation(game),
                "result": row.result,
                "termination": row.termination,
                "ending": row.rule if row.result is not None else None,
                "rule": row.citation,
                "detail": row.detail,
                "crashes": seen,
            }
        )
    last = recs[-1].envelope if recs else None
    return {
        "tournament_id": last.tournament_id if last is not None else None,
        "seq": last.seq if last is not None else 0,
        "name": created.name if created is not None else None,
        "limits": {"in_force": in_force, "rulings": rulings, "time_controls": time_controls},
        "counts": counts,
        "games": games,
    }
