"""Czech club ranking rules (seed czech-club-ranking-rules.cs.txt; English rendering:
rules/czech-club-ranking-rules.en.md).

"Co rozhoduje o pořadí v tabulce turnajů" — what decides the order in a tournament table:

- A (single round robin): 1. points, 2. head-to-head mini-table (re-applied), 3. Sonneborn
  counted over wins only, 4. lower sum of the placings of the beaten players.
- B (two or more cycles): 1. points, 2. head-to-head, 3. Sonneborn, 4. the placings in the
  individual cycles (each cycle ranked by rules A), 5. as A4 over the whole tournament, 6. as B5
  per cycle.
- For all points of A and B: two players level on any criterion are separated by their
  head-to-head unless it was drawn (`TiebreakOptions.pairwise_head_to_head`, applied by the
  chain to every sub-group of exactly two); when head-to-head is the last criterion left and it
  ended level (1:1, 1.5:1.5), the winner of the last decisive game between them is ahead.

Readings adopted (rules/czech-club-ranking-rules.en.md, "Readings we adopt"), each a named rule
here:

- "Placing" of an opponent (A4, B5) is the place in the same table ranked by criteria 1–3 only
  (`PLACING_CHAIN`), players still level sharing the best place (1-2-2-4).
- B4 compares the sum of the cycle placings, then the placings sorted best first, then the
  placings from the latest cycle backwards (`cycle_placings_key`).
- Every win counts: beating one player in two cycles counts that player twice.

Readings of this module, where the text is silent or the readings conflict (stated so an
auditor can check them):

- Only games played over the board count as mutual games and as wins (forfeits are recorded
  apart from played games, as in the chain's pairwise head-to-head and `direct-encounter`).
- A4/B5/B6: a player who beat nobody has the empty sum, 0 — the text's "lower is better" read
  literally.
- B6: the two adopted readings pull apart here. "Placing (A4, B5, B6) = ranked by criteria 1–3"
  would make B6 the A4 sum of each cycle's table, which can never decide anything B4 left level
  (see `beaten_placings_per_cycle`); the B6 reading says "cycle placings (cycle ranked by rules
  A)", the B4 placings, matching the original's "umístění v jednotlivých kolech". The default
  follows the B6 reading; the parameter `placings="criteria-1-3"` gives the other.
- The last game is the latest by (cycle, round, order of the result).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from events_schema.events import TiebreakOptions, TiebreakSpec
from projections.tiebreaks.chain import Chain, Ranking, rank
from projections.tiebreaks.common import mutual_points
from projections.tiebreaks.registry import (
    Param,
    Value,
    count_key,
    criterion,
    half_points,
    half_points_key,
    negated_key,
    placings_key,
)

if TYPE_CHECKING:
    from projections.standings.crosstable import Crosstable

NO_VALUE = "–"

# ---------------------------------------------------------------------------------------------
# Helpers


def beaten(ct: Crosstable, pid: str) -> list[str]:
    """The opponents `pid` beat over the board, once per win ("ti, které hráč porazil"):
    two wins over the same player list that player twice."""
    return [
        e.opponent
        for e in ct.entries.get(pid, ())
        if e.kind == "played" and e.outcome == "win" and e.opponent is not None
    ]


def places(ranking: Ranking) -> dict[str, int]:
    """Standard competition places of a ranking: a block of level players shares the best place
    of the block and the next place skips (1, 2, 2, 4)."""
    out: dict[str, int] = {}
    place = 1
    for block in ranking.blocks:
        for p in block:
            out[p] = place
        place += len(block)
    return out


def cycles(ct: Crosstable) -> list[int]:
    """The cycles with at least one game or bye, in order."""
    return sorted({e.cycle for es in ct.entries.values() for e in es})


def cycle_table(ct: Crosstable, cycle: int) -> Crosstable:
    """One cycle's games alone (B4: "umístění v jednotlivých kolech")."""
    return ct.restrict(lambda e: e.cycle == cycle)


def _sum_shown(terms: Sequence[int]) -> str:
    total = sum(terms)
    if len(terms) < 2:
        return str(total)
    return f"{total} ({'+'.join(str(t) for t in terms)})"


