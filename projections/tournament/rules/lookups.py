"""The lookups several of the decider's rules share: each finds what a proposed event names (a
player, a game, a game still in play) or refuses it, naming the rule and the field."""

from __future__ import annotations

from projections.rejection import Rejected
from projections.tournament.state import GameState, TournamentState


def known_player(state: TournamentState, player_id: str, field: str) -> None:
    if player_id not in state.players:
        raise Rejected("player.unknown", field, f"no player {player_id!r} is registered")


def find_game(state: TournamentState, game_id: str) -> GameState:
    game = state.games.get(game_id)
    if game is None:
        raise Rejected("game.unknown", "payload.game_id", f"no game {game_id!r} is scheduled")
    return game


def not_paused(state: TournamentState, what: str) -> None:
    # TCEC Swiss 7.d: after a system crash or server disconnect the tournament is paused.
    if state.paused:
        raise Rejected("tournament.paused", "type", f"the tournament is paused: no {what}")


def game_in_progress(state: TournamentState, game_id: str) -> GameState:
    game = find_game(state, game_id)
    if game.status == "ended":
        entry = game.result
        by = f" by rule ({entry.rule})" if entry is not None and entry.rule else ""
        raise Rejected(
            "game.already_ended",
            "payload.game_id",
            f"{game_id} already has a result{by}; change it with ResultCorrected",
        )
    return game


def player_in_game(game: GameState, player_id: str) -> None:
    if player_id not in (game.white, game.black):
        raise Rejected(
            "player.not_in_game", "payload.player_id", f"{player_id!r} is not in {game.game_id}"
        )


def not_paired_in(state: TournamentState, rnd: int, player_id: str, instead: str) -> None:
    """Refuse what must come before `player_id` is paired in round `rnd` (of any stage): a
    round skipped, a removal from the round; `instead` says what to do now."""
    for key in state.rounds:
        if key[1] == rnd and state.player_in_round(key, player_id):
            raise Rejected(
                "round.already_paired",
                "payload.round",
                f"{player_id} is paired in round {rnd}: {instead}",
            )
