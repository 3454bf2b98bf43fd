"""A full TCEC Season simulated from registration to the Superfinal, on the embedded log,
through the command path only: `season start` (the organisers' plan), the TCEC Swiss (Monrad,
`services.commands.pairing.pair_next`), the Cup (its top 32, `knockout.py`) and the Swiss's 6
engines
for the Entrance League, then Entrance League → League 2 → League 1 → Premier Division (with
its Conditional Tiebreak) → Superfinal, every stage created by `season advance` from the
standings of the one before, and the next Season's placement. Every promotion and relegation
is asserted by name.

Results are deterministic: the stronger engine (plan rating) wins every game, except where a
stage lists an override (an upset, a draw, a split pair), chosen so that:

- the Entrance League's 4th promotion place is decided by direct encounter (polaris and motor
  level on points; polaris won both games between them): polaris promotes, motor does not;
- its relegation line (10th/11th) falls in a tie the Leagues 11.1 chain leaves to the
  organisers (stash and marvin: level on every criterion): the placement waits for their
  ruling (`tiebreak_order` on the Entrance League), which keeps stash;
- League 1 has a vacancy (7 engines placed instead of 8): it is played with 11 engines and
  relegates 3 instead of 4 (Leagues 1.8, reading "relegate-fewer");
- leela and dragon draw every Premier Division game between them and tie for second behind
  stockfish: the Conditional Tiebreak (Leagues 6.1.1) sends leela to the Superfinal;
- an arbiter overrules League 2's field (retracts the ruling, issues another with two seeds
  swapped) before it starts: `season advance` re-registers the engines.

Sizes are the rulebook's (EL 16, L2 12, L1 12 less the vacancy, DivP 8, SuFi 100 games, Swiss
12 double rounds, Cup 32). Runtime: about 15-20 s.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
import typer
from tests_support import ADMIN_ACTOR
from typer.testing import CliRunner

from events_schema import Command, CommandBatch, Recorded, encode_payload
from events_schema import events as ev
from projections.playoffs import playoff_view
from projections.standings import fold, standings
from services.cli.seasons import register
from services.commands import seasons
from services.commands.lots import draw
from services.commands.pairing import pair_next
from services.commands.service import CommandRejected, CommandService
from services.eventlog.sqlite import SQLiteEventLog

pytestmark = pytest.mark.slow  # make test-fast leaves it out


SEASON = "s25"
STRENGTH = {
    # Premier Division (placed, 6)
    "stockfish": 100, "leela": 99, "dragon": 98, "berserk": 90, "caissa": 85, "ethereal": 80,
    # League 1 (placed, 7: one vacancy)
    "obsidian": 95, "koivisto": 84, "rubichess": 79, "igel": 76, "clover": 74, "seer": 72,
    "minic": 70,
    # League 2 (placed, 8)
    "stoofvlees": 83, "revenge": 78, "weiss": 75, "rofchade": 73, "velvet": 69,
    "slowchess": 67, "wasp": 65, "arasan": 63,
    # Entrance League (placed, 10)
    "lynx": 60, "viridithas": 59, "fire": 58, "stash": 57, "marvin": 56, "akimbo": 55,
    "devre": 54, "carp": 53, "pedantic": 52, "tucano": 51,
    # newcomers: in the Swiss only
    "reckless": 93, "alexandria": 91, "stormphrax": 82, "motor": 71, "polaris": 66,
    "princhess": 62, "tiny": 10, "micro": 9, "nano": 8,
}  # fmt: skip
PLACED = {
    "divp": ["stockfish", "leela", "dragon", "berserk", "caissa", "ethereal"],
    "l1": ["obsidian", "koivisto", "rubichess", "igel", "clover", "seer", "minic"],
    "l2": ["stoofvlees", "revenge", "weiss", "rofchade", "velvet", "slowchess", "wasp", "arasan"],
    "el": [
        "lynx", "viridithas", "fire", "stash", "marvin", "akimbo", "devre", "carp", "pedantic",
        "tucano",
    ],
}  # fmt: skip
NEWCOMERS = ["reckless", "alexandria", "stormphrax", "motor", "polaris", "princhess"]

# Per (stage key, stage): frozenset({a, b}) -> the winner, "draw", or "white" (split pair).
OVERRIDES: dict[tuple[str, str], dict[frozenset[str], str]] = {
    ("el", "main"): {
        frozenset({"polaris", "motor"}): "polaris",  # level on points, direct encounter 2-0
        frozenset({"pedantic", "polaris"}): "pedantic",
        frozenset({"stash", "marvin"}): "white",  # 1-1: level on every criterion
    },
    ("divp", "main"): {frozenset({"leela", "dragon"}): "draw"},  # tied for second
}

DONE = {"pairing.round_robin_complete", "tcec-cup.decided", "tcec-swiss.complete"}


def _batch(events: Iterable[ev.Event]) -> CommandBatch:
    return CommandBatch(
        commands=[Command(type=e.event_type, payload=encode_payload(e)) for e in events]
    )


def _result(key: str, stage: str, white: str, black: str) -> ev.Result:
    rule = OVERRIDES.get((key, stage), {}).get(frozenset({white, black}))
    if rule == "draw":
        return "1/2-1/2"
    if rule == "white":
        return "1-0"
    if rule is not None:
        return "1-0" if rule == white else "0-1"
    return "1-0" if STRENGTH[white] > STRENGTH[black] else "0-1"


def _tid(key: str) -> str:
    return f"{SEASON}-{key}"


def _state(service: CommandService, key: str) -> Any:
    return fold([Recorded.of(e) for e in service.log.read(_tid(key), 1)])


def _play_rounds(service: CommandService, key: str) -> int:
    """Pair every round with the stage's system and enter its results."""
    rounds = 0
    while True:
        try:
            paired = pair_next(service, _tid(key), ADMIN_ACTOR, seed="sim")
        except CommandRejected as exc:
            if exc.rule in DONE:
                return rounds
            raise
        rounds += 1
        results = [
            ev.GameEnded(
                game_id=p.game_id,
                result=_result(key, paired.round.stage, p.white, p.black),
                termination="adjudication",  # simulated: any result
            )
            for p in paired.round.pairings
        ]
        if results:
            service.handle(_tid(key), _batch(results), ADMIN_ACTOR)


