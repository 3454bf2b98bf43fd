"""The pairing constraints an arbiter sets (issue 26): prohibited pairings (`arbiter prohibit`,
`POST /tournaments/{id}/prohibitions`: a `PairingsProhibited`, TRF26 record 260) and accelerated
rounds (`arbiter accelerate`, `POST /tournaments/{id}/acceleration`: an `AccelerationSet`,
FIDE C.04.5.1 Baku acceleration or explicit virtual points, TRF26 record 250).

Players are named as everywhere (a start number, an id or a unique start of the name:
`services/commands/entries/players.py` `resolve_player`). The decider
(projections/tournament/rules/constraints.py) checks the event: unknown players, a player
named twice, rounds reversed or beyond the tournament's, a constraint already in force.

The Baku acceleration's values are computed here from the field as it stands, as a record of
the choice (`projections/pairing/acceleration.py`, the tournament's rounds must be stated:
`acceleration.rounds_unknown`); the pairing reads GA again from the field of each accelerated
round (`dutch.virtual_points`, FIDE C.04.5.1 "Late entries"), so entries made afterwards need
no second `arbiter accelerate`.

An explicit acceleration file (`--file`) holds one line per value, `ROUNDS POINTS PLAYER`:
ROUNDS `3` or `1-3`, POINTS `1`, `0.5`, `½` or `1/2`, PLAYER the rest of the line; blank
lines and lines starting with `#` are skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from events_schema import Actor, Command, CommandBatch
from projections.pairing.acceleration import as_values
from projections.pairing.base import context
from projections.pairing.dutch import baku_virtual_points, initial_ranking
from services.commands.entries.players import entry_list, fold_tournament, resolve_player
from services.commands.service import CommandRejected, CommandService
from services.eventlog.base import AppendResult


@dataclass(frozen=True)
class ExplicitValue:
    """One virtual-points value as typed: a PLAYER, rounds, points (a string: "½", "0.5")."""

    player: str
    first_round: int
    last_round: int
    points: str


def prohibit_pairings(
    service: CommandService,
    tournament: str,
    players: Sequence[str],
    actor: Actor,
    *,
    reason: str = "",
    first_round: int = 1,
    last_round: int | None = None,
) -> AppendResult:
    """Append the `PairingsProhibited` of `players` (PLAYERs as typed)."""
    state = fold_tournament(service, tournament, "prohibition")
    rows = entry_list(state)
    ids = [resolve_player(state, p, f"players[{i}]", rows).player_id for i, p in enumerate(players)]
    if len(ids) < 2:
        raise CommandRejected("prohibition.too_few_players", "players", "name at least two players")
    payload = {
        "players": ids,
        "first_round": first_round,
        "last_round": last_round,
        "reason": reason,
    }
    batch = CommandBatch(
        commands=[Command(type="PairingsProhibited", payload=payload)], expected_seq=state.seq
    )
    return service.handle(tournament, batch, actor)


def parse_points(text: str, field: str) -> int:
    """Virtual points as typed ("1", "0.5", "½", "1/2") in half-points (at least ½)."""
    value = text.strip().replace("½", "1/2").replace(",", ".")
    try:
        half = Fraction(value) * 2
    except (ValueError, ZeroDivisionError):
        raise CommandRejected(
            "acceleration.points", field, f"{text!r}: give points as 1, 0.5 or ½"
        ) from None
    if half.denominator != 1 or half < 1:
        raise CommandRejected(
            "acceleration.points", field, f"{text!r}: virtual points are whole or half points"
        )
    return int(half)


def parse_acceleration_file(text: str, where: str = "file") -> list[ExplicitValue]:
    """The values of an acceleration file (the module docstring), refused by line."""
    values: list[ExplicitValue] = []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 2)
        if len(parts) < 3:
            raise CommandRejected(
                "acceleration.file_line",
                f"{where}:{n}",
                f"{line!r}: a line is ROUNDS POINTS PLAYER (e.g. '1-3 1 12')",
            )
        rounds, points, player = parts
        first, _, last = rounds.partition("-")
        if not first.isdigit() or (last and not last.isdigit()):
            raise CommandRejected(
                "acceleration.file_line", f"{where}:{n}", f"{rounds!r}: rounds are 3 or 1-3"
            )
        parse_points(points, f"{where}:{n}")
        values.append(ExplicitValue(player, int(first), int(last or first), points))
    return values


def set_acceleration(
    service: CommandService,
    tournament: str,
    actor: Actor,
    *,
    baku: bool = False,
    values: Sequence[ExplicitValue] = (),
    reason: str = "",
) -> AppendResult:
    """Append the `AccelerationSet`: Baku (C.04.5.1) computed from the field, or `values`
    (none: the acceleration removed)."""
    state = fold_tournament(service, tournament, "acceleration")
    assert state.created is not None
    if baku and values:
        raise CommandRejected(
            "acceleration.both", "values", "give --baku or explicit values, not both"
        )
    if baku:
        rounds = state.created.rounds
        if rounds is None:
            raise CommandRejected(
                "acceleration.rounds_unknown",
                "rounds",
                "FIDE C.04.5.1: the accelerated rounds are the first half of the tournament; "
                "state its rounds first",
            )
        ctx = context(state, "main")
        order = initial_ranking(ctx.players.values())
        payload_values = [v.model_dump() for v in as_values(baku_virtual_points(ctx), order)]
        method = "baku"
    else:
        rows = entry_list(state)
        payload_values = [
            {
                "player_id": resolve_player(state, v.player, f"values[{i}].player", rows).player_id,
                "first_round": v.first_round,
                "last_round": v.last_round,
                "points": parse_points(v.points, f"values[{i}].points"),
            }
            for i, v in enumerate(values)
        ]
        method = "explicit"
    payload = {"method": method, "values": payload_values, "reason": reason}
    batch = CommandBatch(
        commands=[Command(type="AccelerationSet", payload=payload)], expected_seq=state.seq
    )
    return service.handle(tournament, batch, actor)
