"""A requested bye (`arbiter bye`, `POST /tournaments/{id}/players/{player}/bye`): a player
asks, before a round is paired, not to be paired in it, for a half point or none (FIDE C.04.2
"requested byes"; TRF-16/TRF26 record the round as `H` or `Z`, and FIDE's TRF26 lists them
in its 240 record).

The pairing reads the byes of a round from the latest `RulingIssued` in force with subject
`byes_subject(stage, round)` and `decision={"byes": {player id: "half" | "zero"}}`
(`projections/pairing/dutch.py` `requested_byes`). So a request is a new ruling holding every
bye of that round: the ruling in force, merged with the new bye (or, with `cancel`, without
the player's), by the acting person, citing the rule.

Refused, naming the rule and the field:

* `bye.points`: points other than 0, ½ (also `0.5`, `1/2`, `.5`) or 1;
* `bye.full_point_not_offered`: a full-point bye. Arbiter scores only the pairing-allocated
  bye with a full point (`Scoring.bye`, C.04.1.c); a requested bye is a half or a zero
  (`Bye.kind` "half"/"zero"), as the pairing engine and the tie-breaks read it (an
  unplayed round). Give 0 or ½;
* `bye.round_beyond`: a round after the tournament's last (or before the first);
* `bye.round_paired`: a round already paired (re-pair it, `arbiter pair --replace`, after the
  request if it has not started);
* `bye.player_withdrawn`: a player withdrawn for that round;
* `bye.not_read_by_system`: a tournament whose pairing system takes no requested byes (only
  the Dutch and Galway Swiss systems read them);
* `bye.unchanged`: the same bye already requested; `bye.none_requested`: a cancel with none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from events_schema import Actor, Command, CommandBatch
from projections.pairing.dutch import byes_subject
from projections.pairing.systems import system_name
from services.commands.entries.players import (
    EntryRow,
    byes_in_force,
    entry_list,
    fold_tournament,
    resolve_player,
)
from services.commands.service import CommandRejected, CommandService
from services.eventlog.base import AppendConflict, AppendResult

ByeKind = Literal["half", "zero"]
#: The pairing systems that read requested byes (`dutch.requested_byes`).
READ_BY = ("dutch", "galway")
RULE = "FIDE C.04.2 (requested byes); TRF26 record 240"
_HALF = frozenset({"½", "0.5", ".5", "0,5", "1/2", "half", "h"})
_ZERO = frozenset({"0", "0.0", "zero", "z"})
_FULL = frozenset({"1", "1.0", "full", "f"})
WORDS = {"half": "a half-point bye", "zero": "a zero-point bye"}
MAX_ATTEMPTS = 3


def parse_bye_points(text: str, field_name: str = "points") -> ByeKind:
    """ "0" -> zero, "½" / "0.5" / "1/2" -> half; a full point is refused (the module
    docstring)."""
    value = text.strip().lower()
    if value in _HALF:
        return "half"
    if value in _ZERO:
        return "zero"
    if value in _FULL:
        raise CommandRejected(
            "bye.full_point_not_offered",
            field_name,
            "a requested bye scores ½ or 0 (FIDE C.04.2; a full point is the "
            "pairing-allocated bye's, C.04.1.c): give --points ½ or --points 0",
        )
    raise CommandRejected("bye.points", field_name, f"{text!r}: give 0, ½ (0.5, 1/2) or 1")


@dataclass(frozen=True)
class ByeRequested:
    result: AppendResult
    player: EntryRow
    round: int
    kind: ByeKind | None  # None: cancelled
    byes: dict[str, str]  # the round's byes now in force
    # player id -> "12 Carlsen, Magnus" (`EntryRow.label`): how the byes are named back
    labels: dict[str, str] = field(default_factory=dict)


def request_bye(
    service: CommandService,
    tournament: str,
    player: str,
    rnd: int,
    actor: Actor,
    *,
    points: str = "½",
    cancel: bool = False,
    stage: str = "main",
    field_name: str = "PLAYER",
) -> ByeRequested:
    """Append the ruling that requests (or, with `cancel`, withdraws) `player`'s bye in round
    `rnd` (the module docstring). Appended with the seq it was decided on: a ruling that
    raced another is merged again from the new state."""
    kind = None if cancel else parse_bye_points(points)
    for _attempt in range(MAX_ATTEMPTS):
        state = fold_tournament(service, tournament, "bye")
        assert state.created is not None
        system = system_name(state.created)
        if system not in READ_BY:
            raise CommandRejected(
                "bye.not_read_by_system",
                "TOURNAMENT",
                f"{tournament} pairs by {system or 'hand'}, which takes no requested byes "
                f"(only {' and '.join(READ_BY)} do): a Go player skipping a round is a "
                "RoundSkipped (LGC), a round robin has no byes to request",
            )
        rounds = state.created.rounds
        if rnd < 1 or (rounds is not None and rnd > rounds):
            raise CommandRejected(
                "bye.round_beyond", "round", f"round {rnd}: the tournament has rounds 1-{rounds}"
            )
        if (stage, rnd) in state.round_keys:
            raise CommandRejected(
                "bye.round_paired",
                "round",
                f"round {rnd} is paired already: a bye is requested before the round is "
                "paired (re-pair it with `arbiter pair --replace` while no game has started)",
            )
        rows = entry_list(state)
        row = resolve_player(state, player, field_name, rows)
        if row.withdrawn_from is not None and rnd >= row.withdrawn_from:
            raise CommandRejected(
                "bye.player_withdrawn",
                field_name,
                f"{row.label()} has withdrawn from round {row.withdrawn_from} on",
            )
        current = byes_in_force(state, stage, rnd)
        merged = dict(current)
        if kind is None:
            if row.player_id not in merged:
                raise CommandRejected(
                    "bye.none_requested", field_name, f"{row.label()} has no bye in round {rnd}"
                )
            del merged[row.player_id]
            text = f"{row.name} withdraws the bye requested for round {rnd}"
        else:
            if merged.get(row.player_id) == kind:
                raise CommandRejected(
                    "bye.unchanged",
                    field_name,
                    f"{row.label()} has {WORDS[kind]} in round {rnd} already",
                )
            merged[row.player_id] = kind
            text = f"{row.name} requests {WORDS[kind]} in round {rnd}"
        payload = {
            "ruling_id": _ruling_id(service, tournament, stage, rnd),
            "by": actor.id,
            "subject": byes_subject(stage, rnd),
            "rule": RULE,
            "text": text,
            "decision": {"byes": dict(sorted(merged.items()))},
        }
        batch = CommandBatch(
            commands=[Command(type="RulingIssued", payload=payload)], expected_seq=state.seq
        )
        try:
            result = service.handle(tournament, batch, actor)
        except AppendConflict:
            continue
        labels = {r.player_id: r.label() for r in rows}
        return ByeRequested(result, row, rnd, kind, merged, labels)
    raise CommandRejected(
        "concurrency.retries_exhausted", "round", f"{tournament} kept changing; try again"
    )


def _ruling_id(service: CommandService, tournament: str, stage: str, rnd: int) -> str:
    """`byes-main-r3-1`, `-2`, ...: the first id the tournament has not used."""
    taken = service.state(tournament).rulings
    base = f"byes-{stage}"[:48] + f"-r{rnd}"
    n = 1
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"
