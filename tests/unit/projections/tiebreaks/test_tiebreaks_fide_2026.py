"""FIDE tie-breaks under the text of C.07 in force since 1 March 2026 (issue 16): the dummy
opponent of a participant's own unplayed round (Art. 16.4) scores the participant's own score
but never more than

* 16.4.1, for a forfeit won or lost: the adjusted score (16.3) of the scheduled opponent;
* 16.4.2, for a pairing-allocated bye, a requested bye or an absence: draw points x rounds.

Worked examples computed by hand (the numbers in points), each cap just biting (the own score
half a point above it) and just not (equal to it), next to the same tournament under the 2024
text; the worked example of ../shared/rules/fide-c07-2026.md; where the edition comes from (the
decider fills it from the start date, an upcast log keeps the 2024 text, a ruling changes it);
how the standings, the JSON and `explain` show it; and golden standings named after the
article (tests/golden/fide-c07-2026-art16-4-*), imported from TRF through the command path and
checked against gacrux, FIDE's tie-break server, under both texts.
"""

from __future__ import annotations

import dataclasses
import sys
from datetime import date, timedelta
from fractions import Fraction
from typing import Any
from unittest import mock

import pytest
from builders import ADMIN, T0, batch, created, new_event, player, recorded, result
from gacrux.tiebreakchecker import tiebreakchecker
from gacrux.trf2json import trf2json
from given_when_then import given
from goldens import GOLDEN, imported_golden, standings_bytes

from events_schema import Event, Recorded, encode_payload
from events_schema import events as ev
from events_schema.envelope import Envelope
from events_schema.ids import GENESIS_HASH
from projections.documents import documents
from projections.rejection import Rejected
from projections.standings import Crosstable, StandingsState, crosstable, explain, fold, standings
from projections.standings.table import Table
from projections.tiebreaks import REGISTRY
from projections.tiebreaks.editions import edition_on, in_force
from projections.tiebreaks.fide import dummies, unplayed_notes
from projections.tiebreaks.registry import Value, resolve_params
from projections.tournament import decide
from services.commands.service import CommandService
from services.eventlog.sqlite import SQLiteEventLog
from services.interchange.trf import write_trf

Game = tuple[str, str, str, str] | tuple[str, str, str, str, str]


def rnd(
    n: int,
    *games: Game,
    pab: tuple[str, ...] = (),
    half: tuple[str, ...] = (),
    zero: tuple[str, ...] = (),
) -> list[Event]:
    """Round n: games (id, White, Black, result[, termination]) with their results, and byes."""
    byes = [
        *(ev.Bye(player_id=p, kind="pairing_allocated") for p in pab),
        *(ev.Bye(player_id=p, kind="half") for p in half),
        *(ev.Bye(player_id=p, kind="zero") for p in zero),
    ]
    pairings = [ev.Pairing(game_id=g[0], white=g[1], black=g[2]) for g in games]
    out: list[Event] = [ev.RoundScheduled(round=n, pairings=pairings, byes=byes)]
    out += [result(g[0], g[3], g[4] if len(g) == 5 else "agreement") for g in games]
    return out


def flat(*events: Event | list[Event]) -> list[Event]:
    out: list[Event] = []
    for e in events:
        out += e if isinstance(e, list) else [e]
    return out


def with_edition(events: list[Event], edition: str) -> list[Event]:
    first, *rest = events
    assert isinstance(first, ev.TournamentCreated)
    return [first.model_copy(update={"tiebreak_edition": edition}), *rest]


def ct_of(events: list[Event], edition: str) -> Crosstable:
    return crosstable(fold(recorded("t1", with_edition(events, edition))))


def shown(ct: Crosstable, name: str, **params: Any) -> dict[str, str]:
    crit = REGISTRY[name]
    got = crit.compute(ct, tuple(ct.players), resolve_params(crit, params))
    return {p: v.shown for p, v in got.items()}


def swiss(*ids: str, rounds: int, **kw: Any) -> ev.TournamentCreated:
    return created(fmt="swiss", rounds=rounds, rules_preset="fide-swiss", **kw)


# --- the worked example of our note (../shared/rules/fide-c07-2026.md) -------------------------
#
# Player 3 (x) scores 2½ and wins round 5 by forfeit against player 2 (y), who lost every game
# (adjusted score 0). x's opponents in the played rounds scored 4½ (a), 3 (b), 2 (c), 2 (d).
#
#        R1          R2          R3          R4          R5              points
#   a    x  B 1      e  W 1      f  B 1      b  W ½      c  B 1          4½
#   y    b  B 0      c  W 0      d  B 0      e  W 0      x  B - (ff)     0
#   x    a  W 0      b  B ½      c  W 1      d  B 0      y  W + (ff)     2½
#   b    y  W 1      x  W ½      e  B ½      a  B ½      f  W ½          3
#   c    d  W 1      y  B 1      x  B 0      f  B 0      a  W 0          2
#   d    c  B 0      f  B 0      y  W 1      x  W 1      e  B 0          2
#   e    f  W ½      a  B 0      b  W ½      y  B 1      d  W 1          3
#   f    e  B ½      d  W 1      a  W 0      c  W 1      b  B ½          3

NOTE_NAMES = {
    "a": ("Adler, Anna", 2350),
    "y": ("Young, Yann", 1650),
    "x": ("Xavier, Xena", 2050),
    "b": ("Berg, Boris", 2250),
    "c": ("Cole, Carla", 2150),
    "d": ("Dahl, Dora", 2100),
    "e": ("Eden, Emil", 2000),
    "f": ("Falk, Finn", 1950),
}


