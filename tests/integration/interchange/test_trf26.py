"""TRF26 import and export (issue 26 item 1): services/interchange/trf/records26.py and
write26.py.

The golden file `tests/golden/trf26/c04-trf26-byes-acceleration-prohibited-forfeits.trf` is a
tournament Arbiter played and exported as TRF26: UTF-8 names, a prohibited pairing (260), the
Baku acceleration (250, FIDE C.04.5.1), a half-point bye requested and taken (the 001 lines),
byes requested ahead (240), forfeits and a double forfeit (the 001 lines' ``+``/``-``), and
records kept from an earlier import (022, 102, 122, 162, 192, 202, 212, 222, a ``###``
comment). Imported (`arbiter import trf`'s path) and exported again it is the same file, byte
for byte; gacrux reads it with the same players and results and pairs its rounds as they were
paired; `ARBITER_UPDATE_GOLDEN=1` writes it again from the tournament below (and fails)."""

from __future__ import annotations

import os
import sys
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from bench.pairing import Sim
from builders import ADMIN, recorded
from gacrux.pairingchecker import pairingchecker
from gacrux.trf2json import trf2json
from tests_support import cli_db, cli_run, log_events

from events_schema import Recorded
from events_schema import events as ev
from projections.pairing import dutch
from projections.pairing.acceleration import baku_values
from services.eventlog.sqlite import SQLiteEventLog
from services.interchange.trf import (
    TrfError,
    export_trf,
    export_trf26,
    import_trf,
    is_trf26,
    parse_trf,
    to_events,
)
from services.interchange.trf.parse import decode_trf

GOLDEN = (
    Path(__file__).resolve().parents[2]
    / "golden"
    / "trf26"
    / "c04-trf26-byes-acceleration-prohibited-forfeits.trf"
)
NAMES = [
    ("p01", "Dvořák, Jan", 2410),
    ("p02", "Dvořáková, Eva", 2380),
    ("p03", "Müller, Jörg", 2350),
    ("p04", "Łukasiewicz, Żaneta", 2320),
    ("p05", "García, Íñigo", 2290),
    ("p06", "Smith, Anna", 2260),
    ("p07", "Øster, Bjørn", 2230),
    ("p08", "Nguyễn, Văn An", 2200),
    ("p09", "O'Brien, Seán", 2170),
    ("p10", "Šťastný, Ondřej", 2140),
]
KEPT = [
    "022 Praha",
    "102 Novák, Petr",
    "122 90'/40+30'+30\"",
    "162  W 1.0    D 0.5    L 0.0    P 1.0",
    "192 FIDE_DUTCH",
    "202 BH/C1 BH SB",
    "212 PTS BH/C1 BH SB",
    "222 5400+30",
    "### kept from the organiser's file",
]


#: 212 "PTS BH/C1 BH SB" as Arbiter's criteria.
CHAIN = [
    ev.TiebreakSpec(name="buchholz-cut1"),
    ev.TiebreakSpec(name="buchholz"),
    ev.TiebreakSpec(name="fide-sonneborn-berger"),
]


def byes_ruling(rnd: int, byes: dict[str, str]) -> ev.RulingIssued:
    return ev.RulingIssued(
        ruling_id=f"byes-main-r{rnd}-1",
        by="CA",
        subject=dutch.byes_subject("main", rnd),
        text=f"byes requested for round {rnd}",
        decision={"byes": byes},
    )


