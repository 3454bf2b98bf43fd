"""The decider's rules for arbitration: sanctions (with the forfeits and removals they bring),
appeals, the appeals committee, protests, rulings (restarts, tie-break editions, prize and
points tables, TCEC Swiss 7.d invalidations) and the tournament paused or resumed."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated

from pydantic import Field, TypeAdapter, ValidationError

from events_schema import events as ev
from events_schema.inputs import Problem
from projections import rulings
from projections.rejection import Rejected
from projections.tournament.invalidation import KEY, RULE, invalidated_round
from projections.tournament.rules.lookups import (
    find_game,
    game_in_progress,
    known_player,
    not_paired_in,
    player_in_game,
)
from projections.tournament.rules.registry import rule
from projections.tournament.state import GameState, TournamentState


@rule(ev.SanctionIssued)
def _(proposed: ev.SanctionIssued, state: TournamentState) -> list[ev.Event]:
    known_player(state, proposed.player_id, "payload.player_id")
    if proposed.level in ("removal_from_round", "expulsion"):
        return _removal(proposed, state)
    if proposed.game_id is None:
        if proposed.level == "game_forfeit":
            raise Rejected("sanction.no_game", "payload.game_id", "a game forfeit names the game")
        return [proposed]
    game = find_game(state, proposed.game_id)
    player_in_game(game, proposed.player_id)
    out: list[ev.Event] = [proposed]
    forfeit = proposed.level == "game_forfeit"
    # LGC Sanctions: "If a player receives two warnings in the same game, then the referee
    # imposes the game forfeit sanction."
    if (
        proposed.level == "warning"
        and state.game_kind == "go"
        and game.warnings.get(proposed.player_id, 0) >= 1
    ):
        out.append(
            ev.SanctionIssued(
                player_id=proposed.player_id,
                game_id=game.game_id,
                level="game_forfeit",
                rule="LGC Sanctions: two warnings in the same game",
                text="second warning in this game",
            )
        )
        forfeit = True
    if forfeit and game.status != "ended":
        result: ev.Result = "0-1" if proposed.player_id == game.white else "1-0"
        out.append(
            ev.GameEnded(
                game_id=game.game_id,
                result=result,
                termination="forfeit",
                detail=f"game forfeit sanction: {proposed.rule}",
            )
        )
    elif forfeit and _forfeited_by_the_other(game, proposed.player_id):
        # LGC Sanctions "Game forfeit": "The referee declares one or both players to lose the
        # game by forfeit": the second forfeit makes it a loss for both.
        entry = game.result
        assert entry is not None
        out.append(
            ev.ResultCorrected(
                corrects_event_id=entry.event_id,
                game_id=game.game_id,
                result="0-0",
                termination="forfeit",
                reason=f"both players forfeit the game: {proposed.rule}"[:4000],
            )
        )
    return out


def _removal(proposed: ev.SanctionIssued, state: TournamentState) -> list[ev.Event]:
    """LGC Sanctions "Other sanctions": "removal from rounds or removal from the tournament".
    Removal from a round not yet paired: the player is not paired in it (Go: a RoundSkipped
    naming the sanction); removal from the tournament: a PlayerWithdrew from `round` (none:
    at once), so no later round pairs them."""
    player = state.players[proposed.player_id]
    if player.withdrawn:
        raise Rejected("player.withdrawn", "payload.player_id", f"{player.player_id} withdrew")
    reason = f"sanction: {proposed.rule}" + (f": {proposed.text}" if proposed.text else "")
    if proposed.level == "expulsion":
        withdrawn = ev.PlayerWithdrew(
            player_id=proposed.player_id, from_round=proposed.round, reason=reason[:2000]
        )
        return [proposed, withdrawn]
    if proposed.round is None:
        raise Rejected(
            "sanction.no_round", "payload.round", "a removal from a round names the round"
        )
    not_paired_in(
        state, proposed.round, proposed.player_id, "forfeit the game instead (level game_forfeit)"
    )
    if state.game_kind != "go":
        return [proposed]  # chess: recorded; the arbiter pairs the round without them
    skipped = ev.RoundSkipped(
        player_id=proposed.player_id,
        round=proposed.round,
        notice="exceptional",
        reason=reason[:2000],
    )
    if (proposed.round, proposed.player_id) in state.skipped:
        return [proposed]
    return [proposed, skipped]


def _forfeited_by_the_other(game: GameState, player_id: str) -> bool:
    """The game's result in force is a forfeit loss of the other player (so this player's
    forfeit makes it a double forfeit)."""
    entry = game.result
    if entry is None or entry.termination != "forfeit":
        return False
    loser_is_white = entry.result == "0-1"
    other_lost = (game.white if loser_is_white else game.black) != player_id
    return entry.result in ("1-0", "0-1") and other_lost


@rule(ev.AppealFiled)
def _(proposed: ev.AppealFiled, state: TournamentState) -> list[ev.Event]:
    if proposed.appeal_id in state.appeals:
        raise Rejected("appeal.duplicate", "payload.appeal_id", f"{proposed.appeal_id!r} exists")
    known_player(state, proposed.filed_by, "payload.filed_by")
    if proposed.against_event_id is not None and proposed.against_event_id not in state.events:
        raise Rejected(
            "appeal.target_missing", "payload.against_event_id", "no such event in this tournament"
        )
    if proposed.against_event_id is not None:
        for appeal_id, (_, _, against) in state.appeal_parties.items():
            if against == proposed.against_event_id and state.appeals.get(appeal_id):
                # LGC Arbitration: "The appeals committee decision is final."
                raise Rejected(
                    "appeal.final",
                    "payload.against_event_id",
                    f"appeal {appeal_id!r} against that event was decided: the appeals "
                    "committee's decision is final (LGC Arbitration)",
                )
    if proposed.game_id is not None:
        game = find_game(state, proposed.game_id)
        player_in_game(game, proposed.filed_by)
        if game.status == "ended" and proposed.filed_by not in game.protests:
            raise Rejected(
                "appeal.no_protest",
                "payload.filed_by",
                f"{proposed.filed_by} did not state that {game.game_id} was played under "
                'protest before its result: LGC Arbitration "Failure to do so means that the '
                'player gives up the right to appeal"',
            )
    return [proposed]


@rule(ev.AppealDecided)
def _(proposed: ev.AppealDecided, state: TournamentState) -> list[ev.Event]:
    if proposed.appeal_id not in state.appeals:
        raise Rejected("appeal.unknown", "payload.appeal_id", f"no appeal {proposed.appeal_id!r}")
    if state.appeals[proposed.appeal_id]:
        # LGC Arbitration: "The appeals committee decision is final."
        raise Rejected("appeal.already_decided", "payload.appeal_id", "the decision is final")
    if state.committee is None:
        return [proposed]  # no committee on record (e.g. chess): the decision as entered
    if proposed.decision == "adjourned":
        if proposed.committee:
            raise Rejected(
                "appeal.adjourned_with_committee",
                "payload.committee",
                "an adjournment is for when no committee can be formed (LGC Appeals committee)",
            )
        return [proposed]
    members, reserves = state.committee
    filed_by, game_id, _ = state.appeal_parties[proposed.appeal_id]
    parties = {filed_by}
    if game_id is not None and game_id in state.games:
        parties |= {state.games[game_id].white, state.games[game_id].black}
    for i, person in enumerate(proposed.committee):
        if person in parties:
            # LGC Arbitration: "If a dispute involves a player who is also a member of the
            # appeals committee, then that player must not participate in the resolution".
            raise Rejected(
                "appeal.member_is_party",
                f"payload.committee[{i}]",
                f"{person} is party to the dispute and must not participate in its resolution",
            )
        if person not in members and person not in reserves and person not in proposed.co_opted:
            raise Rejected(
                "appeal.not_a_member",
                f"payload.committee[{i}]",
                f"{person} is neither a member, a reserve nor a co-opted player",
            )
    for i, pid in enumerate(proposed.co_opted):
        known_player(state, pid, f"payload.co_opted[{i}]")
        if pid not in proposed.committee:
            raise Rejected(
                "appeal.co_opted_absent", f"payload.co_opted[{i}]", f"{pid} is not on the committee"
            )
    if len(set(proposed.committee)) != len(proposed.committee):
        raise Rejected("appeal.member_twice", "payload.committee", "a person sits once")
    if len(proposed.committee) < 3 and not proposed.quorum_note.strip():
        raise Rejected(
            "appeal.committee_short",
            "payload.committee",
            'the committee is three persons: "If there are fewer than three at the time of a '
            'dispute, then other players must be co-opted"; fewer only when it cannot meet in '
            "time before the next round (then state it in quorum_note)",
        )
    if len(proposed.committee) > 3:
        raise Rejected("appeal.committee_large", "payload.committee", "three persons decide")
    return [proposed]


@rule(ev.AppealsCommitteeFormed)
def _(proposed: ev.AppealsCommitteeFormed, state: TournamentState) -> list[ev.Event]:
    """LGC Arbitration "Appeals committee": "formed of three persons before the start of the
    first round and includes reserves"."""
    if state.committee is not None:
        raise Rejected("committee.exists", "type", "the appeals committee is already formed")
    started = [g.game_id for g in state.games.values() if g.status != "scheduled"]
    if started:
        raise Rejected(
            "committee.after_start",
            "type",
            f"the committee is formed before the first round starts ({started[0]} has started)",
        )
    people = [*proposed.members, *proposed.reserves]
    if len(set(people)) != len(people):
        raise Rejected("committee.repeated", "payload.members", "a person is named twice")
    return [proposed]


