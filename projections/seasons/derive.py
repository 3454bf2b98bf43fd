"""From the finished stages' standings to the next stage's field (a pure function).

`derive_field(inputs, spec)` reads the stage's sources (`projections/seasons/structure.py`) in
order and answers either a `Derived` field (each engine with its seed there, where it comes
from and the rule), or a `Blocked` reason: a stage it needs is not finished (`waiting`), a lot
must be drawn first (`lot`, drawn at the edge by `services/commands/lots.py` and recorded as a
`LotDrawn` on the series stream), or the organisers must decide (`ruling`: a line falls inside
a tie the chain leaves open, or a lot does not fit) or fix the plan (`plan`).

The field's order is its seed order: seeds 1..n. A holder the stage seeds first (Swiss 1.d,
Cup 1.e, FRD 1.e) is moved to seed 1 when it is in the field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from events_schema.events import LotDrawn, RulingIssued
from projections.pairing.base import LotRequest
from projections.seasons.reading import StageOutcome, Standing
from projections.seasons.structure import (
    Cross,
    FieldEntry,
    FromPlan,
    Qualifiers,
    SeasonFormat,
    SeasonPlan,
    Snake,
    StageSpec,
    Top,
)

_PLAYER_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def tournament_id(series_id: str, key: str) -> str:
    """The stage's tournament id: "<series id>-<stage key>"."""
    return f"{series_id}-{key}"


@dataclass(frozen=True)
class Blocked:
    kind: Literal["waiting", "lot", "ruling", "plan"]
    text: str
    lot: LotRequest | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "text": self.text}
        if self.lot is not None:
            out["lot"] = {
                "purpose": self.lot.purpose,
                "subject": self.lot.subject,
                "candidates": list(self.lot.candidates),
                "rule": self.lot.rule,
            }
        return out