def note_example(starts_on: date | None = date(2026, 4, 18)) -> list[Event]:
    return flat(
        ev.TournamentCreated(
            name="Art 16.4.1 Forfeit Cap Open",
            format="swiss",
            rounds=5,
            rules_preset="fide-swiss",
            starts_on=starts_on,
            ends_on=starts_on + timedelta(days=1) if starts_on else None,
        ),
        [ev.PlayerRegistered(player_id=p, name=n, rating=r) for p, (n, r) in NOTE_NAMES.items()],
        rnd(
            1,
            ("g1", "x", "a", "0-1"),
            ("g2", "b", "y", "1-0"),
            ("g3", "c", "d", "1-0"),
            ("g4", "e", "f", "1/2-1/2"),
        ),
        rnd(
            2,
            ("g5", "b", "x", "1/2-1/2"),
            ("g6", "y", "c", "0-1"),
            ("g7", "a", "e", "1-0"),
            ("g8", "f", "d", "1-0"),
        ),
        rnd(
            3,
            ("g9", "x", "c", "1-0"),
            ("g10", "d", "y", "1-0"),
            ("g11", "f", "a", "0-1"),
            ("g12", "e", "b", "1/2-1/2"),
        ),
        rnd(
            4,
            ("g13", "d", "x", "1-0"),
            ("g14", "y", "e", "0-1"),
            ("g15", "a", "b", "1/2-1/2"),
            ("g16", "f", "c", "1-0"),
        ),
        rnd(
            5,
            ("g17", "x", "y", "1-0", "forfeit"),
            ("g18", "c", "a", "0-1"),
            ("g19", "b", "f", "1/2-1/2"),
            ("g20", "e", "d", "1-0"),
        ),
    )


def test_note_example_scores() -> None:
    ct = ct_of(note_example(), "fide-2026")
    assert {p: ct.points[p] for p in ct.players} == {
        "a": 9,
        "y": 0,
        "x": 5,
        "b": 6,
        "c": 4,
        "d": 4,
        "e": 6,
        "f": 6,
    }


def test_note_example_forfeit_dummy_capped_at_the_opponents_adjusted_score() -> None:
    """2024: 4½ + 3 + 2 + 2 + 2½ (the dummy: x's own score) = 14.
    2026: the dummy is capped at y's adjusted score 0 (16.4.1): 4½ + 3 + 2 + 2 + 0 = 11½.
    SB 2024: 4½x0 + 3x½ + 2x1 + 2x0 + 2½x1 = 6; 2026: 1½ + 2 + 0 = 3.5.
    y's own forfeit loss: own score 0, cap x's adjusted score 2½: not capped (0 either way)."""
    old, new = ct_of(note_example(), "fide-2024"), ct_of(note_example(), "fide-2026")
    assert shown(old, "buchholz")["x"] == "14" and shown(new, "buchholz")["x"] == "11½"
    assert shown(old, "fide-sonneborn-berger")["x"] == "6"
    assert shown(new, "fide-sonneborn-berger")["x"] == "3½"
    (d,) = dummies(new, "x")
    assert (d.round, d.own, d.cap, d.article, d.capped) == (5, 5, 0, "16.4.1", True)
    assert d.text() == (
        "round 5: forfeit win, dummy capped at the opponent's adjusted score 0 (C.07 2026, 16.4.1)"
    )
    (dy,) = dummies(new, "y")
    assert (dy.own, dy.cap, dy.capped, dy.score) == (0, 5, False, 0)
    # BH-C1 (x): 2024 cuts 2 (c or d, no VUR) -> 12; 2026 cuts the dummy's 0 (the least
    # significant value; a forfeit win is not a VUR) -> 11½.
    assert shown(old, "buchholz-cut1")["x"] == "12"
    assert shown(new, "buchholz-cut1")["x"] == "11½"
    # Nobody else has an unplayed round: every other Buchholz is the same under both texts.
    for p in ("a", "b", "c", "d", "e", "f"):
        assert shown(old, "buchholz")[p] == shown(new, "buchholz")[p]


# --- 16.4.1 just biting and just not: forfeits -------------------------------------------------
#
# The 4-round tournament of test_tiebreaks_fide.py (T2): b wins R1 by forfeit against e, e wins
# R4 by forfeit against c, pairing-allocated byes for e (R3) and d (R4), f withdraws from R3.
# Final scores: a 3, b 2½, c 2, d 1½, e 2½, f ½; adjusted (16.3): f 1½, the others as scored.


def t2() -> list[Event]:
    return flat(
        swiss("a", "b", "c", "d", "e", "f", rounds=4),
        [player(p, 2000 - 100 * i) for i, p in enumerate("abcdef")],
        rnd(
            1,
            ("g1", "a", "d", "1-0"),
            ("g2", "b", "e", "1-0", "forfeit"),
            ("g3", "c", "f", "1/2-1/2"),
        ),
        rnd(2, ("g4", "f", "a", "0-1"), ("g5", "c", "b", "1-0"), ("g6", "e", "d", "1/2-1/2")),
        ev.PlayerWithdrew(player_id="f", from_round=3),
        rnd(3, ("g7", "a", "c", "1/2-1/2"), ("g8", "d", "b", "0-1"), pab=("e",)),
        rnd(4, ("g9", "b", "a", "1/2-1/2"), ("g10", "e", "c", "1-0", "forfeit"), pab=("d",)),
    )


