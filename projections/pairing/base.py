"""The pairing interface: the tournament's state in, the lots it needs and the round out.

A pairing system is a pure function `propose(ctx) -> Proposal`. It never draws a lot itself:
when the rules need one (pairing numbers, engine order, a bracket position) and `ctx.lots`
does not hold it yet, it returns the `LotRequest`s; the edge (`services/commands/pairing.py`) draws
them with `services/commands/lots.py`, adds them to the context and asks again. The lots and the
`RoundScheduled` are then appended together, the lots first, through the normal command
path, so an auditor replaying the log sees every random choice before the pairing it fed.

`context(state, stage)` reads everything a system may need from the standings fold:
the players in registration order, who is still active for the round to pair, and each
player's history in the stage (opponents, colours, points, byes, forfeits), from the results
in force. Systems must read only the context, so that a replay pairs the same way.

Go (LGC): the context also holds each player's `go_rank` and the rounds players skip
(`RoundSkipped` in force, `PairingContext.skipped` by round and `PlayerHistory.skipped`); a
skipped round before the round to pair, in which the player has no game or bye, is an
"absent" entry of their history (0 points under the tournament's scoring; the McMahon score
counts its absence points, `projections/tiebreaks/mcmahon.py`). A system that proposes
handicaps (McMahon) returns them in `Proposal.handicaps`, by game id.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from events_schema import events as ev
from projections.outcome import scoring_of
from projections.standings.crosstable import Crosstable, Entry, build
from projections.standings.state import PlayerInfo, StandingsState

LotPurpose = Literal[
    "pairing_numbers", "bye", "colours", "engine_order", "bracket", "coin_toss", "other"
]


class PairingRefused(Exception):
    """The round cannot be paired now; `rule` and `field` name why (as `Rejected` does)."""

    def __init__(self, rule: str, field: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.field = field
        self.message = message


@dataclass(frozen=True)
class LotRequest:
    """A lot the rules require before the round can be paired."""

    purpose: LotPurpose
    subject: str  # the LotDrawn subject the system will look the outcome up by
    candidates: tuple[str, ...]
    pick: int | None = None  # None: an ordering of all candidates
    rule: str = ""  # the article that requires it


@dataclass(frozen=True)
class RoundEntry:
    """One round of one player's history in the stage (a scheduled round with no result yet
    has `pending=True`)."""

    round: int
    opponent: str | None  # None: a bye or an absence
    colour: Literal["white", "black"] | None
    points: int  # half-points, under the tournament's scoring
    kind: str  # crosstable EntryKind, or "pending", or "absent"
    pending: bool = False


@dataclass(frozen=True)
class PlayerHistory:
    player_id: str
    name: str
    rating: int | None
    seed: int | None
    registered_order: int  # 0-based position in registration order
    withdrawn_from: int | None  # the first round they miss (None: active), 1 if from the start
    rounds: tuple[RoundEntry, ...] = ()
    title: str | None = None  # FIDE title as registered
    go_rank: str | None = None  # Go rank as registered ("5k", "2d")
    skipped: frozenset[int] = frozenset()  # rounds the player skips (LGC RoundSkipped)

    @property
    def points(self) -> int:
        return sum(r.points for r in self.rounds if not r.pending)

    @property
    def opponents(self) -> frozenset[str]:
        return frozenset(r.opponent for r in self.rounds if r.opponent is not None)

    @property
    def colours(self) -> tuple[Literal["white", "black"] | None, ...]:
        return tuple(r.colour for r in self.rounds)

    @property
    def had_bye(self) -> bool:
        """A pairing-allocated bye or a forfeit win counts (C.04.1.d: a player who has
        already received a pairing-allocated bye, or has already scored a (forfeit) win due
        to an opponent not appearing in time, shall not receive the pairing-allocated bye)."""
        return any(r.kind in ("bye", "forfeit_win") for r in self.rounds)

    def active_in(self, rnd: int) -> bool:
        return self.withdrawn_from is None or self.withdrawn_from > rnd


@dataclass(frozen=True)
class PairingContext:
    created: ev.TournamentCreated
    stage: str
    round: int  # the round to pair (1-based)
    players: Mapping[str, PlayerHistory]  # registration order
    scoring: ev.Scoring
    scheduled: Mapping[int, ev.RoundScheduled] = field(default_factory=dict)
    lots: Mapping[str, ev.LotDrawn] = field(default_factory=dict)  # in force, by subject
    rulings: tuple[ev.RulingIssued, ...] = ()
    crosstable: Crosstable | None = None
    # LGC: round -> the players skipping it (RoundSkipped in force, any round, paired or not)
    skipped: Mapping[int, frozenset[str]] = field(default_factory=dict)
    # Pairing constraints in force (projections/tournament/rules/constraints.py): prohibited
    # pairings (TRF26 record 260), and the acceleration (TRF26 record 250; None: none).
    prohibitions: tuple[ev.PairingsProhibited, ...] = ()
    acceleration: ev.AccelerationSet | None = None

    @property
    def active(self) -> tuple[str, ...]:
        """Players who take part in the round to pair, in registration order."""
        return tuple(p for p, h in self.players.items() if h.active_in(self.round))

    def lot(self, subject: str) -> ev.LotDrawn | None:
        return self.lots.get(subject)

    def with_lots(self, lots: Mapping[str, ev.LotDrawn]) -> PairingContext:
        return replace(self, lots={**self.lots, **lots})

    def ruling(self, subject: str) -> ev.RulingIssued | None:
        found = None
        for r in self.rulings:
            if r.subject == subject:
                found = r
        return found


@dataclass(frozen=True)
class Proposal:
    """What a system answers: lots to draw first, or the round (and why, cited)."""

    lots: tuple[LotRequest, ...] = ()
    round: ev.RoundScheduled | None = None
    notes: tuple[str, ...] = ()
    # Go: handicap stones per game id of `round` (the weaker player Black), as its pairings'
    # `handicap`; games not listed are even.
    handicaps: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Preview:
    """What a system shows of the rounds to come (`arbiter schedule`, after the rounds
    scheduled so far): the rounds it already knows (a round robin's table), other bodies by
    key (a cup's "bracket"), and notes (why nothing is planned yet)."""

    rounds: tuple[ev.RoundScheduled, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class PairingSystem:
    """A pairing system, registered once in `projections/pairing/systems.py` `SYSTEMS`: each
    system module defines its own (`SYSTEM`). Everything that differs from system to system
    is here, so no other module switches on a system's name.

    - `name`: the `TournamentCreated.pairing` value (`events_schema.events.PairingName`);
    - `propose`: the next round or the lots to draw first (the module docstring above);
    - `pairing_numbers`: the players in the order of the system's own pairing numbers (the TRF
      start ranks an outside checker re-pairs by, `services/interchange/trf/write.py`); None:
      no fixed numbers, registration order;
    - `preview`: the rounds to come as `arbiter schedule` shows them; None: nothing beyond the
      rounds scheduled so far;
    - `colour_lot`: the subject of the stage's initial-colour lot (by stage), which a TRF
      states (XXC, record 152); None: the system draws no initial colour."""

    name: str
    rule: str  # the rules the system implements
    propose: Callable[[PairingContext], Proposal]
    pairing_numbers: Callable[[PairingContext], Sequence[str]] | None = None
    preview: Callable[[PairingContext], Preview] | None = None
    colour_lot: Callable[[str], str] | None = None


def ranked_by_seed(ctx: PairingContext) -> list[str]:
    """All players by seed, those without one after, in registration order (TCEC Swiss
    1.c-1.d, Cup 1.d: the organisers' seeding)."""
    return sorted(
        ctx.players,
        key=lambda p: (
            ctx.players[p].seed is None,
            ctx.players[p].seed or 0,
            ctx.players[p].registered_order,
        ),
    )


def _entry(e: Entry) -> RoundEntry:
    return RoundEntry(e.round, e.opponent, e.colour, e.points, e.kind)


def context(state: StandingsState, stage: str = "main", rnd: int | None = None) -> PairingContext:
    """The context for pairing round `rnd` of `stage` (by default the next unscheduled one)."""
    created = state.created
    if created is None:
        raise PairingRefused("tournament.not_created", "type", "the tournament does not exist")
    ct = build(state, stage)
    scheduled: dict[int, ev.RoundScheduled] = {}
    for (st, r), eid in state.round_keys.items():
        if st != stage:
            continue
        game_ids, byes = state.rounds[eid]
        games = [state.games[g] for g in game_ids]
        scheduled[r] = ev.RoundScheduled(
            round=r,
            stage=st,
            cycle=games[0].cycle if games else None,
            pairings=[
                ev.Pairing(
                    game_id=g.game_id,
                    white=g.white,
                    black=g.black,
                    opening=g.opening,
                    pair_id=g.pair_id,
                )
                for g in games
            ],
            byes=[ev.Bye(player_id=b.player_id, kind=b.kind) for b in byes],
        )
    next_round = rnd if rnd is not None else (max(scheduled) + 1 if scheduled else 1)
    withdrawn = {pid: r for pid, r in state.withdrawals.values()}
    skips = state.skips()
    players: dict[str, PlayerHistory] = {}
    for i, (pid, info) in enumerate(state.players.items()):
        rounds = {e.round: _entry(e) for e in ct.entries.get(pid, ())}
        for r, sched in scheduled.items():
            if r in rounds:
                continue
            for p in sched.pairings:
                if pid in (p.white, p.black):
                    opp = p.black if pid == p.white else p.white
                    colour: Literal["white", "black"] = "white" if pid == p.white else "black"
                    rounds[r] = RoundEntry(r, opp, colour, 0, "pending", pending=True)
        for r in skips.get(pid, frozenset()):
            if r < next_round and r not in rounds:
                rounds[r] = RoundEntry(r, None, None, 0, "absent")
        if pid in withdrawn:
            w = withdrawn[pid]
            wfrom: int | None = w if w is not None else next_round
        else:
            wfrom = None
        players[pid] = _history(
            info, i, wfrom, tuple(rounds[r] for r in sorted(rounds)), skips.get(pid, frozenset())
        )
    lots: dict[str, ev.LotDrawn] = {}
    for lot in state.lots.values():
        lots[lot.subject] = lot  # the latest in force for a subject
    by_round: dict[int, set[str]] = {}
    for pid, rs in skips.items():
        for r in rs:
            by_round.setdefault(r, set()).add(pid)
    return PairingContext(
        created=created,
        stage=stage,
        round=next_round,
        players=players,
        scoring=scoring_of(created),
        scheduled=dict(sorted(scheduled.items())),
        lots=lots,
        rulings=tuple(state.rulings.values()),
        crosstable=ct,
        skipped={r: frozenset(ps) for r, ps in sorted(by_round.items())},
        prohibitions=tuple(state.prohibitions.values()),
        acceleration=list(state.accelerations.values())[-1] if state.accelerations else None,
    )


def _history(
    info: PlayerInfo,
    order: int,
    withdrawn_from: int | None,
    rounds: tuple[RoundEntry, ...],
    skipped: frozenset[int] = frozenset(),
) -> PlayerHistory:
    return PlayerHistory(
        player_id=info.player_id,
        name=info.name,
        rating=info.rating,
        seed=info.seed,
        registered_order=order,
        withdrawn_from=withdrawn_from,
        rounds=rounds,
        title=info.title,
        go_rank=info.go_rank,
        skipped=skipped,
    )


def require_finished(ctx: PairingContext) -> None:
    """A Swiss round is paired from the results of every earlier round (C.04.1: pairings
    depend on the scores), so every game of the stage must have a result in force."""
    waiting = [
        (r.round, h.player_id, r.opponent)
        for h in ctx.players.values()
        for r in h.rounds
        if r.pending and r.colour == "white"
    ]
    if waiting:
        rnd, white, black = min(waiting)

        def name(pid: str | None) -> str:
            h = ctx.players.get(pid) if pid is not None else None
            return h.name if h is not None else str(pid)

        raise PairingRefused(
            "pairing.round_unfinished",
            "round",
            f"round {rnd} has games without a result (e.g. {name(white)} – {name(black)}); "
            f"enter them before pairing round {ctx.round}",
        )
