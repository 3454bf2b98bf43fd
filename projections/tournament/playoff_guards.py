"""Playoff steps checked before they are stored (issue 12): the bridge between the decider and
the playoff machines (`projections/playoffs`).

A tournament whose `rules_preset` has a playoff (`evolve.PLAYOFF_PRESETS`) keeps, beside the
decider's state, the standings fold of the same events (`TournamentState.standings`, folded by
`evolve`): the
machines are pure functions of that fold, so the decider runs exactly the machine the
projections show, on exactly what they read. It runs it only for a `LotDrawn` whose subject,
or a `RoundScheduled` whose stage, belongs to the playoff; every other event costs the fold
one incremental step and nothing more (and a tournament without a playoff not even that: the
decider imports this module, and with it the machines, only for a playoff tournament).

What belongs to a playoff (the machines' own names, see their docstrings):

* GCT event playoff (`gct_event`, presets gct, gct-rapid-blitz, gct-classical): lots
  `gct-playoff-rr`, `gct-armageddon-<k>` (byes), `gct-armageddon-<k>-pairs`, and a coin toss
  per game (`gct-armageddon-<k>-b<n>`); stages `gct-playoff-rr`, `gct-armageddon-<k>`;
* TCEC Conditional Tiebreak (`tcec_conditional`, tcec-premier): lot and stage `tcec-ct-<n>`;
* TCEC matches (`tcec_match`, tcec-cup, tcec-superfinal, tcec-frd-final, tcec-4k-minifinal)
  when the tournament is a match (two registered engines, as the machine reads it): lots
  `<stage> opening`, stages `main`, `tiebreak-match`, `extra-pair-<n>`;
* GCT overall tour playoff (`gct_tour`, gct-tour-playoff): lots and stages
  `tour-1st-rr<n>`, `tour-3rd-rr<n>`.

A **lot** is accepted when the machine asks for it now (`required_next`), none is in force for
its subject, and it fits: the same purpose, drawn from exactly the players the machine names
(a candidate outside them, or not registered, is refused), picking as many as it asks (a bye
lot giving the bye to a player outside the remaining tie is refused). A lot the machine does
not ask for yet cannot be checked (its candidates depend on results still to come) and is
refused with what the playoff requires next.

A **round** of a playoff stage is accepted when the machine has reached the stage, its lots
are drawn (pairing numbers, byes, pairings, the coin toss of each Armageddon game, the random
openings), it seats only the stage's players and not a player with a bye, gives byes only to
the players the bye lot drew, and schedules prescribed games: by game id (GCT) or by round
and pair of players (TCEC, where game ids are free), the prescribed pair, in the prescribed
round, a round-robin round in full (one `RoundScheduled` per round, as the machine asks).
Colours that differ from the prescription are not refused: the machines document that the
scheduled colours are used (an Armageddon toss winner's choice; elsewhere with a note), so
that stays an after-the-fact note. Also left to the machines: results (an Armageddon game
needing a winner, Cup 3.a voiding games after the match is decided, ...), which are only known
later.

The GCT tour playoff takes the series' overall table as input, which a decider of one stream
cannot read; its checks are made from the playoff stream alone (see `_check_tour_lot`): the
candidates are registered, one tie at a time at RR1 (4.5), later round robins draw from one
complete score group of the previous one (4.8, 4.10, 4.11; which groups play on by 4.2 where
the tie's first place is known, i.e. a tie for 1st), no lot where colours are reversed (4.9,
4.11) and none after four round robins (4.12); rounds are the prescribed Berger games with
the prescribed colours (the tour machine does not accept other colours). That the tie at RR1
is the tie of the overall table stays with the tour machine's notes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

from events_schema import events as ev
from projections.outcome import STANDARD, game_points
from projections.playoffs import (
    EVENT_MACHINES,
    Machine,
    gct_event,
    gct_tour,
    tcec_conditional,
    tcec_match,
)
from projections.playoffs.base import PlannedGame, PlayoffView, StageView, berger_round_robin
from projections.rejection import Rejected
from projections.standings.state import StandingsState
from projections.tournament.state import TournamentState

# --- which lots and stages belong to a playoff --------------------------------------------------

_N = r"[1-9][0-9]*"


@dataclass(frozen=True)
class PlayoffKind:
    name: str
    machine: Machine
    lot_subject: re.Pattern[str]
    stage: re.Pattern[str]
    match_by: Literal["id", "pair", "round"]  # how a scheduled game is the prescribed one
    whole_rounds: re.Pattern[str]  # stages whose rounds are prescribed in full (Berger)

    def applies(self, st: StandingsState) -> bool:
        if self.name != "tcec-match":
            return True
        return sum(1 for p in st.players.values() if p.kind == "engine") == 2


_GCT_EVENT = PlayoffKind(
    "gct-event",
    gct_event.view,
    re.compile(rf"{gct_event.RR_STAGE}|gct-armageddon-{_N}(-pairs|-b{_N})?"),
    re.compile(rf"{gct_event.RR_STAGE}|gct-armageddon-{_N}"),
    "id",
    re.compile(gct_event.RR_STAGE),
)
_CT_STEP = re.compile(rf"tcec-ct-{_N}")  # the Conditional Tiebreak's lots and stages alike
_TCEC_CT = PlayoffKind(
    "tcec-conditional",
    tcec_conditional.conditional_tiebreak,
    _CT_STEP,
    _CT_STEP,
    "pair",
    _CT_STEP,
)
_TCEC_MATCH = PlayoffKind(
    "tcec-match",
    tcec_match.match,
    re.compile(rf"({tcec_match.TIEBREAK_MATCH}|extra-pair-{_N}) opening"),
    re.compile(rf"main|{tcec_match.TIEBREAK_MATCH}|extra-pair-{_N}"),
    "round",
    re.compile(r"(?!)"),  # one game per round
)
_TOUR = re.compile(rf"tour-(1st|3rd)-rr({_N})")


def playoff_kind(st: StandingsState) -> PlayoffKind | None:
    """The event playoff a tournament's preset has (its machine and the names of its steps),
    None without one (or a match preset whose tournament is not a match)."""
    preset = st.created.rules_preset if st.created is not None else None
    machine = EVENT_MACHINES.get(preset or "")
    for kind in (_GCT_EVENT, _TCEC_CT, _TCEC_MATCH):
        if machine is kind.machine:
            return kind if kind.applies(st) else None
    return None


# --- articles ---------------------------------------------------------------------------------


def _article(kind: PlayoffKind, st: StandingsState, what: str, purpose: str = "") -> str:
    """The article a step of the playoff follows (`what`: a lot subject or a stage)."""
    if kind is _GCT_EVENT:
        sec, _ = gct_event.section_for(st)
        if what == gct_event.RR_STAGE:
            return f"GCT {sec.art('3')}"  # 2.3: the round robin, pairing numbers by lot
        if purpose == "coin_toss" or re.fullmatch(rf"gct-armageddon-{_N}-b{_N}", what):
            return f"GCT {sec.art('5.3')}"  # colours by the toss of a coin
        return f"GCT {sec.art('4.1')}"  # Armageddon knockout: byes and pairings by lot
    if kind is _TCEC_CT:
        return "TCEC Leagues 6.2"
    preset = st.created.rules_preset if st.created is not None else None
    rules = tcec_match.MATCH_RULES.get(preset or "")
    if rules is None:
        return "TCEC"
    if what.startswith(tcec_match.TIEBREAK_MATCH):
        return "TCEC Leagues 7.5"
    if what.startswith("extra-pair-"):
        return f"TCEC {rules.pairs_art}"
    return f"TCEC {rules.games_art}"


def _next(view: PlayoffView) -> str:
    """What the playoff asks for now, for messages."""
    if view.required_next:
        texts = [r.text for r in view.required_next[:3]]
        more = " …" if len(view.required_next) > 3 else ""
        return "required next: " + "; ".join(texts) + more
    note = f" ({view.notes[-1]})" if view.notes else ""
    return f"the playoff is {view.status.replace('_', ' ')}{note}"


def _lot_call(spec: dict[str, object]) -> str:
    return (
        f"LotDrawn(purpose={spec.get('purpose')!r}, subject={spec.get('subject')!r}, "
        f"candidates={spec.get('candidates')}, pick {spec.get('pick')})"
    )


# --- the decider's entry points -----------------------------------------------------------------


def check_lot(state: TournamentState, lot: ev.LotDrawn) -> None:
    """Refuse a lot of a playoff that does not fit what its machine requires next."""
    _check_step(state, lot, lot.subject, _check_tour_lot, _lot_subjects, check_machine_lot)


def check_round(state: TournamentState, rnd: ev.RoundScheduled) -> None:
    """Refuse a round of a playoff stage that does not fit what its machine prescribes."""
    _check_step(state, rnd, rnd.stage, _check_tour_round, _stages, check_machine_round)


_Step = TypeVar("_Step", ev.LotDrawn, ev.RoundScheduled)


def _lot_subjects(kind: PlayoffKind) -> re.Pattern[str]:
    return kind.lot_subject


def _stages(kind: PlayoffKind) -> re.Pattern[str]:
    return kind.stage


def _check_step(
    state: TournamentState,
    step: _Step,
    name: str,
    check_tour: Callable[[StandingsState, _Step], None],
    names: Callable[[PlayoffKind], re.Pattern[str]],
    check_machine: Callable[[PlayoffKind, StandingsState, PlayoffView, _Step], None],
) -> None:
    """Check a lot or a round (`step`, its subject or stage `name`) that belongs to a playoff:
    the GCT tour playoff's from its stream alone (`check_tour`), an event playoff's against
    what its machine asks for (`check_machine`); a step of no playoff is not checked here."""
    st = state.standings
    if st is None or st.created is None:
        return
    if st.created.rules_preset == gct_tour.PRESET:
        if _TOUR.fullmatch(name):
            check_tour(st, step)
        return
    kind = playoff_kind(st)
    if kind is not None and names(kind).fullmatch(name):
        check_machine(kind, st, kind.machine(st, None), step)


# --- lots ---------------------------------------------------------------------------------------


def _in_force(st: StandingsState, subject: str, art: str) -> None:
    found = st.lot(subject)
    if found is not None:
        raise Rejected(
            "playoff.lot_already_drawn",
            "payload.subject",
            f"{art}: a {found.purpose} lot for {subject!r} is in force (outcome {found.outcome}); "
            'a lot is drawn once (rules/README "Lots"): to draw again, retract it first '
            "(EventRetracted)",
        )


def _outsider(st: StandingsState, who: str, among: str) -> str:
    return f"{who!r} is not registered" if who not in st.players else f"{who!r} is not in {among}"


def _check_candidates(
    st: StandingsState, lot: ev.LotDrawn, expected: Sequence[str], among: str, art: str
) -> None:
    for i, c in enumerate(lot.candidates):
        if c not in expected:
            raise Rejected(
                "playoff.lot_outsider",
                f"payload.candidates[{i}]",
                f"{art}: {_outsider(st, c, among)}: the lot for {lot.subject!r} is drawn from "
                f"{sorted(expected)}",
            )
    twice = sorted({c for c in lot.candidates if lot.candidates.count(c) > 1})
    missing = [c for c in expected if c not in lot.candidates]
    if twice or missing:
        what = f"names {twice} twice" if twice else f"leaves out {missing}"
        raise Rejected(
            "playoff.lot_candidates",
            "payload.candidates",
            f"{art}: the lot for {lot.subject!r} {what}; it is drawn from {sorted(expected)}",
        )


def _check_pick(lot: ev.LotDrawn, pick: int, art: str, what: str) -> None:
    twice = sorted({o for o in lot.outcome if lot.outcome.count(o) > 1})
    if twice:
        raise Rejected(
            "playoff.lot_pick", "payload.outcome", f"{art}: the outcome names {twice} twice"
        )
    if len(lot.outcome) != pick:
        raise Rejected(
            "playoff.lot_pick",
            "payload.outcome",
            f"{art}: the lot for {lot.subject!r} picks {len(lot.outcome)}, the playoff needs "
            f"{pick} ({what})",
        )


_AMONG = {
    "pairing_numbers": "the tie",
    "engine_order": "the tie",
    "bye": "the remaining tie",
    "coin_toss": "this game",
}


def check_machine_lot(
    kind: PlayoffKind, st: StandingsState, view: PlayoffView, lot: ev.LotDrawn
) -> None:
    art = _article(kind, st, lot.subject, lot.purpose)
    _in_force(st, lot.subject, art)
    required = view.lots_required(subject=lot.subject)
    if not required:
        raise Rejected(
            "playoff.lot_not_required",
            "payload.subject",
            f"{art}: the playoff ({view.rule}) does not ask for a lot for {lot.subject!r} now; "
            f"{_next(view)}",
        )
    spec = required[0].lot or {}
    purpose = str(spec.get("purpose"))
    if lot.purpose != purpose:
        raise Rejected(
            "playoff.lot_purpose",
            "payload.purpose",
            f"{art}: the lot for {lot.subject!r} is a {purpose!r} lot, not {lot.purpose!r}",
        )
    raw = spec.get("candidates")
    expected = [str(c) for c in raw] if isinstance(raw, list) else []
    if expected and "candidates_from" not in spec:
        if purpose == "bye":  # the bye holders first: the sharper message (2.4.1)
            for i, o in enumerate(lot.outcome):
                if o not in expected:
                    raise Rejected(
                        "playoff.bye_outsider",
                        f"payload.outcome[{i}]",
                        f"{art}: the bye goes to a player of the remaining tie "
                        f"{sorted(expected)}; {_outsider(st, o, 'it')}",
                    )
        _check_candidates(st, lot, expected, _AMONG.get(purpose, "the playoff"), art)
    pick = spec.get("pick")
    if isinstance(pick, int):
        _check_pick(lot, pick, art, required[0].text)


# --- rounds -------------------------------------------------------------------------------------


def _match(
    kind: PlayoffKind, open_games: Sequence[PlannedGame], used: set[str], p: ev.Pairing, rnd: int
) -> PlannedGame | None:
    for g in open_games:
        if g.game_id in used:
            continue
        if kind.match_by == "id" and g.game_id == p.game_id:
            return g
        if kind.match_by == "round" and g.round == rnd:
            return g
        if kind.match_by == "pair" and g.round == rnd and {g.white, g.black} == {p.white, p.black}:
            return g
    return None


def _games_text(games: Sequence[PlannedGame]) -> str:
    return ", ".join(f"{g.game_id} ({g.white}–{g.black})" for g in games) or "none"


def _seats(kind: PlayoffKind, st: StandingsState, sv: StageView, rnd: ev.RoundScheduled) -> None:
    """Who may be seated, who has a bye."""
    art = _article(kind, st, rnd.stage)
    armageddon = kind is _GCT_EVENT and rnd.stage != gct_event.RR_STAGE
    among = "the remaining tie" if armageddon else f"stage {rnd.stage!r}"
    for i, p in enumerate(rnd.pairings):
        for side in ("white", "black"):
            pid = getattr(p, side)
            if pid not in sv.players:
                raise Rejected(
                    "playoff.not_in_stage",
                    f"payload.pairings[{i}].{side}",
                    f"{art}: {pid!r} is not in {among}: it seats only {list(sv.players)}",
                )
            if pid in sv.byes:
                raise Rejected(
                    "playoff.bye_seated",
                    f"payload.pairings[{i}].{side}",
                    f"{_article(kind, st, rnd.stage, 'bye')}: {pid!r} has a bye in "
                    f"{rnd.stage!r} (the bye lot drew {list(sv.byes)}) and does not play it",
                )
    for i, b in enumerate(rnd.byes):
        if b.player_id not in sv.players:
            raise Rejected(
                "playoff.not_in_stage",
                f"payload.byes[{i}].player_id",
                f"{art}: {b.player_id!r} is not in {among}: it has only {list(sv.players)}",
            )
        if armageddon and b.player_id not in sv.byes:
            raise Rejected(
                "playoff.bye_not_drawn",
                f"payload.byes[{i}].player_id",
                f"{_article(kind, st, rnd.stage, 'bye')}: byes by lot: the lot gave "
                f"{list(sv.byes) or 'no one'} a bye in {rnd.stage!r}, not {b.player_id!r}",
            )


def _lots_first(kind: PlayoffKind, st: StandingsState, view: PlayoffView, sv: StageView) -> None:
    """The stage's own lots (not a game's coin toss) come before its games."""
    ids = {g.game_id for g in sv.games}
    lots = [r for r in view.lots_required(stage=sv.name) if r.lot and r.lot["subject"] not in ids]
    if lots or not sv.games:
        first = lots[0].lot if lots else None
        what = _lot_call(first) if first is not None else _next(view)
        raise Rejected(
            "playoff.lot_first",
            "payload.stage",
            f"{_article(kind, st, sv.name, str(first.get('purpose')) if first else '')}: "
            f"{sv.name!r} cannot be scheduled before its lot: {what}",
        )


def check_machine_round(
    kind: PlayoffKind, st: StandingsState, view: PlayoffView, rnd: ev.RoundScheduled
) -> None:
    art = _article(kind, st, rnd.stage)
    sv = view.stage(rnd.stage)
    if sv is None:
        if rnd.stage == "main":
            return  # a match the machine cannot frame (its notes say why): nothing to check
        raise Rejected(
            "playoff.round_not_required",
            "payload.stage",
            f"{art}: the playoff ({view.rule}) has not reached stage {rnd.stage!r}; {_next(view)}",
        )
    if sv.complete:
        raise Rejected(
            "playoff.round_not_required",
            "payload.stage",
            f"{art}: stage {rnd.stage!r} is complete; {_next(view)}",
        )
    _seats(kind, st, sv, rnd)
    _lots_first(kind, st, view, sv)
    open_games = [g for g in sv.games if not g.scheduled]
    used: set[str] = set()
    for i, p in enumerate(rnd.pairings):
        where = f"payload.pairings[{i}]"
        g = _match(kind, open_games, used, p, rnd.round)
        if g is None:
            this_round = [g for g in open_games if g.round == rnd.round]
            raise Rejected(
                "playoff.game_not_prescribed",
                f"{where}.game_id",
                f"{art}: {p.game_id} ({p.white}–{p.black}) is not a game the playoff prescribes "
                f"for round {rnd.round} of {rnd.stage!r}; still to schedule there: "
                f"{_games_text(this_round or open_games)}",
            )
        if {p.white, p.black} != {g.white, g.black}:
            raise Rejected(
                "playoff.pairing_not_prescribed",
                where,
                f"{art}: {g.game_id} is {g.white}–{g.black} (the lot's pairings), not "
                f"{p.white}–{p.black}",
            )
        if kind.whole_rounds.fullmatch(rnd.stage) and g.round != rnd.round:
            raise Rejected(
                "playoff.round_number",
                "payload.round",
                f"{art}: {g.game_id} is a game of round {g.round} of {rnd.stage!r}, not of "
                f"round {rnd.round}",
            )
        toss = view.lots_required(subject=g.game_id)
        if toss and toss[0].lot is not None:
            raise Rejected(
                "playoff.lot_first",
                f"{where}.game_id",
                f"{_article(kind, st, g.game_id, 'coin_toss')}: {g.game_id} is scheduled after "
                f"its coin toss: {_lot_call(toss[0].lot)}",
            )
        used.add(g.game_id)
    if kind.whole_rounds.fullmatch(rnd.stage):
        left = [g for g in open_games if g.round == rnd.round and g.game_id not in used]
        if left:
            raise Rejected(
                "playoff.round_incomplete",
                "payload.pairings",
                f"{art}: round {rnd.round} of {rnd.stage!r} is scheduled in full, one "
                f"RoundScheduled per round; missing: {_games_text(left)}",
            )


# --- the GCT tour playoff (4.x), from the playoff stream alone ----------------------------------

Rounds = tuple[tuple[tuple[str, str], ...], ...]


def _tour_stage(label: str, n: int) -> str:
    return f"tour-{label}-rr{n}"


def _tour_art(n: int) -> str:
    """The article of round robin n's lot and games: 4.7 (the first), 4.9 (the second, a
    fresh draw unless colours are reversed), 4.10 (the first blitz), 4.11 (further ones)."""
    return "GCT " + {1: "4.7", 2: "4.9", 3: "4.10"}.get(n, "4.11")


def _tour_scores(
    st: StandingsState, stage: str, order: Sequence[str], rounds: Rounds
) -> dict[str, int] | None:
    """Half-points in a complete round robin as prescribed (1 / ½ / 0), None until then."""
    points = dict.fromkeys(order, 0)
    for r, pairs in enumerate(rounds, start=1):
        for b, (white, black) in enumerate(pairs, start=1):
            rec = st.games.get(f"{stage}-r{r}-b{b}")
            if rec is None or rec.stage != stage or (rec.white, rec.black) != (white, black):
                return None
            if not rec.results:
                return None
            w, k = game_points(rec.results[-1][2], STANDARD)
            points[white] += w
            points[black] += k
    return points


def _tour_schedule(
    st: StandingsState, label: str, n: int
) -> tuple[tuple[str, ...], Rounds, bool] | None:
    """The prescribed pairing order and rounds of a tour round robin, and whether its colours
    are the previous round robin's reversed (4.9, 4.11); None while its lot is not drawn."""
    if n % 2 == 0:
        parent = _tour_schedule(st, label, n - 1)
        if parent is not None:
            order, rounds, _ = parent
            scores = _tour_scores(st, _tour_stage(label, n - 1), order, rounds)
            if scores is not None and len(set(scores.values())) == 1:
                return order, tuple(tuple((b, w) for w, b in rnd) for rnd in rounds), True
    lot = st.lot(_tour_stage(label, n), gct_tour.LOT_PURPOSE)
    if lot is None or len(set(lot.outcome)) != len(lot.outcome) or len(lot.outcome) < 2:
        return None
    order = tuple(lot.outcome)
    berger = berger_round_robin(list(order), double=len(order) == 2)
    return order, tuple(tuple(rnd) for rnd in berger), False


