"""Game endings by rule, decided from the moves alone.

`Adjudicator` is the incremental form: one object per game, `push(uci, eval_cp, …)` per move,
O(1) per move (a python-chess board, a position counter since the last capture or pawn move,
the draw-rule counter, the clocks), returning the `Ending` when that move ended the game.
`adjudicate(game, preset, prober)` is the batch form, a fold of `push` over `GameFacts`.

What is checked, in this order, at each move (the preset's list, `rules.py`, says which apply):

1. the flag: a move that overran the mover's time (`clock.py`): the move is not made;
2. the move itself: an illegal move loses where the preset says so (TCEC: Swiss 6.d, Leagues
   10.4); under the FIDE Laws an illegal move is for the arbiter (7.5) and raises
   `IllegalMoveError` instead;
3. in the position reached: checkmate, stalemate; a dead position (FIDE 5.2.2); repetition
   (TCEC: the third occurrence; FIDE: the fifth, 9.6.1); the fifty-move rule (TCEC: 100 plies;
   FIDE: 150, 9.6.2); the rules of the game before adjudications, as in TCEC Season 28's
   Entrance League Tiebreak game 1, ended by the fifty-move rule on the ply where the draw rule
   also held;
4. tablebase adjudication, only with a prober (`tablebase.py`);
5. the TCEC draw rule (`draw_rule.py`).

In a GCT Armageddon game (`armageddon=True`) a drawn ending is a win for Black (2.5.2/3.5.2).
Resignations, agreed draws and FIDE claims are events, not derived from moves.

Positions repeat by python-chess's transposition key (pieces, side to move, castling rights, a
legal en-passant capture: FIDE 9.2.3), counted since the last capture or pawn move, when no
earlier position can recur. A position reached at the start counts as its first occurrence.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

import chess

from events_schema.events import GameStarted, MovePlayed, TimeControl
from projections.endings import draw_rule
from projections.endings.clock import ClockSpec, ClockState, Colour, flag_fall_ending
from projections.endings.ending import Ending, armageddon, win_for
from projections.endings.rules import Ruleset, ruleset_for
from projections.endings.tablebase import Prober, adjudicate_position

# --- facts -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MoveFacts:
    """What the adjudicator reads of a move (`MovePlayed`): eval_cp in White's view, mate_in
    signed the same way, move_time_ms the time spent, clock_ms the mover's clock after it."""

    uci: str
    eval_cp: int | None = None
    mate_in: int | None = None
    move_time_ms: int | None = None
    clock_ms: int | None = None

    @classmethod
    def of(cls, event: MovePlayed) -> MoveFacts:
        return cls(
            event.uci or "",
            event.eval_cp,
            event.mate_in,
            event.move_time_ms,
            event.clock_ms,
        )


@dataclass(frozen=True, slots=True)
class GameFacts:
    """A game as the adjudicator needs it. `chess960` None: a FEN start is read in Chess960
    mode (FRC/DFRC castling rights only survive there, as `projections/tournament/evolve.py`
    reads a `GameStarted.fen`), the standard start is not. `armageddon`: a GCT 2.5 / 3.5
    Armageddon game (the caller knows it from the stage or `Scoring.armageddon`)."""

    moves: tuple[MoveFacts, ...] = ()
    start_fen: str | None = None
    chess960: bool | None = None
    time_control: TimeControl | None = None
    armageddon: bool = False

    @classmethod
    def of(
        cls,
        moves: Iterable[MovePlayed],
        started: GameStarted | None = None,
        time_control: TimeControl | None = None,
        *,
        armageddon: bool = False,
    ) -> GameFacts:
        return cls(
            tuple(MoveFacts.of(m) for m in moves),
            start_fen=started.fen if started is not None else None,
            time_control=time_control,
            armageddon=armageddon,
        )


class IllegalMoveError(ValueError):
    """An illegal move under a preset where it is not an ending (FIDE Laws 7.5: the arbiter's)."""

    def __init__(self, ply: int, uci: str, fen: str) -> None:
        super().__init__(f"ply {ply}: illegal move {uci!r} in {fen}")
        self.ply = ply
        self.uci = uci


