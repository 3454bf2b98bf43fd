"""TCEC tiebreaks: r-mobility, wins, double wins, average moves, and the TCEC chains.

Every expected value is worked out by hand in the comments. Tournaments are built as events
(players, rounds with pair ids and openings, moves, results), folded by the standings fold and
read back through the crosstable, the registry and the standings table.

Points in the crosstable are half-points; r-mobility points are on the 1 / ½ / 0 scale.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import chess
import pytest
from builders import created, move, player, recorded, result

from events_schema import Event
from events_schema import events as ev
from projections.standings import crosstable, fold, standings
from projections.standings.crosstable import Crosstable
from projections.tiebreaks import REGISTRY, validate
from projections.tiebreaks.presets import PRESETS
from projections.tiebreaks.registry import Value, resolve_params
from projections.tiebreaks.tcec import Goal, game_length, game_r_mobility, r_mobility_goal

# ---------------------------------------------------------------------------------------------
# Building tournaments


@dataclass(frozen=True)
class G:
    """One game of a test tournament."""

    white: str
    black: str
    result: str
    moves: Sequence[str] = ()
    fen: str | None = None
    pair: str | None = None
    opening: str | None = None
    termination: str | None = None


def uci(sans: str, fen: str | None = None) -> list[str]:
    """SAN moves to the UCI the MovePlayed events carry, checked legal by python-chess."""
    board = chess.Board(fen or chess.STARTING_FEN, chess960=fen is not None)
    out = []
    for san in sans.split():
        mv = board.parse_san(san)
        out.append(mv.uci())
        board.push(mv)
    return out


SHUFFLE = ("g1f3", "g8f6", "f3g1", "f6g8")


def shuffle(plies: int) -> list[str]:
    """A legal game of `plies` plies from the start: the knights go out and back (Nf3 Nf6 Ng1
    Ng8 ...). Used where only a game's length matters (decisive games keep their result)."""
    return [SHUFFLE[i % 4] for i in range(plies)]


def tournament(
    rounds: Sequence[Sequence[G]],
    preset: str | None = "tcec-league",
    fmt: str = "league",
    cycles: int = 1,
    byes: Sequence[Sequence[str]] = (),
    extra: Sequence[Event] = (),
    **kw: Any,
) -> list[Event]:
    """Events: the tournament, its players (engines), then each round with its pairings, each
    game's start (FEN), moves and result; `extra` events last."""
    players = sorted({p for rnd in rounds for g in rnd for p in (g.white, g.black)})
    players += sorted({p for b in byes for p in b} - set(players))
    events: list[Event] = [
        created(fmt=fmt, cycles=cycles, rounds=len(rounds), rules_preset=preset, **kw),
        *[player(p, kind="engine") for p in players],
    ]
    for n, rnd in enumerate(rounds, start=1):
        ids = [f"r{n}g{i}" for i in range(1, len(rnd) + 1)]
        events.append(
            ev.RoundScheduled(
                round=n,
                pairings=[
                    ev.Pairing(
                        game_id=gid, white=g.white, black=g.black, pair_id=g.pair, opening=g.opening
                    )
                    for gid, g in zip(ids, rnd, strict=True)
                ],
                byes=[ev.Bye(player_id=p) for p in (byes[n - 1] if n <= len(byes) else ())],
            )
        )
        for gid, g in zip(ids, rnd, strict=True):
            if g.fen is not None:
                events.append(ev.GameStarted(game_id=gid, fen=g.fen))
            first, second = ("black", "white") if g.fen and " b " in g.fen else ("white", "black")
            events += [
                move(gid, ply, u, colour=first if ply % 2 else second)
                for ply, u in enumerate(g.moves, start=1)
            ]
            term = g.termination or ("agreement" if g.result == "1/2-1/2" else "resignation")
            events.append(result(gid, g.result, term))
    return [*events, *extra]


def ct_of(events: list[Event]) -> Crosstable:
    return crosstable(fold(recorded("t1", events)))


def table_of(events: list[Event]):
    return standings(fold(recorded("t1", events)))


def compute(name: str, events: list[Event], **params: Any) -> dict[str, Value]:
    ct = ct_of(events)
    crit = REGISTRY[name]
    return crit.compute(ct, tuple(ct.players), resolve_params(crit, params))


def keys(values: dict[str, Value]) -> dict[str, Any]:
    return {p: v.key for p, v in values.items()}


def shown(values: dict[str, Value]) -> dict[str, str]:
    return {p: v.shown for p, v in values.items()}


def rows(table) -> list[tuple[int, str, bool, bool, str]]:
    return [(r.place, r.player_id, r.shared, r.unresolved, r.decided_by) for r in table.rows]


def one_game(g: G) -> Crosstable:
    return ct_of(tournament([[g]]))


# Games used in several tests (each checked move by move by python-chess).

