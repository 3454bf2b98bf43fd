"""Pairing at the edge: run the tournament's pairing system and append what it proposes.

`pair_next` folds the tournament, asks its system (`projections/pairing/systems.py`) for the
next round, draws every lot the system asks for (`services/commands/lots.py`, the only place
randomness lives), and appends the lots and the `RoundScheduled` as ONE batch through the
command path (`CommandService`): the lots first, so a replay reads each random choice before
the pairing it fed; all or nothing, so a refused round leaves no orphan lot. The batch carries
`expected_seq`: if the tournament changed between the fold and the append (a result entered,
another pairing), it is paired again from the new state.

A published round is never changed silently: a later correction of an earlier result leaves
it standing and flagged (the standings document's `flags`). Re-pairing is explicit (issue 14:
"the arbiter may re-pair explicitly (a new event that supersedes the round, refused once any
game of it has started)"): `pair_next(replace=True)` (`arbiter pair --replace`,
`POST /tournaments/{id}/pair` with `"replace": true`) appends, in ONE batch, the
`EventRetracted` of the stage's latest `RoundScheduled`, then the lots and the new
`RoundScheduled` of the same round, paired from the state without the old round; all or
nothing, with `expected_seq`. Refused (`pairing.round_in_play`, nothing appended) once any
game of that round has started (a `GameStarted` or a move in force, with or without a result)
or ended; the decider's `retraction.round_in_play` guards the same rule inside the batch.
Only the latest round of the stage can be replaced (`pairing.not_latest_round` when
`expected_round` names another); lots in force stay in force (the drawn initial colour, a
round robin's pairing numbers): retract a lot first to draw it again. The retraction is an
`EventRetracted`, which the command path lets an arbiter append only inside such a re-pair
batch (the round it retracts scheduled again in the same batch; services/commands/service.py
`_check_repair`), an admin always; any other role is refused before anything is paired. A
replace is not a resend-safe request: each one re-pairs the latest round again.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from events_schema import Actor, Command, CommandBatch, Recorded, encode_payload
from events_schema import events as ev
from projections.pairing.base import PairingContext, PairingRefused, context
from projections.pairing.systems import propose, system_name
from projections.standings import StandingsState
from projections.standings import evolve as standings_evolve
from projections.standings import fold as standings_fold
from services.commands.lots import draw
from services.commands.service import CommandRejected, CommandService
from services.eventlog.base import AppendConflict, AppendResult, NewEvent, utcnow

MAX_LOT_ROUNDS = 8  # a system asks for its lots in a few steps at most
#: Issue 14: a re-pair "supersedes the round, refused once any game of it has started".
REPAIR_RULE = "issue 14: a published round is re-paired only before any of its games starts"
REPAIR_REASON = "re-paired (arbiter pair --replace)"


@dataclass(frozen=True)
class Replaced:
    """The round a replace retracted: its `RoundScheduled` event id and seq."""

    stage: str
    round: int
    event_id: uuid.UUID
    seq: int
    scheduled_at: datetime | None = None  # the retracted round's start, kept by the new one


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


def latest_round(records: list[Recorded], state: StandingsState, stage: str) -> Replaced:
    """The stage's latest round in force, the one a replace retracts."""
    keys = [r for (st, r) in state.round_keys if st == stage]
    if not keys:
        raise CommandRejected(
            "pairing.nothing_to_replace", "replace", f"{stage!r} has no round to re-pair"
        )
    rnd = max(keys)
    eid = state.round_keys[(stage, rnd)]
    rec = next(r for r in records if r.envelope.event_id == eid)
    at = rec.event.scheduled_at if isinstance(rec.event, ev.RoundScheduled) else None
    return Replaced(stage, rnd, eid, rec.envelope.seq, at)


def check_unstarted(state: StandingsState, target: Replaced) -> None:
    """Refuse to re-pair a round any game of which has started (a `GameStarted` or a move in
    force, ended or not) or ended (a result in force)."""
    game_ids, _ = state.rounds[target.event_id]
    for gid in game_ids:
        g = state.games.get(gid)
        if g is None:
            continue
        if g.results or g.started or g.moves:
            status = "ended" if g.results else "started (no result yet)"
            raise CommandRejected(
                "pairing.round_in_play",
                "replace",
                f"round {target.round} of {target.stage!r} cannot be re-paired: game {gid} "
                f"has {status} ({REPAIR_RULE})",
            )


