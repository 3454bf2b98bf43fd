"""A big PGN import (issue 26 item 6: "a 50 MB PGN took 6 minutes and 1.2 GB"), as one JSON
document on stdout: `arbiter import pgn`'s use case (`services.interchange.pgn.import_pgn`)
over a ~50 MB file into the embedded SQLite log, beside python-chess's bare
`chess.pgn.read_game` loop over the same file.

The file is built at bench time (not committed) by concatenating the sample TCEC PGNs
(shared/data/pgn) over and over, every game given the same `Event` (one tournament) and a
`Round` of its own (`N.1`, N its place in the file: the games are distinct, one per round).

Each side runs in a fresh subprocess (the same process model), which reports its wall
seconds (the import or the loop only: not the interpreter's start) and its peak resident set
(`resource.getrusage(RUSAGE_SELF).ru_maxrss`, MB):

- `import`: `import_pgn(log, data, …)` into a new SQLite log file, adjudication "manual";
- `read_game`: `chess.pgn.read_game` over the file opened as text, until it returns None —
  the reference (python-chess reads a stream);

`import_vs_read_game` is read_game seconds / import seconds (1.0: as fast as the bare parse);
`rss_vs_read_game` is import MB / read_game MB.

Run: `python -m tests.bench.pgn_big [--quick] [--mb N]` from the repository root, or
`python -m tests.bench --only pgn_big [--quick]`. `--quick`: a 2 MB file.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

_repo = Path(__file__).resolve().parents[2]
PGN_DIR = _repo.parent / "shared" / "data" / "pgn"
EVENT = "Bench big PGN"

_IMPORT = """
import json, resource, sys, time
from pathlib import Path
from events_schema import Actor
from services.eventlog.sqlite import SQLiteEventLog
from services.interchange.pgn import import_pgn
path, db = Path(sys.argv[1]), Path(sys.argv[2])
t0 = time.perf_counter()
log = SQLiteEventLog(db)
try:
    rep = import_pgn(log, path.read_bytes(), file_name=path.name, tournament_id="big",
                     actor=Actor(id="bench:pgn-big", role="admin"))
finally:
    log.close()
secs = time.perf_counter() - t0
print(json.dumps({"seconds": secs, "games": len(rep.games), "events": rep.appended,
                  "batches": rep.batches,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

_READ_GAME = """
import json, resource, sys, time
import chess.pgn
t0 = time.perf_counter()
n = 0
with open(sys.argv[1], encoding="utf-8-sig") as handle:
    while chess.pgn.read_game(handle) is not None:
        n += 1
secs = time.perf_counter() - t0
print(json.dumps({"seconds": secs, "games": n,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

_GAME_START = re.compile(r"^\[Event ", re.M)


def _progress(msg: str) -> None:
    print(f"[bench.pgn_big] {msg}", file=sys.stderr, flush=True)


def build(path: Path, target_bytes: int) -> tuple[int, int]:
    """A PGN of about `target_bytes` from the sample files: (games, bytes)."""
    games: list[str] = []
    for p in sorted(PGN_DIR.glob("*.pgn")):
        text = p.read_text(encoding="utf-8-sig")
        starts = [m.start() for m in _GAME_START.finditer(text)]
        for a, b in zip(starts, [*starts[1:], len(text)], strict=True):
            games.append(text[a:b].rstrip() + "\n\n")
    if not games:
        raise FileNotFoundError(f"no sample PGN files in {PGN_DIR}")
    size = n = 0
    with path.open("w", encoding="utf-8") as out:
        while size < target_bytes:
            for g in games:
                n += 1
                g = re.sub(r'^\[Event "[^"]*"\]', f'[Event "{EVENT}"]', g, count=1, flags=re.M)
                g = re.sub(r'^\[Round "[^"]*"\]', f'[Round "{n}.1"]', g, count=1, flags=re.M)
                out.write(g)
                size += len(g.encode())
                if size >= target_bytes:
                    break
    return n, size


def _sub(code: str, *args: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=_repo,
        check=True,
        capture_output=True,
        text=True,
    )
    doc: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return doc


def run(quick: bool, mb: float | None = None) -> dict[str, Any]:
    """The benchmark document (`quick`: a 2 MB file)."""
    if not any(PGN_DIR.glob("*.pgn")):
        return {"skipped": f"no sample PGN files in {PGN_DIR}"}
    mb = mb if mb is not None else (2.0 if quick else 50.0)
    with tempfile.TemporaryDirectory(prefix="arbiter-bench-pgn-big-") as tmp:
        path = Path(tmp) / "big.pgn"
        games, size = build(path, int(mb * 1024 * 1024))
        _progress(f"{path.name}: {games} games, {size:,} bytes")
        peer = _sub(_READ_GAME, str(path))
        _progress(f"read_game: {peer['seconds']:.1f} s, {peer['peak_rss_mb']:.0f} MB")
        imp = _sub(_IMPORT, str(path), str(Path(tmp) / "log.sqlite3"))
        _progress(f"import: {imp['seconds']:.1f} s, {imp['peak_rss_mb']:.0f} MB")
    for side in (peer, imp):
        side["games_per_s"] = round(side["games"] / side["seconds"], 1)
        side["seconds"] = round(side["seconds"], 2)
        side["peak_rss_mb"] = round(side["peak_rss_mb"], 1)
    return {
        "file_bytes": size,
        "file_mb": round(size / 1024 / 1024, 1),
        "games": games,
        "import": imp,
        "read_game": peer,
        "import_vs_read_game": round(peer["seconds"] / imp["seconds"], 4),
        "rss_vs_read_game": round(imp["peak_rss_mb"] / peer["peak_rss_mb"], 2),
    }


def main(argv: Sequence[str] | None = None, emit: bool = True) -> dict[str, Any]:
    ap = argparse.ArgumentParser(prog="python -m tests.bench.pgn_big")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--mb", type=float, default=None, help="the file's size (default 50)")
    args = ap.parse_args(argv)
    doc = run(args.quick, args.mb)
    if emit:
        print(json.dumps(doc, indent=2))
    return doc


if __name__ == "__main__":
    main()