def _chain(*names: str) -> Chain:
    return Chain(
        tuple(TiebreakSpec(name=n) for n in names),
        TiebreakOptions(pairwise_head_to_head=True),
    )


#: Criteria 1–3 (points, head-to-head, Sonneborn, with the two-player head-to-head rule): the
#: ranking whose places are the "placings" of A4 and B5 (adopted reading: this avoids the
#: circularity of using the final order to compute the final order), and of B6 with
#: `placings="criteria-1-3"`.
PLACING_CHAIN = _chain("czech-mini-table", "czech-sonneborn", "shared-place")


def beaten_placings(ct: Crosstable, chain: Chain = PLACING_CHAIN) -> dict[str, list[int]]:
    """Per player, the placings (places in `ct` ranked by `chain`, by default criteria 1–3) of
    the players they beat, one term per win, in the order the games were played."""
    placing = places(rank(ct, chain))
    return {p: [placing[o] for o in beaten(ct, p)] for p in ct.players}


def cycle_placings(ct: Crosstable) -> dict[str, list[int]]:
    """Per player, their place in each cycle (earliest first), each cycle's games ranked alone
    by the single-round-robin rules A (the `czech-single` chain)."""
    single = PRESETS["czech-single"]
    per_cycle = [places(rank(cycle_table(ct, k), single)) for k in cycles(ct)]
    return {p: [placing[p] for placing in per_cycle] for p in ct.players}


def cycle_placings_key(placings: Sequence[int]) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """B4 as one comparable key, higher = better:

    a. the sum of the cycle placings, lower better ("lepší je samozřejmě nižší");
    b. then the placings sorted best first, compared lexicographically ("1 + 3 je lepší než
       2 + 2");
    c. then the placings from the latest cycle backwards, compared lexicographically ("3 + 1 je
       lepší než 1 + 3 (progresivní tendence)": 1 in the later cycle wins).

    Each part is negated so that a higher key is better.
    """
    return (
        -sum(placings),
        tuple(-p for p in sorted(placings)),
        tuple(-p for p in reversed(placings)),
    )


# ---------------------------------------------------------------------------------------------
# Criteria


@criterion(
    "czech-mini-table",
    "mini-table",
    "Czech club rules A2, B2",
    group_relative=True,
    reapply=True,
    unit="points",
    reading=half_points_key,
    radius="group",
)
def mini_table(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """A2: "Vzájemný zápas, při shodě více hráčů se vytvoří tabulka jen jejich vzájemných
    zápasů. Pokud je pořadí tímto jasné, sonnenborn se již nepočítá. I v této tabulce o pořadí
    rozhoduje nejprve skóre, popřípadě při shodném skóre vzájemný zápas." (B2: head-to-head.)

    The score of each tied player in the games played among the tied players only (all cycles:
    1.5 : 0.5 decides, 1 : 1 is level). Re-applied (`reapply`) to every sub-group it produces,
    so a sub-group gets the table of its own mutual games; a sub-group of two is its
    head-to-head game ("při shodném skóre vzájemný zápas"). Only when the table no longer
    separates does the sub-group move on to Sonneborn.
    """
    return mutual_points(group, (g for g in ct.games_between(group) if g.played))


@criterion(
    "czech-sonneborn",
    "Sonneborn (wins)",
    "Czech club rules A3, B3",
    unit="points",
    reading=half_points_key,
    radius="field",
)
def sonneborn(ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]) -> dict[str, Value]:
    """A3: "se počítá sonnenborn (součet bodů, které získali ti, které hráč porazil)" — the sum
    of the final scores of the opponents the player beat. Draws add nothing (this is not the
    FIDE Sonneborn-Berger); beating the same player in two cycles adds their score twice.
    Higher is better. At equal Sonneborn two players are separated by their head-to-head (the
    chain's pairwise rule)."""
    points = ct.points
    out = {}
    for p in group:
        total = sum(points.get(o, 0) for o in beaten(ct, p))
        out[p] = Value(total, half_points(total))
    return out


