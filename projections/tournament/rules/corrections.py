"""The decider's rules for corrections: a result corrected and an event retracted (what may be
retracted, and in what order)."""

from __future__ import annotations

from events_schema import events as ev
from projections.rejection import Rejected
from projections.tournament.rules.consistency import check_result
from projections.tournament.rules.lookups import find_game
from projections.tournament.rules.registry import rule
from projections.tournament.state import TournamentState


@rule(ev.ResultCorrected)
def _(proposed: ev.ResultCorrected, state: TournamentState) -> list[ev.Event]:
    target = state.events.get(proposed.corrects_event_id)
    field = "payload.corrects_event_id"
    if target is None:
        raise Rejected("correction.target_missing", field, "no such event in this tournament")
    if target.type not in ("GameEnded", "ResultCorrected"):
        raise Rejected("correction.target_not_result", field, f"it is a {target.type}")
    if target.game_id != proposed.game_id:
        raise Rejected(
            "correction.game_mismatch", "payload.game_id", f"that event is for {target.game_id}"
        )
    game = find_game(state, proposed.game_id)
    current = game.result
    if current is None or current.event_id != proposed.corrects_event_id:
        raise Rejected(
            "correction.not_current",
            field,
            "that result is no longer in force"
            + (f"; correct {current.event_id} instead" if current is not None else ""),
        )
    if (current.result, current.termination) == (proposed.result, proposed.termination):
        raise Rejected(
            "correction.no_change",
            "payload.result",
            f"the result in force is already {current.result} ({_ending(current.termination)}): "
            "a correction changes the result or its termination",
        )
    check_result(state, game, proposed.result, proposed.termination)
    return [proposed]


# An unwound illegal move and a resumed play are facts of the game's record: play went on
# from them, so they are not retracted (LGC Irregularities: the moves after are new moves).
_NOT_RETRACTABLE = (
    "TournamentCreated",
    "SeriesCreated",
    "EventRetracted",
    "IllegalMoveNoticed",
    "GoStatusDisputed",
)


@rule(ev.EventRetracted)
def _(proposed: ev.EventRetracted, state: TournamentState) -> list[ev.Event]:
    field = "payload.retracted_event_id"
    tid = proposed.retracted_event_id
    target = state.events.get(tid)
    if target is None:
        raise Rejected("retraction.target_missing", field, "no such event in this tournament")
    if tid in state.retracted:
        raise Rejected("retraction.already_retracted", field, "that event is already retracted")
    if target.type in _NOT_RETRACTABLE:
        raise Rejected("retraction.not_retractable", field, f"a {target.type} cannot be retracted")
    game = state.games.get(target.game_id) if target.game_id is not None else None
    if target.type == "MovePlayed" and game is not None:
        if game.status == "ended":
            raise Rejected("retraction.game_ended", field, "correct the result first")
        if not game.move_event_ids or game.move_event_ids[-1] != tid:
            raise Rejected(
                "retraction.not_last_move", field, "moves are unwound from the last one back"
            )
    if target.type == "GameStarted" and game is not None and game.moves:
        raise Rejected("retraction.game_has_moves", field, "retract the moves first")
    invalidated = tid in state.invalidations.values()  # TCEC Swiss 7.d
    if target.type == "RoundScheduled" and target.round_key is not None and not invalidated:
        for gid in state.rounds.get(target.round_key, []):
            if state.games[gid].status != "scheduled":
                raise Rejected(
                    "retraction.round_in_play", field, f"game {gid} has started or ended"
                )
    if target.type == "PlayerRegistered" and target.player_id is not None:
        for key in state.rounds:
            if state.player_in_round(key, target.player_id):
                raise Rejected(
                    "retraction.player_paired", field, f"{target.player_id} is in round {key}"
                )
    return [proposed]


def _ending(termination: str) -> str:
    """A termination in a refusal's words: "other" is a result entered without its ending."""
    if termination == "other":
        return "entered without its ending, termination 'other'"
    return termination.replace("_", " ")
