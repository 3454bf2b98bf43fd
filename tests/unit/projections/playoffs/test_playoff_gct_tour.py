"""GCT 2022 overall-standings playoffs (§4): scenarios from the overall tie to the final order.

The playoff is its own tournament stream (format "playoff", preset "gct-tour-playoff"). Every
event a scenario appends goes through the tournament decider first, so the schedules the machine
prescribes are ones the command path accepts. Players are one-letter ids; a round robin's
outcome is given per pair, e.g. {"ab": "a", "ac": "=", "bc": "c"}, and per game in order for a
mini-match, e.g. {"ab": "a="} (a wins game 1, game 2 drawn).
"""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from builders import created, player, recorded, result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events_schema import Event
from events_schema import events as ev
from projections.playoffs.base import PlayoffView, Requirement, StageView, said
from projections.playoffs.gct_tour import BLITZ, RAPID, OverallRow, played_off, view
from projections.rejection import Rejected
from projections.standings import fold
from projections.tournament import decide
from projections.tournament import fold as tournament_fold


def table(**points: str | int) -> list[OverallRow]:
    return [OverallRow(p, Decimal(str(x))) for p, x in points.items()]


class Playoff:
    """The playoff tournament's stream, grown by what the machine asks for."""

    def __init__(self, overall: list[OverallRow], registered: str | None = None) -> None:
        self.overall = overall
        self.events: list[Event] = []
        ids = registered if registered is not None else [r.player_id for r in overall]
        self.append(
            created(fmt="playoff", rules_preset="gct-tour-playoff", series_id="gct-2022"),
            *(player(p) for p in ids),
        )

    def append(self, *events: Event) -> None:
        for e in events:
            (accepted,) = decide(tournament_fold(recorded("t1", self.events)), e)
            self.events.append(accepted)

    def view(self) -> PlayoffView:
        return view(self.overall, fold(recorded("t1", self.events)))

    def lot(self, stage: str, order: str) -> None:
        self.append(
            ev.LotDrawn(
                purpose="pairing_numbers", subject=stage, candidates=sorted(order), outcome=[*order]
            )
        )

    def requirement(self, kind: str, stage: str) -> Requirement:
        found = [r for r in self.view().required_next if (r.kind, r.stage) == (kind, stage)]
        assert len(found) == 1, self.view().required_next
        return found[0]

    def schedule(self, stage: str) -> list[tuple[str, str, str]]:
        """Schedules the stage as prescribed; returns (game id, white, black) in order."""
        req = self.requirement("schedule", stage)
        for rnd in sorted({g.round for g in req.games}):
            games = [g for g in req.games if g.round == rnd]
            self.append(
                ev.RoundScheduled(
                    stage=stage,
                    round=rnd,
                    pairings=[
                        ev.Pairing(
                            game_id=g.game_id,
                            white=g.white,
                            black=g.black,
                            time_control=g.time_control.name,
                        )
                        for g in games
                    ],
                )
            )
        return [(g.game_id, g.white, g.black) for g in req.games]

    def play(self, stage: str, outcome: dict[str, str]) -> list[tuple[str, str]]:
        """Schedules the stage and records `outcome`; returns the (white, black) pairs."""
        left = {pair: list(winners) for pair, winners in outcome.items()}
        played = []
        for gid, white, black in self.schedule(stage):
            winner = left["".join(sorted(white + black))].pop(0)
            res = "1/2-1/2" if winner == "=" else ("1-0" if winner == white else "0-1")
            self.append(result(gid, res))
            played.append((white, black))
        assert not any(left.values()), left
        return played


def stage_of(v: PlayoffView, name: str) -> StageView:
    [stage] = [s for s in v.stages if s.name == name]
    return stage


def blocks(v: PlayoffView) -> list[str]:
    return ["".join(b) for b in v.final_order]


# --- which ties are played off (4.1, 4.2, 4.5) ------------------------------------------------


@pytest.mark.parametrize(
    ("first", "last", "expected"),
    [
        (1, 2, True),  # tie for 1st
        (1, 3, True),
        (1, 6, True),
        (2, 3, False),  # 4.2: the tie for second place
        (2, 4, True),  # decides who is in the first three (4.3)
        (2, 5, True),
        (3, 4, True),  # tie for 3rd
        (3, 7, True),
        (4, 5, False),  # 4.2
        (5, 9, False),
    ],
)
def test_cutting_rule(first: int, last: int, expected: bool) -> None:
    assert played_off(first, last) is expected