def played() -> Sim:
    """The golden tournament: three rounds of five paired by our Dutch pairing."""
    sim = Sim(dutch.propose, seed=1, tid="golden")
    sim.add(
        ev.TournamentCreated(
            name="Open Praha 2026",
            format="swiss",
            rounds=5,
            starts_on=date(2026, 5, 1),
            pairing="dutch",
            tiebreaks=CHAIN,
            time_controls=[ev.TimeControl(name="5400+30", base_seconds=5400, increment_seconds=30)],
        )
    )
    for pid, name, rating in NAMES:
        sim.add(ev.PlayerRegistered(player_id=pid, name=name, rating=rating, federation="CZE"))
    sim.add(ev.TrfRecordsKept(lines=KEPT))
    sim.add(
        ev.LotDrawn(
            purpose="colours",
            subject=dutch.colour_subject("main"),
            candidates=["black", "white"],
            outcome=["white"],
        )
    )
    sim.add(ev.PairingsProhibited(players=["p01", "p02"], reason="married"))
    sim.add(ev.AccelerationSet(method="baku", values=baku_values([p for p, _, _ in NAMES], 5)))
    sim.add(byes_ruling(2, {"p06": "half"}))
    outcomes = {
        1: ["1-0", "1/2-1/2", "forfeit", "0-1", "1-0"],
        2: ["0-1", "1-0", "1/2-1/2", "double"],
        3: ["1/2-1/2", "1-0", "1-0", "0-1", "1-0"],
    }
    for rnd in (1, 2, 3):
        scheduled = sim.pair()
        for g, res in zip(scheduled.pairings, outcomes[rnd], strict=False):
            if res == "forfeit":
                e = ev.GameEnded(game_id=g.game_id, result="1-0", termination="forfeit")
            elif res == "double":
                e = ev.GameEnded(game_id=g.game_id, result="0-0", termination="forfeit")
            else:
                how = "agreement" if res == "1/2-1/2" else "resignation"
                e = ev.GameEnded(game_id=g.game_id, result=res, termination=how)  # type: ignore[arg-type]
            sim.add(e)
    sim.add(byes_ruling(4, {"p03": "half", "p09": "zero", "p10": "half"}))
    return sim


def imported(text: str) -> list[Recorded]:
    """`text` through `arbiter import trf`'s path into a fresh log, read back."""
    trf = parse_trf(text)
    with SQLiteEventLog(":memory:") as log:
        import_trf(log, trf, tournament_id="t26", actor=ADMIN, id_namespace="t26:golden")
        return [Recorded.of(e) for e in log.read("t26", 1)]


def test_the_golden_is_what_the_tournament_exports():
    sim = played()
    text = export_trf26(recorded(sim.tid, sim.events))
    if os.environ.get("ARBITER_UPDATE_GOLDEN"):
        GOLDEN.write_bytes(text.encode("utf-8"))
        pytest.fail(f"rewrote {GOLDEN.name}")
    assert GOLDEN.read_bytes().decode("utf-8") == text


def test_import_then_export_gives_the_file_back_byte_for_byte():
    raw = GOLDEN.read_bytes()
    text = decode_trf(raw)
    assert is_trf26(parse_trf(text))
    again = export_trf26(imported(text))
    assert again.encode("utf-8") == raw


def test_the_records_are_read_into_events():
    events = [r.event for r in imported(decode_trf(GOLDEN.read_bytes()))]
    created = events[0]
    assert isinstance(created, ev.TournamentCreated)
    assert created.tiebreaks == CHAIN  # 212
    assert created.pairing == "dutch"  # 192 FIDE_DUTCH
    assert created.time_controls[0].base_seconds == 5400  # 222
    assert created.time_controls[0].increment_seconds == 30
    assert created.scoring == ev.Scoring()  # 162: 1, ½, 0, bye 1
    kept = [e for e in events if isinstance(e, ev.TrfRecordsKept)]
    assert [e.lines for e in kept] == [[KEPT[0], "092 Individual: Swiss-System", *KEPT[1:]]]
    (lot,) = [e for e in events if isinstance(e, ev.LotDrawn)]  # 152 W
    assert (lot.subject, lot.outcome) == ("main:initial-colour", ["white"])
    (prohibited,) = [e for e in events if isinstance(e, ev.PairingsProhibited)]
    assert (prohibited.players, prohibited.first_round, prohibited.last_round) == (
        ["p001", "p002"],
        1,
        5,
    )
    (acc,) = [e for e in events if isinstance(e, ev.AccelerationSet)]
    # C.04.5.1: GA = 2 * ceil(10 / 4) = 6 players; rounds 1-2 at 1 point, round 3 at ½
    assert {v.player_id for v in acc.values} == {f"p00{n}" for n in range(1, 7)}
    assert sorted({(v.first_round, v.last_round, v.points) for v in acc.values}) == [
        (1, 2, 2),
        (3, 3, 1),
    ]
    byes = [e for e in events if isinstance(e, ev.RulingIssued)]
    assert [(b.subject, b.decision) for b in byes] == [
        ("main:r4:byes", {"byes": {"p003": "half", "p009": "zero", "p010": "half"}})
    ]
    names = {e.name for e in events if isinstance(e, ev.PlayerRegistered)}
    assert {n for _, n, _ in NAMES} == names  # UTF-8 names as written
    forfeits = [e for e in events if isinstance(e, ev.GameEnded) and e.termination == "forfeit"]
    assert sorted(e.result for e in forfeits) == ["0-0", "1-0"]


