"""TCEC head-to-head matches: Cup 3, Superfinal (Leagues 7), FRD final (2.h/2.i), 4k MiniFinal
(0.4/3.2); the Premier Division Conditional Tiebreak is in `tcec_conditional`.

The machine is a pure function of the standings fold (`StandingsState`): it reads the lots
drawn and the games of the stages it prescribes, and recomputes its whole view. It never draws
a lot, reads no clock and depends on no dict order. Articles are cited from
`shared/seeds/tcec-rules.txt`: "Leagues" (TCEC Leagues Season rules), "Cup" (TCEC Cup rules),
"FRD" (TCEC FRD rules), "4k" (TCEC 4k rules).

`match(state)` — a two-engine match; the two registered engines, seeded by `PlayerInfo.seed`
when the fold keeps it, otherwise by registration order (the higher seed registered first):

- `tcec-cup` (Cup 3): N game pairs, N = `TournamentCreated.rounds` / 2 (3.c; without an even
  `rounds` the view is `awaiting_ruling`); 30'+3" (5.a). The Cup's rules for when a match is
  decided are written once, below: `clinched` (3.a early adjudication), which this machine's
  main stage applies, and `cup_decision` (3.a, then 3.d/3.e tiebreak pairs until one is
  decisive) over a match's games in order, which the Cup bracket
  (`projections.pairing.knockout`) applies; a property test
  (tests/unit/projections/pairing/test_pairing_knockout.py) holds this machine's stages and
  `cup_decision` to the
  same winner, decided after the same game. Games after the decision are void.
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
per round), then for their results: one pair is scheduled at a time and one game's result
asked for at a time ("one game is played at a time", Leagues 1.5), so Cup 3.a can end the
match after any game (a game played after that is shown but void). A scheduled game is used as
it stands; where it differs from the prescription (colours, opening) a note says so. A lot that
does not fit, or a game between other engines in a match stage, stops the machine with
`awaiting_ruling` until it is retracted (and the lot drawn again).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import count
from typing import Literal

from events_schema import events as ev
from events_schema.events import TimeControl
from projections.outcome import scoring_of
from projections.playoffs.base import (
    Machine,
    PairedGame,
    PlannedGame,
    PlayoffView,
    Requirement,
    StageView,
    Status,
    recorded_points,
    result_of,
    who,
)
from projections.standings.state import GameRecord, StandingsState
from projections.standings.table import Table
from projections.tiebreaks.registry import half_points
from projections.time_controls import TC_30_3, TC_120_12

# TC_30_3: Cup 5.a, FRD 5.a, 4k 1.1.
# Leagues 7.2, 7.5, 7.6, 9.4.
TC_SUFI = TC_120_12


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
    r.kind: r
    for r in (
        MatchRules(
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
        MatchRules(
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
        MatchRules(
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
        MatchRules(
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
    )
}

TIEBREAK_MATCH = "tiebreak-match"

# ---------------------------------------------------------------------------------------------
# When a Cup match is decided (Cup 3.a, 3.d, 3.e), for the match machine below (`clinched`) and
# for the Cup bracket (projections/pairing/knockout.py, `cup_decision`).
# ---------------------------------------------------------------------------------------------

CupDecision = Literal["early", "regular", "tiebreak"]


def clinched(margin: int, remaining: int, scoring: ev.Scoring) -> bool:
    """Cup 3.a: "Cutechess-cli will adjudicate the match if a decisive result has been reached
    within the set number of games". Read: decided once the leader's `margin` (half-points)
    exceeds what the `remaining` regular games can give the trailing engine, a win against a
    loss each (`scoring`); never with no regular game left (the match is then complete)."""
    return remaining > 0 and abs(margin) > remaining * (scoring.win - scoring.loss)


@dataclass(frozen=True)
class CupOutcome:
    """A Cup match's decision: the winner, how (3.a early, after the regular games, or by a
    tiebreak pair, 3.d/3.e) and the game (1-based, in match order) after which it was decided;
    all None while undecided. Games after `after` are void."""

    winner: str | None = None
    how: CupDecision | None = None
    after: int | None = None


def cup_decision(
    high: str,
    low: str,
    games: Sequence[Mapping[str, int] | None],
    regular_games: int,
    scoring: ev.Scoring,
) -> CupOutcome:
    """A Cup match between `high` and `low` from its games in match order, each the half-points
    each engine scored (None: no result yet; nothing after it is judged):

    * the regular games (3.c: `regular_games` = twice the pairs): decided early as soon as
      `clinched` (3.a), else after the last one if not level;
    * level after them: "a tiebreak will be played out immediately" (3.d), "as many additional
      game pairs that are needed to achieve a single decisive game pair" (3.e): the first pair
      in which one engine scores more decides, for that engine."""
    total = {high: 0, low: 0}
    pair = {high: 0, low: 0}
    for n, got in enumerate(games, start=1):
        if got is None:
            break
        for p in (high, low):
            total[p] += got.get(p, 0)
        margin = total[high] - total[low]
        leader = high if margin > 0 else low
        if n < regular_games:
            if clinched(margin, regular_games - n, scoring):
                return CupOutcome(leader, "early", n)
        elif n == regular_games:
            if margin:
                return CupOutcome(leader, "regular", n)
        else:
            first_of_pair = (n - regular_games) % 2 == 1
            for p in (high, low):
                pair[p] = (0 if first_of_pair else pair[p]) + got.get(p, 0)
            if not first_of_pair and pair[high] != pair[low]:
                return CupOutcome(high if pair[high] > pair[low] else low, "tiebreak", n)
    return CupOutcome()


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
            "seeding by registration order (no seeds in the standings fold): "
            f"{who(a)} is the higher seed, {who(b)} the lower"
        ),
    )


@dataclass(frozen=True)
class _Match:
    """The match being recomputed: its rules, its two engines, and what the run collects."""

    run: Machine
    state: StandingsState
    rules: MatchRules
    high: str
    low: str

    @property
    def scoring(self) -> ev.Scoring:
        return scoring_of(self.state.created)

    def leader(self, points: dict[str, int]) -> str | None:
        high, low = self.high, self.low
        if points[high] == points[low]:
            return None
        return high if points[high] > points[low] else low

    def decisive(self, points: dict[str, int], remaining: int) -> bool:
        """The margin exceeds what `remaining` games can give the trailing engine (`clinched`)."""
        return clinched(points[self.high] - points[self.low], remaining, self.scoring)

    def score(self, points: dict[str, int]) -> str:
        high, low = self.high, self.low
        return f"{who(high)} {half_points(points[high])}–{half_points(points[low])} {who(low)}"


@dataclass(frozen=True)
class _StageSpec:
    """One stage of a match: `n_games` games in pairs (the lower seed White first)."""

    name: str
    n_games: int
    early_end: bool  # Cup 3.a: adjudicated once decisive within the stage's games
    what: str
    art: str
    extra_pair: int = 0  # n for extra pair n

    @property
    def pairs(self) -> int:
        return self.n_games // 2


@dataclass
class _Tally:
    """What a stage's games have given so far."""

    points: dict[str, int]
    games: list[PlannedGame] = field(default_factory=list)
    clinched_at: int | None = None  # Cup 3.a: the game after which the match was decided
    void: list[str] = field(default_factory=list)  # games played after that


