"""The registry of published projections: their names, in the order their documents are built
and sent.

One registry, read by every consumer: `projections.documents` builds one document per name
(and re-exports this tuple as its `PROJECTIONS`); the projector, the embedded runner, the
Kafka processors (`arbiter processor NAME`, and `deploy/processors/start`/`stop` through
`arbiter processor list`), the feed and its live page, the audit's replay and the CLI read it;
the schema export writes the model of each (`events_schema.documents.DOCUMENT_MODELS`).
Nothing is imported here, so the CLI reads the names without loading the projections.
A new projection: its document in `projections/documents.py`, its name here, its model in
`events_schema/documents.py`.
"""

from __future__ import annotations

PROJECTIONS: tuple[str, ...] = ("standings", "tiebreaks", "playoff", "prizes", "games")
