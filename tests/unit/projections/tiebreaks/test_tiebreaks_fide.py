"""FIDE tie-breaks under C.07 2024 (the texts applied from July 2023 to February 2026, the
edition `fide-2024`; the 2026 text is in test_tiebreaks_fide_2026.py): worked examples computed
by hand.

Every tournament is built from events, folded, and read through `REGISTRY[name].compute`; the
hand computation is in the comments, in points (the crosstable counts half-points). Scoring is
FIDE's default: win 1, draw ½, pairing-allocated bye and forfeit win 1, half-point bye ½.

Vocabulary of C.07 Art. 16: a VUR (voluntarily unplayed round) is a requested bye (half- or
zero-point), an absence or a round after a withdrawal, or a forfeit loss. As someone's
opponent, a player's unplayed rounds count what they gave, except requested byes / absences
not followed by any non-VUR round, which count as draws (16.3). In the player's own Buchholz
and Sonneborn-Berger every unplayed round is a game against a dummy with the player's own
score (16.4). A cut takes a VUR's contribution first unless it is below the least significant
value (16.5).
"""

from __future__ import annotations

from typing import Any

import pytest
from builders import created, player, recorded, result

from events_schema import Event
from events_schema import events as ev
from projections.standings import Crosstable, StandingsState, crosstable, fold, standings
from projections.tiebreaks import REGISTRY, Chain, rank, validate
from projections.tiebreaks.fide import PRESETS, adjusted_score, performance
from projections.tiebreaks.presets import PRESETS as ALL_PRESETS
from projections.tiebreaks.registry import resolve_params

Game = tuple[str, str, str, str] | tuple[str, str, str, str, str]


def rnd(
    n: int,
    *games: Game,
    pab: tuple[str, ...] = (),
    half: tuple[str, ...] = (),
    zero: tuple[str, ...] = (),
) -> list[Event]:
    """Round n: games (id, White, Black, result[, termination]) and their results, and byes:
    pairing-allocated, half-point and zero-point (requested)."""
    byes = [
        *(ev.Bye(player_id=p, kind="pairing_allocated") for p in pab),
        *(ev.Bye(player_id=p, kind="half") for p in half),
        *(ev.Bye(player_id=p, kind="zero") for p in zero),
    ]
    pairings = [ev.Pairing(game_id=g[0], white=g[1], black=g[2]) for g in games]
    out: list[Event] = [ev.RoundScheduled(round=n, pairings=pairings, byes=byes)]
    out += [result(g[0], g[3], g[4] if len(g) == 5 else "agreement") for g in games]
    return out


def forfeit(gid: str, white: str, black: str, res: str) -> Game:
    return (gid, white, black, res, "forfeit")


def state_of(*events: Event | list[Event]) -> StandingsState:
    flat: list[Event] = []
    for e in events:
        flat += e if isinstance(e, list) else [e]
    return fold(recorded("t1", flat))


def values(ct: Crosstable, name: str, group: tuple[str, ...] | None = None, **params: Any):
    crit = REGISTRY[name]
    return crit.compute(ct, group or tuple(ct.players), resolve_params(crit, params))


def shown(ct: Crosstable, name: str, group: tuple[str, ...] | None = None, **params: Any):
    return {p: v.shown for p, v in values(ct, name, group, **params).items()}


def order(state: StandingsState) -> list[tuple[int, str, str]]:
    return [(r.place, r.player_id, r.decided_by) for r in standings(state).rows]


RATINGS = {"a": 2000, "b": 1900, "c": 1800, "d": 1700, "e": 1600, "f": 1500}


def swiss(*names: str, **kw: Any) -> list[Event]:
    kw.setdefault("rules_preset", "fide-swiss")
    return [created(fmt="swiss", **kw), *[player(p, RATINGS.get(p)) for p in names]]


# --- T1: byes -------------------------------------------------------------------------------
#
#        R1            R2            R3            points
#   a    b  W 1        e  B 1        c  W ½        2½
#   b    a  B 0        d  W 1        zero-pt bye   1
#   c    d  W ½        half-pt bye   a  B ½        1½
#   d    c  B ½        b  B 0        e  W 1        1½
#   e    pairing bye   a  W 0        d  B 0        1
#
# Adjusted scores (16.3): b's zero-point bye is in the last round, followed by no non-VUR
# round: category 16.2.5, counted as a draw, so b counts 0+1+½ = 1½ for his opponents. c's
# half-point bye is followed by a game (16.2.3): counted as given, c stays 1½. e's pairing bye
# is not voluntary (16.2.1): e stays 1.


def t1() -> StandingsState:
    return state_of(
        swiss("a", "b", "c", "d", "e", rounds=3),
        rnd(1, ("g1", "a", "b", "1-0"), ("g2", "c", "d", "1/2-1/2"), pab=("e",)),
        rnd(2, ("g3", "e", "a", "0-1"), ("g4", "b", "d", "1-0"), half=("c",)),
        rnd(3, ("g5", "a", "c", "1/2-1/2"), ("g6", "d", "e", "1-0"), zero=("b",)),
    )


def t1_ct() -> Crosstable:
    return crosstable(t1())


