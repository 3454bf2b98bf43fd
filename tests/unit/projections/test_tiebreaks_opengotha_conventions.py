"""OpenGotha's ranking conventions where the London Go Centre seed is silent, each a named
setting of `events_schema.go.GoSettings` (default: Arbiter's behaviour before them), computed
in `projections/tiebreaks/mcmahon.py`. Every expected value below is worked by hand from
OpenGotha's source (Luc Vannier, `info.vannier.gotha`):

- `Player.smms`: start score = rank - McMahon zero (30k), framed by floor and bar, then
  `smms += smmsCorrection` (range `PlacementParameterSet.PLA_SMMS_CORR_MIN` -1 ..
  `PLA_SMMS_CORR_MAX` 2);
- `Tournament.fillBaseScoringInfoIfNecessary`: step 1 marks a player PAIRED in a round with
  a game whatever its result (RESULT_UNKNOWN included); step 2 gives a win 2 half-points,
  RESULT_EQUAL 1 each, RESULT_BOTHWIN 2 each, RESULT_BOTHLOSE and RESULT_UNKNOWN nothing;
  step 4.2 sums the opponents' MMS (own start score for a round not PAIRED), corrected by the
  handicap; step 5 sums the opponents' SOS;
- step "2bis" with `genCountNotPlayedGamesAsHalfPoint` (`bVirtual`): the opponents' scores
  read in SOS/SODOS are the virtual ones, start + points of the games played over the board
  + ½ per round with no game played (`ScoredPlayer.gameWasPlayed`: no game, bye, absence, a
  "_BYDEF" forfeit, RESULT_UNKNOWN).

Players (no bar, floor 30k, McMahon zero 30k): a 1d starts on 30, b 1k on 29, c 2k on 28,
d 3k on 27. Results are PGN-style: "1-0" White won.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import pydantic
import pytest
from builders import created as created_as
from builders import player, recorded, result, round_
from given_when_then import then_accepted, then_rejected

from events_schema import Event
from events_schema import events as ev
from events_schema.go import GoSettings
from projections.standings import StandingsState, crosstable, fold, standings
from projections.tiebreaks.mcmahon import go_scores, start_scores, virtual_mms

RANKS = {"a": "1d", "b": "1k", "c": "2k", "d": "3k"}


def created(settings: GoSettings) -> ev.TournamentCreated:
    return ev.TournamentCreated(name="Go Open", game="go", format="mcmahon", go=settings)


def players(*pids: str) -> list[Event]:
    return [ev.PlayerRegistered(player_id=p, name=p.title(), go_rank=RANKS[p]) for p in pids]


def rnd(
    n: int,
    *games: tuple[str, str, str, str | None],
    bye: tuple[str, ...] = (),
    term: str | None = None,
) -> list[Event]:
    """Round n: games (id, White, Black, result or None: not entered), pairing byes."""
    out: list[Event] = [
        ev.RoundScheduled(
            round=n,
            pairings=[ev.Pairing(game_id=g, white=w, black=b) for g, w, b, _ in games],
            byes=[ev.Bye(player_id=p) for p in bye],
        )
    ]
    return out + [result(g, r, term) for g, _, _, r in games if r is not None]


def state(settings: GoSettings, *events: list[Event]) -> StandingsState:
    flat: list[Event] = [created(settings), *players("a", "b", "c", "d")]
    for e in events:
        flat += e
    return fold(recorded("og-t1", flat))


def scores(st: StandingsState, name: str) -> dict[str, Fraction]:
    s = go_scores(crosstable(st))
    return {p: s.value(name, p) for p in sorted(s.mms)}


def F(n: int, d: int = 1) -> Fraction:
    return Fraction(n, d)


# --- 1. per-player start score corrections (OpenGotha smmsCorrection) ----------------------


def test_a_start_score_correction_is_added_after_the_bar() -> None:
    # Bar 1k: a (1d) is framed to 29 then corrected +1 = 30 (a supergroup of one, OpenGotha's
    # way); d (3k) 27 - 1 = 26; b and c keep 29 and 28.
    settings = GoSettings(mcmahon_bar="1k", start_score_corrections={"a": 1, "d": -1})
    assert start_scores(settings, RANKS) == {"a": 30, "b": 29, "c": 28, "d": 26}
    # Round 1: a beats b, d beats c. MMS = start + wins; SOS = the opponent's MMS.
    st = state(settings, rnd(1, ("g1", "a", "b", "1-0"), ("g2", "c", "d", "0-1")))
    assert scores(st, "MMS") == {"a": 31, "b": 29, "c": 28, "d": 27}
    assert scores(st, "SOS") == {"a": 29, "b": 31, "c": 27, "d": 28}
    # Without the corrections a and b start level on the bar (29) and d on 27.
    plain = state(GoSettings(mcmahon_bar="1k"), rnd(1, ("g1", "a", "b", "1-0")))
    assert scores(plain, "MMS")["a"] == 30


def test_a_correction_of_a_player_never_registered_is_not_read() -> None:
    settings = GoSettings(start_score_corrections={"zz": 2})
    assert start_scores(settings, RANKS) == {"a": 30, "b": 29, "c": 28, "d": 27}


# --- 2. results besides win and loss ------------------------------------------------------


def test_both_lose_scores_nothing_and_keeps_the_opponent_in_sos() -> None:
    # RESULT_BOTHLOSE ("0-0"): step 2 adds nothing; step 1 keeps both PAIRED, so each one's
    # SOS is the other's MMS; SODOS (opponents beaten) stays 0.
    st = state(GoSettings(), rnd(1, ("g1", "a", "b", "0-0"), ("g2", "c", "d", "1-0")))
    assert scores(st, "MMS") == {"a": 30, "b": 29, "c": 29, "d": 27}
    assert scores(st, "SOS") == {"a": 29, "b": 30, "c": 27, "d": 29}
    assert scores(st, "SODOS") == {"a": 0, "b": 0, "c": 27, "d": 0}


def test_both_win_scores_a_win_for_each_and_each_counts_as_beaten() -> None:
    # RESULT_BOTHWIN ("1-1"): step 2 gives each 2 half-points; getWX2 is 2 for both, so each
    # one's SODOS counts the other's MMS. a 30+1 = 31, b 29+1 = 30.
    st = state(GoSettings(), rnd(1, ("g1", "a", "b", "1-1"), ("g2", "c", "d", "1-0")))
    assert scores(st, "MMS") == {"a": 31, "b": 30, "c": 29, "d": 27}
    assert scores(st, "SOS") == {"a": 30, "b": 31, "c": 27, "d": 29}
    assert scores(st, "SODOS") == {"a": 30, "b": 31, "c": 27, "d": 0}


GO_GAME: list[Event] = [
    created_as("go", "mcmahon"),
    player("a"),
    player("b"),
    round_(1, ("g1", "a", "b")),
]


@pytest.mark.parametrize("how", ["arbiter_decision", "forfeit", "other", "adjudication"])
def test_given_a_go_game_when_both_are_given_the_win_by_a_decision_then_it_stands(
    how: str,
) -> None:
    then_accepted(GO_GAME, result("g1", "1-1", how))


def test_given_a_go_game_when_both_win_by_a_count_then_it_is_refused() -> None:
    then_rejected(
        GO_GAME,
        result("g1", "1-1", "counting"),
        "result.termination_mismatch",
        "payload.termination",
    )


def test_given_a_chess_game_when_both_win_then_it_is_refused_as_go_only() -> None:
    chess = [created_as("chess", "swiss"), player("a"), player("b"), round_(1, ("g1", "a", "b"))]
    then_rejected(chess, result("g1", "1-1", "other"), "result.both_win_go_only", "payload.result")


GAME_WITHOUT_RESULT = rnd(1, ("g1", "a", "b", "1-0"), ("g2", "c", "d", None))


def test_by_default_a_game_without_result_is_a_round_without_a_game() -> None:
    st = state(GoSettings(), GAME_WITHOUT_RESULT)
    # c and d: no points, and their own start score in SOS (a round not paired).
    assert scores(st, "MMS") == {"a": 31, "b": 29, "c": 28, "d": 27}
    assert scores(st, "SOS") == {"a": 29, "b": 31, "c": 28, "d": 27}


def test_opengotha_counts_a_game_without_result_as_played_with_no_points() -> None:
    # RESULT_UNKNOWN: PAIRED (step 1), no points (step 2): c's SOS is d's MMS 27 and d's is
    # c's 28; SOSOS sums the opponent's SOS (c: d's 28; d: c's 27); nothing is beaten.
    st = state(GoSettings(unentered_results="opengotha"), GAME_WITHOUT_RESULT)
    assert scores(st, "MMS") == {"a": 31, "b": 29, "c": 28, "d": 27}
    assert scores(st, "SOS") == {"a": 29, "b": 31, "c": 27, "d": 28}
    assert scores(st, "SOSOS") == {"a": 31, "b": 29, "c": 28, "d": 27}
    assert scores(st, "SODOS") == {"a": 29, "b": 0, "c": 0, "d": 0}


def test_the_result_entered_later_replaces_the_unknown_one() -> None:
    st = state(
        GoSettings(unentered_results="opengotha"), GAME_WITHOUT_RESULT, [result("g2", "0-1")]
    )
    assert scores(st, "MMS") == {"a": 31, "b": 29, "c": 28, "d": 28}
    assert scores(st, "SOS") == {"a": 29, "b": 31, "c": 28, "d": 28}


# --- 3. virtual scores of unplayed rounds (genCountNotPlayedGamesAsHalfPoint) -------------

# Three players; round 1: a beats b, c has the pairing bye (1 point); round 2: a beats c,
# b has the bye. Real MMS: a 30+2 = 32, b 29+0+1 = 30, c 28+1+0 = 29.
# Virtual MMS: a 30+2 = 32; b 29 + 0 + ½ (round 2 not played) = 29½; c 28 + ½ + 0 = 28½.
THREE = (
    rnd(1, ("g1", "a", "b", "1-0"), bye=("c",)),
    rnd(2, ("g2", "a", "c", "1-0"), bye=("b",)),
)


def three(settings: GoSettings, *extra: list[Event]) -> StandingsState:
    flat: list[Event] = [created(settings), *players("a", "b", "c")]
    for e in (*THREE, *extra):
        flat += e
    return fold(recorded("og-t2", flat))


def test_without_virtual_scores_sos_reads_the_real_mms() -> None:
    st = three(GoSettings())
    assert scores(st, "MMS") == {"a": 32, "b": 30, "c": 29}
    # SOS: a = b 30 + c 29; b = a 32 + own start 29 (bye); c = own 28 (bye) + a 32.
    assert scores(st, "SOS") == {"a": 59, "b": 61, "c": 60}
    assert scores(st, "SODOS") == {"a": 59, "b": 0, "c": 0}
    # SOSOS: a = 61 + 60; b = a's 59 + own start 29 x 2 rounds; c = 28 x 2 + 59.
    assert scores(st, "SOSOS") == {"a": 121, "b": 117, "c": 115}


def test_virtual_scores_count_an_unplayed_round_as_half_a_point() -> None:
    st = three(GoSettings(count_not_played_as_half_point=True))
    # The player's own MMS does not change; the opponents' scores read are virtual.
    assert scores(st, "MMS") == {"a": 32, "b": 30, "c": 29}
    assert scores(st, "SOS") == {"a": F(58), "b": 61, "c": 60}  # 29½ + 28½ = 58
    assert scores(st, "SODOS") == {"a": 58, "b": 0, "c": 0}
    assert scores(st, "SOSOS") == {"a": 121, "b": 116, "c": 114}


def test_a_forfeit_is_not_a_game_played_in_the_virtual_score() -> None:
    # Round 2's game is a forfeit win for a ("_BYDEF"): its MMS keeps the point (step 2),
    # but its virtual score counts the round as unplayed: 30 + 1 (round 1) + ½ = 31½; c's
    # virtual score 28 + ½ + ½ = 29. SOS: a = 29½ + 29 = 58½; b = 31½ + own 29 = 60½;
    # c = own 28 (bye) + 31½ = 59½.
    flat: list[Event] = [
        created(GoSettings(count_not_played_as_half_point=True)),
        *players("a", "b", "c"),
        *THREE[0],
        *rnd(2, ("g2", "a", "c", "1-0"), bye=("b",), term="forfeit"),
    ]
    st = fold(recorded("og-t3", flat))
    ct = crosstable(st)
    s = go_scores(ct)
    assert virtual_mms(s.start["a"], s.records["a"]) == F(63, 2)
    assert virtual_mms(s.start["c"], s.records["c"]) == 29
    assert scores(st, "MMS") == {"a": 32, "b": 30, "c": 29}
    assert scores(st, "SOS") == {"a": F(117, 2), "b": F(121, 2), "c": F(119, 2)}


# --- the settings: given a file, when read, then each mistake named ---------------------


def test_settings_default_to_arbiters_behaviour() -> None:
    s = GoSettings()
    assert s.start_score_corrections == {}
    assert s.unentered_results == "not_counted"
    assert s.count_not_played_as_half_point is False
    assert s.hide_players_never_paired is False


@pytest.mark.parametrize(
    ("raw", "where", "message"),
    [
        ({"start_score_corrections": {"a": 3}}, "start_score_corrections.a", "less than or"),
        ({"start_score_corrections": {"a": -2}}, "start_score_corrections.a", "greater than"),
        ({"start_score_corrections": {"a b": 1}}, "start_score_corrections", "pattern"),
        ({"unentered_results": "later"}, "unentered_results", "not_counted"),
        ({"count_not_played_as_half_point": "maybe"}, "count_not_played_as_half_point", "bool"),
        (
            {"start_score_corrections": {"a": 1}, "supergroup_size": 2},
            "",
            "give one or the other",
        ),
    ],
)
def test_given_a_settings_file_when_read_then_the_mistake_is_named(
    raw: dict[str, Any], where: str, message: str
) -> None:
    with pytest.raises(pydantic.ValidationError) as info:
        GoSettings.model_validate(raw)
    errors = info.value.errors()
    assert any(
        ".".join(str(x) for x in e["loc"]).startswith(where) and message in e["msg"] for e in errors
    ), errors


def test_given_no_tournament_when_created_with_the_conventions_then_they_are_stored() -> None:
    settings = GoSettings(
        start_score_corrections={"a": 2, "b": -1},
        unentered_results="opengotha",
        count_not_played_as_half_point=True,
        hide_players_never_paired=True,
    )
    then_accepted([], created(settings).model_copy(update={"tiebreak_edition": "2026"}))


def test_the_standings_follow_the_settings() -> None:
    st = state(GoSettings(unentered_results="opengotha"), GAME_WITHOUT_RESULT)
    rows = {r.player_id: r for r in standings(st).rows}
    assert [r.player_id for r in standings(st).rows] == ["a", "b", "c", "d"]
    assert rows["c"].place == 3


# --- 5. players never paired left out of the standings (a display choice) ------------------

# Round 1: b beats c, d has the pairing bye; a (the strongest, start 30) is never paired.
# MMS: a 30 (start), b 29+1 = 30, c 28, d 27+1 = 28. SOS: a 30 (own start), b 28 (c's MMS),
# c 30 (b's), d 27 (own start, the bye round). Chain MMS, SOS, SOSOS: a, b, c, d.
NEVER_PAIRED = rnd(1, ("g1", "b", "c", "1-0"), bye=("d",))


def places(st: StandingsState) -> dict[str, int]:
    return {r.player_id: r.place for r in standings(st).rows}


def test_by_default_every_player_is_in_the_standings() -> None:
    assert places(state(GoSettings(), NEVER_PAIRED)) == {"a": 1, "b": 2, "c": 3, "d": 4}


def test_players_never_paired_can_be_left_out_and_the_places_counted_without_them() -> None:
    # OpenGotha (displayNPPlayers false) removes the players not `isPlayerImplied` (no game,
    # no pairing bye) and numbers the places of the rest: b 1, c 2, d 3 (d, with the bye, is
    # implied). The scores are unchanged.
    st = state(GoSettings(hide_players_never_paired=True), NEVER_PAIRED)
    assert places(st) == {"b": 1, "c": 2, "d": 3}
    assert scores(st, "MMS") == {"a": 30, "b": 30, "c": 28, "d": 28}


def test_a_game_without_result_yet_is_enough_to_be_shown() -> None:
    st = state(
        GoSettings(hide_players_never_paired=True),
        NEVER_PAIRED,
        rnd(2, ("g2", "a", "d", None), ("g3", "c", "b", None)),
    )
    assert set(places(st)) == {"a", "b", "c", "d"}


# --- 4. direct confrontation (DC) and the Rating criterion ---------------------------------


def field(settings: GoSettings, ranks: dict[str, str], *events: list[Event], **ratings: int):
    flat: list[Event] = [created(settings)]
    flat += [
        ev.PlayerRegistered(player_id=p, name=p.title(), go_rank=r, rating=ratings.get(p))
        for p, r in ranks.items()
    ]
    for e in events:
        flat += e
    return fold(recorded("og-t4", flat))


def order(st: StandingsState) -> list[tuple[int, str]]:
    return [(r.place, r.player_id) for r in standings(st).rows]


# a and b 5k (25), c 4k (26), d 6k (24). Round 1: a beats b, c beats d; round 2: b beats c,
# d beats a. MMS: a 26, b 26, c 27, d 25. a and b are level: b's SOS (a 26 + c 27 = 53) is
# above a's (b 26 + d 25 = 51), but a beat b.
DC_RANKS = {"a": "5k", "b": "5k", "c": "4k", "d": "6k"}
DC_ROUNDS = (
    rnd(1, ("g1", "a", "b", "1-0"), ("g2", "c", "d", "1-0")),
    rnd(2, ("g3", "b", "c", "1-0"), ("g4", "a", "d", "0-1")),
)


def test_without_dc_sos_decides_between_the_level_players() -> None:
    st = field(GoSettings(criteria=["MMS", "SOS"]), DC_RANKS, *DC_ROUNDS)
    assert order(st) == [(1, "c"), (2, "b"), (3, "a"), (4, "d")]


def test_dc_places_the_winner_of_the_game_between_level_players_first() -> None:
    st = field(GoSettings(criteria=["MMS", "DC", "SOS"]), DC_RANKS, *DC_ROUNDS)
    assert order(st) == [(1, "c"), (2, "a"), (3, "b"), (4, "d")]
    steps = explainable(st, "a", "b")
    assert steps[-1]["criterion"] == "dc" and (steps[-1]["a"], steps[-1]["b"]) == ("1", "0")


def explainable(st: StandingsState, a: str, b: str) -> list[dict[str, Any]]:
    from projections.standings import explain

    return explain(standings(st), a, b)


def test_confrontation_ranks_walraets_own_example() -> None:
    # mw.go.confrontation.Confrontation.main: sc 1:4 2:3 3:4 4:4 5:1 6:2; 3 beat 1, 1 beat 2,
    # 2 beat 3 (a cycle), 1 and 3 beat 4, 5 beat 2. By hand: the cycle {1,2,3} is one class
    # that beat 4 and lost to 5. From the bottom: 4 and 6 beat nobody, 6 has the lower sc:
    # rank 6; then 4: rank 5; then the class (4 gone, it beats nobody left): 2 has the lowest
    # sc, rank 4; 1 and 3 level on sc: rank 2 both; 5 last left: rank 1.
    from projections.tiebreaks.mcmahon import confrontation_ranks

    sc = {"1": 4, "2": 3, "3": 4, "4": 4, "5": 1, "6": 2}
    beat = {"3": {"1", "4"}, "1": {"2", "4"}, "2": {"3"}, "5": {"2"}}
    assert confrontation_ranks(sc, beat) == {"5": 1, "1": 2, "3": 2, "2": 4, "4": 5, "6": 6}


def test_three_level_players_in_a_cycle_of_wins_stay_level_on_dc() -> None:
    # x, y, z, w all 5k (25). x beats y, y beats z, z beats x, and each beats w: x, y and z
    # are level on MMS 27 and their games form a cycle (OpenGotha `detectCycles`: one class,
    # its games ignored): DC 0 each; SOS is 79 each and SOSOS too, so they share 1st place.
    ranks = {"x": "5k", "y": "5k", "z": "5k", "w": "5k"}
    st = field(
        GoSettings(criteria=["MMS", "DC", "SOS", "SOSOS"]),
        ranks,
        rnd(1, ("g1", "x", "y", "1-0"), ("g2", "z", "w", "1-0")),
        rnd(2, ("g3", "y", "z", "1-0"), ("g4", "x", "w", "1-0")),
        rnd(3, ("g5", "z", "x", "1-0"), ("g6", "y", "w", "1-0")),
    )
    assert order(st) == [(1, "x"), (1, "y"), (1, "z"), (4, "w")]


def test_dc_lets_a_game_lift_a_player_above_a_better_secondary_score() -> None:
    # Three level players p, q, r; p beat q, r met neither; sc (the criteria after DC) as
    # given. By hand, bottom up (the lowest sc among those who beat nobody left):
    from projections.tiebreaks.mcmahon import confrontation_ranks

    # sc p 2, q 1, r 3: q and r beat nobody, q lower: 3rd; then p (2) below r (3).
    assert confrontation_ranks({"p": 2, "q": 1, "r": 3}, {"p": {"q"}}) == {"r": 1, "p": 2, "q": 3}
    # sc p 1, q 2, r 3: q and r beat nobody, q lower: 3rd; p (1) then r (3): r 1st, p 2nd.
    assert confrontation_ranks({"p": 1, "q": 2, "r": 3}, {"p": {"q"}}) == {"r": 1, "p": 2, "q": 3}
    # sc p 1, q 3, r 2: q and r beat nobody, r lower: 3rd; then q (3) still below p who beat
    # it: q 2nd, p 1st although its sc is the lowest.
    assert confrontation_ranks({"p": 1, "q": 3, "r": 2}, {"p": {"q"}}) == {"p": 1, "q": 2, "r": 3}


def test_rating_orders_players_level_on_mms() -> None:
    # a and b level on MMS (25 + 1 each); a rated 1650, b without a rating: OpenGotha gives b
    # the rating of its rank, (-5 + 30) x 100 - 900 = 1600.
    ranks = {"a": "5k", "b": "5k", "c": "5k", "d": "5k"}
    st = field(
        GoSettings(criteria=["MMS", "RATING"]),
        ranks,
        rnd(1, ("g1", "a", "c", "1-0"), ("g2", "b", "d", "1-0")),
        a=1650,
        c=1700,
    )
    assert order(st) == [(1, "a"), (2, "b"), (3, "c"), (4, "d")]
    rows = {r.player_id: r for r in standings(st).rows}
    assert rows["b"].tiebreaks == (("mms", "26"), ("rating", "1600"))


# --- 6. the Swiss system for Go: NBW, SOSW, SOSOSW, SODOSW ---------------------------------

SWISS = GoSettings(criteria=["NBW", "SOSW", "SOSOSW"])  # OpenGotha PlacementParameterSet
# initForSwiss


def swiss(settings: GoSettings, *extra: list[Event]) -> StandingsState:
    flat: list[Event] = [
        ev.TournamentCreated(name="Go Swiss", game="go", format="swiss", go=settings),
        *players("a", "b", "c"),
    ]
    for e in (*THREE, *extra):
        flat += e
    return fold(recorded("og-t5", flat))


def test_swiss_criteria_count_wins_with_their_own_bye_points() -> None:
    # THREE: a beats b (round 1) and c (round 2); c then b have the pairing bye, worth 1 NBW
    # point (OpenGotha genNBW2ValueBye 2). NBW: a 2, b 0 + 1 = 1, c 1 + 0 = 1 (no start score).
    # SOSW (opponents' NBW, a round without a game 0): a = 1 + 1, b = 2, c = 2.
    # SOSOSW: a = SOSW(b) + SOSW(c) = 4; b = SOSW(a) = 2; c = 2. SODOSW: a beat both: 1 + 1.
    st = swiss(SWISS)
    assert scores(st, "NBW") == {"a": 2, "b": 1, "c": 1}
    assert scores(st, "SOSW") == {"a": 2, "b": 2, "c": 2}
    assert scores(st, "SOSOSW") == {"a": 4, "b": 2, "c": 2}
    assert scores(st, "SODOSW") == {"a": 2, "b": 0, "c": 0}
    # The McMahon scores keep their own bye points: b 29 + 1, c 28 + 1.
    assert scores(st, "MMS") == {"a": 32, "b": 30, "c": 29}
    # Ranked by NBW first, the chain alone: a, then b and c level on every criterion.
    assert order(st) == [(1, "a"), (2, "b"), (2, "c")]


def test_swiss_bye_and_absence_points_are_settings_apart_from_the_mcmahon_ones() -> None:
    st = swiss(GoSettings(criteria=["NBW", "SOSW"], nbw_bye_points=Decimal("0")))
    assert scores(st, "NBW") == {"a": 2, "b": 0, "c": 0}
    assert scores(st, "SOSW") == {"a": 0, "b": 2, "c": 2}
    assert scores(st, "MMS") == {"a": 32, "b": 30, "c": 29}  # bye_points still 1


def test_swiss_criteria_read_virtual_scores_too() -> None:
    # Virtual NBW (no start score): a 2, b 0 + ½, c ½ + 0: a's SOSW = ½ + ½ = 1.
    st = swiss(GoSettings(criteria=["NBW", "SOSW"], count_not_played_as_half_point=True))
    assert scores(st, "SOSW") == {"a": 1, "b": 2, "c": 2}
    assert scores(st, "SODOSW") == {"a": 1, "b": 0, "c": 0}


def test_a_go_swiss_without_nbw_first_is_ranked_as_before() -> None:
    from projections.tiebreaks.mcmahon import mcmahon_ranked

    plain = ev.TournamentCreated(name="Go Swiss", game="go", format="swiss")
    assert not mcmahon_ranked(plain)
    assert mcmahon_ranked(plain.model_copy(update={"go": SWISS}))


def test_dc_counts_only_a_net_single_win_as_opengotha_does() -> None:
    # OpenGotha's pair matrix sums +1 per win (no jigo, no forfeit) and makes an edge only
    # where the sum is exactly 1 (`pair[i][j] == 1`): a won twice against b, so no edge, and
    # DC leaves them level; one win and one forfeit win make a single win: a above b.
    from projections.tiebreaks.mcmahon import direct_confrontation

    ranks = {"a": "5k", "b": "5k"}
    twice = field(
        GoSettings(criteria=["MMS", "DC"]),
        ranks,
        rnd(1, ("g1", "a", "b", "1-0")),
        rnd(2, ("g2", "b", "a", "0-1")),
    )
    assert direct_confrontation(crosstable(twice), ["a", "b"]) == {"a": 0, "b": 0}
    once = field(
        GoSettings(criteria=["MMS", "DC"]),
        ranks,
        rnd(1, ("g1", "a", "b", "1-0")),
        rnd(2, ("g2", "b", "a", "0-1"), term="forfeit"),
    )
    assert direct_confrontation(crosstable(once), ["a", "b"]) == {"a": 1, "b": 0}
