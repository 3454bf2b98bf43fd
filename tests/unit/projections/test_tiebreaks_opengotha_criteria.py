"""OpenGotha's placement criteria beyond MMS/SOS/SOSOS/SODOS/DC/Rating and the Swiss four
(issue 26): SOSM-1, SOSM-2, SOSW-1, SOSW-2, CUSSM, CUSSW, STS, SOSTS, EXT, EXR, SDC, Rank, CAT
and CPS, computed in `projections/tiebreaks/mcmahon.py`. Every expected value is worked by hand from
OpenGotha's source (Luc Vannier, `info.vannier.gotha`):

- `Tournament.fillBaseScoringInfoIfNecessary` step 2 (NBW, MMS after each round), 2b (STS),
  3 (CUSSW, CUSSM: the sum of the scores after each round), 4.1 (SOSW, SOSW-1, SOSW-2: the
  per-round opponent NBW, 0 for a round without a game), 4.2 (SOSM, SOSM-1, SOSM-2, SOSTS:
  the per-round opponent MMS or STS, handicap-corrected, own start score for a round without
  a game; the M1/M2 values only stored from the third round), 6 (EXT, EXR);
- `Tournament.defineDirForExAequoGroup` "SDC Algorithm";
- `ScoredPlayer.getCritValue` PLA_CRIT_RANK (`getRank()`), PLA_CRIT_CAT (`- category`,
  `Player.category`), PLA_CRIT_CPS (`cpsX2`, step 2).

Players: a 1d (start 30), b 1k (29), c 2k (28), d 3k (27): no bar, floor 30k, zero 30k.
Results are PGN-style: "1-0" White won.

The main field, MAIN, all games even:
  round 1: a (W) beats b, d (B) beats c;
  round 2: c (B) beats a, b (W) beats d;
  round 3: a (W) beats d, b (W) beats c.
MMS after rounds 1, 2, 3: a 31 31 32; b 29 30 31; c 28 29 29; d 28 28 28.
NBW after rounds 1, 2, 3: a 1 1 2; b 0 1 2; c 0 1 1; d 1 1 1.
"""

from __future__ import annotations

from fractions import Fraction

from builders import recorded, result

from events_schema import Event
from events_schema import events as ev
from events_schema.go import GoSettings
from projections.standings import StandingsState, crosstable, fold, standings
from projections.tiebreaks.mcmahon import (
    go_scores,
    simplified_direct_confrontation,
)

RANKS = {"a": "1d", "b": "1k", "c": "2k", "d": "3k"}


def rnd(n: int, *games: tuple[str, str, str, str], bye: tuple[str, ...] = ()) -> list[Event]:
    """Round n: games (id, White, Black, result), pairing byes."""
    out: list[Event] = [
        ev.RoundScheduled(
            round=n,
            pairings=[ev.Pairing(game_id=g, white=w, black=b) for g, w, b, _ in games],
            byes=[ev.Bye(player_id=p) for p in bye],
        )
    ]
    return out + [result(g, r) for g, _, _, r in games]


def field(
    settings: GoSettings,
    *rounds: list[Event],
    ranks: dict[str, str] = RANKS,
    planned: int | None = None,
) -> StandingsState:
    flat: list[Event] = [
        ev.TournamentCreated(
            name="Go Open", game="go", format="mcmahon", go=settings, rounds=planned
        ),
        *(ev.PlayerRegistered(player_id=p, name=p.title(), go_rank=r) for p, r in ranks.items()),
    ]
    for r in rounds:
        flat += r
    return fold(recorded("og-crit", flat))


def scores(st: StandingsState, name: str) -> dict[str, Fraction]:
    s = go_scores(crosstable(st))
    return {p: s.value(name, p) for p in sorted(s.mms)}


def order(st: StandingsState) -> list[tuple[int, str]]:
    return [(r.place, r.player_id) for r in standings(st).rows]


