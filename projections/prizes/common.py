"""Exact money and points arithmetic shared by the prize and series projections.

Money is `Decimal` in whole cents, computed as integer cents: an amount split k ways gives
each ⌊cents / k⌋ and a remainder of `cents mod k` cents that is stated, never dropped or
silently handed to someone. Points are `Fraction`s, so an equal split is always exact.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Protocol

CENT = Decimal("0.01")


class Placed(Protocol):
    """What a split needs from a table row: `standings.Row`, a series row, or a test stub."""

    @property
    def place(self) -> int: ...

    @property
    def player_id(self) -> str: ...


@dataclass(frozen=True)
class Block:
    """Players sharing one place: they occupy places `first`…`last` (1, 2, 2, 4 numbering)."""

    first: int
    players: tuple[str, ...]

    @property
    def last(self) -> int:
        return self.first + len(self.players) - 1

    @property
    def places(self) -> range:
        return range(self.first, self.last + 1)

    @property
    def shared(self) -> bool:
        return len(self.players) > 1

    def label(self) -> str:
        return str(self.first) if self.first == self.last else f"{self.first}–{self.last}"


def blocks(rows: Iterable[Placed]) -> list[Block]:
    """Group table rows into shared-place blocks, best first.

    Rows must number places the standard way (1, 2, 2, 4: a block of k at place p is followed
    by place p + k); a table that does not is refused rather than guessed at.
    """
    ordered = sorted(rows, key=lambda r: r.place)  # stable: keeps the table's order in a block
    out: list[Block] = []
    seen: set[str] = set()
    for row in ordered:
        if row.player_id in seen:
            raise ValueError(f"player {row.player_id!r} appears twice in the table")
        seen.add(row.player_id)
        if out and out[-1].first == row.place:
            out[-1] = Block(out[-1].first, (*out[-1].players, row.player_id))
            continue
        expected = out[-1].last + 1 if out else 1
        if row.place != expected:
            raise ValueError(
                f"place {row.place} of {row.player_id!r} does not follow the table: "
                f"expected place {expected} (shared places are numbered 1, 2, 2, 4)"
            )
        out.append(Block(row.place, (row.player_id,)))
    return out


def cents(amount: Decimal) -> int:
    """An amount in whole cents; more precise amounts are refused (money is exact cents)."""
    scaled = amount * 100
    if scaled != scaled.to_integral_value():
        raise ValueError(f"amount {amount} is not a whole number of cents")
    return int(scaled)


def from_cents(n: int) -> Decimal:
    return Decimal(n).scaleb(-2)


def split_money(amount: Decimal, k: int) -> tuple[Decimal, Decimal]:
    """(share each, remainder) with k·share + remainder = amount exactly, 0 ≤ remainder <
    k cents: e.g. 10,000.00 among 3 → 3,333.33 each, 0.01 remainder."""
    if k < 1:
        raise ValueError("cannot split among no one")
    share, rest = divmod(cents(amount), k)
    return from_cents(share), from_cents(rest)


def money(amount: Decimal) -> str:
    """ "3333.33": always two places, no grouping, no currency sign."""
    return str(from_cents(cents(amount)))


def money_text(amount: Decimal) -> str:
    """ "33,333.33": money as a note writes it, thousands grouped (the documents' amounts stay
    `money`'s exact "33333.33")."""
    return f"{from_cents(cents(amount)):,.2f}"


def exact(value: Decimal | Fraction | int) -> Fraction:
    return Fraction(value)


def points_str(value: Fraction) -> str:
    """A point value exactly: "11.5" or "12" when it is a finite decimal, else "31/3"."""
    den = value.denominator
    twos = fives = 0
    while den % 2 == 0:
        den //= 2
        twos += 1
    while den % 5 == 0:
        den //= 5
        fives += 1
    if den != 1:
        return f"{value.numerator}/{value.denominator}"
    places = max(twos, fives)
    shown = Decimal(value.numerator * 10**places // value.denominator).scaleb(-places)
    text = f"{shown:f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text