# Sam Loyd's ten-move stalemate: 10.Qe6 leaves Black (Kg6, Qh7, Rh6, Bf8 …) no legal move,
# not in check.
LOYD = uci("e3 a5 Qh5 Ra6 Qxa5 h5 h4 Rah6 Qxc7 f6 Qxd7+ Kf7 Qxb7 Qd3 Qxb8 Qh7 Qxc8 Kg6 Qe6")
# 2.Qh5+ leaves Black one legal move (g6), in check.
QH5 = uci("e4 f6 Qh5+")
# 2...Qh4+ leaves White two legal moves (g3, Ke2), in check.
QH4 = uci("f3 e6 e4 Qh4+")
# The same check, then 2...g6 3.Qxg6+ hxg6: the capture resets.
RESET = uci("e4 f6 Qh5+ g6 Qxg6+ hxg6")
KRK_FEN = "7k/8/6K1/8/8/8/8/6R1 w - - 0 1"
# 1.Rf1 leaves the black king on h8 one legal move (Kg8), not in check.
KRK = uci("Rf1 Kg8", KRK_FEN)
KRKR_FEN = "K3kr2/8/8/8/8/8/8/R7 w - - 0 1"
# 1.Re1+ Kd7+ (discovered check by the f8 rook): each side leaves the other three legal
# moves in check.
KRKR = uci("Re1+ Kd7+", KRKR_FEN)
# FRC start position no. 243. White's king d1 castles queenside with the rook c1 (king to c1,
# rook to d1), written in Chess960 UCI as the king taking its own rook: d1c1.
FRC_FEN = "bnrkqnrb/pppppppp/8/8/8/8/PPPPPPPP/BNRKQNRB w KQkq - 0 1"
FRC = ["d1c1", "b7b6", "a2a4", "d7d6", "b2b4", "e8c6", "h2h4", "c6c2"]


# ---------------------------------------------------------------------------------------------
# r-mobility of one game


def test_stalemate_draw_scores_three_quarters_for_the_stalemating_side():
    """Loyd's game is drawn by stalemate. The last capture is 9.Qxc8 (ply 17), so the positions
    after plies 17, 18, 19 count; the last, after 10.Qe6, is stalemate: G = 0 + ½ = G0.5, the
    lowest goal a drawn game can reach, so nothing else matters. White reached it:
    ½ + (½)^(1+1) = ¾ for White, ¼ for Black."""
    assert r_mobility_goal(None, tuple(LOYD)) == Goal(1, "white", 19)
    assert str(Goal(1, "white", 19)) == "G0.5"
    ct = one_game(G("a", "b", "1/2-1/2", LOYD, termination="stalemate"))
    assert game_r_mobility(ct.games[0]) == (Fraction(3, 4), Fraction(1, 4))
    values = REGISTRY["r-mobility"].compute(ct, ("a", "b"), {})
    assert keys(values) == {"a": Fraction(3, 4), "b": Fraction(1, 4)}
    assert shown(values) == {"a": "0.75", "b": "0.25"}


def test_one_legal_move_in_check_is_g1():
    """1.e4 f6 2.Qh5+, then drawn. Last pawn move: 1...f6 (ply 2). After it White has 30
    moves (G30.5 for Black); after 2.Qh5+ Black is in check with one reply, 2...g6 (Kf7 walks
    into the queen, nothing reaches f7): G = 1 + 0 = G1.0 for White.
    White ½ + (½)^3 = 5/8, Black 3/8."""
    assert r_mobility_goal(None, tuple(QH5)) == Goal(2, "white", 3)
    ct = one_game(G("a", "b", "1/2-1/2", QH5))
    assert game_r_mobility(ct.games[0]) == (Fraction(5, 8), Fraction(3, 8))


def test_one_legal_move_not_in_check_from_a_fen_start_is_g1_5():
    """From K g6 + R g1 v K h8: 1.Rf1 (not check). The black king's h7 and g7 are covered by
    the white king, so Kg8 is its only move: G = 1 + ½ = G1.5 for White. After 1...Kg8 White
    has 19 moves (rook 14, king 5): G19.5 for Black. No pawn move or capture in the game, so
    both positions count; the lower is G1.5: White ½ + (½)^4 = 9/16, Black 7/16."""
    assert r_mobility_goal(KRK_FEN, tuple(KRK)) == Goal(3, "white", 1)
    ct = one_game(G("a", "b", "1/2-1/2", KRK, fen=KRK_FEN))
    assert ct.games[0].fen == KRK_FEN
    assert game_r_mobility(ct.games[0]) == (Fraction(9, 16), Fraction(7, 16))


def test_black_goal_is_written_with_a_minus_sign_and_scores_for_black():
    """1.f3 e6 2.e4 Qh4+. After 2.e4 (the last pawn move) Black has 30 moves: G30.5 for White.
    After 2...Qh4+ White is in check with g3 and Ke2 (Kf2 stays on the diagonal): G2.0 for
    Black, written -G2.0. Black ½ + (½)^5 = 17/32, White 15/32."""
    goal = r_mobility_goal(None, tuple(QH4))
    assert goal == Goal(4, "black", 4)
    assert str(goal) == "-G2.0"
    ct = one_game(G("a", "b", "1/2-1/2", QH4))
    assert game_r_mobility(ct.games[0]) == (Fraction(15, 32), Fraction(17, 32))