def test_adjusted_scores_with_byes():
    ct = t1_ct()
    assert {p: adjusted_score(ct, p) for p in ct.players} == {
        "a": 5,  # 2½: no unplayed round
        "b": 3,  # 1 + the last-round zero-point bye counted as a draw (16.2.5) = 1½
        "c": 3,  # 1½: the half-point bye was followed by a game (16.2.3)
        "d": 3,
        "e": 2,  # 1: the pairing-allocated bye counts as given (16.2.1)
    }


def test_buchholz_with_byes():
    # a: b 1½ (adjusted) + e 1 + c 1½ = 4
    # b: a 2½ + d 1½ + dummy for the zero-point bye = own score 1 = 5
    # c: d 1½ + dummy for the half-point bye = own 1½ + a 2½ = 5½
    # d: c 1½ + b 1½ (adjusted) + e 1 = 4
    # e: dummy for the pairing bye = own 1 + a 2½ + d 1½ = 5
    assert shown(t1_ct(), "buchholz") == {"a": "4", "b": "5", "c": "5½", "d": "4", "e": "5"}


def test_buchholz_cut1_with_byes():
    # a: cut e 1 -> 3; d: cut e 1 -> 3.
    # b: the VUR (zero-point bye dummy 1) is also the lowest: cut -> 2½ + 1½ = 4.
    # c: contributions d 1½, VUR 1½, a 2½; the VUR (1½) is not below the least significant
    #    value (1½), so the VUR is cut (16.5) -> 4.
    # e: the pairing bye dummy (1) is not a VUR; it is the lowest anyway -> 4.
    assert shown(t1_ct(), "buchholz-cut1") == {"a": "3", "b": "4", "c": "4", "d": "3", "e": "4"}


def test_buchholz_median1_with_byes():
    # Median-1 drops the lowest and the highest: a: [1½, 1, 1½] -> 1½; b: [2½, 1½, 1(VUR)] -> 1½;
    # c: [1½, 1½ VUR, 2½] -> the VUR and 2½ go -> 1½; d: [1½, 1½, 1] -> 1½; e: [1, 2½, 1½] -> 1½.
    assert set(shown(t1_ct(), "buchholz-median1").values()) == {"1½"}


def test_sonneborn_berger_with_byes():
    # a: b 1½ x 1 + e 1 x 1 + c 1½ x ½ = 3.25
    # b: a x 0 + d 1½ x 1 + zero-bye dummy 1 x 0 = 1.5
    # c: d 1½ x ½ + half-bye dummy 1½ x ½ + a 2½ x ½ = 0.75 + 0.75 + 1.25 = 2.75
    # d: c 1½ x ½ + b x 0 + e 1 x 1 = 1.75
    # e: pairing-bye dummy 1 x 1 + a x 0 + d x 0 = 1
    assert shown(t1_ct(), "fide-sonneborn-berger") == {
        "a": "3¼",
        "b": "1½",
        "c": "2¾",
        "d": "1¾",
        "e": "1",
    }
    # The plain Sonneborn-Berger of common.py ignores byes and takes b's actual score (1):
    # a = 1 + 1 + 0.75 = 2.75, and e's pairing bye adds nothing.
    assert shown(t1_ct(), "sonneborn-berger")["a"] == "2¾"
    assert shown(t1_ct(), "sonneborn-berger")["e"] == "0"


def test_own_results_with_byes():
    ct = t1_ct()
    # WIN counts a win's points with or without playing: e's pairing bye is a win.
    assert shown(ct, "fide-wins") == {"a": "2", "b": "1", "c": "0", "d": "1", "e": "1"}
    # WON: over the board only.
    assert shown(ct, "fide-games-won") == {"a": "2", "b": "1", "c": "0", "d": "1", "e": "0"}
    # BPG: a R2, b R1, c R3, d R1+R2, e R3; byes have no colour.
    assert shown(ct, "fide-black-games") == {"a": "1", "b": "1", "c": "1", "d": "2", "e": "1"}
    # BWG: only a won with Black (R2 against e).
    assert shown(ct, "fide-black-wins") == {"a": "1", "b": "0", "c": "0", "d": "0", "e": "0"}


def test_progressive_with_byes():
    # Running scores: a 1, 2, 2½ = 5½; b 0, 1, 1 = 2; c ½, 1, 1½ = 3 (the half-point bye adds ½);
    # d ½, ½, 1½ = 2½; e 1, 1, 1 = 3 (the pairing bye counts).
    ct = t1_ct()
    assert shown(ct, "fide-progressive") == {"a": "5½", "b": "2", "c": "3", "d": "2½", "e": "3"}
    # Cut-1 leaves out round 1's running score.
    assert shown(ct, "fide-progressive-cut1") == {
        "a": "4½",
        "b": "2",
        "c": "2½",
        "d": "2",
        "e": "2",
    }


def test_koya_and_direct_encounter_ignore_byes():
    ct = t1_ct()
    # Koya: 5 players, 4 games each: the limit is 2 (50 % of 4); only a (2½) qualifies. Byes
    # have no opponent: b 0 (lost to a), c ½ (drew with a), e 0 (its pairing bye is no game).
    assert shown(ct, "fide-koya") == {"a": "0", "b": "0", "c": "½", "d": "0", "e": "0"}
    # b and e (1 point each) never met; their byes are not games between them.
    assert shown(ct, "fide-direct-encounter", ("b", "e")) == {"b": "0 (max 1)", "e": "0 (max 1)"}


