"""PGN import benchmark (issue 15 item 5), as one JSON document on stdout: games and moves
per second through `services.interchange.pgn.import_pgn` (parse, a dry run of every command
through the decider on an in-memory log, the append to a SQLite log file in a temporary
directory) on the sample TCEC PGNs (shared/data/pgn), beside python-chess's bare
`chess.pgn.read_game` parse of the same files in the same run:

- `parse`: `chess.pgn.read_game` over the file, the game tree built, nothing else — the
  reference;
- `read_pgn`: the importer's own reading (main line, lines, comments; refuses bad files);
- `import_manual`: the whole import, endings as the file says (adjudication "manual");
- `import_rules`: the whole import with --adjudicate under each file's preset (the decider
  runs the adjudicator on every move);
- `reimport`: the same file again (nothing appended: the dry run, then every batch found
  stored).

`import_*_vs_parse` is parse time / import time (1.0: as fast as python-chess's parse). Times
are the best of several runs, each import into a fresh log file (wall clock, one thread).

Run: `python -m tests.bench.pgn_import [--quick]` from the repository root.
"""

from __future__ import annotations

import gc
import io
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

_repo = Path(__file__).resolve().parents[2]
if str(_repo) not in sys.path:
    sys.path.insert(0, str(_repo))

import chess.pgn  # noqa: E402

from events_schema import Actor  # noqa: E402
from services.eventlog.sqlite import SQLiteEventLog  # noqa: E402
from services.interchange.pgn import decode, import_pgn, read_pgn  # noqa: E402

from .common import quick_main  # noqa: E402

PGN_DIR = _repo.parent / "shared" / "data" / "pgn"
PRESETS = {  # the preset of each sample file's event
    "TCEC_Season_28_-_Entrance_League_Tiebreak_1.pgn": "tcec-league",
    "TCEC_Season_29_-_Frd_5_League_B_Tiebreak.pgn": "tcec-frd",
    "TCEC_Cup_4_Bronze.pgn": "tcec-cup",
    "TCEC_Season_16_-_Frc_Cpu_League_2_Playoff.pgn": "tcec-frd",
}
ACTOR = Actor(id="bench:pgn-import", role="admin")


def _progress(msg: str) -> None:
    print(f"[bench.pgn_import] {msg}", file=sys.stderr, flush=True)


def _timed(fn: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    gc_was = gc.isenabled()
    try:
        for _ in range(repeats):
            gc.collect()
            gc.disable()
            t0 = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - t0)
            if gc_was:
                gc.enable()
    finally:
        if gc_was:
            gc.enable()
    return best


def _parse(text: str) -> int:
    handle = io.StringIO(text)
    n = 0
    while chess.pgn.read_game(handle) is not None:
        n += 1
    return n


def run(quick: bool) -> dict[str, Any]:
    """The benchmark document. `quick`: one run of each (a smoke run)."""
    files = [p for p in sorted(PGN_DIR.glob("*.pgn")) if p.name in PRESETS]
    if not files:
        return {"skipped": f"no sample PGN files in {PGN_DIR}"}
    repeats = 1 if quick else 3
    per_file: dict[str, Any] = {}
    totals = dict.fromkeys(("parse", "read_pgn", "import_manual", "import_rules", "reimport"), 0.0)
    games_total = moves_total = 0
    with tempfile.TemporaryDirectory(prefix="arbiter-bench-pgn-") as tmp:
        counter = 0

        def import_into(data: bytes, name: str, rules: str | None, adjudicate: bool) -> Any:
            nonlocal counter
            counter += 1
            log = SQLiteEventLog(Path(tmp) / f"run{counter}.sqlite3")
            try:
                return import_pgn(
                    log,
                    data,
                    file_name=name,
                    tournament_id="bench",
                    actor=ACTOR,
                    rules=rules,
                    adjudicate=adjudicate,
                )
            finally:
                log.close()

        for path in files:
            data = path.read_bytes()
            text = decode(data)
            games = read_pgn(text)
            moves = sum(len(g.moves) for g in games)
            preset = PRESETS[path.name]
            _progress(f"{path.name}: {len(games)} games, {moves} moves, best of {repeats}")
            times = {
                "parse": _timed(lambda t=text: _parse(t), repeats),
                "read_pgn": _timed(lambda t=text: read_pgn(t), repeats),
                "import_manual": _timed(
                    lambda d=data, n=path.name, r=preset: import_into(d, n, r, False), repeats
                ),
                "import_rules": _timed(
                    lambda d=data, n=path.name, r=preset: import_into(d, n, r, True), repeats
                ),
            }
            # the re-import: into a log that holds the import already
            log = SQLiteEventLog(Path(tmp) / f"again-{path.stem}.sqlite3")
            try:
                first = import_pgn(
                    log, data, file_name=path.name, tournament_id="bench", actor=ACTOR,
                    rules=preset, adjudicate=True,
                )  # fmt: skip

                def again(log: SQLiteEventLog = log, d: bytes = data, p: Path = path) -> None:
                    rep = import_pgn(
                        log, d, file_name=p.name, tournament_id="bench", actor=ACTOR,
                        rules=PRESETS[p.name], adjudicate=True,
                    )  # fmt: skip
                    assert rep.duplicate and rep.appended == 0

                times["reimport"] = _timed(again, repeats)
            finally:
                log.close()
            for k, v in times.items():
                totals[k] += v
            games_total += len(games)
            moves_total += moves
            per_file[path.name] = {
                "games": len(games),
                "moves": moves,
                "bytes": len(data),
                "preset": preset,
                "events_appended": first.appended,
                "batches": first.batches,
                "disagreements_with_rules": len(first.disagreements),
                "seconds": {k: round(v, 4) for k, v in times.items()},
                "import_rules_moves_per_s": round(moves / times["import_rules"]),
                "import_manual_vs_parse": round(times["parse"] / times["import_manual"], 4),
                "import_rules_vs_parse": round(times["parse"] / times["import_rules"], 4),
            }
    return {
        "files": per_file,
        "repeats": repeats,
        "games": games_total,
        "moves": moves_total,
        "games_per_s": {k: round(games_total / v, 1) for k, v in totals.items()},
        "moves_per_s": {k: round(moves_total / v) for k, v in totals.items()},
        "read_pgn_vs_parse": round(totals["parse"] / totals["read_pgn"], 4),
        "import_manual_vs_parse": round(totals["parse"] / totals["import_manual"], 4),
        "import_rules_vs_parse": round(totals["parse"] / totals["import_rules"], 4),
    }


def main(argv: Sequence[str] | None = None, emit: bool = True) -> dict[str, Any]:
    return quick_main("pgn_import", run, argv, emit)


if __name__ == "__main__":
    main()
