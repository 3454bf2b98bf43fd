"""Pairing at the edge: run the tournament's pairing system and append what it proposes.

`pair_next` folds the tournament, asks its system (`projections/pairing/systems.py`) for the
next round, draws every lot the system asks for (`services/commands/lots.py`, the only place
randomness lives), and appends the lots and the `RoundScheduled` as ONE batch through the
command path (`CommandService`): the lots first, so a replay reads each random choice before
the pairing it fed; all or nothing, so a refused round leaves no orphan lot. The batch carries
`expected_seq`: if the tournament changed between the fold and the append (a result entered,
another pairing), it is paired again from the new state.

A published round is never changed silently; re-pairing the latest round is explicit
(`pair_next(replace=True)`): the rule, its checks and its retraction are
`services/commands/repair.py`.

`pair_next` is a loop of named steps: `fold` the tournament, `resent` (a resend of a round
already scheduled appends nothing), `repair.prepare` (a replace), `next_round` (the context,
the system and its lots: `plan`), `batch`, then the append, again from a new fold when the
tournament changed meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from events_schema import Actor, Command, CommandBatch, Recorded, encode_payload
from events_schema import events as ev
from projections.mentions import said, templated
from projections.pairing.base import PairingContext, PairingRefused, context
from projections.pairing.systems import byes_json, pairing_json, propose, system_name
from projections.standings import StandingsState
from projections.standings import fold as standings_fold
from services.commands import repair
from services.commands.lots import draw
from services.commands.repair import Replaced
from services.commands.service import CommandRejected, CommandService
from services.eventlog.base import AppendConflict, AppendResult

MAX_LOT_ROUNDS = 8  # a system asks for its lots in a few steps at most


@dataclass
class Paired:
    tournament_id: str
    system: str
    round: ev.RoundScheduled
    lots: list[ev.LotDrawn] = field(default_factory=list)
    notes: tuple[str, ...] = ()
    result: AppendResult | None = None  # None: the round was already scheduled (a resend)
    seqs: list[int] = field(default_factory=list)  # the appended events' (retraction first)
    replaced: Replaced | None = None  # the round a replace retracted
    # The notes as the system wrote them, players as `{id}` (projections/mentions.py);
    # `notes` says them by name (`said_by_name`).
    note_templates: tuple[str, ...] = ()


def said_by_name(state: StandingsState, notes: tuple[str, ...]) -> tuple[str, ...]:
    """A pairing system's notes with every player it mentions by name, as the rest of the CLI
    and the API name them ("pairing-allocated bye Doe, Jane", not "doe-jane")."""
    names = {pid: info.name for pid, info in state.players.items()}
    return tuple(said(n, names) for n in notes)


def refused(exc: PairingRefused) -> CommandRejected:
    return CommandRejected(exc.rule, exc.field, exc.message)


def plan(
    ctx: PairingContext, seed: str | None = None, drawer: Callable[..., ev.LotDrawn] = draw
) -> tuple[ev.RoundScheduled, list[ev.LotDrawn], tuple[str, ...]]:
    """Ask the system until it answers with a round, drawing the lots it asks for. With a
    `seed`, each lot's seed is `seed:subject`, so a run can be repeated exactly."""
    lots: list[ev.LotDrawn] = []
    for _ in range(MAX_LOT_ROUNDS):
        proposal = propose(ctx)
        if proposal.round is not None and not proposal.lots:
            return proposal.round, lots, proposal.notes
        if not proposal.lots:
            raise PairingRefused("pairing.nothing_to_pair", "round", "no round to pair")
        drawn = {}
        for req in proposal.lots:
            lot = drawer(
                req.purpose,
                req.subject,
                list(req.candidates),
                req.pick,
                None if seed is None else f"{seed}:{req.subject}",
            )
            drawn[req.subject] = lot
            lots.append(lot)
        ctx = ctx.with_lots(drawn)
    raise PairingRefused("pairing.lots_loop", "round", "the system kept asking for lots")


def fold(service: CommandService, tournament_id: str) -> tuple[list[Recorded], StandingsState, str]:
    """The tournament's records, their standings fold and the name of its pairing system
    ("manual" without one); refused when it has no events."""
    records = [Recorded.of(e) for e in service.log.read(tournament_id, 1)]
    state = standings_fold(records)
    if state.created is None:
        from services.commands.entries import create_first

        raise CommandRejected(
            "pairing.unknown_tournament", "tournament", create_first(tournament_id)
        )
    return records, state, system_name(state.created) or "manual"


def resent(
    state: StandingsState, stage: str, expected_round: int | None
) -> ev.RoundScheduled | None:
    """The round a resend names, when it is already scheduled (nothing is appended then)."""
    if expected_round is None or (stage, expected_round) not in state.round_keys:
        return None
    return context(state, stage).scheduled[expected_round]


