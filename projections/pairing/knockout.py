"""The TCEC Cup bracket as a pairing system (tcec-rules "TCEC Cup rules" 1–3).

`propose(ctx)` returns the next `RoundScheduled` of the Cup, `bracket(ctx)` the bracket so far
(for `arbiter schedule`). Both are pure functions of the `PairingContext` of the Cup's stage:
they replay the stage's scheduled rounds and the results in force from the bracket's first
line-up, so the bracket advances by itself as matches are decided.

Field and seeds (Cup 1.c–1.e, 2.b). The field is every registered player of the tournament;
it must be a power of two from 2 to 32. The 32 of Cup 1.c; smaller fields (16, 8, 4, 2) run the
same scheme from the round of their size. Each player's seed is `PlayerRegistered.seed`, set
by the stage that produced it (Cup 1.d: the last Swiss's final standings; 1.e: the last Cup's
winner is seed 1); seeds must be present and distinct, and rank the players (1 is the top).

Reading of Cup 2.c.1 against 1.d. 2.c.1 pre-seeds "the top 8 engines in the final standings of
the last completed TCEC league event before the Cup", 1.d seeds the field "according to ... the
last TCEC Swiss final standings", and 2.a puts the Cup after the Swiss. We read both as the same
standings: the Swiss is the last completed league event before the Cup, and the pre-seeded
top 8 are seeds 1–8 as registered (1.e's Cup holder included: if it is not in the Swiss's top
8, the Swiss's 8th becomes seed 9 and is placed by lot).

EDPS8-RRC (Cup 2.c). The bracket has N lines (0-based, top to bottom); the matches of the first
bracket round are lines (0, 1), (2, 3), ...; the winners of matches 2m and 2m+1 meet next.
"Equal distance" is the bracket the Cup used before EDPS8 (TCEC Cup 6 and 7: seed s meets seed
s + N/2 in the first round, s + N/4 next, ..., seed 1 meets seed 2 only in the final): seed s
sits on line `bitreverse(s − 1)` over log2(N) bits. EDPS8 keeps that placement for seeds 1–8
only (2.c.1): in 32 lines they sit on lines 0, 16, 8, 24, 4, 20, 12, 28 (one in each quarter of
a quarter, seeds 1 and 2 in opposite halves, 1–4 in different quarters, 1–8 in different
eighths: the quarter-finals are 1–5, 3–7, 2–6, 4–8 if the seeds win). The other N − 8 lines are
open and filled by lot (2.c.2): `LotRequest(purpose="bracket", subject="<stage> bracket",
candidates=<the unseeded players by seed>)`, an ordering of them all; the k-th engine of the
outcome takes the k-th open line from the top. A field of 8 or fewer is placed wholly by seed
and needs no lot; a field of 16 has seeds 1–8 on the even lines and 8 engines by lot.

Bracket rounds and match lengths (Cup 2.d, 2.e, 3.c): round of 32 (2 game pairs), round of 16
(3), quarter-finals (4), semi-finals (6), then the final (12 pairs) and the bronze match of the
two losing semi-finalists (8 pairs) together. Reading of 3.c against 3.d: 3.d's "(2, 3, 4, 5,
or 6, as described above)" refers back to 3.c and does not match it (3.c has no round of 5
pairs and adds 8 and 12); we follow 3.c, the article that sets the lengths.

Matches (Cup 3). A match is pairs of games, the second of a pair with reversed colours and the
same opening (3.a, 4.c); the lower seed (larger seed number) is White in the first game of every
pair (3.b). When a match is decided (3.a early adjudication, 3.d/3.e tiebreak pairs until one
is decisive) is the Cup match machine's: `projections.playoffs.tcec_match.cup_decision`, cited
there; no further games are scheduled for a decided match. Points are the tournament's scoring.

Stage and rounds (reading). The Cup is one stage (the context's, e.g. "cup"), its rounds
numbered consecutively from 1. A `RoundScheduled` holds one game for every match still
undecided in the current bracket round (the decider refuses a player twice in a round, so the
two games of a pair are two consecutive rounds with the same `pair_id`). All matches of a
bracket round start together, so their pairs stay in step; a match decided early (3.a) simply
has no game in the later rounds. Once every match of a bracket round is decided, the next round
opens the next bracket round (the final and the bronze match share their rounds; once the bronze
match is decided the final goes on alone). One game at a time per match: a round is proposed
only when every game of the stage has a result, since the result may end the match (3.a) and
decides who plays on (refused otherwise with rule `pairing.round_unfinished`).

Ids: the match `<code>-m<k>` (`r32-m01`, `r16-m03`, `qf-m2`, `sf-m1`) or `final` / `bronze`;
game `<stage>-<match>-g<n>`, pair `<stage>-<match>-p<k>` (tiebreak pairs continue the count).
Openings (Cup 4) come from the Cup's pre-randomised books outside Arbiter: the first game of a
pair is proposed without an opening, the second repeats the first game's opening if it was
scheduled with one.

A scheduled game is attributed to the match of its two players in the bracket round being
played (it is still counted if its colours differ from the prescription, with a note); a game
between engines that do not form a match of that bracket round, or one in a match already
decided, is ignored with a note.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from events_schema import events as ev
from projections.mentions import said, templated, who
from projections.pairing.base import (
    LotRequest,
    PairingContext,
    PairingRefused,
    PairingSystem,
    Preview,
    Proposal,
    ranked_by_seed,
)
from projections.playoffs.tcec_match import CupDecision, cup_decision
from projections.standings.crosstable import Game
from projections.tiebreaks.registry import half_points

name = "tcec-cup"

#: Cup 1.c / 2.b: 32 qualifying engines; smaller powers of two run the same scheme.
FIELD_SIZES = (2, 4, 8, 16, 32)
#: Cup 2.c.1: the top 8 are equal-distance pre-seeded.
PRESEEDED = 8
#: Cup 3.c: game pairs per match, by the number of engines in the bracket round.
REGULAR_PAIRS: Mapping[int, int] = {32: 2, 16: 3, 8: 4, 4: 6, 2: 12}
#: Cup 3.c: the bronze match (2.e "small final").
BRONZE_PAIRS = 8
ROUND_NAMES: Mapping[int, tuple[str, str]] = {
    32: ("r32", "round of 32"),
    16: ("r16", "round of 16"),
    8: ("qf", "quarter-finals"),
    4: ("sf", "semi-finals"),
    2: ("final", "final and bronze match"),
}
LOT_RULE = "tcec-rules Cup 2.c.2 (EDPS8-RRC: the other engines placed randomly)"

Decision = CupDecision  # "early" (Cup 3.a), "regular", "tiebreak" (3.d/3.e)


def lot_subject(stage: str) -> str:
    """The `LotDrawn.subject` of the bracket lot (Cup 2.c.2)."""
    return f"{stage} bracket"


@dataclass(frozen=True)
class CupGame:
    """A scheduled game of a match, in the match's order (game `number`, pair `pair`)."""

    number: int
    pair: int
    round: int
    game_id: str
    white: str
    black: str
    pair_id: str | None
    opening: str | None
    result: str | None  # the result in force, None while pending
    white_points: int | None  # half-points under the tournament's scoring
    black_points: int | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "pair": self.pair,
            "round": self.round,
            "game_id": self.game_id,
            "white": self.white,
            "black": self.black,
            "pair_id": self.pair_id,
            "opening": self.opening,
            "result": self.result,
        }