MAIN = (
    rnd(1, ("g1", "a", "b", "1-0"), ("g2", "c", "d", "0-1")),
    rnd(2, ("g3", "a", "c", "0-1"), ("g4", "b", "d", "1-0")),
    rnd(3, ("g5", "a", "d", "1-0"), ("g6", "b", "c", "1-0")),
)


# --- SOS less the lowest (SOSM-1, SOSM-2, SOSW-1, SOSW-2) ---------------------------------


def test_sos_less_the_lowest_one_or_two_rounds() -> None:
    # The opponents' final MMS round by round:
    #   a: b 31, c 29, d 28 = 88;  less 28 = 60;  less 28 and 29 = 31
    #   b: a 32, d 28, c 29 = 89;  less 28 = 61;  less 28 and 29 = 32
    #   c: d 28, a 32, b 31 = 91;  less 28 = 63;  less 28 and 31 = 32
    #   d: c 29, b 31, a 32 = 92;  less 29 = 63;  less 29 and 31 = 32
    st = field(GoSettings(), *MAIN)
    assert scores(st, "SOS") == {"a": 88, "b": 89, "c": 91, "d": 92}
    assert scores(st, "SOS-1") == {"a": 60, "b": 61, "c": 63, "d": 63}
    assert scores(st, "SOS-2") == {"a": 31, "b": 32, "c": 32, "d": 32}
    # The opponents' final NBW: a: b 2, c 1, d 1 = 4, less 1 = 3, less 1 and 1 = 2;
    # b: a 2, d 1, c 1 = 4 -> 3, 2; c: d 1, a 2, b 2 = 5 -> 4, 2; d: c 1, b 2, a 2 = 5 -> 4, 2.
    assert scores(st, "SOSW") == {"a": 4, "b": 4, "c": 5, "d": 5}
    assert scores(st, "SOSW-1") == {"a": 3, "b": 3, "c": 4, "d": 4}
    assert scores(st, "SOSW-2") == {"a": 2, "b": 2, "c": 2, "d": 2}


def test_a_round_without_a_game_is_the_one_dropped_when_lowest() -> None:
    # Three players; round 1: a beats b, c has the bye (1 point); round 2: c beats a, b has
    # the bye; round 3: b beats c, a has the bye. MMS: a 30+1+1 = 32, b 29+1+1 = 31,
    # c 28+1+1 = 30. SOSM round by round (a round without a game: own start):
    #   a: b 31, c 30, bye 30 = 91 -> less 30 = 61 -> less 30 and 30 = 31
    #   b: a 32, bye 29, c 30 = 91 -> less 29 = 62 -> less 29 and 30 = 32
    # SOSW (NBW: a 1+1 = 2, b 2, c 2; a round without a game 0):
    #   a: b 2, c 2, bye 0 = 4 -> less 0 = 4 -> less 0 and 2 = 2
    st = field(
        GoSettings(),
        rnd(1, ("g1", "a", "b", "1-0"), bye=("c",)),
        rnd(2, ("g2", "c", "a", "1-0"), bye=("b",)),
        rnd(3, ("g3", "b", "c", "1-0"), bye=("a",)),
        ranks={"a": "1d", "b": "1k", "c": "2k"},
    )
    assert scores(st, "SOS") == {"a": 91, "b": 91, "c": 91}
    assert scores(st, "SOS-1")["a"] == 61 and scores(st, "SOS-1")["b"] == 62
    assert scores(st, "SOS-2")["a"] == 31 and scores(st, "SOS-2")["b"] == 32
    assert scores(st, "SOSW")["a"] == 4
    assert (scores(st, "SOSW-1")["a"], scores(st, "SOSW-2")["a"]) == (4, 2)


