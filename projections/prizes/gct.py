"""GCT 2022 prize money and tour points of one event (2.6–2.8 rapid & blitz, 3.6–3.8
classical) and the tour bonus payment (4.2).

Readings (rules/README "GCT prize split for a tie for first", "GCT points"):

* Tie for first among k players occupying places 1…k with prizes P1…Pk (a place the prize
  table does not list pays 0.00): the playoff winner gets the premium (5,000 R&B 2.6; 10,000
  classical 3.6; a prize table's `winner_premium` overrides the default) plus an equal share;
  every tied player, the winner included, gets (P1 − premium + P2 + … + Pk) / k. If P1 is below
  the premium, the winner's premium is P1 and (P2 + … + Pk) / k is shared.
* Until the playoff is decided (`playoff_winner=None`) the shares are shown and the premium is
  shown as pending: it belongs to whichever tied player wins.
* Tie for any other place (2.8/3.8): the prizes of the places the tied players occupy are
  summed and shared equally; so are the tour points.
* Tour points of a tie for first are summed and shared equally too (2.7/3.7); the playoff does
  not change them, and no GCT bonus points are awarded when a playoff was needed: the split
  says so (`bonus_points_withheld`) for whoever awards bonus points.
* Money is exact cents: each share is ⌊pool / k⌋ in cents and the remainder (fewer than k
  cents) is stated on the split, never dropped or silently given to someone; paid + stated
  remainders + pending premium = the prizes of the places taken, exactly.
* Tour points are exact `Fraction`s (shown as "11.5" when the decimal terminates, else "31/3").

Everything here is a pure function of its inputs: the playoff winner is an input (read it from
the GCT event playoff machine's `final_order`, or pass None while undecided).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction
from typing import Any, Literal

from events_schema.events import PrizeTable, TournamentCreated
from projections.prizes.common import (
    Block,
    Placed,
    blocks,
    cents,
    exact,
    money,
    money_text,
    points_str,
    split_money,
)
from projections.prizes.corrections import points_table_in_force, prize_table_in_force
from projections.standings.state import StandingsState
from projections.standings.table import Table, standings

RAPID_BLITZ_PREMIUM = Decimal("5000.00")  # GCT 2.6
CLASSICAL_PREMIUM = Decimal("10000.00")  # GCT 3.6
ZERO = Decimal("0.00")

PremiumStatus = Literal["none", "awarded", "pending"]
SplitKind = Literal["gct-rapid-blitz", "gct-classical", "gct-tour-bonus"]


@dataclass(frozen=True)
class SplitGroup:
    """One block of the table (a single place or a tie) and how its money and points split."""

    first_place: int
    last_place: int
    players: tuple[str, ...]
    prizes: tuple[Decimal, ...]  # the prize of each place the block occupies
    pool: Decimal  # their sum
    premium: Decimal  # to the playoff winner (tie for first only), already capped at P1
    premium_status: PremiumStatus
    winner: str | None
    share: Decimal  # each player's equal share of pool − premium
    remainder: Decimal  # pool − premium − k·share: fewer than k cents, stated
    tour_points: tuple[Fraction, ...] | None  # tour points of each place occupied
    tour_points_share: Fraction | None
    article: str
    text: str

    @property
    def shared_pool(self) -> Decimal:
        return self.pool - self.premium

    def as_dict(self) -> dict[str, Any]:
        return {
            "places": [self.first_place, self.last_place],
            "players": list(self.players),
            "prizes": [money(p) for p in self.prizes],
            "pool": money(self.pool),
            "premium": money(self.premium),
            "premium_status": self.premium_status,
            "winner": self.winner,
            "share": money(self.share),
            "remainder": money(self.remainder),
            "tour_points": (
                None if self.tour_points is None else [points_str(t) for t in self.tour_points]
            ),
            "tour_points_share": (
                None if self.tour_points_share is None else points_str(self.tour_points_share)
            ),
            "article": self.article,
            "text": self.text,
        }


@dataclass(frozen=True)
class PrizeLine:
    """What one player receives."""

    player_id: str
    first_place: int
    last_place: int
    shared: bool
    prize: Decimal  # share + premium awarded (excluding a pending premium)
    share: Decimal
    premium: Decimal
    premium_pending: Decimal | None  # the premium this player gets if they win the playoff
    tour_points: Fraction | None
    note: str

    @property
    def places(self) -> str:
        p, q = self.first_place, self.last_place
        return str(p) if p == q else f"{p}–{q}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "player_id": self.player_id,
            "places": [self.first_place, self.last_place],
            "shared": self.shared,
            "prize": money(self.prize),
            "share": money(self.share),
            "premium": money(self.premium),
            "premium_pending": (
                None if self.premium_pending is None else money(self.premium_pending)
            ),
            "tour_points": None if self.tour_points is None else points_str(self.tour_points),
            "note": self.note,
        }


@dataclass(frozen=True)
class PrizeSplit:
    kind: SplitKind
    currency: str
    status: Literal["final", "pending_playoff"]
    playoff_needed: bool  # a tie for first (2.1/3.1)
    bonus_points_withheld: bool  # 2.7/3.7: no GCT bonus points when a playoff was needed
    playoff_winner: str | None
    premium_rule: Decimal  # the premium before capping at P1
    premium_source: str
    lines: tuple[PrizeLine, ...]
    groups: tuple[SplitGroup, ...]
    unawarded: tuple[tuple[int, Decimal], ...]  # prize places nobody occupies
    sources: tuple[tuple[str, str], ...] = ()  # ("prize_table", "RulingIssued r-3"), …
    notes: tuple[str, ...] = ()

    @property
    def pool(self) -> Decimal:
        """The prizes of the places taken."""
        return sum((g.pool for g in self.groups), ZERO)

    @property
    def paid(self) -> Decimal:
        return sum((ln.prize for ln in self.lines), ZERO)

    @property
    def remainder(self) -> Decimal:
        return sum((g.remainder for g in self.groups), ZERO)

    @property
    def pending(self) -> Decimal:
        return sum((g.premium for g in self.groups if g.premium_status == "pending"), ZERO)

    def line(self, player_id: str) -> PrizeLine:
        for ln in self.lines:
            if ln.player_id == player_id:
                return ln
        raise KeyError(player_id)

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "currency": self.currency,
            "status": self.status,
            "playoff_needed": self.playoff_needed,
            "bonus_points_withheld": self.bonus_points_withheld,
            "playoff_winner": self.playoff_winner,
            "premium_rule": money(self.premium_rule),
            "premium_source": self.premium_source,
            "lines": [ln.as_dict() for ln in self.lines],
            "groups": [g.as_dict() for g in self.groups],
            "unawarded": [{"place": p, "amount": money(a)} for p, a in self.unawarded],
            "totals": {
                "pool": money(self.pool),
                "paid": money(self.paid),
                "remainder": money(self.remainder),
                "pending": money(self.pending),
            },
            "sources": dict(self.sources),
            "notes": list(self.notes),
        }


# ---------------------------------------------------------------------------------------------


def _prizes_by_place(table: PrizeTable | None) -> dict[int, Decimal]:
    out: dict[int, Decimal] = {}
    for prize in table.prizes if table is not None else ():
        if prize.place in out:
            raise ValueError(f"prize table lists place {prize.place} twice")
        cents(prize.amount)  # refuses fractions of a cent
        out[prize.place] = prize.amount
    return out


def _terms(letter: str, places: Iterable[int], values: Iterable[str]) -> list[str]:
    return [f"{letter}{q} {v}" for q, v in zip(places, values, strict=True)]


def _money_text(
    block: Block, prizes: Sequence[Decimal], premium: Decimal, share: Decimal, rem: Decimal
) -> str:
    terms = _terms("P", block.places, (money_text(p) for p in prizes))
    k = len(block.players)
    if premium:
        terms[0] += f" − premium {money_text(premium)}"
    text = f"({' + '.join(terms)}) / {k} = {money_text(share)} each" if k > 1 else terms[0]
    if rem:
        text += f", remainder {money_text(rem)} stated (does not divide by {k})"
    return text


def _points_text(block: Block, points: Sequence[Fraction], share: Fraction) -> str:
    terms = _terms("T", block.places, (points_str(t) for t in points))
    k = len(block.players)
    if k == 1:
        return f"tour points {terms[0]}"
    return f"tour points ({' + '.join(terms)}) / {k} = {points_str(share)} each"


def _check_winner(bs: Sequence[Block], winner: str | None) -> None:
    if winner is None:
        return
    if not bs:
        raise ValueError(f"playoff winner {winner!r} given for an empty table")
    if winner not in bs[0].players:
        raise ValueError(
            f"playoff winner {winner!r} is not among the players on first place: "
            f"{', '.join(bs[0].players)}"
        )


def _group(
    block: Block,
    prizes: tuple[Decimal, ...],
    share: Decimal,
    remainder: Decimal,
    article: str,
    text: str,
    *,
    premium: Decimal = ZERO,
    premium_status: PremiumStatus = "none",
    winner: str | None = None,
    tour_points: tuple[Fraction, ...] | None = None,
    tour_points_share: Fraction | None = None,
) -> SplitGroup:
    """The split of one block of places; by default without premium or tour points (the
    tour bonus, GCT 4.2)."""
    return SplitGroup(
        first_place=block.first,
        last_place=block.last,
        players=block.players,
        prizes=prizes,
        pool=sum(prizes, ZERO),
        premium=premium,
        premium_status=premium_status,
        winner=winner,
        share=share,
        remainder=remainder,
        tour_points=tour_points,
        tour_points_share=tour_points_share,
        article=article,
        text=text,
    )


def _line(
    block: Block,
    player_id: str,
    share: Decimal,
    note: str,
    *,
    premium: Decimal = ZERO,
    premium_pending: Decimal | None = None,
    tour_points: Fraction | None = None,
) -> PrizeLine:
    """What one player of a block receives: the equal share and the premium awarded."""
    return PrizeLine(
        player_id=player_id,
        first_place=block.first,
        last_place=block.last,
        shared=block.shared,
        prize=share + premium,
        share=share,
        premium=premium,
        premium_pending=premium_pending,
        tour_points=tour_points,
        note=note,
    )


def event_split(
    table_rows: Iterable[Placed],
    prize_table: PrizeTable | None,
    points_table: Sequence[Decimal | Fraction | int],
    *,
    classical: bool,
    playoff_winner: str | None,
) -> PrizeSplit:
    """Prize money and tour points of one GCT event from its final table (rows with `place`
    and `player_id`, shared places numbered 1, 2, 2, 4: `standings(state).rows`).

    `points_table[i]` is the tour points of place i + 1; `playoff_winner` is the winner of the
    playoff for first (None while undecided, or when there is no tie for first)."""
    sec = "3" if classical else "2"
    kind: SplitKind = "gct-classical" if classical else "gct-rapid-blitz"
    bs = blocks(table_rows)
    _check_winner(bs, playoff_winner)
    prizes = _prizes_by_place(prize_table)
    points = [exact(t) for t in points_table]
    if prize_table is not None and prize_table.winner_premium is not None:
        premium_rule = prize_table.winner_premium
        premium_source = "prize table winner_premium"
        cents(premium_rule)
    else:
        premium_rule = CLASSICAL_PREMIUM if classical else RAPID_BLITZ_PREMIUM
        premium_source = f"GCT {sec}.6"
    tie_for_first = bool(bs) and bs[0].shared

    groups: list[SplitGroup] = []
    lines: list[PrizeLine] = []
    for block in bs:
        k = len(block.players)
        p = tuple(prizes.get(q, ZERO) for q in block.places)
        t = tuple(points[q - 1] if q <= len(points) else Fraction(0) for q in block.places)
        pool = sum(p, ZERO)
        t_share = sum(t, Fraction(0)) / k
        first_tie = block.first == 1 and block.shared
        premium = min(premium_rule, p[0]) if first_tie else ZERO
        status: PremiumStatus = (
            ("awarded" if playoff_winner is not None else "pending") if first_tie else "none"
        )
        share, rem = split_money(pool - premium, k)
        money_line = _money_text(block, p, premium, share, rem)
        points_text = _points_text(block, t, t_share)
        if first_tie:
            article = f"GCT {sec}.6, {sec}.7"
            capped = (
                f" (P1 is below the {money_text(premium_rule)} premium: the winner's premium is P1)"
                if premium < premium_rule
                else ""
            )
            text = (
                f"GCT {sec}.6: tie for places {block.label()}: premium "
                f"{money_text(premium)} to the playoff winner{capped}; {money_line}. "
                f"GCT {sec}.7: {points_text}, not "
                "affected by the playoff; no GCT bonus points (a playoff was needed)"
            )
        elif block.shared:
            article = f"GCT {sec}.8"
            text = f"GCT {sec}.8: places {block.label()} shared: {money_line}; {points_text}"
        else:
            article = "prize table"
            text = f"place {block.first}: {money_line}; {points_text}"
        groups.append(
            _group(
                block,
                p,
                share,
                rem,
                article,
                text,
                premium=premium,
                premium_status=status,
                winner=playoff_winner if first_tie else None,
                tour_points=t,
                tour_points_share=t_share,
            )
        )
        for pid in block.players:
            won = first_tie and pid == playoff_winner
            if not first_tie:
                who = ""
            elif playoff_winner is None:
                who = (
                    f"playoff pending: equal share {money_text(share)}; the premium "
                    f"{money_text(premium)} goes to the playoff winner. "
                )
            elif won:
                who = (
                    f"won the playoff: premium {money_text(premium)} + equal share "
                    f"{money_text(share)}. "
                )
            else:
                who = f"lost the playoff: equal share {money_text(share)}. "
            lines.append(
                _line(
                    block,
                    pid,
                    share,
                    who + text,
                    premium=premium if won else ZERO,
                    premium_pending=premium if first_tie and playoff_winner is None else None,
                    tour_points=t_share,
                )
            )
    taken = bs[-1].last if bs else 0
    unawarded = tuple(sorted((q, a) for q, a in prizes.items() if q > taken))
    return PrizeSplit(
        kind=kind,
        currency=prize_table.currency if prize_table is not None else "USD",
        status="pending_playoff" if tie_for_first and playoff_winner is None else "final",
        playoff_needed=tie_for_first,
        bonus_points_withheld=tie_for_first,
        playoff_winner=playoff_winner if tie_for_first else None,
        premium_rule=premium_rule,
        premium_source=premium_source,
        lines=tuple(lines),
        groups=tuple(groups),
        unawarded=unawarded,
    )


def tour_bonus_split(overall_rows: Iterable[Placed], bonus_table: PrizeTable | None) -> PrizeSplit:
    """GCT 4.2: the tour bonus payment by overall place; tied overall places share the
    bonuses of the places they occupy equally (remainder stated). Pass the overall rows before
    any §4 playoff (e.g. `gct_tour_table(...).rows`): "the playoff(s) shall not affect the
    distribution of the GCT Bonus payment"."""
    bs = blocks(overall_rows)
    prizes = _prizes_by_place(bonus_table)
    groups: list[SplitGroup] = []
    lines: list[PrizeLine] = []
    for block in bs:
        k = len(block.players)
        p = tuple(prizes.get(q, ZERO) for q in block.places)
        pool = sum(p, ZERO)
        share, rem = split_money(pool, k)
        terms = _terms("B", block.places, (money_text(a) for a in p))
        if block.shared:
            article = "GCT 4.2"
            text = (
                f"GCT 4.2: places {block.label()} tied overall: bonus ({' + '.join(terms)}) / "
                f"{k} = {money_text(share)} each; a playoff does not change it"
            )
            if rem:
                text += f"; remainder {money_text(rem)} stated (does not divide by {k})"
        else:
            article = "bonus table"
            text = f"overall place {block.first}: bonus {terms[0]}"
        groups.append(_group(block, p, share, rem, article, text))
        lines += [_line(block, pid, share, text) for pid in block.players]
    taken = bs[-1].last if bs else 0
    return PrizeSplit(
        kind="gct-tour-bonus",
        currency=bonus_table.currency if bonus_table is not None else "USD",
        status="final",
        playoff_needed=False,
        bonus_points_withheld=False,
        playoff_winner=None,
        premium_rule=ZERO,
        premium_source="none (GCT 4.2)",
        lines=tuple(lines),
        groups=tuple(groups),
        unawarded=tuple(sorted((q, a) for q, a in prizes.items() if q > taken)),
    )


