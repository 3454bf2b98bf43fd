"""The season as a whole: every stage's status and field, the moves, the next Season's
placement; a pure function of the series stream's fold and the stages' folds.

The series stream (`SeriesCreated`) holds the season's decisions, all `RulingIssued` (the
latest in force per subject; an arbiter overrules one by retracting it, `EventRetracted`, and
issuing another) and `LotDrawn`:

- `season:plan` — the organisers' plan (`SeasonPlan`: format, engines, placements);
- `field:<tournament id>` — a stage's field (`decision.players`), recorded by `season advance`
  from the finished stages' standings (`derive.derive_field`) or issued by an arbiter;
- `placement:next-season` — where every League engine ends up for the next Season (Leagues
  1.8), once the four Leagues are finished.

A stage's tournament is "<series id>-<stage key>". Its status: `waiting` (a stage it needs is
not finished), `awaiting_lot` / `awaiting_ruling` (a lot to draw, the organisers to decide),
`ready` (its field is known: to record and/or to create), then `created`, `in_progress`,
`finished` from its own fold (`reading.read_stage`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from pydantic import ValidationError

from events_schema.events import LotDrawn, RulingIssued
from events_schema.inputs import Problem, problems
from projections.seasons.derive import (
    Blocked,
    Derived,
    Inputs,
    derive_field,
    field_of_ruling,
    tournament_id,
    vacancies,
)
from projections.seasons.fourk import TCEC_4K
from projections.seasons.frd import TCEC_FRD
from projections.seasons.reading import StageOutcome, read_stage
from projections.seasons.structure import (
    PLAN_SUBJECT,
    FieldEntry,
    PlanEngine,
    SeasonFormat,
    SeasonPlan,
    StageSpec,
    Top,
)
from projections.seasons.tcec import TCEC_LEAGUES, TCEC_SEASON, TCEC_SWISS_CUP
from projections.standings.state import StandingsState

FORMATS: dict[str, SeasonFormat] = {
    f.name: f for f in (TCEC_LEAGUES, TCEC_SEASON, TCEC_SWISS_CUP, TCEC_FRD, TCEC_4K)
}

FIELD_PREFIX = "field:"
PLACEMENT_SUBJECT = "placement:next-season"

StageStatus = Literal[
    "waiting", "awaiting_lot", "awaiting_ruling", "ready", "created", "in_progress", "finished"
]


def field_subject(tid: str) -> str:
    return f"{FIELD_PREFIX}{tid}"


@dataclass(frozen=True)
class StageView:
    spec: StageSpec
    tournament_id: str
    status: StageStatus
    outcome: StageOutcome
    field: tuple[FieldEntry, ...] = ()  # the field in force (ruling), else derived, else none
    field_source: Literal["ruling", "derived", "registrations", "none"] = "none"
    ruling_id: str | None = None  # the field ruling in force
    derived: Derived | None = None  # what the finished stages give now
    blocked: Blocked | None = None
    registered: tuple[FieldEntry, ...] = ()  # the tournament's registrations
    stale: bool = False  # the ruling in force differs from what the standings now give
    notes: tuple[str, ...] = ()

    @property
    def to_record(self) -> bool:
        """The derived field is to be recorded as the stage's field ruling."""
        return self.field_source == "derived" and self.derived is not None

    @property
    def to_create(self) -> bool:
        return self.status == "ready"

    @property
    def registrations_differ(self) -> bool:
        """The tournament's registrations are not the field ruling in force."""
        if self.field_source != "ruling" or self.outcome.status == "not_created":
            return False
        want = {e.player_id: e for e in self.field}
        have = {e.player_id: e for e in self.registered}
        return want.keys() != have.keys() or any(not want[p].same_entry(have[p]) for p in want)

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.spec.key,
            "name": self.spec.name,
            "tournament_id": self.tournament_id,
            "status": self.status,
            "format": self.spec.format,
            "rules_preset": self.spec.rules_preset,
            "cycles": self.spec.cycles,
            "article": self.spec.article,
            "field_source": self.field_source,
            "field_ruling": self.ruling_id,
            "field": [e.as_dict() for e in self.field],
            "stale": self.stale,
            "registrations_differ": self.registrations_differ,
            "blocked": None if self.blocked is None else self.blocked.as_dict(),
            "outcome": self.outcome.as_dict(),
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class Move:
    """Where an engine of a League goes (Leagues 2.7, 3.6, 4.7, 5.7, 1.8, 8.2)."""

    player_id: str
    name: str
    league: str  # the League it ended the Season in
    place: int
    kind: Literal["promoted", "stays", "relegated", "leaves"]
    to: str | None  # a stage of this Season (promoted), a League of the next (stays,
    # relegated), None (leaves the Leagues)
    rule: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "player_id": self.player_id,
            "name": self.name,
            "league": self.league,
            "place": self.place,
            "kind": self.kind,
            "to": self.to,
            "rule": self.rule,
        }