@dataclass(frozen=True)
class CupMatch:
    """One match of the bracket: `high` is the higher seed (smaller number)."""

    match_id: str
    high: str
    low: str
    high_seed: int
    low_seed: int
    pairs: int  # regular game pairs (Cup 3.c)
    games: tuple[CupGame, ...] = ()
    high_points: int = 0  # half-points
    low_points: int = 0
    winner: str | None = None
    decided: Decision | None = None
    decided_after: int | None = None  # the game after which it was decided

    @property
    def regular_games(self) -> int:
        return 2 * self.pairs

    @property
    def loser(self) -> str | None:
        if self.winner is None:
            return None
        return self.low if self.winner == self.high else self.high

    @property
    def score(self) -> str:
        return f"{half_points(self.high_points)}–{half_points(self.low_points)}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "match_id": self.match_id,
            "high": self.high,
            "low": self.low,
            "high_seed": self.high_seed,
            "low_seed": self.low_seed,
            "pairs": self.pairs,
            "games": [g.as_dict() for g in self.games],
            # machine-readable: integer half-points, no display glyphs
            "half_points": {self.high: self.high_points, self.low: self.low_points},
            "winner": self.winner,
            "loser": self.loser,
            "decided": self.decided,
            "decided_after": self.decided_after,
        }