def test_forfeit_cap_just_biting_and_just_not() -> None:
    """e (2½): R1 forfeit loss to b, whose adjusted score is 2½: own = cap, just not capped
    (16.4.1); R3 pairing-allocated bye: cap ½ x 4 rounds = 2, own 2½, just capped (16.4.2);
    R4 forfeit win against c (adjusted 2): just capped at 2 (16.4.1).
    BH(e) 2024: 2½ + d 1½ + 2½ + 2½ = 9; 2026: 2½ + 1½ + 2 + 2 = 8.
    b (2½): R1 forfeit win against e (adjusted 2½): own = cap, not capped: BH 9 both.
    c (2): R4 forfeit loss to e (adjusted 2½): own below the cap: BH 9 both.
    d (1½): R4 pairing-allocated bye, own below 2: BH 9½ both.
    f (½): R3, R4 after the withdrawal (zero-point byes), own ½ below 2: BH 6 both."""
    old, new = ct_of(t2(), "fide-2024"), ct_of(t2(), "fide-2026")
    assert shown(old, "buchholz") == {
        "a": "7½",
        "b": "9",
        "c": "9",
        "d": "9½",
        "e": "9",
        "f": "6",
    }
    assert shown(new, "buchholz") == {**shown(old, "buchholz"), "e": "8"}
    e = {d.round: d for d in dummies(new, "e")}
    assert (e[1].cap, e[1].own, e[1].capped, e[1].article) == (5, 5, False, "16.4.1")
    assert (e[3].cap, e[3].own, e[3].capped, e[3].article) == (4, 5, True, "16.4.2")
    assert (e[4].cap, e[4].own, e[4].capped, e[4].article) == (4, 5, True, "16.4.1")
    (b1,) = dummies(new, "b")
    assert (b1.cap, b1.own, b1.capped) == (5, 5, False)
    assert e[1].text() == (
        "round 1: forfeit loss, dummy with the player's own score 2½, not above the "
        "opponent's adjusted score 2½ (C.07 2026, 16.4.1)"
    )
    assert e[3].text() == (
        "round 3: pairing-allocated bye, dummy capped at draw points × rounds 2 (C.07 2026, 16.4.2)"
    )


def test_forfeit_cap_in_sonneborn_berger_and_the_cut() -> None:
    """SB(e) 2024: 0 (forfeit loss) + d 1½ x ½ + bye 2½ x 1 + forfeit win 2½ x 1 = 5.75;
    2026: 0 + 0.75 + 2 + 2 = 4.75.
    BH-C1(e): the VUR (R1 forfeit loss, its dummy 2½) is not below the least significant value
    (d 1½), so it is cut (16.5): 2024 9 - 2½ = 6½; 2026 8 - 2½ = 5½.
    SB-C1(e): the VUR's contribution 0 is below the least significant value (d's 0.75), so d's
    is cut: 2024 5; 2026 4."""
    old, new = ct_of(t2(), "fide-2024"), ct_of(t2(), "fide-2026")
    assert shown(old, "fide-sonneborn-berger")["e"] == "5¾"
    assert shown(new, "fide-sonneborn-berger")["e"] == "4¾"
    assert (shown(old, "buchholz-cut1")["e"], shown(new, "buchholz-cut1")["e"]) == ("6½", "5½")
    sb1 = "fide-sonneborn-berger-cut1"
    assert (shown(old, sb1)["e"], shown(new, sb1)["e"]) == ("5", "4")


# --- 16.4.2 just biting and just not: pairing-allocated byes -----------------------------------
#
#        R1          R2          R3          R4          points
#   a    b  W 1      c  W ½      e  W 1      d  W ½      3
#   b    a  B 0      e  B 0      d  B ½      bye 1       1½
#   c    d  W 1      a  B ½      bye 1       e  W ½      3
#   d    c  B 0      bye 1       b  W ½      a  B ½      2
#   e    bye 1       b  W 1      a  B 0      c  B ½      2½
#
# The cap is ½ x 4 rounds = 2: e's bye (own 2½) is just capped, d's (own 2) just not, c's (own
# 3) capped by a whole point, b's (own 1½) not.


def byes_example(starts_on: date | None = None) -> list[Event]:
    return flat(
        ev.TournamentCreated(
            name="Art 16.4.2 Bye Cap Open",
            format="swiss",
            rounds=4,
            rules_preset="fide-swiss",
            starts_on=starts_on,
            ends_on=starts_on + timedelta(days=1) if starts_on else None,
        ),
        [player(p, 2100 - 50 * i) for i, p in enumerate("abcde")],
        rnd(1, ("g1", "a", "b", "1-0"), ("g2", "c", "d", "1-0"), pab=("e",)),
        rnd(2, ("g3", "a", "c", "1/2-1/2"), ("g4", "e", "b", "1-0"), pab=("d",)),
        rnd(3, ("g5", "a", "e", "1-0"), ("g6", "d", "b", "1/2-1/2"), pab=("c",)),
        rnd(4, ("g7", "a", "d", "1/2-1/2"), ("g8", "c", "e", "1/2-1/2"), pab=("b",)),
    )