@dataclass(frozen=True)
class Placement:
    """The next Season's Leagues (top first), the engines leaving, and every move."""

    placed: Mapping[str, tuple[str, ...]]
    left: tuple[str, ...]
    moves: tuple[Move, ...] = ()
    derived_from: Mapping[str, Any] = field(default_factory=dict)

    def decision(self) -> dict[str, Any]:
        return {
            "placed": {k: list(v) for k, v in self.placed.items()},
            "left": list(self.left),
            "moves": [m.as_dict() for m in self.moves],
            "derived_from": dict(self.derived_from),
        }

    def moved(self, kind: str, league: str | None = None) -> list[str]:
        """The engines of `kind` ("promoted", "stays", "relegated", "leaves"), of one League
        or all, in the order of the moves (League by League, by place)."""
        return [
            m.player_id
            for m in self.moves
            if m.kind == kind and (league is None or m.league == league)
        ]


@dataclass(frozen=True)
class SeasonView:
    series_id: str
    fmt: SeasonFormat | None
    plan: SeasonPlan | None
    plan_ruling: str | None
    stages: tuple[StageView, ...] = ()
    placement: Placement | None = None  # in force (ruling) or derived
    placement_source: Literal["ruling", "derived", "none"] = "none"
    placement_ruling: str | None = None
    placement_blocked: Blocked | None = None
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def stage(self, key: str) -> StageView:
        for s in self.stages:
            if s.spec.key == key:
                return s
        raise KeyError(key)

    @property
    def lots(self) -> tuple[Blocked, ...]:
        """The lots to draw before a field can be derived (one per subject)."""
        out: dict[str, Blocked] = {}
        for s in self.stages:
            b = s.blocked
            if b is not None and b.kind == "lot" and b.lot is not None:
                out.setdefault(b.lot.subject, b)
        return tuple(out.values())

    @property
    def champion(self) -> str | None:
        """The winner of the season's last stage (Leagues 8.1: the Grand Champion)."""
        return self.stages[-1].outcome.champion if self.stages else None

    def promoted(self, key: str) -> list[tuple[str, str]]:
        """(engine, stage) for each engine of stage `key` that went on to a later stage by
        its result (promotion, qualification), from the fields in force or derived: entries
        that come from `key`, or, in a field an arbiter wrote without origins, engines of
        `key` in a stage that takes from it."""
        mine = {s.player_id for s in self.stage(key).outcome.order}
        out: list[tuple[str, str]] = []
        for s in self.stages:
            if key not in s.spec.inputs:
                continue
            for e in s.field:
                if e.source == key or (e.source == "ruling" and e.player_id in mine):
                    out.append((e.player_id, s.spec.key))
        return out

    def as_dict(self) -> dict[str, Any]:
        fmt = self.fmt
        return {
            "series_id": self.series_id,
            "format": None if fmt is None else fmt.name,
            "title": None if fmt is None else fmt.title,
            "article": None if fmt is None else fmt.article,
            "plan_ruling": self.plan_ruling,
            "stages": [
                {
                    **s.as_dict(),
                    "promoted": [{"player_id": p, "to": to} for p, to in self.promoted(s.spec.key)],
                }
                for s in self.stages
            ],
            "placement": None
            if self.placement is None
            else {
                "source": self.placement_source,
                "ruling": self.placement_ruling,
                **self.placement.decision(),
            },
            "placement_blocked": None
            if self.placement_blocked is None
            else self.placement_blocked.as_dict(),
            "champion": self.champion,
            "problems": list(self.problems),
            "notes": list(self.notes),
            "readings": {} if fmt is None else dict(fmt.readings),
        }


# --- the plan --------------------------------------------------------------------------------


def latest_ruling(rulings: Iterable[RulingIssued], subject: str) -> RulingIssued | None:
    found = None
    for r in rulings:
        if r.subject == subject:
            found = r
    return found


