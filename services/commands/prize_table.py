"""Setting a tournament's prize table from the organiser's file (`arbiter prize-table T FILE`):
a `RulingIssued(subject="prize_table", decision={"prize_table": {...}})`, the correction the
prizes read (`projections/prizes/corrections.py`: the latest such ruling in force replaces
`TournamentCreated.prize_table`), appended through the command path, which checks it again
(`ruling.invalid_table`).

The file is read whole first (`services/inputs.py`): every problem is named at once, the
schema's and the table's own (a place paid twice), and nothing is appended. Setting the table
in force again appends nothing.
"""

from __future__ import annotations

import re
from collections import Counter

from pydantic import ValidationError

from events_schema import Actor, Command, CommandBatch, encode_payload
from events_schema import events as ev
from events_schema.inputs import Problem, problems
from services.commands.service import CommandRejected, CommandService

RULING_PREFIX = "prize-table"
TABLE_RULE = "prizes.invalid_table"


def check_table(raw: object) -> tuple[ev.PrizeTable | None, list[Problem]]:
    """Read a prize table and name every problem in it: the schema's (all of pydantic's
    errors) and a place paid twice (which amount would it be?), checked on the entries as
    written even when the schema refuses others."""
    try:
        table: ev.PrizeTable | None = ev.PrizeTable.model_validate(raw)
        found: list[Problem] = []
    except ValidationError as exc:
        table, found = None, problems(exc, TABLE_RULE, "prize_table")
    entries = raw.get("prizes") if isinstance(raw, dict) else None
    places = [
        e.get("place") if isinstance(e, dict) else None
        for e in (entries if isinstance(entries, list) else [])
    ]
    counts = Counter(p for p in places if isinstance(p, int))
    twice = [
        Problem(TABLE_RULE, f"prize_table.prizes[{i}].place", f"place {p} is listed twice")
        for i, p in enumerate(places)
        if isinstance(p, int) and counts[p] > 1
    ]
    found = sorted(found + twice, key=lambda p: _order(p.field))
    return (table if not found else None), found


def _order(field: str) -> int:
    """Problems in the order of the file: by entry index (a stable sort keeps the rest)."""
    match = re.search(r"\[(\d+)\]", field)
    return int(match.group(1)) if match else -1


def set_prize_table(
    service: CommandService,
    tournament: str,
    table: ev.PrizeTable,
    actor: Actor,
    reason: str | None = None,
) -> list[int]:
    """Append the ruling that puts `table` in force; the seqs appended ([] when the table in
    force is already this one). Refused when the table names a place twice or the
    tournament does not exist."""
    from events_schema import Recorded
    from projections.prizes.corrections import PRIZE_TABLE_SUBJECT, prize_table_in_force
    from projections.standings import fold

    _, found = check_table(table.model_dump(mode="json"))
    if found:
        raise CommandRejected.of(found)
    records = [Recorded.of(e) for e in service.log.read(tournament, 1)]
    state = fold(records)
    if state.created is None:
        raise CommandRejected(
            "prizes.unknown_tournament", "TOURNAMENT", f"{tournament!r} has no events"
        )
    if prize_table_in_force(state).value == table:
        return []
    # Every ruling id the stream used, retracted ones too (a retracted ruling keeps its id).
    used = {r.event.ruling_id for r in records if isinstance(r.event, ev.RulingIssued)}
    n = 1
    while f"{RULING_PREFIX}-{n}" in used:
        n += 1
    decision = {"prize_table": table.model_dump(mode="json", exclude_none=True)}
    places = ", ".join(f"{p.place}: {p.amount}" for p in table.prizes)
    ruling = ev.RulingIssued(
        ruling_id=f"{RULING_PREFIX}-{n}",
        by=actor.id,
        subject=PRIZE_TABLE_SUBJECT,
        rule="the organisers' prize table",
        text=reason or f"prize table ({table.currency}): {places or 'no prizes'}"[:8000],
        decision=decision,
    )
    batch = CommandBatch(
        commands=[Command(type=ruling.event_type, payload=encode_payload(ruling))],
        expected_seq=state.seq,
    )
    result = service.handle(tournament, batch, actor)
    return [e.seq for e in result.envelopes]
