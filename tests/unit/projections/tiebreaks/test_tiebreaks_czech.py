"""Czech club ranking rules (seeds/czech-club-ranking-rules.cs.txt, rules/...en.md): worked
examples computed by hand, the reasoning in the comments.

Notation: a tournament is written one cycle per string, one game per token: "ab1" is a (White)
beat b, "ab0" is b beat a, "ab=" is a draw. Every game is its own round, in the order written,
so "the last game" is the one written last. Points are shown as the standings show them (1½);
criterion keys are in half-points.
"""

from __future__ import annotations

from builders import created, player, recorded, result, round_

from events_schema import Event
from events_schema import events as ev
from events_schema.events import TiebreakOptions, TiebreakSpec
from projections.standings import Table, crosstable, explain, fold, standings
from projections.standings.crosstable import Crosstable
from projections.tiebreaks import REGISTRY, Chain, rank, validate
from projections.tiebreaks.czech import PRESETS, cycle_placings, cycle_placings_key
from projections.tiebreaks.presets import PRESETS as ALL_PRESETS

RESULTS = {"1": "1-0", "=": "1/2-1/2", "0": "0-1"}
FLIP = {"1": "0", "=": "=", "0": "1"}


def games(spec: str) -> list[tuple[str, str, str]]:
    """'ab1 cd=' -> [("a", "b", "1-0"), ("c", "d", "1/2-1/2")]."""
    return [(t[0], t[1], RESULTS[t[2]]) for t in spec.split()]


def colours_reversed(spec: str) -> str:
    """The same results with colours reversed: "ab1" (a beat b) -> "ba0" (a beat b)."""
    return " ".join(t[1] + t[0] + FLIP[t[2]] for t in spec.split())


def tournament(preset: str, *cycles: str, explicit_cycles: bool = False) -> list[Event]:
    """One round per game. The cycle of a round comes from TournamentCreated(cycles, rounds)
    (rounds // cycles rounds per cycle), or, with `explicit_cycles`, from
    RoundScheduled(cycle=...)."""
    players = sorted({p for spec in cycles for w, b, _ in games(spec) for p in (w, b)})
    total = sum(len(games(spec)) for spec in cycles)
    events: list[Event] = [
        created(
            rules_preset=preset,
            cycles=len(cycles),
            rounds=None if explicit_cycles else total,
        ),
        *(player(p) for p in players),
    ]
    rnd = 0
    for cycle, spec in enumerate(cycles, start=1):
        for white, black, res in games(spec):
            rnd += 1
            gid = f"g{rnd}"
            if explicit_cycles:
                pairing = ev.Pairing(game_id=gid, white=white, black=black)
                events.append(ev.RoundScheduled(round=rnd, cycle=cycle, pairings=[pairing]))
            else:
                events.append(round_(rnd, (gid, white, black)))
            events.append(result(gid, res))
    return events


def table_of(events: list[Event]) -> Table:
    return standings(fold(recorded("t1", events)))


def ct_of(events: list[Event]) -> Crosstable:
    return crosstable(fold(recorded("t1", events)))


def shown(name: str, ct: Crosstable, group: str, **params: object) -> dict[str, str]:
    """A criterion's shown values for the players of `group` ("abc")."""
    return {p: v.shown for p, v in REGISTRY[name].compute(ct, list(group), params).items()}


def places(table: Table) -> list[tuple[int, str, bool]]:
    return [(r.place, r.player_id, r.shared) for r in table.rows]


def decided_by(table: Table) -> dict[str, str]:
    return {r.player_id: r.decided_by for r in table.rows}


def steps(table: Table, a: str, b: str) -> list[tuple[str, str, str, bool]]:
    return [(s["criterion"], s[a], s[b], s["separates"]) for s in explain(table, a, b)]


# ---------------------------------------------------------------------------------------------
# A2 / B2: the head-to-head mini-table, re-applied

# Five players. a, b, c end on 2 points; among themselves: a beat b, a-c and b-c drawn, so
# the mini-table is a 1½ (1 + ½), c 1 (½ + ½), b ½ (0 + ½).
#   a: b 1, c ½, d ½, e 0 = 2      b: a 0, c ½, d 1, e ½ = 2     c: ½ + ½ + ½ + ½ = 2
#   d: a ½, b 0, c ½, e 0 = 1      e: a 1, b ½, c ½, d 1 = 3     (total 10 = 5·4/2)
THREE_WAY = "ab1 ac= bc= ad= ea1 cd= ce= bd1 be= ed1"


def test_mini_table_counts_only_the_games_among_the_tied_players():
    ct = ct_of(tournament("czech-single", THREE_WAY))
    assert shown("czech-mini-table", ct, "abc") == {"a": "1½", "b": "½", "c": "1"}
    # The table of a sub-group is its own: a and b alone -> their one game, a beat b.
    assert shown("czech-mini-table", ct, "ab") == {"a": "1", "b": "0"}
    # b and c alone: drawn.
    assert shown("czech-mini-table", ct, "bc") == {"b": "½", "c": "½"}


