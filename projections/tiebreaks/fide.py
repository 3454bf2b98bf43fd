"""FIDE tie-break regulations (Handbook C.07, 2023): criteria for Swiss and round-robin events."""

from __future__ import annotations

from projections.tiebreaks.chain import Chain

#: Presets this rulebook defines (merged into projections.tiebreaks.presets.PRESETS).
PRESETS: dict[str, Chain] = {}
