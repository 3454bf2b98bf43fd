"""The decider's rules for creating a stream, registering players, drawing lots and scheduling
rounds (a playoff's lots and rounds are checked by its machine: `playoff_guards`)."""

from __future__ import annotations

from events_schema import events as ev
from projections.rejection import Rejected
from projections.tiebreaks import validate as validate_chain
from projections.tiebreaks.editions import edition_on
from projections.tiebreaks.presets import PRESETS
from projections.tournament.rules.lookups import known_player
from projections.tournament.rules.registry import rule
from projections.tournament.state import PlayerState, TournamentState


def _refuse_recreation(state: TournamentState) -> None:
    if state.kind != "none":
        raise Rejected("stream.already_created", "type", f"{state.stream_id} already exists")


@rule(ev.TournamentCreated)
def _(proposed: ev.TournamentCreated, state: TournamentState) -> list[ev.Event]:
    _refuse_recreation(state)
    # Unknown criteria, bad parameters or an unknown preset are refused at creation
    # (`projections.tiebreaks.chain.validate`), naming the entry.
    for i, where, message in validate_chain(proposed.tiebreaks):
        raise Rejected("tiebreak.invalid", f"payload.tiebreaks[{i}].{where}", message)
    if proposed.rules_preset is not None and proposed.rules_preset not in PRESETS:
        known = ", ".join(sorted(PRESETS))
        raise Rejected(
            "tiebreak.unknown_preset",
            "payload.rules_preset",
            f"unknown preset {proposed.rules_preset!r}; known: {known}",
        )
    if proposed.starts_on and proposed.ends_on and proposed.ends_on < proposed.starts_on:
        raise Rejected(
            "tournament.dates_reversed",
            "payload.ends_on",
            f"ends on {proposed.ends_on} before it starts on {proposed.starts_on}",
        )
    # The FIDE C.07 text its FIDE tie-breaks follow is a recorded fact of the tournament: when
    # the creation states none, the edition in force on its start date, the newest without one
    # (projections/tiebreaks/editions.py). The stored event states it.
    if proposed.tiebreak_edition is None:
        edition = edition_on(proposed.starts_on)
        return [proposed.model_copy(update={"tiebreak_edition": edition})]
    return [proposed]


@rule(ev.SeriesCreated)
def _(proposed: ev.SeriesCreated, state: TournamentState) -> list[ev.Event]:
    _refuse_recreation(state)
    return [proposed]


@rule(ev.PlayerRegistered)
def _(proposed: ev.PlayerRegistered, state: TournamentState) -> list[ev.Event]:
    if proposed.player_id in state.players:
        raise Rejected(
            "player.duplicate", "payload.player_id", f"{proposed.player_id!r} already registered"
        )
    return [proposed]


@rule(ev.PlayerWithdrew)
def _(proposed: ev.PlayerWithdrew, state: TournamentState) -> list[ev.Event]:
    known_player(state, proposed.player_id, "payload.player_id")
    if state.players[proposed.player_id].withdrawn:
        raise Rejected("player.withdrawn", "payload.player_id", "already withdrawn")
    return [proposed]


@rule(ev.LotDrawn)
def _(proposed: ev.LotDrawn, state: TournamentState) -> list[ev.Event]:
    # A lot of a playoff is checked against what its machine asks for (subject, purpose,
    # candidates, pick): projections/tournament/playoff_guards.py.
    if state.standings is not None:  # a tournament with a playoff (evolve.PLAYOFF_PRESETS)
        from projections.tournament import playoff_guards  # the machines, only where used

        playoff_guards.check_lot(state, proposed)
    # Lots (rules/README "Lots"): the outcome must come from the candidates drawn from.
    unknown = [o for o in proposed.outcome if o not in proposed.candidates]
    if unknown:
        raise Rejected(
            "lot.outcome_not_a_candidate",
            "payload.outcome",
            f"{unknown} not among the candidates {proposed.candidates}",
        )
    return [proposed]


def _withdrawn_for(player: PlayerState, rnd: int) -> bool:
    """A withdrawal names the first round the player misses (`from_round`; none: at once);
    rounds before it may still pair them (FIDE C.06 5.4: a player who announces a
    withdrawal from a later round plays the rounds before it)."""
    if not player.withdrawn:
        return False
    return player.withdrawn_from_round is None or rnd >= player.withdrawn_from_round


@rule(ev.RoundScheduled)
def _(proposed: ev.RoundScheduled, state: TournamentState) -> list[ev.Event]:
    key = (proposed.stage, proposed.round)
    if key in state.rounds:
        raise Rejected(
            "round.duplicate",
            "payload.round",
            f"round {proposed.round} of stage {proposed.stage!r} is already scheduled",
        )
    seen: set[str] = set()
    for i, p in enumerate(proposed.pairings):
        where = f"payload.pairings[{i}]"
        if p.game_id in state.games:
            raise Rejected("game.duplicate_id", f"{where}.game_id", f"{p.game_id!r} exists")
        if p.white == p.black:
            raise Rejected("pairing.self", f"{where}.black", "a player cannot play themself")
        for side in ("white", "black"):
            pid = getattr(p, side)
            known_player(state, pid, f"{where}.{side}")
            if _withdrawn_for(state.players[pid], proposed.round):
                raise Rejected("player.withdrawn", f"{where}.{side}", f"{pid!r} has withdrawn")
            if pid in seen:
                raise Rejected("pairing.player_twice", f"{where}.{side}", f"{pid!r} twice")
            seen.add(pid)
    game_ids = [p.game_id for p in proposed.pairings]
    if len(set(game_ids)) != len(game_ids):
        raise Rejected("game.duplicate_id", "payload.pairings", "a game id is used twice")
    for i, b in enumerate(proposed.byes):
        known_player(state, b.player_id, f"payload.byes[{i}].player_id")
        if b.player_id in seen:
            raise Rejected(
                "pairing.player_twice", f"payload.byes[{i}].player_id", "paired and given a bye"
            )
        seen.add(b.player_id)
    # A round of a playoff stage is checked against what its machine prescribes (who may be
    # seated, who has a bye, the games): projections/tournament/playoff_guards.py.
    if state.standings is not None:  # a tournament with a playoff (evolve.PLAYOFF_PRESETS)
        from projections.tournament import playoff_guards  # the machines, only where used

        playoff_guards.check_round(state, proposed)
    return [proposed]