@dataclass(frozen=True)
class CupRound:
    """One bracket round (the last holds the final and the bronze match)."""

    code: str
    title: str
    entrants: int
    matches: tuple[CupMatch, ...]
    first_round: int | None  # the stage round its first games were scheduled in

    @property
    def complete(self) -> bool:
        return all(m.winner is not None for m in self.matches)

    def as_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "title": self.title,
            "entrants": self.entrants,
            "first_round": self.first_round,
            "complete": self.complete,
            "matches": [m.as_dict() for m in self.matches],
        }


@dataclass(frozen=True)
class Bracket:
    """The Cup so far: seeds, the first round's lines, the bracket rounds reached."""

    stage: str
    size: int
    seeds: tuple[tuple[str, int], ...]  # by seed
    lines: tuple[str | None, ...]  # the first round's lines; None: open, awaiting the lot
    rounds: tuple[CupRound, ...] = ()
    lot: LotRequest | None = None  # the bracket lot still to draw (Cup 2.c.2)
    notes: tuple[str, ...] = ()

    @property
    def current(self) -> CupRound | None:
        """The bracket round being played (or about to start); None once the Cup is over."""
        for r in self.rounds:
            if not r.complete:
                return r
        return None

    @property
    def final_order(self) -> tuple[str, ...]:
        """Places 1–4 once decided (Cup 2.e: the final, then the bronze match)."""
        if not self.rounds or self.current is not None:
            return ()
        last = self.rounds[-1].matches
        order: list[str] = []
        for m in last:  # the final first, then the bronze match
            assert m.winner is not None and m.loser is not None
            order += [m.winner, m.loser]
        return tuple(order)

    @property
    def champion(self) -> str | None:
        order = self.final_order
        return order[0] if order else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "stage": self.stage,
            "size": self.size,
            "seeds": dict(self.seeds),
            "lines": list(self.lines),
            "rounds": [r.as_dict() for r in self.rounds],
            "lot": None
            if self.lot is None
            else {
                "purpose": self.lot.purpose,
                "subject": self.lot.subject,
                "candidates": list(self.lot.candidates),
                "pick": self.lot.pick,
                "rule": self.lot.rule,
            },
            "champion": self.champion,
            "final_order": list(self.final_order),
            # The notes with ids (said), and as templates to say with names (the edge).
            "notes": [said(n) for n in self.notes],
            **(
                {"note_templates": list(self.notes)}
                if any(templated(n) for n in self.notes)
                else {}
            ),
        }


# --- field, seeds and lines -----------------------------------------------------------------


def _field(ctx: PairingContext) -> list[tuple[str, int]]:
    """The players by seed (Cup 1.c–1.e): all registered, seeded, distinct seeds, a power of
    two from 2 to 32."""
    players = list(ctx.players.values())
    if len(players) not in FIELD_SIZES:
        raise PairingRefused(
            "tcec-cup.field",
            "players",
            f"a TCEC Cup bracket needs a power of two from 2 to 32 engines (Cup 1.c, 2.b); "
            f"{len(players)} are registered",
        )
    missing = [h.player_id for h in players if h.seed is None]
    if missing:
        raise PairingRefused(
            "tcec-cup.seeds",
            "seed",
            f"{', '.join(missing)} ha{'s' if len(missing) == 1 else 've'} no seed: the Cup is "
            "seeded by the last Swiss's final standings, the last Cup's winner seeded 1 "
            "(Cup 1.d, 1.e); register every engine with its seed",
        )
    seeded = sorted((h.seed, h.player_id) for h in players if h.seed is not None)
    for (s1, p1), (s2, p2) in pairwise(seeded):
        if s1 == s2:
            raise PairingRefused(
                "tcec-cup.seeds", "seed", f"{p1} and {p2} share seed {s1} (Cup 1.d)"
            )
    return [(p, s) for s, p in seeded]


def _bitreverse(value: int, bits: int) -> int:
    out = 0
    for _ in range(bits):
        out = (out << 1) | (value & 1)
        value >>= 1
    return out


