"""The TCEC Leagues Season, the TCEC Swiss and the TCEC Cup as season formats (data).

Articles are cited from `shared/seeds/tcec-rules.txt`: "Leagues" (TCEC Leagues Season rules),
"Swiss" (TCEC Swiss rules), "Cup" (TCEC Cup rules).

Formats:

- `tcec-leagues`: Entrance League → League 2 → League 1 → Premier Division → Superfinal
  (Leagues 1.3), the Entrance League's 6 Swiss engines given by the plan
  (`swiss_qualifiers`, the last Swiss's order) because the Swiss is not a stage of it;
- `tcec-season`: the TCEC Swiss first, then the Cup (the Swiss's top 32, Cup 1.c) and the
  Leagues, whose Entrance League takes its 6 Swiss engines from that Swiss (Leagues 2.3);
- `tcec-swiss-cup`: the Swiss and the Cup alone.

Stage by stage (key: rules; field; moves):

- swiss: Swiss 1.b, 2: 12 double rounds (24 rounds), Monrad, `tcec-swiss`, 30'+3" (5.a);
  the plan's field, the last Swiss winner seeded 1 (1.c, 1.d); top 32 → Cup (Cup 1.c), the
  best 6 not placed in a League → Entrance League (Leagues 2.3).
- cup: Cup 1-3: knockout, EDPS8-RRC, `tcec-cup`, 30'+3" (5.a); the Swiss top 32 by place,
  the last Cup winner seeded 1 (Cup 1.c-1.e).
- el: Leagues 2: 16 engines, 1x DRR (cycles 2), 30'+3"; 10 placed (1.8) + 6 from the Swiss
  (2.3); top 4 → League 2, bottom 6 leave the Leagues (2.7).
- l2: Leagues 3: 12 engines, 2x DRR (cycles 4), 30'+3"; 8 placed + EL top 4 (3.3); top 4 →
  League 1, bottom 4 → Entrance League next Season (3.6).
- l1: Leagues 4: 12 engines, 2x DRR (cycles 4), 30'+3"; 8 placed + L2 top 4 (4.3); top 2 →
  Premier Division, bottom 4 → League 2 next Season (4.7).
- divp: Leagues 5: 8 engines, 4x DRR (cycles 8), 60'+6", `tcec-premier`; 6 placed + L1 top 2
  (5.3); top 2 (or the Conditional Tiebreak's, 6) → Superfinal, bottom 2 → League 1 next
  Season (5.7).
- sufi: Leagues 7: 100 games (50 DRR) at 120'+12", `tcec-superfinal`; the Premier Division's
  two, its winner seed 1 (7.3: Black first); the winner is the Grand Champion (8.1).

Readings are in `READINGS` (listed on every season view).
"""

from __future__ import annotations

from dataclasses import replace

from projections.seasons.structure import (
    FromPlan,
    Qualifiers,
    Relegation,
    SeasonFormat,
    StageSpec,
    Top,
)
from projections.time_controls import TC_30_3, TC_60_6, TC_120_12

