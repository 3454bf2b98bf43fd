"""McMahon pairing benchmark (issue 13, part 7): one round of a Go McMahon tournament.

`run(quick)` builds a field through the command path's pure parts (`Sim` of
`tests/bench/pairing.py`: each event decided, sealed and folded by both folds), plays the rounds
before the timed one (results drawn from the ranks, some players skipping rounds by notice,
handicap games started with their stones), then times the round `repeats` times (best of):

- `wrapper_total_s`: `context()` from the folded `StandingsState` + `mcmahon.propose` (what
  `arbiter pair` runs); split into `context_s`, `scores_s` (`go_scores`: MMS, SOS, SOSOS of the
  crosstable) and `propose_s`;
- the raw peers, on plain data prepared outside the timing: `raw_sort_s`, the players sorted
  by a precomputed MMS (the one thing any McMahon pairing does), and `raw_search_s`, the bare
  pairing search (`mcmahon.search`: split and fold, floaters, no rematch) on precomputed
  order, groups and opponents;
- the ratios of the wrapper to each peer.

Full: 200 players, round 5 (4 rounds of history), without handicaps and with them (MMS
difference, correction 0). Quick: 60 players, round 3. Run: `python -m tests.bench.mcmahon
[--quick]` from the repository root (one JSON document on stdout, progress on stderr).
"""

from __future__ import annotations

import contextlib
import math
import platform
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

_repo = Path(__file__).resolve().parents[2]
for _p in (_repo / "tests", _repo):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from events_schema import events as ev  # noqa: E402
from events_schema.go import GoSettings  # noqa: E402
from projections.pairing import mcmahon  # noqa: E402
from projections.pairing.base import context  # noqa: E402
from projections.tiebreaks.mcmahon import go_scores, top_group  # noqa: E402
from projections.tournament.decide import Rejected  # noqa: E402

from .common import quick_main  # noqa: E402
from .pairing import Sim  # noqa: E402

#: A club-to-congress spread of ranks, weaker players more numerous.
RANKS = [f"{k}k" for k in range(25, 0, -1)] + [f"{d}d" for d in range(1, 7)]


def _progress(msg: str) -> None:
    print(f"[bench.mcmahon] {msg}", file=sys.stderr, flush=True)


def field(n: int, rng: random.Random) -> list[str]:
    """n ranks, drawn with more weight on the middle kyu ranks."""
    weights = [1 + min(i, len(RANKS) - i) for i in range(len(RANKS))]
    return rng.choices(RANKS, weights=weights, k=n)


def build(players: int, timed_round: int, handicap: bool, seed: int = 13) -> Sim:
    """A McMahon tournament with `timed_round - 1` rounds played through `Sim`."""
    go = GoSettings(
        mcmahon_bar="3d",
        mcmahon_floor="20k",
        handicap="rank_difference" if handicap else "none",
        handicap_correction=0,  # so that neighbouring groups already give a stone
    )
    sim = Sim(mcmahon.propose, seed=seed, tid=f"bench-mcmahon-{players}")
    sim.add(ev.TournamentCreated(name="Bench", game="go", format="mcmahon", rounds=6, go=go))
    ranks = field(players, sim.rng)
    for i, rank in enumerate(ranks):
        sim.add(ev.PlayerRegistered(player_id=f"g{i:03d}", name=f"G{i}", go_rank=rank))
    top = top_group(go, {f"g{i:03d}": r for i, r in enumerate(ranks)})
    value = {f"g{i:03d}": mcmahon.rank_value(r) for i, r in enumerate(ranks)}
    for r in range(1, timed_round + 1):
        for pid in sim.active():  # a few players skip a round by notice (LGC Other players)
            if pid not in top and sim.rng.random() < 0.03:
                with contextlib.suppress(Rejected):  # the decider says who may
                    sim.add(ev.RoundSkipped(player_id=pid, round=r))
        if r == timed_round:
            break
        _progress(f"{players} players: pairing round {r} (history)")
        prop = mcmahon.propose(sim.context())
        assert prop.round is not None
        sim.add(prop.round)
        for p in prop.round.pairings:
            stones = prop.handicaps.get(p.game_id, 0)
            if stones:
                sim.add(ev.GameStarted(game_id=p.game_id, handicap=stones))
            # The stronger wins more often, less so with a handicap (ranks per stone).
            gap = value[p.white] - value[p.black] - stones
            white_wins = sim.rng.random() < 1 / (1 + math.exp(-0.6 * gap))
            res = "1-0" if white_wins else "0-1"
            sim.add(ev.GameEnded(game_id=p.game_id, result=res, termination="counting"))
    return sim