def test_bye_cap_just_biting_and_just_not() -> None:
    """BH 2024 -> 2026: a 9 (b 1½ + c 3 + e 2½ + d 2, no unplayed round); b 9 (3 + 2½ + 2 +
    own 1½); c 10½ -> 9½ (2 + 3 + own 3, capped at 2, + 2½); d 9½ (3 + own 2 = the cap + 1½ +
    3); e 10 -> 9½ (own 2½, capped at 2, + 1½ + 3 + 3).
    The fide-swiss chain: a and c have 3; BH-C1 2024 a 7½, c 8½: c first "Buchholz Cut-1
    8½–7½"; 2026 both 7½, then Buchholz 9½–9: c still first, by another criterion."""
    old, new = ct_of(byes_example(), "fide-2024"), ct_of(byes_example(), "fide-2026")
    assert shown(old, "buchholz") == {"a": "9", "b": "9", "c": "10½", "d": "9½", "e": "10"}
    assert shown(new, "buchholz") == {"a": "9", "b": "9", "c": "9½", "d": "9½", "e": "9½"}
    caps = {p: [(d.own, d.cap, d.capped) for d in dummies(new, p)] for p in "bcde"}
    assert caps == {
        "b": [(3, 4, False)],
        "c": [(6, 4, True)],
        "d": [(4, 4, False)],
        "e": [(5, 4, True)],
    }
    ranked_old = standings(fold(recorded("t1", with_edition(byes_example(), "fide-2024"))))
    ranked_new = standings(fold(recorded("t1", with_edition(byes_example(), "fide-2026"))))
    assert [(r.player_id, r.decided_by) for r in ranked_old.rows][:2] == [
        ("c", ""),
        ("a", "Buchholz Cut-1 8½–7½"),
    ]
    assert [(r.player_id, r.decided_by) for r in ranked_new.rows][:2] == [
        ("c", ""),
        ("a", "Buchholz 9½–9"),
    ]


# --- 16.4.2 for a requested bye in the last round (category 16.2.5) ----------------------------
#
#        R1          R2          R3            points (3 rounds: the cap is ½ x 3 = 1½)
#   a    b  W 1      c  W ½      half bye      2        own 2: just capped at 1½
#   b    a  B 0      d  W ½      c  W 0        ½
#   c    d  W 1      a  B ½      b  B 1        2½
#   d    c  B 0      b  B ½      zero bye      ½        own ½: not capped
#
# Both byes are in the last round (16.2.5): as opponents, a and d count them as draws (a 2, d 1).


def last_round_byes() -> list[Event]:
    return flat(
        swiss("a", "b", "c", "d", rounds=3),
        [player(p, 2000) for p in "abcd"],
        rnd(1, ("g1", "a", "b", "1-0"), ("g2", "c", "d", "1-0")),
        rnd(2, ("g3", "a", "c", "1/2-1/2"), ("g4", "d", "b", "1/2-1/2")),
        rnd(3, ("g5", "b", "c", "0-1"), half=("a",), zero=("d",)),
    )


def test_requested_bye_in_the_last_round_just_capped() -> None:
    """BH(a) 2024: b ½ + c 2½ + own 2 = 5; 2026: the dummy just capped at 1½: 4½.
    SB(a) 2024: ½x1 + 2½x½ + 2x½ = 2.75; 2026: ½ + 1.25 + 1½x½ = 2.5.
    BH(d) both: c 2½ + b ½ + own ½ = 3½. BH(c): d (adjusted 1) + a (adjusted 2) + b ½ = 3½."""
    old, new = ct_of(last_round_byes(), "fide-2024"), ct_of(last_round_byes(), "fide-2026")
    assert (shown(old, "buchholz")["a"], shown(new, "buchholz")["a"]) == ("5", "4½")
    sb = "fide-sonneborn-berger"
    assert (shown(old, sb)["a"], shown(new, sb)["a"]) == ("2¾", "2½")
    assert shown(old, "buchholz")["d"] == shown(new, "buchholz")["d"] == "3½"
    assert shown(new, "buchholz")["c"] == "3½"
    (da,) = dummies(new, "a")
    assert (da.kind, da.own, da.cap, da.capped) == ("half_bye", 4, 3, True)


def test_t1_half_bye_followed_by_a_game_is_just_not_capped() -> None:
    """test_tiebreaks_fide.py's T1 (3 rounds, cap 1½): c's half-point bye in R2 (16.2.3) with
    c's own score 1½ = the cap; b's zero-point bye (own 1) and e's pairing-allocated bye (own
    1) are below it. Nothing changes between the texts."""
    events = flat(
        swiss("a", "b", "c", "d", "e", rounds=3),
        [player(p, 2000) for p in "abcde"],
        rnd(1, ("g1", "a", "b", "1-0"), ("g2", "c", "d", "1/2-1/2"), pab=("e",)),
        rnd(2, ("g3", "e", "a", "0-1"), ("g4", "b", "d", "1-0"), half=("c",)),
        rnd(3, ("g5", "a", "c", "1/2-1/2"), ("g6", "d", "e", "1-0"), zero=("b",)),
    )
    old, new = ct_of(events, "fide-2024"), ct_of(events, "fide-2026")
    for name in ("buchholz", "buchholz-cut1", "fide-sonneborn-berger", "fide-fore-buchholz"):
        assert shown(old, name) == shown(new, name), name
    (dc,) = dummies(new, "c")
    assert (dc.own, dc.cap, dc.capped) == (3, 3, False)


# --- fore-Buchholz and the average of opponents' Buchholz ----------------------------------------


