"""The FIDE C.07 edition (issue 16) as the `arbiter` commands show it, end to end on the
embedded log: `import trf` says which edition it chose and why (record 042, the start date:
2026 -> fide-2026, 2025 -> fide-2024, none -> the newest); `standings` states it in its caption,
its column labels and `--json`; `explain` prints each capped dummy opponent with its article
(C.07 2026, 16.4.1 and 16.4.2) and, for the average of opponents' Buchholz, the opponents whose
Buchholz had one.

The TRFs are the golden files of tests/golden (fide-c07-2026-art16-4-*), with their 042/052
records rewritten where a case needs another date.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from builders import created, player, result
from tests_support import append_events, cli_db, cli_ok

from events_schema import events as ev
from services.cli import render

GOLDEN = Path(__file__).resolve().parents[2] / "golden"
FORFEIT_CAP = GOLDEN / "fide-c07-2026-art16-4-1-forfeit-cap.trf"  # 042 2026/04/18
BYE_CAP = GOLDEN / "fide-c07-2026-art16-4-2-bye-cap.trf"  # 042 2026/05/09


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # Wide enough that no table cell wraps: the lines are checked whole.
    monkeypatch.setattr(render.out, "width", 400)
    return cli_db(tmp_path, monkeypatch)


_ok = cli_ok


def _json(*args: str) -> Any:
    return json.loads(_ok(*args, "--json"))


def _dated(tmp_path: Path, source: Path, **records: str | None) -> Path:
    """A copy of `source` with header records replaced ("042": "2025/04/18") or dropped
    (None)."""
    lines = []
    for line in source.read_text().splitlines():
        tag = line[:3]
        if tag in records:
            if records[tag] is None:
                continue
            line = f"{tag} {records[tag]}"
        lines.append(line)
    target = tmp_path / source.name
    target.write_text("\n".join(lines) + "\n")
    return target


def _import(path: Path, tid: str) -> str:
    return _ok("import", "trf", str(path), "--tournament", tid, "--rules", "fide-swiss")


def _created(tid: str) -> dict[str, Any]:
    first = json.loads(_ok("events", tid, "--json").splitlines()[0])
    assert first["type"] == "TournamentCreated"
    payload: dict[str, Any] = first["payload"]
    return payload


# --- import trf: the edition chosen, and why ------------------------------------------------------


def test_import_with_a_2026_start_date_chooses_fide_2026(db: Path) -> None:
    out = _import(FORFEIT_CAP, "open26")
    assert (
        "open26: tie-break edition fide-2026: the edition in force on the start date "
        "2026-04-18 (042)"
    ) in out
    created_ = _created("open26")
    assert (created_["starts_on"], created_["ends_on"]) == ("2026-04-18", "2026-04-19")
    assert created_["tiebreak_edition"] == "fide-2026"
    # Ranked by it: Xavier's (p003) forfeit win in round 5 has its dummy capped at Young's
    # adjusted score 0 (16.4.1): Buchholz 4½ + 3 + 2 + 2 + 0 = 11½ (14 under the 2024 text).
    rows = {r["player_id"]: r for r in _json("standings", "open26")["rows"]}
    assert rows["p003"]["tiebreaks"]["buchholz"]["display"] == "11½"
    assert rows["p003"]["tiebreaks"]["buchholz"]["value"] == "11.5"


def test_import_with_a_2025_start_date_chooses_fide_2024(db: Path, tmp_path: Path) -> None:
    path = _dated(tmp_path, FORFEIT_CAP, **{"042": "2025/04/18", "052": "2025/04/19"})
    out = _import(path, "open25")
    assert (
        "open25: tie-break edition fide-2024: the edition in force on the start date "
        "2025-04-18 (042)"
    ) in out
    assert _created("open25")["tiebreak_edition"] == "fide-2024"
    body = _json("standings", "open25")
    assert body["tiebreak_edition"] == {
        "edition": "fide-2024",
        "source": "stated at creation, start date 2025-04-18",
    }
    rows = {r["player_id"]: r for r in body["rows"]}
    assert (
        rows["p003"]["tiebreaks"]["buchholz"]["display"] == "14"
    )  # the dummy uncapped: own score 2½


def test_import_of_the_last_day_of_the_2024_text(db: Path, tmp_path: Path) -> None:
    path = _dated(tmp_path, FORFEIT_CAP, **{"042": "2026/02/28", "052": "2026/03/01"})
    out = _import(path, "feb28")
    assert (
        "feb28: tie-break edition fide-2024: the edition in force on the start date "
        "2026-02-28 (042)"
    ) in out
    assert _created("feb28")["tiebreak_edition"] == "fide-2024"


def test_import_without_a_start_date_chooses_the_newest(db: Path, tmp_path: Path) -> None:
    path = _dated(tmp_path, FORFEIT_CAP, **{"042": None, "052": None})
    out = _import(path, "undated")
    assert (
        "undated: tie-break edition fide-2026: no start date, so the newest edition (no 042 record)"
    ) in out
    created_ = _created("undated")
    assert created_.get("starts_on") is None and created_["tiebreak_edition"] == "fide-2026"
    assert _json("standings", "undated")["tiebreak_edition"] == {
        "edition": "fide-2026",
        "source": "stated at creation",
    }


# --- standings: caption, column labels, --json ----------------------------------------------------


@pytest.mark.parametrize(
    ("start", "edition", "year"),
    [("2026/04/18", "fide-2026", "2026"), ("2025/04/18", "fide-2024", "2024")],
)
def test_standings_state_the_edition(
    db: Path, tmp_path: Path, start: str, edition: str, year: str
) -> None:
    _import(_dated(tmp_path, FORFEIT_CAP, **{"042": start, "052": None}), "t")
    iso = start.replace("/", "-")
    text = _ok("standings", "t")
    assert f"FIDE C.07 {edition} (stated at creation, start date {iso})" in text  # the caption
    # The columns are headed in words; the rule each cites, with the edition, is in the legend
    # under the table (issue 24: the article in the explanation, not in the header).
    header = next(line for line in text.splitlines() if "player" in line and "decided by" in line)
    assert "Buchholz cut 1" in header and "Wins" in header and "C.07" not in header, header
    for words, article in (
        ("Buchholz cut 1", "8.1, 16.3-16.5, 14.1"),
        ("Buchholz", "8.1, 16.3-16.5"),
        ("Sonneborn-Berger", "9.1, 16.3-16.5"),
        ("Wins", "7.1"),
    ):
        assert f"{words}: FIDE C.07 {year}, {article}" in text.splitlines(), text
    body = _json("standings", "t")
    assert body["tiebreak_edition"] == {
        "edition": edition,
        "source": f"stated at creation, start date {iso}",
    }
    # The JSON keeps its shape: the edition beside the rows, the rows keyed by criterion, and
    # the correction flags (none here).
    assert set(body) == {"as_of_seq", "chain", "rows", "tiebreak_edition", "flags"}
    assert body["flags"] == []
    assert set(body["rows"][0]["tiebreaks"]) == {
        "buchholz-cut1",
        "buchholz",
        "fide-direct-encounter",
        "fide-sonneborn-berger",
        "fide-wins",
    }


# --- explain: each capped dummy with its article --------------------------------------------------


def _table_rows(text: str) -> list[list[str]]:
    """The lines of a printed table as their cells, stripped: "│ a │ b │" -> ["a", "b"]."""
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("│").split("│")]
        if len(cells) > 1:
            rows.append(cells)
    return rows


def _cells(text: str) -> set[str]:
    return {cell for row in _table_rows(text) for cell in row}


def test_explain_prints_the_bye_cap_of_an_imported_tournament(db: Path) -> None:
    """The bye-cap golden (cap ½ x 4 rounds = 2): A (p001) and C (p003) have 3, BH-C1 7½
    each; C's R3 bye (own 3) is capped at 2 (16.4.2); Buchholz 9½-9 puts C first."""
    _import(BYE_CAP, "byes")
    text = _ok("explain", "byes", "p001", "p003")
    capped = (
        "round 3: pairing-allocated bye, dummy capped at draw points × rounds 2 (C.07 2026, 16.4.2)"
    )
    rows = _table_rows(text)
    # Each criterion in words, the rule it cites (with the edition) beside it; players by name.
    bh_c1 = "FIDE C.07 2026, 8.1, 16.3-16.5, 14.1"
    assert ["Buchholz cut 1", bh_c1, "A, C", "7½", "7½", "level"] in rows
    bh = "FIDE C.07 2026, 8.1, 16.3-16.5"
    assert ["Buchholz", bh, "A, C", "9", "9½", "separates them"] in rows
    assert capped in _cells(text), text
    assert "C (place 1) is above A (place 2)" in text
    steps = _json("explain", "byes", "p001", "p003")
    assert [s["label"] for s in steps] == [
        "points",
        "Buchholz Cut-1 (C.07 2026)",
        "Buchholz (C.07 2026)",
    ]
    assert capped in steps[2]["notes"]["p003"] and steps[2]["notes"]["p001"] == []