def test_ratings_with_byes():
    ct = t1_ct()
    # ARO, games over the board only (e's pairing bye is not a game):
    # a: (1900 + 1600 + 1800) / 3 = 1766.67 -> 1767; b: (2000 + 1700) / 2 = 1850;
    # c: (1700 + 2000) / 2 = 1850; d: (1800 + 1900 + 1600) / 3 -> 1767; e: (2000 + 1700) / 2.
    assert shown(ct, "fide-aro") == {
        "a": "1767",
        "b": "1850",
        "c": "1850",
        "d": "1767",
        "e": "1850",
    }
    # ARO Cut-1 leaves out the lowest-rated opponent: a (1900 + 1800) / 2 = 1850, b 2000, ...
    assert shown(ct, "fide-aro-cut1")["a"] == "1850"
    assert shown(ct, "fide-aro-cut1")["e"] == "2000"
    # TPR = ARO + dp(p), p over the games played (the half-point bye and byes do not count):
    # a 2½/3 = 0.83 -> dp 273 -> 2040; b 1/2 -> 0 -> 1850; c 1/2 (two draws) -> 1850;
    # d 1½/3 -> 1767; e 0/2 -> dp -800 -> 1050.
    assert shown(ct, "fide-tpr") == {
        "a": "2040",
        "b": "1850",
        "c": "1850",
        "d": "1767",
        "e": "1050",
    }
    # APRO, the mean TPR of the opponents met over the board, .5 rounded up:
    # a: (1850 + 1050 + 1850) / 3 = 1583.3 -> 1583; b: (2040 + 1767) / 2 = 1903.5 -> 1904.
    apro = shown(ct, "fide-apro")
    assert (apro["a"], apro["b"], apro["c"], apro["e"]) == ("1583", "1904", "1904", "1904")


def test_standings_with_byes():
    # a 2½ first. c, d on 1½: Buchholz Cut-1 4-3. b, e on 1: Buchholz Cut-1 4-4, Buchholz 5-5,
    # never met (direct encounter: 0 each, 1 at most: nobody alone on top), Sonneborn-Berger
    # 1.5-1.
    assert order(t1()) == [
        (1, "a", ""),
        (2, "c", "points 2½–1½"),
        (3, "d", "Buchholz Cut-1 4–3"),
        (4, "b", "points 1½–1"),
        (5, "e", "Sonneborn-Berger 1½–1"),
    ]
    row = {r.player_id: r for r in standings(t1()).rows}
    assert dict(row["b"].tiebreaks) == {
        "buchholz-cut1": "4",
        "buchholz": "5",
        "fide-direct-encounter": "0 (max 1)",
        "fide-sonneborn-berger": "1½",
        "fide-wins": "1",
    }


# --- T2: forfeits and a withdrawal ----------------------------------------------------------
#
#        R1             R2          R3            R4              points
#   a    d  W 1         f  B 1      c  W ½        b  B ½          3
#   b    e  W 1 (ff)    c  B 0      d  B 1        a  W ½          2½
#   c    f  W ½         b  W 1      a  B ½        e  B 0 (ff)     2
#   d    a  B 0         e  B ½      b  W 0        pairing bye     1½
#   e    b  B 0 (ff)    d  W ½      pairing bye   c  W 1 (ff)     2½
#   f    c  B ½         a  W 0      withdrew from round 3         ½
#
# VURs: e R1 (forfeit loss), c R4 (forfeit loss), f R3 and R4 (after the withdrawal: 16.1
# makes them zero-point byes). f's rounds 3-4 follow no non-VUR round (16.2.5): for his
# opponents f counts ½ + 0 + ½ + ½ = 1½. c's forfeit loss is category 16.2.4: counted as
# given, c stays 2.


def t2(**kw: Any) -> StandingsState:
    return state_of(
        swiss("a", "b", "c", "d", "e", "f", rounds=4, **kw),
        rnd(
            1,
            ("g1", "a", "d", "1-0"),
            forfeit("g2", "b", "e", "1-0"),
            ("g3", "c", "f", "1/2-1/2"),
        ),
        rnd(2, ("g4", "f", "a", "0-1"), ("g5", "c", "b", "1-0"), ("g6", "e", "d", "1/2-1/2")),
        ev.PlayerWithdrew(player_id="f", from_round=3),
        rnd(3, ("g7", "a", "c", "1/2-1/2"), ("g8", "d", "b", "0-1"), pab=("e",)),
        rnd(4, ("g9", "b", "a", "1/2-1/2"), forfeit("g10", "e", "c", "1-0"), pab=("d",)),
    )


def t2_ct() -> Crosstable:
    return crosstable(t2())


def test_adjusted_score_of_a_withdrawn_player():
    ct = t2_ct()
    assert ct.withdrawn == {"f": 3}
    assert adjusted_score(ct, "f") == 3  # ½ + 0 + ½ + ½: both missing rounds count as draws
    assert adjusted_score(ct, "c") == 4  # 2: a forfeit loss counts as given (16.2.4)


