"""The pairing constraints in the Dutch system (issue 26 item 2): a prohibited pair
(`PairingsProhibited`, TRF26 record 260) is never paired, the Baku acceleration (FIDE
C.04.5.1, `AccelerationSet`, TRF26 record 250) changes rounds 1 and 2, and a requested bye is
honoured, each round checked against gacrux's own pairing: the tournament exported as
TRF-16 (`services.interchange.trf.export_trf`) with the constraint's 250/260 records written
here by hand from the TRF numbers (TRF26's layout, as gacrux's `trf2json` reads it), paired
again by gacrux's pairing checker round by round."""

from __future__ import annotations

import sys
from typing import Any
from unittest import mock

from bench.pairing import Sim
from builders import created, player, recorded
from gacrux.pairingchecker import pairingchecker
from gacrux.trf2json import trf2json

from events_schema import events as ev
from projections.pairing import dutch
from projections.pairing.acceleration import baku_values
from services.interchange.trf import export_trf, export_trf26

COLOUR = dutch.colour_subject("main")


def sim_of(n: int, rounds: int = 5) -> Sim:
    """p01..pNN rated 2500, 2490, ... (p01 is pairing number 1), White drawn for p01."""
    sim = Sim(dutch.propose, seed=1)
    sim.add(created(fmt="swiss", rounds=rounds))
    for i in range(1, n + 1):
        sim.add(player(f"p{i:02d}", 2510 - 10 * i))
    sim.add(
        ev.LotDrawn(
            purpose="colours", subject=COLOUR, candidates=["black", "white"], outcome=["white"]
        )
    )
    return sim


def pairs(rnd: ev.RoundScheduled) -> list[tuple[str, str]]:
    return [(g.white, g.black) for g in rnd.pairings]


def win_white(sim: Sim, rnd: ev.RoundScheduled) -> None:
    for g in rnd.pairings:
        sim.add(ev.GameEnded(game_id=g.game_id, result="1-0", termination="resignation"))


def numbers(sim: Sim) -> dict[str, int]:
    """Player id -> TRF start rank (the Dutch pairing numbers, C.04.2)."""
    return {
        pid: n for n, pid in enumerate(dutch.initial_ranking(sim.context().players.values()), 1)
    }


def record_250(values: list[ev.VirtualPoints], number: dict[str, int]) -> list[str]:
    """TRF26 record 250, one line per value: match points, game points, rounds, competitors."""
    out = []
    for v in values:
        pts = v.points / 2
        n = number[v.player_id]
        out.append(
            f"250 {pts:>4.1f} {pts:>4.1f} {v.first_round:>3} {v.last_round:>3} {n:>4} {n:>4}"
        )
    return out


def record_260(first: int, last: int, players: list[str], number: dict[str, int]) -> str:
    return f"260 {first:3} {last:3} " + " ".join(f"{number[p]:4}" for p in players)


def gacrux_rounds(text: str) -> list[list[tuple[int, int]]]:
    """gacrux's pairing checker (`-c -p -m dutch`): every round paired again from the file."""
    pc = pairingchecker()
    with mock.patch.object(sys, "argv", ["pairingchecker", "-c", "-p", "-m", "dutch"]):
        pc.read_command_line()
    chessfile = trf2json()
    chessfile.parse_file(text, 0)
    assert chessfile.get_status() == 0, chessfile.chessjson["status"]
    pc.chessfile = chessfile
    pc.prepare_tournament()
    pc.do_checker()
    assert pc.resultjson["status"]["code"] == 0, pc.resultjson["status"]
    rounds: list[Any] = chessfile.result["roundpairing"]
    return [[(int(w), int(b)) for w, b in r["pairs"]] for r in rounds]


def ours(rounds: list[ev.RoundScheduled], number: dict[str, int]) -> list[list[tuple[int, int]]]:
    out = []
    for rnd in rounds:
        got = [(number[g.white], number[g.black]) for g in rnd.pairings]
        got += [(number[b.player_id], 0) for b in rnd.byes if b.kind == "pairing_allocated"]
        out.append(got)
    return out


