"""Whole tournaments paired by OUR Dutch wrapper, re-checked round by round by gacrux's own
pairing checker, colours and board order included.

Each tournament is played through events (tests/bench/pairing.py `Sim`: every event decided,
sealed and folded, as the command path does): the field registers, each round is paired by
`projections.pairing.dutch.propose` from `context()` of the standings fold, results are entered
(forfeits won, lost and double among them), and between rounds players enter late, withdraw
and ask for half- and zero-point byes; some players are unrated.

The check does not reuse the wrapper's translation: the folded tournament is written as TRF-16
by the project's exporter (`services.trf.write_trf`, players numbered in FIDE's initial order)
plus record 152 (the initial colour drawn), read by gacrux's own TRF reader, and given to
`gacrux.pairingchecker` in check mode (`-c -p -m dutch`, in process), which pairs every round
again from the rounds before it. Every round's pairs, as (white, black) in board order with the
pairing-allocated bye last, must equal ours. So a wrong pairing number, a forfeit read as a
game, a colour from an unplayed round, a lost withdrawal or late entry, or a swapped colour
fails here. Every round is also checked against the absolute criteria (`violations`).

200 generated tournaments of 12-40 players and 4-7 rounds, and four larger ones (64-250).
"""

from __future__ import annotations

import multiprocessing
import os
import random
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any
from unittest import mock

import pytest
from bench.pairing import Shape, Sim, random_swiss, violations
from gacrux.pairingchecker import pairingchecker
from gacrux.trf2json import trf2json

from events_schema import events as ev
from projections.pairing import dutch
from projections.pairing.base import PairingContext, Proposal
from services.trf import write_trf

CHUNKS = 10
PER_CHUNK = 20  # 200 tournaments
LARGER = ((1001, 64, 9), (1002, 100, 9), (1003, 150, 7), (1004, 250, 7))


def _checker_params() -> dict[str, Any]:
    pc = pairingchecker()
    with mock.patch.object(sys, "argv", ["pairingchecker", "-c", "-p", "-m", "dutch"]):
        pc.read_command_line()
    return dict(pc.params)


PARAMS = _checker_params()


def shape_of(seed: int) -> Shape:
    rng = random.Random(seed)
    return Shape(
        players=rng.randint(12, 40),
        rounds=rng.randint(4, 7),
        forfeits=rng.choice([0.02, 0.05, 0.1]),
        late=rng.choice([0.0, 0.3, 0.6]),
        withdraw=rng.choice([0.0, 0.01, 0.03]),
        byes=rng.choice([0.0, 0.02, 0.05]),
        unrated=rng.choice([0.0, 0.05]),
    )


@dataclass
class Played:
    sim: Sim
    rounds: list[ev.RoundScheduled]
    broken: list[str] = field(default_factory=list)  # absolute criteria, round by round


def play(seed: int, shape: Shape, system: Any = dutch.propose) -> Played:
    sim = Sim(system, seed=seed, tid=f"x{seed}")
    broken: list[str] = []

    def check(ctx: PairingContext, rnd: ev.RoundScheduled) -> None:
        broken.extend(f"round {rnd.round}: {v}" for v in violations(ctx, rnd))

    rounds = random_swiss(sim, shape, check=check)
    return Played(sim, rounds, broken)


def trf_of(sim: Sim) -> tuple[str, dict[str, int]]:
    """Our TRF-16 export plus record 152, and each player's number in it."""
    text = write_trf(sim.state, order="rating", newline="\n")
    drawn = sim.context().lot(dutch.colour_subject("main"))
    assert drawn is not None
    text += f"152 {'W' if drawn.outcome[0] == 'white' else 'B'}\n"
    by_name = {info.name: pid for pid, info in sim.state.players.items()}
    number = {
        by_name[line[14:47].strip()]: int(line[4:8])
        for line in text.splitlines()
        if line.startswith("001")
    }
    return text, number


def gacrux_rounds(text: str) -> list[dict[str, Any]]:
    """pairingchecker -c -p: gacrux's pairing of every round, from the TRF."""
    pc = pairingchecker()
    pc.params = dict(PARAMS)
    chessfile = trf2json()
    chessfile.parse_file(text, 0)
    assert chessfile.get_status() == 0, chessfile.chessjson["status"]
    pc.chessfile = chessfile
    pc.prepare_tournament()
    pc.do_checker()
    assert pc.resultjson["status"]["code"] == 0, pc.resultjson["status"]
    return list(chessfile.result["roundpairing"])


