"""`arbiter import opengotha` and `arbiter export opengotha` on the embedded log (issue 26
item 3): the sample imported with its counts, the conventions Arbiter cannot express printed
by name, a second import appending nothing, the export written and read back, a malformed
file refused naming the element and the rule with nothing appended."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests_support import cli_db, cli_json, cli_ok, cli_run, log_events

from services.interchange.opengotha import read_opengotha

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "opengotha" / "herbst-mcmahon-2026.xml"


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return cli_db(tmp_path, monkeypatch)


def test_import_then_again_appends_nothing(db: Path) -> None:
    said = cli_run("import", "opengotha", str(SAMPLE), "--tournament", "herbst")
    assert "herbst: imported 9 players, 3 rounds, 12 games (12 results): 28 events" in said
    assert "conventions" not in said
    again = cli_run("import", "opengotha", str(SAMPLE), "--tournament", "herbst")
    assert "already imported: nothing appended" in again
    assert len(log_events(db, "herbst")) == 28
    standings = cli_ok("standings", "herbst")
    assert standings.index("Müller Jörg") < standings.index("Dupont Élise")
    assert standings.index("Dupont Élise") < standings.index("Kovács Péter")


def test_the_conventions_not_expressed_are_printed_by_name(db: Path, tmp_path: Path) -> None:
    text = SAMPLE.read_text(encoding="utf-8").replace('genMMZero="30K"', 'genMMZero="25K"')
    path = tmp_path / "zero.xml"
    path.write_text(text, encoding="utf-8")
    said = cli_run("import", "opengotha", str(path))
    assert "zero: OpenGotha conventions Arbiter does not express yet:" in said
    assert "genMMZero: McMahon zero 25K: Arbiter's is 30K" in said
    report = cli_json("import", "opengotha", str(path))  # the same file: nothing appended
    assert report["duplicate"] is True and report["appended"] == 0
    assert [c["name"] for c in report["not_expressed"]] == ["genMMZero"]


def test_export_to_a_file_and_to_stdout(db: Path, tmp_path: Path) -> None:
    cli_ok("import", "opengotha", str(SAMPLE), "--tournament", "herbst")
    out = tmp_path / "back.xml"
    assert "wrote herbst to" in cli_run("export", "opengotha", "herbst", "-o", str(out))
    back = read_opengotha(out.read_bytes())
    assert [p.egf_pin for p in back.players][:2] == ["12345678", "14213397"]
    assert cli_ok("export", "opengotha", "herbst").encode() == out.read_bytes()


def test_a_malformed_file_is_refused_naming_the_element(db: Path, tmp_path: Path) -> None:
    text = SAMPLE.read_text(encoding="utf-8").replace(
        'whitePlayer="NOVAKANA"/>', 'whitePlayer="NOVAKANNA"/>', 1
    )
    path = tmp_path / "typo.xml"
    path.write_text(text, encoding="utf-8")
    said = cli_run("import", "opengotha", str(path), code=1)
    assert "refused opengotha.unknown_player (typo.xml Game 3 (round 1, table 3))" in said
    assert "no Player has key 'NOVAKANNA'" in said
    assert log_events(db, "typo") == []


def test_exporting_a_chess_tournament_is_refused(db: Path) -> None:
    cli_ok("create", "open", "--name", "Open", "--format", "swiss")
    said = cli_run("export", "opengotha", "open", code=1)
    assert "refused opengotha.not_go (TOURNAMENT)" in said
