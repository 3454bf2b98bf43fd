"""FIDE's Baku acceleration (C.04.5.1), as virtual points per round and player.

C.04.5.1 "Initial Groups Division": before the first round the list of players to be paired
(in initial order) is split in GA, the first half rounded up to the nearest even number
(2 * Q, Q = players / 4 rounded up), and GB, the rest. "Late entries": players entering after
the first round are placed in the pairing list by C.04.2 (initial order) and "the last
GA-player shall be the same as in the previous round" (Note 1: his pairing number may change;
Note 2: GA may then hold an odd number of players). "Virtual points": the accelerated rounds
are the first half (rounded up) of the tournament; before pairing the first half (rounded up)
of the accelerated rounds every GA player has 1 virtual point, reduced to 0.5 for the remaining
accelerated rounds; GB players never have any.

So GA is a reading of the field when each accelerated round is paired, not a list fixed when
the arbiter chose the method (`AccelerationSet(method="baku")`): `baku_bonus` takes the players
to be paired in each round (`fields`, round -> players: the field of a round already paired is
the players it scheduled, of a round to come the players active in it) and the initial order
of the whole field (late entries included). The first round's field gives the last GA player
(its 2 * Q-th); in every accelerated round GA is the players of that round's field ranked at
or above him, so an entry registered before round 1 is paired counts in Q, and a late entry
ranked above the last GA player joins GA from the round he enters.

The points are those gacrux's own tournament generator gives (`tournamentgenerator.py`:
q = ((players + 3) // 4) * 2, rounds (R + 3) // 4 at 1 point, up to (R + 1) // 2 at ½), and
TRF26 record 250 carries them as point ranges by pairing number (`as_values`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

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


def baku_points(rnd: int, rounds: int) -> int:
    """A GA player's virtual points in round `rnd` of `rounds`, in half-points (0: none)."""
    full, accelerated = baku_rounds(rounds)
    return 2 if rnd <= full else 1 if rnd <= accelerated else 0


def baku_groups(
    order: Sequence[str], fields: Mapping[int, Collection[str]]
) -> dict[int, list[str]]:
    """GA of each round of `fields`, in initial order: the players of the round's field ranked
    (in `order`, the initial order of the whole field) at or above the last GA player, the
    2 * Q-th of the first round's field (C.04.5.1 "Initial Groups Division", "Late entries").
    No first-round field: no GA."""
    first = [p for p in order if p in fields.get(1, ())]
    if not first:
        return {}
    last = first[min(ga_size(len(first)), len(first)) - 1]
    top = order[: order.index(last) + 1]
    return {r: [p for p in top if p in field] for r, field in sorted(fields.items())}


def baku_bonus(
    order: Sequence[str], fields: Mapping[int, Collection[str]], rounds: int
) -> dict[int, dict[str, int]]:
    """The Baku virtual points, round -> player -> half-points, of a tournament of `rounds`
    rounds whose players to be paired in each round are `fields` (the module docstring)."""
    accelerated = {r: f for r, f in fields.items() if baku_points(r, rounds)}
    out: dict[int, dict[str, int]] = {}
    for r, ga in baku_groups(order, accelerated).items():
        points = baku_points(r, rounds)
        if points and ga:
            out[r] = {p: points for p in ga}
    return out


def as_values(
    bonus: Mapping[int, Mapping[str, int]], order: Sequence[str]
) -> list[ev.VirtualPoints]:
    """`bonus` as `VirtualPoints`, player by player in `order`, consecutive rounds with the same
    points joined in one range (TRF26 record 250's rounds)."""
    values: list[ev.VirtualPoints] = []
    for pid in order:
        run: tuple[int, int, int] | None = None  # first round, last round, points
        for r in sorted(bonus):
            points = bonus[r].get(pid, 0)
            if run is not None and (r, points) == (run[1] + 1, run[2]):
                run = (run[0], r, points)
                continue
            if run is not None:
                values.append(
                    ev.VirtualPoints(
                        player_id=pid, first_round=run[0], last_round=run[1], points=run[2]
                    )
                )
            run = (r, r, points) if points else None
        if run is not None:
            values.append(
                ev.VirtualPoints(
                    player_id=pid, first_round=run[0], last_round=run[1], points=run[2]
                )
            )
    return values


def baku_values(order: Sequence[str], rounds: int) -> list[ev.VirtualPoints]:
    """The virtual points of the Baku acceleration for players `order` (the players to be
    paired in initial order, C.04.2), all of them in every round, in a tournament of `rounds`
    rounds, in half-points."""
    _, accelerated = baku_rounds(rounds)
    fields = {r: frozenset(order) for r in range(1, accelerated + 1)}
    return as_values(baku_bonus(order, fields, rounds), order)
