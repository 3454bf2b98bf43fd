"""Whole tournaments paired by OUR Dutch wrapper, re-checked round by round by gacrux's own
pairing checker, colours and board order included.

Each tournament is played through events (tests/bench/pairing.py `Sim`: every event decided,
sealed and folded, as the command path does): the field registers, each round is paired by
`projections.pairing.dutch.propose` from `context()` of the standings fold, results are entered
(forfeits won, lost and double among them), and between rounds players enter late, withdraw
and ask for half- and zero-point byes; some players are unrated.

The check does not reuse the wrapper's translation: the tournament's records are written as
TRF-16 exactly as `arbiter export trf` and `GET /tournaments/{id}/trf` write them
(`services.interchange.trf.export_trf` with no options: players numbered by the Dutch initial
ranking,
record 152 the initial colour drawn), read by gacrux's own TRF reader, and given to
`gacrux.pairingchecker` in check mode (`-c -p -m dutch`, in process), which pairs every round
again from the rounds before it (the CLI test at the end does the same with a tournament
paired by `arbiter pair` and exported by `arbiter export trf`). Every round's pairs, as
(white, black) in board order with the pairing-allocated bye last, must equal ours; and since
the checker takes the file's numbers as the pairing numbers, the numbering is checked on its
own against C.04.2 (`c042_numbers`). So a wrong pairing number, a forfeit read as a
game, a colour from an unplayed round, a lost withdrawal or late entry, or a swapped colour
fails here. Every round is also checked against the absolute criteria (`violations`).

200 generated tournaments of 12-40 players and 4-7 rounds, and four larger ones (64-250).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from bench.pairing import Shape, Sim, random_swiss, violations
from builders import created, recorded, result
from gacrux.pairingchecker import pairingchecker
from gacrux.trf2json import trf2json
from tests_support import append_events, cli_db
from typer.testing import CliRunner

from events_schema import Recorded
from events_schema import events as ev
from projections.pairing import dutch
from projections.pairing.base import PairingContext, Proposal
from projections.standings import fold
from projections.standings.state import PlayerInfo
from services.cli.main import app
from services.eventlog.sqlite import SQLiteEventLog
from services.interchange.trf import export_trf

pytestmark = pytest.mark.slow  # make test-fast leaves it out


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


def numbers(text: str, names: dict[str, str]) -> dict[str, int]:
    """Each player's start rank in a TRF, by player id (`names`: player id -> name)."""
    by_name = {name: pid for pid, name in names.items()}
    return {
        by_name[line[14:47].strip()]: int(line[4:8])
        for line in text.splitlines()
        if line.startswith("001")
    }


def trf_of(sim: Sim) -> tuple[str, dict[str, int]]:
    """The TRF-16 file exactly as the CLI and the API export it (no options), and each
    player's number in it."""
    text = export_trf(recorded(sim.tid, sim.events))
    drawn = sim.context().lot(dutch.colour_subject("main"))
    assert drawn is not None
    assert f"152 {drawn.outcome[0][0].upper()}" in text.splitlines()  # the drawn colour
    return text, numbers(text, {pid: i.name for pid, i in sim.state.players.items()})


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


#: C.04.2 "Initial order" b), written here again rather than read from projections/pairing.
TITLES = ("GM", "IM", "WGM", "FM", "WIM", "CM", "WFM", "WCM")


def c042_numbers(players: dict[str, PlayerInfo]) -> dict[str, int]:
    """The pairing numbers C.04.2 "Initial order" gives (a) rating, unrated last, b) FIDE
    title; then, as the wrapper reads it, the organiser's seed and the name), computed here
    independently of `dutch.ranking_key`: gacrux's checker takes the file's start ranks as
    pairing numbers, so a numbering shared by the wrapper and the exporter must be checked on
    its own."""

    def key(pid: str) -> tuple[object, ...]:
        i = players[pid]
        title = (i.title or "").upper()
        return (
            i.rating is None,
            -(i.rating or 0),
            TITLES.index(title) if title in TITLES else len(TITLES),
            i.seed is None,
            i.seed or 0,
            i.name.casefold(),
            pid,
        )

    return {pid: n for n, pid in enumerate(sorted(players, key=key), start=1)}


def differences(p: Played) -> list[str]:
    text, number = trf_of(p.sim)
    if number != c042_numbers(p.sim.state.players):
        return [f"pairing numbers {number} are not C.04.2's"]
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
    """A wrong initial ranking numbers the export the same wrong way (both follow
    `dutch.initial_ranking`), so gacrux agrees with the pairing; the independent C.04.2
    numbering catches it, and a file numbered otherwise than we paired is caught by gacrux."""
    monkeypatch.setattr(dutch, "ranking_key", lambda h: (h.player_id,))
    p = play(8, shape_of(8))
    assert [d for d in differences(p) if d.startswith("pairing numbers")]
    monkeypatch.undo()  # the same rounds, exported with C.04.2's numbers: gacrux disagrees
    assert any(d.startswith("round 1:") for d in differences(p))


