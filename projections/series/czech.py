"""The Czech club series table ("Co rozhoduje o pořadí v celkové tabulce",
`czech-club-ranking-rules.cs.txt`; English: `rules/czech-club-ranking-rules.en.md`).

* Place points: "poslední 1 bod, předposlední 2 body, atd., první získá tolik bodů, kolik je
  účastníků turnaje": with N participants, place p gives N − p + 1.
* "Při dvoukolovém turnaji dostane vítěz bonus 1 bod": +1 to the winner of a tournament of two
  or more cycles (rules/README reading).
* "se každému započte takový počet nejlepších výsledků, kolik odpovídá 75% celkově sehraných
  turnajů (zaokrouhleno dolů), redukce se provádí po každém turnaji": each player counts their
  best ⌊0.75 · held⌋ results, held = tournaments of the series so far; the cut is re-applied
  after every tournament (`czech_series_progression` shows the table after each).
* Order: 1. higher counted points; 2. fewer counted tournaments ("nikoliv odehraných!");
  3. more first places; 4. more "better" first places (from tournaments with more
  participants), compared largest first. Players still level share the place (1, 2, 2, 4).

Readings where the text is open are named in `READINGS` (and listed on every table), so an
organiser sees which applied and an auditor can replay it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from events_schema.events import SeriesCreated
from projections.prizes.common import Block, blocks, points_str
from projections.series.common import (
    Entry,
    EventStanding,
    ordered_blocks,
    read_entries,
    row_dict,
)

READINGS: dict[str, str] = {
    "czech-series/participants": "N, the participants of a tournament, is the number of "
    "players in its final table.",
    "czech-series/shared-place-points": "players sharing places p…p+k−1 (still level after "
    "the tournament's whole chain) each get the mean of those places' points, exactly "
    "(a Fraction): the points of the places are neither lost nor duplicated.",
    "czech-series/multi-cycle-bonus": "the winner's bonus point applies to tournaments of two "
    "or more cycles; when first place is shared, the bonus point is shared equally.",
    "czech-series/at-least-one-counted": "the number counted is ⌊0.75 · held⌋ but at least "
    "`min_counted` (default 1): with one tournament held ⌊0.75⌋ = 0 would count nothing; "
    "pass min_counted=0 for the bare formula.",
    "czech-series/counted-tournaments": "a player's counted tournaments are min(played, "
    "⌊0.75 · held⌋): a player who played fewer counts all of them.",
    "czech-series/equal-results": "among equal results the earlier tournament is the one "
    "counted (the sum is the same either way).",
    "czech-series/first-places": "first places (criteria 3 and 4) are counted over every "
    "tournament the player played in the series, counted or not; a shared first place is a "
    "first place.",
    "czech-series/better-first-places": "criterion 4 compares the participant counts of the "
    "players' first places sorted largest first, lexicographically (criterion 3 has made the "
    "counts equal in length).",
}


@dataclass(frozen=True)
class CzechResult:
    """One tournament's result of one player, and whether it counts now."""

    tournament_id: str
    name: str
    participants: int
    cycles: int
    first_place: int
    last_place: int
    place_points: Fraction
    bonus: Fraction
    counted: bool
    rank: int  # 1 = the player's best result so far
    note: str  # how the points were made
    reason: str  # why it is (not) counted

    @property
    def points(self) -> Fraction:
        return self.place_points + self.bonus

    @property
    def first(self) -> bool:
        return self.first_place == 1

    def as_dict(self) -> dict[str, Any]:
        return {
            "tournament_id": self.tournament_id,
            "name": self.name,
            "participants": self.participants,
            "cycles": self.cycles,
            "places": [self.first_place, self.last_place],
            "place_points": points_str(self.place_points),
            "bonus": points_str(self.bonus),
            "points": points_str(self.points),
            "counted": self.counted,
            "rank": self.rank,
            "note": self.note,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class CzechRow:
    place: int
    shared: bool
    player_id: str
    points: Fraction  # sum of the counted results
    counted: int  # tournaments counted (criterion 2)
    played: int
    running_total: Fraction  # all results, before the cut ("průběžné pořadí")
    first_places: int
    first_place_sizes: tuple[int, ...]  # participants of each first place, largest first
    results: tuple[CzechResult, ...]  # in tournament order
    decided_by: str  # vs the row above

    def as_dict(self) -> dict[str, Any]:
        return row_dict(
            self,
            {
                "counted": self.counted,
                "played": self.played,
                "running_total": points_str(self.running_total),
                "first_places": self.first_places,
                "first_place_sizes": list(self.first_place_sizes),
            },
        )


@dataclass(frozen=True)
class CzechTable:
    series: str
    events: tuple[str, ...]
    held: int
    cap: int  # results counted per player
    cap_text: str  # "⌊0.75 × 5⌋ = 3"
    rows: tuple[CzechRow, ...]
    readings: tuple[str, ...] = tuple(READINGS)

    def row(self, player_id: str) -> CzechRow:
        for r in self.rows:
            if r.player_id == player_id:
                return r
        raise KeyError(player_id)

    def as_dict(self) -> dict[str, Any]:
        return {
            "series": self.series,
            "events": list(self.events),
            "held": self.held,
            "counted_per_player": self.cap,
            "cap": self.cap_text,
            "rows": [r.as_dict() for r in self.rows],
            "readings": {k: READINGS[k] for k in self.readings},
        }


def counted_per_player(held: int, min_counted: int = 1) -> tuple[int, str]:
    """⌊0.75 · held⌋ in integers (3·held // 4), at least `min_counted` (never more than held)."""
    floor = 3 * held // 4
    cap = min(held, max(floor, min_counted))
    text = f"⌊0.75 × {held}⌋ = {floor}"
    if cap != floor:
        text += f", at least {cap} (czech-series/at-least-one-counted)"
    return cap, text


def _place_points(es: EventStanding, block: Block) -> tuple[Fraction, Fraction, str]:
    n = es.participants
    k = len(block.players)
    pts = [n - q + 1 for q in block.places]
    place_points = Fraction(sum(pts), k)
    if block.shared:
        note = (
            f"places {block.label()} of {n} shared: ({' + '.join(map(str, pts))}) / {k} = "
            f"{points_str(place_points)}"
        )
    else:
        note = f"place {block.first} of {n}: {pts[0]}"
    bonus = Fraction(0)
    if block.first == 1 and es.cycles >= 2:
        bonus = Fraction(1, k)
        note += f"; winner's bonus +{points_str(bonus)} ({es.cycles} cycles"
        note += ", shared)" if block.shared else ")"
    return place_points, bonus, note


def _decided_by(upper: tuple[Any, ...], lower: tuple[Any, ...]) -> str:
    (pa, ca, fa, sa), (pb, cb, fb, sb) = upper, lower
    if pa != pb:
        return f"points {points_str(-pa)}–{points_str(-pb)}"
    if ca != cb:
        return f"fewer counted tournaments {ca}–{cb}"
    if fa != fb:
        return f"more first places {-fa}–{-fb}"
    a = ", ".join(str(-s) for s in sa)
    b = ", ".join(str(-s) for s in sb)
    return f"first places in larger tournaments ({a}) – ({b})"


def czech_series_table(
    series: SeriesCreated,
    tournaments: Sequence[Entry],
    *,
    min_counted: int = 1,
    series_id: str | None = None,
) -> CzechTable:
    """The series table after the given tournaments (in order of completion): each entry is an
    `EventStanding` or a `(tournament_id, StandingsState)` pair."""
    events = read_entries(tournaments, series_id)
    held = len(events)
    cap, cap_text = counted_per_player(held, min_counted)

    raw: dict[str, list[tuple[int, EventStanding, Block, Fraction, Fraction, str]]] = {}
    for i, es in enumerate(events):
        for block in blocks(es.rows):
            place_points, bonus, note = _place_points(es, block)
            for pid in block.players:
                raw.setdefault(pid, []).append((i, es, block, place_points, bonus, note))

    rows_data: dict[str, tuple[tuple[Any, ...], CzechRow]] = {}
    for pid, res in raw.items():
        # best first; equal results: the earlier tournament first (czech-series/equal-results)
        by_rank = sorted(res, key=lambda r: (-(r[3] + r[4]), r[0]))
        rank = {r[0]: n for n, r in enumerate(by_rank, start=1)}
        counted_ids = {r[0] for r in by_rank[:cap]}
        played = len(res)
        results = []
        for i, es, block, place_points, bonus, note in res:
            is_counted = i in counted_ids
            if is_counted:
                reason = f"counted: result #{rank[i]} of {played}; the best {cap} count"
            else:
                reason = f"not counted: result #{rank[i]} of {played}; only the best {cap} count"
            results.append(
                CzechResult(
                    tournament_id=es.tournament_id,
                    name=es.name,
                    participants=es.participants,
                    cycles=es.cycles,
                    first_place=block.first,
                    last_place=block.last,
                    place_points=place_points,
                    bonus=bonus,
                    counted=is_counted,
                    rank=rank[i],
                    note=note,
                    reason=reason + f" ({cap_text})",
                )
            )
        points = sum((r.points for r in results if r.counted), Fraction(0))
        counted = sum(r.counted for r in results)
        sizes = tuple(sorted((r.participants for r in results if r.first), reverse=True))
        key = (-points, counted, -len(sizes), tuple(-s for s in sizes))
        rows_data[pid] = (
            key,
            CzechRow(
                place=0,
                shared=False,
                player_id=pid,
                points=points,
                counted=counted,
                played=played,
                running_total=sum((r.points for r in results), Fraction(0)),
                first_places=len(sizes),
                first_place_sizes=sizes,
                results=tuple(results),
                decided_by="",
            ),
        )

    ranked = ordered_blocks(rows_data, lambda p: rows_data[p][0])
    rows: list[CzechRow] = []
    place = 1
    for b, members in enumerate(ranked):
        above = rows_data[ranked[b - 1][0]][0] if b else None
        for i, pid in enumerate(members):
            key, row = rows_data[pid]
            decided = "shared" if i else "" if above is None else _decided_by(above, key)
            rows.append(replace(row, place=place, shared=len(members) > 1, decided_by=decided))
        place += len(members)
    return CzechTable(
        series=series.name,
        events=tuple(es.tournament_id for es in events),
        held=held,
        cap=cap,
        cap_text=cap_text,
        rows=tuple(rows),
    )


def czech_series_progression(
    series: SeriesCreated,
    tournaments: Sequence[Entry],
    *,
    min_counted: int = 1,
    series_id: str | None = None,
) -> tuple[CzechTable, ...]:
    """The series table after each tournament: the 75 % cut re-applied every time."""
    events = read_entries(tournaments, series_id)
    return tuple(
        czech_series_table(series, events[:n], min_counted=min_counted)
        for n in range(1, len(events) + 1)
    )
