"""GCT 2022 overall-standings playoffs (Tiebreak Regulations §4, 4.1–4.12).

`view(overall, state)` is a pure function of the overall GCT table (`OverallRow`s, produced by
`projections/series/`) and of the fold of the playoff tournament (a stream created with
`TournamentCreated(format="playoff", rules_preset="gct-tour-playoff")`, the tied players
registered; `None` before it exists). It never draws a lot or reads a clock: it says in
`required_next` which `LotDrawn`, `RoundScheduled`, results or `RulingIssued` must come next.

Readings (rules/README "GCT overall standings (4.x)"), each a named rule in `notes`:

* **Which ties are played off (4.1, 4.2, 4.3).** A block of players level on points occupies
  places a..b. Two boundaries matter: 1|2 (who wins the Tour) and 3|4 (who are "the players in
  the first three places", 4.3). A block is played off iff it straddles one of them
  (a <= 1 < b or a <= 3 < b). So a tie for 1st (1–2, 1–3, 1–5, ...) is played off, and so is a
  tie that decides third place (3–4, 3–6, but also 2–4 and 2–5); a tie for places 2–3 only is
  the "tie for second place" of 4.2 and is not broken (both players are in the first three
  whatever happens); ties wholly below 3rd are not broken (4.2).
  Example: four players level for places 2–5 are all played off, in the tie for 3rd.
* **Separate ties (4.5).** The 1st-place tie and the 3rd-place tie are separate playoffs, played
  concurrently, with stage names `tour-1st-rrN` and `tour-3rd-rrN`. One block straddling both
  boundaries (e.g. 1–4) is one tie (the tie for 1st) until a round robin splits it; "at any
  stage" the groups it splits into are cut by the same rule, so a 1–4 tie that ends RR1 as
  2 + 2 continues as a tie for 1st (1–2) and a separate tie for 3rd (3–4).
* **Places within a tie.** A round robin orders its players by score; each score group takes
  the next places. A group of one has its place; a group of several that straddles 1|2 or 3|4
  plays on; any other group shares its places (4.2), e.g. a three-way tie for 1st ending
  2, ½, ½ gives 1st and a shared 2nd–3rd, and a three-way tie for 3rd ending 2, 1, 0 gives 3rd,
  4th and 5th. (4.5's "at any stage" split is only possible if round-robin scores place the
  players below the top, so the same applies to every tie.)
* **Round robins.** RR1 and RR2 rapid 15'+10" (4.7, 4.8), RR3 and RR4 blitz 5'+2" (4.10, 4.11),
  FIDE Berger tables, two players a double round robin (4.6). N counts the round robins the
  tie's players have played in this playoff (all ties start together at RR1).
* **Colours (4.9, 4.11).** RR2 and RR4 (after an odd number of round robins) with exactly the
  players of the preceding round robin replay its games with colours reversed; otherwise
  (RR1, RR3, or a changed player set) the pairing numbers, and with them the colours, are drawn
  afresh: `LotDrawn(purpose="pairing_numbers", subject=<stage>, outcome=[players in pairing-
  number order])`.
* **After four round robins (4.12).** The tie waits for the chief arbiter:
  `RulingIssued(subject="gct-tour-playoff", rule="GCT 4.12",
  decision={"tiebreak_order": [player ids, best first]})` listing (at least) the tie's players.
* **Final order.** Once every tie is decided, `final_order` is the whole overall table: the
  played-off places as decided, every other block sharing its places as in the overall table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Literal

from events_schema.events import LotDrawn, TimeControl
from projections.outcome import STANDARD, game_points
from projections.playoffs.base import (
    Machine,
    PlannedGame,
    PlayoffView,
    Requirement,
    StageView,
    Status,
    berger_round_robin,
    result_of,
    who,
)
from projections.standings.state import StandingsState

KIND = "gct-tour"
RULE = "GCT 2022 Tiebreak Regulations 4.1–4.12 (overall standings)"
PRESET = "gct-tour-playoff"
RULING_SUBJECT = "gct-tour-playoff"
LOT_PURPOSE = "pairing_numbers"
# GCT 4.7/4.8: rapid, game in 15 minutes + 10 s from move 1; 4.10/4.11: blitz, 5 min + 2 s.
RAPID = TimeControl(name="gct-tour-rapid", base_seconds=15 * 60, increment_seconds=10)
BLITZ = TimeControl(name="gct-tour-blitz", base_seconds=5 * 60, increment_seconds=2)
RAPID_ROUND_ROBINS = 2  # 4.7, 4.8
MAX_ROUND_ROBINS = 4  # 4.12: two rapid and two blitz
# The boundaries a tie must not straddle: k means "between place k and place k + 1".
WINNER = 1  # 4.1: first place
TOP_THREE = 3  # 4.1: third place; 4.3: the players in the first three places

Label = Literal["1st", "3rd"]


@dataclass(frozen=True)
class OverallRow:
    """A row of the overall GCT table: a player and their Tour points (exact)."""

    player_id: str
    points: Fraction | Decimal | int


# --- the cutting rule (4.1, 4.2, 4.3, 4.5) ------------------------------------------------------


def played_off(first: int, last: int) -> bool:
    """GCT 4.1–4.3: places first..last held by level players are played off iff they straddle
    the 1|2 boundary (the winner) or the 3|4 boundary (the first three)."""
    return any(first <= k < last for k in (WINNER, TOP_THREE))


def _label(first: int) -> Label:
    return "1st" if first <= WINNER else "3rd"


def _places(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}–{last}"


def _names(players: Sequence[str]) -> str:
    return who(*players)


def _stage(label: Label, rr: int) -> str:
    return f"tour-{label}-rr{rr}"


def _shown(half_points: int) -> str:
    return f"{half_points // 2}.5" if half_points % 2 else str(half_points // 2)


# --- the machine -------------------------------------------------------------------------------

Rounds = tuple[tuple[tuple[str, str], ...], ...]


@dataclass(frozen=True)
class _Played:
    """A completed round robin: what the next one compares its players with (4.9, 4.11)."""

    stage: str
    players: frozenset[str]
    order: tuple[str, ...]
    rounds: Rounds


@dataclass(frozen=True)
class _Tie:
    label: Label
    rr: int  # the round robin it plays next (1-based)
    first: int  # the first place it covers
    players: tuple[str, ...]  # in overall-table order
    prev: _Played | None = None

    @property
    def last(self) -> int:
        return self.first + len(self.players) - 1


@dataclass(kw_only=True)
class _Run(Machine):
    """One recomputation of the tour playoff (`stuck`: a tie awaits the 4.12 ruling)."""

    state: StandingsState | None
    rank: dict[str, int]  # overall-table order
    settled: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)  # (place, block)
    still_in: set[str] = field(default_factory=set)
    eliminated: set[str] = field(default_factory=set)
    started: bool = False
    used_rulings: set[str] = field(default_factory=set)

    def ordered(self, players: Sequence[str] | set[str]) -> tuple[str, ...]:
        return tuple(sorted(players, key=self.rank.__getitem__))

    # -- one tie at its next round robin --------------------------------------------------------

    def run(self, tie: _Tie) -> list[_Tie]:
        if tie.rr > MAX_ROUND_ROBINS:
            self._ruling(tie)
            return []
        stage = _stage(tie.label, tie.rr)
        double = len(tie.players) == 2  # 4.6
        kind = "double_round_robin" if double else "round_robin"
        tc = RAPID if tie.rr <= RAPID_ROUND_ROBINS else BLITZ
        schedule = self._schedule(tie, stage, double)
        if schedule is None:  # waiting for the lot
            self.still_in.update(tie.players)
            self.stages.append(StageView(stage, kind, tie.players, ()))
            return []
        order, rounds = schedule
        games: list[PlannedGame] = []
        unscheduled: list[PlannedGame] = []
        pending: list[PlannedGame] = []
        half: dict[str, int] = dict.fromkeys(order, 0)
        for r, pairs in enumerate(rounds, start=1):
            for b, (white, black) in enumerate(pairs, start=1):
                game = self._game(stage, r, b, white, black, tc)
                games.append(game)
                if not game.scheduled:
                    if self.state is None or game.game_id not in self.state.games:
                        unscheduled.append(game)
                    continue
                self.started = True
                if game.result is None:
                    pending.append(game)
                    continue
                # 4.6–4.11: round robins score 1 / ½ / 0 ("0-0": both lose).
                w, k = game_points(game.result, STANDARD)
                half[white] += w
                half[black] += k
        complete = not unscheduled and not pending and all(g.scheduled for g in games)
        scores = tuple((p, _shown(half[p])) for p in order)
        halves = tuple((p, half[p]) for p in order)
        if unscheduled:
            self.required.append(
                Requirement(
                    kind="schedule",
                    stage=stage,
                    text=f"GCT {'4.6, ' if double else ''}4.{_article(tie.rr)}: schedule "
                    f"{stage} ({kind}, {tc.name}), "
                    f"one RoundScheduled(stage={stage!r}, round=n) per round, with these game "
                    "ids and colours",
                    games=tuple(unscheduled),
                )
            )
        if pending:
            self.required.append(
                Requirement(
                    kind="results",
                    stage=stage,
                    text=f"results of {stage}",
                    games=tuple(pending),
                )
            )
        if not complete:
            self.still_in.update(tie.players)
            self.stages.append(
                StageView(stage, kind, order, tuple(games), scores=scores, half_points=halves)
            )
            return []
        # Score groups, best first, each taking the next places.
        ranked = sorted(order, key=lambda p: (-half[p], self.rank[p]))
        groups: list[tuple[str, ...]] = []
        for p in ranked:
            if groups and half[groups[-1][0]] == half[p]:
                groups[-1] = (*groups[-1], p)
            else:
                groups.append((p,))
        played = _Played(stage, frozenset(tie.players), order, rounds)
        children: list[_Tie] = []
        advanced: list[str] = []
        out: list[str] = []
        place = tie.first
        for i, group in enumerate(groups):
            first, last = place, place + len(group) - 1
            place = last + 1
            members = self.ordered(group)
            if len(group) > 1 and played_off(first, last):
                child = _Tie(_label(first), tie.rr + 1, first, members, played)
                children.append(child)
                advanced += members
            else:
                self.settled.append((first, members))
                if i > 0:
                    out += members
                if len(group) > 1:
                    self.notes.append(
                        f"GCT 4.2: {_names(members)} level in {stage}, places "
                        f"{_places(first, last)} stay shared"
                    )
        if len(children) > 1:
            self.notes.append(
                f"GCT 4.5: after {stage} separate ties: "
                + "; ".join(
                    f"{c.label} ({_names(c.players)}, places {_places(c.first, c.last)})"
                    for c in children
                )
                + ", played off separately"
            )
        self.eliminated.update(out)
        self.stages.append(
            StageView(
                stage,
                kind,
                order,
                tuple(games),
                scores=scores,
                half_points=halves,
                advanced=self.ordered(advanced),
                eliminated=self.ordered(out),
                complete=True,
            )
        )
        return children

    def _schedule(
        self, tie: _Tie, stage: str, double: bool
    ) -> tuple[tuple[str, ...], Rounds] | None:
        """Pairing order and rounds: colours reversed (4.9, 4.11) or by lot (4.7, 4.9)."""
        prev = tie.prev
        if tie.rr % 2 == 0 and prev is not None and prev.players == frozenset(tie.players):
            self.notes.append(
                f"GCT 4.{9 if tie.rr == 2 else 11}: {stage} has exactly the players of "
                f"{prev.stage} after an odd number of round robins: colours reversed"
            )
            return prev.order, tuple(tuple((b, w) for w, b in rnd) for rnd in prev.rounds)
        if prev is not None:
            why = (
                "the players differ from " + prev.stage
                if prev.players != frozenset(tie.players)
                else f"{tie.rr - 1} round robins were played (an even number)"
            )
            self.notes.append(f"GCT {_colours_article(tie.rr)}: {stage}: {why}: fresh lot")
        lot = self._lot(stage, tie.players)
        if lot is None:
            article = _lot_article(tie.rr)
            create = (
                ""
                if self.state is not None
                else " (first create the playoff tournament: TournamentCreated(format="
                f"'playoff', rules_preset={PRESET!r}) and register the tied players)"
            )
            self.required.append(
                Requirement(
                    kind="lot",
                    stage=stage,
                    text=f"GCT {article}: draw the pairing numbers of {stage} by lot{create}",
                    lot={
                        "purpose": LOT_PURPOSE,
                        "subject": stage,
                        "candidates": list(tie.players),
                        "pick": len(tie.players),
                    },
                )
            )
            return None
        order = tuple(lot.outcome)
        rounds = berger_round_robin(list(order), double=double)
        return order, tuple(tuple(rnd) for rnd in rounds)

    def _lot(self, stage: str, players: tuple[str, ...]) -> LotDrawn | None:
        if self.state is None:
            return None
        lot = self.state.lot(stage, LOT_PURPOSE)
        if lot is None:
            return None
        if len(lot.outcome) != len(players) or set(lot.outcome) != set(players):
            self.notes.append(
                f"lot for {stage} ignored: its outcome {lot.outcome} is not an order of "
                f"{_names(players)}"
            )
            return None
        return lot

    def _game(
        self, stage: str, rnd: int, board: int, white: str, black: str, tc: TimeControl
    ) -> PlannedGame:
        game_id = f"{stage}-r{rnd}-b{board}"
        record = self.state.games.get(game_id) if self.state is not None else None
        scheduled = (
            record is not None
            and record.stage == stage
            and (record.white, record.black) == (white, black)
        )
        if record is not None and not scheduled:
            self.notes.append(
                f"{game_id} is scheduled as {record.white}–{record.black} in {record.stage}, "
                f"not {white}–{black} in {stage} as prescribed: retract that RoundScheduled"
            )
        result = result_of(self.state, game_id) if scheduled and self.state is not None else None
        return PlannedGame(stage, rnd, game_id, white, black, tc, result, scheduled)

    # -- 4.12 ------------------------------------------------------------------------------------

    def _ruling(self, tie: _Tie) -> None:
        name = f"tour-{tie.label}"
        order = self._ruled_order(tie.players)
        if order is None:
            self.stuck = True
            self.still_in.update(tie.players)
            self.required.append(
                Requirement(
                    kind="ruling",
                    stage=name,
                    text=f"GCT 4.12: the tie of {_names(tie.players)} (places "
                    f"{_places(tie.first, tie.last)}) is unresolved after {MAX_ROUND_ROBINS} "
                    "round robins; the GCT Chief Arbiter directs how it is resolved: "
                    f"RulingIssued(subject={RULING_SUBJECT!r}, rule='GCT 4.12', "
                    "decision={'tiebreak_order': [these players, best first]})",
                )
            )
            return
        ruling_id, ranked = order
        for i, p in enumerate(ranked):
            self.settled.append((tie.first + i, (p,)))
        self.eliminated.update(ranked[1:])
        self.notes.append(
            f"GCT 4.12: ruling {ruling_id} orders the tie of {_names(tie.players)}: "
            f"{_names(ranked)}"
        )

    def _ruled_order(self, players: tuple[str, ...]) -> tuple[str, tuple[str, ...]] | None:
        if self.state is None:
            return None
        for ruling in reversed(list(self.state.rulings.values())):
            if ruling.subject != RULING_SUBJECT:
                continue
            order = ruling.decision.get("tiebreak_order")
            if not isinstance(order, list) or not all(isinstance(p, str) for p in order):
                continue
            if len(set(order)) == len(order) and set(players) <= set(order):
                self.used_rulings.add(ruling.ruling_id)
                return ruling.ruling_id, tuple(sorted(players, key=order.index))
        return None


def _article(rr: int) -> str:
    return {1: "7", 2: "8"}.get(rr, "10" if rr == 3 else "11")


def _lot_article(rr: int) -> str:
    """The article under which round robin `rr` draws its pairing numbers afresh: 4.7 (the
    first), 4.9 (a second with other players), 4.10 (the first blitz one, after two round
    robins: 4.9's reversal is only for the second), 4.11 (further blitz ones)."""
    return {1: "4.7", 2: "4.9", 3: "4.10"}.get(rr, "4.11")


def _colours_article(rr: int) -> str:
    """Why round robin `rr` is not a colour reversal: 4.9 for the second; 4.10 for the third
    (a new blitz round robin; 4.11 reverses colours only after an odd number); 4.11 after."""
    return {2: "4.9", 3: "4.10, 4.11"}.get(rr, "4.11")


# --- the view ----------------------------------------------------------------------------------


def _blocks(rows: Sequence[OverallRow]) -> list[tuple[int, tuple[str, ...]]]:
    """The overall table as (first place, players level on points), best first; rows keep
    their given order within a block."""
    seen: set[str] = set()
    for row in rows:
        if row.player_id in seen:
            raise ValueError(f"{row.player_id!r} appears twice in the overall table")
        seen.add(row.player_id)
    points = {row.player_id: Fraction(row.points) for row in rows}
    ordered = sorted(rows, key=lambda r: -points[r.player_id])  # stable
    blocks: list[tuple[int, tuple[str, ...]]] = []
    place = 1
    for row in ordered:
        pid = row.player_id
        if blocks and points[blocks[-1][1][0]] == points[pid]:
            blocks[-1] = (blocks[-1][0], (*blocks[-1][1], pid))
        else:
            blocks.append((place, (pid,)))
        place += 1
    return blocks


def view(overall: Sequence[OverallRow], state: StandingsState | None) -> PlayoffView:
    """The GCT overall-standings playoff (§4) for this overall table and playoff fold."""
    blocks = _blocks(overall)
    rank = {p: i for i, p in enumerate(p for _f, block in blocks for p in block)}
    run = _Run(state=state, rank=rank)
    fixed: list[tuple[int, tuple[str, ...]]] = []
    queue: list[_Tie] = []
    for first, block in blocks:
        last = first + len(block) - 1
        if len(block) > 1 and played_off(first, last):
            label = _label(first)
            queue.append(_Tie(label, 1, first, block))
            run.notes.append(
                f"GCT 4.1/4.5: {_names(block)} level for places {_places(first, last)}: "
                f"the tie for {label}, played off as tour-{label}"
            )
        else:
            fixed.append((first, block))
            if len(block) > 1:
                run.notes.append(
                    f"GCT 4.2: {_names(block)} level for places {_places(first, last)}: "
                    "not broken, the places stay shared"
                )
    tied = run.ordered([p for t in queue for p in t.players])
    if not queue:
        return PlayoffView(
            kind=KIND,
            status="not_needed",
            rule=RULE,
            final_order=tuple(block for _f, block in fixed),
            notes=tuple(run.notes),
        )
    _check_stream(run, tied)
    while queue:  # breadth first: RR1 of every tie, then RR2, ...
        queue.sort(key=lambda t: (t.rr, t.first))
        queue += run.run(queue.pop(0))
    if state is not None:
        for ruling in state.rulings.values():
            if ruling.subject == RULING_SUBJECT and ruling.ruling_id not in run.used_rulings:
                run.notes.append(
                    f"ruling {ruling.ruling_id} not applied: no tie it orders awaits a "
                    "ruling (GCT 4.12)"
                )
    status: Status
    final: tuple[tuple[str, ...], ...] = ()
    if run.stuck:
        status = "awaiting_ruling"
    elif not run.still_in:
        status = "decided"
        final = tuple(block for _f, block in sorted(fixed + run.settled))
    elif run.started:
        status = "in_progress"
    else:
        status = "waiting"
    return PlayoffView(
        kind=KIND,
        status=status,
        rule=RULE,
        tied=tied,
        still_in=run.ordered(run.still_in),
        eliminated=run.ordered(run.eliminated),
        stages=tuple(run.stages),
        required_next=tuple(run.required),
        final_order=final,
        notes=tuple(run.notes),
    )


def _check_stream(run: _Run, tied: tuple[str, ...]) -> None:
    state = run.state
    if state is None:
        run.notes.append(
            "the playoff tournament does not exist yet: create it with TournamentCreated("
            f"format='playoff', rules_preset={PRESET!r}) and register {', '.join(tied)} (ids)"
        )
        return
    created = state.created
    if created is None or created.format != "playoff" or created.rules_preset != PRESET:
        run.notes.append(
            f"the playoff stream is not a TournamentCreated(format='playoff', "
            f"rules_preset={PRESET!r})"
        )
    missing = [p for p in tied if p not in state.players]
    if missing:
        run.notes.append(f"not registered in the playoff tournament: {_names(missing)}")
