"""TCEC tiebreaks (tcec-rules.txt: Leagues 11, Swiss 3, FRD 3) and r-mobility
(rules/r-mobility.md)."""

from __future__ import annotations

from projections.tiebreaks.chain import Chain

#: Presets this rulebook defines (merged into projections.tiebreaks.presets.PRESETS).
PRESETS: dict[str, Chain] = {}
