"""TCEC playoffs: the Premier Division Conditional Tiebreak and the head-to-head matches.

Both machines are pure functions of the standings fold (`StandingsState`): they read the main
stage's table, the lots drawn and the games of the stages they prescribe, and recompute their
whole view. They never draw a lot, read no clock and depend on no dict order. Articles are
cited from `shared/seeds/tcec-rules.txt`: "Leagues" (TCEC Leagues Season rules), "Cup" (TCEC
Cup rules), "FRD" (TCEC FRD rules), "4k" (TCEC 4k rules).

`conditional_tiebreak(state)` — Leagues 6, `rules_preset="tcec-premier"`:

1. 6.1 Only after the Premier Division (the main stage) is completely played; until then the
   view is `waiting`. Only points count ("no tiebreak formula shall be used"):
   - the top two are separated from the third on points (one clear first and one clear second,
     or exactly two tied for first): `not_needed`; both go to the Superfinal;
   - 6.1.1 one engine clear first and two or more tied for second: the clear first takes one
     Superfinal spot, the tied engines play for the other (one spot at stake);
   - 6.1.2 three or more tied for first: they play for both spots (two spots at stake).
2. 6.2 Double round robins, stage `tcec-ct-<n>` (n = 1, 2, ...): the engines' pairing order by
   `LotDrawn(purpose="engine_order", subject="tcec-ct-<n>", candidates=<engines left, sorted>)`
   (every random choice is a lot; Leagues 5.6 randomises the engine order too), fed to the FIDE
   Berger tables (`berger_round_robin(order, double=True)`); games `tcec-ct-<n>-r<round>-b<board>`,
   a game and its reverse in the second cycle share `pair_id` `tcec-ct-<n>-p<round>.<board>`;
   6.4: 60'+6". With an odd number of engines one sits out each round (Berger); no bye is
   scheduled or scored. Openings come from the book and are taken as scheduled.
3. After each double round robin, on the points scored in that double round robin alone:
   6.2.1 with two spots at stake, an engine clear first promotes and leaves, one spot is left;
   6.2.2 every engine strictly below the points of the last spot at stake is eliminated.
4. 6.3 Repeat until the engines left equal the spots at stake: they promote.
   `final_order` then lists the Superfinal engines: the clear first of the Premier Division
   (6.1.1) or the engine that promoted by 6.2.1 first, then the other; two engines promoting
   together at 6.3 share a block (Leagues 6 does not order them; which one is the "winner of
   the Premier Division" for the Superfinal colours, 7.3, is left to the organisers, rule 0).
   Places below the Superfinal spots come from the table's chain (Leagues 11.1), not from here.

`match(state)` — a two-engine match; the two registered engines, seeded by `PlayerInfo.seed`
when the fold keeps it, otherwise by registration order (the higher seed registered first):

- `tcec-cup` (Cup 3): N game pairs, N = `TournamentCreated.rounds` / 2 (3.c; without an even
  `rounds` the view is `awaiting_ruling`); 30'+3" (5.a). 3.a: the match is adjudicated as soon
  as a decisive result has been reached within the set number of games, i.e. the leader's
  margin exceeds what the remaining regular games can give the other engine; games after that
  are void. 3.d/3.e: level after the N pairs, extra pairs are played until one of them is
  decisive (one engine scores more in the pair).
- `tcec-superfinal` (Leagues 7): 100 games at 120'+12" (7.1, 7.2, 9.4); all 100 are played
  even when the match is won earlier (7.4). Level after 100: a 24-game tiebreak match (7.5),
  played in full (reading: it is "a tiebreak match of 24 games", and only the Cup has early
  adjudication); still level: pairs until one engine wins a pair (7.6).
- `tcec-frd-final` (FRD 2.h/2.i): 50 games at 30'+3" (5.a), then pairs until one engine wins
  a pair. All 50 are played (FRD has no early adjudication).
- `tcec-4k-minifinal` (4k 0.4/3.2): the same as the FRD final (50 games, 30'+3" by 4k 1.1,
  then pairs until one engine wins a pair).

Stages: `main` (the regular games, rounds 1..games), `tiebreak-match` (Superfinal 7.5),
`extra-pair-<n>` (rounds 1 and 2). One game per round; game `2k-1` and `2k` form pair k
(`pair_id` `<stage>-p<k>`), colours reversed within a pair with the same opening (Cup 3.a,
4.c). The lower seed is White in the first game of every pair (Cup 3.b "starts with White";
FRD 2.b "always start a pair of games with the white pieces"; Leagues 7.3 "the winner of the
Premier Division takes the black pieces first in every pair"; the 4k rules are silent and the
same is used). A match game is identified by its stage and round (one game per round); the
game id prescribed is `<stage>-g<round>`, but a game already scheduled under another id is used.

Openings (reading): where the rules name a book played in order (the Cup's pre-randomised
books, Cup 4.b; the Superfinal's sequential book, 7.2; the FRD positions whose order the
bookmaker randomised, FRD 4.b) the opening is the one scheduled (`Pairing.opening`); the machine
only checks that both games of a pair have the same one. Where the rules ask for random
openings (Superfinal 7.5 and 7.6, "random openings selected from earlier opening books") the
machine asks for `LotDrawn(purpose="other", subject="<stage> opening", candidates=<the openings
drawn from>)` picking one opening per pair (12 for the tiebreak match, 1 per extra pair), and
prescribes pair k with the k-th opening drawn.

`required_next` asks first for a lot, then for the games to schedule (one `RoundScheduled`
per round), then for their results: a whole double round robin at a time in the Conditional
Tiebreak; in a match one pair is scheduled at a time and one game's result asked for at a time
("one game is played at a time", Leagues 1.5), so Cup 3.a can end the match after any game (a
game played after that is shown but void). A scheduled game is used as it stands; where it
differs from the prescription (colours, opening, stray games) a note says so. A lot that does not
fit, or a game between other engines in a match stage, stops the machine with
`awaiting_ruling` until it is retracted (and the lot drawn again).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from events_schema import events as ev
from events_schema.events import TimeControl
from projections.playoffs.base import (
    PlannedGame,
    PlayoffView,
    Requirement,
    StageView,
    Status,
    berger_round_robin,
    main_stage_complete,
    required_lot,
)
from projections.standings.state import GameRecord, StandingsState
from projections.standings.table import standings
from projections.tiebreaks.registry import half_points

CT_KIND = "tcec-conditional"
CT_RULE = "TCEC Leagues 6 (Premier Division Conditional Tiebreak)"
CT_PRESET = "tcec-premier"

# Leagues 6.4 / 9.3: the Premier Division time control.
TC_PREMIER = TimeControl(name="tcec-60+6", base_seconds=3600, increment_seconds=6)
# Cup 5.a, FRD 5.a, 4k 1.1.
TC_30_3 = TimeControl(name="tcec-30+3", base_seconds=1800, increment_seconds=3)
# Leagues 7.2, 7.5, 7.6, 9.4.
TC_SUFI = TimeControl(name="tcec-120+12", base_seconds=7200, increment_seconds=12)


@dataclass(frozen=True)
class PairedGame(PlannedGame):
    """A prescribed game with its TCEC game pair and book exit: schedule it with
    `Pairing(game_id, white, black, pair_id=..., opening=...)`."""

    pair_id: str | None = None
    opening: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "pair_id": self.pair_id, "opening": self.opening}


# ---------------------------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------------------------


def _scoring(state: StandingsState) -> ev.Scoring:
    return state.created.scoring if state.created is not None else ev.Scoring()


def _game_points(rec: GameRecord, scoring: ev.Scoring) -> tuple[int, int] | None:
    """(White, Black) half-points of the result in force under the tournament's scoring, as
    the crosstable counts them (a forfeit scores forfeit points; "0-0" is a loss for both)."""
    if not rec.results:
        return None
    _, _, result, termination = rec.results[-1]
    forfeit = termination == "forfeit"
    win = scoring.forfeit_win if forfeit else scoring.win
    loss = scoring.forfeit_loss if forfeit else scoring.loss
    if result == "1-0":
        return win, loss
    if result == "0-1":
        return loss, win
    if result == "1/2-1/2":
        return scoring.draw, scoring.draw
    return loss, loss


def _result(rec: GameRecord) -> str | None:
    return rec.results[-1][2] if rec.results else None


def _ranked(players: Sequence[str], points: dict[str, int]) -> list[str]:
    """Best first; equal points keep the given order."""
    return sorted(players, key=lambda p: -points[p])


@dataclass
class _Run:
    """What one recomputation collects."""

    notes: list[str] = field(default_factory=list)
    stages: list[StageView] = field(default_factory=list)
    required: list[Requirement] = field(default_factory=list)
    stuck: bool = False  # a lot or the schedule needs the arbiter: awaiting_ruling

    def lot(
        self,
        state: StandingsState,
        purpose: Literal["engine_order", "other"],
        subject: str,
        stage: str,
        candidates: Sequence[str] | None,
        pick: int,
        why: str,
    ) -> list[str] | None:
        """The checked outcome of the lot in force, or None with a requirement."""
        extra = (
            {"candidates_from": "the openings of the Season's earlier books (Leagues 7.5)"}
            if candidates is None
            else None
        )
        outcome, misfit = required_lot(
            state,
            purpose=purpose,
            subject=subject,
            stage=stage,
            candidates=candidates,
            pick=pick,
            why=why,
            required=self.required,
            notes=self.notes,
            extra=extra,
        )
        self.stuck = self.stuck or misfit
        return outcome

    def strays(self, state: StandingsState, stage: str, used: set[str]) -> None:
        for gid in sorted(g.game_id for g in state.stage_games(stage)):
            if gid not in used:
                self.notes.append(
                    f"game {gid!r} in stage {stage!r} is not part of the playoff; it is ignored"
                )

    def ask(self, stage: str, games: Sequence[PlannedGame], what: str, art: str) -> None:
        """Ask to schedule the unscheduled games (one requirement per round) and for the
        results of the scheduled unplayed ones."""
        todo = [g for g in games if not g.scheduled]
        for rnd in sorted({g.round for g in todo}):
            these = tuple(g for g in todo if g.round == rnd)
            self.required.append(
                Requirement(
                    "schedule",
                    stage,
                    f"schedule round {rnd} of {what} (stage {stage!r}, "
                    f"{these[0].time_control.name}, {art})",
                    games=these,
                )
            )
        waiting = tuple(g for g in games if g.scheduled and g.result is None)
        if waiting:
            ids = ", ".join(g.game_id for g in waiting)
            self.required.append(
                Requirement("results", stage, f"results of {ids} ({what}, {art})", games=waiting)
            )

    def status(self) -> Status:
        return "awaiting_ruling" if self.stuck else "in_progress"


# ---------------------------------------------------------------------------------------------
# Leagues 6: the Premier Division Conditional Tiebreak
# ---------------------------------------------------------------------------------------------


def ct_stage(n: int) -> str:
    return f"tcec-ct-{n}"


def _after_drr(
    still_in: Sequence[str], spots: int, points: dict[str, int]
) -> tuple[str | None, list[str], list[str], int]:
    """Leagues 6.2 on one double round robin's points:
    (promoted by 6.2.1, eliminated by 6.2.2, engines left, spots left)."""
    ranked = _ranked(still_in, points)
    promoted = None
    left = list(still_in)
    if spots == 2 and points[ranked[0]] > points[ranked[1]]:
        # 6.2.1: clear first with two spots at stake: promotes, leaves, one spot remains.
        promoted = ranked[0]
        left.remove(promoted)
        ranked = ranked[1:]
        spots = 1
    # 6.2.2: strictly worse on points than the last promotion spot at stake.
    threshold = points[ranked[spots - 1]]
    eliminated = [p for p in left if points[p] < threshold]
    left = [p for p in left if points[p] >= threshold]
    return promoted, eliminated, left, spots


def _ct_drr(
    run: _Run, state: StandingsState, stage: str, order: list[str]
) -> tuple[list[PlannedGame], dict[str, int], bool]:
    """The double round robin of `stage` in the lot's `order`: its games (as scheduled where
    they are), the points scored in it, and whether it is complete."""
    rounds = berger_round_robin(order, double=True)
    half = len(rounds) // 2
    scoring = _scoring(state)
    by_key = {(g.round, frozenset((g.white, g.black))): g for g in state.stage_games(stage)}
    used: set[str] = set()
    games: list[PlannedGame] = []
    points = dict.fromkeys(order, 0)
    for r, pairs in enumerate(rounds, start=1):
        cycle_round = r if r <= half else r - half
        for b, (white, black) in enumerate(pairs, start=1):
            pair_id = f"{stage}-p{cycle_round}.{b}"
            rec = by_key.get((r, frozenset((white, black))))
            if rec is None:
                games.append(
                    PairedGame(
                        stage, r, f"{stage}-r{r}-b{b}", white, black, TC_PREMIER, pair_id=pair_id
                    )
                )
                continue
            used.add(rec.game_id)
            if rec.white != white:
                run.notes.append(
                    f"{rec.game_id}: scheduled {rec.white}–{rec.black}, the Berger table has "
                    f"{white}–{black} (other colours); the scheduled game is used"
                )
            games.append(
                PairedGame(
                    stage,
                    r,
                    rec.game_id,
                    rec.white,
                    rec.black,
                    TC_PREMIER,
                    result=_result(rec),
                    scheduled=True,
                    pair_id=rec.pair_id,
                    opening=rec.opening,
                )
            )
            got = _game_points(rec, scoring)
            if got is not None:
                points[rec.white] += got[0]
                points[rec.black] += got[1]
    run.strays(state, stage, used)
    return games, points, all(g.result is not None for g in games)


def conditional_tiebreak(state: StandingsState) -> PlayoffView:
    """The Premier Division Conditional Tiebreak (Leagues 6); see the module docstring."""
    created = state.created
    if created is None or created.rules_preset != CT_PRESET:
        preset = created.rules_preset if created is not None else None
        return PlayoffView(
            CT_KIND,
            "not_needed",
            CT_RULE,
            notes=(f"rules_preset {preset!r}: the Conditional Tiebreak is for {CT_PRESET!r}",),
        )
    if not main_stage_complete(state):
        text = (
            "the Premier Division is not completely played: the Conditional Tiebreak can only "
            "follow its last game (Leagues 6.1)"
        )
        return PlayoffView(
            CT_KIND,
            "waiting",
            CT_RULE,
            required_next=(Requirement("results", "main", text),),
            notes=(text,),
        )
    rows = standings(state).rows
    values = sorted({r.points for r in rows}, reverse=True)
    groups = [[r.player_id for r in rows if r.points == v] for v in values]
    top = groups[0]
    second = groups[1] if len(groups) > 1 else []
    run = _Run()
    decided: list[tuple[str, ...]] = []  # Superfinal engines, in the order they promote
    if len(top) == 2 or (len(top) == 1 and len(second) <= 1):
        top_two = [r.player_id for r in rows][:2]
        places = {r.player_id: r.place for r in rows}
        final = (
            (tuple(top_two),)
            if len(top_two) == 2 and places[top_two[0]] == places[top_two[1]]
            else tuple((p,) for p in top_two)
        )
        return PlayoffView(
            CT_KIND,
            "not_needed",
            CT_RULE,
            final_order=final,
            notes=(
                "the two Superfinal places are determined on points (Leagues 5.7, 6.1); "
                "their order is the table's (Leagues 11.1)",
            ),
        )
    if len(top) == 1:
        entrants, spots = second, 1
        decided.append((top[0],))
        run.notes.append(
            f"Leagues 6.1.1: {top[0]} is clear first and takes one Superfinal spot; "
            f"{', '.join(entrants)} are tied for second and play for the other"
        )
    else:
        entrants, spots = top, 2
        run.notes.append(
            f"Leagues 6.1.2: {', '.join(entrants)} are tied for first and play for both "
            "Superfinal spots"
        )
    still_in = list(entrants)
    eliminated: list[str] = []
    n = 0
    while len(still_in) > spots:
        n += 1
        stage = ct_stage(n)
        candidates = sorted(still_in)
        order = run.lot(
            state,
            "engine_order",
            stage,
            stage,
            candidates,
            len(candidates),
            f"draw the engine order of double round robin {n} of the Conditional Tiebreak "
            f"(stage {stage!r}; Leagues 6.2, engine order randomised as in 5.6)",
        )
        if order is None:
            run.stages.append(StageView(stage, "double_round_robin", tuple(candidates), ()))
            break
        games, points, complete = _ct_drr(run, state, stage, order)
        scores = tuple((p, half_points(points[p])) for p in _ranked(order, points))
        if not complete:
            run.ask(stage, games, f"Conditional Tiebreak double round robin {n}", "Leagues 6.4")
            run.stages.append(
                StageView(stage, "double_round_robin", tuple(order), tuple(games), scores=scores)
            )
            break
        promoted, out, still_in, spots = _after_drr(still_in, spots, points)
        advanced: list[str] = []
        if promoted is not None:
            decided.append((promoted,))
            advanced.append(promoted)
            run.notes.append(
                f"{stage}: {promoted} is clear first with two spots at stake: promotes to the "
                "Superfinal and leaves the Conditional Tiebreak; one spot is left (Leagues 6.2.1)"
            )
        if out:
            eliminated += out
            run.notes.append(
                f"{stage}: {', '.join(out)} strictly below the last spot at stake: eliminated "
                "(Leagues 6.2.2)"
            )
        if len(still_in) == spots:
            decided.append(tuple(still_in))
            advanced += still_in
            run.notes.append(
                f"{stage}: {', '.join(still_in)} left for {spots} spot(s): "
                f"promote{'s' if spots == 1 else ''} to the Superfinal (Leagues 6.3)"
            )
            if spots == 2:
                run.notes.append(
                    "Leagues 6 does not order two engines promoting together: which is the "
                    "Premier Division winner for the Superfinal colours (7.3) is for the "
                    "organisers (rule 0)"
                )
        elif not promoted and not out:
            run.notes.append(f"{stage}: nothing decided; another double round robin (6.3)")
        run.stages.append(
            StageView(
                stage,
                "double_round_robin",
                tuple(order),
                tuple(games),
                scores=scores,
                advanced=tuple(advanced),
                eliminated=tuple(out),
                complete=True,
            )
        )
    played = {s.name for s in run.stages}
    for name in sorted({g.stage for g in state.games.values()}):
        if name.startswith("tcec-ct-") and name not in played:
            run.notes.append(f"stage {name!r} is not part of the tiebreak (yet); it is ignored")
    done = len(still_in) == spots
    return PlayoffView(
        CT_KIND,
        "decided" if done else run.status(),
        CT_RULE,
        tied=tuple(entrants),
        still_in=tuple(still_in),
        eliminated=tuple(eliminated),
        stages=tuple(run.stages),
        required_next=() if done else tuple(run.required),
        final_order=tuple(decided) if done else (),
        notes=tuple(run.notes),
    )


# ---------------------------------------------------------------------------------------------
# Matches: Cup 3, Superfinal (Leagues 7), FRD final (2.h/2.i), 4k MiniFinal (0.4/3.2)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MatchRules:
    kind: str
    rule: str
    games: int | None  # None: from TournamentCreated.rounds (Cup 3.c)
    games_art: str
    time_control: TimeControl
    tc_art: str
    early_end: bool  # Cup 3.a: adjudicated once decisive within the set number of games
    tiebreak_games: int  # Leagues 7.5: a tiebreak match before the pairs
    random_openings: bool  # Leagues 7.5/7.6: random openings for the tiebreaks
    pairs_art: str
    colours_art: str


MATCH_RULES: dict[str, MatchRules] = {
    "tcec-cup": MatchRules(
        "tcec-cup",
        "TCEC Cup 3 (matches and tiebreaks)",
        None,
        "Cup 3.c",
        TC_30_3,
        "Cup 5.a",
        early_end=True,
        tiebreak_games=0,
        random_openings=False,
        pairs_art="Cup 3.d/3.e",
        colours_art="Cup 3.b",
    ),
    "tcec-superfinal": MatchRules(
        "tcec-superfinal",
        "TCEC Leagues 7 (Superfinal)",
        100,
        "Leagues 7.1/7.2",
        TC_SUFI,
        "Leagues 7.2/9.4",
        early_end=False,
        tiebreak_games=24,
        random_openings=True,
        pairs_art="Leagues 7.6",
        colours_art="Leagues 7.3",
    ),
    "tcec-frd-final": MatchRules(
        "tcec-frd-final",
        "TCEC FRD 2.h/2.i (Final)",
        50,
        "FRD 2.h",
        TC_30_3,
        "FRD 5.a",
        early_end=False,
        tiebreak_games=0,
        random_openings=False,
        pairs_art="FRD 2.i",
        colours_art="FRD 2.b",
    ),
    "tcec-4k-minifinal": MatchRules(
        "tcec-4k-minifinal",
        "TCEC 4k 0.4/3.2 (MiniFinal)",
        50,
        "4k 0.4",
        TC_30_3,
        "4k 1.1",
        early_end=False,
        tiebreak_games=0,
        random_openings=False,
        pairs_art="4k 3.2",
        colours_art="4k (silent; as FRD 2.b)",
    ),
}

TIEBREAK_MATCH = "tiebreak-match"


def extra_pair_stage(n: int) -> str:
    return f"extra-pair-{n}"


def _seeded(state: StandingsState, engines: list[str]) -> tuple[str, str, str]:
    """(higher seed, lower seed, how the seeding was read)."""
    seeds: dict[str, int | None] = {p: state.players[p].seed for p in engines}
    a, b = engines
    sa, sb = seeds[a], seeds[b]
    if sa is not None and sb is not None and sa != sb:
        high, low = (a, b) if sa < sb else (b, a)
        return high, low, f"seeds: {high} #{min(sa, sb)}, {low} #{max(sa, sb)}"
    return (
        a,
        b,
        (
            f"seeding by registration order (no seeds in the standings fold): {a} is the higher "
            f"seed, {b} the lower"
        ),
    )


@dataclass
class _StageResult:
    view: StageView
    points: dict[str, int]
    complete: bool


def _match_stage(
    run: _Run,
    state: StandingsState,
    rules: MatchRules,
    stage: str,
    n_games: int,
    high: str,
    low: str,
    *,
    early_end: bool,
    what: str,
    art: str,
) -> _StageResult:
    """One stage of a match: pairs 1..n_games/2 (the lower seed White first), its games as
    scheduled, the points scored in it, whether it is complete (all games played, or the
    match adjudicated under Cup 3.a), and what to do next."""
    pairs = n_games // 2
    kind = "match" if n_games > 2 else "game_pair"
    openings: list[str] | None = None
    if rules.random_openings and stage != "main":
        openings = run.lot(
            state,
            "other",
            f"{stage} opening",
            stage,
            None,
            pairs,
            f"draw {pairs} random opening(s) from earlier opening books of the Season for "
            f"{stage}, one per game pair ({art})",
        )
    scoring = _scoring(state)
    by_round: dict[int, GameRecord] = {}
    for found in sorted(state.stage_games(stage), key=lambda g: (g.round, g.game_id)):
        if {found.white, found.black} != {high, low}:
            run.notes.append(
                f"game {found.game_id!r} in stage {stage!r} is between {found.white} and "
                f"{found.black}, not the two engines of the match: it is ignored; retract it"
            )
            run.stuck = True
        elif not 1 <= found.round <= n_games:
            run.notes.append(
                f"game {found.game_id!r} in stage {stage!r} round {found.round} is beyond the "
                f"{n_games} games of the stage ({art}); it is ignored"
            )
        else:
            by_round.setdefault(found.round, found)
    games: list[PlannedGame] = []
    points = {high: 0, low: 0}
    clinched_at: int | None = None
    void: list[str] = []
    for k in range(1, pairs + 1):
        pair_id = f"{stage}-p{k}"
        opening = openings[k - 1] if openings is not None else None
        pair_openings: list[str | None] = []
        for white, black, rnd in ((low, high, 2 * k - 1), (high, low, 2 * k)):
            rec = by_round.get(rnd)
            if rec is None:
                if clinched_at is None:
                    games.append(
                        PairedGame(
                            stage,
                            rnd,
                            f"{stage}-g{rnd}",
                            white,
                            black,
                            rules.time_control,
                            pair_id=pair_id,
                            opening=opening,
                        )
                    )
                continue
            if rec.white != white:
                run.notes.append(
                    f"{rec.game_id}: scheduled with {rec.white} White, but {white} is White in "
                    f"game {rnd} ({rules.colours_art}); the scheduled game is used"
                )
            if openings is not None and rec.opening != opening:
                run.notes.append(
                    f"{rec.game_id}: opening {rec.opening!r}, but the lot drew {opening!r} for "
                    f"pair {k} ({art}); the scheduled game is used"
                )
            pair_openings.append(rec.opening)
            game = PairedGame(
                stage,
                rnd,
                rec.game_id,
                rec.white,
                rec.black,
                rules.time_control,
                result=_result(rec),
                scheduled=True,
                pair_id=rec.pair_id,
                opening=rec.opening,
            )
            games.append(game)
            if clinched_at is not None:
                void.append(rec.game_id)
                continue
            got = _game_points(rec, scoring)
            if got is not None:
                points[rec.white] += got[0]
                points[rec.black] += got[1]
                if early_end and all(g.result is not None for g in games):
                    # Cup 3.a: decisive within the set number of games once the margin exceeds
                    # what the remaining games can give the trailing engine.
                    remaining = n_games - rnd
                    margin = abs(points[high] - points[low])
                    if margin > remaining * (scoring.win - scoring.loss) and remaining:
                        clinched_at = rnd
        if len(pair_openings) == 2 and pair_openings[0] != pair_openings[1]:
            run.notes.append(
                f"pair {k} of {stage} was played with two openings ({pair_openings[0]!r}, "
                f"{pair_openings[1]!r}); a pair reverses colours with the same opening "
                "(Cup 3.a, 4.c)"
            )
    if clinched_at is not None:
        leader = high if points[high] > points[low] else low
        run.notes.append(
            f"{stage}: after game {clinched_at} {leader} leads {half_points(points[leader])}–"
            f"{half_points(min(points.values()))} and cannot be caught in the {n_games} games: "
            "the match is adjudicated (Cup 3.a)"
            + (f"; {', '.join(void)} void" if void else "; the remaining games are not played")
        )
    scored = [g for g in games if g.game_id not in void]
    complete = clinched_at is not None or (
        len(scored) == n_games and all(g.result is not None for g in scored)
    )
    if not complete:
        # One game at a time (Leagues 1.5), one pair scheduled at a time: the result of the
        # next scheduled game (Cup 3.a may end the match after it), or else the next pair.
        waiting = [g for g in scored if g.scheduled and g.result is None]
        if waiting:
            run.ask(stage, waiting[:1], what, art)
        else:
            todo = [g for g in scored if not g.scheduled]
            first = todo[0].round if todo else 0
            pair = [g for g in todo if (g.round + 1) // 2 == (first + 1) // 2]
            if openings is not None or not (rules.random_openings and stage != "main"):
                run.ask(stage, pair, what, art)
        if not early_end and stage == "main":
            remaining = n_games - sum(1 for g in scored if g.result is not None)
            margin = abs(points[high] - points[low])
            if remaining and margin > remaining * (scoring.win - scoring.loss):
                leader = high if points[high] > points[low] else low
                run.notes.append(
                    f"{leader} has won the match on points, but all {n_games} games are "
                    f"played ({'Leagues 7.4' if rules.tiebreak_games else rules.games_art})"
                )
    view = StageView(
        stage,
        kind,
        (high, low),
        tuple(games),
        scores=((high, half_points(points[high])), (low, half_points(points[low]))),
        complete=complete,
    )
    return _StageResult(view, points, complete)


def _not_a_match(kind: str, rule: str, status: Status, text: str) -> PlayoffView:
    return PlayoffView(kind, status, rule, notes=(text,))


def match(state: StandingsState) -> PlayoffView:
    """A TCEC head-to-head match (Cup 3, Leagues 7, FRD 2.h/2.i, 4k 3.2); see the module
    docstring."""
    created = state.created
    preset = created.rules_preset if created is not None else None
    rules = MATCH_RULES.get(preset or "")
    if created is None or rules is None:
        return _not_a_match(
            "tcec-match",
            "TCEC matches",
            "not_needed",
            f"rules_preset {preset!r} is not a TCEC match ({', '.join(sorted(MATCH_RULES))})",
        )
    engines = [pid for pid, info in state.players.items() if info.kind == "engine"]
    if len(engines) != 2:
        return _not_a_match(
            rules.kind,
            rules.rule,
            "waiting",
            f"a match is between two registered engines; {len(engines)} are registered",
        )
    run = _Run()
    high, low, seeding = _seeded(state, engines)
    run.notes.append(
        f"{seeding}; {low} is White in the first game of every pair ({rules.colours_art})"
    )
    if rules.games is None:
        if created.rounds is None or created.rounds % 2:
            text = (
                f"the number of game pairs is not set ({rules.games_art}): the tournament's "
                f"rounds must be twice the pairs, it is {created.rounds}"
            )
            return PlayoffView(
                rules.kind,
                "awaiting_ruling",
                rules.rule,
                still_in=(high, low),
                required_next=(Requirement("ruling", "main", text),),
                notes=(*run.notes, text),
            )
        n_games = created.rounds
    else:
        n_games = rules.games
        if created.rounds is not None and created.rounds != n_games:
            run.notes.append(
                f"TournamentCreated.rounds = {created.rounds} is not used: {rules.games_art} "
                f"fix {n_games} games"
            )
    known = {"main"}
    players = (high, low)

    def view(status: Status, winner: str | None = None, tied: tuple[str, ...] = ()) -> PlayoffView:
        for stage in sorted({g.stage for g in state.games.values()} - known):
            run.notes.append(f"stage {stage!r} is not part of the match (yet); it is ignored")
        loser = None if winner is None else (low if winner == high else high)
        return PlayoffView(
            rules.kind,
            status,
            rules.rule,
            tied=tied,
            still_in=players if winner is None else (winner,),
            eliminated=() if loser is None else (loser,),
            stages=tuple(run.stages),
            required_next=() if winner is not None else tuple(run.required),
            final_order=() if winner is None or loser is None else ((winner,), (loser,)),
            notes=tuple(run.notes),
        )

    def leader(points: dict[str, int]) -> str | None:
        if points[high] == points[low]:
            return None
        return high if points[high] > points[low] else low

    main = _match_stage(
        run,
        state,
        rules,
        "main",
        n_games,
        high,
        low,
        early_end=rules.early_end,
        what=f"the match ({n_games} games)",
        art=f"{rules.games_art}, {rules.tc_art}",
    )
    run.stages.append(main.view)
    if not main.complete:
        return view(run.status())
    winner = leader(main.points)
    if winner is not None:
        run.notes.append(f"{winner} wins the match {_score(main.points, high, low)}")
        return view("decided", winner)
    tied = players
    run.notes.append(f"level after {n_games} games ({_score(main.points, high, low)})")
    if rules.tiebreak_games:
        known.add(TIEBREAK_MATCH)
        tb = _match_stage(
            run,
            state,
            rules,
            TIEBREAK_MATCH,
            rules.tiebreak_games,
            high,
            low,
            early_end=False,
            what=f"the tiebreak match ({rules.tiebreak_games} games)",
            art=f"Leagues 7.5, {rules.tc_art}",
        )
        run.stages.append(tb.view)
        if not tb.complete:
            return view(run.status(), tied=tied)
        winner = leader(tb.points)
        if winner is not None:
            run.notes.append(f"{winner} wins the tiebreak match {_score(tb.points, high, low)}")
            return view("decided", winner, tied)
        run.notes.append(f"the tiebreak match is level ({_score(tb.points, high, low)})")
    n = 0
    while True:
        n += 1
        stage = extra_pair_stage(n)
        known.add(stage)
        pair = _match_stage(
            run,
            state,
            rules,
            stage,
            2,
            high,
            low,
            early_end=False,
            what=f"extra game pair {n}",
            art=f"{rules.pairs_art}, {rules.tc_art}",
        )
        run.stages.append(pair.view)
        if not pair.complete:
            return view(run.status(), tied=tied)
        winner = leader(pair.points)
        if winner is not None:
            run.notes.append(
                f"{winner} wins extra pair {n} {_score(pair.points, high, low)}: the decisive "
                f"pair ({rules.pairs_art})"
            )
            return view("decided", winner, tied)
        run.notes.append(f"extra pair {n} is drawn ({_score(pair.points, high, low)})")


def _score(points: dict[str, int], high: str, low: str) -> str:
    return f"{high} {half_points(points[high])}–{half_points(points[low])} {low}"
