"""Go on the command path: the board of each game, pauses after passes, status agreement and
disputes, the count, illegal moves noticed, late arrival (LGC Tournament Rules).

The fold keeps a `GoGame` per started Go game (`GameState.go`): the board at the position
reached (`projections/go/board.py`), the legality of every move in force, and the plies at
which a status dispute resumed play. The decider reads it to:

- refuse a stone on an occupied point (it cannot be placed), and any move while play is
  paused for the status of the groups (LGC Timing "Ending the game" 3-5);
- end the game when both players pass at the start of a resumption ("Ending the game" 6:
  "the game stops and all stones remain on the board for counting purposes");
- count an agreed status (LGC Scoring) and end the game in the same batch, refusing a count
  while a dame is unfilled (LGC Game protocol "Dame, Teire"), naming the point;
- judge an `IllegalMoveNoticed` (LGC Irregularities "Illegal move"): unwound when at most
  three moves were played after the illegal move, else the game continues as it stands.

An illegal move (ko, superko, suicide) is never refused when played: the arena does not know
yet (LGC Irregularities); the fold records it and an auditor sees it in the game's record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from events_schema import events as ev
from events_schema.go import GoSettings
from projections.go import clock as go_clock
from projections.go.board import GoBoard, IllegalReason, Point, format_point, parse_point
from projections.go.scoring import count, komi_for, unfilled_dame
from projections.rejection import Rejected

RULE_ILLEGAL = 'LGC Irregularities "Illegal move"'
RULE_PAUSE = 'LGC Timing "Ending the game" 3'
RULE_RESUMPTION = 'LGC Timing "Ending the game" 6'
RULE_DAME = 'LGC Game protocol "Dame, Teire"'
RULE_SCORING = "LGC Scoring"
RULE_LATE = 'LGC Timing "Start": late by 30 minutes or more'
RULE_TIME = 'LGC Timing "Loss on time"'
#: LGC Irregularities: "If any illegal move is made and if this is noticed within three
#: moves, then the game must be unwound" — read as: at most three moves played after it.
UNWIND_WITHIN = 3


@dataclass
class GoGame:
    """One Go game's position and record, as the fold keeps it."""

    size: int
    handicap: int
    board: GoBoard
    # Per move in force (index ply-1): the rule it broke, None when legal.
    illegal: list[IllegalReason | None] = field(default_factory=list)
    # Number of moves in force when each status dispute resumed play (oldest first).
    resumptions: list[int] = field(default_factory=list)
    # Illegal moves noticed too late: they stand (ply -> the rule broken).
    stood: dict[int, str] = field(default_factory=dict)
    # LGC "Position disturbance" 2 (continue with the position as is): the stones changed,
    # as (moves in force then, black added, white added, removed), oldest first.
    edits: list[tuple[int, tuple[Point, ...], tuple[Point, ...], tuple[Point, ...]]] = field(
        default_factory=list
    )
    # The clocks (projections/go/clock.py) from the time control and each move's times
    # (move time, reported clock); None without a time control the clock models.
    spec: go_clock.ClockSpec | None = None
    clock: go_clock.ClockState | None = None
    times: list[tuple[int | None, int | None]] = field(default_factory=list)
    # ClockSet events: (moves in force then, white ms, black ms, white periods, black periods)
    clock_sets: list[tuple[int, int, int, int | None, int | None]] = field(default_factory=list)
    clock_paused: bool = False  # a ClockPaused without its ClockResumed

    @classmethod
    def start(cls, size: int, handicap: int, tc: ev.TimeControl | None = None) -> GoGame:
        spec = None
        if tc is not None:
            try:
                spec = go_clock.ClockSpec.of(tc)
            except ValueError:
                spec = None
        clock = go_clock.start(spec) if spec is not None else None
        return cls(
            size=size, handicap=handicap, board=GoBoard(size, handicap), spec=spec, clock=clock
        )

    def play(
        self, point: str, move_time_ms: int | None = None, clock_ms: int | None = None
    ) -> None:
        """Fold one recorded move (never fails: a move the board cannot place is kept in
        the record as illegal "occupied", the board unchanged, and the turn passes)."""
        colour = self.board.to_move
        try:
            p = parse_point(point, self.size)
            result = self.board.play(colour, p)
            self.illegal.append(result.reason)
        except ValueError:
            self.illegal.append("occupied")
        self.times.append((move_time_ms, clock_ms))
        self.clock = self.clock_after(colour, move_time_ms, clock_ms)

    def clock_after(
        self, colour: ev.Colour, move_time_ms: int | None, clock_ms: int | None
    ) -> go_clock.ClockState | None:
        if self.clock is None:
            return None
        try:
            return go_clock.apply_move(self.clock, colour, move_time_ms, clock_ms)
        except ValueError:
            return self.clock

    def set_clock(self, n_moves: int, w: int, b: int, wp: int | None, bp: int | None) -> None:
        """LGC "Timing error" / "Faulty clock": the clocks as set."""
        self.clock_sets.append((n_moves, w, b, wp, bp))
        self._apply_set(w, b, wp, bp)

    def _apply_set(self, w: int, b: int, wp: int | None, bp: int | None) -> None:
        if self.clock is None or self.spec is None:
            return
        byo = self.spec.overtime == "byo_yomi"
        can = self.spec.overtime == "canadian"
        state = self.clock
        try:
            for colour, ms, periods in (("white", w, wp), ("black", b, bp)):
                side = state.side(colour)  # type: ignore[arg-type]
                if side.in_overtime and can:
                    state = go_clock.adjust(state, colour, period_ms=ms, stones=periods)  # type: ignore[arg-type]
                else:
                    state = go_clock.adjust(
                        state,
                        colour,  # type: ignore[arg-type]
                        main_ms=ms,
                        periods=periods if byo else None,
                        stones=periods if can else None,
                    )
        except ValueError:
            return
        self.clock = state

    def rebuild(self, moves: list[str]) -> None:
        """The board after `moves` from the start (after an unwind or a retraction), with the
        position edits made along the way."""
        n = len(moves)
        self.edits = [e for e in self.edits if e[0] <= n]
        self.clock_sets = [c for c in self.clock_sets if c[0] <= n]
        times = self.times[:n] + [(None, None)] * (n - len(self.times))
        self.board = GoBoard(self.size, self.handicap)
        self.clock = go_clock.start(self.spec) if self.spec is not None else None
        self.illegal = []
        self.times = []
        edits = list(self.edits)
        sets = list(self.clock_sets)
        for i, m in enumerate(moves):
            while edits and edits[0][0] == i:
                _, black, white, removed = edits.pop(0)
                self.board.setup(black, white, removed)
            while sets and sets[0][0] == i:
                self._apply_set(*sets.pop(0)[1:])
            self.play(m, *times[i])
        for _, black, white, removed in edits:
            self.board.setup(black, white, removed)
        for c in sets:
            self._apply_set(*c[1:])
        self.resumptions = [r for r in self.resumptions if r <= n]
        self.stood = {p: r for p, r in self.stood.items() if p <= n}

    def edit(self, n_moves: int, black: list[str], white: list[str], removed: list[str]) -> None:
        """LGC "Position disturbance" 2: play continues with the position as it now is."""
        try:
            b = tuple(p for v in black if (p := parse_point(v, self.size)) is not None)
            w = tuple(p for v in white if (p := parse_point(v, self.size)) is not None)
            r = tuple(p for v in removed if (p := parse_point(v, self.size)) is not None)
            self.board.setup(b, w, r)
        except ValueError:
            return  # the decider checked the points: an old log's oddity changes nothing
        self.edits.append((n_moves, b, w, r))

    def tail(self, moves: list[str]) -> list[str]:
        """The moves since play last resumed (or since the start)."""
        return moves[self.resumptions[-1] :] if self.resumptions else moves

    def paused(self, moves: list[str], first_to_move: ev.Colour) -> bool:
        """LGC Timing "Ending the game" 3: "Play pauses after the minimum number of
        consecutive passes in which White passes last" (a Black pass, then a White pass).
        Moves alternate from `first_to_move`, so the last is White's when its index has the
        parity of White's moves."""
        start = self.resumptions[-1] if self.resumptions else 0
        if len(moves) - start < 2:
            return False
        white_last = (len(moves) % 2 == 0) == (first_to_move == "black")
        return white_last and _is_pass(moves[-1]) and _is_pass(moves[-2])