def _one(players: int, timed_round: int, repeats: int, handicap: bool) -> dict[str, Any]:
    t_build = time.perf_counter()
    sim = build(players, timed_round, handicap)
    built = time.perf_counter() - t_build
    best: dict[str, float] = {}

    def keep(key: str, seconds: float) -> None:
        best[key] = min(best.get(key, seconds), seconds)

    games = byes = stones = 0
    for i in range(repeats):
        _progress(f"{players} players: timing round {timed_round} ({i + 1}/{repeats})")
        t0 = time.perf_counter()
        ctx = context(sim.state, sim.stage)
        t1 = time.perf_counter()
        prop = mcmahon.propose(ctx)
        t2 = time.perf_counter()
        assert prop.round is not None
        games, byes = len(prop.round.pairings), len(prop.round.byes)
        stones = sum(prop.handicaps.values())
        # The scores alone, on a fresh crosstable (the context's one has them memoised).
        ct = context(sim.state, sim.stage).crosstable
        assert ct is not None
        t3 = time.perf_counter()
        scores = go_scores(ct, ctx.round - 1)
        t4 = time.perf_counter()
        # Raw peers on plain data prepared here, outside the timing.
        present = [p for p in ctx.active if p not in ctx.skipped.get(ctx.round, frozenset())]
        mms = {p: float(scores.mms[p]) for p in present}
        order = mcmahon.placement(ctx, scores, present)
        if len(order) % 2:
            order = order[:-1]
        group = {p: math.floor(scores.mms[p]) for p in order}
        met = {p: ctx.players[p].opponents for p in order}
        items = list(mms.items())
        t5 = time.perf_counter()
        sorted(items, key=lambda kv: -kv[1])
        t6 = time.perf_counter()
        mcmahon.search(order, met, group, rematches=False)
        t7 = time.perf_counter()
        keep("context_s", t1 - t0)
        keep("propose_s", t2 - t1)
        keep("wrapper_total_s", t2 - t0)
        keep("scores_s", t4 - t3)
        keep("raw_sort_s", t6 - t5)
        keep("raw_search_s", t7 - t6)
    wrapper = best["wrapper_total_s"]
    return {
        "players": players,
        "round": timed_round,
        "handicap": handicap,
        "games": games,
        "byes": byes,
        "handicap_stones": stones,
        "repeats": repeats,
        **{k: round(v, 6) for k, v in best.items()},
        "ratio_wrapper_to_raw_sort": round(wrapper / best["raw_sort_s"], 1),
        "ratio_wrapper_to_raw_search": round(wrapper / best["raw_search_s"], 2),
        "history_build_s": round(built, 3),
    }


def run(quick: bool) -> dict[str, Any]:
    """Time one McMahon round per size; the JSON-ready document."""
    sizes = ((60, 3, 3),) if quick else ((200, 5, 5),)
    return {
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
        "quick": quick,
        "rounds": [
            _one(n, rnd, repeats, handicap)
            for n, rnd, repeats in sizes
            for handicap in (False, True)
        ],
        "note": (
            "best of `repeats`; wrapper = context() + mcmahon.propose from the folded state; "
            "raw_sort = sorting the present players by a precomputed MMS; raw_search = the bare "
            "pairing search on precomputed order, groups and opponents"
        ),
    }


def main(argv: Sequence[str] | None = None, emit: bool = True) -> dict[str, Any]:
    return quick_main("mcmahon", run, argv, emit)


if __name__ == "__main__":
    main()
