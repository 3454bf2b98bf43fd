"""Chess game endings by rule (issue 15), pure: each preset's list of endings (`rules`), the
TCEC draw rule (`draw_rule`), tablebase adjudication behind a `Prober` (`tablebase`), clocks
(`clock`), the adjudicator from moves (`adjudicator`: incremental `Adjudicator`, batch
`adjudicate`), server interruptions and crashes (`interruptions`), and PGN move comments
(`pgn_comments`) for importers."""

from __future__ import annotations

from projections.endings.adjudicator import (
    Adjudicator,
    GameFacts,
    IllegalMoveError,
    MoveFacts,
    adjudicate,
)
from projections.endings.clock import ClockSpec, ClockState, apply_move, flag_fall_ending
from projections.endings.ending import Ending, armageddon
from projections.endings.interruptions import (
    InterruptionRuling,
    crash_ending,
    interruption_ruling,
)
from projections.endings.rules import RULESETS, Rule, Ruleset, ruleset_for
from projections.endings.tablebase import WDL, Prober

__all__ = [
    "RULESETS",
    "WDL",
    "Adjudicator",
    "ClockSpec",
    "ClockState",
    "Ending",
    "GameFacts",
    "IllegalMoveError",
    "InterruptionRuling",
    "MoveFacts",
    "Prober",
    "Rule",
    "Ruleset",
    "adjudicate",
    "apply_move",
    "armageddon",
    "crash_ending",
    "flag_fall_ending",
    "interruption_ruling",
    "ruleset_for",
]
