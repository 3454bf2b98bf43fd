"""Round robins by the FIDE Berger tables: single, double and n-fold, human and engine.

`propose(ctx)` answers the next round's `RoundScheduled` (or the lot it needs first);
`schedule(ctx)` lists every round of the stage (the recorded ones as recorded, the rest as the
table prescribes) for `arbiter schedule`. Both are pure functions of the `PairingContext`.

Readings (each a named rule; the articles are quoted from the seeds in `shared/seeds/` and from
the FIDE Handbook):

- **Table.** FIDE Handbook C.05 Annex 1 (Berger tables, `projections/pairing/berger.py`).
  Pairing number i is the i-th entry of the lot's outcome.
- **Pairing numbers by lot.** Human events: `LotDrawn(purpose="pairing_numbers",
  subject="<stage>/pairing-numbers")` (GCT 2.3, 3.3, 4.7: "with the pairing numbers
  determined by lot"). TCEC presets (`rules_preset` starting with "tcec"):
  `LotDrawn(purpose="engine_order", subject="<stage>/engine-order")` (Leagues 2.6, 3.5, 4.6,
  5.6: "Engine order in cutechess at the start will be randomized"); the engine order is read
  as the Berger pairing numbers. The candidates are the players not withdrawn when the lot is
  asked for, in registration order; once drawn, the lot's outcome is the table: a player who
  withdraws later keeps their number, a player registered after it is refused
  (`pairing.player_not_numbered`: retract and redraw the lot before round 1).
- **Cycles.** `TournamentCreated.cycles` counts single round robins (2: a double round robin;
  TCEC "2x double round robin", L2 3.4 / L1 4.5, is cycles=4, "4DRR" cycles=8). Even cycles
  repeat the table with colours reversed (C.05 Annex 1; FRD 2.b "with reverse games of every
  opening"); an odd cycle after an even one starts the table again. `RoundScheduled.cycle`
  is always set. `TournamentCreated.rounds`, when given, caps the rounds paired (a note says
  when it differs from cycles × (N - 1)).
- **Where the reverse game goes** (`Reverse`):
  - "cycle": the reverse game is in the next cycle, same table round (C.05 Annex 1's double
    round robin; TCEC FRD 2.b "This format will proceed by round robin, so the reverse games
    will not follow immediately, except in the Final"). Default for human events and for the
    `tcec-frd` preset. Human events also switch the last two rounds of every cycle followed
    by another (C.05 Annex 1's recommendation against three same colours in a row; see
    `berger.round_order`). TCEC keeps cutechess's plain order.
  - "pair": the reverse game is the next round: table round k of a double cycle becomes rounds
    2k-1 (the cycle 2d-1 game) and 2k (its reverse, cycle 2d). A round holds each player once
    (the decider's `pairing.player_twice`), so a game pair spans two consecutive rounds.
    Default for the other TCEC presets: games are played one at a time (Leagues 1.5), "a new
    opening should thus occur every other game, then the reverse game is played" (Cup 4.c),
    and FRD 2.b names the Final as the exception where reverses follow immediately. With an
    odd number of cycles the last one is single games.
  With no explicit choice the mode follows the rounds already recorded when they agree with
  one mode and not the other (so a stage started in one mode goes on in it).
- **Game pairs (TCEC presets).** The two games of a pair share `pair_id` "<stage>-p<k>" and the
  opening placeholder "book exit <k>", k counting pairs in playing order (the book is used
  sequentially: Leagues 2.5 "sequential varied depth ... opening book"; Cup 4.c "two games in a
  row from the same starting book position"); the book team's actual exit replaces it when
  known. The lower seed (larger `PlayerRegistered.seed`) has White in the first game of a pair
  when both engines are seeded (Cup 3.b "The lower seeded engine will start playing with the
  white pieces"; FRD 2.b "the lowest seeded engine will always start a pair of games with the
  white pieces"; Leagues 7.3, the Premier Division winner Black first); otherwise the table's
  colours. Human events get no pair ids or openings.
- **Odd field.** The player drawn against the bye number (N = n + 1) sits the round out: no
  game and no `Bye` entry. A Berger "bye" is a free round, neither a Swiss pairing-allocated
  bye (C.04, scored `Scoring.bye`) nor a zero-point bye ("Z", which C.07 Art. 16.1 counts as a
  requested bye, a voluntary unplayed round); with no entry it scores nothing and no tiebreak
  sees it (as in `projections/playoffs/tcec_conditional.py`).
- **Withdrawals.** A withdrawn player keeps their number and nobody is re-paired (FIDE
  Tournament Rules, Handbook C.06 art. 5.4 (2011 text): a round-robin withdrawal leaves the
  unplayed games marked "-" for the player and "+" for the opponents). Their games in rounds not yet
  scheduled are left out of the `RoundScheduled`, because the decider refuses to pair a
  withdrawn player (`player.withdrawn`, whatever `from_round` says); the opponent sits the
  round out and a note names the game. Recording those "+"/"-" is the organiser's (rulings).
- **Ids.** Game ids "<stage>-r<round>-b<board>", the board counted in table order without the
  bye's board (so an odd field's round starts at board 1); the stage name must keep them
  valid `GameId`s.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from events_schema import events as ev
from projections.mentions import who
from projections.pairing.base import (
    LotPurpose,
    LotRequest,
    PairingContext,
    PairingRefused,
    PairingSystem,
    Preview,
    Proposal,
)
from projections.pairing.berger import (
    berger_round,
    bye_number,
    reversed_round,
    round_order,
    rounds_per_cycle,
    table_size,
)

name = "berger"

Reverse = Literal["pair", "cycle"]

_GAME_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$")


@dataclass(frozen=True)
class RoundRobinRules:
    """How a stage's round robin is laid out, from the tournament's preset (and `reverse`)."""

    engines: bool  # a TCEC preset: engine order, game pairs, lower seed White first
    reverse: Reverse
    switch_last_two: bool  # C.05 Annex 1 recommendation (human events, "cycle" mode)
    lot_purpose: LotPurpose
    lot_subject: str
    lot_rule: str


@dataclass(frozen=True)
class PlannedGame:
    board: int  # 1-based, in table order, the bye's board left out
    white: int  # pairing numbers, the table's colours (before the lower-seed rule)
    black: int
    pair: int | None = None  # the game pair it belongs to (1-based, in playing order)
    first: bool = True  # the first game of its pair


@dataclass(frozen=True)
class PlannedRound:
    round: int
    cycle: int
    table_round: int
    reversed: bool  # colours reversed from the table
    games: tuple[PlannedGame, ...]
    free: int | None = None  # the pairing number drawn against the bye number


def is_engine_preset(rules_preset: str | None) -> bool:
    return rules_preset is not None and rules_preset.startswith("tcec")


def default_reverse(rules_preset: str | None) -> Reverse:
    """FRD 2.b: reverse games "will not follow immediately, except in the Final" (`tcec-frd`);
    other TCEC events play a game's reverse next; human events reverse by cycle."""
    if not is_engine_preset(rules_preset):
        return "cycle"
    assert rules_preset is not None
    if rules_preset.startswith("tcec-frd") and rules_preset != "tcec-frd-final":
        return "cycle"
    return "pair"