def read_plan(
    rulings: Iterable[RulingIssued],
) -> tuple[SeasonPlan | None, SeasonFormat | None, str | None, list[str]]:
    """The plan in force, its format, its ruling id, and what is wrong with it (every
    problem, not the first)."""
    ruling = latest_ruling(rulings, PLAN_SUBJECT)
    if ruling is None:
        return None, None, None, [f"no season plan: issue RulingIssued(subject={PLAN_SUBJECT!r})"]
    plan, found = check_plan(ruling.decision)
    if plan is None:
        shown = [f"plan {ruling.ruling_id!r}: {p.field}: {p.message}" for p in found]
        return None, None, ruling.ruling_id, shown
    fmt = FORMATS.get(plan.format)
    return plan, fmt, ruling.ruling_id, [f"{p.field}: {p.message}" for p in found]


def check_plan(raw: object) -> tuple[SeasonPlan | None, list[Problem]]:
    """Read a season plan and name EVERY problem in it, each with its place: what the schema
    refuses (`season.invalid_plan`, all of pydantic's errors), an unknown format
    (`season.unknown_format`) and what the format's rules refuse (`plan_findings`). The
    rules are checked on what the schema accepts of the plan, so a plan with a bad rating and
    an engine missing from `engines` is told both at once. The plan is None when the schema
    refuses it (or it is no JSON object)."""
    if not isinstance(raw, Mapping):
        return None, [Problem(INVALID_PLAN, "plan", "the plan is a JSON object")]
    try:
        plan = SeasonPlan.model_validate(raw)
    except ValidationError as exc:
        salvaged, engines_known = _salvage(raw, exc)
        found = problems(exc, INVALID_PLAN, "plan")
        return None, found + ([] if salvaged is None else _rules(salvaged, engines_known))
    return plan, _rules(plan, True)


INVALID_PLAN = "season.invalid_plan"


def _rules(plan: SeasonPlan, engines_known: bool) -> list[Problem]:
    """An unknown format, or what the format's rules refuse (`plan_findings`)."""
    fmt = FORMATS.get(plan.format)
    if fmt is None:
        known = ", ".join(sorted(FORMATS))
        text = f"unknown season format {plan.format!r}; known: {known}"
        return [Problem("season.unknown_format", "plan.format", text)]
    findings = plan_findings(plan, fmt, engines_known)
    return [Problem(INVALID_PLAN, where, what) for where, what in findings]


def _salvage(raw: Mapping[str, Any], exc: ValidationError) -> tuple[SeasonPlan | None, bool]:
    """What the schema accepts of a refused plan, to check the format's rules on: the keys
    without errors, and of `engines` the entries without errors (an entry with an error but
    a readable `player_id` still counts as listed). None when even that does not validate
    (e.g. the format itself is wrong: no rule can be read then)."""
    bad_keys = {err["loc"][0] for err in exc.errors() if len(err["loc"]) == 1}
    bad_engines = {
        err["loc"][1]
        for err in exc.errors()
        if len(err["loc"]) > 1 and err["loc"][0] == "engines" and isinstance(err["loc"][1], int)
    }
    kept = {k: v for k, v in raw.items() if k not in bad_keys and k in SeasonPlan.model_fields}
    engines_known = "engines" not in bad_keys
    listed: list[PlanEngine] = []
    if engines_known and isinstance(raw.get("engines"), list):
        kept["engines"] = [e for i, e in enumerate(raw["engines"]) if i not in bad_engines]
        for i in sorted(bad_engines):
            entry = raw["engines"][i]
            pid = entry.get("player_id") if isinstance(entry, Mapping) else None
            if isinstance(pid, str):
                listed.append(PlanEngine.model_construct(player_id=pid, name=pid))
            else:
                engines_known = False  # an entry we cannot name might be the one referred to
    if "format" not in kept:
        return None, engines_known
    try:
        plan = SeasonPlan.model_validate(kept)
    except ValidationError:
        return None, engines_known
    return plan.model_copy(update={"engines": [*plan.engines, *listed]}), engines_known


def plan_problems(plan: SeasonPlan, fmt: SeasonFormat) -> list[str]:
    """`plan_findings` as text: "plan.field: zz not in plan.engines"."""
    return [f"{where}: {what}" for where, what in plan_findings(plan, fmt)]