def test_tie_for_second_only_is_not_played_off() -> None:
    """4.2: b and c share places 2–3; e and f share 5–6. No playoff, the places stay shared."""
    v = view(table(a=30, b=25, c=25, d=20, e=10, f=10), None)
    assert v.status == "not_needed"
    assert (v.tied, v.stages, v.required_next) == ((), (), ())
    assert blocks(v) == ["a", "bc", "d", "ef"]
    assert any("4.2" in n and "2–3" in n for n in v.notes)


def test_no_ties_at_all() -> None:
    v = view(table(a=3, b=2, c=1), None)
    assert (v.status, blocks(v)) == ("not_needed", ["a", "b", "c"])


def test_duplicate_player_in_the_overall_table_is_refused() -> None:
    with pytest.raises(ValueError, match="twice"):
        view([OverallRow("a", 1), OverallRow("a", 2)], None)


# --- scenarios --------------------------------------------------------------------------------


def test_two_way_tie_for_first_is_a_rapid_mini_match() -> None:
    """4.6/4.7: a and b level on 30: a double round robin at 15'+10", numbers by lot."""
    overall = table(a=30, b="30.0", c=25, d=20)
    before = view(overall, None)
    assert (before.status, before.tied, before.still_in) == ("waiting", ("a", "b"), ("a", "b"))
    [req] = before.required_next
    assert (req.kind, req.stage) == ("lot", "tour-1st-rr1")
    assert req.lot == {
        "purpose": "pairing_numbers",
        "subject": "tour-1st-rr1",
        "candidates": ["a", "b"],
        "pick": 2,
    }
    assert any("does not exist yet" in n for n in before.notes)

    p = Playoff(overall, registered="ab")
    assert p.view().status == "waiting"
    p.lot("tour-1st-rr1", "ba")
    games = p.requirement("schedule", "tour-1st-rr1").games
    assert [(g.round, g.white, g.black) for g in games] == [(1, "b", "a"), (2, "a", "b")]
    assert {g.time_control for g in games} == {RAPID}
    assert RAPID.base_seconds == 900 and RAPID.increment_seconds == 10
    p.schedule("tour-1st-rr1")
    assert p.view().status == "in_progress"
    assert p.requirement("results", "tour-1st-rr1").games
    p.append(result("tour-1st-rr1-r1-b1", "1-0"), result("tour-1st-rr1-r2-b1", "1/2-1/2"))

    v = p.view()
    assert v.status == "decided"
    assert blocks(v) == ["b", "a", "c", "d"]
    stage = stage_of(v, "tour-1st-rr1")
    assert stage.kind == "double_round_robin" and stage.complete
    assert dict(stage.scores) == {"b": "1.5", "a": "0.5"}
    assert (stage.advanced, stage.eliminated) == ((), ("a",))
    assert (v.still_in, v.eliminated, v.required_next) == ((), ("a",), ())


def test_three_way_tie_for_first_leaves_second_and_third_shared() -> None:
    """a, b, c level for 1–3: one rapid round robin (Berger, numbers c=1, a=2, b=3). a wins it;
    b and c level on ½ share 2nd–3rd (4.2, a tie for second); d and e share 4th–5th."""
    p = Playoff(table(a=30, b=30, c=30, d=20, e=20))
    v = p.view()
    assert v.tied == ("a", "b", "c")
    assert [r.stage for r in v.required_next] == ["tour-1st-rr1"]
    p.lot("tour-1st-rr1", "cab")
    played = p.play("tour-1st-rr1", {"ab": "a", "ac": "a", "bc": "="})
    # FIDE Berger, 3 players: 2–3, 1–2, 3–1.
    assert played == [("a", "b"), ("c", "a"), ("b", "c")]
    v = p.view()
    assert v.status == "decided"
    assert blocks(v) == ["a", "bc", "de"]
    assert stage_of(v, "tour-1st-rr1").eliminated == ("b", "c")
    assert any("4.2" in n and "b, c" in n and "2–3" in n for n in map(said, v.notes))