def test_a_capture_resets_the_goals_reached_before_it():
    """1.e4 f6 2.Qh5+ g6 3.Qxg6+ hxg6. White reached G1.0 twice (after 2.Qh5+ and 3.Qxg6+), but
    3...hxg6 is a capture: only the position after it counts. There White (no queen, not in
    check) has 27 moves: pawns 15 (a–d, f–h one or two squares, e5), knights 5 (a3 c3 f3 h3
    e2), Bf1 5 (e2 d3 c4 b5 a6), king 2 (d1 e2). G27.5 for Black: Black ½ + (½)^56."""
    goal = r_mobility_goal(None, tuple(RESET))
    assert goal == Goal(55, "black", 6)
    assert str(goal) == "-G27.5"
    ct = one_game(G("a", "b", "1/2-1/2", RESET))
    margin = Fraction(1, 2**56)
    assert game_r_mobility(ct.games[0]) == (Fraction(1, 2) - margin, Fraction(1, 2) + margin)
    # The exact key separates; the shown value says it is rounded.
    assert shown(REGISTRY["r-mobility"].compute(ct, ("a", "b"), {})) == {"a": "≈0.5", "b": "≈0.5"}


def test_the_first_side_to_reach_the_best_goal_gets_it():
    """K a8 + R a1 v K e8 + R f8. 1.Re1+: Black has Kd7, Kd8, Kf7 (e7 is on the file, the f8 rook
    cannot block): G3.0 for White. 1...Kd7+ uncovers the f8 rook's check along the 8th rank:
    White has Ka7, Kb7, Re8 (b8 is on the rank): G3.0 for Black. Equal goals: White reached it
    first (ply 1). White ½ + (½)^7 = 65/128, Black 63/128."""
    assert r_mobility_goal(KRKR_FEN, tuple(KRKR)) == Goal(6, "white", 1)
    ct = one_game(G("a", "b", "1/2-1/2", KRKR, fen=KRKR_FEN))
    assert game_r_mobility(ct.games[0]) == (Fraction(65, 128), Fraction(63, 128))


def test_frc_game_replays_with_chess960_castling():
    """FRC position 243: 1.O-O-O (d1c1: king c1, rook d1) b6 2.a4 d6 3.b4 Qc6 4.h4 Qxc2+, drawn.
    4...Qxc2+ is a capture, so only the last position counts: the white king on c1 is in
    check; b1 (knight), d1 (rook, after castling) and d2 (pawn) are its own, b2 is covered
    by the queen, and Kxc2 is legal (the c8 rook is blocked by c7; nothing else guards c2):
    one legal move in check, G1.0 for Black: Black 5/8, White 3/8."""
    # Under standard rules the FRC castling rights are dropped and d1c1 (king onto its own
    # rook) is illegal: the game only replays as Chess960.
    assert not chess.Board(FRC_FEN).is_legal(chess.Move.from_uci("d1c1"))
    assert r_mobility_goal(FRC_FEN, tuple(FRC)) == Goal(2, "black", 8)
    ct = one_game(G("a", "b", "1/2-1/2", FRC, fen=FRC_FEN))
    assert game_r_mobility(ct.games[0]) == (Fraction(3, 8), Fraction(5, 8))


def test_castling_replays_in_either_uci_notation():
    """Standard castling may be recorded as e1g1 or (Chess960 style) e1h1: the same game."""
    line = uci("e4 e5 Nf3 Nc6 Bc4 Nf6")
    standard = r_mobility_goal(None, (*line, "e1g1"))
    king_takes_rook = r_mobility_goal(None, (*line, "e1h1"))
    assert standard is not None and standard == king_takes_rook


def test_decisive_and_moveless_games_keep_their_ordinary_result():
    """Decisive games keep 1 and 0 whatever their goals (the Qh5+ line won by White, a black
    win from the Qh4+ line); a draw without moves is ½–½; a forfeit 1–0; a game whose moves do
    not replay (illegal 1.e2e5) has no r-mobility and counts ½–½."""
    ct = ct_of(
        tournament(
            [
                [G("a", "b", "1-0", QH5), G("c", "d", "0-1", QH4)],
                [G("a", "c", "1/2-1/2"), G("b", "d", "1-0", termination="forfeit")],
            ]
        )
    )
    points = {g.game_id: game_r_mobility(g) for g in ct.games}
    assert points == {
        "r1g1": (1, 0),
        "r1g2": (0, 1),
        "r2g1": (Fraction(1, 2), Fraction(1, 2)),
        "r2g2": (1, 0),
    }
    assert r_mobility_goal(None, ("e2e5",)) is None
    assert r_mobility_goal(None, ()) is None