def _play_machine(service: CommandService, key: str) -> Any:
    """Do what the stage's playoff machine asks (lots, schedules, results) until decided."""
    for _ in range(1000):
        view = playoff_view(_state(service, key))
        assert view is not None
        if view.status in ("decided", "not_needed"):
            return view
        assert view.status == "in_progress", view.as_dict()
        events: list[ev.Event] = []
        for req in view.required_next:
            if req.kind == "lot":
                assert req.lot is not None
                events.append(
                    draw(req.lot["purpose"], req.lot["subject"], req.lot["candidates"],
                         seed=f"sim:{req.lot['subject']}")
                )  # fmt: skip
            elif req.kind == "schedule":
                rounds: dict[int, list[ev.Pairing]] = {}
                for g in req.games:
                    rounds.setdefault(g.round, []).append(
                        ev.Pairing(
                            game_id=g.game_id,
                            white=g.white,
                            black=g.black,
                            pair_id=getattr(g, "pair_id", None),
                            opening=getattr(g, "opening", None),
                        )
                    )
                events += [
                    ev.RoundScheduled(round=r, stage=req.stage, pairings=ps)
                    for r, ps in sorted(rounds.items())
                ]
            elif req.kind == "results":
                events += [
                    ev.GameEnded(
                        game_id=g.game_id,
                        result=_result(key, req.stage, g.white, g.black),
                        termination="adjudication",  # simulated: any result
                    )
                    for g in req.games
                ]
            else:
                raise AssertionError(req.as_dict())
        service.handle(_tid(key), _batch(events), ADMIN_ACTOR)
    raise AssertionError(f"{key}: the playoff machine never finished")


