"""The facts both folds keep in force, folded once: the games a `RoundScheduled` adds and the
moves in force (the last one retracted, or the record unwound to a ply).

The decider's fold (`projections/tournament/evolve.py`) and the standings fold
(`projections/standings/state.py`) read every log alike
(`tests/unit/projections/test_folds_agree.py`);
where they apply the same reading to their own records, they call these functions, so the
reading has one home. Each function takes the fold's own containers and a constructor for its
own record; none keeps state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar
from uuid import UUID

from events_schema import events as ev

G = TypeVar("G")


def schedule_games(
    event: ev.RoundScheduled, games: dict[str, G], make: Callable[[ev.Pairing], G]
) -> list[str]:
    """Add the round's games to `games` (`make` builds a fold's record of a pairing) and return
    their ids in pairing order. A game id already in use keeps its game: that pairing adds
    nothing (the decider refuses it: `game.duplicate_id`). That a round already scheduled adds
    nothing at all (`round.duplicate`) each fold checks on its own index of rounds."""
    ids = []
    for p in event.pairings:
        if p.game_id in games:
            continue
        games[p.game_id] = make(p)
        ids.append(p.game_id)
    return ids


def retract_last_move(move_ids: list[UUID], event_id: UUID, *beside: list[Any]) -> bool:
    """Take back the move `event_id` if it is the last in force (moves are unwound from the
    last one back; the retraction of any other move undoes nothing): pops it from `move_ids`
    and from each list kept parallel to it. True when it was taken back."""
    if not move_ids or move_ids[-1] != event_id:
        return False
    move_ids.pop()
    for kept in beside:
        kept.pop()
    return True


def keep_moves(keep: int, move_ids: list[UUID], *beside: list[Any]) -> list[UUID]:
    """Only the first `keep` moves stay in force (a Go game unwound or restarted, LGC
    Irregularities): cuts `move_ids` and each list kept parallel to it; returns the event ids
    of the moves no longer in force."""
    dropped = move_ids[keep:]
    del move_ids[keep:]
    for kept in beside:
        del kept[keep:]
    return dropped
