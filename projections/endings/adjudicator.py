"""Game endings by rule, decided from the moves alone.

`Adjudicator` is the incremental form: one object per game, `push(uci, eval_cp, …)` per move,
O(1) per move (a python-chess board, a position counter since the last capture or pawn move,
the draw-rule counter, the clocks), returning the `Ending` when that move ended the game.
`adjudicate(game, preset, prober)` is the batch form, a fold of `push` over `GameFacts`.

What is checked, in this order, at each move (the preset's list, `rules.py`, says which apply):

1. the flag (`Adjudicator._clock_after`): a move that overran the mover's time (`clock.py`):
   the move is not made; a move without timing makes the mover's clock unknown (it still earns
   its increment) until the next reported clock, and no flag falls on an unknown clock;
2. the move itself (`Adjudicator._legal`): an illegal move loses where the preset says so (TCEC:
   Swiss 6.d, Leagues 10.4); under the FIDE Laws an illegal move is for the arbiter (7.5) and
   raises `IllegalMoveError` instead;
3. in the position reached (`Adjudicator._ending_after`, then `_judge`): checkmate, stalemate; a
   dead position (FIDE 5.2.2); repetition (TCEC: the third occurrence; FIDE: the fifth, 9.6.1);
   the fifty-move rule (TCEC: 100 plies; FIDE: 150, 9.6.2); the rules of the game before
   adjudications, as in TCEC Season 28's Entrance League Tiebreak game 1, ended by the
   fifty-move rule on the ply where the draw rule also held;
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
from typing import TypeAlias

import chess

from events_schema.events import GameStarted, MovePlayed, TimeControl
from projections.endings import draw_rule
from projections.endings.clock import ClockSpec, ClockState, Colour, flag_fall_ending
from projections.endings.ending import Ending, armageddon, win_for
from projections.endings.rules import Rule, Ruleset, ruleset_for
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
#: `_BEYOND[a][b]`: the squares on the line from `a` through `b` past `b` (0 off a line); the
#: squares of a line run up or down the board with the direction, so past `b` is above it or
#: below it.
_BEYOND = [
    [(_RAYS[a][b] & -(2 << b)) if b > a else (_RAYS[a][b] & ((1 << b) - 1)) for b in chess.SQUARES]
    for a in chess.SQUARES
]
#: How a move can give check, for the test after it: 0 test in full (castling, a promotion, en
#: passant); 1 a knight, 2 a pawn, 3 a king's step (only a discovered check); else the lines the
#: moved slider checks along (`_ORTHO`, `_DIAG` or `_LINES`).
_Kind: TypeAlias = int | list[int]


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


def _threshold(
    claim: Rule | None, at: int, term: str, automatic: Rule | None, then: int, then_term: str
) -> tuple[int, str, str]:
    """(count, citation, term) of a draw that ends the game at once: `claim` where the preset
    makes it automatic (TCEC: the third occurrence, 100 plies), else `automatic` (FIDE: the
    fifth, 9.6.1; 150 plies, 9.6.2), else never."""
    if claim is not None and claim.automatic:
        return at, claim.citation, term
    if automatic is not None:
        return then, automatic.citation, then_term
    return _NEVER, "", ""


def _make_config(rs: Ruleset) -> _Config:
    arm = rs.rule("armageddon")
    illegal = rs.rule("illegal_move")
    rep = rs.rule("threefold_repetition")
    five = rs.rule("fivefold_repetition")
    fifty = rs.rule("fifty_move_rule")
    seventy_five = rs.rule("seventy_five_move_rule")
    dead = rs.rule("dead_position")
    dr = rs.rule("tcec_draw_rule")
    reps = _threshold(rep, 3, "threefold repetition", five, 5, "fivefold repetition")
    fifties = _threshold(fifty, 100, "fifty-move rule", seventy_five, 150, "seventy-five-move rule")
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
        "_bknown",
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
        "_wknown",
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
        self._wknown = self._bknown = True  # clock.py: unknown after a move without timing
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
            self._wknown,
            self._bknown,
        )

    def report_clocks(self, white_ms: int, black_ms: int) -> None:
        """Both clocks as reported (`ClockReported`): known again (`clock.py`). Nothing changes
        once the game has ended or without a chess time control."""
        if self._clock is None or self.ending is not None:
            return
        self._wms, self._bms = white_ms, black_ms
        self._wknown = self._bknown = True

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

        Three steps, in the order of the module's list: the clock (`_clock_after`), the move's
        legality (`_legal`), the ending of the position reached (`_ending_after`). They run once
        per move of every game, so each is written out by hand for speed."""
        if self.ending is not None:
            raise ValueError(f"the game already ended at ply {self.ending.ply}: {uci!r}")
        white = self._board.turn
        left = 0
        known = True
        clocked = self._clock is not None
        if clocked:
            after = self._clock_after(white, move_time_ms, clock_ms)
            if after is None:
                return self._flag_fall(white)  # the flag fell before the move was made
            left, known = after
        legal = self._legal(uci, white)
        if legal is None:
            return self._illegal_move(uci)
        move, kind = legal
        self._board.push(move)
        self.ply += 1
        if clocked:
            if white:
                self._wms, self._wknown = left, known
            else:
                self._bms, self._bknown = left, known
        return self._ending_after(move, kind, eval_cp, mate_in)

    # --- the clock -----------------------------------------------------------------------------

    def _clock_after(
        self, white: bool, move_time_ms: int | None, clock_ms: int | None
    ) -> tuple[int, bool] | None:
        """The mover's clock after this move and whether it is known (`clock.py`: the time
        spent off, then the increment from its first move on, earned even when the time spent
        is unknown, which makes the clock unknown; a clock the move reports overrides and is
        known), or None when the time spent overran a known clock: the flag fell before the
        move was made. No flag falls on an unknown clock."""
        left = self._wms if white else self._bms
        known = self._wknown if white else self._bknown
        inc = self._inc if self._board.fullmove_number >= self._inc_from else 0
        if move_time_ms is None:
            left += inc
            known = False
        elif known:
            if move_time_ms > left:
                return None
            left += inc - move_time_ms
        else:
            left = max(left - move_time_ms, 0) + inc
        if clock_ms is not None:
            return clock_ms, True
        return left, known

    # --- legality ------------------------------------------------------------------------------

    def _legal(self, uci: str, white: bool) -> tuple[chess.Move, _Kind] | None:
        """The move as the board pushes it and how it can give check (`_Kind`), or None when it
        is illegal. `board.is_legal` in full for the rare moves (a king move, a promotion, en
        passant); the common ones by hand: a man's reach (`_reach`), then, in check or off a
        line to its own king, the king's safety after it."""
        move = _MOVES.get(uci) or _move(uci)
        if move is None:
            return None
        board = self._board
        frm = move.from_square
        to = move.to_square
        from_bb = _SQ[frm]
        to_bb = _SQ[to]
        ours = board.occupied_co[white]
        if not ours & from_bb:
            return None
        if from_bb & board.kings:
            if ours & to_bb or not _KING[frm] & to_bb:
                slow = self._slow_legal(move)  # castling in either notation, or not a step
                return None if slow is None else (slow, 0)
            # the square must not be attacked once the king left its own (a slider that checks
            # along the line still sees the square behind the king)
            if board.attackers_mask(not white, to, board.occupied ^ from_bb):
                return None
            return move, 3
        if ours & to_bb:
            return None
        if move.promotion:
            return (move, 0) if board.is_legal(move) else None
        checking = self._checkers
        if checking:
            # out of check: with one checker, capture it or block (en passant: in full in
            # `_pawn_reach`); with two, only the king may move
            if checking & (checking - 1):
                return None
            target = checking | _BETWEEN[self._king][checking.bit_length() - 1]
            if not target & to_bb and not (to == board.ep_square and from_bb & board.pawns):
                return None
        kind = _reach(board, move, white)
        if kind is None:
            return None
        # pseudo-legal: the king must not be attacked after it. With the check answered above,
        # only a pin can do that: a man on a line to its king, nothing in between, leaving the
        # line, an enemy slider behind it (en passant, kind 0, was tested in full)
        king = self._king
        if (
            kind
            and _RAYS[king][frm]
            and not _RAYS[frm][to] & _SQ[king]
            and not _BETWEEN[king][frm] & board.occupied
            and _slider_behind(board, king, frm, not white)
        ):
            return None
        return move, kind

    def _slow_legal(self, move: chess.Move) -> chess.Move | None:
        """A king move that is not a plain step: the move as python-chess pushes it if legal
        (castling in either notation: king to the g/c file, or king takes rook), else None."""
        board = self._board
        move = board._to_chess960(move)
        move = board._from_chess960(
            board.chess960, move.from_square, move.to_square, move.promotion
        )
        return move if board.is_legal(move) else None

    # --- the position reached ------------------------------------------------------------------

    def _ending_after(
        self, move: chess.Move, kind: _Kind, eval_cp: int | None, mate_in: int | None
    ) -> Ending | None:
        """After the move is made: the checkers of the king to move, the position's repetition
        count, the draw-rule count; then the ending, if any. Cheap necessary conditions of every
        ending first; `_judge` applies the preset's own."""
        board = self._board
        turn = board.turn
        king = (board.kings & board.occupied_co[turn]).bit_length() - 1
        self._king = king
        occupied = board.occupied
        if not kind:
            # castling, a promotion, en passant: the checkers in full
            checkers = board.attackers_mask(not turn, king)
        else:
            # else only the man moved can give check (not a king), or a slider on the line
            # through `frm` that the move opened
            frm = move.from_square
            to = move.to_square
            king_bb = _SQ[king]
            checkers = 0
            if kind == 1:
                if _KNIGHT[to] & king_bb:
                    checkers = _SQ[to]
            elif kind == 2:
                if _PAWN_ATTACKS[not turn][to] & king_bb:
                    checkers = _SQ[to]
            elif (
                isinstance(kind, list) and kind[to] & king_bb and not _BETWEEN[to][king] & occupied
            ):
                checkers = _SQ[to]
            if _RAYS[king][frm] and not _BETWEEN[king][frm] & occupied:
                checkers |= _slider_behind(board, king, frm, not turn)
        self._checkers = checkers
        # positions since the last capture or pawn move (`_key`)
        counts = self._counts
        if not board.halfmove_clock:
            counts.clear()  # no earlier position can recur
        key = _key(board)
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
        if (
            checkers
            or seen > 2
            or board.halfmove_clock >= 100
            or count >= 8
            or occupied.bit_count() <= self._tb
            or (self._dead and not (board.pawns | board.rooks | board.queens))
        ):
            return self._judge(seen, self.ply)
        # not in check: stalemate needs every man stuck; a pawn free to step is enough
        pawns = board.pawns & board.occupied_co[turn] & ~_LINES[king]
        if (pawns and ((pawns << 8) if turn else (pawns >> 8)) & ~occupied) or _quick_move(
            board, turn, king
        ):
            return None
        return self._judge(seen, self.ply)

    # --- endings ------------------------------------------------------------------------------

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
        """The ending of the position reached, if any (`_king`, `_checkers` set), recorded: the
        rules of the game (no legal move, a dead position, repetition, fifty moves) before the
        adjudications (tablebase, the TCEC draw rule)."""
        ending = self._no_move(ply)
        if ending is None:
            ending = self._drawn_by_rule(seen, ply)
        if ending is None:
            ending = self._adjudicated(ply)
        return None if ending is None else self._end(ending)

    def _no_move(self, ply: int) -> Ending | None:
        """Checkmate or stalemate: the side to move has no legal move."""
        board = self._board
        turn = board.turn
        checkers = self._checkers
        if checkers:
            some_move = _king_escapes(board, turn, self._king)
        else:
            some_move = _quick_move(board, turn, self._king)
        if some_move or any(board.generate_legal_moves()):
            return None
        rs = self.ruleset
        if checkers:
            winner = not turn
            cite = rs.citation("checkmate")
            side = "White" if winner else "Black"
            return Ending(win_for(winner), "checkmate", cite, f"{side} mates ({cite})", ply)
        cite = rs.citation("stalemate")
        side = "White" if turn else "Black"
        return Ending("1/2-1/2", "stalemate", cite, f"{side} is stalemated ({cite})", ply)

    def _drawn_by_rule(self, seen: int, ply: int) -> Ending | None:
        """A dead position, repetition (`seen`: the occurrences of this position), fifty moves,
        as far as the preset makes them automatic."""
        board = self._board
        if self._dead_cite is not None and board.is_insufficient_material():
            cite = self._dead_cite
            return Ending(
                "1/2-1/2",
                "insufficient_material",
                cite,
                f"dead position: neither side can checkmate ({cite})",
                ply,
            )
        if seen >= self._rep:
            cite = self._rep_cite
            return Ending(
                "1/2-1/2",
                "threefold_repetition",
                cite,
                f"{self._rep_term}: the position occurred {seen} times ({cite})",
                ply,
            )
        if board.halfmove_clock >= self._fifty:
            cite = self._fifty_cite
            return Ending(
                "1/2-1/2",
                "fifty_move_rule",
                cite,
                f"{self._fifty_term}: {board.halfmove_clock // 2} moves by each side "
                f"without a capture or pawn move ({cite})",
                ply,
            )
        return None

    def _adjudicated(self, ply: int) -> Ending | None:
        """Tablebase adjudication (with a prober), then the TCEC draw rule."""
        board = self._board
        if board.occupied.bit_count() <= self._tb:
            tb = adjudicate_position(board, self.ruleset, self._prober, ply)
            if tb is not None:
                return tb
        if self._dr_cite is not None and self.draw_rule_count >= self._dr:
            return Ending(
                "1/2-1/2", "tcec_draw_rule", self._dr_cite, draw_rule.detail(self._dr_cite), ply
            )
        return None


