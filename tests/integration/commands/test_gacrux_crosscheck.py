"""Cross-check of the FIDE criteria (projections/tiebreaks/fide.py) against gacrux, the FIDE
Technical Commission's own tie-break server (TieBreakServer, `python -m gacrux.tiebreakchecker`).

Seeded random tournaments (Swiss with pairing-allocated, half- and zero-point byes, absences,
forfeits won, lost and double, rematches, withdrawals, now and then an unrated player; round
robins with forfeits and a withdrawal) are folded from events, exported as TRF-16 and given to
gacrux's command line; every player's value of every criterion must be equal, and so must the
ranking of direct encounter and of the two presets.

Every tournament is checked under both texts of C.07 the criteria implement (issue 16): created
with `tiebreak_edition` "fide-2024" and exported with a 2025 start date (record 042), from which
gacrux picks its rules of 2024-08-01; and with "fide-2026" and a 2026 start date (its rules of
2026-03-01, whose Art. 16.4 caps the dummy opponents). The fore-Buchholz and AOB codes come
last in a call: gacrux's FB leaves a mark in its shared state that a later BH would read.
(`test_gacrux_crosscheck_editions.py` does the same on tournaments paired by our Dutch
wrapper, switching the edition by a ruling.)

The TRF files are written by the project's own exporter, `services.interchange.trf.write_trf`, so
this
also checks that gacrux reads our exports as we mean them.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from builders import created, player, recorded, result

from events_schema import Event
from events_schema import events as ev
from projections.standings import StandingsState, crosstable, fold, standings
from projections.tiebreaks import REGISTRY, Chain, rank
from projections.tiebreaks.fide import PRESETS
from projections.tiebreaks.registry import resolve_params
from services.interchange.trf import TrfHeader, write_trf

pytestmark = pytest.mark.slow  # make test-fast leaves it out


SWISS_SEEDS = range(1, 41)
# 16, 90, 155 and 194 are round robins where direct encounter decides only when re-applied to a
# sub-group it split off (Art. 6).
ROUND_ROBIN_SEEDS = (*range(101, 111), 16, 90, 155, 194)

# gacrux code -> (our criterion, its parameters, how our key compares to gacrux's number)
HALF = "half-points"
EXACT = "exact"
SWISS_CODES: dict[str, tuple[str, dict[str, Any], str]] = {
    "BH": ("buchholz", {}, HALF),
    "BH/C1": ("buchholz-cut1", {}, HALF),
    "BH/C2": ("buchholz-cut2", {}, HALF),
    "BH/M1": ("buchholz-median1", {}, HALF),
    "BH/M2": ("buchholz-median2", {}, HALF),
    "SB": ("fide-sonneborn-berger", {}, EXACT),
    "SB/C1": ("fide-sonneborn-berger-cut1", {}, EXACT),
    "SB/C2": ("fide-sonneborn-berger-cut2", {}, EXACT),
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
    "AOB": ("fide-aob", {}, "aob"),
    "FB": ("fide-fore-buchholz", {}, HALF),
    "FB/C1": ("fide-fore-buchholz-cut1", {}, HALF),
    "FB/C2": ("fide-fore-buchholz-cut2", {}, HALF),
    "FB/M1": ("fide-fore-buchholz-median1", {}, HALF),
    "FB/M2": ("fide-fore-buchholz-median2", {}, HALF),
    "AOB/F": ("fide-aob", {"fore": True}, "aob"),
}
EDITIONS = ("fide-2024", "fide-2026")
START = {"fide-2024": "2025/06/01", "fide-2026": "2026/06/01"}
RULES = {"fide-2024": "2024-08-01", "fide-2026": "2026-03-01"}
ROUND_ROBIN_CODES: dict[str, tuple[str, dict[str, Any], str]] = {
    "SB": ("fide-sonneborn-berger", {"predetermined": True}, EXACT),
    "WIN": ("fide-wins", {}, EXACT),
    "WON": ("fide-games-won", {}, EXACT),
    "BPG": ("fide-black-games", {}, EXACT),
    "KS": ("fide-koya", {}, HALF),
    "ARO": ("fide-aro", {}, EXACT),
    "TPR": ("fide-tpr", {}, EXACT),
}
# Our presets in gacrux's notation (same order; gacrux shares the places still level).
PRESET_CODES = {
    "fide-swiss": ["PTS", "BH/C1", "BH", "DE", "SB", "WIN"],
    "fide-round-robin": ["PTS", "DE", "WIN", "SB", "KS"],
}


# --- seeded random tournaments ------------------------------------------------------------------

Score = dict[str, int]  # half-points


def _game_result(rng: random.Random, rw: int | None, rb: int | None) -> tuple[str, str]:
    """(result, termination): some forfeits, else a played game weighted by rating."""
    x = rng.random()
    if x < 0.05:
        return "1-0", "forfeit"
    if x < 0.10:
        return "0-1", "forfeit"
    if x < 0.12:
        return "0-0", "forfeit"
    if rng.random() < 0.3:
        return "1/2-1/2", "agreement"
    expected = 1 / (1 + 10 ** (((rb or 1800) - (rw or 1800)) / 400))
    return ("1-0" if rng.random() < expected else "0-1"), "resignation"


def _apply(score: Score, w: str, b: str, res: str, term: str) -> None:
    points = {"1-0": (2, 0), "0-1": (0, 2), "1/2-1/2": (1, 1), "0-0": (0, 0)}[res]
    score[w] += points[0]
    score[b] += points[1]


def swiss_events(seed: int) -> list[Event]:
    rng = random.Random(seed)
    n = rng.randint(7, 14)
    rounds = rng.randint(5, 8)
    pids = [f"p{i:02d}" for i in range(1, n + 1)]
    ratings: dict[str, int | None] = {p: rng.randrange(1400, 2500) for p in pids}
    if rng.random() < 0.12:
        ratings[rng.choice(pids)] = None  # an unrated player: rating criteria are dropped
    events: list[Event] = [
        created(fmt="swiss", rounds=rounds, rules_preset="fide-swiss"),
        *[player(p, ratings[p]) for p in pids],
    ]
    score: Score = dict.fromkeys(pids, 0)
    met: dict[str, set[str]] = {p: set() for p in pids}
    had_bye: set[str] = set()
    gone: set[str] = set()
    for rnd in range(1, rounds + 1):
        for p in pids:
            if p not in gone and rnd > 1 and rng.random() < 0.04:
                gone.add(p)
                events.append(ev.PlayerWithdrew(player_id=p, from_round=rnd))
        byes: list[ev.Bye] = []
        available = []
        for p in pids:
            if p in gone:
                continue
            x = rng.random()
            if x < 0.05:
                byes.append(ev.Bye(player_id=p, kind="half"))
                score[p] += 1
            elif x < 0.08:
                byes.append(ev.Bye(player_id=p, kind="zero"))
            elif x < 0.10:
                pass  # absent without a bye: not paired
            else:
                available.append(p)
        available.sort(key=lambda p: (-score[p], -(ratings[p] or 0), p))
        if len(available) % 2:
            pab = next((p for p in reversed(available) if p not in had_bye), available[-1])
            available.remove(pab)
            had_bye.add(pab)
            byes.append(ev.Bye(player_id=pab, kind="pairing_allocated"))
            score[pab] += 2
        pairs = []
        while available:
            a = available.pop(0)
            b = next((q for q in available if q not in met[a]), available[0])
            available.remove(b)
            pairs.append((a, b) if rng.random() < 0.5 else (b, a))
        pairings = [
            ev.Pairing(game_id=f"r{rnd}g{i}", white=w, black=b) for i, (w, b) in enumerate(pairs)
        ]
        events.append(ev.RoundScheduled(round=rnd, pairings=pairings, byes=byes))
        for pairing in pairings:
            w, b = pairing.white, pairing.black
            res, term = _game_result(rng, ratings[w], ratings[b])
            events.append(result(pairing.game_id, res, term))
            _apply(score, w, b, res, term)
            met[w].add(b)
            met[b].add(w)
    return events


def round_robin_events(seed: int) -> list[Event]:
    """A single round robin (circle method); an odd field sits one player out each round."""
    rng = random.Random(seed)
    n = rng.randint(5, 9)
    pids = [f"p{i:02d}" for i in range(1, n + 1)]
    ratings = {p: rng.randrange(1800, 2700) for p in pids}
    circle: list[str | None] = [*pids, None] if n % 2 else list(pids)
    rounds = len(circle) - 1
    quitter = rng.choice(pids) if rng.random() < 0.5 else None
    quit_from = rng.randint(2, rounds)
    events: list[Event] = [
        created(fmt="round_robin", rounds=rounds, rules_preset="fide-round-robin"),
        *[player(p, ratings[p]) for p in pids],
    ]
    for rnd in range(1, rounds + 1):
        if quitter and rnd == quit_from:
            events.append(ev.PlayerWithdrew(player_id=quitter, from_round=rnd))
        half = len(circle) // 2
        pairs = [(circle[i], circle[-1 - i]) for i in range(half)]
        pairings = [
            ev.Pairing(game_id=f"r{rnd}g{i}", white=a if rnd % 2 else b, black=b if rnd % 2 else a)
            for i, (a, b) in enumerate(pairs)
            if a is not None and b is not None
        ]
        events.append(ev.RoundScheduled(round=rnd, pairings=pairings))
        for pairing in pairings:
            w, b = pairing.white, pairing.black
            if quitter in (w, b) and rnd >= quit_from:
                res, term = ("0-1" if w == quitter else "1-0"), "forfeit"
            else:
                res, term = _game_result(rng, ratings[w], ratings[b])
            events.append(result(pairing.game_id, res, term))
        circle = [circle[0], circle[-1], *circle[1:-1]]
    return events


# --- the TRF export ---------------------------------------------------------------------------


def export(state: StandingsState, edition: str = "fide-2024") -> tuple[str, dict[int, str]]:
    """The project's TRF-16 export (services.interchange.trf.write_trf), and start number -> player
    id.

    A 2025 start date (record 042) makes gacrux apply the rules of 2024-08-01, a 2026 one its
    rules of 2026-03-01; without one it would apply its newest rules."""
    text = write_trf(state, header=TrfHeader(start_date=START[edition]), order="rating")
    by_name = {info.name: pid for pid, info in state.players.items()}
    numbers = {
        int(line[4:8]): by_name[line[14:47].rstrip()]
        for line in text.splitlines()
        if line.startswith("001")
    }
    return text, numbers


def gacrux(
    trf: Path, codes: list[str], round_robin: bool, edition: str = "fide-2024"
) -> dict[int, tuple[int, list[Any]]]:
    """Start number -> (rank, tie-break values) from gacrux's command line."""
    mode = "-p" if round_robin else "-s"
    cmd = [sys.executable, "-m", "gacrux.tiebreakchecker", "-i", str(trf), mode, "-t", *codes]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=60)
    data = json.loads(out.stdout)
    assert data["status"]["code"] == 0, data["status"]
    # The rule set gacrux applied, from the start date: the 2024 text (in force to 2026-02-28)
    # or the 2026 one.
    assert data["tiebreakResult"]["rules"] == RULES[edition]
    return {
        c["cid"]: (c["rank"], c["tiebreakScore"]) for c in data["tiebreakResult"]["competitors"]
    }


