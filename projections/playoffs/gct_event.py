"""GCT 2022 event playoff: a tie for first in a Rapid & Blitz (§2) or Classical (§3) event.

`view(state)` recomputes the whole playoff from the standings fold; it never draws a lot, reads
no clock and depends on no dict order: every list it shows is sorted or follows a lot's outcome.
Articles are cited as §2 (rapid & blitz, `rules_preset="gct-rapid-blitz"`); a classical event
(`"gct-classical"`) uses the same steps under §3 (2.x.y reads 3.x.y) with its own time limits.

The machine, step by step:

1. 2.1/3.1 A playoff only for a tie for first: while the main stage is incomplete the view is
   `waiting`; one player alone on top points is `not_needed` (final order = the table's places).
   A tie for first is a tie on points, whatever tiebreak columns the table shows.
2. 2.3/3.3 The tied players play a round robin, pairing numbers by lot: `LotDrawn(purpose=
   "pairing_numbers", subject="gct-playoff-rr", candidates=<tied, sorted>)`; its outcome order
   is pairing numbers 1..k, fed to the FIDE Berger tables (`berger_round_robin`), stage
   `gct-playoff-rr`, games `gct-rr-r<round>-b<board>`.
   2.3.1 two players: double round robin (colours reversed) at 10'+5" (3.3.1: 15'+10");
   2.3.2 three or more: single round robin at 5'+3" blitz (3.3.2: 10'+5" rapid).
   The round robin is scored 1 / ½ / 0 (a "0-0" is a loss for both), not with the event's
   scoring.
3. 2.4/3.4 The players on the top round-robin score remain; one alone wins (2.6/3.6). Otherwise
   single Armageddon games on a knockout basis, round k in stage `gct-armageddon-<k>`, games
   `gct-armageddon-<k>-b<board>`:
   a. 2.4.1/3.4.1 with m players left, the target is the largest power of two below m
      (rules/README "GCT Armageddon knockout byes"): 2·(m − target) play, the other
      2·target − m get byes (0 when m is 2, 4 or 8), by `LotDrawn(purpose="bye",
      subject="gct-armageddon-<k>", candidates=<remaining>)` whose outcome lists the players
      with a bye; its size is checked.
   b. 2.4.1 pairings by `LotDrawn(purpose="pairing_numbers", subject="gct-armageddon-<k>-pairs",
      candidates=<the players who play>)`: 1 v 2, 3 v 4, ... With exactly two players to play
      there is nothing to draw and no lot is asked for (reading).
   c. 2.5.3 colours by a coin toss per game: `LotDrawn(purpose="coin_toss", subject=<game id>,
      candidates=[a, b], outcome=[toss winner])`. The toss winner chooses: the machine
      prescribes the toss winner as White, and once the toss is recorded accepts the colours
      the game was scheduled with as that choice.
   d. 2.5.1 White 5 min, Black 4 min, +2 s from move 61; 2.5.2 a draw is a win for Black.
   e. Winners and byes go on to round k+1, until one player is left: the winner (2.6/3.6).
   f. The round's schedule requirement (`ScheduleWithByes`) prescribes one `RoundScheduled`
      with its games and its byes, `byes=[Bye(player_id, kind="advance")]`.
4. Final order (reading): the winner first; then the players knocked out of the Armageddon
   rounds, a later round ranking higher and players out in the same round sharing; then those
   the round robin left behind, by round-robin score (equal scores share). 2.6/3.6 share every
   place but the winner's money equally, so this order beyond first is informational.
   `eliminated` lists the same players the other way round: the first out first.

Anything that does not fit (a lot drawn from the wrong players or with the wrong number of
byes, an Armageddon game ending "0-0", games scheduled with other players) is reported in
`notes` and `required_next`, never folded silently; a bad lot or an undecidable game stops the
machine with status `awaiting_ruling` until it is retracted and redrawn / corrected. A game
counts as scheduled when a `RoundScheduled` of its stage holds its game id; if the arbiter
scheduled other players or colours than prescribed, a note says so and the scheduled game is
used.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from events_schema.events import TimeControl
from projections.outcome import STANDARD, game_points, outcomes
from projections.playoffs.base import (
    Machine,
    PlannedGame,
    PlayoffView,
    Requirement,
    StageView,
    Status,
    berger_round_robin,
    main_stage_complete,
    result_of,
    scored_stage,
    who,
)
from projections.standings.state import StandingsState
from projections.standings.table import Table, standings

KIND = "gct-event"
RR_STAGE = "gct-playoff-rr"


@dataclass(frozen=True)
class Section:
    """The section of the regulations that applies: §2 rapid & blitz, §3 classical."""

    number: int
    label: str
    two_players: TimeControl  # x.3.1
    three_or_more: TimeControl  # x.3.2

    def art(self, sub: str) -> str:
        """`art("3.1")` is "2.3.1" under §2 and "3.3.1" under §3."""
        return f"{self.number}.{sub}"


RAPID_BLITZ = Section(
    2,
    "Rapid & Blitz",
    TimeControl(name="gct-rapid-10+5", base_seconds=600, increment_seconds=5),  # 2.3.1
    TimeControl(name="gct-blitz-5+3", base_seconds=300, increment_seconds=3),  # 2.3.2
)
CLASSICAL = Section(
    3,
    "Classical",
    TimeControl(name="gct-rapid-15+10", base_seconds=900, increment_seconds=10),  # 3.3.1
    TimeControl(name="gct-rapid-10+5", base_seconds=600, increment_seconds=5),  # 3.3.2
)
# 2.5.1 / 3.5.1: White 5 minutes, Black 4 minutes, 2 seconds increment from move 61.
ARMAGEDDON = TimeControl(
    name="gct-armageddon-5v4+2@61",
    base_seconds=300,
    increment_seconds=2,
    increment_from_move=61,
    white_base_seconds=300,
    black_base_seconds=240,
)


def section_for(state: StandingsState) -> tuple[Section, str | None]:
    """The section the tournament's preset names, and a note when it names neither."""
    preset = state.created.rules_preset if state.created is not None else None
    if preset == "gct-classical":
        return CLASSICAL, None
    if preset == "gct-rapid-blitz":
        return RAPID_BLITZ, None
    return RAPID_BLITZ, (
        f"rules_preset {preset!r} names no GCT event playoff; §2 (Rapid & Blitz) is applied"
    )