Game = tuple[str, str, str, str, str]  # id, White, Black, result, termination


def _round(n: int, *games: Game, pab: str = "") -> list[ev.Event]:
    out: list[ev.Event] = [
        ev.RoundScheduled(
            round=n,
            pairings=[ev.Pairing(game_id=g, white=w, black=b) for g, w, b, _r, _t in games],
            byes=[ev.Bye(player_id=pab, kind="pairing_allocated")] if pab else [],
        )
    ]
    return out + [result(g, r, t) for g, _w, _b, r, t in games]


def _t2(starts_on: date) -> list[ev.Event]:
    """test_tiebreaks_fide_2026.py's T2: b and e finish on 2½; e lost R1 by forfeit to b, had
    a pairing-allocated bye in R3 and won R4 by forfeit against c (adjusted score 2)."""
    ok, ff = "agreement", "forfeit"
    return [
        created(fmt="swiss", rounds=4, rules_preset="fide-swiss", starts_on=starts_on),
        *[player(p, 2000 - 100 * i) for i, p in enumerate("abcdef")],
        *_round(
            1,
            ("g1", "a", "d", "1-0", ok),
            ("g2", "b", "e", "1-0", ff),
            ("g3", "c", "f", "1/2-1/2", ok),
        ),
        *_round(
            2,
            ("g4", "f", "a", "0-1", ok),
            ("g5", "c", "b", "1-0", ok),
            ("g6", "e", "d", "1/2-1/2", ok),
        ),
        ev.PlayerWithdrew(player_id="f", from_round=3),
        *_round(3, ("g7", "a", "c", "1/2-1/2", ok), ("g8", "d", "b", "0-1", ok), pab="e"),
        *_round(4, ("g9", "b", "a", "1/2-1/2", ok), ("g10", "e", "c", "1-0", ff), pab="d"),
    ]


