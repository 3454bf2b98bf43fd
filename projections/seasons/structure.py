"""What a season format is made of, as data: its stages, where each stage's field comes from,
and who moves where when a stage ends.

A season is a series of tournaments (a `SeriesCreated` stream); each stage is one tournament
of it (`TournamentCreated.series_id`). A `SeasonFormat` lists its stages in playing order; a
`StageSpec` says how the stage is played (format, rules preset, cycles, rounds, time control,
the article defining it) and where its engines come from (`sources`, read in order: the order
is the seed order of the field). The sources are:

- `FromPlan`: engines the organisers' plan places in the stage (Leagues 1.8: the engines of
  the former Season in the League they ended up in; Swiss 1.a, FRD 1.a, 4k 0.2: the invited
  field), in the plan's order (the organisers' seeding);
- `Top`: the top places of a finished stage (promotions, qualification);
- `Qualifiers`: a list the plan gives from an event outside the season (the last Swiss's
  engines for the Entrance League, Leagues 2.3, when the Swiss is not a stage of the season);
- `Snake`: an equal-distance allocation of the plan's field over parallel groups (FRD 2.a);
- `Cross`: the top places of parallel stages, crossed over parallel groups (FRD 2.d, 2.f).

`Relegation` says which bottom places of a league leave it for the next Season (Leagues 2.7,
3.6, 4.7, 5.7): it shapes the next Season's placement, not a stage of this one.

Everything here is pure data and pure functions; `projections/seasons/derive.py` turns the
finished stages' standings into the next stage's field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from events_schema.events import TimeControl
from events_schema.ids import PlayerId

StageFormat = Literal["swiss", "round_robin", "league", "cup", "match"]


# --- sources ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class FromPlan:
    """Engines the plan places in the stage: `plan.field` (key "field") or
    `plan.placed[league]` (key "placed.<league>"), in the plan's order. `nominal` is the
    number the rules give (vacancies, Leagues 1.8, are `nominal` minus those listed)."""

    key: str
    article: str
    nominal: int | None = None


@dataclass(frozen=True)
class Top:
    """The `count` best of a finished stage, best first. `skip_placed`: engines the plan
    places in a league of the season are passed over (Swiss → Entrance League).
    `fills_vacancies`: under the "promote-more" reading of Leagues 1.8, one more per vacancy
    of the receiving stage. `first_time`: when the plan has no entry for the receiving
    League at all, the whole field comes from here (Leagues 2.3: "The first time the Entrance
    League format is played, all will be seeded according to last Swiss")."""

    stage: str
    count: int
    article: str
    skip_placed: bool = False
    fills_vacancies: bool = False
    first_time: bool = False


@dataclass(frozen=True)
class Qualifiers:
    """The first `count` engines of a plan list from an event outside the season (the last
    TCEC Swiss's order for the Entrance League, Leagues 2.3/2.4)."""

    key: str
    count: int
    article: str
    fills_vacancies: bool = False
    first_time: bool = False


@dataclass(frozen=True)
class Snake:
    """Equal-distance allocation of the plan's field (seed order) over `groups` parallel
    stages; this stage is group `group` (0-based). The first `preseeded` seeds are the
    organisers'; the others get their seeding numbers by lot (`lot_subject`)."""

    groups: int
    group: int
    preseeded: int
    lot_subject: str
    article: str


@dataclass(frozen=True)
class Cross:
    """The `count` best of each of `stages` (parallel stages), shared over `groups` parallel
    next stages; this is group `group`. The engine placed p-th in the i-th stage goes to group
    (i + p - 1) mod groups; within the group, by place, then by stage order."""

    stages: tuple[str, ...]
    count: int
    group: int
    groups: int
    article: str


Source = FromPlan | Top | Qualifiers | Snake | Cross


@dataclass(frozen=True)
class Relegation:
    """The bottom `count` of a league leave it at the end of the Season: to league `to` of the
    next Season, or out of the Leagues (`to` None)."""

    count: int
    to: str | None
    article: str


@dataclass(frozen=True)
class StageSpec:
    key: str  # short, unique in the format; the tournament id is "<series id>-<key>"
    name: str
    format: StageFormat
    rules_preset: str
    article: str  # where the rules define the stage
    sources: tuple[Source, ...]
    size: int | None = None  # the stated number of engines (None: as many as come)
    cycles: int = 1  # single round robins (TournamentCreated.cycles)
    rounds: int | None = None  # fixed rounds (Swiss, matches); None: cycles × (N - 1) or none
    time_control: TimeControl | None = None
    holder_key: str | None = None  # plan attribute naming the holder, seeded 1 (Cup 1.e)
    holder_article: str = ""
    relegation: Relegation | None = None
    league: str | None = None  # the League this stage is (Leagues 1.8 placement)
    pairing: Literal["manual"] | None = None  # a match: its machine prescribes the games

    @property
    def inputs(self) -> tuple[str, ...]:
        """The stages that must be finished before the field can be derived."""
        out: list[str] = []
        for s in self.sources:
            if isinstance(s, Top):
                out.append(s.stage)
            elif isinstance(s, Cross):
                out += s.stages
        return tuple(dict.fromkeys(out))

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "name": self.name,
            "format": self.format,
            "rules_preset": self.rules_preset,
            "article": self.article,
            "size": self.size,
            "cycles": self.cycles,
            "rounds": self.rounds,
            "time_control": None if self.time_control is None else self.time_control.name,
            "sources": [source_text(s) for s in self.sources],
            "relegation": None
            if self.relegation is None
            else {
                "count": self.relegation.count,
                "to": self.relegation.to,
                "article": self.relegation.article,
            },
        }


