"""Game endings by rule from the moves alone: each rule triggered and just missed, the
preset's own list, precedence, Chess960 castling, the incremental form against python-chess."""

from __future__ import annotations

import random
from pathlib import Path

import chess
import chess.gaviota
import pytest

from events_schema.events import GameStarted, MovePlayed
from projections.endings import (
    WDL,
    Adjudicator,
    GameFacts,
    IllegalMoveError,
    MoveFacts,
    adjudicate,
)

FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]
SHUFFLE = ["g1f3", "g8f6", "f3g1", "f6g8"]  # back to the start position after 4 plies


def _facts(moves: list[str], fen: str | None = None, evals: int | None = None) -> GameFacts:
    return GameFacts(tuple(MoveFacts(u, evals) for u in moves), fen)


def test_checkmate_wins_at_the_mating_ply():
    ending = adjudicate(_facts(FOOLS_MATE), "tcec-swiss")
    assert ending is not None
    assert (ending.result, ending.termination, ending.ply) == ("0-1", "checkmate", 4)
    assert ending.rule == "tcec-rules Swiss 6.d"
    assert ending.detail == "Black mates (tcec-rules Swiss 6.d)"
    assert adjudicate(_facts(FOOLS_MATE[:3]), "tcec-swiss") is None
    fide = adjudicate(_facts(FOOLS_MATE), None)
    assert fide is not None and fide.rule == "FIDE Laws 5.1.1"


def test_stalemate_is_a_draw_everywhere():
    fen = "7k/8/6Q1/8/8/8/8/K7 w - - 0 1"
    for preset, article in [
        ("tcec-league", "tcec-rules Leagues 10.1"),
        ("tcec-4k", "tcec-rules 4k 2.2"),
        ("tcec-frd", "tcec-rules FRD 6 (laws of chess)"),
        ("fide-swiss", "FIDE Laws 5.2.1"),
    ]:
        ending = adjudicate(_facts(["g6f7"], fen), preset)
        assert ending is not None, preset
        assert (ending.result, ending.termination, ending.rule) == (
            "1/2-1/2",
            "stalemate",
            article,
        )
    assert adjudicate(_facts(["g6g5"], fen), "tcec-league") is None


def test_threefold_repetition_in_tcec_fivefold_under_the_fide_laws():
    eight = SHUFFLE * 2
    ending = adjudicate(_facts(eight), "tcec-cup")
    assert ending is not None
    assert (ending.termination, ending.ply, ending.rule) == (
        "threefold_repetition",
        8,
        "tcec-rules Cup 6.a",
    )
    assert adjudicate(_facts(eight[:7]), "tcec-cup") is None
    # FIDE: three-fold is a claim (9.2); five-fold ends the game (9.6.1)
    adj = Adjudicator("fide")
    for uci in eight:
        assert adj.push(uci) is None
    assert adj.can_claim_threefold() and adj.repetitions() == 3
    ending = adjudicate(_facts(SHUFFLE * 4), "fide")
    assert ending is not None
    assert (ending.termination, ending.ply, ending.rule) == (
        "threefold_repetition",
        16,
        "FIDE Laws 9.6.1",
    )
    assert "fivefold repetition" in ending.detail


def test_a_capture_or_pawn_move_starts_the_repetition_count_again():
    moves = [*SHUFFLE, "e2e4", "e7e5", *SHUFFLE, *SHUFFLE[:3]]
    assert adjudicate(_facts(moves), "tcec-league") is None
    ending = adjudicate(_facts([*moves, SHUFFLE[3]]), "tcec-league")
    assert ending is not None and ending.ply == len(moves) + 1


def _rook_shuffle(plies: int) -> list[str]:
    """Kings and a rook wandering, never a position a third time, no capture, no pawn."""
    board = chess.Board("k7/8/8/8/8/8/8/K6R w - - 0 1")
    seen: dict[object, int] = {board._transposition_key(): 1}
    out: list[str] = []
    rng = random.Random(5)
    while len(out) < plies:
        fresh = []
        for m in board.legal_moves:
            if board.is_capture(m):
                continue
            board.push(m)
            if seen.get(board._transposition_key(), 0) < 2 and not board.is_stalemate():
                fresh.append(m)
            board.pop()
        m = rng.choice(fresh)
        board.push(m)
        key = board._transposition_key()
        seen[key] = seen.get(key, 0) + 1
        out.append(m.uci())
    return out