def test_separate_ties_for_first_and_third_run_concurrently() -> None:
    """4.5: a–b level for 1–2 and c–d level for 3–4 are separate playoffs, both at once."""
    p = Playoff(table(a=30, b=30, c=20, d=20, e=10))
    v = p.view()
    assert [(r.kind, r.stage) for r in v.required_next] == [
        ("lot", "tour-1st-rr1"),
        ("lot", "tour-3rd-rr1"),
    ]
    assert v.tied == ("a", "b", "c", "d")
    p.lot("tour-3rd-rr1", "dc")
    p.lot("tour-1st-rr1", "ab")
    p.play("tour-3rd-rr1", {"cd": "dd"})
    p.schedule("tour-1st-rr1")
    v = p.view()
    assert v.status == "in_progress"
    assert v.final_order == ()  # nothing final until every tie is decided
    assert v.still_in == ("a", "b")
    assert stage_of(v, "tour-3rd-rr1").eliminated == ("c",)
    p.append(result("tour-1st-rr1-r1-b1", "0-1"), result("tour-1st-rr1-r2-b1", "1-0"))
    v = p.view()
    assert v.status == "decided"
    assert blocks(v) == ["b", "a", "d", "c", "e"]
    assert v.eliminated == ("a", "c")


def test_same_two_players_again_play_with_colours_reversed() -> None:
    """4.9: the mini-match ends 1–1; RR2 has exactly the same players: no lot, colours
    reversed game by game."""
    p = Playoff(table(a=30, b=30, c=20))
    p.lot("tour-1st-rr1", "ab")
    assert p.play("tour-1st-rr1", {"ab": "ab"}) == [("a", "b"), ("b", "a")]
    v = p.view()
    assert v.status == "in_progress"
    assert stage_of(v, "tour-1st-rr1").advanced == ("a", "b")
    assert [r.kind for r in v.required_next] == ["schedule"]  # no lot
    assert any("4.9" in n and "colours reversed" in n for n in v.notes)
    assert p.play("tour-1st-rr2", {"ab": "a="}) == [("b", "a"), ("a", "b")]
    v = p.view()
    assert stage_of(v, "tour-1st-rr2").kind == "double_round_robin"
    assert {g.time_control for g in stage_of(v, "tour-1st-rr2").games} == {RAPID}
    assert (v.status, blocks(v)) == ("decided", ["a", "b", "c"])


def test_same_three_players_again_replay_the_round_robin_reversed() -> None:
    """4.9 with three players: every RR1 pairing again, White and Black swapped."""
    p = Playoff(table(a=30, b=30, c=30, d=1))
    p.lot("tour-1st-rr1", "bca")
    rr1 = p.play("tour-1st-rr1", {"ab": "=", "ac": "=", "bc": "="})
    rr2 = p.play("tour-1st-rr2", {"ab": "b", "ac": "c", "bc": "b"})
    assert rr2 == [(b, w) for w, b in rr1]
    v = p.view()
    assert (v.status, blocks(v)) == ("decided", ["b", "c", "a", "d"])


def test_changed_players_draw_afresh_for_the_second_round_robin() -> None:
    """a and b score 1½ in the three-way RR1, c 0: c is 3rd; a and b are a new set of players,
    so RR2 needs a fresh lot (4.9) and is a mini-match (4.6)."""
    p = Playoff(table(a=30, b=30, c=30, d=1))
    p.lot("tour-1st-rr1", "abc")
    p.play("tour-1st-rr1", {"ab": "=", "ac": "a", "bc": "b"})
    v = p.view()
    assert stage_of(v, "tour-1st-rr1").advanced == ("a", "b")
    assert stage_of(v, "tour-1st-rr1").eliminated == ("c",)
    [req] = v.required_next
    assert (req.kind, req.stage, req.lot and req.lot["candidates"]) == (
        "lot",
        "tour-1st-rr2",
        ["a", "b"],
    )
    assert any("4.9" in n and "players differ" in n and "fresh lot" in n for n in v.notes)
    p.lot("tour-1st-rr2", "ba")
    assert p.play("tour-1st-rr2", {"ab": "bb"}) == [("b", "a"), ("a", "b")]
    assert blocks(p.view()) == ["b", "a", "c", "d"]