def _advance(service: CommandService) -> seasons.Advanced:
    return seasons.advance(service, SEASON, ADMIN_ACTOR, seed="sim")


def _registered(service: CommandService, tid: str) -> list[str]:
    """A tournament's registered engines, by seed."""
    players = fold([Recorded.of(e) for e in service.log.read(tid, 1)]).players.values()
    return [p.player_id for p in sorted(players, key=lambda p: p.seed or 0)]


def _field(service: CommandService, key: str) -> list[str]:
    return _registered(service, _tid(key))


def _created(done: seasons.Advanced) -> list[str]:
    return [a.stream for a in done.appended if a.what == "stage created"]


def _plan() -> dict[str, Any]:
    swiss = sorted(STRENGTH, key=lambda p: -STRENGTH[p])  # the organisers' seeding
    return {
        "format": "tcec-season",
        "title": "TCEC Season 25",
        "engines": [
            {"player_id": p, "name": p.capitalize(), "rating": 3000 + 5 * s}
            for p, s in STRENGTH.items()
        ],
        "field": swiss,
        "holder": "dragon",  # Swiss 1.d: the last Swiss winner, seeded 1
        "cup_holder": "leela",  # Cup 1.e: the last Cup winner, seeded 1
        "placed": PLACED,
    }


@pytest.fixture
def service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    path = tmp_path / "events.sqlite3"
    monkeypatch.setenv("ARBITER_DB", str(path))
    monkeypatch.setenv("ARBITER_DATA", str(tmp_path))
    monkeypatch.setenv("ARBITER_LOG", "sqlite")
    log = SQLiteEventLog(path)
    yield CommandService(log)
    log.close()