def test_after_two_rounds_opengotha_keeps_sosm_less_lowest_at_zero_but_not_sosw() -> None:
    # Rounds 1 and 2 of MAIN only. OpenGotha step 4.1 stores SOSW-1 = the higher of the two
    # rounds (`Math.max(oswX2[0], oswX2[1])`) and SOSW-2 = 0; step 4.2 stores SOSM-1 and
    # SOSM-2 only from the third round on (`setSOSMM1X2` is in the `else` branch): 0.
    # NBW after 2 rounds: a 1, b 1, c 1, d 1; a's SOSW: b 1, c 1 -> SOSW-1 1.
    st = field(GoSettings(), *MAIN[:2])
    assert scores(st, "SOSW-1") == {"a": 1, "b": 1, "c": 1, "d": 1}
    assert scores(st, "SOSW-2") == {"a": 0, "b": 0, "c": 0, "d": 0}
    assert scores(st, "SOS-1") == {"a": 0, "b": 0, "c": 0, "d": 0}
    assert scores(st, "SOS-2") == {"a": 0, "b": 0, "c": 0, "d": 0}


# --- cumulative sums (CUSSM, CUSSW) -------------------------------------------------------


def test_cumulative_sums_add_the_score_after_every_round() -> None:
    # CUSS (MMS after each round): a 31+31+32 = 94, b 29+30+31 = 90, c 28+29+29 = 86,
    # d 28+28+28 = 84. CUSSW (NBW after each round): a 1+1+2 = 4, b 0+1+2 = 3, c 0+1+1 = 2,
    # d 1+1+1 = 3.
    st = field(GoSettings(criteria=["MMS", "CUSS"]), *MAIN)
    assert scores(st, "CUSS") == {"a": 94, "b": 90, "c": 86, "d": 84}
    assert scores(st, "CUSSW") == {"a": 4, "b": 3, "c": 2, "d": 3}


def test_cumulative_sums_round_the_bye_points_down_round_by_round() -> None:
    # Absence ½ (OpenGotha genMMS2ValueAbsent 1), rounded down (genRoundDownNBWMMS): b skips
    # rounds 1 and 2, loses to a in round 3. b's MMS after rounds 1, 2, 3: 29 + floor(½) = 29,
    # 29 + floor(1) = 30, 30: CUSS 89. Without rounding: 29½ + 30 + 30 = 89½.
    def played(settings: GoSettings) -> StandingsState:
        return field(
            settings,
            [ev.RoundSkipped(player_id="b", round=1, notice="exceptional", reason="away")],
            [ev.RoundSkipped(player_id="b", round=2, notice="exceptional", reason="away")],
            rnd(3, ("g1", "a", "b", "1-0")),
            ranks={"a": "1d", "b": "1k"},
        )

    assert scores(played(GoSettings()), "CUSS")["b"] == 89
    assert scores(played(GoSettings(round_down=False)), "CUSS")["b"] == Fraction(179, 2)


# --- the Strasbourg score (STS, SOSTS) ------------------------------------------------------

# Bar 1k (start 29): a 1d and b 1k start on the bar's 29, c 28, d 27. Three rounds (n = 3):
# round 1: a beats b, c beats d; round 2: a beats c, b beats d; round 3: a beats d, b beats c.
# MMS after rounds 1, 2, 3: a 30 31 32; b 29 30 31; c 29 29 29; d 27 27 27.
STRASBOURG = (
    rnd(1, ("g1", "a", "b", "1-0"), ("g2", "c", "d", "1-0")),
    rnd(2, ("g3", "a", "c", "1-0"), ("g4", "b", "d", "1-0")),
    rnd(3, ("g5", "a", "d", "1-0"), ("g6", "b", "c", "1-0")),
)