# --- fast move parsing and legality ------------------------------------------------------------

_MOVES: dict[str, chess.Move] = {}  # uci → Move: a memo of a pure function, bounded by the
# few thousand well-formed UCI strings


def _move(uci: str) -> chess.Move | None:
    try:
        move = chess.Move.from_uci(uci)
    except ValueError:
        return None
    if not move or move.drop:
        return None
    _MOVES[uci] = move
    return move


_SQ = chess.BB_SQUARES
_RAYS = chess.BB_RAYS
_KNIGHT = chess.BB_KNIGHT_ATTACKS
_KING = chess.BB_KING_ATTACKS
_PAWN_ATTACKS = chess.BB_PAWN_ATTACKS
_START_RANK = (chess.BB_RANK_7, chess.BB_RANK_2)  # indexed by colour: BLACK=0, WHITE=1
_BETWEEN = [[chess.between(a, b) for b in chess.SQUARES] for a in chess.SQUARES]
_NEVER = 1 << 30
_ORTHO = [chess.BB_RANK_ATTACKS[q][0] | chess.BB_FILE_ATTACKS[q][0] for q in chess.SQUARES]
_DIAG = [chess.BB_DIAG_ATTACKS[q][0] for q in chess.SQUARES]
_ADJ_ORTHO = [k & o for k, o in zip(chess.BB_KING_ATTACKS, _ORTHO, strict=True)]
_ADJ_DIAG = [k & d for k, d in zip(chess.BB_KING_ATTACKS, _DIAG, strict=True)]
_BACKRANKS = chess.BB_BACKRANKS
_BOUND_CP = draw_rule.EVAL_BOUND_CP
_MAX_MEN = draw_rule.MAX_MEN
#: The squares on a line (rank, file, diagonal) through each square: a queen's lines, and the
#: only places where a man can be pinned to its king.
_LINES = [o | d for o, d in zip(_ORTHO, _DIAG, strict=True)]


@functools.lru_cache(maxsize=1024)
def _start_board(fen: str | None, chess960: bool) -> chess.Board:
    """The start position, checked, its castling rights cleaned as every later position's (a
    memo: parsing a FEN costs more than a hundred moves; callers copy it)."""
    board = chess.Board(fen, chess960=chess960) if fen else chess.Board(chess960=chess960)
    if not board.is_valid():
        raise ValueError(f"not a valid start position: {board.fen()} ({board.status()!r})")
    board.castling_rights = board.clean_castling_rights()
    return board


@dataclass(frozen=True, slots=True)
class _Config:
    """What the adjudicator reads of a ruleset, once per ruleset."""

    armageddon: str | None
    illegal: str | None
    rep: int
    rep_cite: str
    rep_term: str
    fifty: int
    fifty_cite: str
    fifty_term: str
    dead: str | None
    draw_rule: str | None


_CONFIGS: dict[str, tuple[Ruleset, _Config]] = {}


def _config(rs: Ruleset) -> _Config:
    cached = _CONFIGS.get(rs.name)
    if cached is not None and cached[0] is rs:
        return cached[1]
    config = _make_config(rs)
    _CONFIGS[rs.name] = (rs, config)
    return config