def test_three_way_tie_is_settled_by_the_mini_table_before_sonneborn():
    # e 3 first, d 1 last; a, c, b by the mini-table 1½, 1, ½. Sonneborn would have put b
    # (beat d: 1) above c (no win: 0) — A2: "Pokud je pořadí tímto jasné, sonnenborn se již
    # nepočítá".
    table = table_of(tournament("czech-single", THREE_WAY))
    assert places(table) == [
        (1, "e", False),
        (2, "a", False),
        (3, "c", False),
        (4, "b", False),
        (5, "d", False),
    ]
    assert decided_by(table) == {
        "e": "",
        "a": "points 3–2",
        "c": "mini-table 1½–1",
        "b": "mini-table 1–½",
        "d": "points 2–1",
    }
    assert steps(table, "c", "b") == [
        ("points", "2", "2", False),
        ("czech-mini-table", "1", "½", True),
    ]


# Four players level on 2: a beat b, c beat a, a beat d, b beat c, b beat d, c-d drawn.
# Mini-table: a 2 (b, d), b 2 (c, d), c 1½ (a, ½ d), d ½. a and b are level at 2 inside the
# table: "I v této tabulce o pořadí rozhoduje nejprve skóre, popřípadě při shodném skóre
# vzájemný zápas" -> a beat b, a is ahead.
# Outside: e beat a and b, drew c and f, lost to d; f beat a, b, c, drew d and e.
#   a 2, b 2, c 1 + ½ + ½ (e) = 2, d ½ + 1 (e) + ½ (f) = 2, e 1 + 1 + ½ + ½ = 3, f 3 + ½ + ½ = 4.
FOUR_WAY = "ab1 ca1 ad1 bc1 bd1 cd= ea1 eb1 ce= de1 fa1 fb1 fc1 df= ef="


def test_four_way_tie_mini_table_then_head_to_head_inside_it():
    ct = ct_of(tournament("czech-single", FOUR_WAY))
    assert shown("czech-mini-table", ct, "abcd") == {"a": "2", "b": "2", "c": "1½", "d": "½"}
    table = table_of(tournament("czech-single", FOUR_WAY))
    assert [r.player_id for r in table.rows] == ["f", "e", "a", "b", "c", "d"]
    assert [r.place for r in table.rows] == [1, 2, 3, 4, 5, 6]
    assert decided_by(table)["b"] == "head-to-head (pair) 1–0"
    assert decided_by(table)["c"] == "mini-table 2–1½"
    assert decided_by(table)["d"] == "mini-table 1½–½"


# Five players level on 3½ (a, b, c, d, e), f and g outside.
# Among the five (10 points): a beat b and c, lost to d and e -> 2; b beat c, drew d and e ->
# 2; c beat d and e -> 2; d beat a and e, drew b -> 2½; e beat a, drew b -> 1½.
# Five-player table: d 2½, {a, b, c} 2, e 1½. Re-applied to {a, b, c} (their own three games):
# a 2, b 1, c 0 -> a, b, c.
# Outside (to level the points): a beat f, drew g (1½); b beat g, drew f (1½); c drew f, beat g
# (1½); d drew f and g (1); e beat f and g (2); g beat f.
#   totals: a, b, c 2 + 1½, d 2½ + 1, e 1½ + 2 = 3½; f ½·3 + 0 = 1½; g ½ + ½ + 1 = 2.
# Sonneborn would have ordered the three the other way: c beat d, e (3½ each) and g (2) = 9,
# a beat b, c (3½ each) and f (1½) = 8½, b beat c and g = 5½ -> c, a, b. Only the re-applied
# mini-table gives a, b, c.
RECURSIVE = "ab1 ac1 da1 ea1 bc1 bd= be= cd1 ce1 de1 af1 ag= bg1 bf= cf= cg1 df= dg= ef1 eg1 gf1"


def test_mini_table_is_reapplied_to_the_sub_group_it_produced():
    ct = ct_of(tournament("czech-single", RECURSIVE))
    assert shown("czech-mini-table", ct, "abcde") == {
        "a": "2",
        "b": "2",
        "c": "2",
        "d": "2½",
        "e": "1½",
    }
    assert shown("czech-mini-table", ct, "abc") == {"a": "2", "b": "1", "c": "0"}
    assert shown("czech-sonneborn", ct, "abc") == {"a": "8½", "b": "5½", "c": "9"}
    table = table_of(tournament("czech-single", RECURSIVE))
    assert places(table) == [
        (1, "d", False),
        (2, "a", False),
        (3, "b", False),
        (4, "c", False),
        (5, "e", False),
        (6, "g", False),
        (7, "f", False),
    ]
    assert decided_by(table) == {
        "d": "",
        "a": "mini-table 2½–2",
        "b": "mini-table 2–1",  # the re-applied table of a, b, c
        "c": "mini-table 1–0",
        "e": "mini-table 2–1½",  # the five-player table: c's 2 against e's 1½
        "g": "points 3½–2",
        "f": "points 2–1½",
    }
    # The explanation shows both tables: level in the first, separated in the second.
    assert steps(table, "a", "c") == [
        ("points", "3½", "3½", False),
        ("czech-mini-table", "2", "2", False),
        ("czech-mini-table", "2", "0", True),
    ]