def test_buchholz_with_forfeits_and_a_withdrawal():
    # a: d 1½ + f 1½ (adjusted for the withdrawal, actual ½) + c 2 + b 2½ = 7½
    # b: forfeit win = dummy own 2½ + c 2 + d 1½ + a 3 = 9
    # c: f 1½ + b 2½ + a 3 + forfeit loss = dummy own 2 = 9
    # d: a 3 + e 2½ + b 2½ + pairing bye = dummy own 1½ = 9½
    # e: forfeit loss = dummy 2½ + d 1½ + pairing bye 2½ + forfeit win 2½ = 9
    # f: c 2 + a 3 + two absences = dummy own ½ each = 6
    assert shown(t2_ct(), "buchholz") == {
        "a": "7½",
        "b": "9",
        "c": "9",
        "d": "9½",
        "e": "9",
        "f": "6",
    }


def test_buchholz_cut1_cuts_the_voluntarily_unplayed_round_first():
    # b: no VUR, cut the lowest (d 1½) -> 7½.
    # c: least significant value f 1½, VUR (forfeit loss) 2; the VUR is not below it, so the VUR
    #    is cut (16.5): 9 - 2 = 7 (cutting f would have left 7½).
    # e: least significant value d 1½, VUR (forfeit loss) 2½: the VUR is cut: 9 - 2½ = 6½.
    # d: the pairing bye (1½) is not a VUR; the lowest is cut -> 8.
    # f: the absences' dummies (½) are VURs and the lowest -> 5½.
    assert shown(t2_ct(), "buchholz-cut1") == {
        "a": "6",
        "b": "7½",
        "c": "7",
        "d": "8",
        "e": "6½",
        "f": "5½",
    }


def test_sonneborn_berger_with_forfeits_and_a_withdrawal():
    # a: d 1½ x 1 + f 1½ x 1 + c 2 x ½ + b 2½ x ½ = 5.25
    # b: forfeit win: dummy 2½ x 1 + c x 0 + d 1½ x 1 + a 3 x ½ = 5.5
    # c: f 1½ x ½ + b 2½ x 1 + a 3 x ½ + forfeit loss dummy 2 x 0 = 4.75
    # d: a x 0 + e 2½ x ½ + b x 0 + pairing bye dummy 1½ x 1 = 2.75
    # e: forfeit loss 0 + d 1½ x ½ + pairing bye 2½ + forfeit win 2½ = 5.75
    # f: c 2 x ½ + a x 0 + absences x 0 = 1
    assert shown(t2_ct(), "fide-sonneborn-berger") == {
        "a": "5¼",
        "b": "5½",
        "c": "4¾",
        "d": "2¾",
        "e": "5¾",
        "f": "1",
    }


def test_sonneborn_berger_cut1_keeps_a_vur_below_the_least_significant_value():
    # c: contributions f 0.75 (lowest-scored opponent: the least significant value), b 2.5,
    #    a 1.5, VUR 0. The VUR's 0 is below 0.75, so the least significant value is cut:
    #    4.75 - 0.75 = 4.
    # e: VUR 0, d 0.75 (least significant), bye 2.5, forfeit win 2.5: d is cut -> 5.
    # b: no VUR: d (1½, the lowest-scored opponent) contributes 1.5 -> 4.
    sb = shown(t2_ct(), "fide-sonneborn-berger-cut1")
    assert (sb["c"], sb["e"], sb["b"]) == ("4", "5", "4")


def test_own_results_with_forfeits():
    ct = t2_ct()
    # WIN: b's and e's forfeit wins and e's, d's pairing byes count.
    assert shown(ct, "fide-wins") == {"a": "2", "b": "2", "c": "1", "d": "1", "e": "2", "f": "0"}
    # WON: over the board only.
    assert shown(ct, "fide-games-won") == {
        "a": "2",
        "b": "1",
        "c": "1",
        "d": "0",
        "e": "0",
        "f": "0",
    }
    # BPG: e's R1 and c's R4 Black games were forfeited: not games played.
    assert shown(ct, "fide-black-games") == {
        "a": "2",
        "b": "2",
        "c": "1",
        "d": "2",
        "e": "0",
        "f": "1",
    }
    # BWG: a R2 (f-a 0-1), b R3 (d-b 0-1).
    assert shown(ct, "fide-black-wins") == {
        "a": "1",
        "b": "1",
        "c": "0",
        "d": "0",
        "e": "0",
        "f": "0",
    }


def test_progressive_with_forfeits_and_a_withdrawal():
    # a 1, 2, 2½, 3 = 8½; b 1, 1, 2, 2½ = 6½; c ½, 1½, 2, 2 = 6; d 0, ½, ½, 1½ = 2½;
    # e 0, ½, 1½, 2½ = 4½; f ½, ½, ½, ½ = 2 (rounds after the withdrawal add nothing).
    assert shown(t2_ct(), "fide-progressive") == {
        "a": "8½",
        "b": "6½",
        "c": "6",
        "d": "2½",
        "e": "4½",
        "f": "2",
    }
    assert shown(t2_ct(), "fide-progressive-cut2")["a"] == "5½"  # 2½ + 3


