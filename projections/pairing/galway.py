"""Galway Congress 2023 "porous sections" (seeds/galway-congress-2023-structure.md).

The seed, and how each line is read here (rules/README.md "Galway sections"):

* "Players will be divided into sections, based on ratings" / "The entrants will be ranked as
  if the tournament is an Open with just one section": sections are consecutive runs of the
  initial ranking (`dutch.initial_ranking`: rating, then seed, then name), top section first.
* "If there are fewer than 100 entries (excluding players taking first-round byes) there will
  be four sections; if there are between 100 and 124 entries there will be five sections; and
  if there are 125 entries or more there will be six sections": `section_count`, counting the
  players paired in round 1 (a game or the pairing-allocated bye), not those on a requested
  bye, withdrawn before it, or entered after it.
* "All sections except the lowest will have an even number of players, up to and including
  24. The lowest section will contain the remainder, which will be the smallest number that is
  the same or larger than the size of the other sections": `section_sizes` - the upper sections
  share the largest even size s <= 24 with k*s <= entries; the lowest takes the rest, which may
  exceed 24 (99 entries: 24, 24, 24, 27).
* Players not counted (a first-round bye, a late entry) join the section of the nearest
  counted player ranked above them (the top section if there is none): the sections stay
  consecutive runs of the ranking, and nobody counted moves.
* "Each player in section A will get a pairing bonus of 3 points, each in section B will get
  2, in C 1, and players in D will get nothing": section i (0-based from the top) of k gets
  k - 1 - i points, a point being a win's worth under the tournament's scoring (so that, as
  the seed intends, a loser in A meets a winner in B). It is added to the pairing score only
  (`dutch.pair_round`'s `bonus`, gacrux's acceleration values), never to the score shown.
* "In round one, everybody will play somebody in their section, as normal" and "in rounds 5
  and 6, players will revert to playing in their sections, so that a section winner is
  obtained": rounds other than 2-4 are paired by the Dutch system inside each section on its
  own, with the players' whole history (section-local pairing numbers, the initial ranking's
  order inside the section); an odd section gives its own pairing-allocated bye.
* "This system will carry on like that ... in rounds 3 and 4": rounds 2, 3 and 4 are paired
  by the Dutch system across the whole field on score + bonus (`CROSS_ROUNDS`).

`section_winners` gives each section's leaders on the real score; `section_report` is what the
standings document (`projections/documents.py`) and `arbiter standings` show of them:

* "Rounds 5 & 6 ... revert to playing solely within sections ... so that a section winner is
  obtained" (the prizes are per section): a section's winner is whoever has the section's top
  score, the score of the standings table (the pairing bonus is never in it). The seed names no
  tiebreak between the players of a section, so a tie on the top score is stated as a tie (the
  tied players in the table's order, with their overall places), not broken here.
* The sections are those of the pairing (`sections`): fixed by the entries paired in round 1.
  Before round 1 is paired there are none to show; until the last round's results are in, the
  section leaders are shown as such (`status` "in_progress", then "final").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from events_schema import events as ev
from projections.mentions import who
from projections.pairing import dutch
from projections.pairing.base import (
    LotRequest,
    PairingContext,
    PairingRefused,
    PairingSystem,
    Proposal,
    require_finished,
)
from projections.standings.table import Row
from projections.tiebreaks.registry import half_points

name = "galway"

SEED = "galway-congress-2023-structure.md"
#: "In round two, ... the *losers* in the top section will play the winners in the second
#: section ... This system will carry on like that ... in rounds 3 and 4."
CROSS_ROUNDS = frozenset({2, 3, 4})
MAX_SECTION = 24  # "up to and including 24"


def section_count(entries: int) -> int:
    """ "fewer than 100 entries ... four sections; between 100 and 124 ... five sections; 125
    entries or more ... six sections"."""
    if entries < 100:
        return 4
    if entries <= 124:
        return 5
    return 6