# ---------------------------------------------------------------------------------------------
# A3 / B3: Sonneborn over wins only


def test_sonneborn_sums_the_scores_of_beaten_opponents_only():
    # THREE_WAY: e beat a (2) and d (1) -> 3; a beat b (2) -> 2; b beat d (1) -> 1; c drew all
    # four games -> 0 (FIDE Sonneborn-Berger gives c half of its opponents' scores:
    # (2 + 2 + 1 + 3) / 2 = 4);
    # d won nothing -> 0.
    ct = ct_of(tournament("czech-single", THREE_WAY))
    assert shown("czech-sonneborn", ct, "abcde") == {
        "a": "2",
        "b": "1",
        "c": "0",
        "d": "0",
        "e": "3",
    }
    assert shown("sonneborn-berger", ct, "c") == {"c": "4"}


def test_sonneborn_counts_a_player_beaten_in_two_cycles_twice():
    # Double round robin: a beat b in both cycles, a-c drawn twice, b beat c twice.
    # a 2 + 1 = 3, b 2, c 1. Sonneborn: a = b's 2 twice = 4; b = c's 1 twice = 2; c = 0.
    ct = ct_of(tournament("czech-multi", "ab1 ac= bc1", "ba0 ca= cb0"))
    assert shown("czech-sonneborn", ct, "abc") == {"a": "4", "b": "2", "c": "0"}


# Five players, no draws: a beat b, c, e; d beat a, e; b beat d; c beat b, d; e beat b, c.
#   a 3, b 1 (d), c 2 (b, d), d 2 (a, e), e 2 (b, c).
# c, d, e on 2: mini-table cyclic (c beat d, d beat e, e beat c), 1 each -> Sonneborn:
#   c: b 1 + d 2 = 3;   d: a 3 + e 2 = 5;   e: b 1 + c 2 = 3   -> d, then {c, e} level on 3.
# Two players level on a criterion: their head-to-head decides -> e beat c, e is ahead.
# Without that rule the next criterion (A4) would have put c first: placings by criteria 1–3
# are a 1, d 2, e 3, c 4, b 5; c beat b (5) and d (2) = 7, e beat b (5) and c (4) = 9.
PAIRWISE = "ab1 ac1 da1 ae1 cb1 bd1 eb1 cd1 ec1 de1"


def test_sonneborn_splits_a_cyclic_three_way_tie():
    ct = ct_of(tournament("czech-single", PAIRWISE))
    assert shown("czech-mini-table", ct, "cde") == {"c": "1", "d": "1", "e": "1"}
    assert shown("czech-sonneborn", ct, "cde") == {"c": "3", "d": "5", "e": "3"}
    table = table_of(tournament("czech-single", PAIRWISE))
    assert decided_by(table)["e"] == "Sonneborn (wins) 5–3"


# ---------------------------------------------------------------------------------------------
# The two-player rule: "Při rovnosti jakéhokoliv kritéria u dvou hráčů rozhoduje vzájemný
# zápas, pokud neskončil nerozhodně."


def test_two_players_level_on_sonneborn_go_to_their_head_to_head_first():
    events = tournament("czech-single", PAIRWISE)
    table = table_of(events)
    assert [r.player_id for r in table.rows] == ["a", "d", "e", "c", "b"]
    assert decided_by(table)["c"] == "head-to-head (pair) 1–0"
    assert steps(table, "e", "c") == [
        ("points", "2", "2", False),
        ("czech-mini-table", "1", "1", False),
        ("czech-sonneborn", "3", "3", False),
        ("pairwise-head-to-head", "1", "0", True),
    ]
    # A4 values: c 7 (5+2) is better than e 9 (5+4) ...
    assert shown("czech-beaten-placings", ct_of(events), "ce") == {"c": "7 (5+2)", "e": "9 (5+4)"}
    # ... so the same criteria without the two-player rule order them c, e.
    ct = ct_of(events)
    without = Chain(PRESETS["czech-single"].specs, TiebreakOptions())
    assert rank(ct, without).blocks == [["a"], ["d"], ["c"], ["e"], ["b"]]
    assert rank(ct, PRESETS["czech-single"]).blocks == [["a"], ["d"], ["e"], ["c"], ["b"]]