def test_ratings_with_forfeits():
    ct = t2_ct()
    # Forfeits are not games (Art. 10): b's ARO is (1800 + 1700 + 2000) / 3 = 1833.3 -> 1833,
    # e's is d's 1700 only; a: (1700 + 1500 + 1800 + 1900) / 4 = 1725.
    aro = shown(ct, "fide-aro")
    assert (aro["a"], aro["b"], aro["c"], aro["e"]) == ("1725", "1833", "1800", "1700")
    # TPR: a 3/4 -> dp 193 -> 1918; b 1½/3 (the forfeit win does not count) -> 1833;
    # c 2/3 = 0.67 -> dp 125 -> 1925; d ½/3 = 0.17 -> dp -273 -> 1560; e ½/1 -> 1700.
    tpr = shown(ct, "fide-tpr")
    assert tpr == {"a": "1918", "b": "1833", "c": "1925", "d": "1560", "e": "1700", "f": "1707"}
    # APRO of e: its only opponent over the board is d (1560).
    assert shown(ct, "fide-apro")["e"] == "1560"


def test_direct_encounter_ignores_a_forfeit_in_a_swiss():
    ct = t2_ct()
    # b and e (2½) met only in a forfeited game: in a Swiss they have not met (6.1), each has 0
    # and could have 1: nobody is alone on top.
    de = values(ct, "fide-direct-encounter", ("b", "e"))
    assert {p: v.shown for p, v in de.items()} == {"b": "0 (max 1)", "e": "0 (max 1)"}
    assert de["b"].key == de["e"].key
    # With pre-determined pairings the forfeit is a game: b 1, e 0.
    assert shown(ct, "fide-direct-encounter", ("b", "e"), predetermined=True) == {
        "b": "1",
        "e": "0",
    }


def test_standings_with_forfeits_and_a_withdrawal():
    # b and e on 2½: Buchholz Cut-1 7½-6½ (e's forfeit loss is cut first, 16.5).
    assert order(t2()) == [
        (1, "a", ""),
        (2, "b", "points 3–2½"),
        (3, "e", "Buchholz Cut-1 7½–6½"),
        (4, "c", "points 2½–2"),
        (5, "d", "points 2–1½"),
        (6, "f", "points 1½–½"),
    ]


# --- T3: three players level in a Swiss -----------------------------------------------------
#
#        R1         R2         R3         points
#   a    b  W 1     c  W 1     d  B 0     2
#   b    a  B 0     e  W 1     f  W 1     2
#   c    d  W 1     a  B 0     e  W 1     2
#   d    c  B 0     f  W ½     a  W 1     1½
#   e    f  W 1     b  B 0     c  B 0     1
#   f    e  B 0     d  B ½     b  B 0     ½


def t3(**kw: Any) -> StandingsState:
    return state_of(
        swiss("a", "b", "c", "d", "e", "f", rounds=3, **kw),
        rnd(1, ("g1", "a", "b", "1-0"), ("g2", "c", "d", "1-0"), ("g3", "e", "f", "1-0")),
        rnd(2, ("g4", "a", "c", "1-0"), ("g5", "b", "e", "1-0"), ("g6", "d", "f", "1/2-1/2")),
        rnd(3, ("g7", "d", "a", "1-0"), ("g8", "b", "f", "1-0"), ("g9", "c", "e", "1-0")),
    )


def test_three_way_tie_buchholz_and_sonneborn_berger():
    ct = crosstable(t3())
    # No unplayed rounds: Buchholz is the plain sum.
    # a: b 2 + c 2 + d 1½ = 5½; b: a 2 + e 1 + f ½ = 3½; c: d 1½ + a 2 + e 1 = 4½.
    assert shown(ct, "buchholz", ("a", "b", "c")) == {"a": "5½", "b": "3½", "c": "4½"}
    # Cut-1: a 4, b 3, c 3½.
    assert shown(ct, "buchholz-cut1", ("a", "b", "c")) == {"a": "4", "b": "3", "c": "3½"}
    # SB: a 2 + 2 + 0 = 4; b 0 + 1 + ½ = 1.5; c 1½ + 0 + 1 = 2.5.
    assert shown(ct, "fide-sonneborn-berger", ("a", "b", "c")) == {
        "a": "4",
        "b": "1½",
        "c": "2½",
    }
    # PS: a 1, 2, 2 = 5; b 0, 1, 2 = 3; c 1, 1, 2 = 4.
    assert shown(ct, "fide-progressive", ("a", "b", "c")) == {"a": "5", "b": "3", "c": "4"}
    assert order(t3()) == [
        (1, "a", ""),
        (2, "c", "Buchholz Cut-1 4–3½"),
        (3, "b", "Buchholz Cut-1 3½–3"),
        (4, "d", "points 2–1½"),
        (5, "e", "points 1½–1"),
        (6, "f", "points 1–½"),
    ]


def test_three_way_tie_direct_encounter_in_a_swiss():
    # a met b and c and beat both: 2, and at most 2. b and c never met: 0 each, 1 at most.
    # a's 2 is above anything b or c could reach, so a is alone on top (6.2); b and c stay level.
    ct = crosstable(t3())
    de = values(ct, "fide-direct-encounter", ("a", "b", "c"))
    assert {p: v.shown for p, v in de.items()} == {
        "a": "2 (max 2)",
        "b": "0 (max 1)",
        "c": "0 (max 1)",
    }
    assert de["a"].key > de["b"].key == de["c"].key
    # Through a chain of direct encounter alone: a first, b and c share second (re-applied to
    # b and c it finds no game between them).
    state = t3(rules_preset=None, tiebreaks=[ev.TiebreakSpec(name="fide-direct-encounter")])
    assert order(state)[:3] == [
        (1, "a", ""),
        (2, "b", "direct encounter 2 (max 2)–0 (max 1)"),
        (2, "c", "shared"),
    ]