def section_sizes(entries: int) -> tuple[int, ...]:
    """Sizes from the top: k - 1 sections of the same even size s <= 24, the largest such that
    the lowest section (the remainder) is at least s."""
    k = section_count(entries)
    s = min(MAX_SECTION, entries // k)
    s -= s % 2
    if s < 2:
        raise PairingRefused(
            "galway.too_few_entries",
            "players",
            f"{entries} entries cannot make {k} sections of at least two players",
        )
    return (*([s] * (k - 1)), entries - (k - 1) * s)


@dataclass(frozen=True)
class Sections:
    entries: int  # counted entries (round 1, not on a requested bye)
    sizes: tuple[int, ...]  # counted players per section, top first
    members: tuple[tuple[str, ...], ...]  # every player, by section, in initial-ranking order

    @property
    def count(self) -> int:
        return len(self.sizes)

    def section_of(self, pid: str) -> int:
        for i, m in enumerate(self.members):
            if pid in m:
                return i
        raise KeyError(pid)

    def bonus(self, scoring: ev.Scoring) -> dict[str, int]:
        """The pairing bonus of every player, in half-points: k - 1 - i wins' worth."""
        k = self.count
        return {p: (k - 1 - i) * scoring.win for i, m in enumerate(self.members) for p in m}


def form_sections(order: Sequence[str], counted: Sequence[str]) -> Sections:
    """Sections from the initial ranking `order` and the players `counted` for their number
    and size; the others join the section of the nearest counted player above them."""
    counted_set = set(counted)
    ranked = [p for p in order if p in counted_set]
    sizes = section_sizes(len(ranked))
    section: dict[str, int] = {}
    i = 0
    for s, size in enumerate(sizes):
        for p in ranked[i : i + size]:
            section[p] = s
        i += size
    members: list[list[str]] = [[] for _ in sizes]
    current = 0
    for p in order:
        current = section.get(p, current)
        members[current].append(p)
    return Sections(len(ranked), sizes, tuple(tuple(m) for m in members))


def counted_entries(ctx: PairingContext) -> tuple[str, ...]:
    """The entries that fix the sections: those paired in round 1 (a game or the
    pairing-allocated bye); before round 1 is paired, the active players not on a requested
    bye for it."""
    if ctx.round == 1 and 1 not in ctx.scheduled:
        byes = dutch.requested_byes(ctx)
        return tuple(p for p in ctx.active if p not in byes)
    first = ctx.scheduled.get(1)
    if first is None:
        raise PairingRefused(
            "galway.no_first_round",
            "round",
            "the sections are fixed by round 1, which is not scheduled",
        )
    paired = {p for g in first.pairings for p in (g.white, g.black)}
    paired |= {b.player_id for b in first.byes if b.kind == "pairing_allocated"}
    return tuple(p for p in ctx.players if p in paired)


def sections(ctx: PairingContext) -> Sections:
    return form_sections(dutch.initial_ranking(ctx.players.values()), counted_entries(ctx))


def section_winners(secs: Sections, points: Mapping[str, int]) -> tuple[tuple[str, ...], ...]:
    """Each section's leaders on the real score (the bonus is not a score): everyone on the
    section's top score, in initial-ranking order (the tiebreaks order them further)."""
    out: list[tuple[str, ...]] = []
    for m in secs.members:
        top = max((points.get(p, 0) for p in m), default=0)
        out.append(tuple(p for p in m if points.get(p, 0) == top) if m else ())
    return tuple(out)


#: Why a section has a winner of its own (and prizes per section).
WINNER_RULE = (
    f'{SEED}: rounds 5 and 6 are played within sections "so that a section winner is '
    "obtained\"; the winner has the section's top score (the pairing bonus is never a score), "
    "a tie is stated, not broken"
)


def _finished_rounds(ctx: PairingContext) -> list[int]:
    """The scheduled rounds every game of which has its result in force."""
    pending = {e.round for h in ctx.players.values() for e in h.rounds if e.pending}
    return [r for r in ctx.scheduled if r not in pending]


def section_report(ctx: PairingContext, rows: Sequence[Row]) -> dict[str, Any]:
    """The sections and their winners (or leaders so far) for the standings: every section's
    players, its top score on the standings `rows` (integer half-points and as shown) and the
    players on it, in the table's order. Machine-readable: ids, integers, a `tied` flag."""
    out: dict[str, Any] = {
        "system": name,
        "rule": WINNER_RULE,
        "rounds": ctx.created.rounds,
        "rounds_finished": len(_finished_rounds(ctx)),
    }
    if 1 not in ctx.scheduled:
        return {
            **out,
            "status": "not_formed",
            "note": "the sections are fixed by the entries paired in round 1, not paired yet",
            "sections": [],
        }
    try:
        secs = sections(ctx)
    except PairingRefused as exc:
        return {**out, "status": "not_formed", "note": exc.message, "sections": []}
    by_id = {r.player_id: r for r in rows}
    order = {r.player_id: k for k, r in enumerate(rows)}
    points = {pid: r.points for pid, r in by_id.items()}
    finished = _finished_rounds(ctx)
    rounds = ctx.created.rounds
    final = rounds is not None and set(range(1, rounds + 1)) <= set(finished)
    listed = []
    for i, (members, leaders) in enumerate(
        zip(secs.members, section_winners(secs, points), strict=True)
    ):
        top = sorted((by_id[p] for p in leaders if p in by_id), key=lambda r: order[r.player_id])
        best = top[0].points if top else 0
        listed.append(
            {
                "id": _label(i),
                "name": f"Section {_label(i)}",
                "players": list(members),
                "entries": secs.sizes[i],  # counted in round 1 (no first-round byes)
                "top_half_points": best,
                "top_score": half_points(best),
                "winners": [
                    {
                        "player_id": r.player_id,
                        "name": r.name,
                        "half_points": r.points,
                        "score": r.score,
                        "place": r.place,
                        "shared": r.shared,  # the place, in the whole table
                    }
                    for r in top
                ],
                "tied": len(top) > 1,
            }
        )
    return {**out, "status": "final" if final else "in_progress", "sections": listed}


def propose(ctx: PairingContext) -> Proposal:
    """The next round of a Galway porous-sections Swiss (or the initial-colour lot first)."""
    require_finished(ctx)
    rounds = dutch.planned_rounds(ctx)
    colour = dutch.initial_colour(ctx)
    if isinstance(colour, LotRequest):
        return Proposal(lots=(colour,))
    secs = sections(ctx)
    bonus = secs.bonus(ctx.scoring)
    byes = dutch.requested_byes(ctx)
    present = [p for p in ctx.active if p not in byes]
    # The bonus is part of the pairing score of rounds 1-4 (in round 1 it is the same for a
    # whole section); rounds 5 and 6 are paired inside the sections, where it would change
    # nothing, and without it gacrux's floats of rounds 2-4 stay on pairing scores.
    bonus_by_round = {r: bonus for r in range(1, max(CROSS_ROUNDS) + 1) if r <= ctx.round}
    pairs: list[tuple[str, str]] = []
    pab: list[str] = []
    if ctx.round in CROSS_ROUNDS:
        order = [p for m in secs.members for p in m]
        paired = dutch.pair_round(
            dutch.DutchRound.of(ctx, order, present, colour, rounds, bonus_by_round)
        )
        pairs.extend(paired.pairs)
        pab.extend([paired.bye] if paired.bye else [])
        how = "across sections on score + pairing bonus"
    else:
        here = set(present)
        for i, members in enumerate(secs.members):
            playing = [p for p in members if p in here]
            if not playing:
                continue
            if len(playing) == 1:
                (alone,) = playing
                if ctx.players[alone].had_bye:
                    raise PairingRefused(
                        "galway.section_unpairable",
                        "players",
                        f"section {_label(i)} has one player for round {ctx.round}, "
                        f"{alone}, who has had the pairing-allocated bye (C.04.1.d)",
                    )
                pab.append(alone)
                continue
            try:
                paired = dutch.pair_round(
                    dutch.DutchRound.of(ctx, members, playing, colour, rounds, bonus_by_round)
                )
            except PairingRefused as exc:
                raise PairingRefused(
                    exc.rule, exc.field, f"section {_label(i)}: {exc.message}"
                ) from None
            pairs.extend(paired.pairs)
            pab.extend([paired.bye] if paired.bye else [])
        how = "inside each section"
    rnd = dutch.scheduled(ctx.stage, ctx.round, pairs, pab, byes)
    notes = (
        f"Galway porous sections ({SEED}), round {ctx.round}: {how}; "
        f"{dutch.RULES}; initial colour {colour}",
        f"{secs.entries} entries (round 1, without first-round byes): "
        f"{secs.count} sections of {', '.join(str(s) for s in secs.sizes)}; "
        + "; ".join(
            f"{_label(i)} (bonus {secs.count - 1 - i}): {len(m)} players"
            + (f", {who(m[0])} to {who(m[-1])}" if m else "")
            for i, m in enumerate(secs.members)
        ),
        "the pairing bonus is used for pairing only, never added to a score",
    )
    return Proposal(round=rnd, notes=notes)


def _label(i: int) -> str:
    return chr(ord("A") + i)


SYSTEM = PairingSystem(
    name=name,
    rule=SEED,
    propose=propose,
    # the sections run on the Dutch: its numbers and its initial-colour lot
    pairing_numbers=dutch.pairing_numbers,
    colour_lot=dutch.colour_subject,
)