def test_sts_gives_the_top_groups_unbeaten_player_two_points_per_knockout_round() -> None:
    # Step 2b: + 2 when the MMS after n-2 = 1 round is the bar's 29 + 1 = 30 (a: 30; b 29,
    # c 29, d 27: no), + 2 more when the MMS after n-1 = 2 rounds is 29 + 2 = 31 (a: 31).
    # STS: a 32 + 4 = 36, b 31, c 29, d 27.
    # SOSTS (the opponents' STS): a: b 31 + c 29 + d 27 = 87; b: a 36 + d 27 + c 29 = 92;
    # c: d 27 + a 36 + b 31 = 94; d: c 29 + b 31 + a 36 = 96.
    st = field(GoSettings(mcmahon_bar="1k", criteria=["STS", "SOSTS"]), *STRASBOURG)
    assert scores(st, "MMS") == {"a": 32, "b": 31, "c": 29, "d": 27}
    assert scores(st, "STS") == {"a": 36, "b": 31, "c": 29, "d": 27}
    assert scores(st, "SOSTS") == {"a": 87, "b": 92, "c": 94, "d": 96}
    assert order(st) == [(1, "a"), (2, "b"), (3, "c"), (4, "d")]


def test_sts_reads_the_mms_alone_so_a_supergroup_player_with_one_loss_passes_too() -> None:
    # a corrected +1 (start 30, OpenGotha smmsCorrection): round 1 a loses to b, round 2 a
    # beats c: MMS after 1 round 30 = 29 + 1 (+2), after 2 rounds 31 = 29 + 2 (+2), as
    # OpenGotha's test compares the MMS only. b: 29 -> 30 -> 30 (lost to d in round 2): the
    # first test passes (30), the second not (30, not 31): + 2.
    st = field(
        GoSettings(mcmahon_bar="1k", start_score_corrections={"a": 1}),
        rnd(1, ("g1", "a", "b", "0-1"), ("g2", "c", "d", "1-0")),
        rnd(2, ("g3", "a", "c", "1-0"), ("g4", "b", "d", "0-1")),
        rnd(3, ("g5", "a", "d", "1-0"), ("g6", "b", "c", "1-0")),
    )
    # MMS: a 30 + 2 = 32, b 29 + 2 = 31, c 28 + 1 = 29, d 27 + 1 = 28.
    assert scores(st, "STS") == {"a": 36, "b": 33, "c": 29, "d": 28}


def test_sts_counts_the_tournaments_planned_rounds_not_the_rounds_played_so_far() -> None:
    # OpenGotha's n is `numberOfRounds`. Planned 5, 3 played: the first bonus needs the MMS
    # after n-2 = 3 rounds to be 29 + 3 = 32 (a: 32, +2, from round 3 on); the second is for
    # round n-1 = 4, not reached. STS a 32 + 2 = 34.
    st = field(GoSettings(mcmahon_bar="1k"), *STRASBOURG, planned=5)
    assert scores(st, "STS") == {"a": 34, "b": 31, "c": 29, "d": 27}


def test_sosts_with_virtual_scores_keeps_only_the_stones_as_opengotha_does() -> None:
    # With genCountNotPlayedGamesAsHalfPoint OpenGotha's step 4.2 reads the opponents'
    # `stsVirtualX2`, which no step fills (0): SOSTS is then the handicap corrections and the
    # own start scores of the rounds without a game. Every game here is even and paired: 0.
    st = field(GoSettings(mcmahon_bar="1k", count_not_played_as_half_point=True), *STRASBOURG)
    assert scores(st, "SOSTS") == {"a": 0, "b": 0, "c": 0, "d": 0}
    assert scores(st, "STS") == {"a": 36, "b": 31, "c": 29, "d": 27}  # STS itself unchanged


# --- exploits (EXT, EXR) ---------------------------------------------------------------------