@criterion(
    "czech-beaten-placings",
    "placings of beaten players",
    "Czech club rules A4, B5",
    unit="placings",
    reading=negated_key,
    radius="field",
)
def beaten_placings_sum(
    ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]
) -> dict[str, Value]:
    """A4: "Při shodnosti sonnenbornu nižší součet umístění hráčů, které hráč porazil." B5: "se
    počítá opět celkový součet umístění jako v bodu A4" (over the whole tournament).

    The sum of the placings of the players the player beat, one term per win; LOWER is better
    (the key is negated). Placing (adopted reading) = the place in this same table ranked by
    criteria 1–3 (points, head-to-head, Sonneborn; `PLACING_CHAIN`), level players sharing the
    best place of their group (1-2-2-4). A player who beat nobody has the sum 0.
    """
    terms = beaten_placings(ct)
    return {p: Value(-sum(terms[p]), _sum_shown(terms[p])) for p in group}


@criterion(
    "czech-cycle-placings",
    "cycle placings",
    "Czech club rules B4 a–c",
    unit="placings",
    reading=placings_key,
    radius="field",
)
def cycle_placings_rank(
    ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]
) -> dict[str, Value]:
    """B4: "Při shodnosti sonnenbornu součet umístění v jednotlivých kolech, přičemž pro umístění
    v jednotlivých kolech platí pravidlo pro turnaje jednokolové (A). a.) lepší je samozřejmě
    nižší b.) 1 + 3 je lepší než 2 + 2 c.) 3 + 1 je lepší než 1 + 3 (progresivní tendence)".

    Each cycle's games are ranked alone by the rules A (`czech-single`, places 1-2-2-4); the
    player's placings are compared by `cycle_placings_key`: sum ascending, then best-first
    lexicographically, then from the latest cycle backwards. Shown as "sum (cycle 1 + cycle 2
    …)".
    """
    placings = cycle_placings(ct)
    return {p: Value(cycle_placings_key(placings[p]), _sum_shown(placings[p])) for p in group}


B6_PLACINGS = ("rules-a", "criteria-1-3")


@criterion(
    "czech-beaten-placings-per-cycle",
    "placings of beaten players per cycle",
    "Czech club rules B6",
    params={
        "placings": Param(
            str,
            "rules-a",
            lambda v: None if v in B6_PLACINGS else f"one of {', '.join(B6_PLACINGS)}",
            doc="the cycle table's order that gives an opponent's placing: 'rules-a' (the B4 "
            "cycle placings, each cycle ranked by the rules A; adopted B6 reading) or "
            "'criteria-1-3' (points, head-to-head, Sonneborn only, as the A4/B5 placings)",
        )
    },
    unit="placings",
    reading=negated_key,
    radius="field",
)
def beaten_placings_per_cycle(
    ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]
) -> dict[str, Value]:
    """B6: "Pokud nelze rozhodnout podle předchozího bodu, počítá se součet umístění stejně jako
    v bodě B5, ale pro jednotlivá kola."

    Adopted B6 reading: for each cycle, the sum of the cycle placings (the cycle's games ranked
    alone by the rules A, as in B4) of the players beaten in that cycle, one term per win; the
    cycle sums are added. LOWER is better (negated key). Shown as "total (cycle 1 + cycle 2
    …)".

    `placings="criteria-1-3"` ranks each cycle's table by criteria A1–A3 only (the general
    "placing" reading applied to the cycle's table). Note that this variant can never separate
    two players that B4 left level: sharing a place in every cycle means equal A4 sums in every
    cycle, and those are exactly its per-cycle sums.
    """
    rules_a = params.get("placings", "rules-a") == "rules-a"
    chain = PRESETS["czech-single"] if rules_a else PLACING_CHAIN
    per_cycle = [beaten_placings(cycle_table(ct, k), chain) for k in cycles(ct)]
    out = {}
    for p in group:
        sums = [sum(terms[p]) for terms in per_cycle]
        out[p] = Value(-sum(sums), _sum_shown(sums))
    return out