# Double round robin, four players (cycle 1, then cycle 2):
#   cycle 1: b beat a, a-c =, a beat d, c beat b, b-d =, d beat c   -> everyone 1½
#   cycle 2: a-b =, a-c =, d beat a, b-c =, b beat d, d beat c      -> a 1, b 2, c 1, d 2
#   totals: a 2½, b 3½, c 2½, d 3½.
B5 = ("ab0 ac= ad1 bc0 bd= cd0", "ba= ca= da1 cb= db0 dc1")


def test_pair_head_to_head_is_the_aggregate_of_all_cycles():
    # b and d on 3½: b-d drawn in cycle 1, b won in cycle 2 -> 1½ : ½ decides, although d has
    # the better Sonneborn (d beat c, a, c: 2½·3 = 7½; b beat a, d: 2½ + 3½ = 6).
    events = tournament("czech-multi", *B5)
    assert shown("czech-sonneborn", ct_of(events), "bd") == {"b": "6", "d": "7½"}
    table = table_of(events)
    assert [r.player_id for r in table.rows[:2]] == ["b", "d"]
    assert decided_by(table)["d"] == "head-to-head (pair) 1½–½"
    # a and c drew both games (1 : 1): level, the next criteria are asked (see B5 below).
    assert steps(table, "a", "c")[1] == ("pairwise-head-to-head", "1", "1", False)


# ---------------------------------------------------------------------------------------------
# A4 / B5: the lower sum of the placings of the beaten players

# Five players: a beat b, c beat a, d beat a, a-e =, b beat c, d beat b, b beat e, c beat d,
# c beat e, e beat d.
#   a 1 + ½ = 1½, b 2 (c, e), c 3 (a, d, e), d 2 (a, b), e ½ + 1 = 1½.
# Placings by criteria 1–3 (points, head-to-head, Sonneborn): c 1; b and d on 2, d beat b ->
# d 2, b 3; a and e on 1½, drew, Sonneborn a (beat b: 2) = e (beat d: 2) -> they share 4.
SINGLE_A4 = "ab1 ca1 da1 ae= bc1 db1 be1 cd1 ce1 ed1"


def test_placings_are_places_by_criteria_1_to_3_level_players_sharing():
    ct = ct_of(tournament("czech-single", SINGLE_A4))
    # c beat a (4), d (2), e (4) = 10; d beat a (4), b (3) = 7; b beat c (1), e (4) = 5;
    # a beat b (3) = 3; e beat d (2) = 2.
    assert shown("czech-beaten-placings", ct, "abcde") == {
        "a": "3",
        "b": "5 (1+4)",
        "c": "10 (4+2+4)",
        "d": "7 (4+3)",
        "e": "2",
    }
    values = REGISTRY["czech-beaten-placings"].compute(ct, ["a", "e"], {})
    assert values["e"].key > values["a"].key  # lower sum, better: the key is negated


def test_tie_decided_by_the_placings_of_beaten_players():
    # a and e on 1½: drawn game, mini-table ½-½, Sonneborn 2-2 -> A4: e 2 < a 3, e ahead.
    table = table_of(tournament("czech-single", SINGLE_A4))
    assert places(table) == [
        (1, "c", False),
        (2, "d", False),
        (3, "b", False),
        (4, "e", False),
        (5, "a", False),
    ]
    assert decided_by(table)["e"] == "points 2–1½"
    assert decided_by(table)["a"] == "placings of beaten players 2–3"
    assert [s[0] for s in steps(table, "e", "a")] == [
        "points",
        "pairwise-head-to-head",
        "czech-mini-table",
        "czech-sonneborn",
        "czech-beaten-placings",
    ]


def test_b5_decides_after_equal_cycle_placings():
    # B5 tournament, a and c on 2½: 1 : 1 head-to-head; Sonneborn a (beat d: 3½) = c (beat b:
    # 3½). Cycle placings: cycle 1 everyone 1½, every criterion level (each beat one player of
    # 1½, placed 1) -> all share 1; cycle 2 b 2 > d 2 (b beat d) -> b 1, d 2, a and c on 1 drew
    # and won nothing -> share 3. a 1+3 = c 1+3.
    # B5, overall placings by criteria 1–3: b 1, d 2, a and c level -> 3. a beat d (2) = 2,
    # c beat b (1) = 1 -> c ahead.
    events = tournament("czech-multi", *B5)
    ct = ct_of(events)
    assert cycle_placings(ct) == {"a": [1, 3], "b": [1, 1], "c": [1, 3], "d": [1, 2]}
    assert shown("czech-beaten-placings", ct, "ac") == {"a": "2", "c": "1"}
    table = table_of(events)
    assert places(table)[2:] == [(3, "c", False), (4, "a", False)]
    assert decided_by(table)["a"] == "placings of beaten players 1–2"


def test_a_player_who_beat_nobody_has_the_empty_sum():
    # THREE_WAY: c and d won no game -> 0 (the text's "lower is better" read literally).
    ct = ct_of(tournament("czech-single", THREE_WAY))
    assert shown("czech-beaten-placings", ct, "cd") == {"c": "0", "d": "0"}