def plan_findings(
    plan: SeasonPlan, fmt: SeasonFormat, engines_known: bool = True
) -> list[tuple[str, str]]:
    """What the format's rules refuse in a plan the schema accepts, each as (place, what):
    the keys the format does not read, engines listed twice, or referred to but not in
    `engines` (checked only when `engines_known`: every entry could be read), Leagues the
    format does not have, an engine placed in two Leagues."""
    found: list[tuple[str, str]] = []
    ids = [e.player_id for e in plan.engines]
    known = set(ids)
    if len(known) != len(ids):
        twice = sorted({p for p in ids if ids.count(p) > 1})
        found.append(("plan.engines", f"lists {', '.join(twice)} twice"))
    given = {
        "field": bool(plan.field),
        "placed": bool(plan.placed),
        "swiss_qualifiers": bool(plan.swiss_qualifiers),
        "holder": plan.holder is not None,
        "cup_holder": plan.cup_holder is not None,
        "vacancies": plan.vacancies != "relegate-fewer",
    }
    for key, used in given.items():
        if used and key not in fmt.plan_keys:
            reads = ", ".join(sorted(fmt.plan_keys)) or "none of them"
            found.append((f"plan.{key}", f"not read by the {fmt.name} format (it reads {reads})"))
    lists: list[tuple[str, list[str]]] = [("field", list(plan.field))]
    lists += [(f"placed.{k}", list(v)) for k, v in plan.placed.items()]
    lists.append(("swiss_qualifiers", list(plan.swiss_qualifiers)))
    for where, members in lists:
        unknown = [p for p in members if p not in known]
        if unknown and engines_known:
            found.append((f"plan.{where}", f"{', '.join(unknown)} not in plan.engines"))
        if len(set(members)) != len(members):
            found.append((f"plan.{where}", "lists an engine twice"))
    for league in plan.placed:
        if league not in fmt.leagues:
            found.append(
                (f"plan.placed.{league}", f"not a League of {fmt.name} ({', '.join(fmt.leagues)})")
            )
    where_placed: dict[str, str] = {}
    for league, members in plan.placed.items():
        for p in members:
            if p in where_placed:
                found.append(
                    (
                        f"plan.placed.{league}",
                        f"{p} is placed in both {where_placed[p]} and {league}",
                    )
                )
            where_placed[p] = league
    return found


# --- the view --------------------------------------------------------------------------------


def _registered(state: StandingsState | None) -> tuple[FieldEntry, ...]:
    if state is None:
        return ()
    return tuple(
        FieldEntry(p.player_id, p.name, p.seed or 0, "registered", None, "")
        for p in state.players.values()
    )


def _same(a: Iterable[FieldEntry], b: Iterable[FieldEntry]) -> bool:
    return [(e.player_id, e.seed) for e in a] == [(e.player_id, e.seed) for e in b]


def season_view(
    series_id: str,
    series: StandingsState,
    tournaments: Mapping[str, StandingsState],
    extra_lots: Iterable[LotDrawn] = (),
) -> SeasonView:
    """The season from the series stream's fold (`series`: rulings and lots in force) and the
    folds of the stages' tournaments that exist (by tournament id). `extra_lots` are lots
    drawn but not yet recorded (the edge asks again with them, as pairing does)."""
    rulings = list(series.rulings.values())
    plan, fmt, plan_id, problems = read_plan(rulings)
    if plan is None or fmt is None or problems:
        return SeasonView(series_id, fmt, plan, plan_id, problems=tuple(problems))
    lots = {lot.subject: lot for lot in series.lots.values()}
    lots.update({lot.subject: lot for lot in extra_lots})
    outcomes = {
        s.key: read_stage(s, tournaments.get(tournament_id(series_id, s.key))) for s in fmt.stages
    }
    inp = Inputs(series_id, fmt, plan, outcomes, lots)
    views = tuple(_stage_view(inp, spec, rulings, tournaments) for spec in fmt.stages)
    view = SeasonView(series_id, fmt, plan, plan_id, views)
    if not fmt.leagues:
        return view
    ruling = latest_ruling(rulings, PLACEMENT_SUBJECT)
    if ruling is not None:
        placement = placement_of_ruling(ruling)
        if isinstance(placement, str):
            return _replace_view(view, placement_blocked=Blocked("ruling", placement))
        return _replace_view(
            view, placement=placement, placement_source="ruling", placement_ruling=ruling.ruling_id
        )
    got = derive_placement(inp, view)
    if isinstance(got, Blocked):
        return _replace_view(view, placement_blocked=got)
    return _replace_view(view, placement=got, placement_source="derived")