@rule(ev.ProtestStated)
def _(proposed: ev.ProtestStated, state: TournamentState) -> list[ev.Event]:
    """LGC Arbitration "Player responsibility": the protest is stated before the result is
    signed (recorded)."""
    game = game_in_progress(state, proposed.game_id)
    player_in_game(game, proposed.player_id)
    if proposed.player_id in game.protests:
        raise Rejected("protest.duplicate", "payload.player_id", "already stated")
    return [proposed]


#: TCEC Swiss 7.c (= Cup 7.c, FRD 7.c): "Whether a game is immediately restarted or played
#: rather at the end of the round will be decided by the responsible TCEC staff."
RESTART_WHEN = ("now", "end_of_round")


def _restart_ruling(proposed: ev.RulingIssued, state: TournamentState) -> None:
    """A staff ruling `subject="restart"`, `decision={"game_id": G, "restart_at": "now" |
    "end_of_round"}` on a game a server interruption left to restart (7.b.v)."""
    gid = proposed.decision.get("game_id")
    when = proposed.decision.get("restart_at")
    game = state.games.get(gid) if isinstance(gid, str) else None
    if game is None:
        raise Rejected("ruling.unknown_game", "payload.decision.game_id", f"no game {gid!r}")
    if not game.restart_pending:
        raise Rejected(
            "ruling.no_restart",
            "payload.decision.game_id",
            f"{gid} has no restart adjudication (TCEC Swiss 7.b.v) waiting to be played",
        )
    if when not in RESTART_WHEN:
        raise Rejected(
            "ruling.restart_when",
            "payload.decision.restart_at",
            f"{when!r}: 'now' or 'end_of_round' (TCEC Swiss 7.c: decided by the staff)",
        )