def test_fore_buchholz_and_aob_follow_the_caps() -> None:
    """Fore-Buchholz (Art. 8.3) counts every game paired for the last round as a draw: in the
    note's example the final round's forfeit x-y is a drawn game against y, whose fore score is
    ½ (0 + ½); x's own fore score is 1½ + ½ = 2, and x has no unplayed round left: FB(x) =
    a 4 (4½ - 1 + ½) + b 3 + c 2½ (2 - 0 + ½) + d 2½ (2 - 0 + ½) + y ½ = 12½ under both texts.
    AOB(x) (Art. 8.2) averages the Buchholz of a, b, c, d: a, b, c, d have no unplayed rounds,
    but a and c met x, whose own dummy does not enter their Buchholz: the same under both."""
    old, new = ct_of(note_example(), "fide-2024"), ct_of(note_example(), "fide-2026")
    assert shown(old, "fide-fore-buchholz")["x"] == shown(new, "fide-fore-buchholz")["x"] == "12½"
    assert shown(old, "fide-aob")["x"] == shown(new, "fide-aob")["x"]
    # y met a, b, c, d, e over the board; none of them has an unplayed round.
    assert shown(old, "fide-aob")["y"] == shown(new, "fide-aob")["y"]
    # In T2, d met a, e and b over the board; e's Buchholz drops from 9 to 8 (16.4): d's AOB is
    # (7½ + 9 + 9) / 3 = 8.50 under 2024, (7½ + 8 + 9) / 3 = 49/6, shown 8.17, under 2026.
    o2, n2 = ct_of(t2(), "fide-2024"), ct_of(t2(), "fide-2026")
    aob = REGISTRY["fide-aob"]
    assert aob.compute(o2, ("d",), {"fore": False})["d"] == Value(Fraction(17, 2), "8.50")
    assert aob.compute(n2, ("d",), {"fore": False})["d"] == Value(Fraction(49, 6), "8.17")
    # f withdrew after meeting c (Buchholz 9) and a (7½): (9 + 7½) / 2, under both texts.
    assert aob.compute(n2, ("f",), {"fore": False})["f"] == Value(Fraction(33, 4), "8.25")


def test_aob_notes_name_each_opponent_whose_buchholz_has_a_capped_dummy() -> None:
    """AOB's explanation names the opponents met over the board whose Buchholz counts a capped
    dummy (16.4), each capped round with its cap and article; only under the 2026 text.

    Byes example (cap ½ x 4 = 2): a met b, c, e, d. c's R3 bye (own 3) and e's R1 bye (own 2½)
    are capped; d's R2 bye (own 2 = the cap) and b's R4 bye (own 1½) are not: a's notes name c
    and e. c met d, a, e: only e. AOB/F (fore-Buchholz, Art. 8.3): c and e were paired in the
    final round (a draw): fore scores c 3, e 2½, still above the cap; b's bye is in the final
    round (no opponent), fore 1½; d paired with a, fore 2 = the cap: the same two notes."""
    new = ct_of(byes_example(), "fide-2026")
    capped_c = "dummy capped at draw points × rounds 2 (C.07 2026, 16.4.2)"
    assert unplayed_notes(new, "a", "fide-aob", {"fore": False}) == [
        f"opponent c (C), Buchholz round 3: pairing-allocated bye, {capped_c}",
        f"opponent e (E), Buchholz round 1: pairing-allocated bye, {capped_c}",
    ]
    assert unplayed_notes(new, "c", "fide-aob", {"fore": False}) == [
        f"opponent e (E), Buchholz round 1: pairing-allocated bye, {capped_c}",
    ]
    assert unplayed_notes(new, "a", "fide-aob", {"fore": True}) == [
        f"opponent c (C), fore-Buchholz round 3: pairing-allocated bye, {capped_c}",
        f"opponent e (E), fore-Buchholz round 1: pairing-allocated bye, {capped_c}",
    ]
    # T2: d met a, e, b; e's R3 bye and R4 forfeit win are capped, its R1 forfeit loss (own =
    # the cap) is not. b met c, d, a: c's forfeit loss and d's bye are below their caps.
    t2_new = ct_of(t2(), "fide-2026")
    assert unplayed_notes(t2_new, "d", "fide-aob", {"fore": False}) == [
        "opponent e (E), Buchholz round 3: pairing-allocated bye, dummy capped at draw points "
        "× rounds 2 (C.07 2026, 16.4.2)",
        "opponent e (E), Buchholz round 4: forfeit win, dummy capped at the opponent's adjusted "
        "score 2 (C.07 2026, 16.4.1)",
    ]
    assert unplayed_notes(t2_new, "b", "fide-aob", {"fore": False}) == []
    # The 2024 text caps nothing: no note for anyone, AOB or AOB/F.
    for events in (byes_example(), t2()):
        old = ct_of(events, "fide-2024")
        for p in old.players:
            for fore in (False, True):
                assert unplayed_notes(old, p, "fide-aob", {"fore": fore}) == [], (p, fore)


# --- where the edition comes from ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("starts_on", "edition"),
    [
        (None, "fide-2026"),  # no start date: the newest (FIDE's server reads a file so)
        (date(2023, 7, 1), "fide-2024"),
        (date(2026, 2, 28), "fide-2024"),  # the last day of the 2024 text
        (date(2026, 3, 1), "fide-2026"),  # the first day of the 2026 text
        (date(2027, 1, 1), "fide-2026"),
        (date(2019, 5, 1), "fide-2024"),  # before July 2023: the oldest text we implement
    ],
)
def test_the_decider_records_the_edition_in_force_on_the_start_date(
    starts_on: date | None, edition: str
) -> None:
    proposed = created(fmt="swiss", starts_on=starts_on)
    (stored,) = decide(given(), proposed)
    assert isinstance(stored, ev.TournamentCreated)
    assert stored.tiebreak_edition == edition == edition_on(starts_on)
    assert stored.model_copy(update={"tiebreak_edition": None}) == proposed


