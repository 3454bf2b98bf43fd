"""Results files for the Go rating bodies: the EGF's h9 file (`h9.py`, `arbiter export h9`)
and the AGA's results file (`aga.py`, `arbiter export aga`), each written from the log and
read back by its own reader (the tests round-trip them)."""

from __future__ import annotations

from services.interchange.egf.aga import AgaFile, export_aga, read_aga
from services.interchange.egf.h9 import H9File, export_h9, read_h9

__all__ = ["AgaFile", "H9File", "export_aga", "export_h9", "read_aga", "read_h9"]
