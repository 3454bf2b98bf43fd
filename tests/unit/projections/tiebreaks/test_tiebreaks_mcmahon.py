"""McMahon scores and the Go placement criteria (projections/tiebreaks/mcmahon.py): worked
examples computed by hand, OpenGotha's conventions (its `Player.smms`,
`Tournament.fillBaseScoringInfoIfNecessary`) and the LGC "Top groups".

Ranks: 30k = -30 … 1k = -1, 1d = 0 … 9d = 8 (pros 1-3p = 6, 4-6p = 7, 7-9p = 8); start score =
rank value + 30 (McMahon zero at 30k), between the floor's and the bar's. MMS = start + wins +
½ per jigo + bye/absence points (their sum rounded down). SOS: opponents' MMS, corrected by the
handicap (+ stones when the player had White, - when Black), the player's own start score for
a round without a game. SOSOS: opponents' SOS, own start x rounds for a round without a game.
SODOS: corrected MMS of the opponents beaten, half for a jigo. Results are PGN-style: "1-0"
White won, "0-1" Black won.
"""

from __future__ import annotations

from typing import Any

import pytest
from builders import eid, recorded, result

from events_schema import Event
from events_schema import events as ev
from events_schema.go import GoSettings
from projections.pairing import base
from projections.standings import Crosstable, StandingsState, crosstable, explain, fold, standings
from projections.tiebreaks import REGISTRY, validate
from projections.tiebreaks.mcmahon import (
    go_scores,
    mcmahon_ranked,
    rank_value,
    shown,
    start_score,
    start_scores,
    supergroup,
    top_group,
)
from projections.tiebreaks.presets import PRESETS, chain_for, go_chain
from projections.tiebreaks.registry import resolve_params


def go_created(settings: GoSettings | None = None, **kw: Any) -> ev.TournamentCreated:
    kw.setdefault("format", "mcmahon")
    return ev.TournamentCreated(name="LGC Open", game="go", go=settings, **kw)


def go_player(pid: str, rank: str | None) -> ev.PlayerRegistered:
    return ev.PlayerRegistered(player_id=pid, name=pid.title(), go_rank=rank)


def rnd(n: int, *games: tuple[str, str, str, str], bye: tuple[str, ...] = ()) -> list[Event]:
    """Round n: games (id, White, Black, result) and their results, pairing-allocated byes."""
    out: list[Event] = [
        ev.RoundScheduled(
            round=n,
            pairings=[ev.Pairing(game_id=g, white=w, black=b) for g, w, b, _ in games],
            byes=[ev.Bye(player_id=p) for p in bye],
        )
    ]
    return out + [
        result(g, r, "resignation" if r != "1/2-1/2" else "counting") for g, *_, r in games
    ]


def state_of(*events: Event | list[Event]) -> StandingsState:
    flat: list[Event] = []
    for e in events:
        flat += e if isinstance(e, list) else [e]
    return fold(recorded("go-t1", flat))


def shown_of(ct: Crosstable, name: str) -> dict[str, str]:
    crit = REGISTRY[name]
    return {
        p: v.shown for p, v in crit.compute(ct, tuple(ct.players), resolve_params(crit, {})).items()
    }


# --- ranks, start scores, groups ------------------------------------------------------------


@pytest.mark.parametrize(
    ("rank", "value"),
    [
        ("30k", -30),
        ("10k", -10),
        ("1k", -1),
        ("1d", 0),
        ("9d", 8),
        ("1p", 6),  # OpenGotha convertKDPToInt: 1-3p as 7d
        ("3p", 6),
        ("4p", 7),
        ("9p", 8),
        ("5K", -5),
    ],
)
def test_rank_values_follow_opengotha(rank: str, value: int) -> None:
    assert rank_value(rank) == value


@pytest.mark.parametrize("bad", ["0k", "31k", "10d", "", "3x", "1 d"])
def test_a_malformed_rank_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="not a Go rank"):
        rank_value(bad)


def test_start_scores_from_rank_floor_and_bar() -> None:
    # OpenGotha: McMahon zero at 30k, so 30k starts on 0, 1k on 29, 1d on 30.
    default = GoSettings()
    assert [start_score(default, r) for r in ("30k", "1k", "1d", "5d")] == [0, 29, 30, 34]
    assert start_score(default, None) == 0  # no rank: the floor (30k)
    # Bar 3d (32), floor 20k (10): a 5d starts on the bar, a 25k on the floor.
    lgc = GoSettings(mcmahon_bar="3d", mcmahon_floor="20k")
    assert [start_score(lgc, r) for r in ("5d", "3d", "2d", "15k", "25k")] == [32, 32, 31, 15, 10]
    assert start_score(lgc, None) == 10


RANKS = {"a": "6d", "b": "5d", "c": "5d", "d": "4d", "e": "3d", "f": "2d", "g": "1d", "h": "5k"}