def _retracted(
    tournament_id: str, state: StandingsState, retraction: ev.EventRetracted, actor: Actor
) -> StandingsState:
    """`state` (a fold of its own, changed in place) as it will be once `retraction` is
    appended: a speculative fold, as the command path folds a batch."""
    now = utcnow()
    env = NewEvent(
        event_id=uuid.uuid4(),
        type=retraction.event_type,
        schema_version=retraction.schema_version,
        occurred_at=now,
        actor=actor,
        payload=encode_payload(retraction),
    ).sealed(tournament_id, state.seq + 1, "0" * 64, now)
    return standings_evolve(state, Recorded(env, retraction))


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

    With `replace`, re-pair the stage's latest round instead (the module docstring): its
    retraction (with `reason`), the lots and the new round in one batch; `expected_round`, if
    given, must be that round."""
    if replace and actor.role not in ("admin", "arbiter"):
        raise CommandRejected(
            "auth.arbiter_only",
            "replace",
            "re-pairing retracts the published round (EventRetracted), which only an arbiter "
            f"or an admin may do; {actor.role} {actor.id} may not",
            status=403,
        )
    for _attempt in range(attempts):
        records = [Recorded.of(e) for e in service.log.read(tournament_id, 1)]
        state = standings_fold(records)
        if state.created is None:
            raise CommandRejected(
                "pairing.unknown_tournament", "tournament", f"{tournament_id!r} has no events"
            )
        name = system_name(state.created) or "manual"
        commands: list[Command] = []
        target: Replaced | None = None
        if replace:
            target = latest_round(records, state, stage)
            if expected_round is not None and expected_round != target.round:
                raise CommandRejected(
                    "pairing.not_latest_round",
                    "round",
                    f"only the latest round of {stage!r} ({target.round}) can be re-paired, "
                    f"not {expected_round}",
                )
            check_unstarted(state, target)
            retraction = ev.EventRetracted(
                retracted_event_id=target.event_id, reason=reason or REPAIR_REASON
            )
            commands.append(Command(type="EventRetracted", payload=encode_payload(retraction)))
            base_seq = state.seq
            state = _retracted(tournament_id, state, retraction, actor)
        else:
            base_seq = state.seq
            if expected_round is not None and (stage, expected_round) in state.round_keys:
                ctx = context(state, stage)
                return Paired(tournament_id, name, ctx.scheduled[expected_round])
        try:
            ctx = context(state, stage)
            if expected_round is not None and expected_round != ctx.round:
                raise PairingRefused(
                    "pairing.not_next_round",
                    "round",
                    f"the next round of {stage!r} is {ctx.round}, not {expected_round}",
                )
            rnd, lots, notes = plan(ctx, seed)
        except PairingRefused as exc:
            raise refused(exc) from None
        start = scheduled_at or (target.scheduled_at if target is not None else None)
        if start is not None:  # the round's start (LGC Timing "Start": lateness)
            rnd = rnd.model_copy(update={"scheduled_at": start})
        commands += [Command(type="LotDrawn", payload=encode_payload(lot)) for lot in lots]
        commands.append(Command(type="RoundScheduled", payload=encode_payload(rnd)))
        batch = CommandBatch(commands=commands, expected_seq=base_seq)
        try:
            result = service.handle(tournament_id, batch, actor)
        except AppendConflict:
            continue  # the tournament changed under us: pair again from the new state
        seqs = [e.seq for e in result.envelopes]
        return Paired(tournament_id, name, rnd, lots, notes, result, seqs, target)
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
            {
                "board": p.board if p.board is not None else i,
                "game_id": p.game_id,
                "white": p.white,
                "black": p.black,
                "pair_id": p.pair_id,
                "opening": p.opening,
                "handicap": p.handicap,
            }
            for i, p in enumerate(rnd.pairings, start=1)
        ],
        "byes": [{"player_id": b.player_id, "kind": b.kind} for b in rnd.byes],
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
        "notes": list(p.notes),
    }
