"""The FIDE Dutch system (C.04.3, the 2025 text in force from 2026), through gacrux.

We do not pair by hand: gacrux 1.11.65 (Otto Milvang's TieBreakServer engine, MIT; it agreed
with bbpPairings on 152/152 rounds) pairs, and this module only translates. The version is
pinned (`GACRUX_VERSION`, pyproject.toml) because
tests/integration/commands/test_dutch_crosscheck.py
re-checks whole tournaments round by round against exactly this engine.

What goes in (`gacrux_input`), one gacrux competitor per player, cid = pairing number:

* **Pairing numbers** (C.04.3 art. 1.2.2, from the initial ranking of C.04.2 "Initial order"):
  `initial_ranking` - rating descending, unrated players last; then the FIDE title (GM, IM,
  WGM, FM, WIM, CM, WFM, WCM, none); then the organiser's `seed` (lower first); then the name
  (case-folded), then the player id, so the order is total. The whole field is ranked
  again for every round, so a late entry takes the number its rating gives it (art. 1.2.2:
  "subsequent modifications depending on possible late entries"); a withdrawn player keeps a
  number (gacrux's numbering counts whoever was ever paired).
* **Who is paired**: the players active in the round (`PairingContext.active`: a withdrawn
  player is absent), less those who asked for a half- or zero-point bye for it
  (`requested_byes`); the others are gacrux competitors that are not present.
* **History**, from the results in force (`PlayerHistory.rounds`), each side with its points
  under the tournament's scoring: a game played over the board (`played: True`, colours count);
  a forfeit (`played: False`: C.04.1 - it is not a game played, so the two may meet again and
  it gives no colour; a forfeit win still bars the pairing-allocated bye, C.04.1.d); a
  pairing-allocated bye (`result "P"`, no opponent, no colour); a requested bye (`"D"`/`"Z"`
  without opponent, not played); a round with no entry is an absence (0 points).
* **Initial colour** (C.04.3 art. 5.2.5, "E.5" of the 2017 text): drawn by lot before the
  first round - a `LotRequest(purpose="colours")`, subject `"<stage>:initial-colour"`.
* **Pairing score**: the score, plus (for systems built on this one, e.g. Galway's pairing
  bonus) virtual points per player and round, given to gacrux as its acceleration values
  (C.04.7's "pairing score"): floats are then judged on pairing scores too.

What comes out: gacrux's pairs in its board order (C.04.3 "Pairing and board order"), the
player without an opponent as `Bye(kind="pairing_allocated")`, game ids
`"<stage>-r<round>-b<board>"`.

Pure: gacrux is called with `verbose=0` (it prints nothing then), a fixed initial colour and a
fixed "random" value per competitor (otherwise it would draw them from `random`); it reads no
file and its clock readings only time its own phases. It is imported on first use (it pulls in
networkx, about 0.2 s).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any, Literal

from events_schema import events as ev
from projections.mentions import who
from projections.pairing.acceleration import baku_bonus, baku_rounds
from projections.pairing.base import (
    LotRequest,
    PairingContext,
    PairingRefused,
    PairingSystem,
    PlayerHistory,
    Proposal,
    RoundEntry,
    require_finished,
)

name = "dutch"

GACRUX_VERSION = "1.11.65"
RULES = "FIDE C.04.3 (Dutch), 2025 text, by gacrux " + GACRUX_VERSION

Colour = Literal["white", "black"]
ByeKind = Literal["half", "zero"]

#: C.04.3 art. 5.2.5: the initial colour, drawn by lot before the first round.
COLOUR_RULE = "C.04.3 art. 5.2.5 (initial colour, by lot)"
NOTE_NUMBERS = 40  # pairing numbers listed in a proposal's note


def colour_subject(stage: str) -> str:
    return f"{stage}:initial-colour"


def byes_subject(stage: str, rnd: int) -> str:
    """The `RulingIssued.subject` that carries the byes requested for a round."""
    return f"{stage}:r{rnd}:byes"


def game_id(stage: str, rnd: int, board: int) -> str:
    return f"{stage}-r{rnd}-b{board}"


#: A prohibited pairing: first round, last round (None: to the end), the players none of whom
#: may meet another (TRF26 record 260).
Prohibition = tuple[int, int | None, tuple[str, ...]]


@dataclass(frozen=True)
class DutchRound:
    """One round for gacrux to pair: round `rnd` among `order` (in pairing-number order, cid
    = index + 1), of whom `present` play; `players` holds everyone's history (opponents
    outside `order` included); `bonus[r][player]` adds half-points to the player's pairing
    score for round r (never to the score); `rounds` the tournament's (None: unknown)."""

    players: Mapping[str, PlayerHistory]
    order: Sequence[str]
    present: Collection[str]
    rnd: int
    scoring: ev.Scoring
    initial_colour: Colour
    rounds: int | None = None
    bonus: Mapping[int, Mapping[str, int]] | None = None
    # Prohibited pairings (TRF26 record 260): (first round, last round or None, players).
    prohibited: Sequence[Prohibition] = ()

    @classmethod
    def of(
        cls,
        ctx: PairingContext,
        order: Sequence[str],
        present: Collection[str],
        initial_colour: Colour,
        rounds: int | None,
        bonus: Mapping[int, Mapping[str, int]] | None = None,
    ) -> DutchRound:
        """Round `ctx.round` of the context's players, under its scoring, with the
        prohibited pairings in force (`prohibitions`)."""
        return cls(
            ctx.players,
            order,
            present,
            ctx.round,
            ctx.scoring,
            initial_colour,
            rounds,
            bonus,
            prohibitions(ctx),
        )