# ---------------------------------------------------------------------------------------------
# B4 a–c: placings in the individual cycles


def test_cycle_placings_key_a_b_c():
    key = cycle_placings_key
    assert key([1, 2]) > key([2, 2])  # a. lower sum
    assert key([2, 1]) > key([2, 2])
    assert key([1, 3]) > key([2, 2])  # b. "1 + 3 je lepší než 2 + 2"
    assert key([3, 1]) > key([2, 2])
    assert key([3, 1]) > key([1, 3])  # c. "3 + 1 je lepší než 1 + 3": the later 1 counts more
    # Three cycles: from the latest backwards, the 1 counts the more the later it came.
    assert key([2, 2, 1]) > key([2, 1, 2]) > key([1, 2, 2])
    assert key([1, 3]) == key([1, 3])


# Three players, two cycles, everyone ends on 2:
#   cycle 1: a beat b, c beat a, c beat b   -> c 2, a 1, b 0: c 1, a 2, b 3
#   cycle 2: b beat a, a beat c, b beat c   -> b 2, a 1, c 0: b 1, a 2, c 3
# Mini-table (all games) 2-2-2; Sonneborn: each beat two players of 2 -> 4-4-4.
# Cycle placings: a 2+2, b 3+1, c 1+3, all summing to 4.
#   b. 1+3 (b, c) beats 2+2 (a) -> a last;
#   c. b's 3+1 beats c's 1+3 (b was first in the later cycle) -> b first, though c beat b
#      twice: b and c are not level on B4, so the two-player rule does not arise.
ONE_THREE = ("ab1 ca1 cb1", "ba1 ac1 bc1")


def test_one_plus_three_beats_two_plus_two_and_three_plus_one_beats_one_plus_three():
    for explicit in (False, True):  # cycles from (cycles, rounds), or RoundScheduled.cycle
        events = tournament("czech-multi", *ONE_THREE, explicit_cycles=explicit)
        ct = ct_of(events)
        assert cycle_placings(ct) == {"a": [2, 2], "b": [3, 1], "c": [1, 3]}
        assert shown("czech-sonneborn", ct, "abc") == {"a": "4", "b": "4", "c": "4"}
        table = table_of(events)
        assert places(table) == [(1, "b", False), (2, "c", False), (3, "a", False)]
        assert decided_by(table) == {
            "b": "",
            "c": "cycle placings 4 (3+1)–4 (1+3)",
            "a": "cycle placings 4 (1+3)–4 (2+2)",
        }


def test_three_plus_one_beats_one_plus_three_between_two_players():
    # cycle 1: b beat a, a-c =, b-c =   -> b 1½, c 1, a ½: b 1, c 2, a 3
    # cycle 2: a beat b, a-c =, b-c =   -> a 1½, c 1, b ½: a 1, c 2, b 3
    # All on 2. Mini-table 2-2-2. Sonneborn: a beat b (2) = 2, b beat a = 2, c no win = 0 ->
    # c last; a and b: 1 : 1, next criterion B4: a 3+1 beats b 1+3.
    events = tournament("czech-multi", "ab0 ac= bc=", "ba0 ca= cb=")
    table = table_of(events)
    assert [r.player_id for r in table.rows] == ["a", "b", "c"]
    assert decided_by(table)["b"] == "cycle placings 4 (3+1)–4 (1+3)"
    assert decided_by(table)["c"] == "Sonneborn (wins) 2–0"


def test_lower_sum_of_cycle_placings_wins():
    # cycle 1: a beat b, a beat c, b beat c   -> a 1, b 2, c 3
    # cycle 2: b beat a, a-c =, b-c =         -> b 1½, c 1, a ½: b 1, c 2, a 3
    # a and b on 2½, 1 : 1. Sonneborn: a beat b (2½), c (1) = 3½; b beat c (1), a (2½) = 3½.
    # B4a: b 2+1 = 3 < a 1+3 = 4.
    events = tournament("czech-multi", "ab1 ac1 bc1", "ba1 ca= cb=")
    table = table_of(events)
    assert [r.player_id for r in table.rows] == ["b", "a", "c"]
    assert decided_by(table)["a"] == "cycle placings 3 (2+1)–4 (1+3)"


# Four players, two cycles, all four end on 3:
#   cycle 1: a-b =, a-c =, d beat a, c beat b, b beat d, d beat c
#            -> d 2: 1; b and c 1½, c beat b: c 2, b 3; a 1: 4
#   cycle 2: b beat a, a beat c, a beat d, c beat b, b-d =, c-d =
#            -> a 2: 1; b and c 1½, c beat b: c 2, b 3; d 1: 4
# Mini-table 3-3-3-3; Sonneborn: a beat c, d; b beat d, a; c beat b twice; d beat a, c:
# each two players of 3 -> 6. Cycle placings: a 4+1, b 3+3, c 2+2, d 1+4.
#   a. c (4) first, b (6) last; b./c. a and d both 1 and 4: a has the 1 in the later cycle.
FOUR_CYCLES = ("ab= ac= da1 cb1 bd1 dc1", "ba1 ac1 ad1 cb1 bd= cd=")