def test_a_prohibited_pair_is_never_paired_and_gacrux_pairs_the_same():
    # Without the prohibition round 1 is 1-5, 6-2, 3-7, 8-4 (C.04.3: S1 against S2).
    plain = sim_of(8)
    assert ("p01", "p05") in pairs(plain.pair())

    sim = sim_of(8)
    sim.add(ev.PairingsProhibited(players=["p01", "p05"], reason="brothers"))
    played = []
    for _ in range(3):
        rnd = sim.pair()
        assert {("p01", "p05"), ("p05", "p01")}.isdisjoint(pairs(rnd))
        played.append(rnd)
        win_white(sim, rnd)
    number = numbers(sim)
    text = export_trf(recorded(sim.tid, sim.events))
    text += record_260(1, 5, ["p01", "p05"], number) + "\n"
    assert gacrux_rounds(text) == ours(played, number)
    # Arbiter's own TRF26 export writes the same record, and gacrux pairs it the same way
    trf26 = export_trf26(recorded(sim.tid, sim.events))
    assert record_260(1, 5, ["p01", "p05"], number) in trf26.splitlines()
    assert gacrux_rounds(trf26) == ours(played, number)


def test_baku_acceleration_changes_rounds_one_and_two_as_gacrux_pairs_them():
    # C.04.5.1: 8 players, GA = 2 * ceil(8 / 4) = 4 (p01..p04); 5 rounds, 3 accelerated, the
    # first 2 with 1 virtual point, round 3 with ½.
    order = [f"p{i:02d}" for i in range(1, 9)]
    values = baku_values(order, 5)
    assert [(v.player_id, v.first_round, v.last_round, v.points) for v in values[:2]] == [
        ("p01", 1, 2, 2),
        ("p01", 3, 3, 1),
    ]
    assert {v.player_id for v in values} == {"p01", "p02", "p03", "p04"}

    plain, sim = sim_of(8), sim_of(8)
    sim.add(ev.AccelerationSet(method="baku", values=values))
    plain_rounds, played = [], []
    for _ in range(3):
        for s, out in ((plain, plain_rounds), (sim, played)):
            rnd = s.pair()
            out.append(rnd)
            win_white(s, rnd)
    # Round 1: GA meets GA (1-3, 4-2) and GB meets GB, not the top half against the bottom.
    assert pairs(played[0]) == [("p01", "p03"), ("p04", "p02"), ("p05", "p07"), ("p08", "p06")]
    assert pairs(plain_rounds[0]) == [
        ("p01", "p05"),
        ("p06", "p02"),
        ("p03", "p07"),
        ("p08", "p04"),
    ]
    assert pairs(played[1]) != pairs(plain_rounds[1])
    number = numbers(sim)
    text = export_trf(recorded(sim.tid, sim.events))
    text += "\n".join(record_250(values, number)) + "\n"
    assert gacrux_rounds(text) == ours(played, number)
    trf26 = export_trf26(recorded(sim.tid, sim.events))
    assert gacrux_rounds(trf26) == ours(played, number)
    # the export joins consecutive start ranks: 250 for 1-4 in rounds 1-2, then in round 3
    assert [line for line in trf26.splitlines() if line.startswith("250")] == [
        "250  1.0  1.0   1   2    1    4",
        "250  0.5  0.5   3   3    1    4",
    ]


def test_a_requested_bye_is_honoured_before_pairing():
    sim = sim_of(8)
    sim.add(
        ev.RulingIssued(
            ruling_id="byes-main-r1-1",
            by="CA",
            subject=dutch.byes_subject("main", 1),
            text="p03 requests a half-point bye in round 1",
            decision={"byes": {"p03": "half"}},
        )
    )
    rnd = sim.pair()
    assert "p03" not in {p for pair in pairs(rnd) for p in pair}
    assert ev.Bye(player_id="p03", kind="half") in rnd.byes
    # 7 players left: the lowest (p08) gets the pairing-allocated bye.
    assert ev.Bye(player_id="p08", kind="pairing_allocated") in rnd.byes
    win_white(sim, rnd)
    number = numbers(sim)
    assert gacrux_rounds(export_trf(recorded(sim.tid, sim.events))) == ours([rnd], number)


def test_a_retracted_prohibition_no_longer_binds():
    sim = sim_of(8)
    sim.add(ev.PairingsProhibited(players=["p01", "p05"]))
    prohibition = sim.decided.events
    (pid,) = [k for k, ref in prohibition.items() if ref.type == "PairingsProhibited"]
    sim.add(ev.EventRetracted(retracted_event_id=pid, reason="entered by mistake"))
    assert sim.context().prohibitions == ()
    assert ("p01", "p05") in pairs(sim.pair())


def _250(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("250")]


