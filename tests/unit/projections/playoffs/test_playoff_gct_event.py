"""GCT 2022 event playoff (§2 rapid & blitz, §3 classical): given events / then view.

Each scenario builds a main event whose top players tie, then walks the machine by appending
exactly the events its `required_next` asks for (lots with chosen outcomes, RoundScheduled
matching the prescribed games, results), checking the view's invariants at every step.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any
from uuid import UUID

import orjson
import pytest
from builders import T0, created, new_event, player, recorded, result, round_
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events_schema import GENESIS_HASH, Event, Recorded
from events_schema import events as ev
from projections.playoffs import gct_event
from projections.playoffs.base import PlannedGame, PlayoffView, berger_round_robin, said
from projections.standings import StandingsState, evolve, fold

RB = "gct-rapid-blitz"
CL = "gct-classical"


# --- the main event ------------------------------------------------------------------------


def main_event(
    tied: int, extra: int = 1, preset: str = RB, leader: str | None = None
) -> list[Event]:
    """A complete round robin: players t1..t<tied> draw each other and beat x1..x<extra>, who
    draw each other. With `leader`, that player wins all their games instead (clear first)."""
    ids = [f"t{i}" for i in range(1, tied + 1)] + [f"x{i}" for i in range(1, extra + 1)]
    rounds = berger_round_robin(ids)
    out: list[Event] = [
        created(fmt="round_robin", rounds=len(rounds), rules_preset=preset),
        *(player(p) for p in ids),
    ]
    for r, pairs in enumerate(rounds, start=1):
        games = [(f"m-r{r}-b{b}", w, bl) for b, (w, bl) in enumerate(pairs, start=1)]
        out.append(round_(r, *games))
        for gid, w, bl in games:
            if leader in (w, bl):
                res = "1-0" if w == leader else "0-1"
            elif w[0] == bl[0]:
                res = "1/2-1/2"
            else:
                res = "1-0" if w.startswith("t") else "0-1"
            out.append(result(gid, res))
    return out


def tied_ids(k: int) -> list[str]:
    return sorted(f"t{i}" for i in range(1, k + 1))


class Stream:
    """An event stream folded one event at a time (as a live projection would)."""

    def __init__(self, events: Sequence[Event] = ()) -> None:
        self.events: list[Event] = []
        self.state = StandingsState()
        self.prev = GENESIS_HASH
        for e in events:
            self.append(e)

    def append(self, event: Event) -> UUID:
        n = len(self.events) + 1
        env = new_event(event, n).sealed("t1", n, self.prev, T0 + timedelta(seconds=n))
        self.prev = env.hash
        self.events.append(event)
        evolve(self.state, Recorded(env, event))
        return env.event_id

    def view(self) -> PlayoffView:
        v = gct_event.view(self.state)
        check_invariants(v)
        return v


# --- invariants, checked at every step ------------------------------------------------------


def check_invariants(v: PlayoffView) -> None:
    if v.status in ("waiting", "not_needed"):
        assert not v.stages
        return
    tied = set(v.tied)
    still, out = set(v.still_in), set(v.eliminated)
    assert len(v.eliminated) == len(out)
    assert not still & out
    assert still | out == tied
    # The playoff never prescribes (schedules or awaits) a game for an eliminated player.
    for req in v.required_next:
        for g in req.games:
            assert {g.white, g.black} <= still, (req.kind, g)
    # Every stage's games involve only the players still in when it was played.
    expected = tied
    for s in v.stages:
        assert set(s.players) == expected, s.name
        seated = [p for g in s.games for p in (g.white, g.black)]
        assert set(seated) <= set(s.players)
        assert set(s.byes) <= set(s.players)
        if v.status != "awaiting_ruling":  # else the view shows the arbiter's schedule as is
            assert not set(s.byes) & set(seated)
        assert not set(s.players) & (out - set(s.eliminated) - later_out(v, s.name))
        if s.complete:
            assert set(s.advanced) | set(s.eliminated) == set(s.players)
            expected = set(s.advanced)
        else:
            assert set(s.players) == still
    if v.status == "decided":
        assert len(v.still_in) == 1 and v.final_order[0] == v.still_in
        assert sorted(p for block in v.final_order for p in block) == sorted(tied)
        assert not v.required_next
    else:
        assert v.final_order == ()


def later_out(v: PlayoffView, stage: str) -> set[str]:
    names = [s.name for s in v.stages]
    return {p for s in v.stages[names.index(stage) :] for p in s.eliminated}


# --- walking the machine -----------------------------------------------------------------------


def first(spec: dict[str, Any]) -> list[str]:
    return list(spec["candidates"][: spec["pick"]])


@dataclass
class Policy:
    """How the walk answers each requirement."""

    lot: Callable[[dict[str, Any]], list[str]] = first
    result: Callable[[PlannedGame], str] = lambda g: "1-0"
    # Armageddon: schedule the toss winner with Black instead (their choice, 2.5.3).
    chose_black: Callable[[PlannedGame], bool] = lambda g: False
    log: list[PlayoffView] = field(default_factory=list)


def schedule(
    stream: Stream,
    stage: str,
    games: Sequence[PlannedGame],
    swap: bool | Callable[[PlannedGame], bool] = False,
) -> None:
    """One RoundScheduled per round, as prescribed (or with colours swapped)."""
    flip = swap if callable(swap) else (lambda g: swap)
    for r in sorted({g.round for g in games}):
        pairings = []
        for g in games:
            if g.round == r:
                white, black = (g.black, g.white) if flip(g) else (g.white, g.black)
                pairings.append(
                    ev.Pairing(
                        game_id=g.game_id,
                        white=white,
                        black=black,
                        time_control=g.time_control.name,
                    )
                )
        stream.append(ev.RoundScheduled(round=r, stage=stage, pairings=pairings))


def step(stream: Stream, policy: Policy) -> PlayoffView:
    """Append what the current view asks for; returns that view."""
    v = stream.view()
    policy.log.append(v)
    if v.status == "awaiting_ruling":
        return v
    for req in v.required_next:
        if req.kind == "lot":
            assert req.lot is not None
            spec = req.lot
            stream.append(
                ev.LotDrawn(
                    purpose=spec["purpose"],
                    subject=spec["subject"],
                    candidates=spec["candidates"],
                    outcome=policy.lot(spec),
                )
            )
        elif req.kind == "schedule":
            armageddon = req.stage.startswith("gct-armageddon")
            schedule(stream, req.stage, req.games, policy.chose_black if armageddon else False)
        elif req.kind == "results":
            for g in req.games:
                stream.append(result(g.game_id, policy.result(g)))
        else:
            raise AssertionError(f"unexpected requirement {req}")
    return v


def walk(stream: Stream, policy: Policy, limit: int = 80) -> PlayoffView:
    for _ in range(limit):
        v = step(stream, policy)
        if not v.required_next or v.status == "awaiting_ruling":
            return v
    raise AssertionError("the playoff did not finish")


def by_name(v: PlayoffView, name: str):
    [s] = [s for s in v.stages if s.name == name]
    return s


def tc(g: PlannedGame) -> tuple[int, int, int, int | None, int | None]:
    t = g.time_control
    return (
        t.base_seconds,
        t.increment_seconds,
        t.increment_from_move,
        t.white_base_seconds,
        t.black_base_seconds,
    )


ARMAGEDDON_TC = (300, 2, 61, 300, 240)  # 2.5.1 / 3.5.1


def draws(g: PlannedGame) -> str:
    return "1/2-1/2"


# --- 2.1 / 3.1: when a playoff is needed -------------------------------------------------------


def test_waiting_while_the_main_stage_is_incomplete():
    events = main_event(2)
    v = Stream(events[:-1]).view()  # the last game has no result
    assert v.status == "waiting" and not v.stages
    assert "not complete" in v.notes[-1]
    assert [r.kind for r in v.required_next] == ["results"]
    # A round not yet scheduled is waiting too.
    assert Stream(events[:4]).view().status == "waiting"


def test_no_playoff_when_one_player_is_clear_first():
    v = Stream(main_event(3, extra=1, leader="t2")).view()
    assert v.status == "not_needed" and not v.required_next
    assert v.final_order == (("t2",), ("t1", "t3"), ("x1",))
    assert "clear first" in v.notes[-1]


# --- 2.3.1 / 3.3.1: two players --------------------------------------------------------------


def test_two_players_double_round_robin_decides_rapid_blitz():
    s = Stream(main_event(2))
    v = s.view()
    assert v.status == "in_progress" and v.tied == ("t1", "t2")
    [req] = v.required_next
    assert req.kind == "lot"
    assert req.lot == {
        "purpose": "pairing_numbers",
        "subject": "gct-playoff-rr",
        "candidates": ["t1", "t2"],
        "pick": 2,
    }
    s.append(
        ev.LotDrawn(
            purpose="pairing_numbers",
            subject="gct-playoff-rr",
            candidates=["t1", "t2"],
            outcome=["t2", "t1"],
        )
    )
    v = s.view()
    assert [(r.kind, r.stage) for r in v.required_next] == [
        ("schedule", "gct-playoff-rr"),
        ("schedule", "gct-playoff-rr"),
    ]
    games = [g for r in v.required_next for g in r.games]
    # Pairing number 1 (t2) has White in game 1; colours reversed in game 2; 10'+5" (2.3.1).
    assert [(g.game_id, g.round, g.white, g.black) for g in games] == [
        ("gct-rr-r1-b1", 1, "t2", "t1"),
        ("gct-rr-r2-b1", 2, "t1", "t2"),
    ]
    assert {tc(g) for g in games} == {(600, 5, 1, None, None)}
    assert by_name(v, "gct-playoff-rr").kind == "double_round_robin"
    for g in games:
        schedule(s, "gct-playoff-rr", [g], False)
    v = s.view()
    assert [r.kind for r in v.required_next] == ["results"]
    assert [g.game_id for g in v.required_next[0].games] == ["gct-rr-r1-b1", "gct-rr-r2-b1"]
    s.append(result("gct-rr-r1-b1", "1-0"))
    s.append(result("gct-rr-r2-b1", "1/2-1/2"))
    v = s.view()
    assert v.status == "decided"
    assert v.final_order == (("t2",), ("t1",))
    assert v.still_in == ("t2",) and v.eliminated == ("t1",)
    rr = by_name(v, "gct-playoff-rr")
    assert rr.complete and dict(rr.scores) == {"t2": "1½", "t1": "½"}
    assert rr.advanced == ("t2",) and rr.eliminated == ("t1",)
    assert len(v.stages) == 1


def test_two_players_level_after_the_match_play_armageddon_classical():
    """3.3.1 15'+10" mini-match 1–1, then one Armageddon game: the toss winner chooses Black,
    the game is drawn, and Black wins (3.5.2)."""
    s = Stream(main_event(2, preset=CL))
    policy = Policy(lot=lambda spec: list(spec["candidates"]), result=lambda g: "1-0")
    step(s, policy)  # pairing numbers t1, t2
    step(s, policy)  # schedule both games
    v = step(s, policy)  # White wins both: 1–1
    assert {tc(g) for g in v.required_next[0].games} == {(900, 10, 1, None, None)}
    v = s.view()
    assert by_name(v, "gct-playoff-rr").scores == (("t1", "1"), ("t2", "1"))
    assert v.still_in == ("t1", "t2") and not v.eliminated
    # Two players: no byes, one possible pairing, so only the coin toss is asked for (3.5.3).
    [req] = v.required_next
    assert req.kind == "lot" and req.stage == "gct-armageddon-1"
    assert req.lot == {
        "purpose": "coin_toss",
        "subject": "gct-armageddon-1-b1",
        "candidates": ["t1", "t2"],
        "pick": 1,
    }
    s.append(
        ev.LotDrawn(
            purpose="coin_toss",
            subject="gct-armageddon-1-b1",
            candidates=["t1", "t2"],
            outcome=["t1"],
        )
    )
    v = s.view()
    [req] = v.required_next
    [g] = req.games
    assert req.kind == "schedule" and (g.white, g.black) == ("t1", "t2")  # toss winner White
    assert tc(g) == ARMAGEDDON_TC
    notes_before = len(v.notes)
    schedule(s, "gct-armageddon-1", [g], swap=True)  # t1 chose Black
    v = s.view()
    assert len(v.notes) == notes_before  # the toss winner's choice, not a deviation
    [req] = v.required_next
    assert req.kind == "results" and (req.games[0].white, req.games[0].black) == ("t2", "t1")
    s.append(result("gct-armageddon-1-b1", "1/2-1/2"))
    v = s.view()
    assert v.status == "decided" and v.final_order == (("t1",), ("t2",))
    arm = by_name(v, "gct-armageddon-1")
    assert arm.kind == "armageddon" and arm.advanced == ("t1",) and arm.eliminated == ("t2",)
    assert dict(arm.scores) == {"t1": "1", "t2": "0"}
    # The main table is not touched by the playoff.
    from projections.standings import standings

    assert [r.place for r in standings(s.state).rows] == [1, 1, 3]


def test_a_drawn_armageddon_game_is_won_by_black():
    s = Stream(main_event(2))
    policy = Policy(
        lot=lambda spec: list(spec["candidates"])[::-1][
            : spec["pick"]
        ],  # t2 wins the toss, takes White
        result=lambda g: "1/2-1/2",
    )
    v = walk(s, policy)
    arm = by_name(v, "gct-armageddon-1")
    [g] = arm.games
    assert (g.white, g.black, g.result) == ("t2", "t1", "1/2-1/2")
    assert v.final_order == (("t1",), ("t2",))


# --- 2.3.2 / 3.3.2 and 2.4.1 / 3.4.1: three or more players, byes by lot ----------------------

# rules/README "GCT Armageddon knockout byes": m -> (games, byes) in the first knockout round.
BYES = {3: (1, 1), 5: (1, 3), 6: (2, 2), 7: (3, 1), 9: (1, 7)}


@pytest.mark.parametrize(
    ("k", "preset"), [(3, RB), (5, CL), (6, RB), (7, CL), (9, RB), (3, CL), (6, CL), (9, CL)]
)
def test_all_level_after_the_round_robin_byes_then_armageddon(k: int, preset: str):
    s = Stream(main_event(k, extra=1, preset=preset))
    policy = Policy(result=draws)
    v = walk(s, policy)
    assert v.status == "decided"
    rr = by_name(v, "gct-playoff-rr")
    assert rr.kind == "round_robin" and rr.players == tuple(tied_ids(k))
    assert len(rr.games) == k * (k - 1) // 2
    # 2.3.2: blitz 5'+3"; 3.3.2: rapid 10'+5".
    want = (300, 3, 1, None, None) if preset == RB else (600, 5, 1, None, None)
    assert {tc(g) for g in rr.games} == {want}
    assert set(rr.advanced) == set(tied_ids(k))  # all drew: all still tied (2.4)
    games, byes = BYES[k]
    first_ko = by_name(v, "gct-armageddon-1")
    assert (len(first_ko.games), len(first_ko.byes)) == (games, byes)
    assert len(first_ko.advanced) == games + byes in (2, 4, 8)
    # Later rounds halve a power of two, without byes.
    ko = [st_ for st_ in v.stages if st_.kind == "armageddon"]
    for prev, nxt in itertools.pairwise(ko):
        assert len(nxt.players) == len(prev.advanced) and not nxt.byes
        assert len(nxt.games) == len(nxt.players) // 2
    assert len(ko[-1].players) == 2 and len(ko[-1].advanced) == 1
    assert all(tc(g) == ARMAGEDDON_TC for st_ in ko for g in st_.games)
    # The lots asked for, in order: pairing numbers; byes, pairings (more than two to pair)
    # and tosses per knockout round.
    asked = [
        (r.lot["purpose"], r.lot["subject"], r.lot["pick"])
        for w in policy.log
        for r in w.required_next
        if r.lot
    ]
    assert asked[0] == ("pairing_numbers", "gct-playoff-rr", k)
    assert ("bye", "gct-armageddon-1", byes) in asked
    assert sum(p == "coin_toss" for p, _, _ in asked) == sum(len(x.games) for x in ko)
    for x in ko:
        playing = len(x.players) - len(x.byes)
        assert ((("pairing_numbers", f"{x.name}-pairs", playing)) in asked) == (playing > 2)
    # Final order: the winner; knockout losers, later rounds first, sharing within a round.
    assert [len(b) for b in v.final_order] == [1, *[len(x.eliminated) for x in ko[::-1]]]
    assert v.final_order[1:] == tuple(x.eliminated for x in ko[::-1])


def test_five_tied_walkthrough_with_chosen_lots():
    """5 -> 1 game + 3 byes -> 4 -> 2 games -> 2 -> 1 game (rules/README example)."""
    s = Stream(main_event(5, extra=0))
    rr_order = ["t3", "t1", "t5", "t2", "t4"]
    chosen = {
        "gct-playoff-rr": rr_order,
        "gct-armageddon-1": ["t5", "t1", "t3"],  # byes
        "gct-armageddon-2-pairs": ["t1", "t4", "t3", "t5"],  # t4 beat t2 in round 1
    }
    policy = Policy(
        lot=lambda spec: chosen.get(spec["subject"], first(spec)),
        result=lambda g: "1/2-1/2" if g.stage == "gct-playoff-rr" else "0-1",
    )
    step(s, policy)
    v = s.view()
    rr = by_name(v, "gct-playoff-rr")
    assert rr.players == tuple(rr_order)
    # Berger 5/6 round 1: 1-6 (bye), 2-5, 3-4 with pairing numbers from the lot.
    r1 = [(g.white, g.black) for g in rr.games if g.round == 1]
    assert r1 == [("t1", "t4"), ("t5", "t2")]
    assert len({g.round for g in rr.games}) == 5
    v = walk(s, policy)
    a1, a2, a3 = (by_name(v, f"gct-armageddon-{i}") for i in (1, 2, 3))
    assert a1.byes == ("t1", "t3", "t5")
    [g] = a1.games
    assert {g.white, g.black} == {"t2", "t4"}
    # Toss winner (first candidate, t2) is White; Black wins.
    assert (g.white, g.black, g.result) == ("t2", "t4", "0-1")
    assert a1.advanced == ("t1", "t3", "t4", "t5") and a1.eliminated == ("t2",)
    assert [(g.game_id, g.white, g.black) for g in a2.games] == [
        ("gct-armageddon-2-b1", "t1", "t4"),
        ("gct-armageddon-2-b2", "t3", "t5"),
    ]
    assert a2.advanced == ("t4", "t5")
    assert a3.advanced == ("t5",)
    assert v.final_order == (("t5",), ("t4",), ("t1", "t3"), ("t2",))
    assert v.eliminated == ("t2", "t1", "t3", "t4")
    assert "t5 wins" in said(v.notes[-1])


def test_armageddon_schedule_carries_its_byes():
    """Issue 12: the schedule of an Armageddon round with byes prescribes them with its games
    (kind "advance"), not only in its text: one RoundScheduled as prescribed leaves nothing
    to schedule or to add by hand."""
    s = Stream(main_event(3, extra=0))
    chosen = {"gct-playoff-rr": ["t1", "t2", "t3"], "gct-armageddon-1": ["t3"]}
    policy = Policy(lot=lambda spec: chosen.get(spec["subject"], first(spec)), result=draws)
    for _ in range(20):  # all draw: 3 -> Armageddon, 1 game + 1 bye
        reqs = [r for r in s.view().required_next if r.stage == "gct-armageddon-1"]
        if reqs and reqs[0].kind == "schedule":
            break
        step(s, policy)
    [req] = reqs
    assert isinstance(req, gct_event.ScheduleWithByes)
    assert req.byes == ("t3",)
    [g] = req.games
    assert {g.white, g.black} == {"t1", "t2"}
    assert req.as_dict()["byes"] == [{"player_id": "t3", "kind": "advance"}]
    assert "t3" in req.text
    s.append(
        ev.RoundScheduled(
            round=g.round,
            stage=req.stage,
            pairings=[ev.Pairing(game_id=g.game_id, white=g.white, black=g.black)],
            byes=[ev.Bye(player_id=p, kind="advance") for p in req.byes],
        )
    )
    v = s.view()
    assert [(r.kind, r.stage) for r in v.required_next] == [("results", "gct-armageddon-1")]
    assert by_name(v, "gct-armageddon-1").byes == ("t3",)


def test_round_robin_leaves_three_of_four_level():
    """2.4: only the players on the top round-robin score play Armageddon; the rest rank
    behind every knockout loser, by round-robin score."""
    s = Stream(main_event(4))

    def res(g: PlannedGame) -> str:
        if g.stage != "gct-playoff-rr":
            return "1-0"
        if "t4" in (g.white, g.black):
            return "1-0" if g.black == "t4" else "0-1"
        return "1/2-1/2"

    v = walk(s, Policy(result=res))
    rr = by_name(v, "gct-playoff-rr")
    assert rr.advanced == ("t1", "t2", "t3") and rr.eliminated == ("t4",)
    assert dict(rr.scores) == {"t1": "2", "t2": "2", "t3": "2", "t4": "0"}
    a1 = by_name(v, "gct-armageddon-1")
    assert (len(a1.games), len(a1.byes)) == (1, 1)
    assert v.final_order[-1] == ("t4",) and len(v.final_order) == 4
    assert v.eliminated[0] == "t4"


def test_round_robin_winner_needs_no_armageddon():
    s = Stream(main_event(3))
    v = walk(s, Policy(result=lambda g: "1-0" if g.white == "t2" or g.black == "t3" else "0-1"))
    rr = by_name(v, "gct-playoff-rr")
    assert v.status == "decided" and len(v.stages) == 1
    assert v.final_order[0] == ("t2",)
    points = dict(rr.scores)
    assert points["t2"] == "2"
    assert v.final_order[1:] == (("t1",), ("t3",))  # by round-robin score


# --- what does not fit is reported, not folded ------------------------------------------------


def test_a_bye_lot_with_the_wrong_count_is_reported_and_can_be_redrawn():
    s = Stream(main_event(5))
    walk_to = Policy(result=draws)
    for _ in range(3):
        step(s, walk_to)  # RR lot, schedule, results
    v = s.view()
    [req] = v.required_next
    assert req.lot == {
        "purpose": "bye",
        "subject": "gct-armageddon-1",
        "candidates": tied_ids(5),
        "pick": 3,
    }
    bad = s.append(
        ev.LotDrawn(
            purpose="bye", subject="gct-armageddon-1", candidates=tied_ids(5), outcome=["t1", "t2"]
        )
    )
    v = s.view()
    assert v.status == "awaiting_ruling"
    [req] = v.required_next
    assert req.kind == "lot" and "2 entries, 3 expected" in req.text
    assert any("does not fit" in n for n in v.notes)
    assert by_name(v, "gct-armageddon-1").byes == ()  # not folded
    s.append(ev.EventRetracted(retracted_event_id=bad, reason="wrong count"))
    s.append(
        ev.LotDrawn(
            purpose="bye",
            subject="gct-armageddon-1",
            candidates=tied_ids(5),
            outcome=["t1", "t2", "t3"],
        )
    )
    v = s.view()
    assert v.status == "in_progress"
    assert by_name(v, "gct-armageddon-1").byes == ("t1", "t2", "t3")
    assert [r.kind for r in v.required_next] == ["lot"]  # the toss for t4 v t5
    assert v.required_next[0].lot["purpose"] == "coin_toss"  # type: ignore[index]


def test_a_lot_drawn_from_the_wrong_players_is_reported():
    s = Stream(main_event(3))
    s.append(
        ev.LotDrawn(
            purpose="pairing_numbers",
            subject="gct-playoff-rr",
            candidates=["t1", "t2", "x1"],
            outcome=["x1", "t2", "t1"],
        )
    )
    v = s.view()
    assert v.status == "awaiting_ruling"
    assert "drawn from ['t1', 't2', 'x1'], expected ['t1', 't2', 't3']" in v.required_next[0].text
    assert by_name(v, "gct-playoff-rr").games == ()


def test_a_toss_naming_someone_else_is_reported():
    s = Stream(main_event(2))
    policy = Policy(result=lambda g: "1-0")
    for _ in range(3):
        step(s, policy)
    s.append(
        ev.LotDrawn(
            purpose="coin_toss",
            subject="gct-armageddon-1-b1",
            candidates=["t1", "t2"],
            outcome=["t1", "t2"],
        )
    )
    v = s.view()
    assert v.status == "awaiting_ruling"
    assert [r.kind for r in v.required_next] == ["lot"]  # no schedule on a bad toss


def test_arbiter_scheduled_other_colours_in_the_round_robin():
    s = Stream(main_event(2))
    policy = Policy()
    step(s, policy)  # lot: t1 is 1
    v = s.view()
    g1, g2 = (g for r in v.required_next for g in r.games)
    schedule(s, "gct-playoff-rr", [g1], swap=True)
    schedule(s, "gct-playoff-rr", [g2], swap=False)
    v = s.view()
    assert any(
        "gct-rr-r1-b1: scheduled t2–t1, prescribed t1–t2 (other colours)" in n
        for n in map(said, v.notes)
    )
    games = by_name(v, "gct-playoff-rr").games
    assert [(g.white, g.black, g.scheduled) for g in games] == [
        ("t2", "t1", True),
        ("t2", "t1", True),
    ]
    s.append(result("gct-rr-r1-b1", "1-0"))
    s.append(result("gct-rr-r2-b1", "1/2-1/2"))
    v = s.view()
    assert v.final_order == (("t2",), ("t1",))  # scored on the games as scheduled


def test_a_double_loss_in_armageddon_needs_a_correction():
    s = Stream(main_event(2))
    policy = Policy(result=lambda g: "0-0" if g.stage.startswith("gct-armageddon") else "1-0")
    walk(s, policy)
    v = s.view()
    assert v.status == "awaiting_ruling"
    [req] = v.required_next
    assert req.kind == "ruling" and "ResultCorrected" in req.text
    ended = next(
        i
        for i, e in enumerate(s.events)
        if isinstance(e, ev.GameEnded) and e.game_id == "gct-armageddon-1-b1"
    )
    s.append(
        ev.ResultCorrected(
            corrects_event_id=recorded("t1", s.events)[ended].envelope.event_id,
            game_id="gct-armageddon-1-b1",
            result="1/2-1/2",
            termination="armageddon",
            reason="scoresheet",
        )
    )
    v = s.view()
    assert v.status == "decided"
    [g] = by_name(v, "gct-armageddon-1").games
    assert v.final_order[0] == (g.black,)


def test_unprescribed_games_in_a_playoff_stage_are_noted_and_ignored():
    s = Stream(main_event(2))
    step(s, Policy())
    s.append(round_(9, ("extra-1", "t1", "t2"), stage="gct-playoff-rr"))
    v = s.view()
    assert any("'extra-1'" in n and "ignored" in n for n in v.notes)
    assert len(by_name(v, "gct-playoff-rr").games) == 2


def test_an_armageddon_game_seating_a_bye_player_is_sent_back():
    s = Stream(main_event(3))
    policy = Policy(result=draws)
    for _ in range(4):
        step(s, policy)  # RR lot, schedule, results, bye lot (t1 has the bye)
    v = step(s, policy)  # the toss for t2 v t3
    assert v.required_next[0].lot["subject"] == "gct-armageddon-1-b1"  # type: ignore[index]
    s.append(round_(1, ("gct-armageddon-1-b1", "t1", "t3"), stage="gct-armageddon-1"))
    v = s.view()
    assert v.status == "awaiting_ruling"
    [req] = v.required_next
    assert req.kind == "ruling" and "['t1'], who are not in gct-armageddon-1" in req.text
    assert any("gct-armageddon-1-b1: scheduled t1–t3" in n for n in map(said, v.notes))


def test_a_game_scheduled_before_its_toss_is_noted():
    s = Stream(main_event(2))
    policy = Policy(result=lambda g: "1-0")
    for _ in range(3):
        step(s, policy)  # 1–1 after the mini-match
    s.append(round_(1, ("gct-armageddon-1-b1", "t2", "t1"), stage="gct-armageddon-1"))
    v = s.view()
    assert any("scheduled before its coin toss (2.5.3)" in n for n in v.notes)
    assert [r.lot["purpose"] for r in v.required_next if r.lot] == ["coin_toss"]


def test_the_rest_of_a_partly_scheduled_knockout_round_goes_in_a_later_round():
    """The decider refuses a second RoundScheduled for the same (stage, round)."""
    s = Stream(main_event(4))
    policy = Policy(result=draws)
    for _ in range(5):
        step(s, policy)  # RR lot, schedule, results, pairs lot, tosses
    v = s.view()
    [req] = v.required_next
    assert req.kind == "schedule" and [g.round for g in req.games] == [1, 1]
    schedule(s, req.stage, req.games[:1])
    v = s.view()
    [req] = v.required_next[:1]
    assert req.kind == "schedule" and [(g.game_id, g.round) for g in req.games] == [
        ("gct-armageddon-1-b2", 2)
    ]
    assert [r.kind for r in v.required_next] == ["schedule", "results"]
    v = walk(s, policy)
    assert v.status == "decided"


# --- properties ---------------------------------------------------------------------------------


@st.composite
def walks(draw: st.DrawFn) -> tuple[int, str, Stream]:
    k = draw(st.integers(min_value=2, max_value=9))
    preset = draw(st.sampled_from([RB, CL]))
    s = Stream(main_event(k, extra=draw(st.integers(0, 2)), preset=preset))

    def lot(spec: dict[str, Any]) -> list[str]:
        cands, pick = spec["candidates"], spec["pick"]
        if spec["purpose"] == "bye":
            return draw(st.lists(st.sampled_from(cands), min_size=pick, max_size=pick, unique=True))
        if spec["purpose"] == "coin_toss":
            return [draw(st.sampled_from(cands))]
        return list(draw(st.permutations(cands)))

    rr_all_drawn = draw(st.booleans())  # so that large ties reach the knockout

    def res(g: PlannedGame) -> str:
        if rr_all_drawn and g.stage == gct_event.RR_STAGE:
            return "1/2-1/2"
        return draw(st.sampled_from(["1/2-1/2"] * 4 + ["1-0", "0-1"]))

    policy = Policy(lot=lot, result=res, chose_black=lambda g: draw(st.booleans()))
    v = walk(s, policy)
    assert v.status == "decided"
    # Walking by the requirements never produces a deviation or a bad lot.
    assert not [n for n in v.notes if "scheduled game is used" in n or "does not fit" in n]
    return k, preset, s


def replay(events: list[Event]) -> bytes:
    return orjson.dumps(gct_event.view(fold(recorded("t1", events))).as_dict())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(walks())
def test_replaying_the_same_lots_gives_the_same_playoff(walk_: tuple[int, str, Stream]):
    _k, _preset, s = walk_
    live = orjson.dumps(s.view().as_dict())
    assert replay(s.events) == live
    # Nothing depends on registration (dict) order or on the order candidates were listed in.
    regs = [e for e in s.events if isinstance(e, ev.PlayerRegistered)]
    shuffled: list[Event] = []
    for e in s.events:
        if isinstance(e, ev.PlayerRegistered):
            if e is regs[0]:
                shuffled += regs[::-1]
        elif isinstance(e, ev.LotDrawn):
            shuffled.append(e.model_copy(update={"candidates": e.candidates[::-1]}))
        else:
            shuffled.append(e)
    assert replay(shuffled) == live


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(walks())
def test_every_step_of_a_random_playoff_keeps_the_invariants(walk_: tuple[int, str, Stream]):
    """`Stream.view` checks the invariants at every step of the walk (no game prescribed for
    an eliminated player, every stage's games among the players still in); here the whole
    history is replayed prefix by prefix, and every stage's players are the ones still in."""
    k, _preset, s = walk_
    state = fold(recorded("t1", s.events))
    v = gct_event.view(state)
    check_invariants(v)
    assert v.tied == tuple(tied_ids(k))
    out_so_far: set[str] = set()
    for stage in v.stages:
        assert not set(stage.players) & out_so_far
        for g in stage.games:
            assert g.white not in out_so_far and g.black not in out_so_far
        out_so_far |= set(stage.eliminated)
    recs = recorded("t1", s.events)
    for n in range(len(recs) - 60, len(recs) + 1, 7):
        check_invariants(gct_event.view(fold(recs[: max(n, 1)])))


def test_a_note_names_players_as_fields_rendered_by_name_at_the_edge() -> None:
    """A note or a requirement names its players as `{id}` (`who`): the document publishes the
    text with the ids (as before) and the template beside it; the CLI renders names."""
    from projections.playoffs.base import Requirement, who

    note = f"tie for first between {who('a', 'b')}: playoff (2.1)"
    assert note == "tie for first between {a}, {b}: playoff (2.1)"
    names = {"a": "Carlsen, Magnus", "b": "Caruana, Fabiano"}
    assert said(note, names) == (
        "tie for first between Carlsen, Magnus, Caruana, Fabiano: playoff (2.1)"
    )
    assert said(note) == "tie for first between a, b: playoff (2.1)"
    view = PlayoffView("gct-event", "in_progress", "GCT", notes=(note, "no one named"))
    doc = view.as_dict()
    assert doc["notes"] == ["tie for first between a, b: playoff (2.1)", "no one named"]
    assert doc["note_templates"] == [note, "no one named"]
    req = Requirement("results", "main", f"{who('a')} to play").as_dict()
    assert (req["text"], req["template"]) == ("a to play", "{a} to play")
    assert "template" not in Requirement("results", "main", "the main stage").as_dict()