def test_r_mobility_sums_each_players_games_most_first():
    """a–b Loyd stalemate (a White): a ¾, b ¼. c–a 1.e4 f6 2.Qh5+ drawn (c White): c ⅝, a ⅜.
    b–c 1–0 (knight shuffle, decisive): b 1, c 0.
    a = ¾ + ⅜ = 9/8; b = ¼ + 1 = 5/4; c = ⅝ + 0 = 5/8. Most first: b, a, c
    (on points b 1½, a 1, c ½)."""
    events = tournament(
        [
            [G("a", "b", "1/2-1/2", LOYD, termination="stalemate")],
            [G("c", "a", "1/2-1/2", QH5)],
            [G("b", "c", "1-0", shuffle(9))],
        ]
    )
    values = compute("r-mobility", events)
    assert keys(values) == {"a": Fraction(9, 8), "b": Fraction(5, 4), "c": Fraction(5, 8)}
    assert shown(values) == {"a": "1.125", "b": "1.25", "c": "0.625"}
    assert sorted(values, key=lambda p: values[p].key, reverse=True) == ["b", "a", "c"]


def test_goal_is_computed_once_per_game_however_often_standings_are_recomputed():
    """The goal is a pure function of (start FEN, moves), cached: recomputing the standings
    replays no game again. Only drawn games with moves are replayed at all."""
    events = tournament(
        [
            [G("a", "b", "1/2-1/2", LOYD, termination="stalemate"), G("c", "d", "1-0", QH5)],
            [G("a", "c", "1/2-1/2", KRK, fen=KRK_FEN), G("b", "d", "1/2-1/2")],
        ]
    )
    r_mobility_goal.cache_clear()
    state = fold(recorded("t1", events))
    standings(state)
    first = r_mobility_goal.cache_info()
    assert first.misses == 2  # the Loyd and KRK draws; not the decisive game, not the moveless
    standings(state)
    standings(fold(recorded("t1", events)))  # a fresh fold: equal moves, same cache entries
    assert r_mobility_goal.cache_info().misses == 2


def test_r_mobility_of_many_long_games_is_computed_and_cached():
    """150 distinct games of up to 200 plies (random legal play) all get a goal, and a second
    pass is served from the cache. Speed is measured by tests/bench/standings.py, not here."""
    rng = random.Random(2024)
    games = []
    for i in range(150):
        board = chess.Board()
        line = []
        while len(line) < 200 and (legal := list(board.legal_moves)):
            mv = rng.choice(legal)
            line.append(mv.uci())
            board.push(mv)
        games.append((f"x{i}", tuple(line)))
    r_mobility_goal.cache_clear()
    goals = [r_mobility_goal(None, line) for _, line in games]
    assert all(g is not None for g in goals)
    assert [r_mobility_goal(None, line) for _, line in games] == goals
    assert r_mobility_goal.cache_info().misses == len(set(games))


# ---------------------------------------------------------------------------------------------
# wins


def test_wins_count_games_won_over_the_board():
    """a: beats b and c over the board (2), wins by forfeit against d, has a full-point bye.
    Wins = 2; with count_forfeits 3; a bye is never a win. b: one win (vs c); c, d: none."""
    events = tournament(
        [
            [G("a", "b", "1-0"), G("c", "d", "1/2-1/2")],
            [G("c", "a", "0-1"), G("b", "d", "1/2-1/2")],
            [G("a", "d", "1-0", termination="forfeit"), G("b", "c", "1-0")],
            [G("b", "d", "1/2-1/2")],
        ],
        fmt="swiss",
        byes=[[], [], [], ["a"]],
    )
    assert keys(compute("wins", events)) == {"a": 2, "b": 1, "c": 0, "d": 0}
    assert keys(compute("wins", events, count_forfeits=True)) == {"a": 3, "b": 1, "c": 0, "d": 0}


def test_tcec_swiss_wins_decide_after_sonneborn_berger_and_r_mobility():
    """Six engines, single round robin, tcec-swiss. Scores: v 5, j 2½, k 2½, u 2, o1 1½, o2 1½.
    j: ½ k, 1 o1, 0 o2, 1 u, 0 v — two wins. k: ½ j, ½ o1, ½ o2, 1 u, 0 v — one win.
    SB j = ½·2½ + 1·1½ + 1·2 = 4.75; SB k = ½·2½ + ½·1½ + ½·1½ + 1·2 = 4.75 (level).
    r-mobility: no moves recorded, so 2½ each (level). Wins 2 v 1: j above k.
    o1/o2: SB o2 = 1·2½ (beat j) + ½·2½ = 3.75 > SB o1 = ½·2½ + 1·1½ = 2.75."""
    d, w, lo = "1/2-1/2", "1-0", "0-1"
    rounds = [
        [G("v", "j", w), G("k", "u", w), G("o1", "o2", w)],
        [G("v", "k", w), G("o1", "j", lo), G("o2", "u", lo)],
        [G("v", "o1", w), G("o2", "k", d), G("u", "j", lo)],
        [G("v", "o2", w), G("u", "o1", w), G("j", "k", d)],
        [G("v", "u", w), G("j", "o2", lo), G("k", "o1", d)],
    ]
    table = table_of(tournament(rounds, preset="tcec-swiss", fmt="swiss"))
    assert [(r.player_id, r.score) for r in table.rows] == [
        ("v", "5"),
        ("j", "2½"),
        ("k", "2½"),
        ("u", "2"),
        ("o2", "1½"),
        ("o1", "1½"),
    ]
    by = {r.player_id: r for r in table.rows}
    assert by["k"].decided_by == "wins 2–1"
    assert by["o1"].decided_by == "Sonneborn-Berger 3¾–2¾"
    assert dict(by["j"].tiebreaks)["sonneborn-berger"] == "4¾"
    assert dict(by["k"].tiebreaks)["sonneborn-berger"] == "4¾"


