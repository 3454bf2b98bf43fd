"""TCEC 4k as a season format (data): Pool → MiniFinal. Articles are cited from
`shared/seeds/tcec-rules.txt`, "4k" (TCEC 4k rules).

- pool: 4k 0.2: all engines, 4DRR (cycles 8), 30'+3" (1.1), `tcec-4k` (3.1); the plan's field;
  top 2 → MiniFinal (0.3).
- minifinal: 4k 0.4, 3.2: 50 games (25DRR), then pairs, `tcec-4k-minifinal`; the Pool's top 2,
  its winner seed 1; the winner is the 4k champion (0.3).
"""

from __future__ import annotations

from projections.seasons.structure import FromPlan, SeasonFormat, StageSpec, Top
from projections.time_controls import TC_30_3

READINGS: dict[str, str] = {
    "4k/seeds": "the Pool's seeds are the plan's field order (the 4k rules do not seed); the "
    "MiniFinal's are the Pool's places, its winner seed 1.",
    "4k/cut-in-a-tie": "a qualification line inside a tie 4k 3.1.7 leaves to the organisers "
    "waits for their decision: a tiebreak_order ruling on the Pool, or the field ruling.",
}

POOL = StageSpec(
    key="pool",
    name="Pool",
    format="league",
    rules_preset="tcec-4k",
    article="tcec-rules 4k 0.2 (all engines, 4x double round robin)",
    sources=(FromPlan("field", "tcec-rules 4k 0.2 (all engines)"),),
    cycles=8,  # 4k 0.2: 4DRR
    time_control=TC_30_3,  # 4k 1.1
)

MINIFINAL = StageSpec(
    key="minifinal",
    name="MiniFinal",
    format="match",
    rules_preset="tcec-4k-minifinal",
    article="tcec-rules 4k 0.4, 3.2 (50 games, then pairs until one is won)",
    sources=(Top("pool", 2, "tcec-rules 4k 0.3 (the top 2 of the Pool)"),),
    size=2,
    rounds=50,  # 4k 0.4: 25DRR
    time_control=TC_30_3,  # 4k 1.1
)

TCEC_4K = SeasonFormat(
    name="tcec-4k",
    title="TCEC 4k",
    article="tcec-rules 4k 0 (Pool, MiniFinal)",
    stages=(POOL, MINIFINAL),
    plan_keys=frozenset({"field"}),
    readings=READINGS,
)