READINGS: dict[str, str] = {
    "tcec/vacancies-relegate-fewer": "Leagues 1.8 (the default, plan vacancies="
    '"relegate-fewer"): a place left vacant by an engine of the former Season that is not '
    "entered stays vacant: the League is played with fewer engines and no engine is put in "
    "it to fill the place; the adaptation is that the League relegates one engine fewer per "
    "vacancy at its end (never fewer than none), so it is back at its stated size in the next "
    "Season. Its promotions are unchanged.",
    "tcec/vacancies-promote-more": 'Leagues 1.8 (plan vacancies="promote-more"): the vacancy '
    "is compensated by one more promotion per vacant place from the event that feeds the "
    "League (the next-placed engine of the League below; for the Entrance League, the next "
    "Swiss engine), earned by result, so the League is played at its stated size; nobody is "
    "put in the higher League before that. Relegations are unchanged.",
    "tcec/vacancies-count": "vacancies are counted per League as the number the rules give "
    "for the engines placed there from the former Season (EL 16 - 6 = 10, L2 12 - 4 = 8, "
    "L1 12 - 4 = 8, DivP 8 - 2 = 6) minus the engines the plan places there.",
    "tcec/el-first-time": "Leagues 2.3: when the plan places no engine in the Entrance League "
    "(no `el` entry: the first time the format is played) all 16 come from the last Swiss.",
    "tcec/swiss-to-el": "Leagues 2.3/2.4: the 6 engines seeded from the last Swiss are the "
    "best-placed engines of its final standings that the plan does not place in a League of "
    "the Season (an engine already in a League keeps its place there).",
    "tcec/seeds": "a stage's seeds (PlayerRegistered.seed) follow its field order: the engines "
    "the plan places there, in the plan's order (the organisers' seeding, Leagues 2.4, 4.4, "
    "5.4), then those coming from other stages, best place first. Seeds give the colours of "
    "a game pair (the lower seed White first) and the Superfinal's (7.3: the Premier "
    "Division winner is seed 1 and takes Black first).",
    "tcec/cut-in-a-tie": "a promotion, qualification or relegation line that falls inside a "
    "tie the stage's chain leaves open (shared places in the Swiss, Swiss 3.5; 'the "
    "Tournament Organizers will decide', Leagues 11.1.7) is not guessed: the field waits for "
    "the organisers (Leagues 0): a tiebreak_order ruling on the stage's tournament where its "
    "chain reads one, or the field ruling itself.",
    "tcec/premier-order": "the Premier Division's order is the Conditional Tiebreak's for the "
    "Superfinal places (Leagues 6; on points when it is not needed), then the table's "
    "(Leagues 11.1). Two engines promoting together from the Conditional Tiebreak (6.3) are "
    "ordered by the table (the DivP winner for 7.3 is the better placed); the organisers may "
    "overrule the Superfinal field ruling.",
    "tcec/next-season": "the next Season's placement (Leagues 1.8): every engine of a League "
    "ends in the highest League it played in this Season: relegated to the League below "
    "(or out of the Leagues from the Entrance League) when in the bottom places, otherwise "
    "kept there; the Superfinal engines stay in the Premier Division (8.2). Each League "
    "lists the engines relegated from above first (by their place there), then those who "
    "stayed (by place).",
    "tcec/cup-holder": "Cup 1.e: the last Cup's winner is seeded 1 when it is among the "
    "Swiss's top 32 (1.c: the 32 are the Swiss's top 32); the others keep their order.",
}

SWISS = StageSpec(
    key="swiss",
    name="TCEC Swiss",
    format="swiss",
    rules_preset="tcec-swiss",
    article="tcec-rules Swiss 1.b, 2 (12 double rounds, Monrad)",
    sources=(
        FromPlan("field", "tcec-rules Swiss 1.a, 1.c (invited engines, seeded by the organisers)"),
    ),
    rounds=24,  # Swiss 1.b: 12 double rounds, two stage rounds each (projections/pairing/monrad)
    time_control=TC_30_3,  # Swiss 5.a
    holder_key="holder",
    holder_article="tcec-rules Swiss 1.d (the last Swiss winner seeded 1)",
)

CUP = StageSpec(
    key="cup",
    name="TCEC Cup",
    format="cup",
    rules_preset="tcec-cup",
    article="tcec-rules Cup 1-3 (knockout, EDPS8-RRC)",
    sources=(Top("swiss", 32, "tcec-rules Cup 1.c, 1.d (the top 32 of the last Swiss, by place)"),),
    size=32,
    time_control=TC_30_3,  # Cup 5.a
    holder_key="cup_holder",
    holder_article="tcec-rules Cup 1.e (the winner of the last Cup seeded 1)",
)

_EL_PLACED = FromPlan(
    "placed.el", "tcec-rules Leagues 1.8, 2.2 (placed from the former Season)", nominal=10
)

EL_FROM_SWISS = StageSpec(
    key="el",
    name="Entrance League",
    format="league",
    rules_preset="tcec-league",
    article="tcec-rules Leagues 2 (1x double round robin, 30'+3\")",
    sources=(
        _EL_PLACED,
        Top(
            "swiss",
            6,
            "tcec-rules Leagues 2.3, 2.4 (6 engines seeded from the last Swiss)",
            skip_placed=True,
            fills_vacancies=True,
            first_time=True,
        ),
    ),
    size=16,  # Leagues 2.3
    cycles=2,  # Leagues 2.5: 1x double round robin
    time_control=TC_30_3,  # Leagues 2.5, 9.2
    relegation=Relegation(
        6, None, "tcec-rules Leagues 2.7 (the bottom 6 relegate: they leave the Leagues)"
    ),
    league="el",
)

EL_FROM_QUALIFIERS = replace(
    EL_FROM_SWISS,
    sources=(
        _EL_PLACED,
        Qualifiers(
            "swiss_qualifiers",
            6,
            "tcec-rules Leagues 2.3, 2.4 (6 engines seeded from the last Swiss)",
            fills_vacancies=True,
            first_time=True,
        ),
    ),
)