# --- T4: a four-way tie in a round robin, decided by re-applied direct encounter -------------
#
# Six players, one cycle (Berger tables). a, b, c, d all score 3:
#   games among them: a-b 1-0, a-c ½, a-d ½, b-c 1-0, b-d ½, c-d 1-0
#   -> direct encounter a 2, b 1½, c 1½, d 1.
#   against e and f: a 1 (beat e, lost to f), b 1½, c 1½, d 2; e-f ½. e 1, f 2.


def t4(**kw: Any) -> StandingsState:
    kw.setdefault("rules_preset", "fide-round-robin")
    return state_of(
        [created(fmt="round_robin", rounds=5, **kw), *[player(p, RATINGS[p]) for p in "abcdef"]],
        rnd(1, ("g1", "a", "f", "0-1"), ("g2", "b", "e", "1-0"), ("g3", "c", "d", "1-0")),
        rnd(2, ("g4", "f", "d", "0-1"), ("g5", "e", "c", "1/2-1/2"), ("g6", "a", "b", "1-0")),
        rnd(3, ("g7", "b", "f", "1/2-1/2"), ("g8", "c", "a", "1/2-1/2"), ("g9", "d", "e", "1-0")),
        rnd(
            4, ("g10", "f", "e", "1/2-1/2"), ("g11", "a", "d", "1/2-1/2"), ("g12", "b", "c", "1-0")
        ),
        rnd(5, ("g13", "c", "f", "1-0"), ("g14", "d", "b", "1/2-1/2"), ("g15", "e", "a", "0-1")),
    )


def test_four_way_tie_direct_encounter_reapplied():
    ct = crosstable(t4())
    group = ("a", "b", "c", "d")
    assert {p: ct.points[p] for p in group} == dict.fromkeys(group, 6)
    # Everyone met everyone: the sums rank them: a 2, b 1½, c 1½, d 1.
    assert shown(ct, "fide-direct-encounter", group, predetermined=True) == {
        "a": "2",
        "b": "1½",
        "c": "1½",
        "d": "1",
    }
    # Re-applied to b and c, only their own game counts: b beat c.
    assert shown(ct, "fide-direct-encounter", ("b", "c"), predetermined=True) == {
        "b": "1",
        "c": "0",
    }
    assert order(t4()) == [
        (1, "a", ""),
        (2, "b", "direct encounter 2–1½"),
        (3, "c", "direct encounter 1–0"),
        (4, "d", "direct encounter 1½–1"),
        (5, "f", "points 3–2"),
        (6, "e", "points 2–1"),
    ]


def test_four_way_tie_koya_and_sonneborn_berger():
    ct = crosstable(t4())
    # Koya: 5 games, the limit is 2½ (50 %): a, b, c, d (3 each) qualify, f (2) and e (1) not.
    # a: b 1 + c ½ + d ½ = 2; b: 1½; c: 1½; d: 1; e: c ½; f: a 1 + b ½ = 1½.
    assert shown(ct, "fide-koya") == {"a": "2", "b": "1½", "c": "1½", "d": "1", "e": "½", "f": "1½"}
    # SB (pre-determined): a: f 2 x 0 + b 3 + c 1½ + d 1½ + e 1 = 7;
    # b: e 1 + a 0 + f 2 x ½ + c 3 + d 1½ = 6.5; c: d 3 + e ½ + a 1½ + b 0 + f 2 = 7;
    # d: c 0 + f 2 + e 1 + a 1½ + b 1½ = 6.
    sb = shown(ct, "fide-sonneborn-berger", ("a", "b", "c", "d"), predetermined=True)
    assert sb == {"a": "7", "b": "6½", "c": "7", "d": "6"}
    # WIN: all four won two games: wins cannot split them, direct encounter did.
    assert set(shown(ct, "fide-wins", ("a", "b", "c", "d")).values()) == {"2"}


# --- T5: a four-way tie nobody can split: three share the first place -----------------------
#
# Round robin of four: a beat b, b beat c, c beat a, and all three drew with d: everyone 1½.
# Direct encounter: a 1 + ½ = 1½, the same for all: no split. Wins: a, b, c 1, d 0: d is
# fourth. Sonneborn-Berger: a: b 1½ + d 1½ x ½ = 2.25, the same for b and c. Koya: the limit
# is 1½ (half of 3): every opponent qualifies, so Koya is the score: 1½ each. They share.


def t5() -> StandingsState:
    return state_of(
        [created(fmt="round_robin", rounds=3, rules_preset="fide-round-robin")],
        [player(p, RATINGS[p]) for p in "abcd"],
        rnd(1, ("g1", "a", "d", "1/2-1/2"), ("g2", "b", "c", "1-0")),
        rnd(2, ("g3", "d", "c", "1/2-1/2"), ("g4", "a", "b", "1-0")),
        rnd(3, ("g5", "b", "d", "1/2-1/2"), ("g6", "c", "a", "1-0")),
    )