@rule(ev.RulingIssued)
def _(proposed: ev.RulingIssued, state: TournamentState) -> list[ev.Event]:
    if proposed.ruling_id in state.rulings:
        raise Rejected("ruling.duplicate", "payload.ruling_id", f"{proposed.ruling_id!r} exists")
    # The subjects the projections read are a closed set (projections/rulings.py): a decision
    # no projection would read is refused, a ruling without one is a note with a free subject.
    rulings.check(proposed.subject, proposed.decision, state.kind)
    if KEY in proposed.decision:
        # TCEC Swiss 7.d: the ruling must cite the article and name a round in force.
        target = invalidated_round(proposed)
        ref = state.events.get(target) if target is not None else None
        if ref is None or ref.type != "RoundScheduled" or target in state.retracted:
            raise Rejected(
                "ruling.invalid_round",
                f"payload.decision.{KEY}",
                f"a ruling with {KEY} cites {RULE!r} in `rule` and names the event id of a "
                "RoundScheduled in force",
            )
        if state.paused:
            raise Rejected(
                "ruling.tournament_paused",
                f"payload.decision.{KEY}",
                f"{RULE} invalidates pairings made while the tournament was NOT paused",
            )
    if proposed.subject == "restart":
        _restart_ruling(proposed, state)
    if proposed.subject == "tiebreak_edition":  # projections/tiebreaks/editions.py
        edition = proposed.decision.get("edition")
        if edition not in ("fide-2024", "fide-2026"):
            raise Rejected(
                "ruling.unknown_edition",
                "payload.decision.edition",
                f"{edition!r}: the C.07 edition is 'fide-2024' or 'fide-2026'",
            )
    # A correction to the prize or points table is a ruling (projections/prizes/corrections):
    # refuse one the prize projection could not read, rather than let it be skipped later.
    for key, adapter in (("prize_table", _PRIZE_TABLE), ("points_table", _POINTS_TABLE)):
        if proposed.subject == key:
            if key not in proposed.decision:
                raise Rejected("ruling.missing_table", "payload.decision", f"give {{{key!r}: ...}}")
            try:
                adapter.validate_python(proposed.decision[key])
            except ValidationError as exc:
                # Every mistake of the table at once, as `arbiter prize-table` reports a file.
                found = []
                for err in exc.errors():
                    loc = ".".join(str(x) for x in err["loc"])
                    where = f"payload.decision.{key}" + (f".{loc}" if loc else "")
                    found.append(Problem("ruling.invalid_table", where, err["msg"]))
                raise Rejected.of(found) from None
    order = proposed.decision.get("tiebreak_order")
    if order is not None and (
        not isinstance(order, list) or any(p not in state.players for p in order)
    ):
        raise Rejected(
            "ruling.invalid_order",
            "payload.decision.tiebreak_order",
            "a list of registered player ids, best first",
        )
    return [proposed]