def test_fifty_moves_in_tcec_seventy_five_under_the_fide_laws():
    fen = "k7/8/8/8/8/8/8/K6R w - - 0 1"
    moves = _rook_shuffle(150)
    ending = adjudicate(_facts(moves[:100], fen), "tcec-league")
    assert ending is not None
    assert (ending.termination, ending.ply, ending.rule) == (
        "fifty_move_rule",
        100,
        "tcec-rules Leagues 10.1",
    )
    assert adjudicate(_facts(moves[:99], fen), "tcec-league") is None
    adj = Adjudicator("fide", start_fen=fen)
    for uci in moves[:149]:
        assert adj.push(uci) is None
    assert adj.can_claim_fifty()
    ending = adj.push(moves[149])
    assert ending is not None
    assert (ending.termination, ending.ply, ending.rule) == (
        "fifty_move_rule",
        150,
        "FIDE Laws 9.6.2",
    )


def test_the_fifty_move_rule_comes_before_the_draw_rule_on_the_same_ply():
    # as in TCEC Season 28 Entrance League Tiebreak game 1 (ply 237)
    fen = "k7/8/8/8/8/8/8/K6R w - - 92 1"
    moves = _rook_shuffle(8)
    ending = adjudicate(_facts(moves, fen, evals=0), "tcec-league")
    assert ending is not None
    assert (ending.termination, ending.ply) == ("fifty_move_rule", 8)
    ending = adjudicate(_facts(moves, fen.replace(" 92 ", " 0 "), evals=0), "tcec-league")
    assert ending is not None and ending.termination == "tcec_draw_rule"


def test_illegal_move_loses_in_tcec_and_is_the_arbiters_under_the_fide_laws():
    ending = adjudicate(_facts(["e2e4", "e7e5", "e1e3"]), "tcec-league")
    assert ending is not None
    assert (ending.result, ending.termination, ending.ply) == ("0-1", "illegal_move", 3)
    assert ending.rule == "tcec-rules Leagues 10.4"
    ending = adjudicate(_facts(["e2e4", "zz99"]), "tcec-frd")
    assert ending is not None and (ending.result, ending.ply) == ("1-0", 2)
    assert ending.rule == "tcec-rules Swiss 6.d (read across)"
    adj = Adjudicator("fide")
    adj.push("e2e4")
    with pytest.raises(IllegalMoveError) as err:
        adj.push("e7e4")
    assert err.value.ply == 2
    assert adj.ply == 1 and adj.ending is None  # nothing changed
    assert adj.push("e7e5") is None


def test_no_move_after_the_end():
    adj = Adjudicator("tcec-league")
    for uci in FOOLS_MATE:
        adj.push(uci)
    assert adj.ending is not None
    with pytest.raises(ValueError, match="already ended at ply 4"):
        adj.push("a2a3")


def test_dead_position_ends_human_games_but_not_tcec_ones():
    fen = "8/8/8/3k4/8/8/1n6/KB6 w - - 0 1"  # the bishop takes the last knight: K+B v K
    ending = adjudicate(_facts(["b1e4", "d5e4"], fen), "fide-round-robin")
    assert ending is not None
    assert (ending.termination, ending.ply, ending.rule) == (
        "insufficient_material",
        2,
        "FIDE Laws 5.2.2",
    )
    ending = adjudicate(_facts(["a1b2"], fen), "gct-classical")
    assert ending is not None and ending.termination == "insufficient_material"
    assert adjudicate(_facts(["a1b2"], fen), "tcec-league") is None


def test_a_start_position_already_over_ends_at_ply_zero():
    mated = "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"
    ending = adjudicate(_facts([], mated), "tcec-league")
    assert ending is not None and (ending.result, ending.ply) == ("1-0", 0)
    with pytest.raises(ValueError, match="not a valid start position"):
        Adjudicator("tcec-league", start_fen="8/8/8/8/8/8/8/8 w - - 0 1")