@dataclass
class _StageResult:
    view: StageView
    points: dict[str, int]
    complete: bool


def _random_openings(m: _Match, spec: _StageSpec) -> bool:
    """Leagues 7.5/7.6: the tiebreaks (not the main match) are played from random openings."""
    return m.rules.random_openings and spec.name != "main"


def _openings(m: _Match, spec: _StageSpec) -> list[str] | None:
    """The openings drawn for the stage's pairs, when it has random openings and the lot is
    in force."""
    if not _random_openings(m, spec):
        return None
    return m.run.lot(
        m.state,
        "other",
        f"{spec.name} opening",
        spec.name,
        None,
        spec.pairs,
        f"draw {spec.pairs} random opening(s) from earlier opening books of the Season for "
        f"{spec.name}, one per game pair ({spec.art})",
        extra={"candidates_from": "the openings of the Season's earlier books (Leagues 7.5)"},
    )


def _games_by_round(m: _Match, spec: _StageSpec) -> dict[int, GameRecord]:
    """The stage's scheduled games by round (one game per round); a game between other
    engines stops the match (retract it), one beyond the stage's games is ignored."""
    by_round: dict[int, GameRecord] = {}
    stage = spec.name
    for found in sorted(m.state.stage_games(stage), key=lambda g: (g.round, g.game_id)):
        if {found.white, found.black} != {m.high, m.low}:
            m.run.notes.append(
                f"game {found.game_id!r} in stage {stage!r} is between {found.white} and "
                f"{found.black}, not the two engines of the match: it is ignored; retract it"
            )
            m.run.stuck = True
        elif not 1 <= found.round <= spec.n_games:
            m.run.notes.append(
                f"game {found.game_id!r} in stage {stage!r} round {found.round} is beyond the "
                f"{spec.n_games} games of the stage ({spec.art}); it is ignored"
            )
        else:
            by_round.setdefault(found.round, found)
    return by_round