def test_four_round_robins_then_the_chief_arbiter_rules() -> None:
    """Every game drawn: RR2 reversed (4.9), RR3 blitz with a fresh lot although the players
    are the same (two round robins played, an even number: 4.11), RR4 reversed again (4.11),
    then 4.12: the tie awaits the chief arbiter's ruling, which decides it."""
    p = Playoff(table(a=30, b=30, c=30, d=1))
    p.lot("tour-1st-rr1", "abc")
    draws = {"ab": "=", "ac": "=", "bc": "="}
    rr1 = p.play("tour-1st-rr1", draws)
    assert p.play("tour-1st-rr2", draws) == [(b, w) for w, b in rr1]
    v = p.view()
    assert [(r.kind, r.stage) for r in v.required_next] == [("lot", "tour-1st-rr3")]
    assert any("4.11" in n and "even number" in n for n in v.notes)
    p.lot("tour-1st-rr3", "cba")
    rr3 = p.play("tour-1st-rr3", draws)
    assert {g.time_control for g in stage_of(p.view(), "tour-1st-rr3").games} == {BLITZ}
    assert BLITZ.base_seconds == 300 and BLITZ.increment_seconds == 2
    assert p.play("tour-1st-rr4", draws) == [(b, w) for w, b in rr3]

    v = p.view()
    assert v.status == "awaiting_ruling"
    assert v.still_in == ("a", "b", "c") and v.final_order == ()
    [req] = v.required_next
    assert (req.kind, req.stage) == ("ruling", "tour-1st")
    assert "4.12" in req.text and "gct-tour-playoff" in req.text
    assert [s.name for s in v.stages] == [f"tour-1st-rr{n}" for n in (1, 2, 3, 4)]

    def ruling(rid: str, subject: str, order: list[str]) -> ev.RulingIssued:
        return ev.RulingIssued(
            ruling_id=rid,
            by="GCT Chief Arbiter",
            subject=subject,
            rule="GCT 4.12",
            text="after consulting the players: Armageddon games",
            decision={"tiebreak_order": order},
        )

    # Not for this tie (a player missing), or not about the tour playoff: not applied.
    p.append(ruling("R0", "gct-tour-playoff", ["b", "a"]), ruling("R1", "other", [*"cab"]))
    v = p.view()
    assert v.status == "awaiting_ruling"
    assert any("R0 not applied" in n for n in v.notes)
    p.append(ruling("R2", "gct-tour-playoff", [*"cab"]))
    v = p.view()
    assert v.status == "decided"
    assert blocks(v) == ["c", "a", "b", "d"]
    assert v.eliminated == ("a", "b")
    assert any("4.12" in n and "R2" in n for n in v.notes)


def test_each_lot_request_cites_the_article_that_calls_its_round_robin() -> None:
    """Issue 12: the lot for RR3 is asked for under 4.10 (the first blitz round robin after
    two rapid ones), not 4.11 (further blitz round robins); RR1 under 4.7, RR2 with other
    players under 4.9, RR4 with other players under 4.11."""
    p = Playoff(table(a=30, b=30, c=30, d=30, e=1))
    assert p.requirement("lot", "tour-1st-rr1").text.startswith("GCT 4.7:")
    p.lot("tour-1st-rr1", "abcd")
    # a and b 2, c and d 1: the tie for 1st (a, b) and the tie for 3rd (c, d), fresh lots.
    p.play("tour-1st-rr1", {"ab": "=", "cd": "=", "ac": "a", "ad": "=", "bc": "=", "bd": "b"})
    assert p.requirement("lot", "tour-1st-rr2").text.startswith("GCT 4.9:")
    p.lot("tour-1st-rr2", "ab")
    p.lot("tour-3rd-rr2", "cd")
    p.play("tour-1st-rr2", {"ab": "=="})
    p.play("tour-3rd-rr2", {"cd": "d="})
    req = p.requirement("lot", "tour-1st-rr3")
    assert req.text.startswith("GCT 4.10:") and "4.11" not in req.text
    assert any(n.startswith("GCT 4.10, 4.11: tour-1st-rr3") for n in p.view().notes)