def source_text(s: Source) -> str:
    if isinstance(s, FromPlan):
        n = f" ({s.nominal})" if s.nominal is not None else ""
        return f"plan {s.key}{n}: {s.article}"
    if isinstance(s, Top):
        extra = ", engines placed in a league passed over" if s.skip_placed else ""
        return f"top {s.count} of {s.stage}{extra}: {s.article}"
    if isinstance(s, Qualifiers):
        return f"first {s.count} of plan {s.key}: {s.article}"
    if isinstance(s, Snake):
        return (
            f"group {s.group + 1} of {s.groups} by equal-distance (snake) seeding, seeds "
            f"1-{s.preseeded} pre-seeded, the rest by lot {s.lot_subject!r}: {s.article}"
        )
    return (
        f"top {s.count} of each of {', '.join(s.stages)}, crossed into group {s.group + 1} "
        f"of {s.groups}: {s.article}"
    )


@dataclass(frozen=True)
class SeasonFormat:
    name: str
    title: str
    article: str
    stages: tuple[StageSpec, ...]
    # The Leagues, top first (Leagues 1.3, 1.8): the next Season's placement is over these.
    leagues: tuple[str, ...] = ()
    # Plan keys this format reads (checked when the plan is read).
    plan_keys: frozenset[str] = frozenset()
    readings: Mapping[str, str] = field(default_factory=dict)

    def stage(self, key: str) -> StageSpec:
        for s in self.stages:
            if s.key == key:
                return s
        raise KeyError(key)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "article": self.article,
            "stages": [s.as_dict() for s in self.stages],
            "leagues": list(self.leagues),
            "readings": dict(self.readings),
        }


# --- the organisers' plan ----------------------------------------------------------------------

PLAN_SUBJECT = "season:plan"


class PlanEngine(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    player_id: PlayerId
    name: str = Field(min_length=1, max_length=200)
    rating: int | None = Field(default=None, ge=0, le=4000)
    engine_version: str | None = Field(default=None, max_length=64)


class SeasonPlan(BaseModel):
    """The organisers' invitations and placements (Leagues 1.8, 1.9; Swiss 1.a/1.c; FRD 1.a,
    1.d; 4k 0.2), the decision of a `RulingIssued(subject="season:plan")` on the series stream
    (the latest in force)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: str = Field(min_length=1, max_length=64)
    engines: list[PlanEngine] = Field(default_factory=list)
    # The single field of a Swiss / FRD / 4k, in the organisers' seed order.
    field: list[PlayerId] = Field(default_factory=list)
    # Leagues 1.8: the engines placed in each League (its key), in the organisers' seed order.
    placed: dict[str, list[PlayerId]] = Field(default_factory=dict)
    # Leagues 2.3/2.4: the Entrance League's engines from the last Swiss (held outside the
    # season), in that Swiss's final order.
    swiss_qualifiers: list[PlayerId] = Field(default_factory=list)
    # Swiss 1.d / FRD 1.e: the last winner, seeded 1 when it plays.
    holder: PlayerId | None = None
    # Cup 1.e: the winner of the last Cup, seeded 1.
    cup_holder: PlayerId | None = None
    # Leagues 1.8: how a vacant place is compensated (see tcec.READINGS).
    vacancies: Literal["relegate-fewer", "promote-more"] = "relegate-fewer"
    title: str | None = Field(default=None, max_length=200)


@dataclass(frozen=True)
class FieldEntry:
    """One engine of a stage's field: its seed there, where it comes from, the rule."""

    player_id: str
    name: str
    seed: int
    source: str  # "plan" or the stage key it comes from
    place: int | None  # its place there (plan: its position in the plan list)
    rule: str
    rating: int | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "player_id": self.player_id,
            "name": self.name,
            "seed": self.seed,
            "from": {"source": self.source, "place": self.place},
            "rule": self.rule,
        }
        if self.rating is not None:
            out["rating"] = self.rating
        return out

    def same_entry(self, other: FieldEntry) -> bool:
        """Same engine, seed and name: what a registration records."""
        return (self.player_id, self.seed, self.name) == (
            other.player_id,
            other.seed,
            other.name,
        )


def total_rounds(spec: StageSpec, n: int) -> int | None:
    """The stage's rounds: fixed by the rules (Swiss, matches), or cycles × (N - 1) for a round
    robin of n engines (N = n, or n + 1 for an odd field: FIDE C.05 Annex 1), or None (Cup:
    the bracket decides)."""
    if spec.rounds is not None:
        return spec.rounds
    if spec.format in ("league", "round_robin"):
        if n < 2:
            return None
        return spec.cycles * (n + n % 2 - 1)
    return None