def test_the_decider_keeps_a_stated_edition_and_refuses_reversed_dates() -> None:
    stated = created(fmt="swiss", starts_on=date(2026, 5, 1), tiebreak_edition="fide-2024")
    assert decide(given(), stated) == [stated]
    reversed_ = created(fmt="swiss", starts_on=date(2026, 5, 2), ends_on=date(2026, 5, 1))
    with pytest.raises(Rejected) as info:
        decide(given(), reversed_)
    assert (info.value.rule, info.value.field) == ("tournament.dates_reversed", "payload.ends_on")


def test_the_command_path_stores_the_edition() -> None:
    with SQLiteEventLog(":memory:") as log:
        svc = CommandService(log)
        svc.handle("t", batch(created(fmt="swiss", starts_on=date(2026, 3, 1))), ADMIN)
        (env,) = log.read("t", 1)
        assert env.payload["tiebreak_edition"] == "fide-2026"
        assert env.payload["starts_on"] == "2026-03-01"


def _v1_log(events: list[Event]) -> list[Recorded]:
    """The stream as written before TournamentCreated v2: a v1 creation payload."""
    out, prev = [], GENESIS_HASH
    for i, e in enumerate(events, start=1):
        ne = new_event(e, i)
        if isinstance(e, ev.TournamentCreated):
            payload = encode_payload(e)
            for key in ("pairing", "adjudication", "starts_on", "ends_on", "tiebreak_edition"):
                payload.pop(key, None)
            ne = dataclasses.replace(ne, schema_version=1, payload=payload)
        env = ne.sealed("t1", i, prev, T0 + timedelta(seconds=i))
        prev = env.hash
        out.append(Recorded.of(Envelope.model_validate_json(env.to_bytes())))
    return out


def test_logs_written_before_the_change_keep_the_2024_text() -> None:
    """A v1 creation is upcast to "fide-2024"; a v2 creation stored without the field (written
    before the edition was recorded) reads the same: no published standings change."""
    v1 = _v1_log(t2())
    assert isinstance(v1[0].event, ev.TournamentCreated)
    assert v1[0].envelope.schema_version == 1 and v1[0].event.tiebreak_edition == "fide-2024"
    state = fold(v1)
    assert crosstable(state).edition.edition == "fide-2024"
    assert shown(crosstable(state), "buchholz")["e"] == "9"  # the 2024 value
    unstated = fold(recorded("t1", t2()))  # tiebreak_edition None in the stored payload
    assert crosstable(unstated).edition.edition == "fide-2024"
    assert crosstable(unstated).edition.source == "created before the edition was recorded"


def ruling(rid: str, edition: Any, subject: str = "tiebreak_edition") -> ev.RulingIssued:
    return ev.RulingIssued(
        ruling_id=rid,
        by="chief arbiter",
        subject=subject,
        text="edition",
        decision={"edition": edition},
    )


def test_a_ruling_changes_the_edition_the_latest_in_force_wins() -> None:
    base = with_edition(t2(), "fide-2024")
    r1, r2 = ruling("R1", "fide-2026"), ruling("R2", "fide-2024")
    state = fold(recorded("t1", [*base, r1]))
    assert crosstable(state).edition.as_dict() == {"edition": "fide-2026", "source": "ruling R1"}
    assert shown(crosstable(state), "buchholz")["e"] == "8"
    state = fold(recorded("t1", [*base, r1, r2]))
    assert crosstable(state).edition.edition == "fide-2024"
    # Retracting R2 puts R1 back in force.
    recs = recorded("t1", [*base, r1, r2])
    retract = ev.EventRetracted(retracted_event_id=recs[-1].envelope.event_id, reason="mistake")
    state = fold(recorded("t1", [*base, r1, r2, retract]))
    assert crosstable(state).edition.edition == "fide-2026"
    # A ruling naming no edition, or about something else, changes nothing.
    for odd in (ruling("R3", "fide-2030"), ruling("R4", 2026), ruling("R5", "fide-2026", "x")):
        assert crosstable(fold(recorded("t1", [*base, odd]))).edition.edition == "fide-2024"
    assert in_force(None).edition == "fide-2024"


# --- shown in the standings, the JSON and the explanations ---------------------------------------


def table_of(events: list[Event]) -> Table:
    return standings(fold(recorded("t1", events)))


def test_the_table_and_its_json_state_the_edition_when_the_chain_follows_it() -> None:
    table = table_of(with_edition(t2(), "fide-2026"))
    assert table.edition is not None and table.edition.edition == "fide-2026"
    assert table.as_dict()["tiebreak_edition"] == {
        "edition": "fide-2026",
        "source": "stated at creation",
    }
    # A chain without a criterion that follows the edition (round robin: pre-determined
    # pairings, no dummies; Czech, TCEC, GCT chains) says nothing about it.
    rr = with_edition(t2(), "fide-2026")
    rr[0] = rr[0].model_copy(update={"rules_preset": "fide-round-robin"})
    assert table_of(rr).edition is None and "tiebreak_edition" not in table_of(rr).as_dict()