def test_tie_for_places_two_to_five_is_the_tie_for_third() -> None:
    """b–e level for places 2–5: the first three are undecided (4.3), so all four play off, in
    the tie for 3rd. b 3, c and d 1½, e 0: b 2nd, e 5th, c–d (3–4) play on with a fresh lot."""
    p = Playoff(table(a=40, b=30, c=30, d=30, e=30, f=10))
    v = p.view()
    assert v.tied == ("b", "c", "d", "e")
    assert [r.stage for r in v.required_next] == ["tour-3rd-rr1"]
    p.lot("tour-3rd-rr1", "bcde")
    p.play("tour-3rd-rr1", {"bc": "b", "bd": "b", "be": "b", "cd": "=", "ce": "c", "de": "d"})
    v = p.view()
    rr1 = stage_of(v, "tour-3rd-rr1")
    assert (rr1.advanced, rr1.eliminated) == (("c", "d"), ("e",))
    assert [(r.kind, r.stage) for r in v.required_next] == [("lot", "tour-3rd-rr2")]
    p.lot("tour-3rd-rr2", "dc")
    p.play("tour-3rd-rr2", {"cd": "=c"})
    assert blocks(p.view()) == ["a", "b", "c", "d", "e", "f"]


def test_tie_for_third_level_at_the_top_shares_second() -> None:
    """b–e for 2–5: b and c 2½ each share 2nd–3rd (both in the first three), d and e ½ each
    share 4th–5th: decided after one round robin."""
    p = Playoff(table(a=40, b=30, c=30, d=30, e=30))
    p.lot("tour-3rd-rr1", "edcb")
    p.play("tour-3rd-rr1", {"bc": "=", "bd": "b", "be": "b", "cd": "c", "ce": "c", "de": "="})
    v = p.view()
    assert (v.status, blocks(v)) == ("decided", ["a", "bc", "de"])
    assert v.eliminated == ("d", "e")


def test_three_way_tie_for_third_ordered_by_the_round_robin() -> None:
    """c, d, e level for 3–5; the round robin orders them 2, 1, 0: 3rd, 4th, 5th."""
    p = Playoff(table(a=40, b=35, c=30, d=30, e=30))
    p.lot("tour-3rd-rr1", "cde")
    p.play("tour-3rd-rr1", {"cd": "c", "ce": "c", "de": "d"})
    assert blocks(p.view()) == ["a", "b", "c", "d", "e"]


def test_tie_for_first_splits_into_separate_ties_at_any_stage() -> None:
    """4.5 "at any stage": a–d level for 1–4; RR1 ends a 2, b 2, c 1, d 1: a tie for 1st (a, b)
    and a separate tie for 3rd (c, d), each with its own fresh lot for RR2."""
    p = Playoff(table(a=30, b=30, c=30, d=30, e=10))
    p.lot("tour-1st-rr1", "abcd")
    p.play("tour-1st-rr1", {"ab": "=", "cd": "=", "ac": "a", "ad": "=", "bc": "=", "bd": "b"})
    v = p.view()
    rr1 = stage_of(v, "tour-1st-rr1")
    assert (rr1.advanced, rr1.eliminated) == (("a", "b", "c", "d"), ())
    assert [(r.kind, r.stage) for r in v.required_next] == [
        ("lot", "tour-1st-rr2"),
        ("lot", "tour-3rd-rr2"),
    ]
    assert any(n.startswith("GCT 4.5: after tour-1st-rr1 separate ties") for n in v.notes)
    p.lot("tour-1st-rr2", "ba")
    p.lot("tour-3rd-rr2", "cd")
    p.play("tour-1st-rr2", {"ab": "=="})
    p.play("tour-3rd-rr2", {"cd": "d="})
    v = p.view()
    assert v.still_in == ("a", "b")
    assert stage_of(v, "tour-1st-rr3").players == ("a", "b")
    p.lot("tour-1st-rr3", "ab")
    p.play("tour-1st-rr3", {"ab": "ab"})
    p.play("tour-1st-rr4", {"ab": "b="})
    assert blocks(p.view()) == ["b", "a", "d", "c", "e"]


def test_a_lot_that_is_not_an_order_of_the_tie_is_ignored() -> None:
    p = Playoff(table(a=30, b=30, c=30))
    p.lot("tour-1st-rr1", "ab")
    v = p.view()
    assert [r.kind for r in v.required_next] == ["lot"]
    assert any("lot for tour-1st-rr1 ignored" in n for n in v.notes)