def rules_for(
    created: ev.TournamentCreated, stage: str, reverse: Reverse | None = None
) -> RoundRobinRules:
    engines = is_engine_preset(created.rules_preset)
    mode = reverse if reverse is not None else default_reverse(created.rules_preset)
    if engines:
        return RoundRobinRules(
            engines=True,
            reverse=mode,
            switch_last_two=False,
            lot_purpose="engine_order",
            lot_subject=f"{stage}/engine-order",
            lot_rule="TCEC Leagues 2.6/3.5/4.6/5.6: engine order in cutechess at the start "
            "will be randomized",
        )
    return RoundRobinRules(
        engines=False,
        reverse=mode,
        switch_last_two=mode == "cycle",
        lot_purpose="pairing_numbers",
        lot_subject=f"{stage}/pairing-numbers",
        lot_rule="FIDE C.05 Annex 1 (Berger tables); GCT 2.3: pairing numbers determined by lot",
    )


# --- the plan: pairing numbers only ----------------------------------------------------------


def plan(n: int, cycles: int, reverse: Reverse, *, switch_last_two: bool) -> list[PlannedRound]:
    """Every round of an n-player, `cycles`-cycle round robin, in pairing numbers."""
    if cycles < 1:
        raise ValueError("cycles must be at least 1")
    size = table_size(n)
    bye = bye_number(n)
    # (table round, cycle, reversed) in playing order
    slots: list[tuple[int, int, bool]] = []
    if reverse == "cycle":
        for c in range(1, cycles + 1):
            for tr in round_order(n, c, cycles, switch_last_two=switch_last_two):
                slots.append((tr, c, c % 2 == 0))
    else:
        for d in range(1, cycles // 2 + 1):
            for tr in range(1, size):
                slots.append((tr, 2 * d - 1, False))
                slots.append((tr, 2 * d, True))
        if cycles % 2:
            for tr in range(1, size):
                slots.append((tr, cycles, False))
    pair_of: dict[tuple[int, frozenset[int]], int] = {}
    out: list[PlannedRound] = []
    for i, (tr, cycle, rev) in enumerate(slots, start=1):
        table = berger_round(n, tr)
        pairs = reversed_round(table) if rev else table
        games: list[PlannedGame] = []
        free: int | None = None
        board = 0
        for w, b in pairs:
            if bye is not None and bye in (w, b):
                free = b if w == bye else w
                continue
            board += 1
            double = (cycle + 1) // 2
            paired = cycle % 2 == 0 or cycle < cycles  # an odd last cycle is single games
            pair: int | None = None
            if paired:
                key = (double, frozenset((w, b)))
                if key not in pair_of:
                    pair_of[key] = len(pair_of) + 1
                pair = pair_of[key]
            games.append(PlannedGame(board, w, b, pair, first=cycle % 2 == 1))
        out.append(PlannedRound(i, cycle, tr, rev, tuple(games), free))
    return out


# --- from the context ------------------------------------------------------------------------


def _numbered(ctx: PairingContext, rules: RoundRobinRules) -> tuple[str, ...] | LotRequest:
    """The players by pairing number (the lot's outcome), or the lot to draw."""
    lot = ctx.lot(rules.lot_subject)
    if lot is None:
        candidates = tuple(p for p, h in ctx.players.items() if h.withdrawn_from is None)
        if len(candidates) < 2:
            raise PairingRefused(
                "pairing.too_few_players",
                "players",
                f"a round robin needs at least 2 players, {len(candidates)} registered",
            )
        return LotRequest(rules.lot_purpose, rules.lot_subject, candidates, None, rules.lot_rule)
    order = tuple(lot.outcome)
    unknown = [p for p in order if p not in ctx.players]
    if unknown or len(set(order)) != len(order) or len(order) < 2:
        raise PairingRefused(
            "pairing.lot_mismatch",
            "lots",
            f"the lot {rules.lot_subject!r} does not order the registered players "
            f"(unknown: {unknown}, entries: {len(order)}, distinct: {len(set(order))}); "
            "retract it and draw again",
        )
    missing = [p for p, h in ctx.players.items() if h.withdrawn_from is None and p not in order]
    if missing:
        raise PairingRefused(
            "pairing.player_not_numbered",
            "players",
            f"{', '.join(missing)} registered after the lot {rules.lot_subject!r}: a round "
            "robin's table is fixed once drawn; retract the lot (or the registration) and "
            "draw again before round 1",
        )
    return order


def _last_round(ctx: PairingContext, n: int) -> tuple[int, str | None]:
    total = ctx.created.cycles * rounds_per_cycle(n)
    wanted = ctx.created.rounds
    if wanted is None or wanted == total:
        return total, None
    note = (
        f"TournamentCreated.rounds is {wanted}, the table has {ctx.created.cycles} × "
        f"{rounds_per_cycle(n)} = {total} rounds: {min(wanted, total)} are paired"
    )
    return min(wanted, total), note


def _game_id(stage: str, rnd: int, board: int) -> str:
    gid = f"{stage}-r{rnd}-b{board}"
    if not _GAME_ID.match(gid):
        raise PairingRefused(
            "pairing.game_id",
            "stage",
            f"the stage name {stage!r} does not make a valid game id ({gid!r}): use letters, "
            "digits, '.', '_', ':' or '-', and keep it short",
        )
    return gid


def _round_event(
    ctx: PairingContext,
    rules: RoundRobinRules,
    order: Sequence[str],
    planned: PlannedRound,
) -> tuple[ev.RoundScheduled, list[str]]:
    notes: list[str] = []
    n = len(order)
    colours = "colours reversed" if planned.reversed else "table colours"
    notes.append(
        f"round {planned.round}: FIDE C.05 Annex 1 Berger table for {table_size(n)}, "
        f"round {planned.table_round}, cycle {planned.cycle} ({colours})"
    )
    pairings: list[ev.Pairing] = []
    for g in planned.games:
        white, black = order[g.white - 1], order[g.black - 1]
        if rules.engines and g.pair is not None:
            white, black = _lower_seed_first(ctx, white, black, g.first)
        gid = _game_id(ctx.stage, planned.round, g.board)
        out = [p for p in (white, black) if _withdrawn(ctx, p)]
        if out:
            notes.append(
                f"{gid} {who(white)}–{who(black)} is not scheduled: {who(*out)} withdrew (FIDE "
                "Tournament Rules C.06 5.4: the game stays unplayed, nobody is re-paired)"
            )
            continue
        pairings.append(
            ev.Pairing(
                game_id=gid,
                white=white,
                black=black,
                board=g.board,
                pair_id=f"{ctx.stage}-p{g.pair}" if rules.engines and g.pair else None,
                opening=f"book exit {g.pair}" if rules.engines and g.pair else None,
            )
        )
    if planned.free is not None:
        notes.append(
            f"{who(order[planned.free - 1])} is free in round {planned.round} (odd field: drawn "
            f"against the bye number {n + 1}, C.05 Annex 1); no game, no points"
        )
    event = ev.RoundScheduled(
        round=planned.round, stage=ctx.stage, cycle=planned.cycle, pairings=pairings, byes=[]
    )
    return event, notes


def _lower_seed_first(ctx: PairingContext, white: str, black: str, first: bool) -> tuple[str, str]:
    """TCEC Cup 3.b / FRD 2.b: the lower seed has White in the first game of a pair; the
    table's colours when either engine is unseeded or they share a seed."""
    sw, sb = ctx.players[white].seed, ctx.players[black].seed
    if sw is None or sb is None or sw == sb:
        return white, black
    # (white, black) is the table's colour for this game; the starter is the lower seed.
    starter = white if sw > sb else black
    other = black if starter == white else white
    return (starter, other) if first else (other, starter)


def _planned(
    ctx: PairingContext, order: Sequence[str], reverse: Reverse | None
) -> tuple[RoundRobinRules, list[PlannedRound], list[str]]:
    """The rules and plan; with no explicit `reverse`, the mode the recorded rounds follow."""
    rules = rules_for(ctx.created, ctx.stage, reverse)
    notes: list[str] = []

    def build(r: RoundRobinRules) -> list[PlannedRound]:
        return plan(len(order), ctx.created.cycles, r.reverse, switch_last_two=r.switch_last_two)

    chosen = build(rules)
    if ctx.scheduled and not _agrees(ctx, rules, order, chosen):
        other_mode: Reverse = "pair" if rules.reverse == "cycle" else "cycle"
        other = rules_for(ctx.created, ctx.stage, other_mode)
        other_plan = build(other)
        if reverse is None and _agrees(ctx, other, order, other_plan):
            notes.append(
                f"the recorded rounds place reverse games by {other_mode!r}; continuing so"
            )
            return other, other_plan, notes
        notes.append(
            "the recorded rounds differ from the Berger table; the table is followed for the "
            "rounds still to schedule"
        )
    return rules, chosen, notes


def _agrees(
    ctx: PairingContext,
    rules: RoundRobinRules,
    order: Sequence[str],
    planned: Sequence[PlannedRound],
) -> bool:
    """Every recorded round holds the planned games (colours included); games of players who
    withdrew since are allowed in the record (they were paired before the withdrawal)."""
    for rnd, recorded in ctx.scheduled.items():
        if rnd > len(planned):
            return False
        expected, _ = _round_event(ctx, rules, order, planned[rnd - 1])
        want = {(p.white, p.black) for p in expected.pairings}
        got = {(p.white, p.black) for p in recorded.pairings}
        extra = {g for g in got - want if any(_withdrawn(ctx, p) for p in g)}
        if got - extra != want:
            return False
    return True


def _withdrawn(ctx: PairingContext, pid: str) -> bool:
    h = ctx.players.get(pid)
    return h is None or h.withdrawn_from is not None


def propose(ctx: PairingContext, *, reverse: Reverse | None = None) -> Proposal:
    """The next round (`ctx.round`) of the stage's round robin, or the pairing-number /
    engine-order lot to draw first."""
    rules = rules_for(ctx.created, ctx.stage, reverse)
    numbered = _numbered(ctx, rules)
    if isinstance(numbered, LotRequest):
        return Proposal(lots=(numbered,), notes=(f"{numbered.rule}: draw {numbered.subject}",))
    rules, planned, notes = _planned(ctx, numbered, reverse)
    last, rounds_note = _last_round(ctx, len(numbered))
    if rounds_note:
        notes.append(rounds_note)
    if ctx.round in ctx.scheduled:
        raise PairingRefused(
            "pairing.round_scheduled", "round", f"round {ctx.round} is already scheduled"
        )
    if ctx.round > last:
        raise PairingRefused(
            "pairing.round_robin_complete",
            "round",
            f"the round robin has {last} rounds; all are scheduled",
        )
    event, round_notes = _round_event(ctx, rules, numbered, planned[ctx.round - 1])
    return Proposal(round=event, notes=(*notes, *round_notes))


def schedule(ctx: PairingContext, *, reverse: Reverse | None = None) -> list[ev.RoundScheduled]:
    """Every round of the stage: the recorded ones as recorded, the others as the table
    prescribes them now (withdrawn players' games left out). Needs the lot drawn."""
    rules = rules_for(ctx.created, ctx.stage, reverse)
    numbered = _numbered(ctx, rules)
    if isinstance(numbered, LotRequest):
        raise PairingRefused(
            "pairing.lot_required",
            "lots",
            f"draw the lot {numbered.subject!r} ({numbered.purpose}) first: {numbered.rule}",
        )
    rules, planned, _ = _planned(ctx, numbered, reverse)
    last, _ = _last_round(ctx, len(numbered))
    out: list[ev.RoundScheduled] = []
    for p in planned[:last]:
        recorded = ctx.scheduled.get(p.round)
        out.append(recorded if recorded is not None else _round_event(ctx, rules, numbered, p)[0])
    return out


def pairing_numbers(ctx: PairingContext) -> tuple[str, ...]:
    """Pairing number i is the lot's i-th entry (C.05 Annex 1, the lot's outcome is the table;
    TCEC: the engine order); players outside the lot after them in registration order; before
    the lot is drawn, registration order."""
    lot = ctx.lot(rules_for(ctx.created, ctx.stage).lot_subject)
    drawn = tuple(dict.fromkeys(p for p in (lot.outcome if lot else ()) if p in ctx.players))
    return (*drawn, *(p for p in ctx.players if p not in drawn))


def preview(ctx: PairingContext) -> Preview:
    """`arbiter schedule`'s rounds to come: the table's rounds not scheduled yet (none, and
    why in a note, before the lot is drawn)."""
    try:
        rounds = schedule(ctx)
    except PairingRefused as exc:
        return Preview(notes=(exc.message,))
    return Preview(rounds=tuple(r for r in rounds if r.round not in ctx.scheduled))


SYSTEM = PairingSystem(
    name=name,
    rule="FIDE C.05 Annex 1 (Berger tables)",
    propose=propose,
    pairing_numbers=pairing_numbers,
    preview=preview,
)
