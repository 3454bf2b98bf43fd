"""The FIDE Berger tables: who meets whom, with which colours, in each round of a round robin.

FIDE Handbook C.05 (General Regulations for Competitions), Annex 1 "Details of Berger Tables"
publishes one table per even size N (4, 6, 8, ... players): round 1 is 1–N, 2–(N-1), ...,
(N/2)–(N/2+1), White first; "where there is an odd number of players, the highest number
counts as a bye", so a field of n players uses the table for N = n + (n mod 2) and the player
drawn against N does not play that round. The same annex recommends, for a double round
robin (the fixture list repeated with colours reversed), switching the last two rounds of the
first cycle, so that no player gets three games in a row with one colour; `round_order`
applies it.

The published tables follow one rule, written here in closed form rather than as the usual
rotation (so the tests' comparison with the rotation — gacrux, by FIDE's tie-break server
author — and with the printed tables is a real check). With m = N - 1 and numbers taken in
1..m modulo m, in round r:

- board 1: player N meets x = (r + 1)·(m + 1)/2 mod m (the x with 2x ≡ r + 1); N has Black in
  odd rounds and White in even rounds (1–N, N–(x), (x)–N, ...);
- board k + 1 (k = 1 .. N/2 - 1): x + k has White against x - k.

For N = 4: 1-4 2-3 / 4-3 1-2 / 2-4 3-1, as printed in C.05 Annex 1.
"""

from __future__ import annotations

from collections.abc import Sequence


def table_size(n: int) -> int:
    """The Berger table a field of `n` players uses: n, or n + 1 when n is odd (C.05 Annex 1:
    the highest number counts as a bye)."""
    if n < 2:
        raise ValueError(f"a round robin needs at least 2 players, not {n}")
    return n + n % 2


def rounds_per_cycle(n: int) -> int:
    """Rounds of one cycle (single round robin) for `n` players: N - 1."""
    return table_size(n) - 1


def berger_round(n: int, rnd: int) -> list[tuple[int, int]]:
    """Round `rnd` (1-based) of the FIDE Berger table for `n` players (C.05 Annex 1), as
    (White, Black) pairing numbers in board order. For odd `n` the table is that of n + 1 and
    the pair with the number n + 1 (always board 1) stands for the bye: that player is free."""
    size = table_size(n)
    m = size - 1
    if not 1 <= rnd <= m:
        raise ValueError(f"a Berger table for {n} players has rounds 1..{m}, not {rnd}")

    def num(k: int) -> int:  # k modulo m, as a number in 1..m
        return (k - 1) % m + 1

    if m == 1:
        return [(1, 2)]
    x = num((rnd + 1) * (m + 1) // 2)
    out = [(x, size) if rnd % 2 else (size, x)]
    out += [(num(x + k), num(x - k)) for k in range(1, size // 2)]
    return out


def berger_table(n: int) -> list[list[tuple[int, int]]]:
    """The whole table for `n` players: rounds 1..N-1, each as `berger_round` gives it."""
    return [berger_round(n, r) for r in range(1, rounds_per_cycle(n) + 1)]


def bye_number(n: int) -> int | None:
    """The number that stands for the bye: n + 1 for an odd field, None for an even one."""
    return n + 1 if table_size(n) != n else None


def round_order(n: int, cycle: int, cycles: int, *, switch_last_two: bool) -> list[int]:
    """The table rounds played, in order, in `cycle` (1-based) of a `cycles`-cycle event.

    With `switch_last_two` (C.05 Annex 1's recommendation for a double round robin), every
    cycle followed by another one plays its last two table rounds in switched order: the
    annex speaks of the first cycle of a double round robin; an n-fold event has the same
    junction (a cycle followed by its colour-reversed repeat) after every cycle but the
    last, and the switch is applied at each (the tests check no player then has three
    consecutive games with the same colour across any junction).
    """
    m = rounds_per_cycle(n)
    order = list(range(1, m + 1))
    if switch_last_two and cycle < cycles and m >= 3:
        order[-2], order[-1] = order[-1], order[-2]
    return order


def reversed_round(pairs: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The same games with colours reversed (the repeat of a double round robin)."""
    return [(b, w) for w, b in pairs]