@pytest.mark.parametrize("notation", ["king-takes-rook", "king-to-g-file"])
def test_chess960_castling_in_either_notation(notation: str):
    fen = "rnbbknqr/pppppppp/8/8/8/8/PPPPPPPP/RNBBK2R w KQkq - 0 1"
    castle = "e1h1" if notation == "king-takes-rook" else "e1g1"
    adj = Adjudicator("tcec-frd", start_fen=fen)
    assert adj.push(castle) is None
    assert adj.board.piece_at(chess.G1) == chess.Piece(chess.KING, chess.WHITE)
    assert adj.board.piece_at(chess.F1) == chess.Piece(chess.ROOK, chess.WHITE)
    # an FRC start where king-takes-rook is the only notation (b1c1 is a king step)
    fen = "rk4r1/pppppppp/8/8/8/8/PPPPPPPP/RK4R1 w KQkq - 0 1"
    adj = Adjudicator("tcec-frd", start_fen=fen)
    assert adj.push("b1a1") is None
    assert adj.board.piece_at(chess.C1) == chess.Piece(chess.KING, chess.WHITE)
    assert adj.board.piece_at(chess.D1) == chess.Piece(chess.ROOK, chess.WHITE)


def test_standard_castling_and_en_passant():
    adj = Adjudicator("tcec-league")
    for uci in ["e2e4", "a7a6", "e4e5", "d7d5", "e5d6", "a6a5", "g1f3", "a5a4"]:
        assert adj.push(uci) is None
    assert adj.push("f1e2") is None and adj.push("a4a3") is None
    assert adj.push("e1g1") is None
    assert adj.board.piece_at(chess.G1) == chess.Piece(chess.KING, chess.WHITE)


def test_facts_from_events():
    started = GameStarted(game_id="g1")
    moves = [
        MovePlayed(game_id="g1", ply=i + 1, colour="white" if i % 2 == 0 else "black", uci=u)
        for i, u in enumerate(FOOLS_MATE)
    ]
    game = GameFacts.of(moves, started)
    assert [m.uci for m in game.moves] == FOOLS_MATE
    ending = adjudicate(game, "tcec-league")
    assert ending is not None
    event = ending.game_ended("g1")
    assert (event.result, event.termination) == ("0-1", "checkmate")
    assert event.detail == ending.detail


# --- tablebases ----------------------------------------------------------------------------

GAVIOTA = Path("/usr/share/gaviotatb/gtb4")  # Debian's gaviotatb: 3-man tables


class GaviotaProber:
    """A test prober over python-chess's pure-Python Gaviota reader."""

    kind = "Gaviota"

    def __init__(self, tb: chess.gaviota.PythonTablebase) -> None:
        self.tb = tb
        self.probes = 0

    def probe_wdl(self, board: chess.Board) -> WDL | None:
        self.probes += 1
        try:
            wdl = self.tb.probe_wdl(board)
        except (KeyError, chess.gaviota.MissingTableError):
            return None
        return "win" if wdl > 0 else "loss" if wdl < 0 else "draw"


@pytest.fixture(scope="module")
def gaviota() -> GaviotaProber:
    if not any(GAVIOTA.glob("*.gtb.cp4")):
        pytest.skip("Debian's gaviotatb tables are not installed (apt-get install gaviotatb)")
    return GaviotaProber(chess.gaviota.open_tablebase(str(GAVIOTA)))


class FakeProber:
    def __init__(self, answer: WDL | None) -> None:
        self.answer = answer
        self.probes = 0

    def probe_wdl(self, board: chess.Board) -> WDL | None:
        self.probes += 1
        return self.answer


def test_tablebase_adjudication_only_with_a_prober(gaviota: GaviotaProber):
    fen = "8/8/8/3k4/8/8/1r6/KQ6 w - - 0 1"  # 4 men (no table); the queen takes the rook
    ending = adjudicate(_facts(["b1b2"], fen), "tcec-swiss", gaviota)
    assert ending is not None
    assert (ending.result, ending.termination, ending.ply, ending.rule) == (
        "1-0",
        "tablebase",
        1,
        "tcec-rules Swiss 6.c",
    )
    assert ending.detail == (
        "Gaviota tablebase adjudication: 3 men, Black to move loses (tcec-rules Swiss 6.c)"
    )  # the tables that answered are named (a prober without a name: Syzygy, TCEC's)
    assert adjudicate(_facts(["b1b2"], fen), "tcec-swiss") is None  # never implicitly
    assert adjudicate(_facts(["b1b2"], fen), "tcec-4k", gaviota) is None  # not a 4k ending
    # the king takes the queen: K v K+N, a tablebase draw
    fen = "8/8/8/3k4/8/8/1n6/Kq6 w - - 0 1"
    ending = adjudicate(_facts(["a1b1"], fen), "tcec-cup", gaviota)
    assert ending is not None
    assert (ending.result, ending.termination, ending.ply) == ("1/2-1/2", "tablebase", 1)