@dataclass(frozen=True)
class Paired:
    """One round as gacrux paired it: (white, black) by board, and the pairing-allocated bye."""

    pairs: tuple[tuple[str, str], ...]
    bye: str | None = None


# ---------------------------------------------------------------------------------------------
# Readings of the context
# ---------------------------------------------------------------------------------------------


#: C.04.2 "Initial order" b): GM, IM, WGM, FM, WIM, CM, WFM, WCM, then no title.
TITLE_ORDER = ("GM", "IM", "WGM", "FM", "WIM", "CM", "WFM", "WCM")


def _title_rank(title: str | None) -> int:
    t = (title or "").strip().upper()
    return TITLE_ORDER.index(t) if t in TITLE_ORDER else len(TITLE_ORDER)


def ranking_key(h: PlayerHistory) -> tuple[int, int, int, int, str, str]:
    """C.04.2 "Initial order": a) rating (descending; unrated last), b) FIDE title (GM, IM,
    WGM, FM, WIM, CM, WFM, WCM, none), c) alphabetically; the organiser's `seed` breaks what
    is still level before the name (a reading: C.04.2 leaves nothing else to the organiser)."""
    return (
        0 if h.rating is not None else 1,
        -(h.rating or 0),
        _title_rank(h.title),
        h.seed if h.seed is not None else 1 << 30,
        h.name.casefold(),
        h.player_id,
    )


def initial_ranking(players: Iterable[PlayerHistory]) -> tuple[str, ...]:
    """Player ids in initial-ranking order: index + 1 is the pairing number."""
    return tuple(h.player_id for h in sorted(players, key=ranking_key))


def requested_byes(ctx: PairingContext) -> dict[str, ByeKind]:
    """Byes asked for in the round to pair (C.04.2 "requested byes"): the latest
    `RulingIssued` with subject `byes_subject(stage, round)` and
    `decision={"byes": {player_id: "half" | "zero"}}`. Only active players count."""
    ruling = ctx.ruling(byes_subject(ctx.stage, ctx.round))
    if ruling is None:
        return {}
    raw = ruling.decision.get("byes", {})
    if not isinstance(raw, Mapping):
        raise PairingRefused(
            "pairing.byes_malformed",
            "decision.byes",
            f"ruling {ruling.ruling_id}: byes must map player ids to 'half' or 'zero'",
        )
    active = set(ctx.active)
    out: dict[str, ByeKind] = {}
    for pid, kind in raw.items():
        if kind not in ("half", "zero"):
            raise PairingRefused(
                "pairing.byes_malformed",
                "decision.byes",
                f"ruling {ruling.ruling_id}: {pid}'s bye must be 'half' or 'zero', not {kind!r}",
            )
        if pid in active:
            out[str(pid)] = kind
    return out