def _make_config(rs: Ruleset) -> _Config:
    arm = rs.rule("armageddon")
    illegal = rs.rule("illegal_move")
    rep = rs.rule("threefold_repetition")
    five = rs.rule("fivefold_repetition")
    fifty = rs.rule("fifty_move_rule")
    seventy_five = rs.rule("seventy_five_move_rule")
    dead = rs.rule("dead_position")
    dr = rs.rule("tcec_draw_rule")
    if rep is not None and rep.automatic:
        reps = (3, rep.citation, "threefold repetition")
    elif five is not None:
        reps = (5, five.citation, "fivefold repetition")
    else:
        reps = (_NEVER, "", "")
    if fifty is not None and fifty.automatic:
        fifties = (100, fifty.citation, "fifty-move rule")
    elif seventy_five is not None:
        fifties = (150, seventy_five.citation, "seventy-five-move rule")
    else:
        fifties = (_NEVER, "", "")
    return _Config(
        armageddon=arm.citation if arm is not None else None,
        illegal=illegal.citation if illegal is not None and illegal.automatic else None,
        rep=reps[0],
        rep_cite=reps[1],
        rep_term=reps[2],
        fifty=fifties[0],
        fifty_cite=fifties[1],
        fifty_term=fifties[2],
        dead=dead.citation if dead is not None else None,
        draw_rule=dr.citation if dr is not None else None,
    )


# --- the incremental adjudicator ---------------------------------------------------------------