# ---------------------------------------------------------------------------------------------
# From a tournament's fold
# ---------------------------------------------------------------------------------------------


def classical_preset(created: TournamentCreated | None) -> bool | None:
    """True for "gct-classical", False for "gct-rapid-blitz", None when the preset says
    neither."""
    preset = created.rules_preset if created is not None else None
    return {"gct-classical": True, "gct-rapid-blitz": False}.get(preset or "")


def event_prizes(
    state: StandingsState,
    *,
    playoff_winner: str | None,
    classical: bool | None = None,
    series_points: Sequence[Decimal] = (),
    table: Table | None = None,
) -> PrizeSplit:
    """`event_split` over a tournament's fold: its final main-stage table, the prize and points
    tables in force (corrections by ruling, see `corrections`), R&B or classical from the
    `rules_preset` unless given. `series_points` is the tour points table used when the
    tournament has none of its own (the series' `SeriesCreated.points_table`). `table` is the
    main stage's standings when the caller has them (`standings(state)` otherwise)."""
    if state.created is None:
        raise ValueError("no TournamentCreated in the stream")
    if classical is None:
        classical = classical_preset(state.created)
        if classical is None:
            raise ValueError(
                f"rules_preset {state.created.rules_preset!r} is neither gct-rapid-blitz nor "
                "gct-classical: say which premium applies (classical=True/False)"
            )
    prize = prize_table_in_force(state)
    points = points_table_in_force(state)
    points_value: Sequence[Decimal] = points.value
    points_source = points.source
    if not points_value and series_points:
        points_value, points_source = tuple(series_points), "SeriesCreated"
    split = event_split(
        (table if table is not None else standings(state)).rows,
        prize.value,
        points_value,
        classical=classical,
        playoff_winner=playoff_winner,
    )
    return replace(
        split,
        sources=(("prize_table", prize.source), ("points_table", points_source)),
        notes=(*prize.notes, *points.notes),
    )