def test_exploits_weigh_the_opponents_wins_by_the_handicap_against_the_ranks() -> None:
    # Step 6, every game of MAIN even (realHd 0); naturalHd = own rank - opponent's rank
    # (a 0, b -1, c -2, d -3); the weight of 0 - naturalHd: below 0 -> 0, 0 -> 1, 1 -> 2,
    # 2 or more -> 3; times the opponent's final NBW (a 2, b 2, c 1, d 1).
    #   a: every opponent weaker: EXT 0, EXR 0
    #   b: a one rank stronger, 2 x NBW 2 = 4 (lost); d, c weaker: EXT 4, EXR 0
    #   c: d weaker 0; a two stronger 3 x 2 = 6 (won); b one stronger 2 x 2 = 4 (lost):
    #      EXT 10, EXR 6
    #   d: c one stronger 2 x 1 = 2 (won); b two stronger 3 x 2 = 6; a three stronger
    #      3 x 2 = 6: EXT 14, EXR 2
    st = field(GoSettings(criteria=["NBW", "EXT", "EXR"]), *MAIN)
    assert scores(st, "EXT") == {"a": 0, "b": 4, "c": 10, "d": 14}
    assert scores(st, "EXR") == {"a": 0, "b": 0, "c": 6, "d": 2}


def test_a_handicap_game_is_weighed_by_the_stones_given() -> None:
    # a 1d (White) gives d 3k 2 stones and wins: realHd 2, naturalHd 0 - (-3) = 3, 2 - 3 < 0:
    # weight 0. d (Black): realHd -2, naturalHd -3 - 0 = -3, -2 - (-3) = 1: weight 2, times
    # a's NBW 1 = 2 attempted, nothing achieved.
    st = field(
        GoSettings(),
        [
            ev.RoundScheduled(
                round=1, pairings=[ev.Pairing(game_id="g1", white="a", black="d", handicap=2)]
            ),
            result("g1", "1-0"),
        ],
        ranks={"a": "1d", "d": "3k"},
    )
    assert scores(st, "EXT") == {"a": 0, "d": 2}
    assert scores(st, "EXR") == {"a": 0, "d": 0}


# --- simplified direct confrontation (SDC) -------------------------------------------------

# p, q, r, s all 5k (25). Round 1: p beats q, r beats s; round 2: q beats r, s beats p.
# MMS 26 each; p and r never met.
SQUARE = {"p": "5k", "q": "5k", "r": "5k", "s": "5k"}
SQUARE_ROUNDS = (
    rnd(1, ("g1", "p", "q", "1-0"), ("g2", "r", "s", "1-0")),
    rnd(2, ("g3", "q", "r", "1-0"), ("g4", "s", "p", "1-0")),
)


def test_sdc_counts_the_players_beaten_when_every_two_have_met() -> None:
    # Group {p, q}: they met, p won: SDC p 1, q 0. Group {p, q, r, s}: p and r never met (a
    # zero in OpenGotha's pair matrix): SDC is not "relevant", 0 for all.
    st = field(GoSettings(criteria=["MMS", "SDC", "SOS"]), *SQUARE_ROUNDS, ranks=SQUARE)
    ct = crosstable(st)
    assert simplified_direct_confrontation(ct, ["p", "q"]) == {"p": 1, "q": 0}
    assert simplified_direct_confrontation(ct, ["p", "q", "r", "s"]) == {
        "p": 0,
        "q": 0,
        "r": 0,
        "s": 0,
    }


def test_sdc_in_a_cycle_of_wins_gives_one_each() -> None:
    # x beats y, y beats z, z beats x (every two met, each pair won once): SDC 1 each, level.
    ranks = {"x": "5k", "y": "5k", "z": "5k", "w": "5k"}
    st = field(
        GoSettings(criteria=["MMS", "SDC"]),
        rnd(1, ("g1", "x", "y", "1-0"), ("g2", "z", "w", "1-0")),
        rnd(2, ("g3", "y", "z", "1-0"), ("g4", "x", "w", "1-0")),
        rnd(3, ("g5", "z", "x", "1-0"), ("g6", "y", "w", "1-0")),
        ranks=ranks,
    )
    ct = crosstable(st)
    assert simplified_direct_confrontation(ct, ["x", "y", "z"]) == {"x": 1, "y": 1, "z": 1}
    assert order(st) == [(1, "x"), (1, "y"), (1, "z"), (4, "w")]