def seeded_lines(size: int) -> list[int]:
    """The lines of seeds 1..min(8, size) in a bracket of `size` lines (Cup 2.c.1, equal
    distance: seed s on line bitreverse(s − 1))."""
    bits = size.bit_length() - 1
    return [_bitreverse(s, bits) for s in range(min(PRESEEDED, size))]


def _lines(
    ctx: PairingContext, by_seed: list[tuple[str, int]]
) -> tuple[list[str | None], LotRequest | None]:
    """The first round's lines: seeds 1–8 equal distance, the others by the lot (Cup 2.c)."""
    size = len(by_seed)
    lines: list[str | None] = [None] * size
    for (pid, _), line in zip(by_seed, seeded_lines(size), strict=False):
        lines[line] = pid
    others = tuple(pid for pid, _ in by_seed[PRESEEDED:])
    if not others:
        return lines, None
    subject = lot_subject(ctx.stage)
    lot = ctx.lot(subject)
    if lot is None:
        return lines, LotRequest("bracket", subject, others, None, LOT_RULE)
    if lot.purpose != "bracket" or sorted(lot.outcome) != sorted(others):
        raise PairingRefused(
            "lot.mismatch",
            "lots",
            f"the lot {subject!r} drew {lot.outcome} but the open lines take exactly "
            f"{list(others)} ({LOT_RULE}); retract it and draw again",
        )
    open_lines = [i for i, p in enumerate(lines) if p is None]
    for line, pid in zip(open_lines, lot.outcome, strict=True):
        lines[line] = pid
    return lines, None


# --- matches --------------------------------------------------------------------------------


@dataclass
class _Match:
    """A match while the stage's rounds are replayed."""

    match_id: str
    high: str
    low: str
    high_seed: int
    low_seed: int
    pairs: int
    games: list[CupGame] = field(default_factory=list)

    def players(self) -> frozenset[str]:
        return frozenset((self.high, self.low))

    def decide(self, scoring: ev.Scoring) -> CupMatch:
        """The match from its games, decided by the Cup match machine's rule (`cup_decision`:
        Cup 3.a, 3.d, 3.e)."""
        outcome = cup_decision(
            self.high,
            self.low,
            [
                None
                if g.white_points is None or g.black_points is None
                else {g.white: g.white_points, g.black: g.black_points}
                for g in self.games
            ],
            2 * self.pairs,
            scoring,
        )
        winner, how, after = outcome.winner, outcome.how, outcome.after
        counted = self.games if after is None else self.games[:after]
        high_points = sum(_points_of(g, self.high) for g in counted)
        low_points = sum(_points_of(g, self.low) for g in counted)
        return CupMatch(
            self.match_id,
            self.high,
            self.low,
            self.high_seed,
            self.low_seed,
            self.pairs,
            tuple(self.games),
            high_points,
            low_points,
            winner,
            how,
            after,
        )


def _points_of(g: CupGame, pid: str) -> int:
    got = g.white_points if pid == g.white else g.black_points
    return got or 0


def _match(match_id: str, a: str, b: str, seeds: Mapping[str, int], pairs: int) -> _Match:
    high, low = (a, b) if seeds[a] < seeds[b] else (b, a)
    return _Match(match_id, high, low, seeds[high], seeds[low], pairs)


