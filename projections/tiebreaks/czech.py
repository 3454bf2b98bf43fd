"""Czech club ranking rules (seed czech-club-ranking-rules.cs.txt; English rendering:
rules/czech-club-ranking-rules.en.md)."""

from __future__ import annotations

from projections.tiebreaks.chain import Chain

#: Presets this rulebook defines (merged into projections.tiebreaks.presets.PRESETS).
PRESETS: dict[str, Chain] = {}