def test_sdc_places_the_winner_between_two_level_players() -> None:
    # a and b 5k (25), c 4k (26), d 6k (24). Round 1: a beats b, c beats d; round 2: b beats
    # c, d beats a. MMS: a 26, b 26, c 27, d 25; b's SOS 53 is above a's 51, but a beat b.
    ranks = {"a": "5k", "b": "5k", "c": "4k", "d": "6k"}
    rounds = (
        rnd(1, ("g1", "a", "b", "1-0"), ("g2", "c", "d", "1-0")),
        rnd(2, ("g3", "b", "c", "1-0"), ("g4", "a", "d", "0-1")),
    )
    st = field(GoSettings(criteria=["MMS", "SDC", "SOS"]), *rounds, ranks=ranks)
    assert order(st) == [(1, "c"), (2, "a"), (3, "b"), (4, "d")]
    # With both (OpenGotha's own dialog refuses it, a file may have it), both are computed
    # over the players level before the first of them (`fillDirScoringInfo`,
    # `defineDirForExAequoGroup` fills `sdc` and `dc` together): a 1, b 0 on each.
    both = field(GoSettings(criteria=["MMS", "SDC", "DC", "SOS"]), *rounds, ranks=ranks)
    assert order(both) == [(1, "c"), (2, "a"), (3, "b"), (4, "d")]
    rows = {r.player_id: dict(r.tiebreaks) for r in standings(both).rows}
    assert (rows["a"]["sdc"], rows["a"]["dc"], rows["b"]["sdc"], rows["b"]["dc"]) == (
        "1",
        "1",
        "0",
        "0",
    )


def test_sdc_is_computed_among_every_level_player_the_hidden_ones_too() -> None:
    # p 5k (25) beats q 4k (26): MMS 26 each. z 4k (26) is registered, never paired (MMS 26),
    # and hidden from the standings (OpenGotha displayNPPlayers false). OpenGotha's ex aequo
    # group holds every player (`hmScoredPlayers`): {p, q, z}; z met nobody, so SDC is not
    # relevant: 0 for all, and p and q share the place. DC over {p, q, z}: p beat q, DC p 1.
    ranks = {"p": "5k", "q": "4k", "z": "4k"}
    game = rnd(1, ("g1", "p", "q", "1-0"))
    hidden = GoSettings(hide_players_never_paired=True)
    sdc = field(hidden.model_copy(update={"criteria": ["MMS", "SDC"]}), game, ranks=ranks)
    assert order(sdc) == [(1, "p"), (1, "q")]
    dc = field(hidden.model_copy(update={"criteria": ["MMS", "DC"]}), game, ranks=ranks)
    assert order(dc) == [(1, "p"), (2, "q")]


# --- Rank ------------------------------------------------------------------------------------


def test_rank_orders_players_level_before_it_stronger_first() -> None:
    # Bar 5k: a 3k and b 4k both start on 25; each beats a 10k (c, d start 20): MMS 26 each.
    # Rank (OpenGotha getRank: 3k = -3, 4k = -4): a first, shown as the rank.
    st = field(
        GoSettings(mcmahon_bar="5k", criteria=["MMS", "RANK"]),
        rnd(1, ("g1", "a", "c", "1-0"), ("g2", "b", "d", "1-0")),
        ranks={"a": "3k", "b": "4k", "c": "10k", "d": "10k"},
    )
    assert order(st)[:2] == [(1, "a"), (2, "b")]
    rows = {r.player_id: dict(r.tiebreaks) for r in standings(st).rows}
    assert (rows["a"]["go-rank"], rows["b"]["go-rank"]) == ("3k", "4k")


# --- categories (CAT) and the cup score (CPS) ------------------------------------------------