class Adjudicator:
    """One game's endings by rule, one move at a time. Read `board` (do not change it), `ply`
    (moves made), `ending` (once ended, `push` refuses further moves), `draw_rule_count`."""

    __slots__ = (
        "_arm",
        "_bms",
        "_board",
        "_checkers",
        "_clock",
        "_counts",
        "_dead",
        "_dead_cite",
        "_dr",
        "_dr_cite",
        "_fifty",
        "_fifty_cite",
        "_fifty_term",
        "_first_white",
        "_flagged",
        "_illegal",
        "_inc",
        "_inc_from",
        "_king",
        "_prober",
        "_rep",
        "_rep_cite",
        "_rep_term",
        "_tb",
        "_wms",
        "draw_rule_count",
        "ending",
        "ply",
        "ruleset",
    )

    def __init__(
        self,
        preset: str | Ruleset | None,
        *,
        start_fen: str | None = None,
        chess960: bool | None = None,
        time_control: TimeControl | None = None,
        armageddon: bool = False,
        prober: Prober | None = None,
    ) -> None:
        rs = preset if isinstance(preset, Ruleset) else ruleset_for(preset)
        self.ruleset = rs
        if chess960 is None:
            chess960 = start_fen is not None
        board = _start_board(start_fen, chess960).copy(stack=False)
        self._board = board
        self._first_white = board.turn == chess.WHITE
        self._flagged: Colour | None = None
        self.ply = 0
        self.ending: Ending | None = None
        self.draw_rule_count = 0

        cfg = _config(rs)
        if armageddon and cfg.armageddon is None:
            raise ValueError(f"preset {rs.name!r} has no Armageddon games")
        self._arm = cfg.armageddon if armageddon else None
        self._illegal = cfg.illegal
        self._rep, self._rep_cite, self._rep_term = cfg.rep, cfg.rep_cite, cfg.rep_term
        self._fifty, self._fifty_cite = cfg.fifty, cfg.fifty_cite
        self._fifty_term = cfg.fifty_term
        self._dead_cite = cfg.dead
        self._dead = cfg.dead is not None
        self._dr_cite = cfg.draw_rule
        self._dr = draw_rule.PLIES if cfg.draw_rule is not None else _NEVER
        self._prober = prober
        limit = rs.tablebase_men
        self._tb = limit if prober is not None and limit is not None else -1

        spec = ClockSpec.of(time_control) if time_control is not None else None
        self._clock = spec
        self._wms = spec.white_base_ms if spec is not None else 0
        self._bms = spec.black_base_ms if spec is not None else 0
        self._inc = spec.increment_ms if spec is not None else 0
        self._inc_from = spec.increment_from_move if spec is not None else 1

        self._counts: dict[Hashable, int] = {_key(board): 1}
        turn = board.turn
        self._king = (board.kings & board.occupied_co[turn]).bit_length() - 1
        self._checkers = board.attackers_mask(not turn, self._king)
        self.ending = self._judge(1, 0)

    @classmethod
    def for_game(
        cls, game: GameFacts, preset: str | Ruleset | None, prober: Prober | None = None
    ) -> Adjudicator:
        return cls(
            preset,
            start_fen=game.start_fen,
            chess960=game.chess960,
            time_control=game.time_control,
            armageddon=game.armageddon,
            prober=prober,
        )

    def clone(self) -> Adjudicator:
        """An independent copy (the decider tries a proposed move on a clone: the state it
        reads is never changed by deciding)."""
        twin = object.__new__(Adjudicator)
        for slot in Adjudicator.__slots__:
            setattr(twin, slot, getattr(self, slot))
        twin._board = self._board.copy(stack=False)  # repetitions: `_counts`, not the stack
        twin._counts = dict(self._counts)
        return twin

    # --- reading -----------------------------------------------------------------------------

    @property
    def board(self) -> chess.Board:
        return self._board

    @property
    def clock(self) -> ClockState | None:
        """The derived clocks, when a chess time control is known."""
        if self._clock is None:
            return None
        plies = self.ply
        first_white = self._first_white
        white_moves = (plies + 1) // 2 if first_white else plies // 2
        return ClockState(
            self._clock,
            self._wms,
            self._bms,
            white_moves,
            plies - white_moves,
            self._flagged,
        )

    def repetitions(self) -> int:
        """How often the current position has occurred (since the last capture or pawn
        move)."""
        return self._counts.get(_key(self._board), 0)

    def can_claim_threefold(self) -> bool:
        """FIDE 9.2.1.2: the position on the board has appeared three times. (A claim on a
        move about to be made, 9.2.1.1, is not covered.)"""
        return self.repetitions() >= 3

    def can_claim_fifty(self) -> bool:
        """FIDE 9.3.2: the last 50 moves by each player were made without a pawn move or a
        capture."""
        return self._board.halfmove_clock >= 100

    # --- moving ------------------------------------------------------------------------------

    def push_facts(self, move: MoveFacts) -> Ending | None:
        return self.push(move.uci, move.eval_cp, move.mate_in, move.move_time_ms, move.clock_ms)

    def push(
        self,
        uci: str,
        eval_cp: int | None = None,
        mate_in: int | None = None,
        move_time_ms: int | None = None,
        clock_ms: int | None = None,
    ) -> Ending | None:
        """Play one move; the ending it caused, or None while the game goes on.

        The hot path is written out by hand (it runs once per move of every game): the legality
        test is `board.is_legal` for the common moves (a man that is not a king, not out of
        check, no promotion, no en passant) and python-chess in full for the rest."""
        if self.ending is not None:
            raise ValueError(f"the game already ended at ply {self.ending.ply}: {uci!r}")
        board = self._board
        white = board.turn
        clocked = self._clock is not None and (move_time_ms is not None or clock_ms is not None)
        if clocked:
            left = self._wms if white else self._bms
            if move_time_ms is not None:
                if move_time_ms > left:
                    return self._flag_fall(white)  # the flag fell before the move was made
                left -= move_time_ms
                if board.fullmove_number >= self._inc_from:
                    left += self._inc
            if clock_ms is not None:
                left = clock_ms

        move = _MOVES.get(uci) or _move(uci)
        if move is None:
            return self._illegal_move(uci)
        frm = move.from_square
        to = move.to_square
        from_bb = _SQ[frm]
        to_bb = _SQ[to]
        ours = board.occupied_co[white]
        occupied = board.occupied
        if not ours & from_bb:
            return self._illegal_move(uci)
        # kind: how the move can give check, for the test after it. 0: test in full; 1 a knight,
        # 2 a pawn; else the lines the moved slider checks along (_ORTHO, _DIAG, _LINES rows)
        kind: int | list[int] = 0
        if from_bb & board.kings:
            if ours & to_bb or not _KING[frm] & to_bb:
                slow = self._slow_legal(move)  # castling in either notation, or not a step
                if slow is None:
                    return self._illegal_move(uci)
                move = slow
            elif board.attackers_mask(not white, to, occupied ^ from_bb):
                # the square must not be attacked once the king left its own (a slider that
                # checks along the line still sees the square behind the king)
                return self._illegal_move(uci)
        elif ours & to_bb:
            return self._illegal_move(uci)
        elif move.promotion:
            if not board.is_legal(move):
                return self._illegal_move(uci)
        else:
            checking = self._checkers
            if checking:
                # out of check: with one checker, capture it or block (en passant: in full
                # below); with two, only the king may move
                if checking & (checking - 1):
                    return self._illegal_move(uci)
                target = checking | _BETWEEN[self._king][checking.bit_length() - 1]
                if not target & to_bb and to != board.ep_square:
                    return self._illegal_move(uci)
            if from_bb & board.pawns:
                if to_bb & occupied:
                    if not _PAWN_ATTACKS[white][frm] & to_bb:
                        return self._illegal_move(uci)
                    kind = 2
                elif to == board.ep_square:
                    if not board.is_legal(move):
                        return self._illegal_move(uci)
                else:
                    step = 8 if white else -8
                    if to == frm + 2 * step:
                        if not from_bb & _START_RANK[white] or occupied & (to_bb | _SQ[frm + step]):
                            return self._illegal_move(uci)
                    elif to != frm + step or occupied & to_bb:
                        return self._illegal_move(uci)
                    kind = 2
                if to_bb & _BACKRANKS:
                    return self._illegal_move(uci)  # a pawn reaching the last rank promotes
            elif from_bb & board.knights:
                if not _KNIGHT[frm] & to_bb:
                    return self._illegal_move(uci)
                kind = 1
            else:
                # a slider: `to` on one of its lines, nothing in between
                if from_bb & board.queens:
                    kind = _LINES
                elif from_bb & board.rooks:
                    kind = _ORTHO
                else:
                    kind = _DIAG
                if not kind[frm] & to_bb or _BETWEEN[frm][to] & occupied:
                    return self._illegal_move(uci)
            # pseudo-legal: the king must not be attacked after it; out of check only a pin can
            # do that (en passant was tested in full above)
            king = self._king
            if (
                kind
                and (
                    checking
                    or (
                        _RAYS[king][frm]
                        and not _BETWEEN[king][frm] & occupied
                        and not _RAYS[frm][to] & _SQ[king]
                    )
                )
                and board.attackers_mask(not white, king, (occupied ^ from_bb) | to_bb) & ~to_bb
            ):
                return self._illegal_move(uci)
        board.push(move)
        ply = self.ply = self.ply + 1
        if clocked:
            if white:
                self._wms = left
            else:
                self._bms = left

        # the position reached
        turn = not white
        king_bb = board.kings & board.occupied_co[turn]
        king = king_bb.bit_length() - 1
        self._king = king
        occupied = board.occupied
        if not kind or (_RAYS[king][frm] and not _BETWEEN[king][frm] & occupied):
            # a king move, castling, promotion, en passant, a move out of check, or a man
            # leaving a line to the king: in full
            checkers = board.attackers_mask(white, king)
        # else only the man moved can give check (no line opened through `frm`): the checkers
        # mask is its square
        elif kind == 1:
            checkers = to_bb if _KNIGHT[to] & king_bb else 0
        elif kind == 2:
            checkers = to_bb if _PAWN_ATTACKS[white][to] & king_bb else 0
        elif isinstance(kind, list) and kind[to] & king_bb and not _BETWEEN[to][king] & occupied:
            checkers = to_bb
        else:
            checkers = 0
        self._checkers = checkers

        # positions since the last capture or pawn move: python-chess's transposition key
        # less what cannot change between two such moves (the pawns) or follows from the rest
        # (the kings)
        counts = self._counts
        halfmoves = board.halfmove_clock
        if not halfmoves:
            counts.clear()  # no earlier position can recur
        ep = board.ep_square
        key = (
            board.occupied_co[1],
            occupied,
            board.knights,
            board.bishops,
            board.rooks,
            board.queens,
            turn,
            board.castling_rights,
            ep if ep is not None and board.has_legal_en_passant() else None,
        )
        seen = counts[key] = counts.get(key, 0) + 1

        # the draw rule (draw_rule.step with the written reading, inlined; tests compare them)
        if (
            mate_in is None
            and eval_cp is not None
            and -_BOUND_CP <= eval_cp <= _BOUND_CP
            and (occupied & ~board.pawns).bit_count() <= _MAX_MEN
        ):
            count = self.draw_rule_count = self.draw_rule_count + 1
        else:
            count = self.draw_rule_count = 0

        # cheap necessary conditions of every ending; _judge applies the preset's own
        if (
            checkers
            or seen > 2
            or halfmoves >= 100
            or count >= 8
            or occupied.bit_count() <= self._tb
            or (self._dead and not (board.pawns | board.rooks | board.queens))
        ):
            return self._judge(seen, ply)
        # not in check: stalemate needs every man stuck; a pawn free to step is enough
        pawns = board.pawns & board.occupied_co[turn] & ~_LINES[king]
        if (pawns and ((pawns << 8) if turn else (pawns >> 8)) & ~occupied) or _quick_move(
            board, turn, king
        ):
            return None
        return self._judge(seen, ply)

    def _slow_legal(self, move: chess.Move) -> chess.Move | None:
        """A king move that is not a plain step: the move as python-chess pushes it if legal
        (castling in either notation: king to the g/c file, or king takes rook), else None."""
        board = self._board
        move = board._to_chess960(move)
        move = board._from_chess960(
            board.chess960, move.from_square, move.to_square, move.promotion
        )
        return move if board.is_legal(move) else None

    def _illegal_move(self, uci: str) -> Ending:
        board = self._board
        ply = self.ply + 1
        if self._illegal is None:
            raise IllegalMoveError(ply, uci, board.fen())
        name = "White" if board.turn else "Black"
        return self._end(
            Ending(
                win_for(not board.turn),
                "illegal_move",
                self._illegal,
                f"{name} played an illegal move {uci!r} ({self._illegal})",
                ply,
            )
        )

    def _flag_fall(self, white: bool) -> Ending:
        self._flagged = "white" if white else "black"
        if white:
            self._wms = 0
        else:
            self._bms = 0
        return self._end(
            flag_fall_ending(
                self._board, white, self.ruleset, self.ply + 1, armageddon_citation=self._arm
            )
        )

    def _end(self, ending: Ending) -> Ending:
        if self._arm is not None:
            ending = armageddon(ending, self._arm)
        self.ending = ending
        return ending

    def _judge(self, seen: int, ply: int) -> Ending | None:
        """The ending of the position reached, if any (`_king`, `_checkers` set)."""
        board = self._board
        turn = board.turn
        checkers = self._checkers
        rs = self.ruleset
        if checkers:
            no_move = not _king_escapes(board, turn, self._king) and not any(
                board.generate_legal_moves()
            )
        else:
            no_move = not _quick_move(board, turn, self._king) and not any(
                board.generate_legal_moves()
            )
        if no_move:
            if checkers:
                winner = not turn
                cite = rs.citation("checkmate")
                side = "White" if winner else "Black"
                return self._end(
                    Ending(win_for(winner), "checkmate", cite, f"{side} mates ({cite})", ply)
                )
            cite = rs.citation("stalemate")
            side = "White" if turn else "Black"
            return self._end(
                Ending("1/2-1/2", "stalemate", cite, f"{side} is stalemated ({cite})", ply)
            )
        if self._dead_cite is not None and board.is_insufficient_material():
            cite = self._dead_cite
            return self._end(
                Ending(
                    "1/2-1/2",
                    "insufficient_material",
                    cite,
                    f"dead position: neither side can checkmate ({cite})",
                    ply,
                )
            )
        if seen >= self._rep:
            cite = self._rep_cite
            return self._end(
                Ending(
                    "1/2-1/2",
                    "threefold_repetition",
                    cite,
                    f"{self._rep_term}: the position occurred {seen} times ({cite})",
                    ply,
                )
            )
        if board.halfmove_clock >= self._fifty:
            cite = self._fifty_cite
            return self._end(
                Ending(
                    "1/2-1/2",
                    "fifty_move_rule",
                    cite,
                    f"{self._fifty_term}: {board.halfmove_clock // 2} moves by each side "
                    f"without a capture or pawn move ({cite})",
                    ply,
                )
            )
        if board.occupied.bit_count() <= self._tb:
            tb = adjudicate_position(board, rs, self._prober, ply)
            if tb is not None:
                return self._end(tb)
        if self._dr_cite is not None and self.draw_rule_count >= self._dr:
            return self._end(
                Ending(
                    "1/2-1/2",
                    "tcec_draw_rule",
                    self._dr_cite,
                    draw_rule.detail(self._dr_cite),
                    ply,
                )
            )
        return None