def _check_tour_lot(st: StandingsState, lot: ev.LotDrawn) -> None:
    found = _TOUR.fullmatch(lot.subject)
    assert found is not None
    label, n = found.group(1), int(found.group(2))
    art = _tour_art(n)
    if lot.purpose != gct_tour.LOT_PURPOSE:
        raise Rejected(
            "playoff.lot_purpose",
            "payload.purpose",
            f"{art}: the round robin's pairing numbers are drawn by lot: purpose "
            f"{gct_tour.LOT_PURPOSE!r}, not {lot.purpose!r}",
        )
    if n > gct_tour.MAX_ROUND_ROBINS:
        raise Rejected(
            "playoff.lot_not_required",
            "payload.subject",
            f"GCT 4.12: after {gct_tour.MAX_ROUND_ROBINS} round robins the Chief Arbiter directs "
            f"how the tie is resolved: RulingIssued(subject={gct_tour.RULING_SUBJECT!r}, "
            "decision={'tiebreak_order': [...]}), not a fifth round robin",
        )
    _in_force(st, lot.subject, art)
    for i, c in enumerate(lot.candidates):
        if c not in st.players:
            raise Rejected(
                "playoff.lot_outsider",
                f"payload.candidates[{i}]",
                f"{art}: {c!r} is not registered in the playoff tournament (GCT 4.1: the players "
                "in the tie)",
            )
    twice = sorted({c for c in lot.candidates if lot.candidates.count(c) > 1})
    if twice or len(lot.candidates) < 2:
        raise Rejected(
            "playoff.lot_candidates",
            "payload.candidates",
            f"{art}: a tie is two or more players, each named once"
            + (f" ({twice} twice)" if twice else ""),
        )
    if n == 1:
        _tour_first_lot(st, lot, label, art)
    else:
        _tour_later_lot(st, lot, label, n, art)
    if set(lot.outcome) != set(lot.candidates) or len(lot.outcome) != len(lot.candidates):
        raise Rejected(
            "playoff.lot_pick",
            "payload.outcome",
            f"{art}: the pairing numbers of every player: the outcome orders all of "
            f"{sorted(lot.candidates)}, once each",
        )