def test_cat_ranks_the_first_category_first_before_the_wins() -> None:
    # Categories 1d and up, 2k and up, the rest (OpenGotha lowerCategoryLimits 1D, 2K;
    # Player.category: the first limit the rank reaches): a 1d in 1, b 1k and c 2k in 2, d 3k
    # in 3. CAT first (initForSwissCat): d's 1 win in category 3 ranks after c's 1 win in
    # category 2, which ranks after b's 2 wins; a (2 wins) first.
    st = field(GoSettings(criteria=["CAT", "NBW"], category_lower_limits=["1d", "2k"]), *MAIN)
    assert order(st) == [(1, "a"), (2, "b"), (3, "c"), (4, "d")]
    rows = {r.player_id: dict(r.tiebreaks)["go-category"] for r in standings(st).rows}
    assert rows == {"a": "1", "b": "2", "c": "2", "d": "3"}
    # One category (no limits): CAT is level for all, NBW alone decides: a and b (2 wins)
    # share 1st, c and d (1 win) 3rd.
    one = field(GoSettings(criteria=["CAT", "NBW"]), *MAIN)
    assert order(one) == [(1, "a"), (1, "b"), (3, "c"), (3, "d")]


def test_the_cup_score_doubles_the_score_so_far_each_round() -> None:
    # Step 2: cps = 2 x cps so far + the round's points. MAIN: a W L W = (1 x 2 + 0) x 2 + 1
    # = 5; b L W W = (0 x 2 + 1) x 2 + 1 = 3; c L W L = (0 + 1) x 2 + 0 = 2; d W L L = 4.
    st = field(GoSettings(criteria=["CPS"]), *MAIN)
    assert scores(st, "CPS") == {"a": 5, "b": 3, "c": 2, "d": 4}
    assert order(st) == [(1, "a"), (2, "d"), (3, "b"), (4, "c")]


def test_the_cup_score_adds_bye_points_once_not_doubled() -> None:
    # Round 1: a beats b, c has the bye (NBW 1, OpenGotha genNBW2ValueBye 2); round 2: c
    # beats a, b has the bye. The bye points are added after the doubling (OpenGotha adds
    # them once every round's games are in): a 1 x 2 + 0 = 2; b 0 x 2 + 0 + 1 (bye) = 1;
    # c 0 x 2 + 1 + 1 (bye) = 2.
    st = field(
        GoSettings(criteria=["CPS"]),
        rnd(1, ("g1", "a", "b", "1-0"), bye=("c",)),
        rnd(2, ("g2", "c", "a", "1-0"), bye=("b",)),
        ranks={"a": "1d", "b": "1k", "c": "2k"},
    )
    assert scores(st, "CPS") == {"a": 2, "b": 1, "c": 2}


# --- the rounds counted (count_planned_rounds) -----------------------------------------------


def test_the_planned_rounds_count_as_rounds_without_a_game_when_asked() -> None:
    # MAIN, 5 rounds planned, 3 played. OpenGotha's final standings (its h9 export) count
    # numberOfRounds: rounds 4 and 5 are rounds without a game, SOS adding the player's own
    # start score for each (a: 88 + 2 x 30 = 148, d: 92 + 2 x 27 = 146) and SOSOS start x 5
    # rounds for each (step 5: `2 * smms * (r + 1)`). By default the 3 rounds played count.
    played = field(GoSettings(), *MAIN, planned=5)
    assert scores(played, "SOS") == {"a": 88, "b": 89, "c": 91, "d": 92}
    final = field(GoSettings(count_planned_rounds=True), *MAIN, planned=5)
    assert scores(final, "SOS") == {"a": 148, "b": 147, "c": 147, "d": 146}
    assert scores(final, "MMS") == scores(played, "MMS")
    # SOSOS of a: the opponents' SOS (b 147 + c 147 + d 146) + 2 rounds x 30 x 5 = 740.
    assert scores(final, "SOSOS")["a"] == 147 + 147 + 146 + 2 * 30 * 5
