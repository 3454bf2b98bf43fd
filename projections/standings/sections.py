"""A Galway tournament's section winners as the standings carry them (`galway_sections`).

Apart from `projections.documents` so that a reader of the standings alone (the CLI's
`arbiter standings`) gets them without loading every projection; the Galway pairing code
(which loads the FIDE Dutch system) is imported only for a Galway tournament."""

from __future__ import annotations

from typing import Any

from projections.pairing.names import system_name
from projections.standings.state import StandingsState
from projections.standings.table import Table, score_dict

GALWAY = "galway"  # `projections.pairing.galway.name`


def galway_sections(state: StandingsState, table: Table) -> dict[str, Any] | None:
    """A Galway tournament's sections and their winners (galway-congress-2023-structure.md:
    prizes per section; `galway.section_report`), on the table's scores; None for any other
    pairing system."""
    created = state.created
    if created is None or system_name(created) != GALWAY:
        return None
    from projections.pairing import galway
    from projections.pairing.base import context

    report = galway.section_report(context(state, "main"), table.rows)
    # Scores as every document carries them (`events_schema.documents.Score`).
    report["sections"] = [
        {
            **sec,
            "top_score": score_dict(sec["top_half_points"]),
            "winners": [{**w, "score": score_dict(w["half_points"])} for w in sec["winners"]],
        }
        for sec in report["sections"]
    ]
    return report