def test_the_supergroup_takes_whole_ranks_from_the_top() -> None:
    # Bar 3d (32). Size 3: 6d (a) and the two 5d (b, c) are three: they start on 33. The 4d
    # would make four, so the ranks below stay on the bar.
    s3 = GoSettings(mcmahon_bar="3d", supergroup_size=3)
    assert supergroup(s3, RANKS) == {"a", "b", "c"}
    assert start_scores(s3, RANKS) == {
        "a": 33, "b": 33, "c": 33, "d": 32, "e": 32, "f": 31, "g": 30, "h": 25,
    }  # fmt: skip
    # Size 2: 6d is one; the two 5d would make three, so the 5d stay on the bar.
    assert supergroup(GoSettings(mcmahon_bar="3d", supergroup_size=2), RANKS) == {"a"}
    # No bar, no supergroup.
    assert supergroup(GoSettings(supergroup_size=3), RANKS) == frozenset()


def test_top_groups_are_the_supergroup_the_bar_and_the_group_below() -> None:
    # LGC Top groups: supergroup (33: a, b, c), above the bar (32: d, e), just below (31: f).
    s = GoSettings(mcmahon_bar="3d", supergroup_size=3)
    assert top_group(s, RANKS) == {"a", "b", "c", "d", "e", "f"}
    # Two groups below the bar: 31 and 30 (g).
    assert top_group(s.model_copy(update={"top_groups_below_bar": 2}), RANKS) == {
        "a", "b", "c", "d", "e", "f", "g",
    }  # fmt: skip
    # None below: the supergroup and the bar group only.
    assert top_group(s.model_copy(update={"top_groups_below_bar": 0}), RANKS) == {
        "a", "b", "c", "d", "e",
    }  # fmt: skip


def test_the_group_just_below_the_bar_is_the_next_one_with_players() -> None:
    # Bar 3d; nobody is 2d or 1d: the next group down is the 5k (25).
    ranks = {"x": "4d", "y": "3d", "z": "5k", "w": "10k"}
    assert top_group(GoSettings(mcmahon_bar="3d"), ranks) == {"x", "y", "z"}
    # Without a bar the strongest group stands for the bar group: 4d (34), then 3d (33).
    assert top_group(GoSettings(), ranks) == {"x", "y"}
    assert top_group(GoSettings(), {}) == frozenset()


# --- T1: byes, an absence, a handicap game, a jigo ------------------------------------------
#
# Bar 1d (30), floor 20k (10). a 3d -> 30 (the bar), b 1d -> 30, c 2k -> 28, d 5k -> 25,
# e 25k -> 10 (the floor).
#
#        R1                 R2                          R3
#   a    b  W won           d  W lost (gave 2 stones)   c  W jigo
#   b    a  B lost          c  W won                    bye
#   c    d  W lost          b  B lost                   a  B jigo
#   d    c  B won           a  B won (took 2 stones)    e  W won
#   e    bye                skipped (RoundSkipped)      d  B lost
#
# MMS: a 30 + 1 + ½ = 31½; b 30 + 1 + bye 1 = 32; c 28 + ½ = 28½; d 25 + 3 = 28;
#      e 10 + (bye 1 + absence ½ = 1½, rounded down to 1) = 11.
# SOS (a gave d 2 stones in R2: for a, d's MMS + 2; for d, a's MMS - 2):
#      a: b 32 + (d 28 + 2) + c 28½ = 90½;   b: a 31½ + c 28½ + (bye: own start 30) = 90
#      c: d 28 + b 32 + a 31½ = 91½;         d: c 28½ + (a 31½ - 2) + e 11 = 69
#      e: (bye: own 10) + (absent: own 10) + d 28 = 48
# SOSOS (3 rounds): a: SOS of b 90 + d 69 + c 91½ = 250½;  b: a 90½ + c 91½ + own 30 x 3 = 272
#      c: d 69 + b 90 + a 90½ = 249½;  d: c 91½ + a 90½ + e 48 = 230
#      e: own 10 x 3 (bye) + own 10 x 3 (absent) + d 69 = 129
# SODOS: a: b 32 + ½ x c 28½ = 46¼;  b: c 28½;  c: ½ x a 31½ = 15¾;
#      d: c 28½ + (a 31½ - 2) + e 11 = 69;  e: 0

T1_SETTINGS = GoSettings(mcmahon_bar="1d", mcmahon_floor="20k")