def differences(p: Played) -> list[str]:
    text, number = trf_of(p.sim)
    checked = gacrux_rounds(text)
    if [c["round"] for c in checked] != [r.round for r in p.rounds]:
        return [f"gacrux checked rounds {[c['round'] for c in checked]}"]
    out = []
    for c, rnd in zip(checked, p.rounds, strict=True):
        ours = [(number[g.white], number[g.black]) for g in rnd.pairings]
        ours += [(number[b.player_id], 0) for b in rnd.byes if b.kind == "pairing_allocated"]
        theirs = [(int(w), int(b)) for w, b in c["pairs"]]
        if theirs != ours:
            out.append(f"round {rnd.round}: gacrux {theirs}, ours {ours}")
    return out


def features(p: Played) -> set[str]:
    seen: set[str] = set()
    scheduled = False
    for e in p.sim.events:
        if isinstance(e, ev.RoundScheduled):
            scheduled = True
            seen |= {f"bye:{b.kind}" for b in e.byes}
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
    "late entry",
    "unrated",
    "withdrawal",
    "forfeit",
    "double forfeit",
}


def crosscheck(seed: int) -> tuple[list[str], set[str], int]:
    """One generated tournament: what differs or breaks, what it exercised, its rounds."""
    shape = shape_of(seed)
    p = play(seed, shape)
    return (
        [f"seed {seed} {shape}: {d}" for d in p.broken + differences(p)],
        features(p),
        len(p.rounds),
    )


def parallel_map(fn: Callable[[int], Any], items: Sequence[int]) -> list[Any]:
    """gacrux is single-threaded and this check pairs every round twice: spread the
    tournaments over the machine's cores (forked workers) to stay within CI time."""
    workers = min(len(items), os.cpu_count() or 1)
    if workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return [fn(i) for i in items]
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
        return list(pool.map(fn, items))


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_generated_tournaments_agree_with_gacrux_round_by_round(chunk: int):
    failures: list[str] = []
    seen: set[str] = set()
    rounds = 0
    for broken, exercised, n in parallel_map(
        crosscheck, range(chunk * PER_CHUNK, (chunk + 1) * PER_CHUNK)
    ):
        failures += broken
        seen |= exercised
        rounds += n
    assert failures == []
    assert rounds >= PER_CHUNK * 4
    assert seen == ALL_FEATURES  # every chunk exercises all of it


@pytest.mark.parametrize(("seed", "players", "rounds"), LARGER)
def test_larger_tournaments_agree_with_gacrux(seed: int, players: int, rounds: int):
    shape = Shape(players, rounds, forfeits=0.03, late=0.5, withdraw=0.01, byes=0.02, unrated=0.03)
    p = play(seed, shape)
    assert p.broken == []
    assert differences(p) == []


# ---------------------------------------------------------------------------------------------
# The check catches a wrong pairing
# ---------------------------------------------------------------------------------------------


def _swap_board_one(ctx: PairingContext) -> Proposal:
    prop = dutch.propose(ctx)
    if prop.round is None or ctx.round < 3:
        return prop
    first, *rest = prop.round.pairings
    swapped = first.model_copy(update={"white": first.black, "black": first.white})
    return replace(prop, round=prop.round.model_copy(update={"pairings": [swapped, *rest]}))


def test_a_swapped_colour_is_caught():
    p = play(7, shape_of(7), system=_swap_board_one)
    diffs = differences(p)
    assert diffs and all(d.startswith("round ") for d in diffs)
    assert not any(d.startswith(("round 1:", "round 2:")) for d in diffs)


def test_pairing_numbers_in_the_wrong_order_are_caught(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(dutch, "ranking_key", lambda h: (h.player_id,))
    p = play(8, shape_of(8))
    assert any(d.startswith("round 1:") for d in differences(p))


def test_forfeits_read_as_games_are_caught(monkeypatch: pytest.MonkeyPatch):
    record = dutch._record

    def as_played(
        rnd: int, cid: int, e: Any, opp: Any, scoring: ev.Scoring
    ) -> dict[str, Any] | None:
        out = record(rnd, cid, e, opp, scoring)
        if out is not None and out["black"] is not None:
            out["played"] = True
        return out

    monkeypatch.setattr(dutch, "_record", as_played)
    caught = [s for s in range(6) if differences(play(s, replace(shape_of(s), forfeits=0.2)))]
    assert len(caught) >= 3, caught