def test_four_way_tie_ordered_by_cycle_placings():
    events = tournament("czech-multi", *FOUR_CYCLES)
    ct = ct_of(events)
    assert shown("czech-mini-table", ct, "abcd") == dict.fromkeys("abcd", "3")
    assert shown("czech-sonneborn", ct, "abcd") == dict.fromkeys("abcd", "6")
    table = table_of(events)
    assert places(table) == [(1, "c", False), (2, "a", False), (3, "d", False), (4, "b", False)]
    assert decided_by(table) == {
        "c": "",
        "a": "cycle placings 4 (2+2)–5 (4+1)",
        "d": "cycle placings 5 (4+1)–5 (1+4)",
        "b": "cycle placings 5 (1+4)–6 (3+3)",
    }


# ---------------------------------------------------------------------------------------------
# B6: placings of beaten players per cycle


def test_b6_sums_the_cycle_placings_of_the_players_beaten_in_each_cycle():
    # FOUR_CYCLES, cycle placings: cycle 1 d 1, c 2, b 3, a 4; cycle 2 a 1, c 2, b 3, d 4.
    #   a: cycle 1 no win (0); cycle 2 beat c (2), d (4) = 6       -> 6 (0+6)
    #   b: cycle 1 beat d (1); cycle 2 beat a (1)                  -> 2 (1+1)
    #   c: beat b (3) in both cycles                               -> 6 (3+3)
    #   d: cycle 1 beat a (4), c (2); cycle 2 no win               -> 6 (6+0)
    ct = ct_of(tournament("czech-multi", *FOUR_CYCLES))
    assert shown("czech-beaten-placings-per-cycle", ct, "abcd") == {
        "a": "6 (0+6)",
        "b": "2 (1+1)",
        "c": "6 (3+3)",
        "d": "6 (6+0)",
    }


# Seven players, two identical cycles (colours reversed in the second). One cycle:
#   p-q =; p beat x, u, v, w, drew y; q beat y, u, v, w, drew x;
#   x-y =, x beat u, drew v and w; y beat v, drew u and w; u beat v; w beat u; v beat w.
#   p 5, q 5, x 3, y 3, w 2, u 1½, v 1½ (21 = 7·6/2).
# Criteria 1–3 in a cycle: p, q drew, Sonneborn p (x 3 + u 1½ + v 1½ + w 2 = 8) = q (y 3 +
# u 1½ + v 1½ + w 2 = 8) -> share 1; x, y drew, Sonneborn x (u 1½) = y (v 1½) -> share 3;
# w 5; u beat v -> u 6, v 7. Rules A (A4) then part x and y: x beat u (6) < y beat v (7)
# -> x 3, y 4; p and q stay level (A4: 3+6+7+5 = 21 both; a single drawn game, no last-game
# winner) -> share 1.
# Overall (both cycles): p, q 10, 1 : 1, Sonneborn 32 each, cycle placings 1+1 each, B5
# (overall placings by criteria 1–3, the same as in a cycle) 42 each.
# B6 (cycle placings of rules A): p beat x (3), u (6), v (7), w (5) = 21 per cycle -> 42;
# q beat y (4), u, v, w = 22 per cycle -> 44. p is ahead, on B6 alone.
CYCLE = "pq= px1 py= pu1 pv1 pw1 qy1 qx= qu1 qv1 qw1 xy= xu1 xv= xw= yv1 yu= yw= uv1 wu1 vw1"
B6 = (CYCLE, colours_reversed(CYCLE))


def test_tie_decided_by_b6_alone():
    events = tournament("czech-multi", *B6)
    ct = ct_of(events)
    assert cycle_placings(ct)["p"] == cycle_placings(ct)["q"] == [1, 1]
    assert cycle_placings(ct)["x"] == [3, 3]
    assert cycle_placings(ct)["y"] == [4, 4]
    table = table_of(events)
    assert [r.player_id for r in table.rows] == ["p", "q", "x", "y", "w", "u", "v"]
    assert decided_by(table)["q"] == "placings of beaten players per cycle 42 (21+21)–44 (22+22)"
    assert steps(table, "p", "q") == [
        ("points", "10", "10", False),
        ("pairwise-head-to-head", "1", "1", False),
        ("czech-mini-table", "1", "1", False),
        ("czech-sonneborn", "32", "32", False),
        ("czech-cycle-placings", "2 (1+1)", "2 (1+1)", False),
        ("czech-beaten-placings", "42 (3+6+7+5+3+6+7+5)", "42 (3+6+7+5+3+6+7+5)", False),
        ("czech-beaten-placings-per-cycle", "42 (21+21)", "44 (22+22)", True),
    ]
    # x and y: 6 each, drawn twice, Sonneborn u twice = v twice = 6 -> B4 3+3 before 4+4.
    assert decided_by(table)["y"] == "cycle placings 6 (3+3)–8 (4+4)"