def _gacrux(text: str) -> dict[str, Any]:
    chessfile = trf2json()
    chessfile.parse_file(text, 0)
    assert chessfile.get_status() == 0, chessfile.chessjson["status"]
    event: dict[str, Any] = chessfile.chessjson["event"]
    return event


def _gacrux_pairs(text: str) -> list[list[tuple[int, int]]]:
    """gacrux's pairing checker (`-c -p -m dutch`): every round paired again from the file."""
    pc = pairingchecker()
    with mock.patch.object(sys, "argv", ["pairingchecker", "-c", "-p", "-m", "dutch"]):
        pc.read_command_line()
    chessfile = trf2json()
    chessfile.parse_file(text, 0)
    pc.chessfile = chessfile
    pc.prepare_tournament()
    pc.do_checker()
    assert pc.resultjson["status"]["code"] == 0, pc.resultjson["status"]
    return [[(int(w), int(b)) for w, b in r["pairs"]] for r in chessfile.result["roundpairing"]]


_LETTER = {"1-0": ("W", "L"), "0-1": ("L", "W"), "1/2-1/2": ("D", "D"), "0-0": ("L", "L")}


def test_gacrux_reads_the_export_with_the_same_players_results_and_pairings():
    sim = played()
    text = GOLDEN.read_bytes().decode("utf-8")
    event = _gacrux(text)
    (tournament,) = event["tournaments"]
    number = {
        pid: n
        for n, pid in enumerate(dutch.initial_ranking(sim.context().players.values()), start=1)
    }
    name = {p["id"]: p["fideName"] for p in event["profiles"]}
    theirs_players = {
        c["cid"]: (name[c["profileId"]], c["gamePoints"]) for c in tournament["competitors"]
    }
    table = {r.player_id: r for r in sim_standings(sim)}
    assert theirs_players == {
        number[pid]: (info.name, Decimal(table[pid].points) / 2)
        for pid, info in sim.state.players.items()
    }
    # every game with its round, sides and result (a forfeit: not played, W/Z; 0-0: Z/Z)
    results = {}
    scheduled = {}
    for e in sim.events:
        if isinstance(e, ev.RoundScheduled):
            for g in e.pairings:
                scheduled[g.game_id] = (e.round, number[g.white], number[g.black])
        elif isinstance(e, ev.GameEnded):
            w, b = _LETTER[e.result]
            if e.termination == "forfeit":
                w, b = ("W" if w == "W" else "Z"), ("W" if b == "W" else "Z")
            results[scheduled[e.game_id]] = (w, b, e.termination != "forfeit")
    theirs = {
        (g["round"], g["white"]["cid"], g["black"]["cid"]): (
            g["white"]["result"],
            g["black"]["result"],
            g["played"],
        )
        for g in tournament["gameList"]
        if g.get("black")
    }
    assert theirs == results
    assert tournament["prohibited"] == [{"firstRound": 1, "lastRound": 5, "competitors": [1, 2]}]
    assert [
        (v["firstRound"], v["lastRound"], v["gamePoints"])
        for v in tournament["accelerated"]["values"]
    ] == [
        (1, 2, Decimal("1.0")),
        (3, 3, Decimal("0.5")),
    ]
    # and gacrux pairs every round of it as it was paired (prohibition and acceleration in force)
    ours = []
    for e in sim.events:
        if isinstance(e, ev.RoundScheduled):
            pairs = [(number[g.white], number[g.black]) for g in e.pairings]
            pairs += [(number[b.player_id], 0) for b in e.byes if b.kind == "pairing_allocated"]
            ours.append(pairs)
    assert _gacrux_pairs(text) == ours


def sim_standings(sim: Sim) -> list[Any]:
    from projections.standings import standings

    return list(standings(sim.state, "main").rows)


def test_a_trf16_file_is_still_read_as_trf16():
    sim = played()
    text = export_trf(recorded(sim.tid, sim.events))
    trf = parse_trf(text)
    assert not is_trf26(trf)
    assert not [p for p in to_events(trf) if isinstance(p.event, ev.TrfRecordsKept)]


def test_a_malformed_260_is_refused_with_its_line():
    text = (
        GOLDEN.read_bytes()
        .decode("utf-8")
        .replace("260   1   5    1    2", "260   1   5   99    2")
    )
    with pytest.raises(TrfError) as info:
        to_events(parse_trf(text))
    assert "start rank 99 has no 001 line" in str(info.value)


