"""Registering players and withdrawing them (`arbiter register`, `arbiter withdraw`, their
HTTP routes).

An entry list is registered as ONE batch of `PlayerRegistered` (all or nothing: a bad entry,
or one the decider refuses, leaves the tournament as it was). Late entries (after round 1 is
paired) are registered the same way: the decider's registration rule
(`projections/tournament/rules/registration.py`) accepts a player at any time, and the Dutch
system ranks the whole field again for every round, so a late entry is paired from the next
round on (C.04.3 art. 1.2.2; the rounds before are absences, 0 points); their arrival may
change the start numbers of those ranked below them (`players.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from events_schema import Actor, Command, CommandBatch
from services.commands.entries.players import (
    EntryRow,
    entry_list,
    fold_tournament,
    player_ids_for,
    resolve_player,
)
from services.commands.service import CommandRejected, CommandService
from services.eventlog.base import AppendConflict, AppendResult
from services.interchange.entries import Entry

MAX_ATTEMPTS = 3


@dataclass(frozen=True)
class Registered:
    """What `register_entries` appended, and the entry list after it (with the new players'
    start numbers)."""

    result: AppendResult
    player_ids: tuple[str, ...]
    rows: tuple[EntryRow, ...]
    late: bool  # a round of the tournament was already scheduled

    def new_rows(self) -> list[EntryRow]:
        ids = set(self.player_ids)
        return [r for r in self.rows if r.player_id in ids]


def _entry_where(entry: Entry, index: int, count: int) -> str:
    if entry.line:
        return f"line {entry.line}"
    return f"entries[{index}]" if count > 1 else "entry"


def register_entries(
    service: CommandService, tournament: str, entries: Sequence[Entry], actor: Actor
) -> Registered:
    """Register `entries` as one batch, ids from their names (`player_id_for`). Refused:
    `entries.empty`; `entries.duplicate_fide_id` when a FIDE id is registered already or
    given twice (one person, two entries)."""
    if not entries:
        raise CommandRejected("entries.empty", "entries", "no player to register")
    for _attempt in range(MAX_ATTEMPTS):
        try:
            return _register(service, tournament, entries, actor)
        except AppendConflict:  # registered meanwhile: new ids from the new state
            continue
    raise CommandRejected(
        "concurrency.retries_exhausted", "entries", f"{tournament} kept changing; try again"
    )


def _register(
    service: CommandService, tournament: str, entries: Sequence[Entry], actor: Actor
) -> Registered:
    state = fold_tournament(service, tournament, "register")
    known = {info.fide_id: pid for pid, info in state.players.items() if info.fide_id}
    seen: dict[int, int] = {}
    for i, entry in enumerate(entries):
        if entry.fide_id is None:
            continue
        where = _entry_where(entry, i, len(entries))
        if entry.fide_id in known:
            raise CommandRejected(
                "entries.duplicate_fide_id",
                f"{where}, column fide_id" if entry.line else f"{where}.fide_id",
                f"FIDE id {entry.fide_id} is registered already ({known[entry.fide_id]})",
            )
        if entry.fide_id in seen:
            raise CommandRejected(
                "entries.duplicate_fide_id",
                f"{where}, column fide_id" if entry.line else f"{where}.fide_id",
                f"FIDE id {entry.fide_id} is given twice (also {seen[entry.fide_id]})",
            )
        seen[entry.fide_id] = i
    ids = player_ids_for((e.name for e in entries), state.players)
    batch = CommandBatch(
        commands=[
            Command(type="PlayerRegistered", payload=e.payload(pid))
            for e, pid in zip(entries, ids, strict=True)
        ],
        expected_seq=state.seq,  # the ids were made unique in this state
    )
    result = service.handle(tournament, batch, actor)
    after = fold_tournament(service, tournament, "register")
    return Registered(result, tuple(ids), tuple(entry_list(after)), late=bool(state.round_keys))


@dataclass(frozen=True)
class Withdrawn:
    result: AppendResult
    player: EntryRow


def withdraw_player(
    service: CommandService,
    tournament: str,
    player: str,
    actor: Actor,
    *,
    from_round: int | None = None,
    reason: str = "",
    field_name: str = "PLAYER",
) -> Withdrawn:
    """Append the `PlayerWithdrew` of the player `player` names (`resolve_player`): from round
    `from_round` on (None: at once, from the next round to pair, recorded as that round; FIDE
    C.06 5.4: a player may announce a withdrawal from a later round and play the rounds before
    it). Refused (`withdraw.round_beyond`) for a round after the tournament's last; the
    decider refuses a second withdrawal (`player.withdrawn`)."""
    state = fold_tournament(service, tournament, "withdraw")
    row = resolve_player(state, player, field_name)
    rounds = state.created.rounds if state.created is not None else None
    if from_round is not None and rounds is not None and from_round > rounds:
        raise CommandRejected(
            "withdraw.round_beyond",
            "from_round",
            f"round {from_round}: the tournament has {rounds} rounds",
        )
    if from_round is None:
        # "At once" is from the next round to pair, recorded as that round: read later (the
        # entry list, the TRF), a withdrawal without one would move on with every round paired.
        paired = [r for (stage, r) in state.round_keys if stage == "main"]
        upcoming = max(paired, default=0) + 1
        if rounds is None or upcoming <= rounds:
            from_round = upcoming
    payload: dict[str, object] = {"player_id": row.player_id, "reason": reason}
    if from_round is not None:
        payload["from_round"] = from_round
    batch = CommandBatch(commands=[Command(type="PlayerWithdrew", payload=payload)])
    return Withdrawn(service.handle(tournament, batch, actor), row)
