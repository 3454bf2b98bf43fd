"""Golden standings, each named after the article it tests (bbpPairings' habit):
`tests/golden/<article>.trf` in, `tests/golden/<article>.standings.json` out, byte for byte.

The TRF is imported through the real command path (`services.interchange.trf`: parse, then
`import_trf` into an in-memory SQLite log), the stored events are read back and folded
(`projections.standings`), and the table's canonical JSON (`events_schema.codec.dumps`, as
the feed publishes it) must equal the file. A golden's expected output was produced by this
code and then checked by hand on the values listed in its test below; when a change alters a
golden, check those values again before regenerating it (`_regenerate` below). The import
and the bytes: tests/goldens.py.
"""

from __future__ import annotations

import pytest
from goldens import GOLDEN, golden_table, standings_bytes
from goldens import STANDINGS_GOLDENS as GOLDENS


def _regenerate() -> None:  # pragma: no cover - run by hand after checking the values
    for name in GOLDENS:
        (GOLDEN / f"{name}.standings.json").write_bytes(standings_bytes(golden_table(name)))


@pytest.mark.parametrize("name", sorted(GOLDENS))
def test_golden_standings_byte_for_byte(name: str) -> None:
    assert standings_bytes(golden_table(name)) == (GOLDEN / f"{name}.standings.json").read_bytes()


def _rows(name: str) -> dict[str, tuple[int, str, str, dict[str, str]]]:
    return {
        r.player_id: (r.place, r.decided_by, r.score, dict(r.tiebreaks))
        for r in golden_table(name).rows
    }


def test_fide_c07_art16_unplayed_rounds_checked_by_hand() -> None:
    """FIDE C.07 2024, fide-swiss chain (Buchholz Cut-1, Buchholz, ...), 6 players, 4
    rounds. Unplayed rounds: R1 3 wins by forfeit against 6 (16.2.2 / 16.2.4), R3 2 has a
    pairing-allocated bye (16.2.1), R4 1 has a requested half-point bye (a VUR, 16.1), 6
    withdrew from R3 (two VURs at the end: 16.2.5).

    Checked by hand:
    * points: 2 = ½+1+1(U)+1 = 3½; 1 = 1+½+1+½(H) = 3; 3 = 1(+)+½+1+½ = 3.
    * adjusted scores (16.3): 6 = 0 (forfeit loss) + 0 + ½ + ½ (R3, R4 follow only VURs, so
      they count as draws) = 1; everyone else's adjusted score is their score.
    * BH(1) = 4 (0) + 3 (3) + 5 (2) + own score 3 for the H round (dummy opponent, 16.4) = 8;
      BH(3) = own score 3 for the forfeit win (16.4) + 1 (3) + 4 (0) + 5 (2) = 8.
    * Cut-1 with the VUR exception (16.5): 1's least significant value is its VUR, the H
      round (3), so BH-C1(1) = 5; 3 has no VUR (a forfeit win is not voluntary), so the 0 of
      player 4 goes: BH-C1(3) = 8. 3 is above 1 "Buchholz Cut-1 8–5".
    * BH(2) = 5 (2) + 6 (adjusted 1) + own score 3½ for the U bye + 4 (0) = 6½; the U bye is
      not a VUR, so Cut-1 drops the 0: 6½.
    * BH-C1(6) = 3½: opponent 2 (3½) plus three unplayed rounds at its own score 0; 4's
      BH-C1 = 3+2+3+3½ - 2 = 9½, so 4 is above 6 "Buchholz Cut-1 9½–3½".

    Cross-checked with gacrux, FIDE's tie-break checker (`python -m gacrux.tiebreakchecker
    -i FILE -s -t PTS BH BH/C1`, with 042 set to a 2025 date so that it applies the 2024 text,
    as in tests/integration/commands/test_gacrux_crosscheck.py): the same PTS, BH and BH/C1 for all
    six
    players and the same ranks.
    """
    rows = _rows("fide-c07-art16-unplayed")
    assert [pid for pid, _ in sorted(rows.items(), key=lambda kv: kv[1][0])] == [
        "p002",
        "p003",
        "p001",
        "p005",
        "p004",
        "p006",
    ]
    assert {pid: row[2] for pid, row in rows.items()} == {
        "p001": "3",
        "p002": "3½",
        "p003": "3",
        "p004": "0",
        "p005": "2",
        "p006": "0",
    }
    assert rows["p002"][3]["buchholz"] == "6½" and rows["p002"][3]["buchholz-cut1"] == "6½"
    assert (rows["p003"][3]["buchholz"], rows["p003"][3]["buchholz-cut1"]) == ("8", "8")
    assert (rows["p001"][3]["buchholz"], rows["p001"][3]["buchholz-cut1"]) == ("8", "5")
    assert rows["p001"][1] == "Buchholz Cut-1 8–5"
    assert rows["p006"][1] == "Buchholz Cut-1 9½–3½"


def test_czech_a_mini_table_and_sonneborn_checked_by_hand() -> None:
    """Czech club rules A (single round robin), czech-single chain, 6 players, Berger
    rounds. Checked by hand:
    * points: 1 and 2 have 3½ each, 3 and 4 have 3 each, 5 1½, 6 ½ (15 games, 15 points).
    * 1 beat 2 (R2), so the pair's head-to-head decides: 1 first, 2 second
      "head-to-head (pair) 1–0".
    * 3 and 4 drew (R1), so head-to-head leaves them level; Sonneborn over wins only (A3):
      3 beat 1 (3½) and 5 (1½) = 5, 4 beat 5 (1½) and 6 (½) = 2: 3 above 4 "5–2".
    * 1's Sonneborn = 6 (½) + 2 (3½) + 5 (1½) = 5½ (draws count nothing in A3).
    * A4, the placings of the beaten players: 3 beat 1 (place 1) and 5 (place 5) = 6.
    """
    rows = _rows("czech-a-mini-table-sonneborn")
    assert {pid: row[0] for pid, row in rows.items()} == {
        "p001": 1,
        "p002": 2,
        "p003": 3,
        "p004": 4,
        "p005": 5,
        "p006": 6,
    }
    scores = {pid: row[2] for pid, row in rows.items()}
    assert scores == {
        "p001": "3½",
        "p002": "3½",
        "p003": "3",
        "p004": "3",
        "p005": "1½",
        "p006": "½",
    }
    assert rows["p002"][1] == "head-to-head (pair) 1–0"
    assert rows["p004"][1] == "Sonneborn (wins) 5–2"
    assert rows["p001"][3]["czech-sonneborn"] == "5½"
    assert rows["p003"][3]["czech-beaten-placings"] == "6 (5+1)"