def _key(board: chess.Board) -> Hashable:
    """A position's key between two captures or pawn moves, as `Adjudicator.push` builds it:
    python-chess's transposition key (FIDE 9.2.3: the same men on the same squares, side to
    move, castling rights, a legal en-passant capture) less the pawns (they cannot change
    between two such moves) and the kings (the men no other bitboard names)."""
    ep = board.ep_square
    return (
        board.occupied_co[1],
        board.occupied,
        board.knights,
        board.bishops,
        board.rooks,
        board.queens,
        board.turn,
        board.castling_rights,
        ep if ep is not None and board.has_legal_en_passant() else None,
    )


def _king_escapes(board: chess.Board, turn: bool, king: int) -> bool:
    """In check: the king has a step to a square no enemy man attacks once the king left its
    own. False means "not sure" (a block or a capture may still answer the check)."""
    ours = board.occupied_co[turn]
    occupied = board.occupied ^ _SQ[king]
    them = not turn
    targets = _KING[king] & ~ours
    while targets:
        sq = targets.bit_length() - 1
        targets ^= 1 << sq
        if not board.attackers_mask(them, sq, occupied):
            return True
    return False


def _quick_move(board: chess.Board, turn: bool, king: int) -> bool:
    """True when the side to move, not in check, surely has a legal move: a man off its king's
    lines (so it cannot be pinned) with a pseudo-legal move (a pawn step, a knight jump, a
    slider step to a neighbouring square that is not its own side's), or a king step to a
    square no enemy man attacks (not in check, no slider sees through the king to it). False
    means "not sure": ask python-chess."""
    ours = board.occupied_co[turn]
    free = ours & ~_LINES[king]
    pawns = free & board.pawns
    if pawns and ((pawns << 8) if turn else (pawns >> 8)) & ~board.occupied:
        return True
    for men, table in (
        (free & board.knights, _KNIGHT),
        (free & board.rooks, _ADJ_ORTHO),
        (free & board.bishops, _ADJ_DIAG),
        (free & board.queens, _KING),
    ):
        while men:
            sq = men.bit_length() - 1
            men ^= 1 << sq
            if table[sq] & ~ours:
                return True
    them = not turn
    targets = _KING[king] & ~ours
    while targets:
        sq = targets.bit_length() - 1
        targets ^= 1 << sq
        if not board.attackers_mask(them, sq):
            return True
    return False


def adjudicate(
    game: GameFacts, preset: str | Ruleset | None, prober: Prober | None = None
) -> Ending | None:
    """How the game ended by rule, from its moves alone, or None if it had not ended by the
    last move. Moves after the ending are not read. Raises `IllegalMoveError` on an illegal
    move under a preset where it is not an ending (FIDE Laws), ValueError on a bad start FEN."""
    adj = Adjudicator.for_game(game, preset, prober)
    if adj.ending is not None:
        return adj.ending
    push = adj.push
    for m in game.moves:
        ending = push(m.uci, m.eval_cp, m.mate_in, m.move_time_ms, m.clock_ms)
        if ending is not None:
            return ending
    return None
