"""Bad files are refused, not half-read (issue 26 item 6): each refusal names the file, the
line and the rule, and nothing is appended; what a file says that is not recorded (a
TimeControl Arbiter does not keep) is reported with its line.

Given each bad file, when `arbiter import trf|pgn` reads it, then it exits 1 with
`refused <rule> (<file>:<line>)` and the tournament has no events."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests_support import cli_db, cli_ok, cli_run, log_events

TRF_PLAYER = (
    "001    1 m    Ortega, Ana                       2612 ESP          1990/01/01  0.0    1"
)


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return cli_db(tmp_path, monkeypatch)


def _refused(db: Path, path: Path, kind: str, *args: str) -> str:
    said = cli_run("import", kind, str(path), "--tournament", "bad", *args, code=1)
    assert log_events(db, "bad") == [], "nothing appended"
    return said


def _pgn(round_: str = "1", white: str = "Ana", elo: str = "2500", tc: str = "300+2") -> str:
    return (
        f'[Event "Open"]\n[Site "?"]\n[Round "{round_}"]\n[White "{white}"]\n[Black "Bram"]\n'
        f'[Result "1-0"]\n[WhiteElo "{elo}"]\n[TimeControl "{tc}"]\n\n'
        "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n"
    )


@pytest.mark.parametrize(
    ("data", "where", "why"),
    [
        (b"", "x.trf:1", "the file is empty"),
        (b"  \r\n\n", "x.trf:1", "the file is empty"),
        ("012 Open\n".encode("utf-16"), "x.trf:1", "the file is UTF-16"),
        ("012 Open\n".encode("utf-16-le"), "x.trf:1", "the file is UTF-16"),
        ("012 Open\n".encode("utf-16-be"), "x.trf:1", "the file is UTF-16"),
        (
            ("012 Open\n" + TRF_PLAYER.replace("Ana ", "A\x00a ") + "\n").encode(),
            "x.trf:2",
            "a NUL byte",
        ),
    ],
)
def test_an_unreadable_trf_is_refused_with_its_line(db, tmp_path, data, where, why):
    path = tmp_path / "x.trf"
    path.write_bytes(data)
    said = _refused(db, path, "trf")
    assert f"refused trf.malformed ({where})" in said and why in said


def test_a_trf_without_players_is_not_an_empty_tournament(db, tmp_path):
    path = tmp_path / "x.trf"
    for text in ("012 Open\n042 2026/05/01\n", "x"):  # (one byte: not taken for UTF-16)
        path.write_text(text)
        said = _refused(db, path, "trf")
        assert "refused trf.no_players (x.trf:1)" in said and "imported" not in said


@pytest.mark.parametrize("kind", ["trf", "pgn"])
def test_a_bad_tournament_id_is_a_clear_refusal(db, tmp_path, kind):
    path = tmp_path / f"x.{kind}"
    path.write_text(f"012 Open\n{TRF_PLAYER}\n" if kind == "trf" else _pgn())
    said = cli_run("import", kind, str(path), "--tournament", "bad/x", code=1)
    assert f"refused {kind}.invalid (--tournament): 'bad/x' is not a tournament id" in said
    assert "Traceback" not in said and "pydantic" not in said


@pytest.mark.parametrize(
    ("pgn", "line", "why"),
    [
        (_pgn(round_="99999999999999999999.1"), 3, "a round or board beyond 10,000"),
        (_pgn(round_="2.99999999"), 3, "a round or board beyond 10,000"),
        (_pgn(elo="99999"), 7, "WhiteElo '99999' is not a rating"),
        (_pgn(elo="-5"), 7, "WhiteElo '-5' is not a rating"),
        (_pgn(white="An\x00a"), 4, "control character U+0000"),
    ],
)
def test_a_pgn_that_would_be_misread_is_refused_with_its_line(db, tmp_path, pgn, line, why):
    path = tmp_path / "x.pgn"
    path.write_bytes((_pgn() + pgn).encode())  # the second game (from line 12) is the bad one
    said = _refused(db, path, "pgn")
    assert f"refused pgn.malformed (x.pgn:{line + 11})" in said and why in said


def test_a_time_control_not_recorded_is_reported_with_its_line(db, tmp_path):
    path = tmp_path / "x.pgn"
    path.write_text(_pgn(tc="40/7200:3600") + _pgn(tc="99999999999+1"))
    report = json.loads(cli_ok("import", "pgn", str(path), "--json"))
    assert [n.split(":")[0] for n in report["notes"]] == ["line 8", "line 19"]
    assert "TimeControl '40/7200:3600' not recorded" in report["notes"][0]
    said = cli_run("import", "pgn", str(path), "--tournament", "again")
    assert "note x.pgn line 8: TimeControl '40/7200:3600' not recorded" in said


def test_what_one_import_may_hold_is_bounded(db, tmp_path, monkeypatch):
    path = tmp_path / "x.pgn"
    path.write_text(_pgn("1") + _pgn("2") + _pgn("3"))
    monkeypatch.setenv("ARBITER_MAX_IMPORT_GAMES", "2")
    said = _refused(db, path, "pgn")
    assert "refused pgn.malformed (x.pgn:23)" in said and "more than 2 games" in said
    assert "limits.max_import_games" in said
    monkeypatch.delenv("ARBITER_MAX_IMPORT_GAMES")
    monkeypatch.setenv("ARBITER_MAX_IMPORT_BYTES", "100")
    said = _refused(db, path, "pgn")
    assert "refused limits.import_bytes (x.pgn)" in said and "at most 100" in said


@pytest.mark.parametrize("kind", ["trf", "sgf"])
def test_a_file_larger_than_one_import_reads_is_refused_before_reading(
    db, tmp_path, monkeypatch, kind
):
    path = tmp_path / f"x.{kind}"
    path.write_text(f"012 Open\n{TRF_PLAYER}\n" if kind == "trf" else "(;GM[1]SZ[19];B[dd])")
    monkeypatch.setenv("ARBITER_MAX_IMPORT_BYTES", "10")
    said = _refused(db, path, kind)
    assert f"refused limits.import_bytes (x.{kind})" in said and "at most 10" in said
