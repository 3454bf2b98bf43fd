"""Cross-check of the FIDE criteria under BOTH texts of C.07 against gacrux, FIDE's tie-break
server (issue 16): the 2024 text (rules of 2024-08-01) and the text in force since 1 March
2026, whose Art. 16.4 caps the dummy opponent of an unplayed round (16.4.1 a forfeit's at the
scheduled opponent's adjusted score, 16.4.2 a bye's at draw points x rounds).

60 Swiss tournaments (12-26 players, 5-8 rounds) are played through events the way the command
path does (tests/bench/pairing.py `Sim`: every event decided by the decider, sealed, folded),
each round paired by Arbiter's own FIDE Dutch wrapper (`projections.pairing.dutch`), with
forfeits won and lost (and double), pairing-allocated byes, half- and zero-point requested byes
(in the last round too), withdrawals, late entries and some unrated players. The tournament is
created with a start date and no edition, so the decider records the edition in force on that
date (2025 or 2026 dates, the two days around 1 March 2026 among them); it is then checked
twice:

1. under the edition its start date gives, against gacrux reading the exported TRF, whose 042
   record carries the date (the server picks its rules from it);
2. under the other edition, set by an arbiter's `RulingIssued` ("tiebreak_edition"), against
   gacrux told the same with `/V2024` or `/V2026` on every criterion code.

Each time every player's value of every FIDE criterion we implement for Swiss events (BH, its
cuts and medians, SB and its cuts, FB and its cuts and medians, AOB and AOB/F, WIN, WON, BPG,
BWG, PS and its cuts, ARO and its modifiers, TPR, APRO) must equal gacrux's, and so must every
place of the ranking by points and direct encounter, of the `fide-swiss` preset (through the
standings table) and of a chain of fore-Buchholz, Sonneborn-Berger and median Buchholz. AOB is
compared at gacrux's precision (it rounds to two decimals up to 8 rounds; we keep it exact).

gacrux is called in process (its TRF reader and `tiebreak`, as `python -m
gacrux.tiebreakchecker -s -t ...` runs them), on the TRF written by our own exporter; the
tournaments are spread over the machine's cores.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any
from unittest import mock

import pytest
from bench.pairing import Sim, field_of
from builders import created, player
from gacrux.tiebreakchecker import tiebreakchecker
from gacrux.trf2json import trf2json

from events_schema import events as ev
from projections.pairing import dutch
from projections.standings import crosstable, standings
from projections.standings.crosstable import Crosstable
from projections.tiebreaks import REGISTRY, Chain, rank
from projections.tiebreaks.editions import Edition, edition_on
from projections.tiebreaks.fide import dummies
from projections.tiebreaks.registry import resolve_params
from services.interchange.trf import write_trf

pytestmark = pytest.mark.slow  # make test-fast leaves it out


SEEDS = range(1, 61)

HALF, EXACT, AOB = "half-points", "exact", "aob"
# gacrux code -> (our criterion, its parameters, how our key compares to gacrux's number).
# The fore-Buchholz codes come last: gacrux's FB leaves a mark in its shared state (the last
# round it treats as played) that a Buchholz computed after it in the same call would read.
CODES: dict[str, tuple[str, dict[str, Any], str]] = {
    "BH": ("buchholz", {}, HALF),
    "BH/C1": ("buchholz-cut1", {}, HALF),
    "BH/C2": ("buchholz-cut2", {}, HALF),
    "BH/M1": ("buchholz-median1", {}, HALF),
    "BH/M2": ("buchholz-median2", {}, HALF),
    "SB": ("fide-sonneborn-berger", {}, EXACT),
    "SB/C1": ("fide-sonneborn-berger-cut1", {}, EXACT),
    "SB/C2": ("fide-sonneborn-berger-cut2", {}, EXACT),
    "AOB": ("fide-aob", {}, AOB),
    "WIN": ("fide-wins", {}, EXACT),
    "WON": ("fide-games-won", {}, EXACT),
    "BPG": ("fide-black-games", {}, EXACT),
    "BWG": ("fide-black-wins", {}, EXACT),
    "PS": ("fide-progressive", {}, HALF),
    "PS/C1": ("fide-progressive-cut1", {}, HALF),
    "PS/C2": ("fide-progressive-cut2", {}, HALF),
    "ARO": ("fide-aro", {}, EXACT),
    "ARO/C1": ("fide-aro-cut1", {}, EXACT),
    "ARO/C2": ("fide-aro-cut2", {}, EXACT),
    "ARO/M1": ("fide-aro-median1", {}, EXACT),
    "ARO/M2": ("fide-aro-median2", {}, EXACT),
    "TPR": ("fide-tpr", {}, EXACT),
    "APRO": ("fide-apro", {}, EXACT),
    "FB": ("fide-fore-buchholz", {}, HALF),
    "FB/C1": ("fide-fore-buchholz-cut1", {}, HALF),
    "FB/C2": ("fide-fore-buchholz-cut2", {}, HALF),
    "FB/M1": ("fide-fore-buchholz-median1", {}, HALF),
    "FB/M2": ("fide-fore-buchholz-median2", {}, HALF),
    "AOB/F": ("fide-aob", {"fore": True}, AOB),
}
# Criteria whose value the edition can change (Art. 16.4): every other one must not move.
CAPPED = {"BH", "BH/C1", "BH/C2", "BH/M1", "BH/M2", "SB", "SB/C1", "SB/C2", "AOB", "FB"}
CAPPED |= {"FB/C1", "FB/C2", "FB/M1", "FB/M2", "AOB/F"}
# Rankings compared place by place: (gacrux codes after PTS, our chain or None for the table).
FORE_CHAIN = ("fide-fore-buchholz-cut1", "fide-fore-buchholz", "fide-sonneborn-berger-cut1")
RANKINGS: dict[str, tuple[list[str], tuple[str, ...] | None]] = {
    "DE": (["DE"], ("fide-direct-encounter",)),
    "fide-swiss": (["BH/C1", "BH", "DE", "SB", "WIN"], None),  # the standings table
    "fore": (["FB/C1", "FB", "SB/C1", "BH/M1"], (*FORE_CHAIN, "buchholz-median1")),
}
RULES = {"fide-2024": "2024-08-01", "fide-2026": "2026-03-01"}
OTHER: dict[Edition, Edition] = {"fide-2024": "fide-2026", "fide-2026": "fide-2024"}


# --- the tournaments --------------------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    players: int
    rounds: int
    forfeits: float
    byes: float  # per present player and round, the last round included
    late: float  # per round from 2: one late entry
    withdraw: float  # per active player and round from 2
    unrated: float
    starts_on: date


def shape_of(seed: int) -> Shape:
    rng = random.Random(seed * 7919)
    rounds = rng.randint(5, 8)
    if seed in (1, 2):  # the two days around the change
        start = date(2026, 2, 28) if seed == 1 else date(2026, 3, 1)
    else:
        start = date(2025, 1, 1) + timedelta(days=rng.randrange(730))
    return Shape(
        players=rng.randint(12, 26),
        rounds=rounds,
        forfeits=rng.choice([0.04, 0.08, 0.12]),
        byes=rng.choice([0.03, 0.06, 0.1]),
        late=rng.choice([0.0, 0.3, 0.6]),
        withdraw=rng.choice([0.0, 0.02, 0.04]),
        unrated=rng.choice([0.0, 0.0, 0.05]),
        starts_on=start,
    )


def play(seed: int, shape: Shape) -> Sim:
    """Create, register and play the whole tournament through the decider; each round paired
    by our Dutch wrapper."""
    sim = Sim(dutch.propose, seed=seed, tid=f"c07-{seed}")
    rng = sim.rng
    sim.add(
        created(
            fmt="swiss",
            rounds=shape.rounds,
            rules_preset="fide-swiss",
            starts_on=shape.starts_on,
            ends_on=shape.starts_on + timedelta(days=shape.rounds // 2),
        )
    )
    for e in field_of(shape.players, rng, shape.unrated):
        sim.add(e)
    late = 0
    for r in range(1, shape.rounds + 1):
        if r >= 2:
            if rng.random() < shape.late:
                late += 1
                sim.add(player(f"late{late:02d}", rng.choice([None, *range(1500, 2600, 25)])))
            for pid in sim.active():
                if rng.random() < shape.withdraw and len(sim.active()) > 10:
                    sim.add(ev.PlayerWithdrew(player_id=pid, from_round=r))
        active = sim.active()
        chosen = {p: rng.choice(["half", "zero"]) for p in active if rng.random() < shape.byes}
        if len(active) - len(chosen) >= 6:
            sim.request_byes(r, chosen)
        sim.play(sim.pair(), shape.forfeits)
    return sim


def rule_edition(sim: Sim, edition: Edition) -> None:
    """The arbiter's ruling that changes the tournament's C.07 edition (an event)."""
    sim.add(
        ev.RulingIssued(
            ruling_id=f"edition-{edition}",
            by="chief arbiter",
            subject="tiebreak_edition",
            text=f"the tie-breaks follow C.07 {edition}",
            decision={"edition": edition},
        )
    )


# --- gacrux, in process -----------------------------------------------------------------------


def _swiss_params() -> dict[str, Any]:
    checker = tiebreakchecker()
    with mock.patch.object(sys, "argv", ["tiebreakchecker", "-s", "-t", "PTS"]):
        checker.read_command_line()
    return dict(checker.params)


PARAMS = _swiss_params()


def gacrux(text: str, codes: list[str]) -> tuple[str, dict[int, tuple[int, list[Any]]]]:
    """(the rules gacrux applied, start number -> (rank, values)), as `python -m
    gacrux.tiebreakchecker -s -t CODES` computes them from the TRF text."""
    checker = tiebreakchecker()
    checker.params = {**PARAMS, "tiebreak": list(codes)}
    chessfile = trf2json()
    chessfile.parse_file(text, 0)
    assert chessfile.get_status() == 0, chessfile.chessjson["status"]
    checker.chessfile = chessfile
    checker.prepare_tournament()
    checker.do_checker()
    result = chessfile.result
    return result["rules"], {
        c["cid"]: (c["rank"], c["tiebreakScore"]) for c in result["competitors"]
    }


def export(sim: Sim) -> tuple[str, dict[int, str]]:
    """Our TRF-16 export (042/052 from the event), and start number -> player id."""
    text = write_trf(sim.state, order="rating", newline="\n")
    by_name = {info.name: pid for pid, info in sim.state.players.items()}
    numbers = {
        int(line[4:8]): by_name[line[14:47].rstrip()]
        for line in text.splitlines()
        if line.startswith("001")
    }
    return text, numbers


def as_number(value: Any) -> Fraction | None:
    return None if value is None else Fraction(Decimal(str(value)))


def ours(key: Any, unit: str, theirs: Any) -> Fraction | None:
    if key is None:
        return None
    if unit == HALF:
        return Fraction(key, 2)
    if unit == AOB and isinstance(theirs, Decimal):  # at gacrux's precision
        exact = Decimal(key.numerator) / Decimal(key.denominator)
        return Fraction(
            exact.quantize(Decimal(1).scaleb(theirs.as_tuple().exponent), ROUND_HALF_UP)
        )
    return Fraction(key)


def places(blocks: list[list[str]]) -> dict[str, int]:
    out, place = {}, 1
    for block in blocks:
        for p in block:
            out[p] = place
        place += len(block)
    return out


# --- one check --------------------------------------------------------------------------------


@dataclass
class Report:
    differences: list[str] = field(default_factory=list)
    values: int = 0
    places: int = 0
    players: int = 0
    # per gacrux code, the players whose value differs between the two editions
    moved: dict[str, int] = field(default_factory=dict)
    moved_places: int = 0
    caps: set[str] = field(default_factory=set)  # "16.4.1 biting", "16.4.2 not biting", ...
    features: set[str] = field(default_factory=set)


def values_of(ct: Crosstable) -> dict[str, dict[str, Any]]:
    out = {}
    for code, (name, params, _unit) in CODES.items():
        crit = REGISTRY[name]
        got = crit.compute(ct, tuple(ct.players), resolve_params(crit, params))
        out[code] = {p: v.key for p, v in got.items()}
    return out


def check_edition(sim: Sim, edition: Edition, forced: str, report: Report) -> None:
    """Every value and every place under `edition` against gacrux (told `forced`, "" or
    "/V2024" / "/V2026")."""
    ct = crosstable(sim.state)
    assert ct.edition.edition == edition
    text, pid_of = export(sim)
    where = f"{sim.tid} {edition}"
    rules, theirs = gacrux(text, ["PTS", *(code + forced for code in CODES)])
    if not forced:
        assert rules == RULES[edition], (where, rules)
    mine = values_of(ct)
    for cid, (_rank, vals) in theirs.items():
        pid = pid_of[cid]
        if as_number(vals[0]) != Fraction(ct.points[pid], 2):
            report.differences.append(f"{where} PTS {pid}")
        for i, (code, (_name, _params, unit)) in enumerate(CODES.items(), start=1):
            if ours(mine[code][pid], unit, vals[i]) != as_number(vals[i]):
                report.differences.append(f"{where} {code} {pid}: {mine[code][pid]} {vals[i]}")
            report.values += 1
    table = standings(sim.state)
    assert table.edition is not None and table.edition.edition == edition
    for name, (codes, chain) in RANKINGS.items():
        if chain is None:
            got = {r.player_id: r.place for r in table.rows}
        else:
            got = places(rank(ct, Chain(tuple(_spec(n) for n in chain))).blocks)
        _, ranked = gacrux(text, ["PTS", *(c + forced for c in codes)])
        for cid, (their_rank, _vals) in ranked.items():
            if got[pid_of[cid]] != their_rank:
                report.differences.append(f"{where} {name} place of {pid_of[cid]}")
            report.places += 1


def _spec(name: str) -> Any:
    return ev.TiebreakSpec(name=name)


def crosscheck(seed: int) -> Report:
    """One tournament under both editions."""
    shape = shape_of(seed)
    sim = play(seed, shape)
    report = Report(players=len(sim.state.players))
    report.features = features(sim)
    by_date = edition_on(shape.starts_on)
    assert sim.state.created is not None and sim.state.created.tiebreak_edition == by_date
    before = values_of(crosstable(sim.state))
    before_places = {r.player_id: r.place for r in standings(sim.state).rows}
    check_edition(sim, by_date, "", report)
    report.caps = caps_seen(crosstable(sim.state))
    other = OTHER[by_date]
    rule_edition(sim, other)
    check_edition(sim, other, f"/V{other[-4:]}", report)
    report.caps |= caps_seen(crosstable(sim.state))
    after = values_of(crosstable(sim.state))
    for code in CODES:
        moved = sum(before[code][p] != after[code][p] for p in before[code])
        if moved and code not in CAPPED:
            report.differences.append(f"{sim.tid}: {code} changed with the edition")
        report.moved[code] = moved
    after_places = {r.player_id: r.place for r in standings(sim.state).rows}
    report.moved_places = sum(before_places[p] != after_places[p] for p in before_places)
    return report


def caps_seen(ct: Crosstable) -> set[str]:
    """Which caps of 16.4 bit (own score above the cap) or just did not (equal) here."""
    seen = set()
    for p in ct.players:
        for d in dummies(ct, p):
            if d.cap is None:
                continue
            if d.capped:
                seen.add(f"{d.article} biting")
            elif d.own == d.cap:
                seen.add(f"{d.article} just not biting")
    return seen


def features(sim: Sim) -> set[str]:
    seen: set[str] = set()
    scheduled = 0
    rounds = sim.state.created.rounds if sim.state.created else 0
    for e in sim.events:
        if isinstance(e, ev.RoundScheduled):
            scheduled = e.round
            seen |= {f"bye:{b.kind}" for b in e.byes}
            if e.round == rounds:
                seen |= {f"last-round bye:{b.kind}" for b in e.byes}
        elif isinstance(e, ev.PlayerRegistered):
            if scheduled:
                seen.add("late entry")
            if e.rating is None:
                seen.add("unrated")
        elif isinstance(e, ev.PlayerWithdrew):
            seen.add("withdrawal")
        elif isinstance(e, ev.GameEnded) and e.termination == "forfeit":
            seen.add("double forfeit" if e.result == "0-0" else "forfeit")
    return seen


ALL_FEATURES = {
    "bye:pairing_allocated",
    "bye:half",
    "bye:zero",
    "last-round bye:half",
    "last-round bye:zero",
    "last-round bye:pairing_allocated",
    "late entry",
    "unrated",
    "withdrawal",
    "forfeit",
    "double forfeit",
}


def parallel_map(fn: Callable[[int], Report], items: Sequence[int]) -> list[Report]:
    workers = min(len(items), os.cpu_count() or 1)
    if workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return [fn(i) for i in items]
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        return list(pool.map(fn, items))


# --- the tests --------------------------------------------------------------------------------


def test_both_editions_agree_with_gacrux_on_every_value_and_place() -> None:
    reports = parallel_map(crosscheck, SEEDS)
    differences = [d for r in reports for d in r.differences]
    assert differences == []
    assert len(reports) >= 50
    # 2 editions x ~20 players x 29 criteria, and 3 rankings
    assert sum(r.values for r in reports) > 60_000
    assert sum(r.places for r in reports) > 6_000
    seen = set().union(*(r.features for r in reports))
    assert seen == ALL_FEATURES
    caps = set().union(*(r.caps for r in reports))
    assert caps == {
        "16.4.1 biting",
        "16.4.1 just not biting",
        "16.4.2 biting",
        "16.4.2 just not biting",
    }
    # The check can fail: the edition moves Buchholz, SB, FB, AOB and places, and nothing else.
    moved = {code: sum(r.moved[code] for r in reports) for code in CODES}
    assert all(moved[code] > 0 for code in ("BH", "BH/C1", "SB", "FB", "AOB"))
    assert sum(r.moved_places for r in reports) > 0