def initial_colour(ctx: PairingContext) -> Colour | LotRequest:
    """The initial colour drawn for the stage, or the lot to draw it."""
    subject = colour_subject(ctx.stage)
    lot = ctx.lot(subject)
    if lot is None:
        return LotRequest("colours", subject, ("black", "white"), pick=1, rule=COLOUR_RULE)
    drawn = lot.outcome[0] if lot.outcome else ""
    if drawn not in ("white", "black"):
        raise PairingRefused(
            "pairing.lot_malformed",
            "outcome",
            f"lot {subject!r} drew {drawn!r}; the initial colour is 'white' or 'black'",
        )
    return "white" if drawn == "white" else "black"


def prohibitions(ctx: PairingContext) -> tuple[Prohibition, ...]:
    """The prohibited pairings in force (`PairingsProhibited`, TRF26 record 260)."""
    return tuple((p.first_round, p.last_round, tuple(p.players)) for p in ctx.prohibitions)


def baku_fields(ctx: PairingContext) -> dict[int, frozenset[str]]:
    """The players to be paired in each accelerated round of the Baku acceleration (FIDE
    C.04.5.1): a round already paired, the players it scheduled (its games and byes, the
    requested ones included); the round to pair and later ones, the players active in them
    (late entries included, withdrawn players not)."""
    rounds = ctx.created.rounds
    if rounds is None:
        return {}
    _, accelerated = baku_rounds(rounds)
    fields: dict[int, frozenset[str]] = {}
    for r in range(1, accelerated + 1):
        sched = ctx.scheduled.get(r) if r < ctx.round else None
        if sched is not None:
            fields[r] = frozenset(
                {p for g in sched.pairings for p in (g.white, g.black)}
                | {b.player_id for b in sched.byes}
            )
        else:
            fields[r] = frozenset(p for p, h in ctx.players.items() if h.active_in(r))
    return fields


def baku_virtual_points(ctx: PairingContext) -> dict[int, dict[str, int]]:
    """FIDE C.04.5.1's virtual points as the field stands (`projections/pairing/
    acceleration.py`): GA read from the players to be paired in each accelerated round, by
    the initial order of the whole field (`initial_ranking`, late entries included)."""
    rounds = ctx.created.rounds
    if rounds is None:
        return {}
    return baku_bonus(initial_ranking(ctx.players.values()), baku_fields(ctx), rounds)


def virtual_points(ctx: PairingContext) -> dict[int, dict[str, int]]:
    """The acceleration in force as the pairing bonus, round -> player -> half-points, added
    to the pairing score of that round, never to the score: `AccelerationSet(method="baku")`
    read from the field when the round is paired (`baku_virtual_points`: FIDE C.04.5.1, so an
    entry made after the method was chosen is placed in GA or GB as the rule places it; the
    event's own values are the field when it was set, a record only), any other its values
    as given (TRF26 record 250's, or an arbiter's)."""
    out: dict[int, dict[str, int]] = {}
    if ctx.acceleration is None:
        return out
    if ctx.acceleration.method == "baku":
        return baku_virtual_points(ctx)
    for v in ctx.acceleration.values:
        for r in range(v.first_round, v.last_round + 1):
            out.setdefault(r, {})[v.player_id] = v.points
    return out


def planned_rounds(ctx: PairingContext) -> int | None:
    """The rounds the stage plays (None: not stated); refuses a round beyond them."""
    rounds = ctx.created.rounds
    if rounds is not None and ctx.round > rounds:
        raise PairingRefused(
            "pairing.all_rounds_paired",
            "round",
            f"the tournament has {rounds} rounds; round {ctx.round} is not one of them",
        )
    return rounds


# ---------------------------------------------------------------------------------------------
# gacrux's input and output
# ---------------------------------------------------------------------------------------------


def _points(half: int) -> Decimal:
    return Decimal(half) / 2


def _score_system(scoring: ev.Scoring) -> dict[str, Any]:
    game: dict[str, Any] = {
        "W": _points(scoring.win),
        "D": _points(scoring.draw),
        "L": _points(scoring.loss),
        "F": "W",
        "H": _points(scoring.half_bye),
        "Z": Decimal(0),
        "P": _points(scoring.bye),
        "A": "D",
        "U": "Z",
    }
    return {"game": game, "match": dict(game)}