def _tour_first_lot(st: StandingsState, lot: ev.LotDrawn, label: str, art: str) -> None:
    """RR1: the ties for 1st and for 3rd are separate (4.5): no player is in both."""
    other = "3rd" if label == "1st" else "1st"
    theirs = st.lot(_tour_stage(other, 1), gct_tour.LOT_PURPOSE)
    if theirs is None:
        return
    for i, c in enumerate(lot.candidates):
        if c in theirs.candidates:
            raise Rejected(
                "playoff.lot_outsider",
                f"payload.candidates[{i}]",
                f"GCT 4.5: {c!r} is in the tie for {other} ({_tour_stage(other, 1)}); the tie "
                f"for {label} is a separate playoff",
            )


def _tour_later_lot(st: StandingsState, lot: ev.LotDrawn, label: str, n: int, art: str) -> None:
    """RR2..RR4: the players of one score group of a complete previous round robin (4.8,
    4.10, 4.11), which goes on by 4.1/4.2; none where colours are reversed (4.9, 4.11)."""
    cands = list(lot.candidates)
    same = _tour_schedule(st, label, n)
    if same is not None and same[2] and set(same[0]) == set(cands):
        raise Rejected(
            "playoff.lot_not_required",
            "payload.subject",
            f"GCT {'4.9' if n == 2 else '4.11'}: {_tour_stage(label, n)} has exactly the players "
            f"of {_tour_stage(label, n - 1)}: it is played with colours reversed, without a lot",
        )
    parents = []
    for lab in ("1st",) if label == "1st" else ("1st", "3rd"):
        sched = _tour_schedule(st, lab, n - 1)
        if sched is not None:
            parents.append((lab, sched[0], sched[1]))
    holder = next((p for p in parents if cands[0] in p[1]), None)
    played = " or ".join(_tour_stage(lab, n - 1) for lab, _o, _r in parents) or "none drawn"
    for i, c in enumerate(cands):
        if holder is None or c not in holder[1]:
            raise Rejected(
                "playoff.lot_outsider",
                f"payload.candidates[{i}]",
                f"{art}: {c!r} did not play the previous round robin with the others "
                f"({played}): round robin {n} is for the players still in the tie",
            )
    assert holder is not None
    plab, order, rounds = holder
    pstage = _tour_stage(plab, n - 1)
    scores = _tour_scores(st, pstage, order, rounds)
    if scores is None:
        raise Rejected(
            "playoff.lot_not_required",
            "payload.subject",
            f"{art}: {pstage} is not complete: who is still tied is not known yet",
        )
    level = scores[cands[0]]
    for i, c in enumerate(cands):
        if scores[c] != level:
            raise Rejected(
                "playoff.lot_outsider",
                f"payload.candidates[{i}]",
                f"{art}: {c!r} scored {scores[c] / 2:g} in {pstage}, {cands[0]!r} "
                f"{level / 2:g}: they are not in the same tie",
            )
    missing = [p for p in order if scores[p] == level and p not in cands]
    if missing:
        raise Rejected(
            "playoff.lot_candidates",
            "payload.candidates",
            f"{art}: {missing} scored {level / 2:g} in {pstage} too: the tie is all of them",
        )
    if plab == "1st":  # the parent's first place is 1: the places of the group are known
        first = 1 + sum(1 for p in order if scores[p] > level)
        last = first + len(cands) - 1
        places = f"{first}–{last}"
        if not gct_tour.played_off(first, last):
            raise Rejected(
                "playoff.lot_not_required",
                "payload.subject",
                f"GCT 4.2: {sorted(cands)} are level for places {places} after {pstage}: those "
                "places stay shared, not played off",
            )
        want = "1st" if first <= gct_tour.WINNER else "3rd"
        if want != label:
            raise Rejected(
                "playoff.lot_not_required",
                "payload.subject",
                f"GCT 4.5: places {places} are the tie for {want}: draw "
                f"{_tour_stage(want, n)}, not {lot.subject}",
            )