def test_explain_cites_the_edition_and_each_cap() -> None:
    """In the note's example x and c... x (2½) has no one level on points; in T2 b and e are
    level on 2½: BH-C1 b 7½, e 5½ (2026)."""
    table = table_of(with_edition(t2(), "fide-2026"))
    steps = explain(table, "b", "e")
    assert [s["criterion"] for s in steps] == ["points", "buchholz-cut1"]
    bh = steps[1]
    assert bh["label"] == "Buchholz Cut-1 (C.07 2026)"
    assert bh["edition"] == {"edition": "fide-2026", "source": "stated at creation"}
    assert bh["values"] == {"b": "7½", "e": "5½"}
    assert bh["notes"]["e"] == [
        "round 1: forfeit loss, dummy with the player's own score 2½, not above the opponent's "
        "adjusted score 2½ (C.07 2026, 16.4.1)",
        "round 3: pairing-allocated bye, dummy capped at draw points × rounds 2 (C.07 2026, "
        "16.4.2)",
        "round 4: forfeit win, dummy capped at the opponent's adjusted score 2 (C.07 2026, 16.4.1)",
        "round 1: 2½ left out (Cut-1, Art. 14.1, a VUR, 16.5)",
    ]
    assert bh["e"] == "\n".join(["5½", *bh["notes"]["e"]])  # what `arbiter explain` prints
    old = explain(table_of(with_edition(t2(), "fide-2024")), "b", "e")[1]
    assert old["label"] == "Buchholz Cut-1 (C.07 2024)"
    assert old["notes"]["e"][0] == (
        "round 1: forfeit loss, dummy opponent with the player's own score 2½ (C.07 2024, 16.4)"
    )


def test_explain_names_the_opponents_whose_buchholz_was_capped_for_aob() -> None:
    """The byes example ranked by AOB alone: a and c have 3; AOB(a) = (b 9 + c 9½ + e 9½ + d
    9½) / 4 = 9.375, shown 9.38; AOB(c) = (d 9½ + a 9 + e 9½) / 3 = 9.33 (2026)."""
    events = byes_example()
    aob = [ev.TiebreakSpec(name="fide-aob")]
    events[0] = events[0].model_copy(update={"tiebreaks": aob})
    table = table_of(with_edition(events, "fide-2026"))
    points, step = explain(table, "a", "c")
    assert (points["separates"], step["criterion"], step["separates"]) == (False, "fide-aob", True)
    assert step["label"] == "average of opponents' Buchholz (C.07 2026)"
    assert step["values"] == {"a": "9.38", "c": "9.33"}
    capped = "dummy capped at draw points × rounds 2 (C.07 2026, 16.4.2)"
    assert step["notes"] == {
        "a": [
            f"opponent c (C), Buchholz round 3: pairing-allocated bye, {capped}",
            f"opponent e (E), Buchholz round 1: pairing-allocated bye, {capped}",
        ],
        "c": [f"opponent e (E), Buchholz round 1: pairing-allocated bye, {capped}"],
    }
    assert step["c"] == "\n".join(["9.33", *step["notes"]["c"]])  # what `arbiter explain` prints
    old = explain(table_of(with_edition(events, "fide-2024")), "a", "c")[1]
    assert old["label"] == "average of opponents' Buchholz (C.07 2024)"
    assert old["notes"] == {"a": [], "c": []} and old["a"] == old["values"]["a"]


@pytest.mark.parametrize(("edition", "year"), [("fide-2024", "2024"), ("fide-2026", "2026")])
def test_labels_and_sources_name_the_edition_in_force(edition: str, year: str) -> None:
    """What the standings' columns show (the CLI's headers, the tiebreaks document's `label`
    and `source`) names the tournament's edition as explain does; `decided_by` and the
    standings' JSON are the same strings under either edition."""
    table = table_of(with_edition(t2(), edition))
    assert table.chain.edition == edition
    shown = {c.name: (c.label, c.source) for c, _ in table.chain.criteria()}
    assert shown == {
        "buchholz-cut1": (
            f"Buchholz Cut-1 (C.07 {year})",
            f"FIDE C.07 {year}, 8.1, 16.3-16.5, 14.1",
        ),
        "buchholz": (f"Buchholz (C.07 {year})", f"FIDE C.07 {year}, 8.1, 16.3-16.5"),
        "fide-direct-encounter": ("direct encounter", f"FIDE C.07 {year}, 6"),
        "fide-sonneborn-berger": (
            f"Sonneborn-Berger (C.07 {year})",
            f"FIDE C.07 {year}, 9.1, 16.3-16.5",
        ),
        "fide-wins": ("wins", f"FIDE C.07 {year}, 7.1"),
        "shared-place": ("shared place", "rules/README 'Shared places'; TCEC Swiss 3.5"),
    }
    doc = documents(fold(recorded("t1", with_edition(t2(), edition))), "t1")["tiebreaks"]
    assert [(c["key"], c["label"], c["source"]) for c in doc["data"]["columns"]] == [
        (c.name, c.label, c.source) for c, _ in table.chain.criteria() if not c.terminal
    ]
    # The ranking's boundaries keep the registered labels.
    assert {s.label for s in table.ranking.trace} <= {
        "Buchholz Cut-1",
        "Buchholz",
        "direct encounter",
        "Sonneborn-Berger",
        "wins",
    }
    e_cut1 = {"fide-2024": "6½", "fide-2026": "5½"}[edition]  # test_forfeit_cap_in_sonneborn...
    assert [r.decided_by for r in table.rows][1:3] == ["points 3–2½", f"Buchholz Cut-1 7½–{e_cut1}"]
    # A round robin's chain follows no edition: sources name it, labels do not.
    rr = with_edition(t2(), edition)
    rr[0] = rr[0].model_copy(update={"rules_preset": "fide-round-robin"})
    rr_shown = {c.name: (c.label, c.source) for c, _ in table_of(rr).chain.criteria()}
    assert rr_shown["fide-sonneborn-berger"] == (
        "Sonneborn-Berger",
        f"FIDE C.07 {year}, 9.1, 16.3-16.5",
    )


