"""`python -m tests.bench` (from the repository root): run the event-log benchmark.

`tests/` is not a package and the project may not be installed; importing `.runner` puts
the repository root (events_schema, services) and `tests/` (builders) on sys.path first.
"""

from __future__ import annotations

from .runner import exit_code, main

if __name__ == "__main__":
    raise SystemExit(exit_code(main()))