def t1(settings: GoSettings = T1_SETTINGS, *extra: Event) -> StandingsState:
    return state_of(
        go_created(settings, rounds=3),
        *(
            go_player(p, r)
            for p, r in (("a", "3d"), ("b", "1d"), ("c", "2k"), ("d", "5k"), ("e", "25k"))
        ),
        rnd(1, ("g1", "a", "b", "1-0"), ("g2", "c", "d", "0-1"), bye=("e",)),
        ev.RoundSkipped(player_id="e", round=2),
        ev.RoundScheduled(
            round=2,
            pairings=[
                ev.Pairing(game_id="g3", white="b", black="c"),
                ev.Pairing(game_id="g4", white="a", black="d"),
            ],
        ),
        ev.GameStarted(game_id="g4", handicap=2),
        result("g3", "1-0"),
        result("g4", "0-1"),
        rnd(3, ("g5", "a", "c", "1/2-1/2"), ("g6", "d", "e", "1-0"), bye=("b",)),
        *extra,
    )


def test_t1_mcmahon_scores() -> None:
    ct = crosstable(t1())
    assert ct.skipped == {"e": frozenset({2})}
    assert [g.handicap for g in ct.games] == [0, 0, 0, 2, 0, 0]
    assert go_scores(ct).start == {"a": 30, "b": 30, "c": 28, "d": 25, "e": 10}
    assert shown_of(ct, "mms") == {"a": "31½", "b": "32", "c": "28½", "d": "28", "e": "11"}


def test_t1_without_rounding_down_keeps_the_half_point_of_the_absence() -> None:
    ct = crosstable(t1(T1_SETTINGS.model_copy(update={"round_down": False})))
    assert shown_of(ct, "mms")["e"] == "11½"  # 10 + 1 (bye) + ½ (absence)


def test_t1_sos_counts_the_own_start_score_and_corrects_the_handicap() -> None:
    ct = crosstable(t1())
    assert shown_of(ct, "sos") == {"a": "90½", "b": "90", "c": "91½", "d": "69", "e": "48"}


def test_t1_sosos() -> None:
    ct = crosstable(t1())
    assert shown_of(ct, "sosos") == {"a": "250½", "b": "272", "c": "249½", "d": "230", "e": "129"}


def test_t1_sodos_counts_half_for_a_jigo() -> None:
    ct = crosstable(t1())
    assert shown_of(ct, "sodos") == {"a": "46¼", "b": "28½", "c": "15¾", "d": "69", "e": "0"}


def test_t1_standings_rank_by_mms_not_by_game_points() -> None:
    # Game points: d won 3 games, a 1½ (with the jigo), yet a's MMS is higher.
    table = standings(t1())
    assert table.by_chain
    assert [s.name for s in table.chain.specs] == ["mms", "sos", "sosos", "shared-place"]
    assert [(r.place, r.player_id, r.decided_by) for r in table.rows] == [
        (1, "b", ""),
        (2, "a", "MMS 32–31½"),
        (3, "c", "MMS 31½–28½"),
        (4, "d", "MMS 28½–28"),
        (5, "e", "MMS 28–11"),
    ]
    assert dict(table.rows[0].tiebreaks) == {"mms": "32", "sos": "90", "sosos": "272"}
    assert table.rows[3].score == "3"  # d's games: the table still shows them


def test_retracting_a_skip_takes_its_absence_away() -> None:
    state = t1()
    skip_id = next(eid for eid, v in state.skipped.items() if v == ("e", 2))
    again = t1(T1_SETTINGS, ev.EventRetracted(retracted_event_id=skip_id, reason="came after all"))
    ct = crosstable(again)
    assert ct.skipped == {}
    # e: 10 + bye 1 (the absence gone) = 11 still; SOS: the R2 round is "not paired", still
    # e's own start score (OpenGotha counts every round without a game alike).
    assert shown_of(ct, "mms")["e"] == "11"
    ct_nr = crosstable(
        t1(
            T1_SETTINGS.model_copy(update={"round_down": False}),
            ev.EventRetracted(retracted_event_id=skip_id, reason="came after all"),
        )
    )
    assert shown_of(ct_nr, "mms")["e"] == "11"  # 10 + 1: no ½ without the notice


def test_a_repeated_skip_has_no_effect_and_its_retraction_undoes_nothing() -> None:
    # As the decider reads it (round.already_skipped): the first notice stays in force.
    events: list[Event] = [
        go_created(T1_SETTINGS),
        go_player("e", "25k"),
        ev.RoundSkipped(player_id="e", round=2),  # seq 3
        ev.RoundSkipped(player_id="e", round=2, notice="exceptional", reason="twice"),  # seq 4
    ]
    assert list(state_of(*events).skipped.items()) == [(eid(3), ("e", 2))]
    undone = state_of(*events, ev.EventRetracted(retracted_event_id=eid(4), reason="repeat"))
    assert crosstable(undone).skipped == {"e": frozenset({2})}
    gone = state_of(*events, ev.EventRetracted(retracted_event_id=eid(3), reason="came"))
    assert crosstable(gone).skipped == {}


