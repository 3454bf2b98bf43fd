"""Golden standings files (tests/golden/): a golden TRF through `arbiter import trf`'s path
(`services.interchange.trf`: parse, plan, `import_trf` into an in-memory SQLite log), read
back and folded; and a table's canonical JSON as the feed publishes it, which the
`<name>.standings.json` file holds byte for byte."""

from __future__ import annotations

from pathlib import Path

from builders import ADMIN, batch

from events_schema import Event, Recorded
from events_schema.codec import dumps
from projections.standings import StandingsState, Table, fold, standings
from services.commands.service import CommandService
from services.eventlog.sqlite import SQLiteEventLog
from services.interchange.trf import import_trf, read_trf

GOLDEN = Path(__file__).resolve().parent / "golden"

# The goldens of tests/unit/projections/standings/test_golden_standings.py: golden name ->
# (rules_preset, format),
# what a TRF does not say, as `arbiter import trf` takes it on the command line.
STANDINGS_GOLDENS = {
    "fide-c07-art16-unplayed": ("fide-swiss", "swiss"),
    "czech-a-mini-table-sonneborn": ("czech-single", "round_robin"),
}


def imported_golden(name: str, rules_preset: str, fmt: str, *then: Event) -> StandingsState:
    """The golden TRF `name` through `arbiter import trf`'s path, then `then` through the
    commands, folded from the stored events."""
    trf = read_trf(GOLDEN / f"{name}.trf")
    with SQLiteEventLog(":memory:") as log:
        svc = CommandService(log)
        import_trf(
            log,
            trf,
            tournament_id=name,
            actor=ADMIN,
            rules_preset=rules_preset,
            fmt=fmt,
            id_namespace=name,
        )
        if then:
            svc.handle(name, batch(*then), ADMIN)
        return fold([Recorded.of(e) for e in log.read(name, 1)])


def golden_table(name: str) -> Table:
    """The standings of one of `STANDINGS_GOLDENS`, imported from its TRF."""
    return standings(imported_golden(name, *STANDINGS_GOLDENS[name]))


def standings_bytes(table: Table) -> bytes:
    """A table as its `<name>.standings.json` golden holds it: canonical JSON and a newline."""
    return dumps(table.as_dict()) + b"\n"