@dataclass(frozen=True)
class Derived:
    players: tuple[FieldEntry, ...]
    rule: str  # the articles applied, joined
    derived_from: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def decision(self, spec: StageSpec, tid: str) -> dict[str, Any]:
        """The `RulingIssued.decision` recording this field."""
        return {
            "stage": spec.key,
            "tournament_id": tid,
            "players": [p.as_dict() for p in self.players],
            "derived_from": dict(self.derived_from),
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class Inputs:
    """What derivation reads: the season's format and plan, every stage's outcome so far (by
    stage key) and the lots in force on the series stream (by subject)."""

    series_id: str
    fmt: SeasonFormat
    plan: SeasonPlan
    outcomes: Mapping[str, StageOutcome]
    lots: Mapping[str, LotDrawn] = field(default_factory=dict)

    def name(self, pid: str, fallback: str | None = None) -> str:
        for e in self.plan.engines:
            if e.player_id == pid:
                return e.name
        return fallback or pid

    def rating(self, pid: str) -> int | None:
        for e in self.plan.engines:
            if e.player_id == pid:
                return e.rating
        return None

    def stage_name(self, key: str) -> str:
        return f"{self.fmt.stage(key).name} ({tournament_id(self.series_id, key)})"


@dataclass(frozen=True)
class _Cand:
    player_id: str
    name: str
    source: str
    place: int | None
    rule: str


def listed(plan: SeasonPlan, key: str) -> list[str] | None:
    """A plan list by source key ("field", "placed.<league>", "swiss_qualifiers"); None when
    the plan does not give it at all."""
    if key == "field":
        return list(plan.field)
    if key == "swiss_qualifiers":
        return list(plan.swiss_qualifiers)
    if key.startswith("placed."):
        found = plan.placed.get(key.removeprefix("placed."))
        return None if found is None else list(found)
    raise KeyError(key)


def vacancies(spec: StageSpec, plan: SeasonPlan) -> int:
    """Leagues 1.8: places of the former Season left vacant in this stage: the number the rules
    give (`FromPlan.nominal`) minus the engines the plan places there (0 when the plan places
    nobody there at all: nothing was vacated, e.g. the first Entrance League, 2.3)."""
    n = 0
    for s in spec.sources:
        if isinstance(s, FromPlan) and s.nominal is not None:
            got = listed(plan, s.key)
            if got is not None:
                n += max(0, s.nominal - len(got))
    return n


def _first_time(spec: StageSpec, plan: SeasonPlan) -> bool:
    """Leagues 2.3: the plan places nobody in this League at all."""
    keys = [s.key for s in spec.sources if isinstance(s, FromPlan) and s.key.startswith("placed.")]
    return bool(keys) and all(listed(plan, k) is None for k in keys)


def placed_anywhere(plan: SeasonPlan) -> set[str]:
    return {p for league in plan.placed.values() for p in league}


def holder_first(ids: Sequence[str], holder: str | None) -> list[str]:
    out = list(ids)
    if holder is not None and holder in out:
        out.remove(holder)
        out.insert(0, holder)
    return out


def _cut(
    inp: Inputs, key: str, order: Sequence[Standing], count: int, art: str, target: str
) -> Blocked | None:
    """A line after the first `count` of `order` inside a tie is the organisers' to draw."""
    if count <= 0 or count >= len(order):
        return None
    last, nxt = order[count - 1], order[count]
    if last.place != nxt.place:
        return None
    tie = sorted({p for p in (*last.tie, *nxt.tie)} or {last.player_id, nxt.player_id})
    why = "left to the organisers" if (last.unresolved or nxt.unresolved) else "shared"
    tid = tournament_id(inp.series_id, key)
    return Blocked(
        "ruling",
        f"the line after {count} engine(s) of {inp.stage_name(key)} falls in a tie at place "
        f"{last.place} ({', '.join(tie)}: {why}); {art}: the organisers decide (tcec-rules "
        f"0, reading */cut-in-a-tie): issue RulingIssued(decision={{'tiebreak_order': [...]}}) "
        f"on {tid} where its chain reads one, or the field ruling RulingIssued(subject="
        f"'field:{target}', decision={{'players': [...]}}) on the series {inp.series_id}",
    )


def _extra(s: Top | Qualifiers, spec: StageSpec, inp: Inputs) -> tuple[int, str | None]:
    """The number to take, with vacancies (Leagues 1.8, "promote-more") and the first
    Entrance League (2.3)."""
    if s.first_time and _first_time(spec, inp.plan) and spec.size is not None:
        return spec.size, (
            f"the plan places no engine in {spec.name}: all {spec.size} come from here "
            "(tcec-rules Leagues 2.3, the first time)"
        )
    vac = vacancies(spec, inp.plan)
    if s.fills_vacancies and vac and inp.plan.vacancies == "promote-more":
        return s.count + vac, (
            f"{vac} vacant place(s) in {spec.name}: {s.count} + {vac} come in "
            '(tcec-rules Leagues 1.8, reading "promote-more")'
        )
    return s.count, None


def derive_field(inp: Inputs, spec: StageSpec) -> Derived | Blocked:
    """The stage's field from its sources (see the module docstring)."""
    target = tournament_id(inp.series_id, spec.key)
    cands: list[_Cand] = []
    notes: list[str] = []
    derived_from: dict[str, Any] = {}
    rules: list[str] = []
    for s in spec.sources:
        rules.append(s.article)
        if isinstance(s, FromPlan):
            ids = listed(inp.plan, s.key) or []
            cands += [_Cand(p, inp.name(p), "plan", i, s.article) for i, p in enumerate(ids, 1)]
            vac = vacancies(spec, inp.plan) if s.nominal is not None else 0
            if vac:
                how = (
                    "one more engine comes in per vacancy"
                    if inp.plan.vacancies == "promote-more"
                    else f"the places stay vacant; {spec.name} relegates {vac} fewer"
                )
                notes.append(
                    f"{vac} vacant place(s) of the former Season in {spec.name} (tcec-rules "
                    f"Leagues 1.8: {s.nominal} placed, {len(ids)} entered): {how}"
                )
        elif isinstance(s, Top):
            got = _top(inp, spec, s, target, cands, notes, derived_from)
            if got is not None:
                return got
        elif isinstance(s, Qualifiers):
            count, note = _extra(s, spec, inp)
            if note:
                notes.append(note)
            ids = (listed(inp.plan, s.key) or [])[:count]
            if len(ids) < count:
                notes.append(f"plan {s.key} lists {len(ids)} engine(s), {count} wanted")
            cands += [_Cand(p, inp.name(p), s.key, i, s.article) for i, p in enumerate(ids, 1)]
        elif isinstance(s, Snake):
            got = _snake(inp, s, cands, derived_from)
            if got is not None:
                return got
        else:
            got = _cross(inp, s, target, cands, notes, derived_from)
            if got is not None:
                return got
    seen: dict[str, _Cand] = {}
    for c in cands:
        if c.player_id in seen:
            return Blocked(
                "plan",
                f"{c.player_id} would enter {spec.name} twice (from {seen[c.player_id].source} "
                f"and {c.source}): fix the plan (tcec-rules Leagues 1.8)",
            )
        seen[c.player_id] = c
    if spec.holder_key is not None:
        holder = getattr(inp.plan, spec.holder_key)
        ids = holder_first([c.player_id for c in cands], holder)
        if holder is not None:
            rules.append(spec.holder_article)
            if holder in seen:
                notes.append(f"{holder} is seeded 1 ({spec.holder_article})")
            else:
                notes.append(f"the holder {holder} is not in the field ({spec.holder_article})")
        cands = [seen[p] for p in ids]
    if len(cands) < 2:
        return Blocked("plan", f"{spec.name} would have {len(cands)} engine(s); at least 2")
    if spec.size is not None and len(cands) != spec.size:
        notes.append(f"{len(cands)} engines; the rules give {spec.size} ({spec.article})")
    players = tuple(
        FieldEntry(c.player_id, c.name, i, c.source, c.place, c.rule, inp.rating(c.player_id))
        for i, c in enumerate(cands, start=1)
    )
    return Derived(players, "; ".join(dict.fromkeys(rules)), derived_from, tuple(notes))


def _finished(inp: Inputs, key: str) -> StageOutcome | Blocked:
    out = inp.outcomes.get(key)
    if out is None or not out.finished:
        status = "not created" if out is None else out.status.replace("_", " ")
        return Blocked("waiting", f"{inp.stage_name(key)} is not finished ({status})")
    return out


def _top(
    inp: Inputs,
    spec: StageSpec,
    s: Top,
    target: str,
    cands: list[_Cand],
    notes: list[str],
    derived_from: dict[str, Any],
) -> Blocked | None:
    out = _finished(inp, s.stage)
    if isinstance(out, Blocked):
        return out
    count, note = _extra(s, spec, inp)
    if note:
        notes.append(note)
    skip = placed_anywhere(inp.plan) if s.skip_placed else set()
    eligible = [st for st in out.order if st.player_id not in skip]
    if skip and eligible:
        upto = out.order.index(eligible[min(count, len(eligible)) - 1])
        passed = [st.player_id for st in out.order[: upto + 1] if st.player_id in skip]
        if passed:
            notes.append(
                f"passed over in {inp.fmt.stage(s.stage).name} (placed in a League of the "
                f"Season, reading tcec/swiss-to-el): {', '.join(passed)}"
            )
    blocked = _cut(inp, s.stage, eligible, count, s.article, target)
    if blocked is not None:
        return blocked
    taken = eligible[:count]
    if len(taken) < count:
        notes.append(
            f"{inp.stage_name(s.stage)} has {len(taken)} engine(s) to give, {count} wanted"
        )
    cands += [
        _Cand(st.player_id, inp.name(st.player_id, st.name), s.stage, st.place, s.article)
        for st in taken
    ]
    derived_from[s.stage] = {
        "tournament_id": tournament_id(inp.series_id, s.stage),
        "as_of_seq": out.seq,
    }
    return None


def snake_group(index: int, groups: int) -> int:
    """The group of the engine at 0-based seed position `index`, dealt in snake order
    (A B C D D C B A A B ...)."""
    r, j = divmod(index, groups)
    return j if r % 2 == 0 else groups - 1 - j


def _snake(
    inp: Inputs, s: Snake, cands: list[_Cand], derived_from: dict[str, Any]
) -> Blocked | None:
    seeded = holder_first(inp.plan.field, inp.plan.holder)
    pre, rest = seeded[: s.preseeded], seeded[s.preseeded :]
    order = list(pre)
    if rest:
        lot = inp.lots.get(s.lot_subject)
        request = LotRequest("pairing_numbers", s.lot_subject, tuple(sorted(rest)), None, s.article)
        if lot is None:
            return Blocked(
                "lot",
                f"draw the seeding numbers {s.preseeded + 1}-{len(seeded)} of the engines "
                f"after the top {s.preseeded} ({s.article})",
                request,
            )
        if sorted(lot.candidates) != sorted(rest) or sorted(lot.outcome) != sorted(rest):
            return Blocked(
                "ruling",
                f"the lot {s.lot_subject!r} does not order the engines after the top "
                f"{s.preseeded} ({sorted(rest)}): retract it (EventRetracted) and draw again",
                request,
            )
        order += list(lot.outcome)
        derived_from["seeding"] = {"lot": s.lot_subject, "seed": lot.seed}
    for i, p in enumerate(order):
        if snake_group(i, s.groups) == s.group:
            cands.append(_Cand(p, inp.name(p), "plan", i + 1, f"{s.article}: seed {i + 1}"))
    return None


def _cross(
    inp: Inputs,
    s: Cross,
    target: str,
    cands: list[_Cand],
    notes: list[str],
    derived_from: dict[str, Any],
) -> Blocked | None:
    picks: list[tuple[int, int, Standing, str]] = []
    for i, key in enumerate(s.stages):
        out = _finished(inp, key)
        if isinstance(out, Blocked):
            return out
        blocked = _cut(inp, key, out.order, s.count, s.article, target)
        if blocked is not None:
            return blocked
        for p, st in enumerate(out.order[: s.count], start=1):
            if (i + p - 1) % s.groups == s.group:
                picks.append((p, i, st, key))
        derived_from[key] = {
            "tournament_id": tournament_id(inp.series_id, key),
            "as_of_seq": out.seq,
        }
    for _p, _i, st, key in sorted(picks, key=lambda t: (t[0], t[1])):
        cands.append(_Cand(st.player_id, inp.name(st.player_id, st.name), key, st.place, s.article))
    return None


# --- a field an arbiter (or `season advance`) recorded -----------------------------------------


def field_of_ruling(ruling: RulingIssued, inp: Inputs) -> tuple[FieldEntry, ...] | str:
    """The field a `field:<tournament>` ruling decides, or why it cannot be read. Its
    `decision["players"]` lists player ids, or objects with `player_id` and optionally `name`,
    `seed`, `from`, `rule`; seeds default to the list order."""
    raw = ruling.decision.get("players")
    if not isinstance(raw, list) or not raw:
        return f"ruling {ruling.ruling_id!r}: decision.players must be a non-empty list"
    out: list[FieldEntry] = []
    for i, item in enumerate(raw, start=1):
        obj: dict[str, Any] = {"player_id": item} if isinstance(item, str) else item
        if not isinstance(obj, dict):
            return f"ruling {ruling.ruling_id!r}: players[{i - 1}] is not an id or an object"
        pid = obj.get("player_id")
        if not isinstance(pid, str) or not _PLAYER_ID.match(pid):
            return f"ruling {ruling.ruling_id!r}: players[{i - 1}].player_id is not a player id"
        seed = obj.get("seed", i)
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 1:
            return f"ruling {ruling.ruling_id!r}: players[{i - 1}].seed must be an integer >= 1"
        name = obj.get("name")
        origin = obj.get("from")
        source, place = "ruling", None
        if isinstance(origin, dict):
            source = str(origin.get("source", "ruling"))
            got = origin.get("place")
            place = got if isinstance(got, int) and not isinstance(got, bool) else None
        rule = obj.get("rule")
        rating = obj.get("rating")
        out.append(
            FieldEntry(
                pid,
                name if isinstance(name, str) and name else inp.name(pid),
                seed,
                source,
                place,
                rule if isinstance(rule, str) and rule else ruling.rule,
                rating if isinstance(rating, int) and not isinstance(rating, bool) else None,
            )
        )
    ids = [e.player_id for e in out]
    if len(set(ids)) != len(ids):
        return f"ruling {ruling.ruling_id!r}: an engine is listed twice"
    seeds = [e.seed for e in out]
    if len(set(seeds)) != len(seeds):
        return f"ruling {ruling.ruling_id!r}: two engines share a seed"
    return tuple(sorted(out, key=lambda e: e.seed))