def test_tcec_frd_wins_then_organisers_decide():
    """tcec-frd, four engines, double round robin, no moves recorded. e–f two draws; e beats g
    twice; h beats e twice; f–g and f–h all drawn; g beats h twice. Everyone has 3 points, so
    direct encounter (3 each), SB (3·3 = 9 each) and r-mobility (3 each) are level.
    Wins: e 2, g 2, h 2, f 0: f is fourth; e, g, h stay level and the FRD leaves them to the
    organisers (FRD 3.5): unresolved."""
    d, w = "1/2-1/2", "1-0"
    rounds = [
        [G("e", "h", "0-1"), G("f", "g", d)],
        [G("e", "g", w), G("h", "f", d)],
        [G("e", "f", d), G("g", "h", w)],
        [G("h", "e", w), G("g", "f", d)],
        [G("g", "e", "0-1"), G("f", "h", d)],
        [G("f", "e", d), G("h", "g", "0-1")],
    ]
    table = table_of(tournament(rounds, preset="tcec-frd"))
    assert rows(table) == [
        (1, "e", True, True, ""),
        (1, "g", True, True, "unresolved: organisers decide"),
        (1, "h", True, True, "unresolved: organisers decide"),
        (4, "f", False, False, "wins 2–0"),
    ]
    assert [s.name for s in table.chain.specs] == [
        "direct-encounter",
        "sonneborn-berger",
        "r-mobility",
        "wins",
        "organisers-decide",
    ]


# ---------------------------------------------------------------------------------------------
# double wins


def test_double_wins_by_pair_id():
    """Pair p1: a beats b with White and with Black — a double win. Pair p2: a and c each win
    with White — split. Pair p3: b beats c, then a draw — not a double win. a 1, b 0, c 0."""
    events = tournament(
        [
            [G("a", "b", "1-0", pair="p1")],
            [G("b", "a", "0-1", pair="p1")],
            [G("a", "c", "1-0", pair="p2")],
            [G("c", "a", "1-0", pair="p2")],
            [G("b", "c", "1-0", pair="p3")],
            [G("c", "b", "1/2-1/2", pair="p3")],
        ]
    )
    assert keys(compute("double-wins", events)) == {"a": 1, "b": 0, "c": 0}


def test_double_wins_by_opening_when_there_are_no_pair_ids():
    """No pair ids: a pair is the same opening between the same engines with reversed colours.
    a–b and b–a, both Sicilian, both won by a: a double win. a–c French and c–a Caro-Kann, both
    won by a: different book exits, no pair. c–b Sicilian is another engine pair: not paired
    with the a–b games. a 1, b 0, c 0."""
    events = tournament(
        [
            [G("a", "b", "1-0", opening="Sicilian")],
            [G("b", "a", "0-1", opening="Sicilian")],
            [G("a", "c", "1-0", opening="French")],
            [G("c", "a", "0-1", opening="Caro-Kann")],
            [G("c", "b", "1-0", opening="Sicilian")],
        ]
    )
    assert keys(compute("double-wins", events)) == {"a": 1, "b": 0, "c": 0}


def test_double_wins_match_games_in_playing_order_and_skip_forfeits():
    """The Ruy Lopez is played twice as a pair between a and b (2 cycles, no pair ids):
    games 1+2 form the first pair (a wins both: a double win), games 3+4 the second (a wins,
    then loses: split). Games 2 and 3 are also reversed colours and both won by a, but they
    belong to different pairs: a has 1 double win, not 2. Pair p9: a wins by forfeit, then
    over the board — a forfeit is not a game played, so no double win. Pair px with the same
    colours twice is no pair at all."""
    ruy = "Ruy Lopez"
    events = tournament(
        [
            [G("a", "b", "1-0", opening=ruy), G("c", "d", "1/2-1/2")],
            [G("b", "a", "0-1", opening=ruy), G("d", "c", "1/2-1/2")],
            [G("a", "b", "1-0", opening=ruy), G("c", "d", "1-0", pair="px")],
            [G("b", "a", "1-0", opening=ruy), G("c", "d", "1-0", pair="px")],
            [G("a", "c", "1-0", pair="p9", termination="forfeit"), G("b", "d", "1/2-1/2")],
            [G("c", "a", "0-1", pair="p9"), G("d", "b", "1/2-1/2")],
        ],
        cycles=2,
    )
    assert keys(compute("double-wins", events)) == {"a": 1, "b": 0, "c": 0, "d": 0}