def _is_pass(move: str) -> bool:
    return move.lower() == "pass"


# -- decisions ----------------------------------------------------------------------------


def check_move(go: GoGame, moves: list[str], first_to_move: ev.Colour, point: str) -> None:
    """Refuse what cannot be played: any move while play is paused, a stone on a stone."""
    if go.paused(moves, first_to_move):
        raise Rejected(
            "go.play_paused",
            "payload.point",
            f"play is paused after the passes ({RULE_PAUSE}): the players agree the status "
            "of every group (GoStatusAgreed) or dispute it (GoStatusDisputed)",
        )
    p = parse_point(point, go.size)
    if p is not None and go.board.colour_at(p) is not None:
        raise Rejected(
            "move.occupied",
            "payload.point",
            f"{point} is occupied by a {go.board.colour_at(p)} stone",
        )


def stops_at_resumption(go: GoGame, moves: list[str], colour: ev.Colour, point: str) -> bool:
    """LGC Timing "Ending the game" 6: "At the start of a resumption if both players pass
    then the game stops and all stones remain on the board for counting purposes" — true
    when this pass is White's answer to Black's opening pass of a resumption."""
    if not go.resumptions or not _is_pass(point) or colour != "white":
        return False
    tail = go.tail(moves)
    return len(tail) == 1 and _is_pass(tail[0])


