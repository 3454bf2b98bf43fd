"""Round-robin schedule benchmark (issue 14): a 24-engine 4×DRR (TCEC Premier Division style:
cycles=8 single round robins, 184 rounds, 2,208 games) scheduled by
`projections/pairing/round_robin.schedule` from a folded tournament (engine order lot drawn),
beside the bare Berger table (`berger.berger_table`, pairing numbers only) in the same run.

Run: `python -m tests.bench.schedule [--quick]` from the repository root (JSON on stdout).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

_repo = Path(__file__).resolve().parents[2]
for _p in (str(_repo), str(_repo / "tests")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from builders import created, player, recorded  # noqa: E402

from projections.pairing import berger, round_robin  # noqa: E402
from projections.pairing.base import context  # noqa: E402
from projections.standings import fold  # noqa: E402
from services.commands.lots import draw  # noqa: E402


def _best(fn: Any, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def run(quick: bool = False) -> dict[str, Any]:
    engines, cycles = 24, 8
    ids = [f"e{i:02d}" for i in range(1, engines + 1)]
    lot = draw("engine_order", "main/engine-order", ids, seed="bench")
    events = [
        created(fmt="league", rules_preset="tcec-premier", cycles=cycles),
        *[player(p, kind="engine") for p in ids],
        lot,
    ]
    repeat = 3 if quick else 7

    def ours() -> int:
        state = fold(recorded("bench-4drr", events))
        return len(round_robin.schedule(context(state)))

    def bare() -> int:
        return sum(len(berger.berger_table(engines)) for _ in range(cycles))

    rounds = ours()
    t_ours, t_bare = _best(ours, repeat), _best(bare, repeat)
    return {
        "engines": engines,
        "cycles": cycles,
        "rounds": rounds,
        "schedule_s": round(t_ours, 4),
        "bare_berger_tables_s": round(t_bare, 6),
        "note": "ours = fold + context + every RoundScheduled event (ids, pairs, colours); "
        "bare = the Berger tables as pairing numbers only",
    }


if __name__ == "__main__":
    print(json.dumps(run("--quick" in sys.argv[1:]), indent=2))