# --- golden standings, imported from TRF, checked against gacrux ---------------------------------

# golden name -> what a TRF does not say (the rules preset and format, as `arbiter import trf`
# takes them on the command line)
GOLDENS = {
    "fide-c07-2026-art16-4-1-forfeit-cap": ("fide-swiss", "swiss"),
    "fide-c07-2026-art16-4-2-bye-cap": ("fide-swiss", "swiss"),
    "fide-c07-2026-art16-4-generated-swiss": ("fide-swiss", "swiss"),
}


def _imported(name: str, *then: Event) -> StandingsState:
    """The golden TRF through `arbiter import trf`'s path, then `then` through the commands."""
    return imported_golden(name, *GOLDENS[name], *then)


def _regenerate() -> None:  # pragma: no cover - run by hand after checking the values
    """Write the golden TRFs from their events (the generated one from the editions
    cross-check's seed 2) and their standings from the import."""
    from test_gacrux_crosscheck_editions import play, shape_of

    def decided(events: list[Event]) -> StandingsState:  # the edition as the decider fills it
        (first,) = decide(given(), events[0])
        return fold(recorded("t", [first, *events[1:]]))

    generated = play(2, shape_of(2))
    assert generated.state.created is not None
    generated.state.created = generated.state.created.model_copy(
        update={"name": "Art 16.4 Generated Swiss (Dutch, seed 2)"}
    )
    sources = {
        "fide-c07-2026-art16-4-1-forfeit-cap": decided(note_example()),
        "fide-c07-2026-art16-4-2-bye-cap": decided(byes_example(date(2026, 5, 9))),
        "fide-c07-2026-art16-4-generated-swiss": generated.state,
    }
    for name, state in sources.items():
        (GOLDEN / f"{name}.trf").write_text(write_trf(state, newline="\n"))
        (GOLDEN / f"{name}.standings.json").write_bytes(standings_bytes(standings(_imported(name))))


@pytest.mark.parametrize("name", sorted(GOLDENS))
def test_golden_standings_byte_for_byte(name: str) -> None:
    table = standings(_imported(name))
    assert table.edition is not None and table.edition.edition == "fide-2026"
    assert standings_bytes(table) == (GOLDEN / f"{name}.standings.json").read_bytes()


def _gacrux(text: str, codes: list[str]) -> tuple[str, dict[int, tuple[int, list[Any]]]]:
    checker = tiebreakchecker()
    with mock.patch.object(sys, "argv", ["tiebreakchecker", "-s", "-t", *codes]):
        checker.read_command_line()
    chessfile = trf2json()
    chessfile.parse_file(text, 0)
    checker.chessfile = chessfile
    checker.prepare_tournament()
    checker.do_checker()
    res = chessfile.result
    return res["rules"], {c["cid"]: (c["rank"], c["tiebreakScore"]) for c in res["competitors"]}


@pytest.mark.parametrize("name", sorted(GOLDENS))
@pytest.mark.parametrize("edition", ["fide-2026", "fide-2024"])
def test_golden_values_and_places_agree_with_gacrux(name: str, edition: str) -> None:
    """The golden TRF as gacrux reads it (the 2026 text from its 042 date; the 2024 text forced
    with /V2024, as an arbiter's ruling forces it here): every player's BH, BH/C1, SB, FB and
    place in the fide-swiss chain."""
    rulings = [ruling("R1", "fide-2024")] if edition == "fide-2024" else []
    state = _imported(name, *rulings)
    ct = crosstable(state)
    assert ct.edition.edition == edition
    forced = "/V2024" if edition == "fide-2024" else ""
    text = (GOLDEN / f"{name}.trf").read_text()
    codes = {
        "BH": ("buchholz", 2),
        "BH/C1": ("buchholz-cut1", 2),
        "SB": ("fide-sonneborn-berger", 1),
        "FB": ("fide-fore-buchholz", 2),
    }
    rules, theirs = _gacrux(text, ["PTS", *(code + forced for code in codes)])
    assert rules == "2026-03-01"
    pid = {int(p[1:]): p for p in ct.players}  # imported ids: p003 is start number 3
    for i, (crit_name, unit) in enumerate(codes.values(), start=1):
        crit = REGISTRY[crit_name]
        ours = crit.compute(ct, tuple(ct.players), resolve_params(crit, {}))
        for cid, (_rank, values) in theirs.items():
            assert Fraction(ours[pid[cid]].key) / unit == Fraction(str(values[i])), (
                crit_name,
                pid[cid],
            )
    chain = ("BH/C1", "BH", "DE", "SB", "WIN")
    _, ranked = _gacrux(text, ["PTS", *(code + forced for code in chain)])
    places = {r.player_id: r.place for r in standings(state).rows}
    assert {pid[cid]: rank for cid, (rank, _values) in ranked.items()} == places