def as_number(value: Any) -> Fraction | None:
    return None if value is None else Fraction(Decimal(str(value)))


def ours(key: Any, unit: str, theirs: Any = None) -> Fraction | None:
    if key is None:
        return None
    if unit == "aob" and theirs is not None:  # AOB is exact here, rounded by gacrux
        exact = Decimal(key.numerator) / Decimal(key.denominator)
        step = Decimal(1).scaleb(Decimal(str(theirs)).as_tuple().exponent)
        return Fraction(exact.quantize(step, ROUND_HALF_UP))
    return Fraction(key, 2) if unit == HALF else Fraction(key)


def places(blocks: list[list[str]]) -> dict[str, int]:
    out, place = {}, 1
    for block in blocks:
        for p in block:
            out[p] = place
        place += len(block)
    return out


# --- the cross-check ----------------------------------------------------------------------------


def crosscheck(
    events: list[Event],
    codes: dict[str, tuple[str, dict[str, Any], str]],
    preset: str,
    tmp: Path,
    edition: str = "fide-2024",
) -> int:
    """Compare every value and the two rankings under `edition`; returns the number of
    values compared."""
    round_robin = preset == "fide-round-robin"
    first, *rest = events
    assert isinstance(first, ev.TournamentCreated)
    events = [first.model_copy(update={"tiebreak_edition": edition}), *rest]
    state = fold(recorded("t1", events))
    ct = crosstable(state)
    assert ct.edition.edition == edition
    text, pid_of = export(state, edition)
    trf = tmp / "t.trf"
    trf.write_text(text, encoding="latin-1")
    everyone = tuple(ct.players)
    compared = 0

    theirs = gacrux(trf, ["PTS", *codes], round_robin, edition)
    for cid, (_rank, values) in theirs.items():
        pid = pid_of[cid]
        assert as_number(values[0]) == Fraction(ct.points[pid], 2), (pid, "PTS")
    for i, (code, (name, params, unit)) in enumerate(codes.items(), start=1):
        crit = REGISTRY[name]
        got = crit.compute(ct, everyone, resolve_params(crit, params))
        for cid, (_rank, values) in theirs.items():
            pid = pid_of[cid]
            assert ours(got[pid].key, unit, values[i]) == as_number(values[i]), (
                code,
                pid,
                got[pid],
                values[i],
                text,
            )
            compared += 1

    # Direct encounter (Art. 6): the ranking by points then DE only.
    de = "DE/P" if round_robin else "DE"
    de_spec = REGISTRY["fide-direct-encounter"]
    de_chain = Chain(tuple(s for s in PRESETS[preset].specs if s.name == de_spec.name))
    mine = places(rank(ct, de_chain).blocks)
    for cid, (their_rank, _values) in gacrux(trf, ["PTS", de], round_robin, edition).items():
        assert mine[pid_of[cid]] == their_rank, ("DE", pid_of[cid], text)
        compared += 1

    # The preset's full chain through the standings table.
    table = {row.player_id: row.place for row in standings(state).rows}
    preset_codes = PRESET_CODES[preset]
    for cid, (their_rank, _values) in gacrux(trf, preset_codes, round_robin, edition).items():
        assert table[pid_of[cid]] == their_rank, (preset, pid_of[cid], text)
        compared += 1
    return compared


