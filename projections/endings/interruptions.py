"""Server interruptions and engine crashes: what to propose from the facts, each event in its
own wording.

Server interruption (`ServerInterrupted`): five scenarios, tried in the order written (Swiss
7.b, Cup 7.b, FRD 7.b; Leagues 14.1, 4k 6.1):

i. the web server crashed: the game goes on (all);
ii. a win — Swiss/Cup/FRD: both evaluations "equal to or more than ABS(10)"; Leagues/4k: both
    "more than +10", or both "less than −10";
iii. a draw when both engines completed 35 moves — Swiss/Cup/FRD: both evaluations "equal to
    or less than ABS(0.15)"; Leagues/4k: both "less than ABS(0.15)";
iv. 7 pieces on the board: adjudicated by 7-man EGTB;
v. otherwise restarted from the position reached before the disconnect.

Readings: both evaluations are in White's view (the convention of `MovePlayed.eval_cp`); ii's
ABS(10) is read as both evaluations at least 10 pawns *for the same side*, which wins (two
engines each sure of their own win is not "scored as a win" for either: it falls to iv or v);
a missing evaluation meets neither ii nor iii. iii's "completed 35 moves" is
`moves_completed >= 35`. iv's "7 pieces" counts men, kings and pawns included (the EGTB count),
and is read as 7 or fewer (the 7-man tables hold every smaller ending; a smaller one is still
open when the preset has no tablebase adjudication, 4k, or no prober ran); without a prober
that answers, the ruling awaits a tablebase (`outcome="await_tablebase"`). v restarts from
`ServerInterrupted.ply` (the plies both engines completed); the time compensation is the
arena's.

Engine crash (`EngineCrashed`): "Crashes are counted as losses" (Swiss 7.a, Cup 7.a, FRD 7.a,
Leagues 14.2, 4k 6.2), subject to the organisers' 0.0 (they may adapt the result or replay,
recorded as a ruling or correction). Human chess presets have no crash rule: None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import chess

from events_schema.events import AdjudicationIssued, EngineCrashed, ServerInterrupted
from events_schema.ids import GameId
from projections.endings.ending import Ending, win_for
from projections.endings.rules import Ruleset, ruleset_for
from projections.endings.tablebase import Prober

Scenario = Literal["i", "ii", "iii", "iv", "v"]
Outcome = Literal["1-0", "0-1", "1/2-1/2", "restart", "continue", "await_tablebase"]
Colour = Literal["white", "black"]

WIN_CP = 1000  # 10 pawns
DRAW_CP = 15  # 0.15 pawns
DRAW_MOVES = 35
EGTB_MEN = 7


@dataclass(frozen=True, slots=True)
class InterruptionRuling:
    scenario: Scenario
    outcome: Outcome
    rule: str  # "tcec-rules Swiss 7.b.iii"
    basis: str
    restart_from_ply: int | None = None

    def adjudication(self, game_id: GameId) -> AdjudicationIssued | None:
        """The `AdjudicationIssued` to propose; None when the game goes on (i) or a
        tablebase ruling is still awaited (iv)."""
        if self.outcome in ("continue", "await_tablebase"):
            return None
        outcome: Literal["1-0", "0-1", "1/2-1/2", "restart"]
        if self.outcome == "1-0":
            outcome = "1-0"
        elif self.outcome == "0-1":
            outcome = "0-1"
        elif self.outcome == "1/2-1/2":
            outcome = "1/2-1/2"
        else:
            outcome = "restart"
        return AdjudicationIssued(
            game_id=game_id,
            rule=self.rule,
            outcome=outcome,
            restart_from_ply=self.restart_from_ply,
            basis=self.basis,
        )


_NUMBER = {"i": "1", "ii": "2", "iii": "3", "iv": "4", "v": "5"}


def _article(rs: Ruleset, scenario: Scenario) -> str:
    if rs.interruption == "swiss":
        return f"{rs.interruption_article}.{scenario}"
    return f"{rs.interruption_article}.{_NUMBER[scenario]}"


def _pawns(cp: int | None) -> str:
    return "none" if cp is None else f"{cp / 100:+.2f}"


def interruption_ruling(
    facts: ServerInterrupted,
    preset: str | Ruleset | None,
    *,
    web_server_only: bool = False,
    board: chess.Board | None = None,
    prober: Prober | None = None,
) -> InterruptionRuling:
    """The scenario of a server interruption under `preset` (a TCEC preset: others raise
    ValueError). `board` is the position at the interruption, for iv with a `prober` that
    holds 7-man tables."""
    rs = preset if isinstance(preset, Ruleset) else ruleset_for(preset)
    if rs.interruption is None:
        raise ValueError(f"preset {rs.name!r} has no server-interruption rule")
    w, b = facts.white_eval_cp, facts.black_eval_cp
    evals = f"evaluations {_pawns(w)} (White's engine) and {_pawns(b)} (Black's engine)"
    if web_server_only:
        art = _article(rs, "i")
        return InterruptionRuling(
            "i", "continue", art, f"the web server crashed; the game continues ({art})"
        )
    swiss = rs.interruption == "swiss"
    if w is not None and b is not None:
        art = _article(rs, "ii")
        if swiss:
            white_wins = w >= WIN_CP and b >= WIN_CP
            black_wins = w <= -WIN_CP and b <= -WIN_CP
            wording = "both equal to or more than ABS(10)"
        else:
            white_wins = w > WIN_CP and b > WIN_CP
            black_wins = w < -WIN_CP and b < -WIN_CP
            wording = "both more than +10, or both less than −10"
        if white_wins or black_wins:
            return InterruptionRuling(
                "ii",
                win_for(white_wins),
                art,
                f"{evals}: {wording}, scored as a win for {'White' if white_wins else 'Black'}"
                f" ({art})",
            )
        art = _article(rs, "iii")
        if swiss:
            small = abs(w) <= DRAW_CP and abs(b) <= DRAW_CP
            wording = "both equal to or less than ABS(0.15)"
        else:
            small = abs(w) < DRAW_CP and abs(b) < DRAW_CP
            wording = "both less than ABS(0.15)"
        if small and facts.moves_completed >= DRAW_MOVES:
            return InterruptionRuling(
                "iii",
                "1/2-1/2",
                art,
                f"{evals}: {wording}, and {facts.moves_completed} moves completed "
                f"(at least {DRAW_MOVES}): a draw ({art})",
            )
    if facts.pieces_on_board <= EGTB_MEN:
        art = _article(rs, "iv")
        wdl = prober.probe_wdl(board) if prober is not None and board is not None else None
        if wdl is None or board is None:
            return InterruptionRuling(
                "iv",
                "await_tablebase",
                art,
                f"{facts.pieces_on_board} men on the board: to be adjudicated by 7-man EGTB, "
                f"which is not configured here ({art})",
            )
        if wdl == "draw":
            outcome: Outcome = "1/2-1/2"
        else:
            outcome = win_for((board.turn == chess.WHITE) == (wdl == "win"))
        return InterruptionRuling(
            "iv",
            outcome,
            art,
            f"{facts.pieces_on_board} men on the board: 7-man EGTB says {wdl} for the side to "
            f"move ({art})",
        )
    art = _article(rs, "v")
    return InterruptionRuling(
        "v",
        "restart",
        art,
        f"{evals}, {facts.moves_completed} moves completed, {facts.pieces_on_board} men: "
        f"restarted from the position at ply {facts.ply}, with time compensation ({art})",
        restart_from_ply=facts.ply,
    )


def crash_ending(
    facts: EngineCrashed, preset: str | Ruleset | None, crashed: Colour
) -> Ending | None:
    """A crash is counted as a loss for the engine that crashed (`crashed`, the colour the
    caller finds for `facts.player_id`); None for a preset without a crash rule."""
    rs = preset if isinstance(preset, Ruleset) else ruleset_for(preset)
    rule = rs.rule("engine_crash")
    if rule is None:
        return None
    side = "White" if crashed == "white" else "Black"
    extra = f": {facts.detail}" if facts.detail else ""
    return Ending(
        win_for(crashed == "black"),
        "engine_crash",
        rule.citation,
        f"{side}'s engine crashed{extra}; crashes are counted as losses ({rule.citation}; "
        f"the organisers may decide otherwise, tcec-rules 0.0)",
        facts.ply or 0,
    )