def _letter(points: int, scoring: ev.Scoring) -> str:
    if points >= scoring.win and scoring.win > scoring.draw:
        return "W"
    if points >= scoring.draw and scoring.draw > scoring.loss:
        return "D"
    return "L"


def _side(cid: int, e: RoundEntry, scoring: ev.Scoring) -> dict[str, Any]:
    letter = "Z" if e.kind == "forfeit_loss" else _letter(e.points, scoring)
    return {"cid": cid, "result": letter, "score": _points(e.points)}


def round_record(
    rnd: int, cid: int, e: RoundEntry, opp: tuple[int, RoundEntry] | None, scoring: ev.Scoring
) -> dict[str, Any] | None:
    """One gameList record of `e` (None: nothing to record, e.g. an absence)."""
    if e.kind in ("played", "forfeit_win", "forfeit_loss") and opp is not None:
        return {
            "round": rnd,
            "white": _side(cid, e, scoring),
            "black": _side(opp[0], opp[1], scoring),
            "played": e.kind == "played",
            "rated": e.kind == "played",
        }
    if e.kind == "bye":  # pairing-allocated: "played" without opponent, as gacrux records it
        side = {"cid": cid, "result": "P", "score": _points(e.points)}
        return {"round": rnd, "white": side, "black": None, "played": True, "rated": False}
    if e.kind in ("half_bye", "zero_bye", "advance") or (opp is None and e.points):
        letter = "H" if e.kind == "half_bye" else "Z"
        side = {"cid": cid, "result": letter, "score": _points(e.points)}
        return {"round": rnd, "white": side, "black": None, "played": False, "rated": False}
    return None


def _accelerations(
    cids: Sequence[str], bonus: Mapping[int, Mapping[str, int]], rnd: int
) -> list[dict[str, Any]]:
    """gacrux acceleration values (virtual points per round and competitor range) for the
    pairing bonus: consecutive pairing numbers with the same bonus share one range."""
    values: list[dict[str, Any]] = []
    for r in sorted(bonus):
        if not 1 <= r <= rnd:
            continue
        per = bonus[r]
        start = 0
        while start < len(cids):
            b = per.get(cids[start], 0)
            end = start
            while end + 1 < len(cids) and per.get(cids[end + 1], 0) == b:
                end += 1
            if b:
                values.append(
                    {
                        "firstRound": r,
                        "lastRound": r,
                        "firstCompetitor": start + 1,
                        "lastCompetitor": end + 1,
                        "gamePoints": _points(b),
                        "matchPoints": _points(b),
                    }
                )
            start = end + 1
    return values


def _prohibited(
    cid_of: Mapping[str, int], prohibited: Sequence[Prohibition], last: int
) -> list[dict[str, Any]]:
    """gacrux's `prohibited` (TRF26 record 260: rounds, then the competitors none of whom
    meets another), of the players gacrux sees."""
    out: list[dict[str, Any]] = []
    for first, until, players in prohibited:
        cids = sorted(cid_of[p] for p in players if p in cid_of)
        if len(cids) >= 2:
            out.append(
                {
                    "firstRound": first,
                    "lastRound": until if until is not None else last,
                    "competitors": cids,
                }
            )
    return out