def test_a_start_position_within_the_tables_is_adjudicated_at_once():
    ending = adjudicate(_facts([], "8/8/8/3k4/8/8/8/KN6 w - - 0 1"), "tcec-cup", FakeProber("draw"))
    assert ending is not None and (ending.ply, ending.result) == (0, "1/2-1/2")


def test_tablebase_counts_every_man_up_to_six():
    seven = "8/p7/8/3k4/8/8/1rPP4/KQ6 w - - 0 1"  # 7 men: not probed
    prober = FakeProber("win")
    assert adjudicate(_facts(["b1c1"], seven), "tcec-league", prober) is None
    assert prober.probes == 0
    ending = adjudicate(_facts(["b1b2"], seven), "tcec-league", prober)  # takes: 6 men
    assert prober.probes == 1
    assert ending is not None and ending.result == "0-1"  # Black to move wins
    assert ending.rule == "tcec-rules Leagues 10.3"
    assert "6 men, Black to move wins" in ending.detail
    assert adjudicate(_facts(["b1b2"], seven), "tcec-league", FakeProber(None)) is None
    castling = "r3k3/p7/8/8/8/8/8/4K3 b q - 0 1"  # 4 men but castling rights: not probed
    prober = FakeProber("draw")
    assert adjudicate(_facts(["a7a6"], castling), "tcec-league", prober) is None
    assert prober.probes == 0


# --- the incremental form against python-chess ----------------------------------------------


def _candidates(board: chess.Board, rng: random.Random) -> chess.Move:
    """A random move: usually legal, often only pseudo-legal, sometimes nonsense."""
    r = rng.random()
    if r < 0.25:
        pseudo = list(board.generate_pseudo_legal_moves())
        if pseudo:
            return rng.choice(pseudo)
    if r < 0.3:
        return chess.Move(rng.randrange(64), rng.randrange(64))
    return rng.choice(list(board.legal_moves))


@pytest.mark.parametrize("seed", range(6))
def test_agrees_with_python_chess_on_random_games(seed: int):
    rng = random.Random(seed)
    starts = [
        None,
        "r3k2r/pppq1ppp/2n2n2/3pp3/1bPP4/2N1PN2/PP1B1PPP/R2QKB1R w KQkq - 0 1",
        "4k3/8/8/2q5/8/8/3PPP2/4K2R w K - 0 1",
        "8/2k5/8/3pP3/8/8/5K2/8 w - d6 0 1",
    ]
    for game in range(12):
        fen = starts[game % len(starts)]
        board = chess.Board(fen) if fen else chess.Board()
        adj = Adjudicator("fide", start_fen=fen, chess960=False)
        for _ply in range(160):
            if board.is_game_over(claim_draw=False) or adj.ending is not None:
                break
            move = _candidates(board, rng)
            uci = move.uci()
            if not board.is_legal(move):
                with pytest.raises(IllegalMoveError):
                    adj.push(uci)
                move = rng.choice(list(board.legal_moves))
                uci = move.uci()
            ending = adj.push(uci)
            board.push(move)
            assert adj.board.fen() == board.fen()
            assert (adj.repetitions() >= 3) == board.is_repetition(3)
            if board.is_checkmate():
                assert ending is not None and ending.termination == "checkmate"
            elif board.is_stalemate():
                assert ending is not None and ending.termination == "stalemate"
            elif board.is_insufficient_material():
                assert ending is not None and ending.termination == "insufficient_material"
            elif board.is_fivefold_repetition():
                assert ending is not None and "fivefold" in ending.detail
            elif board.is_seventyfive_moves():
                assert ending is not None and ending.termination == "fifty_move_rule"
            else:
                assert ending is None, (board.fen(), ending)
