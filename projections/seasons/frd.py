"""TCEC FRD (Double Fischer Random) as a season format (data): Leagues A-D → Semileagues 1 and
2 → Final League → Final. Articles are cited from `shared/seeds/tcec-rules.txt`, "FRD"
(TCEC FRD rules).

- league-a … league-d: FRD 2.a, 2.c: 2DRR of FRC (cycles 4), `tcec-frd`; the plan's field dealt
  over A-D (2.a, reading below); top 3 → the Semileagues (2.d).
- semi-1, semi-2: FRD 2.e: 2DRR of DFRC (cycles 4), `tcec-frd`; the Leagues' top 3, crossed
  (2.d, reading below); top 3 → Final League (2.f).
- final-league: FRD 2.g: 4DRR of DFRC (cycles 8), `tcec-frd`; the Semileagues' top 3 (2.f);
  top 2 → Final (2.h).
- final: FRD 2.h, 2.i: 50 games (25DRR), then pairs until one is won, `tcec-frd-final`; the
  Final League's top 2, its winner seed 1.

FRD 2.b: "the reverse games will not follow immediately, except in the Final": the round
robins use `projections/pairing/round_robin.py`'s "cycle" placement, its default for the
`tcec-frd` preset; the Final is a match (`projections/playoffs/tcec_match.py`), whose pairs are
consecutive games. FRD 5.a: 30'+3" throughout. Tiebreaks: FRD 3 (`tcec-frd` chain).
"""

from __future__ import annotations

from projections.seasons.structure import Cross, SeasonFormat, Snake, StageSpec, Top
from projections.time_controls import TC_30_3

LEAGUE_KEYS = ("league-a", "league-b", "league-c", "league-d")
SEMI_KEYS = ("semi-1", "semi-2")
SEEDING_LOT = "frd:seeding"

READINGS: dict[str, str] = {
    "frd/leagues-allocation": "FRD 2.a gives the seeding, not the allocation: seeds 1-8 are "
    "the organisers' (the plan's field order, the last FRD winner first, 1.e); seeds 9..N "
    'come from a lot (LotDrawn purpose "pairing_numbers", subject "frd:seeding" on the '
    "series stream: the k-th engine of its outcome is seed 8 + k). The engines are dealt to "
    "Leagues A-D in snake order of seeds (A 1, B 2, C 3, D 4, D 5, C 6, B 7, A 8, A 9, ...): "
    "each League gets one of seeds 1-4 and one of 5-8, with equal seed sums (equal "
    "distance); League sizes differ by at most one.",
    "frd/semileagues-allocation": "FRD 2.d does not say which Semileague an engine goes to: "
    "the engine placed p-th in League i (A = 0 ... D = 3) goes to Semileague 1 when i + p - 1 "
    "is even, else to Semileague 2: SL1 = A1, C1, B2, D2, A3, C3; SL2 = B1, D1, A2, C2, B3, "
    "D3; each Semileague gets two winners, two seconds and two thirds, and every League "
    "sends engines to both. Seeds within a Semileague: by place, then League.",
    "frd/final-league": "FRD 2.f: the Final League's seeds are by place, then Semileague "
    "(SL1 1st, SL2 1st, SL1 2nd, ...).",
    "frd/final-seeds": "FRD 2.b: the Final League's winner is seed 1 of the Final; the lower "
    "seed starts each pair with White (projections/playoffs/tcec_match.py).",
    "frd/cut-in-a-tie": "a qualification line inside a tie FRD 3 leaves to the organisers "
    "(3.5) waits for their decision: a tiebreak_order ruling on the stage's tournament, or "
    "the field ruling itself.",
}

_LEAGUES = tuple(
    StageSpec(
        key=key,
        name=f"League {key[-1].upper()}",
        format="league",
        rules_preset="tcec-frd",
        article="tcec-rules FRD 2.c (two double round robins of FRC)",
        sources=(
            Snake(
                4,
                i,
                8,
                SEEDING_LOT,
                "tcec-rules FRD 2.a (top 8 equal-distance seeded, the rest by lot)",
            ),
        ),
        cycles=4,  # FRD 2.c: 2DRR
        time_control=TC_30_3,  # FRD 5.a
    )
    for i, key in enumerate(LEAGUE_KEYS)
)

_SEMIS = tuple(
    StageSpec(
        key=key,
        name=f"Semileague {key[-1]}",
        format="league",
        rules_preset="tcec-frd",
        article="tcec-rules FRD 2.e (two double round robins of DFRC)",
        sources=(Cross(LEAGUE_KEYS, 3, g, 2, "tcec-rules FRD 2.d (the top 3 of each League)"),),
        size=6,
        cycles=4,  # FRD 2.e: 2DRR
        time_control=TC_30_3,
    )
    for g, key in enumerate(SEMI_KEYS)
)

FINAL_LEAGUE = StageSpec(
    key="final-league",
    name="Final League",
    format="league",
    rules_preset="tcec-frd",
    article="tcec-rules FRD 2.g (four double round robins of DFRC)",
    sources=(Cross(SEMI_KEYS, 3, 0, 1, "tcec-rules FRD 2.f (the top 3 of each Semileague)"),),
    size=6,
    cycles=8,  # FRD 2.g: 4DRR
    time_control=TC_30_3,
)

FINAL = StageSpec(
    key="final",
    name="Final",
    format="match",
    rules_preset="tcec-frd-final",
    article="tcec-rules FRD 2.h, 2.i (50 games of DFRC, then pairs until one is won)",
    sources=(Top("final-league", 2, "tcec-rules FRD 2.h (the top 2 of the Final League)"),),
    size=2,
    rounds=50,  # FRD 2.h: 25DRR
    time_control=TC_30_3,
)

TCEC_FRD = SeasonFormat(
    name="tcec-frd",
    title="TCEC FRD",
    article="tcec-rules FRD 2 (Leagues A-D, Semileagues, Final League, Final)",
    stages=(*_LEAGUES, *_SEMIS, FINAL_LEAGUE, FINAL),
    plan_keys=frozenset({"field", "holder"}),
    readings=READINGS,
)