_PRIZE_TABLE: TypeAdapter[ev.PrizeTable] = TypeAdapter(ev.PrizeTable)
_POINTS_TABLE: TypeAdapter[list[Decimal]] = TypeAdapter(list[Annotated[Decimal, Field(ge=0)]])


@rule(ev.TournamentPaused)
def _(proposed: ev.TournamentPaused, state: TournamentState) -> list[ev.Event]:
    if state.paused:
        raise Rejected("tournament.already_paused", "type", "the tournament is already paused")
    return [proposed]


@rule(ev.BroadcastDelaySet)
def _(proposed: ev.BroadcastDelaySet, state: TournamentState) -> list[ev.Event]:
    """The broadcast delay (issue 25: broadcaster tokens see the projections as of that many
    seconds ago): a change, not the delay already in force."""
    if proposed.seconds == state.broadcast_delay.seconds:
        raise Rejected(
            "delay.unchanged",
            "payload.seconds",
            f"the broadcast delay is already {proposed.seconds} s",
        )
    return [proposed]


@rule(ev.TournamentResumed)
def _(proposed: ev.TournamentResumed, state: TournamentState) -> list[ev.Event]:
    if not state.paused:
        raise Rejected("tournament.not_paused", "type", "the tournament is not paused")
    return [proposed]
