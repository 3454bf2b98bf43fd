"""Fixed handicap placement: where the handicap stones go on 9×9, 13×13 and 19×19.

The LGC rules (seed `lgc-go-tournament-rules.txt`) speak of handicap games (Scoring: komi 0.5;
Irregularities "Colour or handicap error") without saying where the stones go. Reading: the
customary star points, as GTP v2 specifies them for `fixed_handicap` (section 4.1.1 "Fixed
Handicap Placement": 2–9 stones on 19×19, the same pattern on the other sizes, from the 4-4
points on 13×13 and 19×19 and the 3-3 points on 9×9) and as GNU Go 3.8 places them
(`fixed_handicap N`, checked in tests/unit/projections/go/test_go_gnugo.py):

- 2: two opposite corners (lower left and upper right); 3: plus the upper left; 4: the four
  corners;
- 5, 7, 9: the even number below, plus the centre (tengen);
- 6: the four corners and the two side points on the left and right edges; 8: plus the two
  side points on the top and bottom edges.

Other sizes raise ValueError: the seed names none, and a tournament on them gives the points
(SGF `AB`) explicitly.
"""

from __future__ import annotations

Point = tuple[int, int]  # (row, col), 0-based: the same alias as board.Point (no import cycle)

SIZES = (9, 13, 19)
MIN_STONES = 2
MAX_STONES = 9


def handicap_points(size: int, n: int) -> list[Point]:
    """The `n` fixed handicap points (row, col), 0-based, sorted; ValueError if the size or the
    number has no fixed placement."""
    if size not in SIZES:
        raise ValueError(f"no fixed handicap placement on a {size}x{size} board (9, 13, 19 only)")
    if not MIN_STONES <= n <= MAX_STONES:
        raise ValueError(f"fixed handicap must be {MIN_STONES} to {MAX_STONES} stones, not {n}")
    lo = 2 if size < 13 else 3  # the 3-3 points on 9×9, the 4-4 points on 13×13 and 19×19
    hi = size - 1 - lo
    mid = size // 2
    # Corners: lower left and upper right first (2), then upper left (3), lower right (4).
    points: list[Point] = [(lo, lo), (hi, hi), (hi, lo), (lo, hi)][: min(n, 4)]
    if n >= 6:
        points += [(mid, lo), (mid, hi)]  # left and right side points
    if n >= 8:
        points += [(lo, mid), (hi, mid)]  # bottom and top side points
    if n % 2 == 1 and n >= 5:
        points.append((mid, mid))  # tengen
    return sorted(points)