def _key(board: chess.Board) -> Hashable:
    """A position's key between two captures or pawn moves (`Adjudicator._ending_after`):
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


def _reach(board: chess.Board, move: chess.Move, white: bool) -> _Kind | None:
    """A move of a man that is not a king, no promotion, to a square not its own side's: its
    kind if the man reaches `to` by its own way of moving (pseudo-legal), else None."""
    frm = move.from_square
    to = move.to_square
    from_bb = _SQ[frm]
    if from_bb & board.pawns:
        return _pawn_reach(board, move, white)
    if from_bb & board.knights:
        return 1 if _KNIGHT[frm] & _SQ[to] else None
    # a slider: `to` on one of its lines, nothing in between
    if from_bb & board.queens:
        lines = _LINES
    elif from_bb & board.rooks:
        lines = _ORTHO
    else:
        lines = _DIAG
    if not lines[frm] & _SQ[to] or _BETWEEN[frm][to] & board.occupied:
        return None
    return lines


def _pawn_reach(board: chess.Board, move: chess.Move, white: bool) -> _Kind | None:
    """`_reach` for a pawn without promotion: a capture, one or two steps forward (kind 2), en
    passant (legal in full: kind 0)."""
    frm = move.from_square
    to = move.to_square
    to_bb = _SQ[to]
    occupied = board.occupied
    if to_bb & occupied:
        if not _PAWN_ATTACKS[white][frm] & to_bb:
            return None
    elif to == board.ep_square:
        return 0 if board.is_legal(move) else None
    else:
        step = 8 if white else -8
        if to == frm + 2 * step:
            if not _SQ[frm] & _START_RANK[white] or occupied & (to_bb | _SQ[frm + step]):
                return None
        elif to != frm + step or occupied & to_bb:
            return None
    return None if to_bb & _BACKRANKS else 2  # a pawn reaching the last rank promotes


def _slider_behind(board: chess.Board, king: int, frm: int, side: bool) -> int:
    """The man of `side` that attacks `king` along the line from it through `frm`, with nothing
    between `king` and `frm` (a pin, or a discovered check once `frm` is left): the nearest man
    beyond `frm`, if it is a rook or queen on a rank or file, a bishop or queen on a diagonal.
    0 if none."""
    beyond = _BEYOND[king][frm] & board.occupied
    if not beyond:
        return 0
    nearest = beyond & -beyond if frm > king else 1 << (beyond.bit_length() - 1)
    sliders = board.queens | (board.rooks if _ORTHO[king] & _SQ[frm] else board.bishops)
    return nearest & sliders & board.occupied_co[side]


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