def _scheduled_game(
    m: _Match, spec: _StageSpec, rec: GameRecord, white: str, k: int, openings: list[str] | None
) -> PairedGame:
    """Game `rec` as scheduled, with a note where it differs from the prescription."""
    if rec.white != white:
        m.run.notes.append(
            f"{rec.game_id}: scheduled with {rec.white} White, but {white} is White in "
            f"game {rec.round} ({m.rules.colours_art}); the scheduled game is used"
        )
    if openings is not None and rec.opening != openings[k - 1]:
        m.run.notes.append(
            f"{rec.game_id}: opening {rec.opening!r}, but the lot drew {openings[k - 1]!r} for "
            f"pair {k} ({spec.art}); the scheduled game is used"
        )
    return PairedGame(
        spec.name,
        rec.round,
        rec.game_id,
        rec.white,
        rec.black,
        m.rules.time_control,
        result=result_of(m.state, rec.game_id),
        scheduled=True,
        pair_id=rec.pair_id,
        opening=rec.opening,
    )


def _count(m: _Match, spec: _StageSpec, tally: _Tally, rec: GameRecord) -> None:
    """Add a scheduled game's points; a game after the match was decided is void."""
    if tally.clinched_at is not None:
        tally.void.append(rec.game_id)
        return
    got = recorded_points(rec, m.scoring)
    if got is None:
        return
    tally.points[rec.white] += got[0]
    tally.points[rec.black] += got[1]
    # Cup 3.a (`clinched`), judged only once every earlier game has its result.
    if (
        spec.early_end
        and all(g.result is not None for g in tally.games)
        and m.decisive(tally.points, spec.n_games - rec.round)
    ):
        tally.clinched_at = rec.round


def _play_pair(
    m: _Match,
    spec: _StageSpec,
    tally: _Tally,
    k: int,
    openings: list[str] | None,
    by_round: dict[int, GameRecord],
) -> None:
    """Pair k: games 2k−1 (the lower seed White) and 2k, colours reversed, same opening."""
    pair_id = f"{spec.name}-p{k}"
    opening = openings[k - 1] if openings is not None else None
    pair_openings: list[str | None] = []
    for white, black, rnd in ((m.low, m.high, 2 * k - 1), (m.high, m.low, 2 * k)):
        rec = by_round.get(rnd)
        if rec is None:
            if tally.clinched_at is None:
                tally.games.append(
                    PairedGame(
                        spec.name,
                        rnd,
                        f"{spec.name}-g{rnd}",
                        white,
                        black,
                        m.rules.time_control,
                        pair_id=pair_id,
                        opening=opening,
                    )
                )
            continue
        pair_openings.append(rec.opening)
        tally.games.append(_scheduled_game(m, spec, rec, white, k, openings))
        _count(m, spec, tally, rec)
    if len(pair_openings) == 2 and pair_openings[0] != pair_openings[1]:
        m.run.notes.append(
            f"pair {k} of {spec.name} was played with two openings ({pair_openings[0]!r}, "
            f"{pair_openings[1]!r}); a pair reverses colours with the same opening "
            "(Cup 3.a, 4.c)"
        )