# ---------------------------------------------------------------------------------------------
# average moves in won / lost games


def test_average_moves_are_exact_and_none_without_games():
    """Lengths in moves = ceil(plies / 2): a White win in 59 plies is 30 moves, a Black win in
    60 plies 30 moves, 62 plies 31, 79 plies 40.
    a wins: 30 (v b), 30 (v c, Black), 40 (v b) -> 100/3 = 33⅓; b wins: 30, 31 (v c) -> 30½;
    c wins none -> no value.
    Lost: a none -> no value; b lost 30, 40 -> 35; c lost 30, 30, 31 -> 91/3 = 30⅓.
    Keys: won negated (fewer is better), lost as is (more is better)."""
    events = tournament(
        [
            [G("a", "b", "1-0", shuffle(59))],
            [G("c", "a", "0-1", shuffle(60))],
            [G("a", "b", "1-0", shuffle(79))],
            [G("b", "c", "1-0", shuffle(59))],
            [G("c", "b", "0-1", shuffle(62))],
        ]
    )
    won = compute("avg-moves-won", events)
    assert keys(won) == {"a": Fraction(-100, 3), "b": Fraction(-61, 2), "c": None}
    assert shown(won) == {"a": "33 1/3", "b": "30.5", "c": "–"}
    lost = compute("avg-moves-lost", events)
    assert keys(lost) == {"a": None, "b": Fraction(35), "c": Fraction(91, 3)}
    assert shown(lost) == {"a": "–", "b": "35", "c": "30 1/3"}


def test_game_length_is_the_number_of_the_last_move():
    """From the standard start or an FRC start (move 1, White to move): ceil(plies / 2). A FEN
    start keeps its move counter: Black to move at move 40, three plies (40...x 41.x 41...x)
    end on move 41."""
    ct = ct_of(
        tournament(
            [
                [G("a", "b", "1-0", shuffle(7))],
                [G("a", "b", "1/2-1/2", FRC, fen=FRC_FEN)],
                [
                    G(
                        "a",
                        "b",
                        "0-1",
                        ["h8g8", "f1f2", "g8h8"],
                        fen="7k/8/6K1/8/8/8/8/5R2 b - - 3 40",
                    )
                ],
            ]
        )
    )
    assert [game_length(g) for g in ct.games] == [4, 4, 41]


def test_won_games_without_moves_and_forfeits_do_not_count():
    """a wins in 20 moves (39 plies), wins a game recorded without moves, and wins by forfeit:
    only the first has a length, average 20. b's only win has no moves: no value."""
    events = tournament(
        [
            [G("a", "b", "1-0", shuffle(39))],
            [G("a", "c", "1-0")],
            [G("c", "a", "0-1", termination="forfeit")],
            [G("b", "c", "1-0")],
        ]
    )
    assert keys(compute("avg-moves-won", events)) == {"a": Fraction(-20), "b": None, "c": None}


def test_no_average_ranks_after_a_player_with_one():
    """Chain: avg-moves-won, then shared places. p beats r in 20 moves (39 plies), q beats r in
    a game recorded without moves, p–q drawn: p and q 1½ each. p has an average (20), q has
    none: q ranks after p (rules/README "TCEC average moves")."""
    events = tournament(
        [[G("p", "r", "1-0", shuffle(39))], [G("q", "r", "1-0")], [G("p", "q", "1/2-1/2")]],
        preset=None,
        tiebreaks=[ev.TiebreakSpec(name="avg-moves-won"), ev.TiebreakSpec(name="shared-place")],
    )
    assert rows(table_of(events)) == [
        (1, "p", False, False, ""),
        (2, "q", False, False, "average moves in won games 20––"),
        (3, "r", False, False, "points 1½–0"),
    ]


def test_more_moves_in_lost_games_is_better():
    """m loses to n in 50 moves (99 plies) and beats o; o loses to n in 25 moves (49 plies) and
    beats m. Level on points; lost averages m 50, o 25: m is ahead on avg-moves-lost."""
    events = tournament(
        [
            [G("n", "m", "1-0", shuffle(99))],
            [G("n", "o", "1-0", shuffle(49))],
            [G("m", "o", "1-0")],
            [G("o", "m", "1-0")],
        ],
        preset=None,
        tiebreaks=[ev.TiebreakSpec(name="avg-moves-lost"), ev.TiebreakSpec(name="shared-place")],
    )
    assert keys(compute("avg-moves-lost", events)) == {"m": 50, "n": None, "o": 25}
    assert rows(table_of(events))[1:] == [
        (2, "m", False, False, "points 2–1"),
        (3, "o", False, False, "average moves in lost games 50–25"),
    ]