def score_of(go: GoGame, dead: list[Point], komi: Decimal, *, check_dame: bool) -> ev.GoScore:
    """The count (LGC Scoring) with `dead` removed; with `check_dame`, a dame left unfilled
    refuses it (LGC Game protocol "Dame, Teire")."""
    if check_dame:
        open_points = unfilled_dame(go.board, dead)
        if open_points:
            names = ", ".join(format_point(p, go.size) for p in open_points[:10])
            more = f" and {len(open_points) - 10} more" if len(open_points) > 10 else ""
            raise Rejected(
                "go.dame_unfilled",
                "payload.dead_stones",
                f"{RULE_DAME}: all dame must be filled before counting; unfilled: {names}{more}",
            )
    try:
        c = count(go.board, dead, komi)
    except ValueError as exc:
        raise Rejected("go.bad_dead_stones", "payload.dead_stones", str(exc)) from None
    return ev.GoScore(
        black_territory=c.black_area,
        white_territory=c.white_area,
        black_prisoners=c.black_prisoners,
        white_prisoners=c.white_prisoners,
        komi=c.komi,
        margin=c.margin,
        dead_stones=sorted(format_point(p, go.size) for p in dead),
    )


def ended_by_count(game_id: str, score: ev.GoScore, detail: str) -> ev.GameEnded:
    """The `GameEnded` of a count: White wins on a negative margin ("1-0" is White's win in
    the PGN-style result), Black on a positive one, jigo on zero (an integer komi)."""
    margin = score.margin if score.margin is not None else Decimal(0)
    result: ev.Result
    if margin > 0:
        result, text = "0-1", f"B+{margin}"
    elif margin < 0:
        result, text = "1-0", f"W+{-margin}"
    else:
        result, text = "1/2-1/2", "jigo"
    return ev.GameEnded(
        game_id=game_id,
        result=result,
        termination="counting",
        detail=f"{text} ({detail})",
        rule=RULE_SCORING,
        go_score=score,
    )


def points(go: GoGame, vertices: list[str], field: str) -> list[Point | None]:
    """The GTP vertices of `payload.<field>` as points on the game's board (None: "pass");
    a malformed or off-board one is refused, naming its place in the list."""
    out: list[Point | None] = []
    for i, v in enumerate(vertices):
        try:
            out.append(parse_point(v, go.size))
        except ValueError as exc:
            raise Rejected("go.bad_point", f"payload.{field}[{i}]", str(exc)) from None
    return out


def parse_dead(go: GoGame, vertices: list[str]) -> list[Point]:
    """The agreed dead stones as points; each must hold a stone."""
    out: list[Point] = []
    for i, (v, p) in enumerate(zip(vertices, points(go, vertices, "dead_stones"), strict=True)):
        if p is None or go.board.colour_at(p) is None:
            raise Rejected(
                "go.dead_not_a_stone",
                f"payload.dead_stones[{i}]",
                f"{v} holds no stone: only stones on the board can be agreed dead",
            )
        out.append(p)
    return out


def komi(created: ev.TournamentCreated | None, handicap: int) -> Decimal:
    """LGC Scoring: 7.5 in an even game (the tournament's `komi`), 0.5 in a handicap game."""
    even = created.komi if created is not None else Decimal("7.5")
    return komi_for(handicap, even)


def judge_notice(go: GoGame, n_moves: int, ply: int) -> tuple[bool, str]:
    """(unwound, rule) for an illegal move noticed now; Rejected when the move at `ply` is
    not in force or was legal."""
    if ply > n_moves:
        raise Rejected(
            "go.no_such_move", "payload.ply", f"the game has {n_moves} moves in force, not {ply}"
        )
    reason = go.illegal[ply - 1]
    if reason is None:
        raise Rejected(
            "go.move_was_legal",
            "payload.ply",
            f"the move at ply {ply} was legal: it recreated no earlier position with the same "
            f"player to move and was not a suicide ({RULE_ILLEGAL})",
        )
    if reason == "occupied":
        raise Rejected(
            "go.move_was_legal", "payload.ply", f"the move at ply {ply} could not be placed"
        )
    after = n_moves - ply
    if after <= UNWIND_WITHIN:
        return True, (
            f"{RULE_ILLEGAL}: {reason} noticed {after} move(s) after it: the game is unwound "
            "to the position just before it"
        )
    return False, (
        f"{RULE_ILLEGAL}: {reason} noticed {after} moves after it (more than three): the game "
        "continues as it stands"
    )


def lateness(
    settings: GoSettings,
    scheduled_at: datetime | None,
    arrived: datetime,
    clock_started_at: datetime | None = None,
) -> timedelta | None:
    """How late a player is (LGC Timing "Start"), measured as `settings.late_from` says:
    from the round's start, or from the clock's start (by default 15 minutes after the
    round's; a board whose clock the referee started at another time, from that)."""
    if settings.late_from == "clock_start" and clock_started_at is not None:
        return arrived - clock_started_at
    if scheduled_at is None:
        return None
    reference = scheduled_at
    if settings.late_from == "clock_start":
        reference = scheduled_at + timedelta(minutes=settings.clock_start_minutes)
    return arrived - reference


def time_loss(game_id: str, loser: ev.Colour, detail: str) -> ev.GameEnded:
    """LGC Timing "Loss on time" as a GameEnded."""
    return ev.GameEnded(
        game_id=game_id,
        result="1-0" if loser == "black" else "0-1",
        termination="time_forfeit",
        detail=detail,
        rule=RULE_TIME,
    )
