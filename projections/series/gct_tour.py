"""GCT 2022 overall standings: each event's tour points, accumulated (§4).

Each event's tour points come from `projections.prizes.gct.event_split`, so shared places
share the points of the places they occupy (2.8/3.8) and a tie for first shares the points of
places 1…k whatever the playoff decides (2.7/3.7). An event's own `points_table` (or a
correction ruling's) applies; an event without one uses the series' `SeriesCreated.points_table`.

Overall places are by total points, players level sharing the place (1, 2, 2, 4). Which ties
the §4 playoff breaks is the reading pinned in rules/README "GCT overall standings (4.x)", the
cutting rule of the playoff machine (`projections.playoffs.gct_tour.played_off`), so the two
never disagree: a tie that includes 1st place is played off (4.1); a tie that straddles 3rd
place (2–4, 3–4, 3–5, …) is played off for 3rd (4.1); a tie for 2nd that stays inside the top
three (2–3) is not broken, nor is a tie wholly below 3rd (4.2). 4.5: a 1st-place tie and a
3rd-place tie are separate playoffs. The rows are what the §4 playoff machine and
`tour_bonus_split` (4.2: bonus split by these pre-playoff places) take.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from events_schema.events import SeriesCreated
from projections.playoffs.gct_tour import TOP_THREE, WINNER, played_off
from projections.prizes.common import Block, points_str
from projections.prizes.gct import event_split
from projections.series.common import (
    Entry,
    EventStanding,
    ordered_blocks,
    read_entries,
    row_dict,
)


@dataclass(frozen=True)
class TourResult:
    """One event's contribution to a player's tour total."""

    tournament_id: str
    name: str
    first_place: int
    last_place: int
    tour_points: Fraction
    note: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "tournament_id": self.tournament_id,
            "name": self.name,
            "places": [self.first_place, self.last_place],
            "tour_points": points_str(self.tour_points),
            "note": self.note,
        }


@dataclass(frozen=True)
class TourRow:
    place: int
    shared: bool
    player_id: str
    points: Fraction  # exact
    events_counted: int  # events the player has tour points (or a place) from
    results: tuple[TourResult, ...]
    playoff: str | None  # "first", "third", "first and third": the §4.1 playoff it is in
    decided_by: str  # vs the row above: "points 36–33½" / "shared"

    def as_dict(self) -> dict[str, Any]:
        return row_dict(self, {"events_counted": self.events_counted, "playoff": self.playoff})


@dataclass(frozen=True)
class TourTie:
    first_place: int
    last_place: int
    players: tuple[str, ...]
    points: Fraction
    covers_first: bool  # the tie includes 1st place (4.1)
    covers_third: bool  # the tie straddles 3rd place: who is in the first three (4.1, 4.3)
    article: str
    text: str

    @property
    def playoff(self) -> bool:
        return self.covers_first or self.covers_third

    def as_dict(self) -> dict[str, Any]:
        return {
            "places": [self.first_place, self.last_place],
            "players": list(self.players),
            "points": points_str(self.points),
            "playoff": self.playoff,
            "covers_first": self.covers_first,
            "covers_third": self.covers_third,
            "article": self.article,
            "text": self.text,
        }


@dataclass(frozen=True)
class TourTable:
    series: str
    events: tuple[str, ...]  # tournament ids, in order of completion
    rows: tuple[TourRow, ...]
    ties: tuple[TourTie, ...]
    bonus_points_withheld: tuple[str, ...]  # events with a playoff for first (2.7/3.7)
    notes: tuple[str, ...] = ()

    @property
    def playoffs(self) -> tuple[TourTie, ...]:
        """The ties §4.1 plays off (first and/or third place covered)."""
        return tuple(t for t in self.ties if t.playoff)

    def as_dict(self) -> dict[str, Any]:
        return {
            "series": self.series,
            "events": list(self.events),
            "rows": [r.as_dict() for r in self.rows],
            "ties": [t.as_dict() for t in self.ties],
            "bonus_points_withheld": list(self.bonus_points_withheld),
            "notes": list(self.notes),
        }


def _event_results(
    es: EventStanding, series: SeriesCreated, notes: list[str]
) -> tuple[dict[str, TourResult], bool]:
    table = es.points_table or tuple(series.points_table)
    if not table:
        notes.append(f"{es.tournament_id}: no tour points table (event or series): 0 points")
    classical = es.rules_preset == "gct-classical"
    sec = "3" if classical else "2"
    split = event_split(es.rows, es.prize_table, table, classical=classical, playoff_winner=None)
    out: dict[str, TourResult] = {}
    for g in split.groups:
        assert g.tour_points is not None and g.tour_points_share is not None
        block = Block(g.first_place, g.players)
        terms = [f"T{q} {points_str(t)}" for q, t in zip(block.places, g.tour_points, strict=True)]
        if not block.shared:
            note = f"place {block.first}: {terms[0]}"
        else:
            first_tie = block.first == 1
            art = f"GCT {sec}.7" if first_tie else f"GCT {sec}.8"
            extra = " (playoff for first: points unaffected, no bonus points)" if first_tie else ""
            note = (
                f"{art}: places {block.label()} shared: ({' + '.join(terms)}) / "
                f"{len(block.players)} = {points_str(g.tour_points_share)}{extra}"
            )
        for pid in g.players:
            out[pid] = TourResult(
                es.tournament_id, es.name, g.first_place, g.last_place, g.tour_points_share, note
            )
    return out, split.bonus_points_withheld


_PLAYOFF = {(True, True): "first and third", (True, False): "first", (False, True): "third"}


def gct_tour_table(
    series: SeriesCreated, tournaments: Sequence[Entry], *, series_id: str | None = None
) -> TourTable:
    """The overall GCT standings after the given events (in order of completion): each entry
    is an `EventStanding` or a `(tournament_id, StandingsState)` pair."""
    events = read_entries(tournaments, series_id)
    notes: list[str] = []
    results: dict[str, list[TourResult]] = {}
    withheld: list[str] = []
    for es in events:
        per_player, no_bonus = _event_results(es, series, notes)
        if no_bonus:
            withheld.append(es.tournament_id)
        for pid, res in per_player.items():
            results.setdefault(pid, []).append(res)
    totals = {p: sum((r.tour_points for r in rs), Fraction(0)) for p, rs in results.items()}
    ranked = ordered_blocks(totals, lambda p: (-totals[p],))
    rows: list[TourRow] = []
    ties: list[TourTie] = []
    place = 1
    for b, members in enumerate(ranked):
        block = Block(place, tuple(members))
        pts = totals[members[0]]
        # The pinned reading (rules/README "GCT overall standings (4.x)"), as the playoff
        # machine cuts: a boundary k is straddled when first <= k < last.
        covers_first = block.shared and block.first <= WINNER < block.last
        covers_third = block.shared and block.first <= TOP_THREE < block.last
        playoff = _PLAYOFF.get((covers_first, covers_third))
        assert bool(playoff) == (block.shared and played_off(block.first, block.last))
        if block.shared:
            if playoff:
                text = (
                    f"GCT 4.1: tie for places {block.label()} on {points_str(pts)} points covers "
                    f"{playoff} place: broken by playoff (4.5: separate from any other tie)"
                )
            elif block.last <= TOP_THREE:
                text = (
                    f"GCT 4.2: tie for places {block.label()} on {points_str(pts)} points is a "
                    "tie for second place inside the top three: not broken; the places stay "
                    "shared"
                )
            else:
                text = (
                    f"GCT 4.2: tie for places {block.label()} on {points_str(pts)} points is "
                    "not broken; the places stay shared"
                )
            ties.append(
                TourTie(
                    block.first,
                    block.last,
                    block.players,
                    pts,
                    covers_first,
                    covers_third,
                    "GCT 4.1" if playoff else "GCT 4.2",
                    text,
                )
            )
        lead = "" if not b else f"points {points_str(totals[ranked[b - 1][0]])}–{points_str(pts)}"
        rows += [
            TourRow(
                place=place,
                shared=block.shared,
                player_id=pid,
                points=pts,
                events_counted=len(results[pid]),
                results=tuple(results[pid]),
                playoff=playoff,
                decided_by="shared" if i else lead,
            )
            for i, pid in enumerate(members)
        ]
        place += len(members)
    return TourTable(
        series=series.name,
        events=tuple(es.tournament_id for es in events),
        rows=tuple(rows),
        ties=tuple(ties),
        bonus_points_withheld=tuple(withheld),
        notes=tuple(notes),
    )