@pytest.mark.parametrize("edition", EDITIONS)
def test_swiss_tournaments_agree_with_gacrux(tmp_path: Path, edition: str) -> None:
    compared = 0
    for seed in SWISS_SEEDS:
        compared += crosscheck(swiss_events(seed), SWISS_CODES, "fide-swiss", tmp_path, edition)
    assert compared > 12000  # 40 tournaments x ~11 players x 31 criteria and rankings


@pytest.mark.parametrize("edition", EDITIONS)
def test_round_robins_agree_with_gacrux(tmp_path: Path, edition: str) -> None:
    compared = 0
    for seed in ROUND_ROBIN_SEEDS:
        compared += crosscheck(
            round_robin_events(seed), ROUND_ROBIN_CODES, "fide-round-robin", tmp_path, edition
        )
    assert compared > 500


def test_generated_tournaments_exercise_the_unplayed_rounds() -> None:
    """The random tournaments hold every kind of unplayed round the regulation treats apart."""
    kinds: set[str] = set()
    withdrawals = unrated = 0
    for seed in SWISS_SEEDS:
        state = fold(recorded("t1", swiss_events(seed)))
        ct = crosstable(state)
        kinds |= {e.kind for es in ct.entries.values() for e in es}
        withdrawals += len(ct.withdrawn)
        unrated += any(info.rating is None for info in ct.players.values())
    assert kinds >= {"played", "forfeit_win", "forfeit_loss", "bye", "half_bye", "zero_bye"}
    assert withdrawals >= 5 and unrated >= 2


@pytest.mark.parametrize("seed", [3])
def test_trf_export_is_what_gacrux_reads(seed: int, tmp_path: Path) -> None:
    """Sanity of the export: gacrux reads back every player's points."""
    state = fold(recorded("t1", swiss_events(seed)))
    ct = crosstable(state)
    text, pid_of = export(state)
    (tmp_path / "t.trf").write_text(text, encoding="latin-1")
    theirs = gacrux(tmp_path / "t.trf", ["PTS"], False)
    assert {pid_of[c]: as_number(v[0]) for c, (_r, v) in theirs.items()} == {
        p: Fraction(s, 2) for p, s in ct.points.items()
    }