def test_a_score_system_of_three_points_a_win_is_read_and_thirds_are_refused():
    text = GOLDEN.read_bytes().decode("utf-8")
    three = text.replace(
        "162  W 1.0    D 0.5    L 0.0    P 1.0", "162  W 3.0    D 1.0    L 0.0    P 3.0"
    )
    created = to_events(parse_trf(three))[0].event
    assert isinstance(created, ev.TournamentCreated)
    assert (created.scoring.win, created.scoring.draw, created.scoring.bye) == (6, 2, 6)
    thirds = text.replace("D 0.5", "D 0.3")
    with pytest.raises(TrfError) as info:
        to_events(parse_trf(thirds))
    assert "whole and half points only" in str(info.value)


def test_a_tie_break_arbiter_does_not_compute_is_refused_by_name():
    text = GOLDEN.read_bytes().decode("utf-8").replace("212 PTS BH/C1 BH SB", "212 PTS BH/C1 XYZ")
    with pytest.raises(TrfError) as info:
        to_events(parse_trf(text))
    assert "tie-break 'XYZ' is not one Arbiter computes" in str(info.value)


def test_a_full_point_bye_requested_ahead_is_refused():
    text = GOLDEN.read_bytes().decode("utf-8").replace("240 H   4", "240 F   4")
    with pytest.raises(TrfError) as info:
        to_events(parse_trf(text))
    assert "bye.full_point_not_offered" in str(info.value)


def test_import_and_export_trf26_on_the_command_line(tmp_path: Path, monkeypatch):
    db = cli_db(tmp_path, monkeypatch)
    text = cli_run("import", "trf", str(GOLDEN), "--tournament", "praha")
    assert "TRF26" in text
    out = tmp_path / "out.trf"
    cli_run("export", "trf", "praha", "--format", "trf26", "--out", str(out))
    assert out.read_bytes() == GOLDEN.read_bytes()
    assert any(e.type == "AccelerationSet" for e in log_events(db, "praha"))


def test_the_next_round_of_the_imported_file_pairs_as_gacrux_pairs_it():
    """Round 4 of the golden, paired by `arbiter pair`'s Dutch system from the imported events
    (the 240 byes, the acceleration's end, the prohibition, the 152 colour), and by gacrux
    from the file itself."""
    from projections.pairing.base import context
    from projections.standings import fold

    text = GOLDEN.read_bytes().decode("utf-8")
    state = fold(imported(text))
    proposal = dutch.propose(context(state, "main"))
    assert proposal.lots == () and proposal.round is not None
    rnd = proposal.round
    assert rnd.round == 4
    number = {f"p{n:03d}": n for n in range(1, 11)}
    ours = [(number[g.white], number[g.black]) for g in rnd.pairings]
    ours += [(number[b.player_id], 0) for b in rnd.byes if b.kind == "pairing_allocated"]
    assert {(b.player_id, b.kind) for b in rnd.byes if b.kind != "pairing_allocated"} == {
        ("p003", "half"),
        ("p009", "zero"),
        ("p010", "half"),
    }
    tournament = _gacrux(text)["tournaments"][0]
    assert dutch.run_gacrux(tournament, 4) == ours


def test_a_trf26_file_written_by_gacrux_reads_back_to_the_same_tournament():
    """gacrux's own TRF26 writer (`trf2json.output_file`) rewrites the golden from what it
    read (its layout: 212 with commas, 142 rounds, 162 with A/X, no 240 ahead); imported, it
    is the same tournament: players, rounds, results, acceleration, prohibition, chain."""
    text = GOLDEN.read_bytes().decode("utf-8")
    chessfile = trf2json()
    chessfile.parse_file(text, 0)
    written = chessfile.output_file(chessfile.chessjson["event"], 1, 0)
    assert written.startswith("012 Open Praha 2026")

    def facts(events: list[Any]) -> dict[str, Any]:
        created = events[0]
        return {
            "created": (created.tiebreaks, created.scoring, created.pairing, created.rounds),
            "same": [
                e
                for e in events
                if isinstance(
                    e,
                    (
                        ev.PlayerRegistered,
                        ev.RoundScheduled,
                        ev.GameEnded,
                        ev.AccelerationSet,
                        ev.PairingsProhibited,
                        ev.LotDrawn,
                    ),
                )
            ],
        }

    ours = facts([r.event for r in imported(text)])
    theirs = facts([r.event for r in imported(written)])
    assert theirs == ours