def test_given_baku_set_when_a_player_enters_before_round_one_then_he_counts_in_ga():
    # Given the Baku acceleration chosen with 8 players (GA p01..p04, the event's record) ...
    sim = sim_of(8)
    sim.add(
        ev.AccelerationSet(method="baku", values=baku_values([f"p{i:02d}" for i in range(1, 9)], 5))
    )
    # ... when a ninth player, the highest rated, enters before round 1 is paired,
    sim.add(player("p00", 2600))
    # then round 1 is split on 9 players (C.04.5.1: GA = 2 * ceil(9 / 4) = 6: p00, p01..p05),
    # without the arbiter setting the acceleration again.
    bonus = dutch.virtual_points(sim.context())
    assert bonus[1] == dict.fromkeys(["p00", "p01", "p02", "p03", "p04", "p05"], 2)
    assert bonus[3] == dict.fromkeys(["p00", "p01", "p02", "p03", "p04", "p05"], 1)
    played = []
    for _ in range(3):
        rnd = sim.pair()
        played.append(rnd)
        win_white(sim, rnd)
    # GA meets GA in round 1: no GA player faces one of p06..p08 (GB, the bye among them).
    ga = {"p00", "p01", "p02", "p03", "p04", "p05"}
    assert all((w in ga) == (b in ga) for w, b in pairs(played[0]))
    number = numbers(sim)
    trf26 = export_trf26(recorded(sim.tid, sim.events))
    assert _250(trf26) == [
        "250  1.0  1.0   1   2    1    6",
        "250  0.5  0.5   3   3    1    6",
    ]
    assert gacrux_rounds(trf26) == ours(played, number)


def test_given_baku_and_round_one_played_when_late_entries_come_then_ga_keeps_its_last_player():
    # Given 8 players, the Baku acceleration (GA p01..p04: 2 * ceil(8 / 4)) and round 1 played,
    sim = sim_of(8)
    sim.add(
        ev.AccelerationSet(method="baku", values=baku_values([f"p{i:02d}" for i in range(1, 9)], 5))
    )
    played = [sim.pair()]
    win_white(sim, played[0])
    # when two players enter late, one rated between p03 and p04 (the last GA player), one
    # below everyone,
    sim.add(player("late-a", 2475))
    sim.add(player("late-z", 2000))
    # then (C.04.5.1 "Late entries": the last GA player stays p04, Note 2: GA may be odd)
    # late-a is in GA from round 2, with 1 virtual point, then ½ in round 3; late-z is in GB;
    # round 1's virtual points stay those it was paired with.
    bonus = dutch.virtual_points(sim.context())
    assert bonus[1] == dict.fromkeys(["p01", "p02", "p03", "p04"], 2)
    assert bonus[2] == dict.fromkeys(["p01", "p02", "p03", "late-a", "p04"], 2)
    assert bonus[3] == dict.fromkeys(["p01", "p02", "p03", "late-a", "p04"], 1)
    for _ in range(2):
        rnd = sim.pair()
        played.append(rnd)
        win_white(sim, rnd)
    number = numbers(sim)  # late-a is pairing number 4, p04 5, late-z 10
    assert (number["late-a"], number["p04"], number["late-z"]) == (4, 5, 10)
    trf26 = export_trf26(recorded(sim.tid, sim.events))
    # the 250 records are those the pairing read: late-a from round 2, nothing for late-z
    assert _250(trf26) == [
        "250  1.0  1.0   1   2    1    3",
        "250  1.0  1.0   1   2    5    5",
        "250  1.0  1.0   2   2    4    4",
        "250  0.5  0.5   3   3    1    5",
    ]
    # and gacrux, reading them, pairs every round as Arbiter paired it
    assert gacrux_rounds(trf26) == ours(played, number)


def test_an_explicit_acceleration_stays_as_given_when_a_player_enters():
    # Given explicit values (a TRF26 file's 250) for p01..p02 in round 1,
    sim = sim_of(8)
    values = [
        ev.VirtualPoints(player_id=p, first_round=1, last_round=1, points=2) for p in ("p01", "p02")
    ]
    sim.add(ev.AccelerationSet(method="explicit", values=values))
    # when a higher-rated player enters, then the values are still the ones given.
    sim.add(player("p00", 2600))
    assert dutch.virtual_points(sim.context()) == {1: {"p01": 2, "p02": 2}}
    number = numbers(sim)
    assert _250(export_trf26(recorded(sim.tid, sim.events))) == [
        f"250  1.0  1.0   1   1    {number['p01']}    {number['p02']}"
    ]