def gacrux_input(req: DutchRound) -> tuple[dict[str, Any], tuple[str, ...]]:
    """gacrux's tournament (a chessjson "tournament" object) for pairing round `req.rnd` among
    `req.order` (pairing numbers 1..len(order)), of whom `req.present` are paired; and the
    player id of each cid (index cid - 1).

    Opponents of `order` from outside it (a Galway section paired on its own) are added after
    it, not present, with their own rounds as score-only records: gacrux needs their pairing
    score in each round to tell a float, nothing else of them.
    """
    field, rnd, scoring = req.players, req.rnd, req.scoring
    members = list(req.order)
    inside = set(members)
    outsiders: set[str] = set()
    for pid in members:
        for e in field[pid].rounds:
            if e.round < rnd and e.opponent is not None and e.opponent not in inside:
                outsiders.add(e.opponent)
    outsiders &= set(field)
    cids = (*members, *sorted(outsiders, key=lambda p: ranking_key(field[p])))
    cid_of = {pid: i for i, pid in enumerate(cids, start=1)}
    entry: dict[tuple[str, int], RoundEntry] = {
        (pid, e.round): e for pid in cids for e in field[pid].rounds if e.round < rnd
    }
    games: list[dict[str, Any]] = []
    for pid in cids:
        cid = cid_of[pid]
        for e in field[pid].rounds:
            if e.round >= rnd or e.pending:
                continue
            opp: tuple[int, RoundEntry] | None = None
            if e.opponent is not None and e.opponent in cid_of:
                other = entry.get((e.opponent, e.round))
                if other is not None and other.opponent == pid:
                    opp = (cid_of[e.opponent], other)
            if opp is not None:
                if pid in outsiders and e.opponent in outsiders:
                    opp = None  # two outsiders: only their scores matter
                elif e.colour != "white":
                    continue  # the game is recorded once, from White's side
            if opp is None and e.opponent is not None:
                # a game against someone gacrux does not see: its points only
                side = {"cid": cid, "result": "Z", "score": _points(e.points)}
                games.append({"round": e.round, "white": side, "black": None, "played": False})
                continue
            rec = round_record(e.round, cid, e, opp, scoring)
            if rec is not None:
                games.append(rec)
    here = set(req.present)
    competitors = [
        {
            "cid": cid_of[pid],
            "present": pid in here and pid in inside,
            "rank": cid_of[pid],
            "random": cid_of[pid],
            "rating": {"list": "FIDE", "rating": field[pid].rating or 0},
            "gamePoints": _points(sum(e.points for e in field[pid].rounds if e.round < rnd)),
        }
        for pid in cids
    ]
    total = req.rounds if req.rounds is not None else rnd + 1  # unknown: never the final round
    tournament: dict[str, Any] = {
        "tournamentNo": 1,
        "tournamentType": "Swiss",
        "ratingList": "FIDE",
        "numRounds": max(total, rnd),
        "currentRound": rnd - 1,
        "teamTournament": False,
        "rankOrder": ["PTS"],
        "competitors": competitors,
        "teamSize": 0,
        "scoreSystem": _score_system(scoring),
        "gameList": games,
        "matchList": [],
        "topColor": "w" if req.initial_colour == "white" else "b",
        "pairingSystem": ["dutch"],
        "maxMeets": 1,
        "accelerated": {"name": "", "values": _accelerations(cids, req.bonus or {}, rnd)},
        "prohibited": _prohibited(cid_of, req.prohibited, max(total, rnd)),
    }
    return tournament, cids


def run_gacrux(tournament: dict[str, Any], rnd: int) -> list[tuple[int, int]]:
    """The bare gacrux call: (white cid, black cid) by board, black 0 for the bye."""
    from gacrux.gacruxexeptions import (  # type: ignore[import-untyped,unused-ignore]
        GacruxInvariantError,
        GacruxNoLegalPairing,
    )
    from gacrux.pairingdutch import pairing_dutch  # type: ignore[import-untyped,unused-ignore]

    try:
        engine = pairing_dutch(tournament, rnd, {"experimental": [], "verbose": 0})
        brackets = engine.compute_pairing(False)
    except GacruxNoLegalPairing as exc:
        raise PairingRefused(
            "pairing.no_legal_pairing",
            "round",
            f"round {rnd} cannot be paired under C.04.3's absolute criteria: {exc}",
        ) from None
    except GacruxInvariantError as exc:  # pragma: no cover - an engine defect
        raise PairingRefused("pairing.engine_error", "round", f"gacrux: {exc}") from None
    pairs = [p for b in brackets for p in b.get("pairs", ())]
    pairs.sort(key=lambda p: int(p["board"]))
    return [(int(p["w"]), int(p["b"])) for p in pairs]