def test_a_tcec_season_from_registration_to_the_superfinal(service: CommandService) -> None:
    assert seasons.start(service, SEASON, "TCEC Season 25", _plan(), ADMIN_ACTOR) == [1, 2]
    assert seasons.start(service, SEASON, "TCEC Season 25", _plan(), ADMIN_ACTOR) == []

    # --- the Swiss: all 40 engines, the last Swiss winner seeded 1 (Swiss 1.d) -----------------
    done = _advance(service)
    assert _created(done) == [_tid("swiss")]
    swiss = _field(service, "swiss")
    assert swiss[0] == "dragon" and len(swiss) == 40
    assert done.view.stage("cup").status == "waiting"
    assert done.view.stage("el").status == "waiting"
    assert _advance(service).nothing_appended  # nothing new is finished
    sizes = [7, 7, 7, 7, 6, 6]  # Swiss 2.a: the organisers' seeded groups of 5 to 7
    groups, i = [], 0
    for n in sizes:
        groups.append(swiss[i : i + n])
        i += n
    service.handle(
        _tid("swiss"),
        _batch([
            ev.RulingIssued(ruling_id="groups", by="td", subject="monrad-groups",
                            rule="tcec-rules Swiss 2.a", text="seeded groups",
                            decision={"groups": groups})
        ]),
        ADMIN_ACTOR,
    )  # fmt: skip
    assert _play_rounds(service, "swiss") == 24

    # --- Swiss → Cup (its top 32) and Swiss → Entrance League (6 engines) ---------------------
    done = _advance(service)
    assert sorted(_created(done)) == [_tid("cup"), _tid("el")]
    swiss_rows = standings(_state(service, "swiss")).rows
    top32 = [r.player_id for r in swiss_rows[:32]]
    assert swiss_rows[31].place != swiss_rows[32].place  # the Cup line is clean
    cup = _field(service, "cup")
    assert cup[0] == "leela"  # Cup 1.e
    assert cup[1:] == [p for p in top32 if p != "leela"]  # Cup 1.c, 1.d
    placed = {p for ps in PLACED.values() for p in ps}
    unplaced = [r.player_id for r in swiss_rows if r.player_id not in placed]
    assert sorted(unplaced[:6]) == sorted(NEWCOMERS)  # the six strong newcomers qualify
    el = _field(service, "el")
    assert el == PLACED["el"] + unplaced[:6]  # placed first, then by Swiss place (2.3, 2.4)
    el_view = done.view.stage("el")
    assert el_view.field_source == "ruling" and el_view.ruling_id == "field-el"
    assert {e.source for e in el_view.field} == {"plan", "swiss"}

    assert _play_rounds(service, "cup") > 0
    cup_view = _advance(service).view.stage("cup")
    assert cup_view.status == "finished"
    assert cup_view.outcome.champion == "stockfish"
    assert [s.player_id for s in cup_view.outcome.order[:2]] == ["stockfish", "leela"]

    # --- Entrance League → League 2 -----------------------------------------------------------
    assert _play_rounds(service, "el") == 30  # 16 engines, 1x double round robin
    done = _advance(service)
    assert _created(done) == [_tid("l2")]
    el_rows = standings(_state(service, "el")).rows
    assert [r.player_id for r in el_rows[:5]] == [
        "reckless", "alexandria", "stormphrax", "polaris", "motor",
    ]  # fmt: skip
    assert el_rows[3].points == el_rows[4].points  # polaris and motor level on points ...
    assert el_rows[4].decided_by.startswith("direct encounter")  # ... polaris won 2-0
    assert done.view.promoted("el") == [
        ("reckless", "l2"), ("alexandria", "l2"), ("stormphrax", "l2"), ("polaris", "l2"),
    ]  # fmt: skip
    assert _field(service, "l2") == PLACED["l2"] + [
        "reckless", "alexandria", "stormphrax", "polaris",
    ]  # fmt: skip
    # the relegation line of the Entrance League is in a tie left to the organisers
    tie = [r for r in el_rows if r.player_id in ("stash", "marvin")]
    assert all(r.unresolved and r.place == 10 for r in tie)

    # an arbiter overrules League 2's field before it starts: two seeds swapped
    series = [Recorded.of(e) for e in service.log.read(SEASON, 1)]
    ruling = next(
        r for r in series
        if isinstance(r.event, ev.RulingIssued) and r.event.subject == f"field:{_tid('l2')}"
    )  # fmt: skip
    players = list(ruling.event.decision["players"])
    players[0], players[8] = (
        {**players[8], "seed": 1, "rule": "the organisers' choice (tcec-rules Leagues 0)"},
        {**players[0], "seed": 9, "rule": "the organisers' choice (tcec-rules Leagues 0)"},
    )
    service.handle(
        SEASON,
        _batch([
            ev.EventRetracted(retracted_event_id=ruling.envelope.event_id, reason="reseeded"),
            ev.RulingIssued(ruling_id="l2-reseeded", by="td", subject=f"field:{_tid('l2')}",
                            rule="tcec-rules Leagues 0", text="League 2 reseeded",
                            decision={"players": players}),
        ]),
        ADMIN_ACTOR,
    )  # fmt: skip
    done = _advance(service)
    assert [a.what for a in done.appended] == ["field re-registered"]
    assert _field(service, "l2")[0] == "reckless" and _field(service, "l2")[8] == "stoofvlees"
    assert done.view.stage("l2").ruling_id == "l2-reseeded"
    assert done.view.stage("l2").stale  # it differs from what the standings give: flagged
    assert _advance(service).nothing_appended

    # --- League 2 → League 1 (one vacancy: 11 engines) ----------------------------------------
    assert _play_rounds(service, "l2") == 44  # 12 engines, 2x double round robin
    done = _advance(service)
    assert _created(done) == [_tid("l1")]
    assert done.view.promoted("l2") == [
        ("reckless", "l1"), ("alexandria", "l1"), ("stoofvlees", "l1"), ("stormphrax", "l1"),
    ]  # fmt: skip
    l1 = _field(service, "l1")
    assert l1 == PLACED["l1"] + ["reckless", "alexandria", "stoofvlees", "stormphrax"]
    assert any("1 vacant place" in n for n in done.view.stage("l1").notes)

    # --- League 1 → Premier Division ----------------------------------------------------------
    assert _play_rounds(service, "l1") == 44  # 11 engines (a free round each), 4 cycles
    done = _advance(service)
    assert _created(done) == [_tid("divp")]
    assert done.view.promoted("l1") == [("obsidian", "divp"), ("reckless", "divp")]
    assert _field(service, "divp") == PLACED["divp"] + ["obsidian", "reckless"]

    # --- Premier Division, its Conditional Tiebreak → Superfinal ------------------------------
    assert _play_rounds(service, "divp") == 56  # 8 engines, 4x double round robin
    done = _advance(service)
    assert done.nothing_appended  # the Conditional Tiebreak is still to be played
    assert done.view.stage("sufi").status == "waiting"
    ct = _play_machine(service, "divp")
    assert ct.kind == "tcec-conditional" and ct.tied == ("dragon", "leela")
    assert ct.final_order == (("stockfish",), ("leela",))
    done = _advance(service)
    assert _created(done) == [_tid("sufi")]
    assert _field(service, "sufi") == ["stockfish", "leela"]  # the DivP winner seed 1 (7.3)
    divp_order = [s.player_id for s in done.view.stage("divp").outcome.order]
    assert divp_order == [
        "stockfish", "leela", "dragon", "obsidian", "reckless", "berserk", "caissa", "ethereal",
    ]  # fmt: skip
    # the placement waits for the organisers: the Entrance League's relegation line
    assert done.view.placement is None
    assert done.view.placement_blocked is not None
    assert "stash, marvin" in done.view.placement_blocked.text or "marvin, stash" in (
        done.view.placement_blocked.text
    )
    assert any("relegation line" in p for p in done.problems)

    service.handle(
        _tid("el"),
        _batch([
            ev.RulingIssued(ruling_id="el-10th", by="td", subject="places 10-11",
                            rule="tcec-rules Leagues 11.1.7", text="stash ahead of marvin",
                            decision={"tiebreak_order": ["stash", "marvin"]}),
        ]),
        ADMIN_ACTOR,
    )  # fmt: skip
    done = _advance(service)
    assert [a.what for a in done.appended] == ["lots and rulings"]
    placement = done.view.placement
    assert placement is not None and done.view.placement_source == "ruling"

    # --- the Superfinal ----------------------------------------------------------------------
    sufi = _play_machine(service, "sufi")
    assert sufi.winner == "stockfish"
    done = _advance(service)
    assert done.nothing_appended
    assert done.view.champion == "stockfish"  # Leagues 8.1: the Grand Champion
    assert all(s.status == "finished" for s in done.view.stages)

    # --- every promotion and relegation, by name ----------------------------------------------
    assert placement.moved("promoted") == [
        "obsidian", "reckless",  # L1 → DivP
        "reckless", "alexandria", "stoofvlees", "stormphrax",  # L2 → L1
        "reckless", "alexandria", "stormphrax", "polaris",  # EL → L2
    ]  # fmt: skip
    assert placement.moved("relegated", "divp") == ["caissa", "ethereal"]  # 5.7
    assert placement.moved("relegated", "l1") == ["clover", "seer", "minic"]  # 4.7 less 1.8
    assert placement.moved("relegated", "l2") == ["slowchess", "polaris", "wasp", "arasan"]
    assert placement.moved("leaves", "el") == [
        "marvin", "akimbo", "devre", "carp", "pedantic", "tucano",
    ]  # fmt: skip
    assert dict(placement.placed) == {
        "divp": ("stockfish", "leela", "dragon", "obsidian", "reckless", "berserk"),
        "l1": ("caissa", "ethereal", "alexandria", "koivisto", "stoofvlees", "stormphrax",
               "rubichess", "igel"),
        "l2": ("clover", "seer", "minic", "revenge", "weiss", "rofchade", "velvet"),
        "el": ("slowchess", "polaris", "wasp", "arasan", "motor", "princhess", "lynx",
               "viridithas", "fire", "stash"),
    }  # fmt: skip
    assert placement.left == ("marvin", "akimbo", "devre", "carp", "pedantic", "tucano")

    # --- the CLI shows the same season, and advancing again appends nothing -------------------
    app = typer.Typer()
    register(app)
    app.command("noop")(lambda: None)  # a group, so `season` is a subcommand
    runner = CliRunner()
    res = runner.invoke(app, ["season", "show", SEASON, "--json"])
    assert res.exit_code == 0, res.output
    body = json.loads(res.stdout)
    assert body["champion"] == "stockfish"
    assert [s["status"] for s in body["stages"]] == ["finished"] * 7
    assert body["placement"]["left"] == list(placement.left)
    res = runner.invoke(app, ["season", "advance", SEASON, "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["appended"] == []


# --- FRD and 4k --------------------------------------------------------------------------------

FRD_STRENGTH = {f"f{i:02d}": 100 - i for i in range(1, 17)}  # f01 strongest


def _play_simple(service: CommandService, tid: str) -> None:
    """Pair and play a round robin by strength (FRD_STRENGTH)."""
    while True:
        try:
            paired = pair_next(service, tid, ADMIN_ACTOR, seed="sim")
        except CommandRejected as exc:
            if exc.rule in DONE:
                return
            raise
        service.handle(
            tid,
            _batch(
                ev.GameEnded(
                    game_id=p.game_id,
                    result="1-0" if FRD_STRENGTH[p.white] > FRD_STRENGTH[p.black] else "0-1",
                    termination="adjudication",  # simulated: any result
                )
                for p in paired.round.pairings
            ),
            ADMIN_ACTOR,
        )


def _play_match(service: CommandService, tid: str) -> Any:
    for _ in range(200):
        view = playoff_view(fold([Recorded.of(e) for e in service.log.read(tid, 1)]))
        assert view is not None
        if view.status == "decided":
            return view
        events: list[ev.Event] = []
        for req in view.required_next:
            if req.kind == "schedule":
                events += [
                    ev.RoundScheduled(
                        round=g.round,
                        stage=req.stage,
                        pairings=[
                            ev.Pairing(game_id=g.game_id, white=g.white, black=g.black,
                                       pair_id=getattr(g, "pair_id", None))
                        ],
                    )
                    for g in req.games
                ]  # fmt: skip
            elif req.kind == "results":
                events += [
                    ev.GameEnded(
                        game_id=g.game_id,
                        result="1-0" if FRD_STRENGTH[g.white] > FRD_STRENGTH[g.black] else "0-1",
                        termination="adjudication",  # simulated: any result
                    )
                    for g in req.games
                ]
        service.handle(tid, _batch(events), ADMIN_ACTOR)
    raise AssertionError("the match never finished")


def test_a_tcec_frd_from_leagues_to_the_final(service: CommandService) -> None:
    ids = list(FRD_STRENGTH)
    plan = {
        "format": "tcec-frd",
        "engines": [{"player_id": p, "name": p.upper()} for p in ids],
        "field": ids,
        "holder": "f03",  # FRD 1.e: the last FRD winner, seeded 1
    }
    seasons.start(service, "frd1", "TCEC FRD 1", plan, ADMIN_ACTOR)
    done = seasons.advance(service, "frd1", ADMIN_ACTOR, seed="sim")
    leagues = ["frd1-league-a", "frd1-league-b", "frd1-league-c", "frd1-league-d"]
    assert [a.stream for a in done.appended] == ["frd1", *leagues]
    series = [Recorded.of(e).event for e in service.log.read("frd1", 1)]
    lot = next(e for e in series if isinstance(e, ev.LotDrawn))
    assert lot.subject == "frd:seeding" and lot.candidates == ids[8:]  # FRD 2.a: 9-16 by lot
    seeds = ["f03", "f01", "f02", "f04", "f05", "f06", "f07", "f08", *lot.outcome]
    for g, tid in enumerate(leagues):  # the snake: A 1 8 9 16, B 2 7 10 15, ...
        got = _registered(service, tid)
        assert got == [seeds[g], seeds[7 - g], seeds[8 + g], seeds[15 - g]]
    for tid in leagues:
        _play_simple(service, tid)
    # FRD 2.b: the reverse games do not follow immediately (the next cycle, 3 rounds later)
    state = fold([Recorded.of(e) for e in service.log.read(leagues[0], 1)])
    by_round: dict[int, set[frozenset[str]]] = {}
    for g in state.games.values():
        by_round.setdefault(g.round, set()).add(frozenset((g.white, g.black)))
    assert all(by_round[r] != by_round[r + 1] for r in range(1, 12))
    assert by_round[1] == by_round[4]
    done = seasons.advance(service, "frd1", ADMIN_ACTOR, seed="sim")
    assert [a.stream for a in done.appended[1:]] == ["frd1-semi-1", "frd1-semi-2"]
    semi = [done.view.stage(k).field for k in ("semi-1", "semi-2")]
    assert [len(f) for f in semi] == [6, 6]
    assert {e.source for f in semi for e in f} == {"league-a", "league-b", "league-c", "league-d"}
    for tid in ("frd1-semi-1", "frd1-semi-2"):
        _play_simple(service, tid)
    done = seasons.advance(service, "frd1", ADMIN_ACTOR, seed="sim")
    assert [a.stream for a in done.appended[1:]] == ["frd1-final-league"]
    _play_simple(service, "frd1-final-league")
    done = seasons.advance(service, "frd1", ADMIN_ACTOR, seed="sim")
    assert [p.player_id for p in done.view.stage("final").field] == ["f01", "f02"]
    final = _play_match(service, "frd1-final")
    assert final.winner == "f01"
    # FRD 2.b: in the Final the reverse game follows immediately (a pair is two games)
    games = fold([Recorded.of(e) for e in service.log.read("frd1-final", 1)]).games.values()
    pairs = {g.round: g.pair_id for g in games}
    assert pairs[1] == pairs[2] != pairs[3]
    done = seasons.advance(service, "frd1", ADMIN_ACTOR, seed="sim")
    assert done.nothing_appended and done.view.champion == "f01"


def test_a_tcec_4k_pool_and_minifinal(service: CommandService) -> None:
    ids = ["f06", "f02", "f05", "f01", "f04", "f03"]
    plan = {
        "format": "tcec-4k",
        "engines": [{"player_id": p, "name": p.upper()} for p in ids],
        "field": ids,
    }
    seasons.start(service, "k4", "TCEC 4k", plan, ADMIN_ACTOR)
    seasons.advance(service, "k4", ADMIN_ACTOR)
    _play_simple(service, "k4-pool")
    state = fold([Recorded.of(e) for e in service.log.read("k4-pool", 1)])
    assert len(state.games) == 120  # 4k 0.2: 120 games at 6 engines
    done = seasons.advance(service, "k4", ADMIN_ACTOR)
    assert [p.player_id for p in done.view.stage("minifinal").field] == ["f01", "f02"]
    assert _play_match(service, "k4-minifinal").winner == "f01"
    assert seasons.advance(service, "k4", ADMIN_ACTOR).view.champion == "f01"