def test_b6_with_placings_by_criteria_1_to_3_cannot_separate_what_b4_left_level():
    # The other reading of B6 (cycle tables ranked by criteria A1–A3): x and y share 3 in each
    # cycle, so p and q both get 3+6+7+5 = 21 per cycle; they share first place.
    ct = ct_of(tournament("czech-multi", *B6))
    assert shown("czech-beaten-placings-per-cycle", ct, "pq", placings="criteria-1-3") == {
        "p": "42 (21+21)",
        "q": "42 (21+21)",
    }
    specs = tuple(
        TiebreakSpec(name=s.name, params={"placings": "criteria-1-3"})
        if s.name == "czech-beaten-placings-per-cycle"
        else s
        for s in PRESETS["czech-multi"].specs
    )
    assert validate(specs) == []
    ranking = rank(ct, Chain(specs, TiebreakOptions(pairwise_head_to_head=True)))
    assert ranking.blocks[0] == ["p", "q"]
    bad = (TiebreakSpec(name="czech-beaten-placings-per-cycle", params={"placings": "final"}),)
    assert validate(bad)[0][1] == "params"


# ---------------------------------------------------------------------------------------------
# The last game: "i zde se upřednostňuje vítěz posledního zápasu, případně předposledního,
# jestliže poslední byla remíza (nelze aplikovat na výsledek 0,5:0,5)"


def test_last_game_winner_values():
    # a beat b, then b beat a: 1 : 1, b won the last game (round 2).
    ct = ct_of(tournament("czech-multi", "ab1", "ab0"))
    assert shown("czech-last-game-winner", ct, "ab") == {"a": "lost round 2", "b": "won round 2"}
    # a beat b, b beat a, drawn: 1½ : 1½, the last game drawn -> the one before: b.
    ct = ct_of(tournament("czech-multi", "ab1", "ab0", "ab="))
    assert shown("czech-last-game-winner", ct, "ab") == {"a": "lost round 2", "b": "won round 2"}
    # A single drawn game (½ : ½) or only draws: no winner to find.
    ct = ct_of(tournament("czech-single", "ab="))
    assert shown("czech-last-game-winner", ct, "ab") == {"a": "–", "b": "–"}
    ct = ct_of(tournament("czech-multi", "ab=", "ab="))
    assert shown("czech-last-game-winner", ct, "ab") == {"a": "–", "b": "–"}
    # Not level (2 : 0): the head-to-head itself decides, the rule does not apply.
    ct = ct_of(tournament("czech-multi", "ab1", "ab1"))
    assert shown("czech-last-game-winner", ct, "ab") == {"a": "–", "b": "–"}


def test_last_game_winner_is_for_two_players_only():
    ct = ct_of(tournament("czech-single", "ab1 bc1 ca1"))
    assert shown("czech-last-game-winner", ct, "abc") == dict.fromkeys("abc", "–")
    # A cyclic three-way tie is level on everything: all three share first place.
    table = table_of(tournament("czech-single", "ab1 bc1 ca1"))
    assert places(table) == [(1, "a", True), (1, "b", True), (1, "c", True)]


# Three players, three cycles:
#   cycle 1: a beat b, b beat c, c beat a   -> 1 each, level on everything: all share 1
#   cycle 2: b beat a, a beat c, c beat b   -> the same: all share 1
#   cycle 3: a-b =, a beat c, b beat c      -> a and b 1½, drawn, Sonneborn 0 = 0 (beat c, 0
#            points), A4 3 = 3, one drawn game -> share 1; c 3
# Overall: a 3½, b 3½, c 2. a-b 1½ : 1½. Mini-table 1½-1½. Sonneborn: a beat b (3½), c, c
# (2 each) = 7½; b beat c, a, c = 7½. Cycle placings 1+1+1 both. B5: placings by criteria
# 1–3 a 1, b 1, c 3: a 1+3+3 = 7, b 3+1+3 = 7. B6: a beat b (1), c (1), c (3) = 5; b beat c
# (1), a (1), c (3) = 5. Every criterion level; the head-to-head ended 1½ : 1½, the last game
# (cycle 3) was drawn, the one before it (round 4, cycle 2) was won by b -> b first.
LAST_GAME = ("ab1 bc1 ca1", "ba1 ac1 cb1", "ab= ac1 bc1")


def test_tie_broken_only_by_the_last_game_winner():
    table = table_of(tournament("czech-multi", *LAST_GAME))
    assert places(table) == [(1, "b", False), (2, "a", False), (3, "c", False)]
    assert decided_by(table)["a"] == "last decisive mutual game won round 4–lost round 4"
    assert steps(table, "b", "a") == [
        ("points", "3½", "3½", False),
        ("pairwise-head-to-head", "1½", "1½", False),
        ("czech-mini-table", "1½", "1½", False),
        ("czech-sonneborn", "7½", "7½", False),
        ("czech-cycle-placings", "3 (1+1+1)", "3 (1+1+1)", False),
        ("czech-beaten-placings", "7 (3+1+3)", "7 (1+3+3)", False),
        ("czech-beaten-placings-per-cycle", "5 (1+1+3)", "5 (1+1+3)", False),
        ("czech-last-game-winner", "won round 4", "lost round 4", True),
    ]


