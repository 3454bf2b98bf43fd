"""Endgame tablebases at the edge: `open_prober(path)` gives the `Prober` of
`projections/endings/tablebase.py` over the tables found under `path` (python-chess).

- **Syzygy** (`*.rtbw`, the tables TCEC adjudicates with: tcec-rules Swiss 6.c = Cup 6.c =
  Leagues 10.3 = FRD 6.c) through `chess.syzygy.open_tablebase`. A cursed win or a blessed loss
  (won or lost only by ignoring the fifty-move rule, WDL ±1) is reported as a draw, as
  cutechess-cli does.
- **Gaviota** (`*.gtb.cp4`, e.g. Debian's `gaviotatb`: the 3-man tables in
  /usr/share/gaviotatb/gtb4) through `chess.gaviota.open_tablebase`, which uses the C library
  libgtb when it is installed and python-chess's pure-Python reader otherwise. Gaviota tables
  hold depth to mate and know nothing of the fifty-move rule: a win (or loss) is reported only
  when the mate comes within the plies the fifty-move counter leaves (|DTM| <= 100 - halfmove
  clock: the winner forces it whatever the defence, so no cursed win is called a win); a longer
  one is unknown (None: no adjudication, the game goes on). A draw is a draw.

Tables are looked for in `path` and in its subdirectories two levels down (Syzygy sets are
often split: 3-4-5/, 6-wdl/, ...). Both kinds may be present: Syzygy is asked first.

Never implicitly: no path, no prober. The setting is `--tablebases DIR` on
`arbiter processor adjudicator`, else the environment variable `ARBITER_TABLEBASES` (read by
the command's composition root: `services.config.Settings.tablebases`); a path that holds no
tables is an error naming the setting.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import chess
import chess.gaviota
import chess.syzygy

from projections.endings.tablebase import WDL, Prober

log = logging.getLogger("arbiter.tablebases")

ENV = "ARBITER_TABLEBASES"
SETTING = f"--tablebases / {ENV}"
SYZYGY_SUFFIX = ".rtbw"
GAVIOTA_SUFFIX = ".gtb.cp4"
#: Subdirectory levels searched below the given path.
DEPTH = 2
FIFTY_MOVE_PLIES = 100


class TablebaseError(ValueError):
    """The configured tablebase path cannot be used."""


def _table_dirs(root: Path, suffix: str) -> list[Path]:
    """The directories under `root` (itself included, `DEPTH` levels down) holding a file
    named `*<suffix>`, sorted."""
    found: list[Path] = []
    base = len(root.parts)
    for here, dirs, files in os.walk(root):
        if len(Path(here).parts) - base >= DEPTH:
            dirs.clear()
        if any(f.endswith(suffix) for f in files):
            found.append(Path(here))
        dirs.sort()
    return sorted(found)


def _wdl(value: int) -> WDL:
    return "win" if value > 0 else "loss" if value < 0 else "draw"


@dataclass
class SyzygyProber:
    """Syzygy WDL tables (`*.rtbw`)."""

    directories: Sequence[Path]
    tables: chess.syzygy.Tablebase = field(init=False)
    kind: str = "Syzygy"

    def __post_init__(self) -> None:
        self.tables = chess.syzygy.Tablebase()
        for d in self.directories:
            self.tables.add_directory(str(d), load_dtz=False)

    def probe_wdl(self, board: chess.Board) -> WDL | None:
        value = _probe(self, lambda: self.tables.probe_wdl(board), board)
        if value is None:
            return None
        # 2 win, 1 cursed win, 0 draw, -1 blessed loss, -2 loss: the fifty-move rule is in
        # force, so ±1 is a draw.
        return "win" if value == 2 else "loss" if value == -2 else "draw"

    def close(self) -> None:
        self.tables.close()


@dataclass
class GaviotaProber:
    """Gaviota DTM tables (`*.gtb.cp4`); libgtb when installed, else pure Python."""

    directories: Sequence[Path]
    tables: Any = field(init=False)  # chess.gaviota.NativeTablebase | PythonTablebase
    kind: str = "Gaviota"

    def __post_init__(self) -> None:
        first, *rest = self.directories
        self.tables = chess.gaviota.open_tablebase(str(first))
        for d in rest:
            self.tables.add_directory(str(d))

    @property
    def native(self) -> bool:
        """True when probing through libgtb (the C library)."""
        return isinstance(self.tables, chess.gaviota.NativeTablebase)

    def probe_wdl(self, board: chess.Board) -> WDL | None:
        dtm = _probe(self, lambda: self.tables.probe_dtm(board), board)
        if dtm is None:
            return None
        if dtm == 0:  # drawn, or the side to move is mated
            return "loss" if board.is_checkmate() else "draw"
        if abs(dtm) > FIFTY_MOVE_PLIES - board.halfmove_clock:
            return None  # perhaps a cursed win / blessed loss: not called
        return _wdl(dtm)

    def close(self) -> None:
        self.tables.close()


def _probe(
    prober: SyzygyProber | GaviotaProber, probe: Callable[[], Any], board: chess.Board
) -> int | None:
    """A probe's number, or None when the tables cannot answer (a missing table, too many men,
    a file that cannot be read: logged, never raised into the fold)."""
    try:
        return int(probe())
    except KeyError:  # MissingTableError: not in these tables
        return None
    except Exception as exc:
        log.warning("%s probe failed for %s: %s: %s", prober.kind, board.fen(), type(exc), exc)
        return None


@dataclass
class ChainProber:
    """Several probers, the first that knows answers (Syzygy, then Gaviota)."""

    probers: Sequence[SyzygyProber | GaviotaProber]
    last_tables: str | None = None  # which tables answered the last probe (the ending says)

    def probe_wdl(self, board: chess.Board) -> WDL | None:
        self.last_tables = None
        for p in self.probers:
            wdl = p.probe_wdl(board)
            if wdl is not None:
                self.last_tables = p.kind
                return wdl
        return None

    def close(self) -> None:
        for p in self.probers:
            p.close()

    def describe(self) -> str:
        return "; ".join(
            f"{p.kind} in {', '.join(str(d) for d in p.directories)}"
            + (
                f" ({'libgtb' if p.native else 'pure-Python reader'})"
                if isinstance(p, GaviotaProber)
                else ""
            )
            for p in self.probers
        )


def open_prober(path: Path | str | None) -> ChainProber | None:
    """The prober over the tables under `path`; None when no path is given (never
    implicitly). Raises `TablebaseError` naming the setting when `path` is not a directory or
    holds no Syzygy (`*.rtbw`) or Gaviota (`*.gtb.cp4`) table."""
    if path is None or str(path) == "":
        return None
    root = Path(path).expanduser()
    if not root.is_dir():
        raise TablebaseError(f"{SETTING}: {root} is not a directory")
    probers: list[SyzygyProber | GaviotaProber] = []
    syzygy = _table_dirs(root, SYZYGY_SUFFIX)
    if syzygy:
        probers.append(SyzygyProber(syzygy))
    gaviota = _table_dirs(root, GAVIOTA_SUFFIX)
    if gaviota:
        probers.append(GaviotaProber(gaviota))
    if not probers:
        raise TablebaseError(
            f"{SETTING}: no tablebase files in {root} (Syzygy *{SYZYGY_SUFFIX} or Gaviota "
            f"*{GAVIOTA_SUFFIX}, looked {DEPTH} levels down)"
        )
    prober = ChainProber(probers)
    log.info("tablebases: %s", prober.describe())
    return prober


if TYPE_CHECKING:

    def _is_a_prober(p: ChainProber) -> Prober:  # mypy checks the protocol is met
        return p
