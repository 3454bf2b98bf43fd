"""Seasons at the edge: read the series and its stages, record the next stage's field, create
the stage's tournament, all through the command path (`CommandService.handle`).

`start` creates the season: `SeriesCreated` and the organisers' plan (`RulingIssued(subject=
"season:plan")`) in one batch on the series stream.

`advance` folds the series stream and every stage's tournament, asks the pure season view
(`projections/seasons/view.py`) what is known, and appends, one batch per stream:

1. on the series stream: the lots the derivation needs (`LotDrawn`, drawn here with
   `services/commands/lots.py`, the only place randomness lives; first, so a replay reads each
   random
   choice before the field it fed), a `RulingIssued(subject="field:<tournament id>")` for
   every stage whose field the finished stages now give (rule cited, `decision={"players":
   [...], "derived_from": {...}}`), and the next Season's placement
   (`RulingIssued(subject="placement:next-season")`) once the Leagues are finished;
2. on each new stage's stream: `TournamentCreated` (with `series_id`, format, preset, cycles,
   rounds, time control) and a `PlayerRegistered` per engine of the field ruling in force,
   seeded as it says (`expected_seq=0`: a stage that exists is never created twice);
3. on a stage not yet paired whose registrations differ from the field ruling in force (an
   arbiter overruled the field: retracted the ruling, `EventRetracted`, and issued another):
   the retractions and registrations that make them agree.

Idempotent: run again with nothing new finished, it appends nothing. A field the standings
cannot give (a line inside a tie left to the organisers, a lot that does not fit) is reported,
not guessed: the arbiter issues the field ruling, and the next `advance` creates the stage.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from events_schema import Actor, Command, CommandBatch, Recorded, encode_payload
from events_schema import events as ev
from projections.seasons import (
    FORMATS,
    PLACEMENT_SUBJECT,
    PLAN_SUBJECT,
    SeasonView,
    StageView,
    field_subject,
    season_view,
    total_rounds,
    tournament_id,
)
from projections.seasons.view import check_plan
from projections.standings import StandingsState
from projections.standings import fold as standings_fold
from services.commands.lots import draw
from services.commands.service import CommandRejected, CommandService
from services.eventlog.base import AppendConflict, EventLog

PLAN_RULING_ID = "season-plan"
MAX_LOT_ROUNDS = 4


@dataclass
class Appended:
    stream: str
    what: str
    types: list[str]
    seqs: list[int]

    def as_dict(self) -> dict[str, Any]:
        return {"stream": self.stream, "what": self.what, "types": self.types, "seqs": self.seqs}


@dataclass
class Advanced:
    series_id: str
    view: SeasonView  # after the appends
    appended: list[Appended] = field(default_factory=list)
    planned: list[str] = field(default_factory=list)  # dry run: what would be appended
    problems: list[str] = field(default_factory=list)

    @property
    def nothing_appended(self) -> bool:
        return not self.appended

    def as_dict(self) -> dict[str, Any]:
        return {
            "series_id": self.series_id,
            "appended": [a.as_dict() for a in self.appended],
            "planned": self.planned,
            "problems": self.problems,
            "season": self.view.as_dict(),
        }


# --- reading -----------------------------------------------------------------------------------


def _records(log: EventLog, stream: str) -> list[Recorded]:
    return [Recorded.of(e) for e in log.read(stream, 1)]


@dataclass
class Loaded:
    series: StandingsState
    series_name: str
    ruling_ids: set[str]  # every ruling id the series stream ever used (retracted ones too)
    tournaments: dict[str, StandingsState]
    view: SeasonView


def load(log: EventLog, series_id: str, extra_lots: Iterable[ev.LotDrawn] = ()) -> Loaded:
    """The series and its stages, folded, and the season view."""
    records = _records(log, series_id)
    created = next((r.event for r in records if isinstance(r.event, ev.SeriesCreated)), None)
    if created is None:
        raise CommandRejected(
            "season.unknown_series", "series", f"{series_id!r} has no SeriesCreated"
        )
    series = standings_fold(records)
    ids = {r.event.ruling_id for r in records if isinstance(r.event, ev.RulingIssued)}
    view = season_view(series_id, series, {}, extra_lots)
    tournaments: dict[str, StandingsState] = {}
    if view.fmt is not None:
        for spec in view.fmt.stages:
            tid = tournament_id(series_id, spec.key)
            recs = _records(log, tid)
            if recs:
                tournaments[tid] = standings_fold(recs)
        view = season_view(series_id, series, tournaments, extra_lots)
    return Loaded(series, created.name, ids, tournaments, view)


def show(log: EventLog, series_id: str) -> SeasonView:
    return load(log, series_id).view


# --- starting --------------------------------------------------------------------------------


def start(
    service: CommandService,
    series_id: str,
    name: str,
    plan: Any,
    actor: Actor,
) -> list[int]:
    """Create the season: `SeriesCreated` and the plan ruling, one batch. Resending the same
    plan appends nothing (returns []); a different plan for an existing season is refused
    (retract the plan ruling and issue another)."""
    parsed, found = check_plan(plan)
    if found or parsed is None:
        raise CommandRejected.of(found)  # every problem of the plan, each with its place
    fmt = FORMATS[parsed.format]
    decision = parsed.model_dump(mode="json", exclude_defaults=True)
    decision["format"] = parsed.format
    records = _records(service.log, series_id)
    if records:
        current = [
            r.event
            for r in records
            if isinstance(r.event, ev.RulingIssued) and r.event.subject == PLAN_SUBJECT
        ]
        if current and current[-1].decision == decision:
            return []
        raise CommandRejected(
            "season.exists",
            "series",
            f"{series_id!r} exists with another plan: retract its plan ruling "
            "(EventRetracted) and issue a new RulingIssued(subject='season:plan')",
        )
    ruling = ev.RulingIssued(
        ruling_id=PLAN_RULING_ID,
        by=actor.id,
        subject=PLAN_SUBJECT,
        rule=_cap(f"{fmt.article}; tcec-rules Leagues 1.8, 1.9 (engines (re)invited, placed)"),
        text=f"{fmt.title}: the organisers' plan ({len(parsed.engines)} engines)",
        decision=decision,
    )
    series = ev.SeriesCreated(name=name, kind="tcec-season")
    result = service.handle(series_id, _batch([series, ruling], expected_seq=0), actor)
    return [e.seq for e in result.envelopes]


# --- advancing ---------------------------------------------------------------------------------


def _batch(events: Sequence[ev.Event], expected_seq: int | None) -> CommandBatch:
    return CommandBatch(
        commands=[Command(type=e.event_type, payload=encode_payload(e)) for e in events],
        expected_seq=expected_seq,
    )


def _cap(text: str, n: int = 200) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _fresh_id(base: str, used: set[str]) -> str:
    """A ruling id not used before on the stream (a retracted ruling keeps its id)."""
    if base not in used:
        return base
    n = 2
    while f"{base}-{n}" in used:
        n += 1
    return f"{base}-{n}"


def _field_ruling(sv: StageView, actor: Actor, used: set[str]) -> ev.RulingIssued:
    derived = sv.derived
    assert derived is not None
    spec = sv.spec
    names = ", ".join(f"{p.seed}. {p.name}" for p in derived.players)
    sources = ", ".join(
        f"{k} ({v['tournament_id']} at seq {v['as_of_seq']})"
        for k, v in derived.derived_from.items()
        if isinstance(v, dict) and "as_of_seq" in v
    )
    text = f"{spec.name} ({sv.tournament_id}): {len(derived.players)} engines: {names}"
    if sources:
        text += f"; derived from the standings of {sources}"
    rid = _fresh_id(f"field-{spec.key}", used)
    used.add(rid)
    return ev.RulingIssued(
        ruling_id=rid,
        by=actor.id,
        subject=field_subject(sv.tournament_id),
        rule=_cap(derived.rule),
        text=_cap(text, 8000),
        decision=derived.decision(spec, sv.tournament_id),
    )


def _placement_ruling(view: SeasonView, actor: Actor, used: set[str]) -> ev.RulingIssued:
    placement = view.placement
    assert placement is not None
    parts = [f"{k}: {', '.join(v)}" for k, v in placement.placed.items()]
    text = "Next Season's placement (tcec-rules Leagues 1.8): " + "; ".join(parts)
    if placement.left:
        text += f"; leaving the Leagues: {', '.join(placement.left)}"
    rid = _fresh_id("placement-next-season", used)
    used.add(rid)
    return ev.RulingIssued(
        ruling_id=rid,
        by=actor.id,
        subject=PLACEMENT_SUBJECT,
        rule="tcec-rules Leagues 1.8, 2.7, 3.6, 4.7, 5.7, 8.2",
        text=_cap(text, 8000),
        decision=placement.decision(),
    )


def _draw_lots(log: EventLog, series_id: str, seed: str | None) -> tuple[Loaded, list[ev.LotDrawn]]:
    """Load the season, drawing the lots its derivation asks for until it asks no more."""
    drawn: list[ev.LotDrawn] = []
    loaded = load(log, series_id)
    for _ in range(MAX_LOT_ROUNDS):
        asked = loaded.view.lots
        if not asked:
            return loaded, drawn
        for b in asked:
            req = b.lot
            assert req is not None
            drawn.append(
                draw(
                    req.purpose,
                    req.subject,
                    list(req.candidates),
                    req.pick,
                    None if seed is None else f"{seed}:{req.subject}",
                )
            )
        loaded = load(log, series_id, drawn)
    raise CommandRejected("season.lots_loop", "lots", "the season kept asking for lots")


def _append(
    service: CommandService,
    stream: str,
    events: Sequence[ev.Event],
    expected_seq: int,
    actor: Actor,
    what: str,
) -> Appended:
    result = service.handle(stream, _batch(events, expected_seq), actor)
    return Appended(stream, what, [e.event_type for e in events], [e.seq for e in result.envelopes])


def _series_step(
    service: CommandService, series_id: str, actor: Actor, seed: str | None, dry_run: bool
) -> tuple[list[Appended], list[str]]:
    """Step 1: lots, field rulings and the placement ruling on the series stream."""
    for _attempt in range(3):
        loaded, lots = _draw_lots(service.log, series_id, seed)
        view = loaded.view
        if view.problems:
            raise CommandRejected("season.plan", "plan", "; ".join(view.problems))
        used = set(loaded.ruling_ids)
        events: list[ev.Event] = list(lots)
        for sv in view.stages:
            if sv.status == "ready" and sv.to_record:
                events.append(_field_ruling(sv, actor, used))
        if view.placement_source == "derived" and view.placement is not None:
            events.append(_placement_ruling(view, actor, used))
        planned = [_describe(e) for e in events]
        if not events or dry_run:
            return [], planned
        try:
            done = _append(service, series_id, events, loaded.series.seq, actor, "lots and rulings")
        except AppendConflict:
            continue  # the series changed under us: derive again from the new state
        return [done], planned
    raise CommandRejected(
        "concurrency.retries_exhausted", "expected_seq", f"{series_id} kept changing", status=409
    )


def _describe(e: ev.Event) -> str:
    if isinstance(e, ev.LotDrawn):
        return f"LotDrawn {e.subject}: {' '.join(e.outcome)}"
    if isinstance(e, ev.RulingIssued):
        return f"RulingIssued {e.subject} ({e.ruling_id})"
    if isinstance(e, ev.TournamentCreated):
        return f"TournamentCreated {e.name}"
    return e.event_type


def _registration(entry: Any) -> ev.PlayerRegistered:
    return ev.PlayerRegistered(
        player_id=entry.player_id,
        name=entry.name,
        kind="engine",
        seed=entry.seed,
        rating=entry.rating,
    )


def _create(sv: StageView, series_id: str, series_name: str) -> list[ev.Event]:
    spec = sv.spec
    created = ev.TournamentCreated(
        name=_cap(f"{series_name}: {spec.name}"),
        game="chess",
        format=spec.format,
        cycles=spec.cycles,
        rounds=total_rounds(spec, len(sv.field)),
        rules_preset=spec.rules_preset,
        time_controls=[] if spec.time_control is None else [spec.time_control],
        series_id=series_id,
    )
    return [created, *(_registration(e) for e in sv.field)]


def _reconcile(sv: StageView, state: StandingsState) -> list[ev.Event] | str:
    """The retractions and registrations that make an unpaired stage's registrations agree
    with its field ruling in force; a reason when it is too late (rounds or lots)."""
    if state.unreadable:
        return f"{sv.tournament_id} is held by an unreadable event: retract it first"
    if state.round_keys or state.lots:
        return (
            f"{sv.tournament_id}: its registrations differ from the field ruling "
            f"{sv.ruling_id!r} in force, but rounds or lots are recorded: retract them first "
            "(or the field ruling)"
        )
    want = {e.player_id: e for e in sv.field}
    have = {e.player_id: e for e in sv.registered}
    out: list[ev.Event] = []
    for eid, pid in state.registrations.items():
        if pid not in want or not want[pid].same_entry(have[pid]):
            out.append(
                ev.EventRetracted(
                    retracted_event_id=eid,
                    reason=f"the field ruling {sv.ruling_id} in force does not register "
                    f"{pid} so (season advance)",
                )
            )
    for pid, entry in want.items():
        if pid not in have or not entry.same_entry(have[pid]):
            out.append(_registration(entry))
    return out


def advance(
    service: CommandService,
    series_id: str,
    actor: Actor,
    *,
    seed: str | None = None,
    dry_run: bool = False,
) -> Advanced:
    """Record every field the finished stages now give and create those stages (see the module
    docstring). `seed` makes the lots reproducible (`seed:subject`); `dry_run` appends nothing
    and lists what would be appended."""
    appended, planned = _series_step(service, series_id, actor, seed, dry_run)
    loaded = load(service.log, series_id)
    problems: list[str] = []
    for sv in loaded.view.stages:
        if sv.status == "ready" and sv.field_source == "ruling":
            events = _create(sv, series_id, loaded.series_name)
            planned.append(f"{sv.tournament_id}: TournamentCreated + {len(sv.field)} engines")
            if dry_run:
                continue
            try:
                appended.append(
                    _append(service, sv.tournament_id, events, 0, actor, "stage created")
                )
            except AppendConflict:
                problems.append(f"{sv.tournament_id} was created meanwhile; left as it is")
        elif sv.registrations_differ:
            state = loaded.tournaments[sv.tournament_id]
            fix = _reconcile(sv, state)
            if isinstance(fix, str):
                problems.append(fix)
                continue
            planned.append(f"{sv.tournament_id}: re-registered to the field ruling in force")
            if dry_run or not fix:
                continue
            appended.append(
                _append(service, sv.tournament_id, fix, state.seq, actor, "field re-registered")
            )
    if dry_run:
        view = loaded.view
    else:
        view = load(service.log, series_id).view if appended else loaded.view
    for sv in view.stages:
        if sv.blocked is not None and sv.blocked.kind in ("ruling", "plan"):
            problems.append(f"{sv.spec.name}: {sv.blocked.text}")
    if view.placement_blocked is not None and view.placement_blocked.kind != "waiting":
        problems.append(f"placement: {view.placement_blocked.text}")
    return Advanced(series_id, view, appended, planned, problems)
