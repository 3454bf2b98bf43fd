"""`python -m tests.bench` (from the repository root): run the event-log benchmark.

`tests/` is not a package and the project may not be installed; importing `.runner` puts
the repository root (events_schema, services) and `tests/` (builders) on sys.path first.
"""

from __future__ import annotations

import json
import sys

from . import standings
from .runner import exit_code, main

if __name__ == "__main__":
    # `python -m tests.bench [--quick] [--skip-kafka] [--events N]`: the event logs and the
    # standings, as one JSON document.
    args = sys.argv[1:]
    eventlog = main(args, emit=False)
    tables = standings.main(["--quick"] if "--quick" in args else [], emit=False)
    print(json.dumps({"eventlog": eventlog, "standings": tables}, indent=2))
    raise SystemExit(exit_code(eventlog))
