"""Endings by rule on the command path: the bridge between the decider and
`projections/endings` (the rules of each preset, the TCEC draw rule, clocks).

When a tournament has `adjudication="rules"` (the default since TournamentCreated v2), each
chess game keeps an `Adjudicator` at the position reached (`GameState.adjudicator`, folded by
`evolve`). The decider tries a proposed move on a clone: if the move ends the game by the
preset's rules (mate, stalemate, repetition, fifty moves, the TCEC draw rule, a flag fall),
the move and its `GameEnded` — naming the rule as `seed article` — are appended in the same
batch, so the ending can be overruled by a `ResultCorrected` or an `EventRetracted` (after
which the game's endings are entered by hand). Tablebase adjudication needs tables, which a
pure decider cannot open: the adjudicator processor (`arbiter processor adjudicator
--tablebases DIR`) does it."""

from __future__ import annotations

from collections.abc import Sequence

from events_schema import events as ev
from projections.endings.adjudicator import Adjudicator, MoveFacts
from projections.endings.ending import Ending
from projections.endings.interruptions import interruption_ruling
from projections.endings.tablebase import Prober
from projections.tournament.state import GameState, TournamentState


def time_control_of(state: TournamentState, game: GameState) -> ev.TimeControl | None:
    """The game's time control: the one its pairing names, else the tournament's only one."""
    created = state.created
    if created is None or not created.time_controls:
        return None
    if game.time_control is not None:
        for tc in created.time_controls:
            if tc.name == game.time_control:
                return tc
        return None
    return created.time_controls[0] if len(created.time_controls) == 1 else None


def adjudicator_at_start(
    state: TournamentState, game: GameState, prober: Prober | None = None
) -> Adjudicator | None:
    """The game's adjudicator at its start position, whatever the tournament's adjudication
    (the adjudicator processor follows "manual" tournaments too): the tournament's preset and
    Armageddon, the game's start position and time control, `prober` for tablebase endings.
    None when the preset or the position cannot be followed, or the start position is
    already over (an arbiter's matter)."""
    created = state.created
    if created is None:
        return None
    tc = time_control_of(state, game)
    try:
        adj = Adjudicator(
            created.rules_preset,
            start_fen=game.start_fen,
            time_control=tc if tc is not None and tc.overtime in ("none", "fischer") else None,
            armageddon=created.scoring.armageddon,
            prober=prober,
        )
    except (KeyError, ValueError):
        return None
    return adj if adj.ending is None else None


def new_adjudicator(
    state: TournamentState,
    game: GameState,
    facts: Sequence[MoveFacts] = (),
    reports: Sequence[tuple[int, int, int]] = (),
) -> Adjudicator | None:
    """The game's adjudicator after `facts` (and the clocks reported among them: `reports`,
    (moves in force then, white ms, black ms)), or None when its endings are entered by hand
    (adjudication "manual", Go, a preset without endings, a position it cannot follow)."""
    created = state.created
    if created is None or created.adjudication != "rules" or created.game != "chess":
        return None
    adj = adjudicator_at_start(state, game)
    if adj is None:
        return None
    pending = sorted(reports, key=lambda r: r[0])
    try:
        for i, f in enumerate(facts):
            while pending and pending[0][0] <= i:
                adj.report_clocks(pending[0][1], pending.pop(0)[2])
            if adj.push_facts(f) is not None:
                return None
    except (KeyError, ValueError):
        return None
    for _, white_ms, black_ms in pending:
        adj.report_clocks(white_ms, black_ms)
    return adj


def game_ended(game_id: str, ending: Ending) -> ev.GameEnded:
    return ev.GameEnded(
        game_id=game_id,
        result=ending.result,
        termination=ending.termination,
        detail=f"ply {ending.ply}: {ending.detail}",
        rule=ending.rule,
    )


def ending_after(state: TournamentState, game: GameState, move: ev.MovePlayed) -> Ending | None:
    """The ending the rules give the proposed move, or None. The game's state is not
    changed: the move is tried on a clone of its adjudicator (a fresh one for a first move
    of a game not started yet)."""
    if move.uci is None:
        return None
    if game.started:
        if game.adjudicator is None:
            return None
        trial = game.adjudicator.clone()
    else:
        fresh = new_adjudicator(state, game)
        if fresh is None:
            return None
        trial = fresh
    try:
        return trial.push_facts(MoveFacts.of(move))
    except ValueError:
        return None


def interruption_adjudication(
    state: TournamentState, game: GameState, facts: ev.ServerInterrupted
) -> ev.AdjudicationIssued | None:
    """The adjudication a server interruption brings under the tournament's preset (TCEC
    Swiss 7.b, Cup 7.b, Leagues 14, FRD 7: scenarios ii–v), when its endings are by rule;
    None for scenario i (the game goes on), iv without tables, or a preset without the rule."""
    created = state.created
    if created is None or created.adjudication != "rules" or created.game != "chess":
        return None
    try:
        ruling = interruption_ruling(
            facts, created.rules_preset, web_server_only=facts.web_server_only, board=game.board
        )
    except (KeyError, ValueError):
        return None
    return ruling.adjudication(game.game_id)