# ---------------------------------------------------------------------------------------------
# The TCEC chains on whole standings


def _drr(pairs: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    return [*pairs, *[(b, a) for a, b in pairs]]


def test_tcec_league_four_way_tie_walks_the_chain():
    """Four engines, one double round robin, every pair a game pair (pair ids), all level on
    3 points:
      a–d: Loyd's stalemate (a White) and a draw; a–b, a–c: two draws each;
      b–c, b–d, c–d: each engine wins one game of the pair (no double wins).
    Direct encounter among all four = their points (3 each); SB = 3·3 = 9 each: level.
    r-mobility = points + the stalemate's ±¼: a 3¼, b 3, c 3, d 2¾ -> a first, d last.
    b and c: double wins 0 and 0; average moves in won games: b won in 25 and 25 moves
    (49 plies, White), c in 35 and 35 (69 plies): b 25 < c 35, fewer is better: b above c."""
    d = "1/2-1/2"
    rounds = [
        [
            G("a", "d", d, LOYD, pair="ad", termination="stalemate"),
            G("b", "c", "1-0", shuffle(49), pair="bc"),
        ],
        [G("a", "c", d, pair="ac"), G("d", "b", "1-0", shuffle(79), pair="bd")],
        [G("a", "b", d, pair="ab"), G("c", "d", "1-0", shuffle(69), pair="cd")],
        [G("d", "a", d, pair="ad"), G("c", "b", "1-0", shuffle(69), pair="bc")],
        [G("c", "a", d, pair="ac"), G("b", "d", "1-0", shuffle(49), pair="bd")],
        [G("b", "a", d, pair="ab"), G("d", "c", "1-0", shuffle(79), pair="cd")],
    ]
    table = table_of(tournament(rounds))
    assert rows(table) == [
        (1, "a", False, False, ""),
        (2, "b", False, False, "r-mobility 3.25–3"),
        (3, "c", False, False, "average moves in won games 25–35"),
        (4, "d", False, False, "r-mobility 3–2.75"),
    ]
    cols = {r.player_id: dict(r.tiebreaks) for r in table.rows}
    assert {p: c["sonneborn-berger"] for p, c in cols.items()} == dict.fromkeys("abcd", "9")
    assert {p: c["double-wins"] for p, c in cols.items()} == dict.fromkeys("abcd", "0")
    assert cols["d"]["avg-moves-won"] == "40"
    steps = [(s.criterion, s.group) for s in table.ranking.trace]
    assert steps == [
        ("direct-encounter", ("a", "b", "c", "d")),
        ("sonneborn-berger", ("a", "b", "c", "d")),
        ("r-mobility", ("a", "b", "c", "d")),
        ("double-wins", ("b", "c")),
        ("avg-moves-won", ("b", "c")),
    ]


def test_tcec_league_three_way_tie_direct_encounter_then_moves_in_lost_games():
    """x, y, z on 3½, w on 1½ (double round robin, pair ids).
    Among x, y, z: x beats y and z once and draws the other game (3); y–z split (y wins in 40
    moves, z in 20): y 1½, z 1½. Direct encounter puts x first.
    y and z: SB y = ½·3½ (x) + 1·3½ (z) + 2·1½ (w) = 8.25, z the same; r-mobility 3½ each
    (no drawn game has moves); double wins 1 each (both beat w twice); average moves won:
    y (40 + 30 + 30)/3 = 33⅓, z (20 + 40 + 40)/3 = 33⅓ — level. Average moves lost: y lost to
    x in 30 and to z in 20 -> 25; z lost to x in 30 and to y in 40 -> 35. More is better:
    z above y."""
    d, w, lo = "1/2-1/2", "1-0", "0-1"
    rounds = [
        [G("x", "w", d, pair="xw"), G("y", "z", w, shuffle(79), pair="yz")],
        [G("x", "z", w, shuffle(59), pair="xz"), G("w", "y", lo, shuffle(60), pair="yw")],
        [G("x", "y", w, shuffle(59), pair="xy"), G("z", "w", w, shuffle(79), pair="zw")],
        [G("w", "x", w, pair="xw"), G("z", "y", w, shuffle(39), pair="yz")],
        [G("z", "x", d, pair="xz"), G("y", "w", w, shuffle(59), pair="yw")],
        [G("y", "x", d, pair="xy"), G("w", "z", lo, shuffle(80), pair="zw")],
    ]
    table = table_of(tournament(rounds))
    assert rows(table) == [
        (1, "x", False, False, ""),
        (2, "z", False, False, "direct encounter 3–1½"),
        (3, "y", False, False, "average moves in lost games 35–25"),
        (4, "w", False, False, "points 3½–1½"),
    ]
    cols = {r.player_id: dict(r.tiebreaks) for r in table.rows}
    assert cols["y"]["sonneborn-berger"] == cols["z"]["sonneborn-berger"] == "8¼"
    assert cols["y"]["double-wins"] == cols["z"]["double-wins"] == "1"
    assert cols["y"]["avg-moves-won"] == cols["z"]["avg-moves-won"] == "33 1/3"
    assert (cols["y"]["avg-moves-lost"], cols["z"]["avg-moves-lost"]) == ("25", "35")


def _level_trio(extra: Sequence[Event] = ()) -> list[Event]:
    """s beats everyone twice; p, q, r draw all their games; nothing recorded but results."""
    d = "1/2-1/2"
    rounds = [
        [G("s", "r", "1-0"), G("p", "q", d)],
        [G("s", "q", "1-0"), G("r", "p", d)],
        [G("s", "p", "1-0"), G("q", "r", d)],
        [G("r", "s", "0-1"), G("q", "p", d)],
        [G("q", "s", "0-1"), G("p", "r", d)],
        [G("p", "s", "0-1"), G("r", "q", d)],
    ]
    return tournament(rounds, extra=extra)


def test_tcec_league_tie_left_to_the_organisers_until_a_ruling():
    """p, q, r: 2 points each, every criterion level — direct encounter 2 each, SB 4 draws ·
    ½ · 2 = 4 each, r-mobility 2 each, no double wins, no won games, lost games without moves:
    Leagues 11.1.7, the organisers decide. Until then the rows are unresolved, sharing place 2.
    A RulingIssued with {"tiebreak_order": ["q", "r", "p"]} orders them 2, 3, 4."""
    table = table_of(_level_trio())
    assert rows(table) == [
        (1, "s", False, False, ""),
        (2, "p", True, True, "points 6–2"),
        (2, "q", True, True, "unresolved: organisers decide"),
        (2, "r", True, True, "unresolved: organisers decide"),
    ]
    ruling = ev.RulingIssued(
        ruling_id="R1",
        by="TCEC organisers",
        subject="places 2–4",
        rule="TCEC Leagues 11.1.7",
        text="q, r, p in that order.",
        decision={"tiebreak_order": ["q", "r", "p"]},
    )
    table = table_of(_level_trio([ruling]))
    assert rows(table) == [
        (1, "s", False, False, ""),
        (2, "q", False, False, "points 6–2"),
        (3, "r", False, False, "organisers' ruling R1 1–2"),
        (4, "p", False, False, "organisers' ruling R1 2–3"),
    ]
    assert table.ranking.ruled == dict.fromkeys("pqr", "R1")


def test_tcec_swiss_ends_in_shared_places():
    """tcec-swiss, four engines, three rounds. n1 wins all; n2–n3 drawn; both beat n4.
    n2 and n3: 1½ each, SB ½·1½ = 0.75 each, r-mobility 1½ each, 1 win each, direct encounter
    ½ each: still level, they share second place and the next place is 4th (1, 2, 2, 4)."""
    rounds = [
        [G("n1", "n4", "1-0"), G("n2", "n3", "1/2-1/2")],
        [G("n3", "n1", "0-1"), G("n4", "n2", "0-1")],
        [G("n1", "n2", "1-0"), G("n3", "n4", "1-0")],
    ]
    table = table_of(tournament(rounds, preset="tcec-swiss", fmt="swiss"))
    assert rows(table) == [
        (1, "n1", False, False, ""),
        (2, "n2", True, False, "points 3–1½"),
        (2, "n3", True, False, "shared"),
        (4, "n4", False, False, "points 1½–0"),
    ]


def test_presets_follow_the_rulebook():
    """Leagues 11.1 (= 4k 3.1), Swiss 3 (= Leagues 11.2), FRD 3."""
    names = {
        k: [s.name for s in PRESETS[k].specs] for k in ("tcec-league", "tcec-swiss", "tcec-frd")
    }
    assert names == {
        "tcec-league": [
            "direct-encounter",
            "sonneborn-berger",
            "r-mobility",
            "double-wins",
            "avg-moves-won",
            "avg-moves-lost",
            "organisers-decide",
        ],
        "tcec-swiss": [
            "sonneborn-berger",
            "r-mobility",
            "wins",
            "direct-encounter",
            "shared-place",
        ],
        "tcec-frd": [
            "direct-encounter",
            "sonneborn-berger",
            "r-mobility",
            "wins",
            "organisers-decide",
        ],
    }
    for chain in names:
        assert validate(PRESETS[chain].specs) == []
    for name in ("r-mobility", "wins", "double-wins", "avg-moves-won", "avg-moves-lost"):
        crit = REGISTRY[name]
        assert "TCEC" in crit.source and crit.doc


@pytest.mark.parametrize("fen", [None, KRK_FEN])
def test_goal_is_pure(fen):
    """Same game, same goal, whether cached or computed afresh."""
    line = tuple(KRK if fen else QH5)
    assert r_mobility_goal(fen, line) == r_mobility_goal.__wrapped__(fen, line)