def _ask_next(
    m: _Match, spec: _StageSpec, scored: list[PlannedGame], openings: list[str] | None
) -> None:
    """One game at a time (Leagues 1.5), one pair scheduled at a time: the result of the
    next scheduled game (Cup 3.a may end the match after it), or else the next pair."""
    waiting = [g for g in scored if g.scheduled and g.result is None]
    if waiting:
        m.run.ask(spec.name, waiting[:1], spec.what, spec.art)
        return
    todo = [g for g in scored if not g.scheduled]
    first = todo[0].round if todo else 0
    pair = [g for g in todo if (g.round + 1) // 2 == (first + 1) // 2]
    if openings is not None or not _random_openings(m, spec):
        m.run.ask(spec.name, pair, spec.what, spec.art)


def _match_stage(m: _Match, spec: _StageSpec) -> _StageResult:
    """One stage of a match: pairs 1..n_games/2 (the lower seed White first), its games as
    scheduled, the points scored in it, whether it is complete (all games played, or the
    match adjudicated under Cup 3.a), and what to do next."""
    openings = _openings(m, spec)
    by_round = _games_by_round(m, spec)
    tally = _Tally(points={m.high: 0, m.low: 0})
    for k in range(1, spec.pairs + 1):
        _play_pair(m, spec, tally, k, openings, by_round)
    points, void = tally.points, tally.void
    if tally.clinched_at is not None:
        leader = m.leader(points)
        m.run.notes.append(
            f"{spec.name}: after game {tally.clinched_at} {leader} leads "
            f"{half_points(max(points.values()))}–{half_points(min(points.values()))} and "
            f"cannot be caught in the {spec.n_games} games: the match is adjudicated (Cup 3.a)"
            + (f"; {', '.join(void)} void" if void else "; the remaining games are not played")
        )
    scored = [g for g in tally.games if g.game_id not in void]
    complete = tally.clinched_at is not None or (
        len(scored) == spec.n_games and all(g.result is not None for g in scored)
    )
    if not complete:
        _ask_next(m, spec, scored, openings)
        played = sum(1 for g in scored if g.result is not None)
        if not spec.early_end and spec.name == "main" and m.decisive(points, spec.n_games - played):
            rules = m.rules
            m.run.notes.append(
                f"{m.leader(points)} has won the match on points, but all {spec.n_games} games "
                f"are played ({'Leagues 7.4' if rules.tiebreak_games else rules.games_art})"
            )
    view = StageView(
        spec.name,
        "match" if spec.n_games > 2 else "game_pair",
        (m.high, m.low),
        tuple(tally.games),
        scores=((m.high, half_points(points[m.high])), (m.low, half_points(points[m.low]))),
        half_points=((m.high, points[m.high]), (m.low, points[m.low])),
        complete=complete,
    )
    return _StageResult(view, points, complete)


def _not_a_match(kind: str, rule: str, status: Status, text: str) -> PlayoffView:
    return PlayoffView(kind, status, rule, notes=(text,))


def _games_in_match(created: ev.TournamentCreated, rules: MatchRules, run: Machine) -> int | None:
    """The regular games of the match: fixed by the rules, or twice the pairs the tournament
    set (Cup 3.c; None when it set no even `rounds`)."""
    if rules.games is None:
        if created.rounds is None or created.rounds % 2:
            return None
        return created.rounds
    if created.rounds is not None and created.rounds != rules.games:
        run.notes.append(
            f"TournamentCreated.rounds = {created.rounds} is not used: {rules.games_art} "
            f"fix {rules.games} games"
        )
    return rules.games


def _stages(rules: MatchRules, n_games: int) -> Iterator[_StageSpec]:
    """The stages in the order they are played: the match, Leagues 7.5's tiebreak match,
    then extra pairs until one is decisive (Cup 3.d/3.e, Leagues 7.6, FRD 2.i, 4k 3.2)."""
    yield _StageSpec(
        "main",
        n_games,
        rules.early_end,
        f"the match ({n_games} games)",
        f"{rules.games_art}, {rules.tc_art}",
    )
    if rules.tiebreak_games:
        yield _StageSpec(
            TIEBREAK_MATCH,
            rules.tiebreak_games,
            False,
            f"the tiebreak match ({rules.tiebreak_games} games)",
            f"Leagues 7.5, {rules.tc_art}",
        )
    for n in count(1):
        yield _StageSpec(
            extra_pair_stage(n),
            2,
            False,
            f"extra game pair {n}",
            f"{rules.pairs_art}, {rules.tc_art}",
            extra_pair=n,
        )


def _decided_text(m: _Match, spec: _StageSpec, winner: str | None, points: dict[str, int]) -> str:
    """The note on a completed stage: who won it, or that it is level."""
    score = m.score(points)
    if spec.name == "main":
        if winner is not None:
            return f"{who(winner)} wins the match {score}"
        return f"level after {spec.n_games} games ({score})"
    if spec.name == TIEBREAK_MATCH:
        if winner is not None:
            return f"{who(winner)} wins the tiebreak match {score}"
        return f"the tiebreak match is level ({score})"
    n = spec.extra_pair
    if winner is not None:
        return f"{who(winner)} wins extra pair {n} {score}: the decisive pair ({m.rules.pairs_art})"
    return f"extra pair {n} is drawn ({score})"


def match(state: StandingsState, table: Table | None = None) -> PlayoffView:
    """A TCEC head-to-head match (Cup 3, Leagues 7, FRD 2.h/2.i, 4k 3.2); see the module
    docstring. A match reads no standings table: `table` is accepted and not used."""
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
    run = Machine()
    high, low, seeding = _seeded(state, engines)
    run.notes.append(
        f"{seeding}; {low} is White in the first game of every pair ({rules.colours_art})"
    )
    n_games = _games_in_match(created, rules, run)
    if n_games is None:
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
    m = _Match(run, state, rules, high, low)
    known: set[str] = set()
    players = (high, low)
    tied: tuple[str, ...] = ()
    status: Status = "decided"
    winner = None
    for spec in _stages(rules, n_games):
        known.add(spec.name)
        stage = _match_stage(m, spec)
        run.stages.append(stage.view)
        if not stage.complete:
            status = run.status()
            break
        winner = m.leader(stage.points)
        run.notes.append(_decided_text(m, spec, winner, stage.points))
        if winner is not None:
            break
        tied = players
    for name in sorted({g.stage for g in state.games.values()} - known):
        run.notes.append(f"stage {name!r} is not part of the match (yet); it is ignored")
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
