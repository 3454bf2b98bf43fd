"""FIDE's Baku acceleration (C.04.5.1), as the virtual points of an `AccelerationSet`.

C.04.5.1 "Initial Groups Division": before the first round the list of players to be paired
(in initial order) is split in GA, the first half rounded up to the nearest even number
(2 * Q, Q = players / 4 rounded up), and GB, the rest. "Virtual points": the accelerated
rounds are the first half (rounded up) of the tournament; before pairing the first half
(rounded up) of the accelerated rounds every GA player has 1 virtual point, reduced to 0.5
for the remaining accelerated rounds; GB players never have any.

The values are those gacrux's own tournament generator gives (`tournamentgenerator.py`:
q = ((players + 3) // 4) * 2, rounds (R + 3) // 4 at 1 point, up to (R + 1) // 2 at ½), and
TRF26 record 250 carries them as point ranges by pairing number.

A reading: GA is fixed as the players it held when the acceleration was set (C.04.5.1 "Late
entries": the last GA player stays the same); a late entry ranked above the last GA player is
not added to it by this function (set the acceleration again, or give explicit values).
"""

from __future__ import annotations

from collections.abc import Sequence

from events_schema import events as ev

RULE = "FIDE C.04.5.1 (Baku acceleration)"


def ga_size(players: int) -> int:
    """C.04.5.1: 2 * Q, Q = players / 4 rounded up (161 players: 82)."""
    return 2 * ((players + 3) // 4)


def baku_rounds(rounds: int) -> tuple[int, int]:
    """(last round with 1 virtual point, last accelerated round): the accelerated rounds are
    the first half of the tournament rounded up, the first half of those (rounded up) at 1
    point (C.04.5.1: nine rounds, five accelerated, 1 point in the first three)."""
    accelerated = (rounds + 1) // 2
    return (accelerated + 1) // 2, accelerated


def baku_values(order: Sequence[str], rounds: int) -> list[ev.VirtualPoints]:
    """The virtual points of the Baku acceleration for players `order` (the players to be
    paired in initial order, C.04.2) in a tournament of `rounds` rounds, in half-points."""
    full, accelerated = baku_rounds(rounds)
    values: list[ev.VirtualPoints] = []
    for pid in order[: ga_size(len(order))]:
        if full >= 1:
            values.append(ev.VirtualPoints(player_id=pid, first_round=1, last_round=full, points=2))
        if accelerated > full:
            values.append(
                ev.VirtualPoints(
                    player_id=pid, first_round=full + 1, last_round=accelerated, points=1
                )
            )
    return values