def _replace_view(view: SeasonView, **changes: Any) -> SeasonView:
    return replace(view, **changes)


def _created_status(outcome: StageOutcome) -> StageStatus:
    """The status of a stage whose tournament exists."""
    if outcome.status == "finished":
        return "finished"
    return "in_progress" if outcome.status == "in_progress" else "created"


def _stage_view(
    inp: Inputs,
    spec: StageSpec,
    rulings: list[RulingIssued],
    tournaments: Mapping[str, StandingsState],
) -> StageView:
    tid = tournament_id(inp.series_id, spec.key)
    outcome = inp.outcomes[spec.key]
    state = tournaments.get(tid)
    registered = _registered(state)
    ruling = latest_ruling(rulings, field_subject(tid))
    got = derive_field(inp, spec)
    derived = got if isinstance(got, Derived) else None
    blocked = got if isinstance(got, Blocked) else None
    notes: list[str] = list(derived.notes) if derived is not None else []
    if state is not None and state.created is not None:
        if state.created.series_id != inp.series_id:
            notes.append(
                f"{tid} was created for series {state.created.series_id!r}, not "
                f"{inp.series_id!r}: it is read as this stage all the same"
            )
        if outcome.text.startswith("held"):
            notes.append(outcome.text)
    if ruling is not None:
        ruled = field_of_ruling(ruling, inp)
        if isinstance(ruled, str):
            return StageView(
                spec,
                tid,
                "awaiting_ruling" if state is None else _created_status(outcome),
                outcome,
                derived=derived,
                blocked=Blocked("ruling", ruled),
                registered=registered,
                ruling_id=ruling.ruling_id,
                notes=(ruled,),
            )
        stale = derived is not None and not _same(ruled, derived.players)
        if stale:
            notes.append(
                f"the field ruling {ruling.ruling_id!r} differs from what the standings give "
                "now (a result corrected since, or the arbiter's choice): the ruling stands "
                "until retracted"
            )
        status: StageStatus = "ready" if state is None else _created_status(outcome)
        view = StageView(
            spec,
            tid,
            status,
            outcome,
            field=ruled,
            field_source="ruling",
            ruling_id=ruling.ruling_id,
            derived=derived,
            registered=registered,
            stale=stale,
        )
        if view.registrations_differ:
            notes.append(
                "the tournament's registrations differ from the field ruling in force: "
                "`season advance` re-registers them before the first round"
            )
        return replace(view, notes=tuple(notes))
    if state is not None:
        notes.append("no field ruling: the tournament's registrations stand as its field")
        return StageView(
            spec,
            tid,
            _created_status(outcome),
            outcome,
            field=registered,
            field_source="registrations",
            derived=derived,
            blocked=blocked,
            registered=registered,
            notes=tuple(notes),
        )
    if derived is not None:
        return StageView(
            spec,
            tid,
            "ready",
            outcome,
            field=derived.players,
            field_source="derived",
            derived=derived,
            notes=tuple(notes),
        )
    assert blocked is not None
    status_of: dict[str, StageStatus] = {
        "waiting": "waiting",
        "lot": "awaiting_lot",
        "ruling": "awaiting_ruling",
        "plan": "awaiting_ruling",
    }
    return StageView(spec, tid, status_of[blocked.kind], outcome, blocked=blocked)


# --- the next Season (Leagues 1.8) -------------------------------------------------------------


def _promotion_article(view: SeasonView, key: str, to: str) -> str:
    for s in view.stage(to).spec.sources:
        if isinstance(s, Top) and s.stage == key:
            return s.article
    return ""