L2 = StageSpec(
    key="l2",
    name="League 2",
    format="league",
    rules_preset="tcec-league",
    article="tcec-rules Leagues 3 (2x double round robin, 30'+3\")",
    sources=(
        FromPlan("placed.l2", "tcec-rules Leagues 1.8, 3.2 (placed from the former Season)", 8),
        Top(
            "el",
            4,
            "tcec-rules Leagues 2.7, 3.3 (the top 4 of the Entrance League promote)",
            fills_vacancies=True,
        ),
    ),
    size=12,  # Leagues 3.3
    cycles=4,  # Leagues 3.4: 2x double round robin
    time_control=TC_30_3,  # Leagues 3.4, 9.2
    relegation=Relegation(
        4, "el", "tcec-rules Leagues 3.6 (the bottom 4 relegate to the Entrance League)"
    ),
    league="l2",
)

L1 = StageSpec(
    key="l1",
    name="League 1",
    format="league",
    rules_preset="tcec-league",
    article="tcec-rules Leagues 4 (2x double round robin, 30'+3\")",
    sources=(
        FromPlan(
            "placed.l1", "tcec-rules Leagues 1.8, 4.2, 4.4 (placed from the former Season)", 8
        ),
        Top(
            "l2",
            4,
            "tcec-rules Leagues 3.6, 4.3 (the top 4 of League 2 promote)",
            fills_vacancies=True,
        ),
    ),
    size=12,  # Leagues 4.3
    cycles=4,  # Leagues 4.5: 2x double round robin
    time_control=TC_30_3,  # Leagues 4.5, 9.2
    relegation=Relegation(4, "l2", "tcec-rules Leagues 4.7 (the bottom 4 relegate to League 2)"),
    league="l1",
)

DIVP = StageSpec(
    key="divp",
    name="Premier Division",
    format="league",
    rules_preset="tcec-premier",
    article="tcec-rules Leagues 5, 6 (4x double round robin, 60'+6\", Conditional Tiebreak)",
    sources=(
        FromPlan(
            "placed.divp", "tcec-rules Leagues 1.8, 5.2, 5.4 (placed from the former Season)", 6
        ),
        Top(
            "l1",
            2,
            "tcec-rules Leagues 4.7, 5.3 (the top 2 of League 1 promote)",
            fills_vacancies=True,
        ),
    ),
    size=8,  # Leagues 5.3
    cycles=8,  # Leagues 5.5: 4x double round robin
    time_control=TC_60_6,  # Leagues 5.5, 9.3
    relegation=Relegation(2, "l1", "tcec-rules Leagues 5.7 (the bottom 2 relegate to League 1)"),
    league="divp",
)

SUFI = StageSpec(
    key="sufi",
    name="Superfinal",
    format="match",
    rules_preset="tcec-superfinal",
    article="tcec-rules Leagues 7 (100 games, 120'+12\")",
    sources=(
        Top(
            "divp",
            2,
            "tcec-rules Leagues 5.7, 6, 7.1 (the Premier Division's top two, or the "
            "Conditional Tiebreak's; the winner seeded 1, Black first by 7.3)",
        ),
    ),
    size=2,
    rounds=100,  # Leagues 7.1, 7.2
    time_control=TC_120_12,  # Leagues 7.2, 9.4
)

LEAGUES = ("divp", "l1", "l2", "el")  # top first (Leagues 1.3)

_TITLE = "TCEC Leagues Season"
_ARTICLE = "tcec-rules Leagues 1.3 (Entrance League, League 2, League 1, DivP, Superfinal)"

TCEC_LEAGUES = SeasonFormat(
    name="tcec-leagues",
    title=_TITLE,
    article=_ARTICLE,
    stages=(EL_FROM_QUALIFIERS, L2, L1, DIVP, SUFI),
    leagues=LEAGUES,
    plan_keys=frozenset({"placed", "swiss_qualifiers", "vacancies"}),
    readings=READINGS,
)

TCEC_SEASON = SeasonFormat(
    name="tcec-season",
    title="TCEC Season (Swiss, Cup, Leagues)",
    article="tcec-rules Leagues 1.2 (the Season: Leagues, Cup, Swiss), 1.3; Cup 1.c; Leagues 2.3",
    stages=(SWISS, CUP, EL_FROM_SWISS, L2, L1, DIVP, SUFI),
    leagues=LEAGUES,
    plan_keys=frozenset({"field", "placed", "holder", "cup_holder", "vacancies"}),
    readings=READINGS,
)

TCEC_SWISS_CUP = SeasonFormat(
    name="tcec-swiss-cup",
    title="TCEC Swiss and Cup",
    article="tcec-rules Cup 1.c, 2.a (the Cup after the Swiss, its top 32)",
    stages=(SWISS, CUP),
    plan_keys=frozenset({"field", "holder", "cup_holder"}),
    readings={k: READINGS[k] for k in ("tcec/seeds", "tcec/cut-in-a-tie", "tcec/cup-holder")},
)