def knockout_byes(m: int) -> int:
    """2.4.1/3.4.1 (rules/README reading): with m players left, the target is the largest
    power of two below m; 2·(m − target) play and 2·target − m get byes (0 for 2, 4, 8)."""
    if m < 2:
        return 0
    target = 1
    while target * 2 < m:
        target *= 2
    return 2 * target - m


def armageddon_winner(game: PlannedGame) -> str | None:
    """2.5.2/3.5.2: a draw is a win for Black. None while unplayed or for a "0-0"."""
    if game.result is None:
        return None
    white, black = outcomes(game.result, armageddon=True)
    if white == "win":
        return game.white
    return game.black if black == "win" else None


LotPurpose = Literal["pairing_numbers", "bye", "coin_toss"]

#: The kind of the byes of an Armageddon round: the player goes on to the next round without
#: playing (2.4.1/3.4.1); no game point is scored (the playoff is not the main stage).
BYE_KIND = "advance"


@dataclass(frozen=True)
class ScheduleWithByes(Requirement):
    """A schedule requirement whose `RoundScheduled` also carries byes: an Armageddon round
    with byes by lot (2.4.1/3.4.1) prescribes its games and its byes in one event,
    `RoundScheduled(stage, round, pairings=games, byes=[Bye(player_id, kind="advance")])`, so
    nothing is added by hand. `round` is the round of that event (the games' round)."""

    byes: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            **super().as_dict(),
            "byes": [{"player_id": p, "kind": BYE_KIND} for p in self.byes],
        }