def test_three_share_first_place():
    ct = crosstable(t5())
    group = ("a", "b", "c", "d")
    assert set(shown(ct, "fide-direct-encounter", group, predetermined=True).values()) == {"1½"}
    assert shown(ct, "fide-wins") == {"a": "1", "b": "1", "c": "1", "d": "0"}
    assert set(
        shown(ct, "fide-sonneborn-berger", ("a", "b", "c"), predetermined=True).values()
    ) == {"2¼"}
    assert shown(ct, "fide-koya") == dict.fromkeys(group, "1½")
    assert order(t5()) == [
        (1, "a", ""),
        (1, "b", "shared"),
        (1, "c", "shared"),
        (4, "d", "wins 1–0"),
    ]


# --- T6: a round robin of five (one player sits out each round), with forfeits --------------
#
#   R1: a sits out; b-e 1-0; c-d ½        R4: e sits out; a-d 1-0; b-c ½
#   R2: d sits out; e-c 0-1; a-b ½        R5: c sits out; d-b 0-1; e-a 1-0 by forfeit
#   R3: b sits out; c-a 0-1; d-e 1-0 by forfeit
#   points: b 3, a 2½ (½ + 1 + 1 + forfeit loss), c 2, d 1½, e 1 (a forfeit win).


def t6() -> StandingsState:
    return state_of(
        [created(fmt="round_robin", rounds=5, rules_preset="fide-round-robin")],
        [player(p, RATINGS[p]) for p in "abcde"],
        rnd(1, ("g1", "b", "e", "1-0"), ("g2", "c", "d", "1/2-1/2")),
        rnd(2, ("g3", "e", "c", "0-1"), ("g4", "a", "b", "1/2-1/2")),
        rnd(3, ("g5", "c", "a", "0-1"), forfeit("g6", "d", "e", "1-0")),
        rnd(4, ("g7", "a", "d", "1-0"), ("g8", "b", "c", "1/2-1/2")),
        rnd(5, ("g9", "d", "b", "0-1"), forfeit("g10", "e", "a", "1-0")),
    )


def test_koya_with_a_sit_out_and_a_forfeit():
    ct = crosstable(t6())
    assert ct.points == {"a": 5, "b": 6, "c": 4, "d": 3, "e": 2}
    # Each player has 4 games, not 5 rounds: the maximum is 4, the limit 2 (50 %), so c (2)
    # qualifies along with a (2½) and b (3).
    # a: b ½ + c 1 = 1½; b: a ½ + c ½ = 1; c: a 0 + b ½ = ½; d: c ½ = ½;
    # e: a 1 (a forfeit win: games are pre-determined, the forfeit counts) = 1.
    assert shown(ct, "fide-koya") == {"a": "1½", "b": "1", "c": "½", "d": "½", "e": "1"}
    # With a 60 % limit (2.4), c no longer counts: a ½, c ½ (vs b), b ½.
    assert shown(ct, "fide-koya", limit=60) == {"a": "½", "b": "½", "c": "½", "d": "0", "e": "1"}


def test_sonneborn_berger_pre_determined_and_swiss_style():
    ct = crosstable(t6())
    # Pre-determined (round robin): forfeits are games against the scheduled opponent, the
    # sit-out rounds add nothing.
    # a: b 3 x ½ + c 2 x 1 + d 1½ x 1 + e (forfeit loss) 0 = 5
    # e: b 0 + c 0 + d (forfeit loss) 0 + a (forfeit win) 2½ x 1 = 2.5
    sb = shown(ct, "fide-sonneborn-berger", predetermined=True)
    assert (sb["a"], sb["b"], sb["e"]) == ("5", "4¾", "2½")
    # Read as a Swiss (Art. 16.4): e's forfeit win is a dummy with e's own score (1), and every
    # sit-out is an absence (a dummy x 0 points): e = 1.
    assert shown(ct, "fide-sonneborn-berger")["e"] == "1"


def test_direct_encounter_counts_forfeits_in_a_round_robin():
    ct = crosstable(t6())
    # a and e met only by forfeit (e won). Pre-determined pairings count it: e 1, a 0.
    assert shown(ct, "fide-direct-encounter", ("a", "e"), predetermined=True) == {
        "a": "0",
        "e": "1",
    }


def test_standings_of_a_round_robin_with_forfeits():
    assert [(r.place, r.player_id) for r in standings(t6()).rows] == [
        (1, "b"),
        (2, "a"),
        (3, "c"),
        (4, "d"),
        (5, "e"),
    ]


# --- direct encounter: repeated meetings are averaged ---------------------------------------


def test_direct_encounter_averages_repeated_games():
    # A double round robin in progress: a beat b twice, lost to c; b beat c; d beat a, lost to
    # b and c. a, b, c have 2 each. Against each other a scores (1 + 1) / 2 + 0 = 1, b 0 + 1 = 1,
    # c 1 + 0 = 1: level (summed, a would have 2 and be first).
    state = state_of(
        [created(fmt="round_robin", cycles=2, rounds=6, rules_preset="fide-round-robin")],
        [player(p, RATINGS[p]) for p in "abcd"],
        rnd(1, ("g1", "a", "b", "1-0"), ("g2", "c", "d", "1-0")),
        rnd(2, ("g3", "a", "c", "0-1"), ("g4", "b", "d", "1-0")),
        rnd(3, ("g5", "d", "a", "1-0"), ("g6", "b", "c", "1-0")),
        rnd(4, ("g7", "b", "a", "0-1")),
    )
    ct = crosstable(state)
    assert {p: ct.points[p] for p in "abc"} == {"a": 4, "b": 4, "c": 4}
    assert shown(ct, "fide-direct-encounter", ("a", "b", "c"), predetermined=True) == {
        "a": "1",
        "b": "1",
        "c": "1",
    }