# ---------------------------------------------------------------------------------------------
# Shared places and the presets


def test_players_level_after_every_criterion_share_the_place():
    # a beat everyone (3); b-c drawn, both lost to a and beat d (1½ each); d 0.
    # b and c: ½ : ½, mini-table ½-½, Sonneborn d's 0 = 0, A4 d placed 4 = 4, a single drawn
    # game (no last-game winner) -> they share 2; d is 4th: 1, 2, 2, 4.
    table = table_of(tournament("czech-single", "ab1 ac1 ad1 bc= bd1 cd1"))
    assert places(table) == [(1, "a", False), (2, "b", True), (2, "c", True), (4, "d", False)]
    assert decided_by(table) == {"a": "", "b": "points 3–1½", "c": "shared", "d": "points 1½–0"}
    assert [s[0] for s in steps(table, "b", "c")] == [
        "points",
        "pairwise-head-to-head",
        "czech-mini-table",
        "czech-sonneborn",
        "czech-beaten-placings",
        "czech-last-game-winner",
    ]
    assert not any(s[3] for s in steps(table, "b", "c"))


def test_presets_apply_the_two_player_rule_and_end_in_a_shared_place():
    single = [s.name for s in PRESETS["czech-single"].specs]
    multi = [s.name for s in PRESETS["czech-multi"].specs]
    assert single == [
        "czech-mini-table",
        "czech-sonneborn",
        "czech-beaten-placings",
        "czech-last-game-winner",
        "shared-place",
    ]
    assert multi == [
        "czech-mini-table",
        "czech-sonneborn",
        "czech-cycle-placings",
        "czech-beaten-placings",
        "czech-beaten-placings-per-cycle",
        "czech-last-game-winner",
        "shared-place",
    ]
    for name in ("czech-single", "czech-multi"):
        chain = PRESETS[name]
        assert ALL_PRESETS[name] == chain
        assert chain.options.pairwise_head_to_head
        assert validate(chain.specs) == []
    for name in set(single + multi) - {"shared-place"}:
        crit = REGISTRY[name]
        assert crit.source.startswith("Czech club rules") and crit.doc
    assert REGISTRY["czech-mini-table"].reapply
    assert REGISTRY["czech-last-game-winner"].group_relative


# Issue 12: four players level on points, a pair of them separated by the last decisive game.
# Two cycles (rounds 1–6, 7–12), one game per round:
#   cycle 1: b beat c, d beat b, c beat d, a-d =, a-c =, b-a =
#   cycle 2: b beat d, a beat c, b-a =, c beat b, c-d =, d beat a
# Points: a ½+½+½ + 1+½+0 = 3; b 1+0+½ + 1+½+0 = 3; c 0+1+½ + 0+1+½ = 3; d 1+0+½ + 0+½+1 = 3.
# Mini-table (all four): the points, level. Sonneborn (wins): a beat c (3) = 3; b beat c, d,
# c beat d, b, d beat b, a: 6 each -> a 4th. b, c, d: cycle placings 1+1 each (b, c, d level
# on everything in either cycle); placings of beaten players (places by criteria 1–3: b, c, d
# share 1, a 4): b 1+1, c 1+1, d 1+4 -> d 3rd. b and c: head-to-head 1 : 1; B6 per cycle 1+1
# both; the last decisive game between them is round 10 (c beat b): c 1st, b 2nd.
FOUR_WAY_LAST_GAME = ("cb0 db1 cd1 ad= ac= ba=", "bd1 ca0 ba= cb1 cd= da1")


def test_last_game_column_shows_the_game_that_decided_a_pair_inside_a_larger_tie():
    table = table_of(tournament("czech-multi", *FOUR_WAY_LAST_GAME))
    assert places(table) == [(1, "c", False), (2, "b", False), (3, "d", False), (4, "a", False)]
    assert decided_by(table)["b"] == "last decisive mutual game won round 10–lost round 10"
    column = {r.player_id: dict(r.tiebreaks)["czech-last-game-winner"] for r in table.rows}
    # The column as the rule was applied (to the pair b, c), not over the points group.
    assert column == {"c": "won round 10", "b": "lost round 10", "d": "–", "a": "–"}
    # Over a group larger than two the rule still separates nobody (display only).
    ct = ct_of(tournament("czech-multi", *FOUR_WAY_LAST_GAME))
    values = REGISTRY["czech-last-game-winner"].compute(ct, list("abcd"), {})
    assert {v.key for v in values.values()} == {None}
