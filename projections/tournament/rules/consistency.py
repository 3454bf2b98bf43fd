"""Whether a result agrees with how the game ended, and with the game it is for: the checks
a `GameEnded` and a `ResultCorrected` share (rules/play.py, rules/corrections.py).

- An ending that has one winner is not a draw, and one that has none is not a win: a draw by
  resignation or a win by agreement is refused (`result.termination_mismatch`), citing the
  article that says how that ending scores. Two endings may be either: a flag fall is a draw
  when the opponent cannot checkmate (FIDE Laws 6.9), and so is an illegal move completed
  (FIDE Laws 7.5.5). Endings that name a ruling or an unknown way ("adjudication",
  "arbiter_decision", "forfeit", "other", …) go with any result.
- A win for both ("1-1", OpenGotha `Game.RESULT_BOTHWIN`) is a Go result only
  (`result.both_win_go_only`), and one that no ending of a game gives: it is decided by the
  arbiter ("arbiter_decision", "adjudication"), by default ("forfeit": RESULT_BOTHWIN_BYDEF) or
  "other" (`result.termination_mismatch`).
- A Go game has no jigo when its komi has a half point (LGC Scoring: 7.5 in an even game,
  0.5 in a handicap game): a ½-½ there is refused (`result.no_jigo`).
"""

from __future__ import annotations

from decimal import Decimal

from events_schema import events as ev
from projections.rejection import Rejected
from projections.tournament import go_play
from projections.tournament.state import GameState, TournamentState

DECISIVE: frozenset[ev.Result] = frozenset({"1-0", "0-1"})
DRAW: ev.Result = "1/2-1/2"
BOTH_WIN: ev.Result = "1-1"
#: The endings a win for both can have: none of a game's own (OpenGotha sets RESULT_BOTHWIN by
#: hand, "_BYDEF" when not played).
BOTH_WIN_ENDINGS: frozenset[ev.Termination] = frozenset(
    {"arbiter_decision", "adjudication", "forfeit", "other"}
)

#: Endings that give the game to one player, with the article that says so.
WIN_ONLY: dict[ev.Termination, str] = {
    "checkmate": "FIDE Laws 5.1.1: the player who checkmates the opponent's king wins",
    "resignation": "FIDE Laws 5.1.2: the player whose opponent resigns wins",
    "engine_crash": "TCEC Swiss 7.a: crashes are counted as losses",
}
#: Endings that draw the game, with the article that says so.
DRAW_ONLY: dict[ev.Termination, str] = {
    "stalemate": "FIDE Laws 5.2.1: a stalemate draws the game",
    "insufficient_material": "FIDE Laws 5.2.2: a dead position draws the game",
    "agreement": "FIDE Laws 5.2.3: an agreement draws the game",
    "threefold_repetition": "FIDE Laws 9.2: a threefold repetition claimed draws the game",
    "fifty_move_rule": "FIDE Laws 9.3: a fifty-move claim draws the game",
    "fivefold_repetition": "FIDE Laws 9.6.1: a fivefold repetition draws the game",
    "seventy_five_move_rule": "FIDE Laws 9.6.2: seventy-five moves draw the game",
    "tcec_draw_rule": "TCEC Swiss 6.b: the draw rule adjudicates a draw",
}
#: Endings that are a win or a draw, never a double loss (and why a draw is possible).
WIN_OR_DRAW: dict[ev.Termination, str] = {
    "time_forfeit": "FIDE Laws 6.9: a flag fall loses, but draws if the opponent cannot "
    "checkmate by any series of legal moves",
    "illegal_move": "FIDE Laws 7.5.5: the second illegal move loses, but draws if the "
    "opponent cannot checkmate by any series of legal moves",
}


def outcome_word(result: ev.Result) -> str:
    return {
        "1-0": "a win",
        "0-1": "a win",
        "1/2-1/2": "a draw",
        "0-0": "a double loss",
        "1-1": "a win for both",
    }[result]


def mismatch(result: ev.Result, termination: ev.Termination) -> str | None:
    """Why `result` cannot end by `termination` (the article), None when the two agree."""
    if termination in WIN_ONLY and result not in DECISIVE:
        return (
            f"{outcome_word(result)} ({result}) cannot end by {termination}: "
            f"{WIN_ONLY[termination]}; give the termination the result ended by "
            "(e.g. agreement for a draw, forfeit or other for a double loss)"
        )
    if termination in DRAW_ONLY and result != DRAW:
        return (
            f"{outcome_word(result)} ({result}) cannot end by {termination}: "
            f"{DRAW_ONLY[termination]}; give the termination the result ended by "
            "(e.g. resignation, time_forfeit or other for a win)"
        )
    if result == BOTH_WIN and termination not in BOTH_WIN_ENDINGS:
        return (
            f"a win for both (1-1) cannot end by {termination}: no ending of a game gives both "
            "players the win (OpenGotha RESULT_BOTHWIN is set by hand); give "
            f"{', '.join(sorted(BOTH_WIN_ENDINGS))}"
        )
    if termination in WIN_OR_DRAW and result == "0-0":
        return f"a double loss (0-0) cannot end by {termination}: {WIN_OR_DRAW[termination]}"
    return None


def check_result(
    state: TournamentState,
    game: GameState,
    result: ev.Result,
    termination: ev.Termination,
    go_score: ev.GoScore | None = None,
) -> None:
    """Refuse a result that contradicts its termination or, in Go, its komi (the module
    docstring); `go_score` is a count's own komi when the event carries one."""
    if result == BOTH_WIN and state.game_kind != "go":
        raise Rejected(
            "result.both_win_go_only",
            "payload.result",
            f"{game.game_id}: a win for both (1-1) is a Go result (OpenGotha RESULT_BOTHWIN); "
            "enter 1-0, 0-1, 1/2-1/2 or 0-0",
        )
    why = mismatch(result, termination)
    if why is not None:
        raise Rejected("result.termination_mismatch", "payload.termination", why)
    if result == DRAW and state.game_kind == "go":
        komi = go_score.komi if go_score is not None else game_komi(state, game)
        if komi != komi.to_integral_value():
            raise Rejected(
                "result.no_jigo",
                "payload.result",
                f"{game.game_id} is played with komi {komi}: with a half point of komi a Go "
                "game has a winner (LGC Scoring: after accounting for komi the player with "
                "the most territory wins); enter 1-0 (White) or 0-1 (Black)",
            )


def game_komi(state: TournamentState, game: GameState) -> Decimal:
    """LGC Scoring: the komi of `game`: the tournament's even komi, 0.5 with a handicap of
    two stones or more (the handicap it started with, else the pairing's)."""
    handicap = game.go.handicap if game.go is not None else game.handicap
    return go_play.komi(state.created, handicap)