def test_forfeits_read_as_games_are_caught(monkeypatch: pytest.MonkeyPatch):
    record = dutch.round_record

    def as_played(
        rnd: int, cid: int, e: Any, opp: Any, scoring: ev.Scoring
    ) -> dict[str, Any] | None:
        out = record(rnd, cid, e, opp, scoring)
        if out is not None and out["black"] is not None:
            out["played"] = True
        return out

    monkeypatch.setattr(dutch, "round_record", as_played)
    caught = [s for s in range(6) if differences(play(s, replace(shape_of(s), forfeits=0.2)))]
    assert len(caught) >= 3, caught


# ---------------------------------------------------------------------------------------------
# The file as `arbiter export trf` writes it, for a tournament paired by `arbiter pair`
# ---------------------------------------------------------------------------------------------

#: Registered in this order; equal ratings where C.04.2's title criterion (GM before WGM, IM
#: before no title) and the name disagree, so registration order, rating-then-name order and
#: C.04.2's initial ranking all number the field differently.
FIELD = (
    ("ann", 2200, None),
    ("bea", 2300, "WGM"),
    ("uli", None, None),
    ("zed", 2200, "IM"),
    ("cal", 2300, "GM"),
    ("dan", 2150, None),
    ("eve", 2410, "IM"),
    ("una", None, None),
    ("fay", 2050, "WFM"),
    ("gus", 2050, "CM"),
    ("hal", 1980, None),
    ("ivy", 1875, None),
)


def _registered(pid: str, rating: int | None, title: str | None) -> ev.PlayerRegistered:
    return ev.PlayerRegistered(player_id=pid, name=pid.title(), rating=rating, title=title)


def test_a_tournament_paired_and_exported_by_the_cli_rechecks_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """`arbiter pair` (our Dutch) round by round, with a late entry, a withdrawal, a forfeit and
    a requested half-point bye; then `arbiter export trf` with no options: gacrux's checker
    re-pairs every round of that file exactly as we did (0 disagreements). The same rounds
    numbered by registration or by rating then name are not what we paired."""
    db = cli_db(tmp_path, monkeypatch)
    tid = "cli-dutch"
    runner = CliRunner()
    append_events(db, tid, created(fmt="swiss", rounds=5), *(_registered(*p) for p in FIELD))
    rng = random.Random(14)
    rounds: list[dict[str, Any]] = []
    for rnd in range(1, 6):
        if rnd == 2:  # a late entry, ranked in by rating (C.04.3 art. 1.2.2)
            append_events(db, tid, _registered("lou", 2350, "FM"))
        if rnd == 3:
            append_events(
                db,
                tid,
                ev.PlayerWithdrew(player_id="hal", from_round=3),
                ev.RulingIssued(
                    ruling_id="byes-3",
                    by="chief arbiter",
                    subject=dutch.byes_subject("main", 3),
                    text="requested byes",
                    decision={"byes": {"bea": "half"}},
                ),
            )
        res = runner.invoke(app, ["pair", tid, "--json", "--seed", f"s{rnd}"])
        assert res.exit_code == 0, res.output
        body = json.loads(res.stdout)
        assert body["round"] == rnd and body["system"] == "dutch"
        rounds.append(body)
        results = []
        for i, p in enumerate(body["pairings"]):
            if rnd == 2 and i == 1:
                results.append(result(p["game_id"], "1-0", "forfeit"))
            else:
                results.append(result(p["game_id"], rng.choice(["1-0", "1/2-1/2", "0-1"])))
        append_events(db, tid, *results)

    exported = runner.invoke(app, ["export", "trf", tid])
    assert exported.exit_code == 0, exported.output
    text = exported.stdout
    names = {pid: pid.title() for pid, _, _ in (*FIELD, ("lou", 0, None))}
    number = numbers(text, names)
    with SQLiteEventLog(db) as log:
        players = fold([Recorded.of(e) for e in log.read(tid, 1)]).players
    assert number == c042_numbers(players)
    assert [pid for pid, _ in sorted(number.items(), key=lambda kv: kv[1])][:4] == [
        "eve",
        "lou",
        "cal",
        "bea",
    ]

    def disagreements(trf: str) -> list[str]:
        num = numbers(trf, names)
        checked = gacrux_rounds(trf)
        assert [c["round"] for c in checked] == [1, 2, 3, 4, 5]
        out = []
        for c, body in zip(checked, rounds, strict=True):
            ours = [(num[p["white"]], num[p["black"]]) for p in body["pairings"]]
            ours += [
                (num[b["player_id"]], 0) for b in body["byes"] if b["kind"] == "pairing_allocated"
            ]
            theirs = [(int(w), int(b)) for w, b in c["pairs"]]
            if theirs != ours:
                out.append(f"round {body['round']}: gacrux {theirs}, ours {ours}")
        return out

    assert disagreements(text) == []
    for order in ("registration", "rating"):
        other = runner.invoke(app, ["export", "trf", tid, "--order", order])
        assert other.exit_code == 0 and numbers(other.stdout, names) != number
        assert disagreements(other.stdout), order
