"""The decider's rules for the pairing constraints an arbiter sets before pairing (issue 26):
prohibited pairings (`PairingsProhibited`, TRF26 record 260) and accelerated rounds
(`AccelerationSet`, FIDE C.04.5.1 Baku acceleration or any virtual points, TRF26 record 250).

Both are read by the Dutch system only (projections/pairing/dutch.py hands them to gacrux, its
`prohibited` and `accelerated` values), so a tournament paired otherwise refuses them
(`*.not_read_by_system`) rather than storing a constraint that nothing honours.

Refused, naming the field:

* `player.unknown`: a player not registered;
* `prohibition.duplicate_player`: a player named twice in one prohibition;
* `prohibition.rounds_reversed` / `acceleration.rounds_reversed`: a last round before the first;
* `prohibition.round_beyond` / `acceleration.round_beyond`: a round after the tournament's last;
* `prohibition.unchanged`: the same players and rounds already prohibited;
* `acceleration.duplicate`: a player given virtual points twice for one round;
* `acceleration.baku_scoring`: Baku acceleration under other than 1-½-0 scoring (C.04.5.1:
  "applicable in any tournament where the standard scoring point system ... is used");
* `acceleration.unchanged`: the acceleration already in force.
"""

from __future__ import annotations

from events_schema import events as ev
from projections.outcome import scoring_of
from projections.pairing.names import system_name
from projections.rejection import Rejected
from projections.tournament.rules.lookups import known_player
from projections.tournament.rules.registry import rule
from projections.tournament.state import TournamentState

#: The pairing systems that read each constraint (projections/pairing/dutch.py; Galway pairs
#: its sections through the same `DutchRound`, with its own pairing bonus instead of an
#: acceleration).
READ_BY = {"prohibition": ("dutch", "galway"), "acceleration": ("dutch",)}


def _read_by_system(state: TournamentState, what: str) -> None:
    pairing = system_name(state.created) if state.created is not None else None
    systems = READ_BY[what]
    if pairing not in systems:
        raise Rejected(
            f"{what}.not_read_by_system",
            "type",
            f"the tournament is paired by {pairing or 'hand'}; only {', '.join(systems)} "
            "read this constraint",
        )


def _rounds(state: TournamentState, what: str, first: int, last: int | None, field: str) -> None:
    if last is not None and last < first:
        raise Rejected(
            f"{what}.rounds_reversed", f"{field}.last_round", f"round {last} is before {first}"
        )
    rounds = state.created.rounds if state.created is not None else None
    top = last if last is not None else first
    if rounds is not None and top > rounds:
        raise Rejected(
            f"{what}.round_beyond",
            f"{field}.last_round" if last is not None else f"{field}.first_round",
            f"the tournament has {rounds} rounds; round {top} is not one of them",
        )


@rule(ev.PairingsProhibited)
def _(proposed: ev.PairingsProhibited, state: TournamentState) -> list[ev.Event]:
    """TRF26 record 260: no two of the players meet in the rounds given."""
    _read_by_system(state, "prohibition")
    seen: set[str] = set()
    for i, pid in enumerate(proposed.players):
        known_player(state, pid, f"payload.players[{i}]")
        if pid in seen:
            raise Rejected(
                "prohibition.duplicate_player",
                f"payload.players[{i}]",
                f"{pid!r} is named twice",
            )
        seen.add(pid)
    _rounds(state, "prohibition", proposed.first_round, proposed.last_round, "payload")
    for other in state.prohibitions.values():
        if (
            set(other.players) == seen
            and other.first_round == proposed.first_round
            and other.last_round == proposed.last_round
        ):
            raise Rejected(
                "prohibition.unchanged",
                "payload.players",
                "these players are already prohibited from meeting in those rounds",
            )
    return [proposed]


@rule(ev.AccelerationSet)
def _(proposed: ev.AccelerationSet, state: TournamentState) -> list[ev.Event]:
    """TRF26 record 250 / FIDE C.04.5.1: virtual points per player and round."""
    _read_by_system(state, "acceleration")
    scoring = scoring_of(state.created) if state.created is not None else ev.Scoring()
    if proposed.method == "baku" and (scoring.win, scoring.draw, scoring.loss) != (2, 1, 0):
        raise Rejected(
            "acceleration.baku_scoring",
            "payload.method",
            "FIDE C.04.5.1: the Baku acceleration needs 1-½-0 scoring",
        )
    taken: dict[tuple[str, int], int] = {}
    for i, v in enumerate(proposed.values):
        field = f"payload.values[{i}]"
        known_player(state, v.player_id, f"{field}.player_id")
        _rounds(state, "acceleration", v.first_round, v.last_round, field)
        for r in range(v.first_round, v.last_round + 1):
            if (v.player_id, r) in taken:
                raise Rejected(
                    "acceleration.duplicate",
                    field,
                    f"{v.player_id!r} already has virtual points for round {r} "
                    f"(values[{taken[(v.player_id, r)]}])",
                )
            taken[(v.player_id, r)] = i
    current = list(state.accelerations.values())
    if current and (current[-1].method, current[-1].values) == (proposed.method, proposed.values):
        raise Rejected("acceleration.unchanged", "payload.values", "that acceleration is in force")
    if not current and not proposed.values:
        raise Rejected("acceleration.unchanged", "payload.values", "no acceleration is in force")
    return [proposed]


@rule(ev.TrfRecordsKept)
def _(proposed: ev.TrfRecordsKept, state: TournamentState) -> list[ev.Event]:
    """TRF26 records an import keeps verbatim (written back by the TRF26 export): accepted as
    proposed (the event's schema bounds the lines: one record each, no line break)."""
    return [proposed]