# --- ratings: unrated players ---------------------------------------------------------------


def test_rating_criteria_are_dropped_when_a_player_is_unrated():
    state = state_of(
        [created(fmt="swiss", rounds=1), player("a", 2000), player("b"), player("c", 1800)],
        rnd(1, ("g1", "a", "b", "1-0"), pab=("c",)),
    )
    ct = crosstable(state)
    for name in ("fide-aro", "fide-aro-cut1", "fide-tpr", "fide-apro"):
        assert {v.key for v in values(ct, name).values()} == {None}
    # Unless the regulations give unrated players a rating (Art. 10): b counts as 1500.
    # a: ARO 1500, 1/1 -> dp 800 -> 2300; b: ARO 2000, 0/1 -> 1200; c has played no game.
    assert shown(ct, "fide-aro", unrated_rating=1500) == {"a": "1500", "b": "2000", "c": "–"}
    assert shown(ct, "fide-tpr", unrated_rating=1500) == {"a": "2300", "b": "1200", "c": "–"}


def test_performance_arithmetic_is_exact():
    # p = 2½ / 4 = 0.625 -> rounded to 0.63 -> dp 95; ARO (1800 + 1900 + 2000 + 2101) / 4 =
    # 1950.25 -> 1950.
    assert performance([1800, 1900, 2000, 2101], 5) == 1950 + 95
    # p = 1 / 8 = 0.125 -> 0.13 -> dp -322; ARO 2000.
    assert performance([2000] * 8, 2) == 2000 - 322
    assert performance([], 0) is None


# --- the registry and the presets ------------------------------------------------------------

FIDE_CRITERIA = [
    name
    for name in REGISTRY
    if name.startswith(("fide-", "buchholz")) and not REGISTRY[name].terminal
]


def test_every_fide_criterion_is_documented_and_cites_c07():
    """Registered, a criterion cites its articles without an edition; shown for a tournament,
    its source names the tournament's edition as "FIDE C.07 2024" or "FIDE C.07 2026" (never
    the "(2023)" it once said), and its label too when its values follow the edition."""
    assert len(FIDE_CRITERIA) >= 24
    for name in FIDE_CRITERIA:
        crit = REGISTRY[name]
        assert crit.doc and "Art." in crit.doc, name
        assert crit.source.startswith("FIDE C.07, "), name
        params = resolve_params(crit, {})
        for edition, year in (("fide-2024", "2024"), ("fide-2026", "2026")):
            shown = crit.cited(params, edition)
            articles = crit.source.removeprefix("FIDE C.07")
            assert shown.source == f"FIDE C.07 {year}{articles}", (name, edition)
            follows = name.startswith(
                ("buchholz", "fide-sonneborn-berger", "fide-fore-buchholz", "fide-aob")
            )
            assert shown.label == (f"{crit.label} (C.07 {year})" if follows else crit.label)
            assert (shown.name, shown.compute) == (crit.name, crit.compute)
    assert REGISTRY["buchholz-cut1"].cited({"predetermined": False}, "fide-2026").source == (
        "FIDE C.07 2026, 8.1, 16.3-16.5, 14.1"
    )
    # With pre-determined pairings the edition changes no value: the source names it, the
    # label does not.
    sb_rr = REGISTRY["fide-sonneborn-berger"].cited({"predetermined": True}, "fide-2024")
    assert (sb_rr.label, sb_rr.source) == ("Sonneborn-Berger", "FIDE C.07 2024, 9.1, 16.3-16.5")
    # Without an edition, or for a rulebook with one text, a criterion is shown as registered.
    assert REGISTRY["buchholz"].cited({}, None) is REGISTRY["buchholz"]
    assert REGISTRY["shared-place"].cited({}, "fide-2026") is REGISTRY["shared-place"]


@pytest.mark.parametrize("name", ["fide-swiss", "fide-round-robin"])
def test_presets_are_valid_and_registered(name):
    chain = PRESETS[name]
    assert ALL_PRESETS[name] is chain
    assert validate(chain.specs) == []
    assert chain.specs[-1].name == "shared-place"


def test_bad_parameters_are_refused():
    problems = validate([ev.TiebreakSpec(name="fide-koya", params={"limit": 150})])
    assert problems == [(0, "params", "fide-koya: parameter 'limit': a percentage, 0 to 100")]
    problems = validate([ev.TiebreakSpec(name="buchholz", params={"modifier": "C1"})])
    assert problems and "unknown parameter 'modifier'" in problems[0][2]


def test_criteria_give_every_player_of_the_group_a_value():
    ct = t2_ct()
    for name in FIDE_CRITERIA:
        group = ("b", "e")
        assert set(values(ct, name, group)) == set(group), name


def test_rank_by_a_single_criterion():
    # Buchholz alone over T2: within the 2½ group, b 9 and e 9: level.
    ct = t2_ct()
    ranking = rank(ct, Chain((ev.TiebreakSpec(name="buchholz"),)))
    assert ["b", "e"] in ranking.blocks