@criterion(
    "czech-last-game-winner",
    "last decisive mutual game",
    "Czech club rules, A and B: last game",
    group_relative=True,
    unit="outcome",
    reading=count_key,
    radius="field",
)
def last_game_winner(
    ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]
) -> dict[str, Value]:
    """Last game: "Pokud jsou posledním možným kritériem v obou skupinách (A i B) vzájemné
    zápasy a ty skončily 1:1 (nebo 1,5 : 1,5), i zde se upřednostňuje vítěz posledního zápasu,
    případně předposledního, jestliže poslední byla remíza (nelze aplikovat na výsledek
    0,5:0,5)."

    Only for exactly two players whose head-to-head (all their games played over the board)
    ended level: the winner of the latest decisive game between them (by cycle, round, then the
    order of the result) is ahead; a drawn last game passes to the one before, and so on. It
    gives no value (separates nobody) to a larger group, to a pair whose head-to-head was not
    level (the head-to-head itself decides that), or when every game between them was drawn
    (e.g. a single 0.5:0.5). For a larger group it only shows, per pair, the game that decides
    as the chain applies it (`_last_game_as_applied`: display only).
    """
    none = {p: Value(None, NO_VALUE) for p in group}
    if len(group) > 2:
        return _last_game_as_applied(ct, group, params)
    if len(group) != 2:
        return none
    a, b = sorted(group)
    games = sorted(
        (g for g in ct.games_between(group) if g.played),
        key=lambda g: (g.cycle, g.round, g.order),
    )
    if sum(g.points_of(a) for g in games) != sum(g.points_of(b) for g in games):
        return none
    for g in reversed(games):
        pa, pb = g.points_of(a), g.points_of(b)
        if pa != pb:
            winner, loser = (a, b) if pa > pb else (b, a)
            return {
                winner: Value(1, f"won round {g.round}"),
                loser: Value(0, f"lost round {g.round}"),
            }
    return none


def _last_game_as_applied(
    ct: Crosstable, group: Sequence[str], params: Mapping[str, Any]
) -> dict[str, Value]:
    """A group of three or more: the rule separates nobody in it (every key is None, so a
    ranking is never changed by it), but the standings' column, which asks over a whole points
    group, shows the rule as the chain applies it: to each pair the criteria before it leave
    level. That is the rulebook's chain (A for one cycle, B for more: `PRESETS`) up to this
    criterion, run over the group; each pair still level at its end shows its last decisive
    game ("won round 10" / "lost round 10"), everyone else "–". A group level on every
    earlier criterion (as when the chain itself reaches this rule with three players) stays
    one block: all "–". Memoised per crosstable and group (a pure function of both)."""

    def compute() -> dict[str, Value]:
        preset = PRESETS["czech-multi" if len(cycles(ct)) > 1 else "czech-single"]
        names = [s.name for s in preset.specs]
        before = names[: names.index("czech-last-game-winner")]
        ranking = rank(ct, _chain(*before, "shared-place"), group)
        shown = {p: NO_VALUE for p in group}
        for block in ranking.blocks:
            if len(block) == 2:
                for p, v in last_game_winner(ct, block, params).items():
                    shown[p] = v.shown
        return {p: Value(None, shown[p]) for p in group}

    key = ("czech-last-game-winner", "as applied", tuple(sorted(group)))
    return dict(ct.memo(key, compute))


#: Presets this rulebook defines (merged into projections.tiebreaks.presets.PRESETS). Both
#: apply the two-player head-to-head rule at every step ("Pro všechny body skupin A i B platí:
#: Při rovnosti jakéhokoliv kritéria u dvou hráčů rozhoduje vzájemný zápas, pokud neskončil
#: nerozhodně").
PRESETS: dict[str, Chain] = {
    # A: single round robin.
    "czech-single": _chain(
        "czech-mini-table",
        "czech-sonneborn",
        "czech-beaten-placings",
        "czech-last-game-winner",
        "shared-place",
    ),
    # B: two or more cycles.
    "czech-multi": _chain(
        "czech-mini-table",
        "czech-sonneborn",
        "czech-cycle-placings",
        "czech-beaten-placings",
        "czech-beaten-placings-per-cycle",
        "czech-last-game-winner",
        "shared-place",
    ),
}