def test_retracting_a_handicap_start_takes_the_correction_away() -> None:
    state = t1()
    start_id = next(eid for eid, gid in state.start_game.items() if gid == "g4")
    ct = crosstable(t1(T1_SETTINGS, ev.EventRetracted(retracted_event_id=start_id, reason="x")))
    # a: b 32 + d 28 (no stones) + c 28½ = 88½; d: c 28½ + a 31½ + e 11 = 71
    assert shown_of(ct, "sos")["a"] == "88½"
    assert shown_of(ct, "sos")["d"] == "71"


def test_the_pairing_context_knows_the_skip_and_the_rank() -> None:
    state = state_of(
        go_created(T1_SETTINGS, rounds=3),
        go_player("a", "3d"),
        go_player("e", "25k"),
        ev.RoundSkipped(player_id="e", round=1),
        ev.RoundSkipped(player_id="e", round=3),
        rnd(1, bye=("a",)),
    )
    ctx = base.context(state)
    assert ctx.round == 2
    assert ctx.skipped == {1: frozenset({"e"}), 3: frozenset({"e"})}
    e = ctx.players["e"]
    assert e.go_rank == "25k" and e.skipped == {1, 3}
    assert [(r.round, r.kind, r.points) for r in e.rounds] == [(1, "absent", 0)]


# --- T2: shared places -----------------------------------------------------------------------
#
# Four 1k (29 each, default settings), one round: a beats b, c beats d.
# MMS: a 30, c 30, b 29, d 29. SOS: a 29, c 29, b 30, d 30. SOSOS: a = SOS(b) 30, c = SOS(d) 30.
# a and c are level on every criterion: they share 1st; b and d share 3rd.


def t2() -> StandingsState:
    return state_of(
        go_created(None),
        *(go_player(p, "1k") for p in "abcd"),
        rnd(1, ("g1", "a", "b", "1-0"), ("g2", "d", "c", "0-1")),
    )


def test_t2_players_still_level_share_the_place() -> None:
    table = standings(t2())
    assert [(r.place, r.player_id, r.shared, r.decided_by) for r in table.rows] == [
        (1, "a", True, ""),
        (1, "c", True, "shared"),
        (3, "b", True, "MMS 30–29"),
        (3, "d", True, "shared"),
    ]


def test_t2_explain_walks_the_chain_without_a_points_step() -> None:
    steps = explain(standings(t2()), "a", "c")
    assert [(s["criterion"], s["a"], s["c"], s["separates"]) for s in steps] == [
        ("mms", "30", "30", False),
        ("sos", "29", "29", False),
        ("sosos", "30", "30", False),
    ]


def test_the_tournament_criteria_make_the_chain() -> None:
    settings = GoSettings(criteria=["MMS", "SODOS", "SOS"])
    state = state_of(go_created(settings), *(go_player(p, "1k") for p in "ab"))
    assert [s.name for s in standings(state).chain.specs] == ["mms", "sodos", "sos", "shared-place"]
    assert [s.name for s in go_chain(settings).specs] == ["mms", "sodos", "sos", "shared-place"]


def test_the_lgc_preset_and_what_ranks_by_mcmahon() -> None:
    assert [s.name for s in PRESETS["lgc"].specs] == ["mms", "sos", "sosos", "shared-place"]
    assert chain_for("lgc", [], None) == PRESETS["lgc"]
    assert validate(list(PRESETS["lgc"].specs)) == []
    assert mcmahon_ranked(go_created(None))
    assert mcmahon_ranked(go_created(None, format="swiss", pairing="mcmahon"))
    assert mcmahon_ranked(go_created(None, format="round_robin", rules_preset="lgc"))
    assert not mcmahon_ranked(go_created(None, format="round_robin"))
    chess = ev.TournamentCreated(name="Open", format="swiss")
    assert not mcmahon_ranked(chess)


def test_explicit_tiebreaks_replace_the_go_criteria() -> None:
    state = state_of(
        go_created(None, tiebreaks=[ev.TiebreakSpec(name="mms"), ev.TiebreakSpec(name="sodos")]),
        *(go_player(p, "1k") for p in "ab"),
    )
    assert [s.name for s in standings(state).chain.specs] == ["mms", "sodos"]


def test_every_go_criterion_is_documented_and_cites_opengotha() -> None:
    for name in ("mms", "sos", "sosos", "sodos"):
        crit = REGISTRY[name]
        assert crit.doc and crit.source.startswith("OpenGotha"), name
        assert not crit.group_relative


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ((61, 2), "30½"),
        ((185, 4), "46¼"),
        ((3, 4), "¾"),
        ((0, 1), "0"),
        ((-5, 2), "-2½"),
        ((1, 3), "1/3"),
    ],
)
def test_points_are_shown_as_go_tables_show_them(value: tuple[int, int], text: str) -> None:
    from fractions import Fraction

    assert shown(Fraction(*value)) == text
