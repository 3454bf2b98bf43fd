"""OpenGotha's tournament file (XML): read (`parse`), turned into the events of the
import's plan (`plan.to_plan`), recorded on the shared import pipeline (`importer`), and
written back (`export`)."""

from __future__ import annotations

from services.interchange.opengotha.export import export_opengotha
from services.interchange.opengotha.importer import (
    OpenGothaImportReport,
    import_opengotha,
    plan_file,
)
from services.interchange.opengotha.parse import OgFile, OpenGothaError, read_opengotha
from services.interchange.opengotha.plan import Convention, OgPlan, to_plan

__all__ = [
    "Convention",
    "OgFile",
    "OgPlan",
    "OpenGothaError",
    "OpenGothaImportReport",
    "export_opengotha",
    "import_opengotha",
    "plan_file",
    "read_opengotha",
    "to_plan",
]