def _check_tour_round(st: StandingsState, rnd: ev.RoundScheduled) -> None:
    found = _TOUR.fullmatch(rnd.stage)
    assert found is not None
    label, n = found.group(1), int(found.group(2))
    art = _tour_art(n)
    if n > gct_tour.MAX_ROUND_ROBINS:
        raise Rejected(
            "playoff.round_not_required",
            "payload.stage",
            f"GCT 4.12: no round robin after the {gct_tour.MAX_ROUND_ROBINS}th; the Chief "
            "Arbiter directs how the tie is resolved",
        )
    sched = _tour_schedule(st, label, n)
    if sched is None:
        raise Rejected(
            "playoff.lot_first",
            "payload.stage",
            f"{art}: draw the pairing numbers of {rnd.stage} by lot first: LotDrawn(purpose="
            f"{gct_tour.LOT_PURPOSE!r}, subject={rnd.stage!r}, candidates=<the tie>)",
        )
    order, rounds, reversed_ = sched
    for i, p in enumerate(rnd.pairings):
        for side in ("white", "black"):
            pid = getattr(p, side)
            if pid not in order:
                raise Rejected(
                    "playoff.not_in_stage",
                    f"payload.pairings[{i}].{side}",
                    f"{art}: {pid!r} is not in the tie of {rnd.stage}: {list(order)}",
                )
    for i, b in enumerate(rnd.byes):
        if b.player_id not in order:
            raise Rejected(
                "playoff.not_in_stage",
                f"payload.byes[{i}].player_id",
                f"{art}: {b.player_id!r} is not in the tie of {rnd.stage}: {list(order)}",
            )
    if not 1 <= rnd.round <= len(rounds):
        raise Rejected(
            "playoff.round_number",
            "payload.round",
            f"{art}: {rnd.stage} has {len(rounds)} round(s)",
        )
    how = "colours reversed (GCT 4.9, 4.11)" if reversed_ else "FIDE Berger tables, by the lot"
    prescribed = {
        f"{rnd.stage}-r{rnd.round}-b{b}": (w, bl)
        for b, (w, bl) in enumerate(rounds[rnd.round - 1], start=1)
    }
    for i, p in enumerate(rnd.pairings):
        want = prescribed.get(p.game_id)
        if want is None:
            raise Rejected(
                "playoff.game_not_prescribed",
                f"payload.pairings[{i}].game_id",
                f"{art}: round {rnd.round} of {rnd.stage} is "
                + ", ".join(f"{g} ({w}–{b})" for g, (w, b) in prescribed.items()),
            )
        if (p.white, p.black) != want:
            raise Rejected(
                "playoff.pairing_not_prescribed",
                f"payload.pairings[{i}]",
                f"{art}: {p.game_id} is {want[0]}–{want[1]} ({how}), not {p.white}–{p.black}",
            )
    left = [g for g in prescribed if g not in {p.game_id for p in rnd.pairings}]
    if left:
        raise Rejected(
            "playoff.round_incomplete",
            "payload.pairings",
            f"{art}: round {rnd.round} of {rnd.stage} is scheduled in full; missing: {left}",
        )