class _Machine(Machine):
    """One recomputation of the playoff; collects stages, requirements and notes."""

    def __init__(self, state: StandingsState, sec: Section, tied: list[str]) -> None:
        super().__init__()
        self.state = state
        self.sec = sec
        self.tied = tied
        self.rr_out: list[tuple[str, ...]] = []  # best round-robin score first
        self.ko_out: list[tuple[str, ...]] = []  # knockout round 1 first

    # --- helpers ---------------------------------------------------------------------------

    def drawn(
        self,
        purpose: LotPurpose,
        subject: str,
        stage: str,
        candidates: Sequence[str],
        pick: int,
        why: str,
    ) -> list[str] | None:
        """The outcome of the lot in force, checked; None (and a requirement) otherwise."""
        return self.lot(self.state, purpose, subject, stage, candidates, pick, why)

    def planned(
        self,
        stage: str,
        rnd: int,
        game_id: str,
        white: str,
        black: str,
        tc: TimeControl,
        colours_chosen: bool = False,
    ) -> PlannedGame:
        """The prescribed game, or the game as scheduled when a RoundScheduled of the stage
        holds its id (with a note where it differs from the prescription)."""
        rec = self.state.games.get(game_id)
        if rec is None:
            return PlannedGame(stage, rnd, game_id, white, black, tc)
        if rec.stage != stage:
            self.notes.append(
                f"game id {game_id!r} is already used in stage {rec.stage!r}: the {stage} game "
                "cannot be scheduled under it until that is retracted"
            )
            self.stuck = True
            return PlannedGame(stage, rnd, game_id, white, black, tc)
        if (rec.white, rec.black) != (white, black):
            same_pair = {rec.white, rec.black} == {white, black}
            if not (same_pair and colours_chosen):
                what = "colours" if same_pair else "players"
                self.notes.append(
                    f"{game_id}: scheduled {who(rec.white)}–{who(rec.black)}, prescribed "
                    f"{who(white)}–{who(black)} "
                    f"(other {what}); the scheduled game is used"
                )
        return PlannedGame(
            stage,
            rec.round,
            game_id,
            rec.white,
            rec.black,
            tc,
            result=result_of(self.state, game_id),
            scheduled=True,
        )

    def byes_given(self, stage: str) -> set[str]:
        """The players a RoundScheduled of `stage` in force already gives a bye."""
        return {
            b.player_id
            for _ids, byes in self.state.rounds.values()
            for b in byes
            if b.stage == stage
        }

    def seated_right(self, stage: str, games: Sequence[PlannedGame], players: list[str]) -> bool:
        """The games as scheduled seat only the stage's players, each once per round; a
        schedule that does not cannot be read and is sent back to the arbiter."""
        wrong: list[str] = []
        for rnd in sorted({g.round for g in games}):
            seated = [p for g in games if g.round == rnd for p in (g.white, g.black)]
            strangers = sorted(set(seated) - set(players))
            twice = sorted({p for p in seated if seated.count(p) > 1})
            if strangers:
                wrong.append(f"round {rnd} seats {strangers}, who are not in {stage}")
            if twice:
                wrong.append(f"round {rnd} seats {twice} twice")
        if not wrong:
            return True
        text = f"correct the schedule of {stage} (retract the RoundScheduled): {'; '.join(wrong)}"
        self.notes.append(text)
        self.required.append(Requirement("ruling", stage, text))
        self.stuck = True
        return False

    # --- 2.3 / 3.3: the round robin ------------------------------------------------------

    def round_robin(self) -> list[str] | None:
        """The players on the top round-robin score once it is complete, else None."""
        sec, k = self.sec, len(self.tied)
        double = k == 2
        art = sec.art("3.1") if double else sec.art("3.2")
        tc = sec.two_players if double else sec.three_or_more
        kind = "double_round_robin" if double else "round_robin"
        order = self.drawn(
            "pairing_numbers",
            RR_STAGE,
            RR_STAGE,
            self.tied,
            k,
            f"draw the pairing numbers of the playoff round robin ({sec.art('3')})",
        )
        if order is None:
            self.stages.append(StageView(RR_STAGE, kind, tuple(self.tied), ()))
            return None
        games: list[PlannedGame] = []
        for r, pairs in enumerate(berger_round_robin(order, double=double), start=1):
            for b, (white, black) in enumerate(pairs, start=1):
                games.append(self.planned(RR_STAGE, r, f"gct-rr-r{r}-b{b}", white, black, tc))
        self.strays(self.state, RR_STAGE, {g.game_id for g in games})
        self.ask_schedule(RR_STAGE, games, f"the playoff {kind.replace('_', ' ')}", art)
        if not self.seated_right(RR_STAGE, games, order):
            self.stages.append(StageView(RR_STAGE, kind, tuple(order), tuple(games)))
            return None
        self.ask_results(RR_STAGE, games, art)
        points = dict.fromkeys(order, 0)
        for g in games:
            if g.result is None:
                continue
            # 2.3: the round robin scores 1 / ½ / 0, not with the event's scoring.
            to_white, to_black = game_points(g.result, STANDARD)
            if g.white in points:
                points[g.white] += to_white
            if g.black in points:
                points[g.black] += to_black
        complete = all(g.result is not None for g in games)
        advanced: list[str] = []
        out: list[str] = []
        if complete:
            top = max(points.values())
            advanced = sorted(p for p in order if points[p] == top)
            out = sorted(p for p in order if points[p] != top)
            for value in sorted({points[p] for p in out}, reverse=True):
                self.rr_out.append(tuple(sorted(p for p in out if points[p] == value)))
        self.stages.append(
            scored_stage(
                RR_STAGE,
                kind,
                order,
                games,
                points,
                order,
                advanced=advanced,
                eliminated=out,
                complete=complete,
            )
        )
        return advanced if complete else None

    # --- 2.4 / 3.4: the Armageddon knockout -----------------------------------------------

    def knockout_round(self, k: int, remaining: list[str]) -> list[str] | None:
        """Round k with `remaining` (sorted): who goes on once it is decided, else None."""
        sec = self.sec
        stage = f"gct-armageddon-{k}"
        n_byes = knockout_byes(len(remaining))
        view = StageView(stage, "armageddon", tuple(remaining), ())
        byes: list[str] = []
        if n_byes:
            drawn = self.drawn(
                "bye",
                stage,
                stage,
                remaining,
                n_byes,
                f"draw the {n_byes} bye(s) of Armageddon round {k}: {len(remaining)} players, "
                f"{len(remaining) - n_byes} play ({sec.art('4.1')})",
            )
            if drawn is None:
                self.stages.append(view)
                return None
            byes = sorted(drawn)
        playing = [p for p in remaining if p not in byes]
        if len(playing) == 2:
            order = playing  # one possible pairing: nothing to draw
        else:
            drawn = self.drawn(
                "pairing_numbers",
                f"{stage}-pairs",
                stage,
                playing,
                len(playing),
                f"draw the pairings of Armageddon round {k}: 1 v 2, 3 v 4, ... ({sec.art('4.1')})",
            )
            if drawn is None:
                self.stages.append(dataclasses.replace(view, byes=tuple(byes)))
                return None
            order = drawn
        games: list[PlannedGame] = []
        tossed_all = True
        for b in range(len(order) // 2):
            a, c = order[2 * b], order[2 * b + 1]
            gid = f"{stage}-b{b + 1}"
            toss = self.drawn(
                "coin_toss",
                gid,
                stage,
                [a, c],
                1,
                f"toss a coin for the colours of {gid}, {who(a)} v {who(c)}: the winner chooses "
                f"({sec.art('5.3')})",
            )
            if toss is None:
                tossed_all = False
                white, black = a, c
            else:
                white, black = toss[0], c if toss[0] == a else a
            game = self.planned(stage, 1, gid, white, black, ARMAGEDDON, colours_chosen=True)
            if game.scheduled and toss is None and not self.stuck:
                self.notes.append(f"{gid} was scheduled before its coin toss ({sec.art('5.3')})")
            games.append(game)
        self.strays(self.state, stage, {g.game_id for g in games})
        # Who plays must be exactly who was to play (not the byes), once each: with as many
        # seats as players, no stranger and no one twice means everyone once.
        if not self.seated_right(stage, [dataclasses.replace(g, round=1) for g in games], playing):
            self.stages.append(dataclasses.replace(view, games=tuple(games), byes=tuple(byes)))
            return None
        todo = tuple(g for g in games if not g.scheduled)
        if todo and tossed_all and not self.stuck:
            later = max((g.round for g in games if g.scheduled), default=0) + 1
            todo = tuple(dataclasses.replace(g, round=later) for g in todo)
            # The byes go in the same RoundScheduled as the games, unless an earlier
            # RoundScheduled of the stage already gave them.
            given = self.byes_given(stage)
            to_give = tuple(p for p in byes if p not in given)
            bye_text = f"; with the byes (kind {BYE_KIND!r}) of {who(*to_give)}" if to_give else ""
            self.required.append(
                ScheduleWithByes(
                    "schedule",
                    stage,
                    f"schedule Armageddon round {k} (stage {stage!r}, White 5', Black 4', "
                    f'+2" from move 61, {sec.art("5.1")}; the toss winner chose White unless '
                    f"scheduled otherwise{bye_text})",
                    games=todo,
                    byes=to_give,
                )
            )
            by_id = {g.game_id: g for g in todo}
            games = [by_id.get(g.game_id, g) for g in games]
        view = dataclasses.replace(view, games=tuple(games), byes=tuple(byes))
        self.ask_results(stage, games, f"{sec.art('5.2')}: a draw is a win for Black")
        winners: list[str] = []
        losers: list[str] = []
        scores: list[tuple[str, str]] = []
        halves: list[tuple[str, int]] = []
        for g in games:
            if g.result is None:
                continue
            winner = armageddon_winner(g)
            if winner is None:
                text = (
                    f"{g.game_id} ended {g.result}: an Armageddon game needs a winner "
                    f"({sec.art('5.2')}); correct the result (ResultCorrected)"
                )
                self.notes.append(text)
                self.required.append(Requirement("ruling", stage, text, games=(g,)))
                self.stuck = True
                continue
            loser = g.black if winner == g.white else g.white
            winners.append(winner)
            losers.append(loser)
            scores += [(winner, "1"), (loser, "0")]
            halves += [(winner, 2), (loser, 0)]
        complete = not self.stuck and len(winners) == len(games)
        if not complete:
            self.stages.append(
                dataclasses.replace(
                    view, scores=tuple(sorted(scores)), half_points=tuple(sorted(halves))
                )
            )
            return None
        advanced = sorted(byes + winners)
        self.ko_out.append(tuple(sorted(losers)))
        self.stages.append(
            dataclasses.replace(
                view,
                scores=tuple(sorted(scores)),
                half_points=tuple(sorted(halves)),
                advanced=tuple(advanced),
                eliminated=tuple(sorted(losers)),
                complete=True,
            )
        )
        return advanced

    # --- the whole playoff -----------------------------------------------------------------

    def run(self) -> tuple[Status, tuple[str, ...], str | None]:
        """(status, still in, winner)."""
        remaining = self.round_robin()
        if remaining is None:
            return self.status(), tuple(self.tied), None
        if len(remaining) > 1:
            self.notes.append(
                f"still tied after the round robin: {who(*remaining)} play Armageddon games "
                f"on a knockout basis ({self.sec.art('4')})"
            )
        k = 1
        while len(remaining) > 1:
            advanced = self.knockout_round(k, remaining)
            if advanced is None:
                return self.status(), tuple(remaining), None
            remaining = advanced
            k += 1
        return "decided", tuple(remaining), remaining[0]


def view(state: StandingsState, table: Table | None = None) -> PlayoffView:
    """The GCT event playoff (§2 / §3) as of the fold; see the module docstring. `table` is
    the main stage's standings when the caller has them (`standings(state)` otherwise)."""
    sec, preset_note = section_for(state)
    n = sec.number
    rule = f"GCT 2022 §{n} ({sec.label}): playoff for a tie for first, {n}.1–{n}.6"
    notes = [preset_note] if preset_note else []
    if not main_stage_complete(state):
        text = f"the main stage is not complete: a playoff can only follow its last game ({n}.2)"
        return PlayoffView(
            KIND,
            "waiting",
            rule,
            required_next=(Requirement("results", "main", text),),
            notes=(*notes, text),
        )
    rows = (table if table is not None else standings(state)).rows
    top = max(r.points for r in rows)
    tied = sorted(r.player_id for r in rows if r.points == top)
    if len(tied) == 1:
        blocks: list[tuple[str, ...]] = []
        place = None
        for r in rows:
            if r.place == place:
                blocks[-1] = (*blocks[-1], r.player_id)
            else:
                blocks.append((r.player_id,))
                place = r.place
        return PlayoffView(
            KIND,
            "not_needed",
            rule,
            final_order=tuple(blocks),
            notes=(*notes, f"{who(tied[0])} is clear first: no playoff ({n}.1)"),
        )
    machine = _Machine(state, sec, tied)
    notes.append(f"tie for first between {who(*tied)}: playoff ({n}.1)")
    status, still_in, winner = machine.run()
    eliminated = tuple(p for block in [*machine.rr_out[::-1], *machine.ko_out] for p in block)
    final_order: tuple[tuple[str, ...], ...] = ()
    if winner is not None:
        final_order = ((winner,), *machine.ko_out[::-1], *machine.rr_out)
        machine.notes.append(f"{who(winner)} wins the playoff and the event ({n}.6)")
    return PlayoffView(
        KIND,
        status,
        rule,
        tied=tuple(tied),
        still_in=still_in,
        eliminated=eliminated,
        stages=tuple(machine.stages),
        required_next=tuple(machine.required),
        final_order=final_order,
        notes=(*notes, *machine.notes),
    )
