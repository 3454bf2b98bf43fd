"""The re-pair rule (issue 14), in one module: replacing the latest round of a stage.

A published round is never changed silently: a later correction of an earlier result leaves
it standing and flagged (the standings document's `flags`). Re-pairing is explicit (issue 14:
"the arbiter may re-pair explicitly (a new event that supersedes the round, refused once any
game of it has started)"): `pair_next(replace=True)` (`arbiter pair --replace`,
`POST /tournaments/{id}/pair` with `"replace": true`) appends, in ONE batch, the
`EventRetracted` of the stage's latest `RoundScheduled`, then the lots and the new
`RoundScheduled` of the same round, paired from the state without the old round; all or
nothing, with `expected_seq`. The steps, each a function here:

- who (`check_actor`): only an arbiter or an admin, refused (`auth.arbiter_only`) before
  anything is paired. The retraction is an `EventRetracted`, which the command path lets an
  arbiter append only inside such a re-pair batch (the round it retracts scheduled again in the
  same batch; services/commands/service.py `_check_repair`), an admin always;
- which round (`latest_round`, `check_expected`): only the latest round of the stage
  (`pairing.nothing_to_replace` without one, `pairing.not_latest_round` when the request
  names another);
- when (`check_unstarted`): refused (`pairing.round_in_play`, nothing appended) once any game
  of that round has started (a `GameStarted` or a move in force, with or without a result) or
  ended; the decider's `retraction.round_in_play` guards the same rule inside the batch;
- what (`retraction`, `without`): the retraction, and the state as it will be once appended,
  which the round is paired from. Lots in force stay in force (the drawn initial colour, a
  round robin's pairing numbers): retract a lot first to draw it again. The new round keeps
  the retracted round's start unless another is given.

A `reason` goes with a replace only (`reason_without_replace`). A replace is not a
resend-safe request: each one re-pairs the latest round again.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from events_schema import Actor, Command, Recorded, encode_payload
from events_schema import events as ev
from projections.standings import StandingsState
from projections.standings import evolve as standings_evolve
from services.commands.service import CommandRejected
from services.eventlog.base import NewEvent, utcnow

#: Issue 14: a re-pair "supersedes the round, refused once any game of it has started".
REPAIR_RULE = "issue 14: a published round is re-paired only before any of its games starts"
REPAIR_REASON = "re-paired (arbiter pair --replace)"
#: The refusal of a reason given without a replace (CLI and API name their own field).
REASON_WITHOUT_REPLACE = "pairing.reason_without_replace"


@dataclass(frozen=True)
class Replaced:
    """The round a replace retracted: its `RoundScheduled` event id and seq."""

    stage: str
    round: int
    event_id: uuid.UUID
    seq: int
    scheduled_at: datetime | None = None  # the retracted round's start, kept by the new one


def reason_without_replace(replace: bool, reason: str | None) -> bool:
    """A reason says why a round is re-paired: one given without a replace is refused."""
    return reason is not None and not replace


def check_actor(actor: Actor) -> None:
    """Only an arbiter or an admin may re-pair (it retracts the published round)."""
    if actor.role not in ("admin", "arbiter"):
        raise CommandRejected(
            "auth.arbiter_only",
            "replace",
            "re-pairing retracts the published round (EventRetracted), which only an arbiter "
            f"or an admin may do; {actor.role} {actor.id} may not",
            status=403,
        )


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


def check_expected(target: Replaced, expected_round: int | None) -> None:
    """A request that names its round must name the latest one."""
    if expected_round is not None and expected_round != target.round:
        raise CommandRejected(
            "pairing.not_latest_round",
            "round",
            f"only the latest round of {target.stage!r} ({target.round}) can be re-paired, "
            f"not {expected_round}",
        )


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


def retraction(target: Replaced, reason: str | None) -> ev.EventRetracted:
    return ev.EventRetracted(retracted_event_id=target.event_id, reason=reason or REPAIR_REASON)


def without(
    tournament_id: str, state: StandingsState, retracted: ev.EventRetracted, actor: Actor
) -> StandingsState:
    """`state` (a fold of its own, changed in place) as it will be once `retracted` is
    appended: a speculative fold, as the command path folds a batch."""
    now = utcnow()
    env = NewEvent(
        event_id=uuid.uuid4(),
        type=retracted.event_type,
        schema_version=retracted.schema_version,
        occurred_at=now,
        actor=actor,
        payload=encode_payload(retracted),
    ).sealed(tournament_id, state.seq + 1, "0" * 64, now)
    return standings_evolve(state, Recorded(env, retracted))


@dataclass(frozen=True)
class Replacement:
    """A replace, ready to pair: the round it retracts, the retraction's command (first in
    the batch) and the state to pair from (without the old round)."""

    target: Replaced
    command: Command
    state: StandingsState


def prepare(
    tournament_id: str,
    records: list[Recorded],
    state: StandingsState,
    actor: Actor,
    *,
    stage: str,
    expected_round: int | None,
    reason: str | None,
) -> Replacement:
    """The checks of the rule, in order, then the retraction and the state without the round
    (`state` is changed in place)."""
    target = latest_round(records, state, stage)
    check_expected(target, expected_round)
    check_unstarted(state, target)
    retracted = retraction(target, reason)
    command = Command(type="EventRetracted", payload=encode_payload(retracted))
    return Replacement(target, command, without(tournament_id, state, retracted, actor))