def _first_matches(lines: Sequence[str], seeds: Mapping[str, int]) -> list[_Match]:
    size = len(lines)
    code = ROUND_NAMES[size][0]
    if size == 2:
        return [_match("final", lines[0], lines[1], seeds, REGULAR_PAIRS[2])]
    width = len(str(size // 2))
    return [
        _match(
            f"{code}-m{k + 1:0{width}d}", lines[2 * k], lines[2 * k + 1], seeds, REGULAR_PAIRS[size]
        )
        for k in range(size // 2)
    ]


def _next_matches(done: Sequence[CupMatch], seeds: Mapping[str, int]) -> list[_Match]:
    """The next bracket round: winners of matches 2m and 2m+1 (Cup 2.b); after the
    semi-finals, the final and the bronze match of the two losers (Cup 2.d, 2.e, 3.c)."""
    winners = [m.winner for m in done if m.winner is not None]
    if len(done) == 2:
        losers = [m.loser for m in done if m.loser is not None]
        return [
            _match("final", winners[0], winners[1], seeds, REGULAR_PAIRS[2]),
            _match("bronze", losers[0], losers[1], seeds, BRONZE_PAIRS),
        ]
    return _first_matches(winners, seeds)


def _game(
    ctx: PairingContext, m: _Match, rnd: int, p: ev.Pairing, results: Mapping[str, Game]
) -> CupGame:
    number = len(m.games) + 1
    g = results.get(p.game_id)
    return CupGame(
        number=number,
        pair=(number + 1) // 2,
        round=rnd,
        game_id=p.game_id,
        white=p.white,
        black=p.black,
        pair_id=p.pair_id,
        opening=p.opening,
        result=None if g is None else g.result,
        white_points=None if g is None else g.white_points,
        black_points=None if g is None else g.black_points,
    )


def _prescribed_white(m: _Match | CupMatch, number: int) -> str:
    """Cup 3.b: the lower seed is White in the first game of every pair; 3.a: the second game
    of a pair reverses the colours."""
    return m.low if number % 2 == 1 else m.high


def bracket(ctx: PairingContext) -> Bracket:
    """The bracket so far: seeds, lines, and every bracket round reached, with its matches,
    games, scores and winners (see the module docstring). Raises `PairingRefused` when the
    field cannot make a bracket (size, seeds, a lot that does not fit)."""
    by_seed = _field(ctx)
    seeds = dict(by_seed)
    lines, lot = _lines(ctx, by_seed)
    base = Bracket(ctx.stage, len(by_seed), tuple(by_seed), tuple(lines))
    if lot is not None:
        return Bracket(
            base.stage,
            base.size,
            base.seeds,
            base.lines,
            lot=lot,
            notes=(
                f"the {len(lot.candidates)} unseeded engines await the bracket lot ({LOT_RULE})",
            ),
        )
    full = [p for p in lines if p is not None]
    results = {g.game_id: g for g in (ctx.crosstable.games if ctx.crosstable else ())}
    notes: list[str] = []
    rounds: list[CupRound] = []
    todo = sorted(ctx.scheduled.items())
    i = 0
    matches = _first_matches(full, seeds)
    size = len(full)
    while True:
        first_round: int | None = None
        decided = [m.decide(ctx.scoring) for m in matches]
        while i < len(todo) and not all(d.winner is not None for d in decided):
            rnd, sched = todo[i]
            i += 1
            first_round = rnd if first_round is None else first_round
            for p in sched.pairings:
                _attribute(ctx, matches, decided, rnd, p, results, notes)
            decided = [m.decide(ctx.scoring) for m in matches]
        code, title = ROUND_NAMES[size]
        rounds.append(CupRound(code, title, size, tuple(decided), first_round))
        if not all(d.winner is not None for d in decided) or size == 2:
            break
        matches = _next_matches(decided, seeds)
        size //= 2
    for rnd, sched in todo[i:]:
        for p in sched.pairings:
            notes.append(
                f"{p.game_id} (round {rnd}) comes after the Cup was decided; it is ignored"
            )
    return Bracket(base.stage, base.size, base.seeds, base.lines, tuple(rounds), None, tuple(notes))


def _attribute(
    ctx: PairingContext,
    matches: list[_Match],
    decided: list[CupMatch],
    rnd: int,
    p: ev.Pairing,
    results: Mapping[str, Game],
    notes: list[str],
) -> None:
    """Add a scheduled game to the match of its two players (see the module docstring)."""
    players = frozenset((p.white, p.black))
    for m, d in zip(matches, decided, strict=True):
        if m.players() != players:
            continue
        if d.winner is not None:
            notes.append(
                f"{p.game_id} (round {rnd}): match {m.match_id} was already decided "
                f"({who(d.winner)} wins {d.score}, Cup 3.a/3.e); the game is ignored"
            )
            return
        game = _game(ctx, m, rnd, p, results)
        white = _prescribed_white(m, game.number)
        if game.white != white:
            notes.append(
                f"{p.game_id}: scheduled with {who(game.white)} White, but {who(white)} is White "
                f"in game {game.number} of {m.match_id} (Cup 3.a/3.b); the scheduled game is used"
            )
        m.games.append(game)
        return
    notes.append(
        f"{p.game_id} (round {rnd}): {who(p.white)} – {who(p.black)} is not a match of this "
        "bracket round; the game is ignored"
    )


# --- proposing the next round ---------------------------------------------------------------


def _require_results(ctx: PairingContext) -> None:
    """Cup 3.a: a match may be decided by any game, so the next round waits for every result."""
    results = {g.game_id for g in (ctx.crosstable.games if ctx.crosstable else ())}
    for rnd, sched in sorted(ctx.scheduled.items()):
        for p in sched.pairings:
            if p.game_id not in results:
                raise PairingRefused(
                    "pairing.round_unfinished",
                    "round",
                    f"round {rnd} has games without a result (e.g. {p.game_id}: {p.white} – "
                    f"{p.black}); a Cup match may be decided by any game (Cup 3.a), so round "
                    f"{ctx.round} waits for them",
                )


def _next_pairing(ctx: PairingContext, m: CupMatch) -> ev.Pairing:
    number = len(m.games) + 1
    pair = (number + 1) // 2
    white = _prescribed_white(m, number)
    black = m.high if white == m.low else m.low
    opening = m.games[-1].opening if number % 2 == 0 and m.games else None
    return ev.Pairing(
        game_id=f"{ctx.stage}-{m.match_id}-g{number}",
        white=white,
        black=black,
        opening=opening,
        pair_id=f"{ctx.stage}-{m.match_id}-p{pair}",
    )


def _describe(m: CupMatch, number: int) -> str:
    pair = (number + 1) // 2
    if number <= m.regular_games:
        what = f"game {number} (pair {pair} of {m.pairs}, Cup 3.c)"
    else:
        k = (number - m.regular_games + 1) // 2
        what = (
            f"game {number}, tiebreak pair {k} (level {m.score} after {m.pairs} pairs, Cup 3.d/3.e)"
        )
    white = _prescribed_white(m, number)
    why = "the lower seed starts with White, Cup 3.b" if number % 2 else "colours reversed, Cup 3.a"
    return f"{m.match_id}: {what}; {who(white)} White ({why})"


def propose(ctx: PairingContext) -> Proposal:
    """The next round of the Cup: the bracket lot first (Cup 2.c.2), then one game for every
    match still undecided in the current bracket round; once a bracket round is decided, the
    first games of the next (the final with the bronze match). Refused while a game of the
    stage has no result, and once the Cup is decided."""
    if len(ctx.stage) > 40:
        raise PairingRefused(
            "tcec-cup.stage", "stage", "the Cup's stage name is too long for its game ids"
        )
    b = bracket(ctx)
    if b.lot is not None:
        return Proposal(lots=(b.lot,), notes=b.notes)
    _require_results(ctx)
    current = b.current
    if current is None:
        order = b.final_order
        raise PairingRefused(
            "tcec-cup.decided",
            "round",
            f"the Cup is decided: {order[0]} wins, {order[1]} second, "
            + (f"{order[2]} third (Cup 2.e)" if len(order) > 2 else "(Cup 2.e)"),
        )
    todo = [m for m in current.matches if m.winner is None]
    gone = [
        p
        for m in todo
        for p in (m.high, m.low)
        if p in ctx.players and not ctx.players[p].active_in(ctx.round)
    ]
    if gone:
        raise PairingRefused(
            "tcec-cup.withdrawn",
            "players",
            f"{', '.join(gone)} withdrew with a match undecided; the organisers decide the "
            "consequences (TCEC Season rules 0, 0.0) and record them as results or a ruling",
        )
    pairings = [_next_pairing(ctx, m) for m in todo]
    notes = [f"{current.title} ({current.code})"]
    notes += [_describe(m, len(m.games) + 1) for m in todo]
    notes += list(b.notes)
    return Proposal(
        round=ev.RoundScheduled(round=ctx.round, stage=ctx.stage, pairings=pairings),
        notes=tuple(notes),
    )


def preview(ctx: PairingContext) -> Preview:
    """`arbiter schedule`'s bracket so far (`bracket`)."""
    return Preview(extra={"bracket": bracket(ctx).as_dict()})


SYSTEM = PairingSystem(
    name=name,
    rule="tcec-rules Cup 1-3",
    propose=propose,
    pairing_numbers=ranked_by_seed,  # Cup 1.d: the organisers' seeding, seed 1 first
    preview=preview,
)