def test_explain_prints_the_forfeit_cap_with_its_article(db: Path) -> None:
    """b and e have 2½; BH-C1 b 7½, e 5½ under the 2026 text (the decider records fide-2026
    from the start date). e's R4 forfeit win is capped at c's adjusted score 2 (16.4.1)."""
    append_events(db, "t2", *_t2(date(2026, 4, 1)))
    assert _created("t2")["tiebreak_edition"] == "fide-2026"
    text = _ok("explain", "t2", "b", "e")
    forfeit = (
        "round 4: forfeit win, dummy capped at the opponent's adjusted score 2 (C.07 2026, 16.4.1)"
    )
    bh_c1 = "8.1, 16.3-16.5, 14.1"
    row = ["Buchholz cut 1", f"FIDE C.07 2026, {bh_c1}", "B, E", "7½", "5½", "separates them"]
    assert row in _table_rows(text)
    assert forfeit in _cells(text), text
    # Under the 2024 text (a start date in 2025) the same round is the uncapped dummy of 16.4.
    append_events(db, "t2-old", *_t2(date(2025, 4, 1)))
    old = _ok("explain", "t2-old", "b", "e")
    row = ["Buchholz cut 1", f"FIDE C.07 2024, {bh_c1}", "B, E", "7½", "6½", "separates them"]
    assert row in _table_rows(old)
    uncapped = (
        "round 4: forfeit win, dummy opponent with the player's own score 2½ (C.07 2024, 16.4)"
    )
    assert uncapped in _cells(old), old
    assert "capped" not in old


def _byes(starts_on: date, tiebreaks: list[ev.TiebreakSpec]) -> list[ev.Event]:
    """test_tiebreaks_fide_2026.py's byes example: a pairing-allocated bye each round; cap
    ½ x 4 rounds = 2. c (3) had its bye in R3, e (2½) in R1: both capped."""
    ok = "agreement"
    return [
        created(fmt="swiss", rounds=4, tiebreaks=tiebreaks, starts_on=starts_on),
        *[player(p, 2100 - 50 * i) for i, p in enumerate("abcde")],
        *_round(1, ("g1", "a", "b", "1-0", ok), ("g2", "c", "d", "1-0", ok), pab="e"),
        *_round(2, ("g3", "a", "c", "1/2-1/2", ok), ("g4", "e", "b", "1-0", ok), pab="d"),
        *_round(3, ("g5", "a", "e", "1-0", ok), ("g6", "d", "b", "1/2-1/2", ok), pab="c"),
        *_round(4, ("g7", "a", "d", "1/2-1/2", ok), ("g8", "c", "e", "1/2-1/2", ok), pab="b"),
    ]


@pytest.mark.parametrize(("fore", "what"), [(False, "Buchholz"), (True, "fore-Buchholz")])
def test_explain_names_the_opponents_whose_buchholz_was_capped_for_aob(
    db: Path, fore: bool, what: str
) -> None:
    """Ranked by AOB (or AOB/F) alone: a and c have 3. a met b, c, e, d; c met d, a, e. c's
    and e's byes are capped (16.4.2), d's (own 2 = the cap) and b's (own 1½) are not."""
    aob = ev.TiebreakSpec(name="fide-aob", params={"fore": True} if fore else {})
    append_events(db, "aob", *_byes(date(2026, 5, 9), [aob]))
    text = _ok("explain", "aob", "a", "c")
    capped = "pairing-allocated bye, dummy capped at draw points × rounds 2 (C.07 2026, 16.4.2)"
    c_r3 = f"opponent c (C), {what} round 3: {capped}"
    e_r1 = f"opponent e (E), {what} round 1: {capped}"
    assert {c_r3, e_r1} <= _cells(text), text
    assert "opponent b" not in text and "opponent d" not in text
    steps = _json("explain", "aob", "a", "c")
    assert steps[1]["label"] == "average of opponents' Buchholz (C.07 2026)"
    assert steps[1]["notes"] == {"a": [c_r3, e_r1], "c": [e_r1]}
    # The same tournament under the 2024 text: the same step, nothing capped to name.
    append_events(db, "aob-old", *_byes(date(2025, 5, 9), [aob]))
    old = _json("explain", "aob-old", "a", "c")
    assert old[1]["label"] == "average of opponents' Buchholz (C.07 2024)"
    assert old[1]["notes"] == {"a": [], "c": []}