def derive_placement(inp: Inputs, view: SeasonView) -> Placement | Blocked:
    """Where each League engine ends the Season (reading tcec/next-season): promoted engines
    are placed by the higher League they played; the bottom places of each League relegate
    (fewer by its vacancies under "relegate-fewer", Leagues 1.8); the rest stay."""
    fmt = inp.fmt
    for key in fmt.leagues:
        sv = view.stage(key)
        if not sv.outcome.finished:
            return Blocked("waiting", f"{inp.stage_name(key)} is not finished")
    moves: list[Move] = []
    derived_from: dict[str, Any] = {}
    relegated_into: dict[str, list[Move]] = {k: [] for k in fmt.leagues}
    stays: dict[str, list[Move]] = {k: [] for k in fmt.leagues}
    left: list[str] = []
    for i, key in enumerate(fmt.leagues):
        sv = view.stage(key)
        spec = sv.spec
        order = sv.outcome.order
        derived_from[key] = {"tournament_id": sv.tournament_id, "as_of_seq": sv.outcome.seq}
        above = fmt.leagues[i - 1] if i else None
        # An engine of this League in the field of the League above went up (the engines
        # placed above from the former Season never played here).
        up = (
            {e.player_id for e in view.stage(above).field} & {s.player_id for s in order}
            if above is not None
            else set()
        )
        rel = spec.relegation
        count = rel.count if rel is not None else 0
        vac = vacancies(spec, inp.plan)
        if vac and inp.plan.vacancies == "relegate-fewer":
            count = max(0, count - vac)
        remaining = [s for s in order if s.player_id not in up]
        if 0 < count < len(remaining):
            a, b = remaining[-count - 1], remaining[-count]
            if a.place == b.place:
                tie = sorted({*a.tie, *b.tie} or {a.player_id, b.player_id})
                return Blocked(
                    "ruling",
                    f"the relegation line of {inp.stage_name(key)} falls in a tie at place "
                    f"{a.place} ({', '.join(tie)}); the organisers decide (tcec-rules Leagues "
                    f"11.1.7): a tiebreak_order ruling on {sv.tournament_id}, or the placement "
                    f"ruling RulingIssued(subject={PLACEMENT_SUBJECT!r}) on the series",
                )
        cut = len(remaining) - count
        for s in order:
            name = inp.name(s.player_id, s.name)
            if s.player_id in up:
                assert above is not None
                art = _promotion_article(view, key, above)
                moves.append(Move(s.player_id, name, key, s.place, "promoted", above, art))
        for n, s in enumerate(remaining):
            name = inp.name(s.player_id, s.name)
            if n < cut:
                art = "tcec-rules Leagues 1.8 (stays in its League)"
                if key == fmt.leagues[0]:
                    art += "; 8.2 (the Superfinal engines stay in the Premier Division)"
                m = Move(s.player_id, name, key, s.place, "stays", key, art)
                stays[key].append(m)
            elif rel is not None and rel.to is not None:
                m = Move(s.player_id, name, key, s.place, "relegated", rel.to, rel.article)
                relegated_into[rel.to].append(m)
            else:
                art = rel.article if rel is not None else ""
                m = Move(s.player_id, name, key, s.place, "leaves", None, art)
                left.append(s.player_id)
            moves.append(m)
        if vac and inp.plan.vacancies == "relegate-fewer" and rel is not None:
            moves_note = f"{spec.name}: {vac} vacancy(ies): {count} relegate instead of {rel.count}"
            derived_from[key]["vacancies"] = moves_note
    placed = {k: tuple(m.player_id for m in (*relegated_into[k], *stays[k])) for k in fmt.leagues}
    return Placement(placed, tuple(left), tuple(moves), derived_from)


def placement_of_ruling(ruling: RulingIssued) -> Placement | str:
    raw = ruling.decision.get("placed")
    if not isinstance(raw, dict) or not all(
        isinstance(v, list) and all(isinstance(p, str) for p in v) for v in raw.values()
    ):
        return f"ruling {ruling.ruling_id!r}: decision.placed must map Leagues to engine lists"
    left = ruling.decision.get("left", [])
    if not isinstance(left, list) or not all(isinstance(p, str) for p in left):
        return f"ruling {ruling.ruling_id!r}: decision.left must be a list of engines"
    moves: list[Move] = []
    for m in ruling.decision.get("moves", []) or []:
        if isinstance(m, dict):
            try:
                moves.append(
                    Move(
                        str(m["player_id"]),
                        str(m.get("name", m["player_id"])),
                        str(m["league"]),
                        int(m.get("place", 0)),
                        m["kind"],
                        None if m.get("to") is None else str(m["to"]),
                        str(m.get("rule", ruling.rule)),
                    )
                )
            except (KeyError, TypeError, ValueError):
                return f"ruling {ruling.ruling_id!r}: a move cannot be read"
    return Placement(
        {str(k): tuple(v) for k, v in raw.items()},
        tuple(left),
        tuple(moves),
        ruling.decision.get("derived_from", {}) or {},
    )