def test_a_game_scheduled_with_other_colours_blocks_the_stage() -> None:
    p = Playoff(table(a=30, b=30))
    p.lot("tour-1st-rr1", "ab")
    wrong = ev.RoundScheduled(
        stage="tour-1st-rr1",
        round=1,
        pairings=[ev.Pairing(game_id="tour-1st-rr1-r1-b1", white="b", black="a")],
    )
    # The decider refuses it now (projections/tournament/playoff_guards.py); an old log may
    # still hold one, so it is stored past the decider and the machine still flags it.
    with pytest.raises(Rejected) as refused:
        p.append(wrong)
    assert refused.value.rule == "playoff.pairing_not_prescribed"
    p.events.append(wrong)
    v = p.view()
    assert [g.game_id for g in p.requirement("schedule", "tour-1st-rr1").games] == [
        "tour-1st-rr1-r2-b1"
    ]
    assert any("not a–b" in n and "retract" in n for n in v.notes)


def test_unregistered_tied_player_is_noted() -> None:
    p = Playoff(table(a=30, b=30), registered="a")
    assert any("not registered" in n and "b" in n for n in p.view().notes)


# --- properties --------------------------------------------------------------------------------

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
PLAYERS = "abcdefgh"


def _walk(data: st.DataObject) -> tuple[Playoff, list[PlayoffView]]:
    """Plays a random playoff to its end, answering every requirement; returns the views."""
    n = data.draw(st.integers(2, 8), label="players")
    points = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n), label="points")
    p = Playoff(table(**{PLAYERS[i]: x for i, x in enumerate(points)}))
    views = [p.view()]
    results = st.sampled_from(["1-0", "0-1", "1/2-1/2", "1/2-1/2", "1/2-1/2"])
    for _ in range(60):
        v = views[-1]
        if v.status in ("decided", "not_needed"):
            break
        req = v.required_next[0]
        if req.kind == "lot":
            assert req.lot is not None
            order = data.draw(st.permutations(req.lot["candidates"]), label=req.stage)
            p.lot(req.stage, "".join(order))
        elif req.kind == "schedule":
            p.schedule(req.stage)
        elif req.kind == "results":
            for g in req.games:
                p.append(result(g.game_id, data.draw(results, label=g.game_id)))
        else:
            order = data.draw(st.permutations(sorted(v.still_in)), label="ruling")
            p.append(
                ev.RulingIssued(
                    ruling_id=f"R{len(p.events)}",
                    by="GCT Chief Arbiter",
                    subject="gct-tour-playoff",
                    rule="GCT 4.12",
                    text="by other means",
                    decision={"tiebreak_order": list(order)},
                )
            )
        views.append(p.view())
    return p, views


@SETTINGS
@given(st.data())
def test_replaying_the_same_lots_gives_the_same_view(data: st.DataObject) -> None:
    p, views = _walk(data)
    assert views[-1].status in ("decided", "not_needed")
    again = view(list(p.overall), fold(recorded("t1", list(p.events))))
    assert json.dumps(again.as_dict()).encode() == json.dumps(views[-1].as_dict()).encode()


@SETTINGS
@given(st.data())
def test_no_game_for_a_player_already_out_of_the_tie(data: st.DataObject) -> None:
    p, views = _walk(data)
    for v in views:
        out: set[str] = set()
        rr = 0
        for stage in v.stages:  # in round-robin order
            n = int(stage.name.rsplit("rr", 1)[1])
            assert n >= rr
            if n > rr:  # a later round robin: nobody who has left a tie may play in it
                rr = n
            assert not out & set(stage.players), (stage.name, out)
            for g in stage.games:
                assert {g.white, g.black} <= set(stage.players)
                assert g.time_control == (RAPID if n <= 2 else BLITZ)
            if stage.complete:
                out |= set(stage.players) - set(stage.advanced)
        for req in v.required_next:
            for g in req.games:
                assert {g.white, g.black} <= set(v.still_in)
    # The playoff settles what 4.1/4.3 need: a sole winner, and the first three.
    final = views[-1].final_order
    assert sorted(p for b in final for p in b) == sorted(r.player_id for r in p.overall)
    sizes = [len(b) for b in final]
    assert sizes[0] == 1
    if len(p.overall) > 3:
        assert 3 in {sum(sizes[: i + 1]) for i in range(len(sizes))}