def pair_round(req: DutchRound) -> Paired:
    """Pair the round by the Dutch system (`DutchRound` says which, among whom, with what
    pairing bonus). Raises `PairingRefused` if no legal pairing exists."""
    rnd = req.rnd
    here = set(req.present)
    playing = [p for p in req.order if p in here]
    if len(playing) < 2:
        raise PairingRefused(
            "pairing.too_few_players",
            "players",
            f"round {rnd} needs at least two players to pair, not {len(playing)}",
        )
    tournament, cids = gacrux_input(replace(req, present=playing))
    raw = run_gacrux(tournament, rnd)
    pairs: list[tuple[str, str]] = []
    bye: str | None = None
    for w, b in raw:
        if w == 0 or b == 0:
            bye = cids[(w or b) - 1]
        else:
            pairs.append((cids[w - 1], cids[b - 1]))
    seen = [p for pair in pairs for p in pair] + ([bye] if bye else [])
    if sorted(seen) != sorted(playing) or (bye is not None and req.players[bye].had_bye):
        raise PairingRefused(  # never expected: the engine broke an absolute criterion
            "pairing.engine_error",
            "round",
            f"gacrux's pairing of round {rnd} does not pair each present player once "
            "or repeats a bye",
        )
    return Paired(tuple(pairs), bye)


def scheduled(
    stage: str,
    rnd: int,
    pairs: Sequence[tuple[str, str]],
    pab: Sequence[str] = (),
    byes: Mapping[str, ByeKind] | None = None,
) -> ev.RoundScheduled:
    """The `RoundScheduled` of a paired round: boards 1.. in order, game ids
    `<stage>-r<round>-b<board>`, the pairing-allocated byes, then the requested ones."""
    return ev.RoundScheduled(
        round=rnd,
        stage=stage,
        pairings=[
            ev.Pairing(game_id=game_id(stage, rnd, board), white=w, black=b, board=board)
            for board, (w, b) in enumerate(pairs, start=1)
        ],
        byes=[ev.Bye(player_id=p, kind="pairing_allocated") for p in pab]
        + [ev.Bye(player_id=p, kind=k) for p, k in sorted((byes or {}).items())],
    )


# ---------------------------------------------------------------------------------------------
# The system
# ---------------------------------------------------------------------------------------------


def propose(ctx: PairingContext) -> Proposal:
    """The next round of a FIDE Dutch Swiss (or the initial-colour lot it needs first)."""
    require_finished(ctx)
    rounds = planned_rounds(ctx)
    colour = initial_colour(ctx)
    if isinstance(colour, LotRequest):
        return Proposal(lots=(colour,))
    byes = requested_byes(ctx)
    present = [p for p in ctx.active if p not in byes]
    order = initial_ranking(ctx.players.values())
    bonus = virtual_points(ctx)  # C.04.5.1 / TRF26 record 250
    paired = pair_round(DutchRound.of(ctx, order, present, colour, rounds, bonus or None))
    rnd = scheduled(ctx.stage, ctx.round, paired.pairs, [paired.bye] if paired.bye else (), byes)
    # Players named as templates (projections/mentions.py): the edge says them by name.
    notes = (
        f"{RULES}: round {ctx.round}, {len(paired.pairs)} games"
        + (f", pairing-allocated bye {who(paired.bye)}" if paired.bye else "")
        + f"; initial colour {colour} (lot {colour_subject(ctx.stage)!r})",
        "pairing numbers (C.04.2 initial order: rating, title, seed, name): "
        + " · ".join(f"{i} {who(p)}" for i, p in enumerate(order[:NOTE_NUMBERS], start=1))
        + (f" ... ({len(order)} players)" if len(order) > NOTE_NUMBERS else ""),
    )
    return Proposal(round=rnd, notes=notes)


def pairing_numbers(ctx: PairingContext) -> tuple[str, ...]:
    """The Dutch pairing numbers: the initial ranking over the whole field, withdrawn players
    and late entries included (C.04.3 art. 1.2.2, numbers from the C.04.2 "Initial order":
    rating, unrated last; FIDE title, C.04.2 b; then the organiser's seed and the name)."""
    return initial_ranking(ctx.players.values())


SYSTEM = PairingSystem(
    name=name,
    rule=RULES,
    propose=propose,
    pairing_numbers=pairing_numbers,
    colour_lot=colour_subject,  # C.04.3 art. 5.2.5
)