def next_round(
    state: StandingsState, stage: str, expected_round: int | None, seed: str | None
) -> tuple[ev.RoundScheduled, list[ev.LotDrawn], tuple[str, ...]]:
    """The stage's next round from `state`, with the lots drawn for it (`plan`); a request
    that names its round must name that one."""
    try:
        ctx = context(state, stage)
        if expected_round is not None and expected_round != ctx.round:
            raise PairingRefused(
                "pairing.not_next_round",
                "round",
                f"the next round of {stage!r} is {ctx.round}, not {expected_round}",
            )
        return plan(ctx, seed)
    except PairingRefused as exc:
        raise refused(exc) from None


def batch(
    first: list[Command], lots: list[ev.LotDrawn], rnd: ev.RoundScheduled, expected_seq: int
) -> CommandBatch:
    """`first` (a replace's retraction), the lots, then the round: one batch."""
    commands = [
        *first,
        *(Command(type="LotDrawn", payload=encode_payload(lot)) for lot in lots),
        Command(type="RoundScheduled", payload=encode_payload(rnd)),
    ]
    return CommandBatch(commands=commands, expected_seq=expected_seq)


def pair_next(
    service: CommandService,
    tournament_id: str,
    actor: Actor,
    *,
    stage: str = "main",
    expected_round: int | None = None,
    seed: str | None = None,
    attempts: int = 3,
    scheduled_at: datetime | None = None,
    replace: bool = False,
    reason: str | None = None,
) -> Paired:
    """Pair the next round of `stage` and append it (with its lots). `expected_round` makes a
    resend safe: if that round is already scheduled, it is returned, nothing is appended.

    With `replace`, re-pair the stage's latest round instead (`services/commands/repair.py`):
    its retraction (with `reason`), the lots and the new round in one batch; `expected_round`,
    if given, must be that round."""
    if replace:
        repair.check_actor(actor)
    for _attempt in range(attempts):
        records, state, name = fold(service, tournament_id)
        base_seq = state.seq
        first: list[Command] = []
        target: Replaced | None = None
        if replace:
            replacement = repair.prepare(
                tournament_id,
                records,
                state,
                actor,
                stage=stage,
                expected_round=expected_round,
                reason=reason,
            )
            first, target, state = [replacement.command], replacement.target, replacement.state
        else:
            already = resent(state, stage, expected_round)
            if already is not None:
                return Paired(tournament_id, name, already)
        rnd, lots, notes = next_round(state, stage, expected_round, seed)
        start = scheduled_at or (target.scheduled_at if target is not None else None)
        if start is not None:  # the round's start (LGC Timing "Start": lateness)
            rnd = rnd.model_copy(update={"scheduled_at": start})
        try:
            result = service.handle(tournament_id, batch(first, lots, rnd, base_seq), actor)
        except AppendConflict:
            continue  # the tournament changed under us: pair again from the new state
        seqs = [e.seq for e in result.envelopes]
        said_notes = said_by_name(state, notes)
        return Paired(tournament_id, name, rnd, lots, said_notes, result, seqs, target, notes)
    raise CommandRejected(
        "concurrency.retries_exhausted",
        "expected_seq",
        f"{tournament_id} kept changing while pairing; retry",
        status=409,
    )


def round_json(rnd: ev.RoundScheduled) -> dict[str, object]:
    return {
        "stage": rnd.stage,
        "round": rnd.round,
        "cycle": rnd.cycle,
        "pairings": [
            {**pairing_json(i, p), "opening": p.opening, "handicap": p.handicap}
            for i, p in enumerate(rnd.pairings, start=1)
        ],
        "byes": byes_json(rnd),
        "scheduled_at": None if rnd.scheduled_at is None else rnd.scheduled_at.isoformat(),
    }


def paired_json(p: Paired) -> dict[str, object]:
    """What `arbiter pair --json` prints and `POST /tournaments/{id}/pair` answers."""
    first = 1 if p.replaced is not None and p.seqs else 0  # the retraction comes first
    lot_seqs = p.seqs[first : first + len(p.lots)]
    replaced = p.replaced
    return {
        "tournament_id": p.tournament_id,
        "system": p.system,
        "appended": p.result is not None,
        **round_json(p.round),
        "round_seq": p.seqs[-1] if p.seqs else None,
        "replaced": None
        if replaced is None
        else {
            "stage": replaced.stage,
            "round": replaced.round,
            "event_id": str(replaced.event_id),
            "seq": replaced.seq,
            "retraction_seq": p.seqs[0] if p.seqs else None,
        },
        "lots": [
            {
                "seq": seq,
                "purpose": lot.purpose,
                "subject": lot.subject,
                "outcome": lot.outcome,
                "seed": lot.seed,
                "method": lot.method,
            }
            for seq, lot in zip(lot_seqs, p.lots, strict=True)
        ],
        "notes": list(p.notes),  # players by name
        **(
            {"note_templates": list(p.note_templates)}
            if any(templated(n) for n in p.note_templates)
            else {}
        ),
    }
