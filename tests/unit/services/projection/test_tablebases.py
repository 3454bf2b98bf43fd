"""services/projection/tablebases.py: `open_prober` over Syzygy / Gaviota tables, never implicitly.

The Gaviota tests read Debian's `gaviotatb` 3-man tables (/usr/share/gaviotatb/gtb4) and are
skipped without them (apt-get install gaviotatb)."""

from __future__ import annotations

import shutil
from pathlib import Path

import chess
import pytest

from projections.endings import GameFacts, MoveFacts, adjudicate
from services.projection.tablebases import (
    ENV,
    ChainProber,
    GaviotaProber,
    SyzygyProber,
    TablebaseError,
    open_prober,
)

GAVIOTA = Path("/usr/share/gaviotatb/gtb4")
needs_gaviota = pytest.mark.skipif(
    not (GAVIOTA / "kqk.gtb.cp4").is_file(),
    reason=f"no Gaviota tables in {GAVIOTA} (apt-get install gaviotatb)",
)


def wdl(prober: ChainProber, fen: str) -> str | None:
    return prober.probe_wdl(chess.Board(fen))


def test_no_path_no_prober(monkeypatch: pytest.MonkeyPatch):
    from services.config import Settings

    assert open_prober(None) is None
    assert open_prober("") is None
    monkeypatch.delenv(ENV, raising=False)
    assert Settings.from_env().tablebases is None
    monkeypatch.setenv(ENV, "  ")
    assert Settings.from_env().tablebases is None
    monkeypatch.setenv(ENV, "/srv/syzygy")
    assert Settings.from_env().tablebases == Path("/srv/syzygy")


def test_a_directory_without_tables_is_an_error_naming_the_setting(tmp_path: Path):
    (tmp_path / "readme.txt").write_text("no tables here")
    with pytest.raises(TablebaseError, match=rf"--tablebases / {ENV}: no tablebase files in"):
        open_prober(tmp_path)
    with pytest.raises(TablebaseError, match=rf"{ENV}: .*missing is not a directory"):
        open_prober(tmp_path / "missing")


@needs_gaviota
@pytest.mark.parametrize("where", [GAVIOTA, GAVIOTA.parent])  # the set, or the package's dir
def test_gaviota_probes_known_three_man_positions(where: Path):
    prober = open_prober(where)
    assert prober is not None
    try:
        [gaviota] = prober.probers
        assert isinstance(gaviota, GaviotaProber) and gaviota.directories == [GAVIOTA]
        assert "Gaviota" in prober.describe()
        assert wdl(prober, "8/8/8/8/8/2k5/8/KQ6 w - - 0 1") == "win"  # KQ v K, White to move
        assert prober.last_tables == "Gaviota"  # the ending's detail names the tables
        assert wdl(prober, "8/8/8/8/8/2k5/8/KQ6 b - - 0 1") == "loss"  # Black to move loses
        assert wdl(prober, "7k/8/8/8/8/8/8/K2R4 b - - 0 1") == "loss"  # KR v K
        assert wdl(prober, "8/8/8/8/8/2k5/8/KN6 w - - 0 1") == "draw"  # KN v K
        assert wdl(prober, "8/8/8/8/8/k7/p7/K7 w - - 0 1") == "draw"  # KP v K, drawn
        assert wdl(prober, "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1") == "loss"  # mated
        # Not in these tables: unknown, never an exception.
        assert wdl(prober, "8/8/8/8/8/2k5/8/KNN5 w - - 0 1") is None
        assert prober.probe_wdl(chess.Board()) is None
        assert prober.last_tables is None
        # A win the fifty-move counter may not leave time for is not called.
        assert wdl(prober, "8/8/8/8/8/2k5/8/KQ6 b - - 99 1") is None
    finally:
        prober.close()


@needs_gaviota
def test_syzygy_is_asked_first_and_a_table_it_cannot_read_falls_through(tmp_path: Path):
    syzygy = tmp_path / "syzygy"
    syzygy.mkdir()
    (syzygy / "KQvK.rtbw").write_bytes(b"not a table")  # unreadable: logged, unknown
    gaviota = tmp_path / "gaviota"
    gaviota.mkdir()
    shutil.copy(GAVIOTA / "kqk.gtb.cp4", gaviota)
    prober = open_prober(tmp_path)
    assert prober is not None
    try:
        kinds = [type(p) for p in prober.probers]
        assert kinds == [SyzygyProber, GaviotaProber]
        assert wdl(prober, "8/8/8/8/8/2k5/8/KQ6 w - - 0 1") == "win"  # from Gaviota
        assert prober.probers[0].probe_wdl(chess.Board("8/8/8/8/8/2k5/8/KQ6 w - - 0 1")) is None
    finally:
        prober.close()


@needs_gaviota
def test_the_adjudicator_ends_a_game_by_the_tcec_tablebase_rule():
    prober = open_prober(GAVIOTA)
    assert prober is not None
    try:
        # KQ v KR, White to move: Qxd8+ leaves KQ v K with Black to move.
        game = GameFacts((MoveFacts("d1d8"),), start_fen="3r3k/8/8/8/8/8/8/3Q2K1 w - - 0 1")
        ending = adjudicate(game, "tcec-league", prober)
        assert ending is not None
        assert (ending.result, ending.termination, ending.rule, ending.ply) == (
            "1-0",
            "tablebase",
            "tcec-rules Leagues 10.3",
            1,
        )
        assert adjudicate(game, "tcec-league", None) is None  # without tables: goes on
        assert adjudicate(game, "fide", prober) is None  # FIDE Laws: no tablebase rule
    finally:
        prober.close()


def test_the_cli_refuses_a_path_without_tables_before_starting(tmp_path: Path, monkeypatch):
    from typer.testing import CliRunner

    from services.cli.main import app

    def run(*args: str) -> tuple[int, str]:
        res = CliRunner().invoke(app, ["processor", *args], env={"COLUMNS": "400"})
        return res.exit_code, " ".join(res.output.replace("│", " ").split())

    code, out = run("adjudicator", "--tablebases", str(tmp_path))
    assert code == 2 and f"--tablebases / {ENV}: no tablebase files in" in out
    monkeypatch.setenv(ENV, str(tmp_path))  # the environment's setting: the same check
    code, out = run("adjudicator")
    assert code == 2 and f"{ENV}: no tablebase files" in out
    code, out = run("standings", "--tablebases", str(tmp_path))
    assert code == 2 and "only the adjudicator reads tablebases" in out
