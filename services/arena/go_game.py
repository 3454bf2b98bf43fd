"""One Go game of the arena, played by two GTP engines (`gtp.py`) under the LGC Tournament
Rules, every move appended through the command path as it is played.

The game (`GoGamePlayer.play`):

- `GameStarted` (the handicap is the pairing's: `RoundScheduled` carries it from the McMahon
  pairing); each engine is set up with `boardsize`, `clear_board`, `komi` (LGC Scoring: 7.5
  even, 0.5 with handicap: `go_play.komi`), the handicap stones at the fixed points the fold
  places them (`set_free_handicap`, `projections/go/handicap.py`), the clock
  (`time_settings`, or `kgs-time_settings byoyomi` where the engine lists it) and the moves in
  force from the log (`play`), so a resumed game starts its engines as a fresh one does;
- the engine to move answers `genmove` (told its clock with `time_left` first); the move is
  checked on the fold's board, appended (`MovePlayed` with `point`, the move time and the
  clock after it), then told to the opponent (`play`);
- LGC Timing "Ending the game" 3: play pauses after consecutive passes, White passing last
  (the fold says when: `GoGame.paused`); then both engines answer `final_status_list dead`:
  the same stones → `GoStatusAgreed` (the decider counts, LGC Scoring, and ends the game in
  the same batch); different stones, or a count the decider refuses (a dame left unfilled,
  LGC Game protocol "Dame, Teire") → `GoStatusDisputed` naming the points, and play resumes,
  Black first ("Ending the game" 6); both passing at the start of a resumption stops the
  game with every stone counted as it stands (the decider's ending). After `MAX_DISPUTES`
  disputes the game is left to the referee ("Any situations not listed here must be
  discussed with the referee").
- `resign` → LGC Game protocol "Resignation".

Clocks: the tournament's Go time control for the game (sudden death, Fischer, Canadian or
byo-yomi: `projections/go/clock.py`, the decider's model, which ends the game on a flag by
LGC Timing "Loss on time"), else the run-level `--time-control BASE+INC` (recorded as the
arena:limit ruling; the arena appends the loss on time itself, the decider not knowing that
clock). A Go game needs a clock: `--nodes` is UCI's.

Failures (the process died, no answer within its time and the grace, a move that is not on
the board, an occupied point, a ko, superko or suicide): `EngineCrashed` with what was seen.
Reading: LGC Irregularities "Illegal move" unwinds an illegal move noticed within three
moves, and the arena notices at once; an engine that chose it would choose it again, so the
move is not played and the engine's failure is recorded instead. The LGC rules have no crash
rule: the decider appends no ending, and the game is left to the referee (the arena finishes
the round's other games and stops, as the chess arena does under a preset without one).

Durable as the chess arena: every event's id is derived from (tournament, game, ply or
what), so a resend is a no-op, and a game found in progress is resumed from its logged moves
and clocks (the LGC rules have no server interruption: the engines are fed the position and
play on; the report says where it resumed).
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from events_schema import events as ev
from projections.go import clock as go_clock
from projections.go.board import format_point, parse_point
from projections.go.handicap import handicap_points
from projections.tournament import go_play
from projections.tournament.endings import time_control_of
from projections.tournament.state import GameState, TournamentState
from services.arena.engines import EngineFailed, EngineSpec
from services.arena.gtp import GtpEngine
from services.arena.limits import RunLimit
from services.commands.service import CommandRejected
from services.eventlog.base import AppendResult

MAX_DISPUTES = 3  # status disputes in one game before it is left to the referee
RULE_RESIGN = 'LGC Game protocol "Resignation"'
COLOURS: tuple[ev.Colour, ev.Colour] = ("black", "white")

Append = Callable[[Sequence[tuple[ev.Event, uuid.UUID]]], AppendResult]
EventId = Callable[[str, str], uuid.UUID]


def check_limit(limit: RunLimit | None) -> None:
    """A run-level limit a Go game can use: a clock (GTP engines have no node limit)."""
    if limit is not None and limit.base_ms is None:
        raise CommandRejected(
            "arena.no_time_control",
            "--nodes",
            "GTP engines have no node limit: give --time-control BASE+INC for a Go tournament",
        )


def clock_spec(
    state: TournamentState, game: GameState, limit: RunLimit | None
) -> go_clock.ClockSpec:
    """The game's clock: the run-level limit, else the tournament's Go time control;
    CommandRejected when there is none (or it is `--nodes`)."""
    if limit is not None:
        if limit.base_ms is None:
            raise CommandRejected(
                "arena.no_time_control",
                "--nodes",
                "GTP engines have no node limit: give --time-control BASE+INC for a Go tournament",
            )
        overtime: go_clock.Overtime = "fischer" if limit.increment_ms else "none"
        return go_clock.ClockSpec(
            limit.base_ms, limit.base_ms, overtime, increment_ms=limit.increment_ms
        )
    tc = time_control_of(state, game)
    if tc is None:
        raise CommandRejected(
            "arena.no_time_control",
            "--time-control",
            f"{game.game_id} has no Go time control in the tournament: give --time-control "
            "BASE+INC",
        )
    try:
        return go_clock.ClockSpec.of(tc)
    except ValueError as exc:
        raise CommandRejected("arena.no_time_control", "--time-control", str(exc)) from None


@dataclass
class GoGamePlayer:
    """What a Go game needs from the arena: its service's fold, its append, its ids."""

    state_of: Callable[[], TournamentState]
    append: Append
    event_id: EventId
    engines: dict[str, EngineSpec]
    limit: RunLimit | None
    grace_s: float

    def play(self, game_id: str) -> list[str]:
        """Play `game_id` to its end (or until it is left to the referee); notes for the
        report."""
        notes: list[str] = []
        state = self.state_of()
        game = state.games[game_id]
        spec = clock_spec(state, game, self.limit)
        if game.status == "scheduled":
            self.append([(ev.GameStarted(game_id=game_id), self.event_id(game_id, "start"))])
        elif game.moves:
            notes.append(f"resumed from the log at ply {len(game.moves)}")
        state = self.state_of()
        game = state.games[game_id]
        if game.status == "ended":
            return notes
        if game.go is None:  # a handicap with no fixed points on this board size
            return [
                *notes,
                f"no board for {game.handicap} handicap stones on this size (fixed points "
                "on 9x9, 13x13, 19x19 only): left to the referee",
            ]
        players = {"black": game.black, "white": game.white}
        engines: dict[ev.Colour, GtpEngine] = {}
        try:
            for colour in COLOURS:
                try:
                    engines[colour] = GtpEngine.start(self.engines[players[colour]])
                    self._setup(engines[colour], state, game, spec)
                except EngineFailed as failed:
                    notes.append(self._crash(game_id, players[colour], len(game.moves), failed))
                    return notes
            notes.extend(self._loop(game_id, spec, engines, players))
            return notes
        finally:
            for engine in engines.values():
                engine.close()

    # -- setting up -----------------------------------------------------------------------

    def _setup(
        self, engine: GtpEngine, state: TournamentState, game: GameState, spec: go_clock.ClockSpec
    ) -> None:
        created = state.created
        assert created is not None and game.go is not None
        size = created.board_size
        engine.command(f"boardsize {size}")
        engine.command("clear_board")
        engine.command(f"komi {go_play.komi(created, game.go.handicap)}")
        if game.go.handicap >= 2:
            stones = [format_point(p, size) for p in handicap_points(size, game.go.handicap)]
            engine.command(f"set_free_handicap {' '.join(stones)}")
        _optional(engine, time_settings_command(engine.commands, spec))
        colours = _colours(game.first_to_move)
        for i, point in enumerate(game.moves):
            engine.command(f"play {colours[i % 2]} {point}")

    # -- play -------------------------------------------------------------------------------

    def _loop(
        self,
        game_id: str,
        spec: go_clock.ClockSpec,
        engines: dict[ev.Colour, GtpEngine],
        players: dict[str, str],
    ) -> list[str]:
        notes: list[str] = []
        while True:
            state = self.state_of()
            game = state.games[game_id]
            go = game.go
            if game.status == "ended" or go is None:
                return notes
            ply = len(game.moves)
            if go.paused(game.moves, game.first_to_move):
                if len(go.resumptions) >= MAX_DISPUTES:
                    notes.append(
                        f"{len(go.resumptions)} status disputes: left to the referee (LGC "
                        "Irregularities: situations not listed are discussed with the referee)"
                    )
                    return notes
                try:
                    self._status(game_id, go, engines, players, ply)
                except EngineFailed as failed:
                    return [*notes, failed.detail]
                continue
            colour = game.next_colour
            clock = replayed_clock(spec, game)
            engine = engines[colour]
            try:
                _optional(engine, time_left_command(engine.commands, clock, colour))
                answer, elapsed = engine.genmove(colour, deadline_s(clock, colour) + self.grace_s)
            except EngineFailed as failed:
                return [*notes, self._crash(game_id, players[colour], ply, failed)]
            if answer.lower() == "resign":
                self._resign(game_id, colour, ply)
                return notes
            try:
                point = _legal(go, colour, answer)
            except EngineFailed as failed:
                engine.kill()
                return [*notes, self._crash(game_id, players[colour], ply, failed)]
            after = go_clock.apply_move(clock, colour, elapsed)
            flagged = after.flagged == colour
            move = ev.MovePlayed(
                game_id=game_id,
                ply=ply + 1,
                colour=colour,
                point=point,
                move_time_ms=elapsed,
                clock_ms=None if flagged else after.side(colour).shown_ms,
            )
            result = self.append([(move, self.event_id(game_id, f"ply:{ply + 1}"))])
            if _ended(result):
                return notes
            if flagged:  # a run-level clock the decider does not know
                detail = f"ply {ply + 1}: {colour} exceeded the time (the arena's run-level clock)"
                loss = go_play.time_loss(game_id, colour, detail)
                self.append([(loss, self.event_id(game_id, f"flag:{ply + 1}"))])
                return notes
            opponent = engines["white" if colour == "black" else "black"]
            try:
                opponent.command(f"play {colour} {point}")
            except EngineFailed as failed:
                other = players["white" if colour == "black" else "black"]
                return [*notes, self._crash(game_id, other, ply + 1, failed)]

    def _status(
        self,
        game_id: str,
        go: go_play.GoGame,
        engines: dict[ev.Colour, GtpEngine],
        players: dict[str, str],
        ply: int,
    ) -> None:
        """LGC Timing "Ending the game" 5-6: both engines' dead stones; agreed → counted,
        else disputed (play resumes)."""
        said: dict[ev.Colour, list[str]] = {}
        for colour in COLOURS:
            try:
                text = engines[colour].command("final_status_list dead")
            except EngineFailed as failed:
                raise EngineFailed(
                    failed.kind, self._crash(game_id, players[colour], ply, failed)
                ) from None
            said[colour] = sorted(dead_vertices(text, go.size))
        n = len(go.resumptions)
        if said["black"] == said["white"]:
            agreed = ev.GoStatusAgreed(game_id=game_id, dead_stones=said["black"])
            try:
                self.append([(agreed, self.event_id(game_id, f"agreed:{ply}:{n}"))])
                return
            except CommandRejected as refused:  # e.g. a dame unfilled: play resumes
                points = said["black"]
                detail = f"the count was refused: {refused.rule}: {refused.message}"
        else:
            points = sorted(set(said["black"]) ^ set(said["white"]))
            detail = (
                f"dead stones: Black's engine {' '.join(said['black']) or 'none'}; White's "
                f"engine {' '.join(said['white']) or 'none'}"
            )
        disputed = ev.GoStatusDisputed(game_id=game_id, points=points, detail=detail[:2000])
        self.append([(disputed, self.event_id(game_id, f"disputed:{ply}:{n}"))])

    def _resign(self, game_id: str, colour: ev.Colour, ply: int) -> None:
        ended = ev.GameEnded(
            game_id=game_id,
            result="1-0" if colour == "black" else "0-1",
            termination="resignation",
            detail=f"ply {ply}: {colour}'s engine resigned",
            rule=RULE_RESIGN,
        )
        self.append([(ended, self.event_id(game_id, f"resign:{ply}"))])

    def _crash(self, game_id: str, player_id: str, ply: int, failed: EngineFailed) -> str:
        crash = ev.EngineCrashed(
            game_id=game_id, player_id=player_id, ply=ply, detail=failed.detail[:2000]
        )
        result = self.append([(crash, self.event_id(game_id, f"crash:{ply}"))])
        if not _ended(result):
            return (
                f"{player_id}'s engine failed ({failed.kind}): {failed.detail[:200]}; no crash "
                "rule in the LGC rules: left to the referee"
            )
        return f"{player_id}'s engine failed ({failed.kind})"


# -- helpers --------------------------------------------------------------------------------


def _colours(first: ev.Colour) -> tuple[ev.Colour, ev.Colour]:
    return ("black", "white") if first == "black" else ("white", "black")


def replayed_clock(spec: go_clock.ClockSpec, game: GameState) -> go_clock.ClockState:
    """The clocks after the logged moves (their move times and clocks), from the start."""
    clock = go_clock.start(spec)
    times = game.go.times if game.go is not None else []
    colours = _colours(game.first_to_move)
    for i, (move_ms, clock_ms) in enumerate(times):
        with contextlib.suppress(ValueError):
            clock = go_clock.apply_move(clock, colours[i % 2], move_ms, clock_ms)
    return clock


def deadline_s(clock: go_clock.ClockState, colour: ev.Colour) -> float:
    """Seconds the mover may think before its flag falls (main time and all its overtime)."""
    side, spec = clock.side(colour), clock.spec
    main = 0 if side.in_overtime else side.main_ms
    if spec.overtime == "byo_yomi":
        total = main + spec.period_ms * max(1, side.periods)
    elif spec.overtime == "canadian":
        total = side.period_ms if side.in_overtime else main + spec.period_ms
    else:
        total = side.main_ms
    return total / 1000


def time_settings_command(commands: Collection[str], spec: go_clock.ClockSpec) -> str:
    main = spec.black_base_ms // 1000
    period = spec.period_ms // 1000
    if spec.overtime == "byo_yomi":
        if "kgs-time_settings" in commands:
            return f"kgs-time_settings byoyomi {main} {period} {spec.periods}"
        return f"time_settings {main} {period} 1"
    if spec.overtime == "canadian":
        return f"time_settings {main} {period} {spec.stones}"
    return f"time_settings {main} 0 0"  # GTP: byo-yomi time 0, no overtime


def time_left_command(
    commands: Collection[str], clock: go_clock.ClockState, colour: ev.Colour
) -> str:
    """GTP `time_left COLOUR TIME STONES`: main time with 0 stones; in Canadian overtime the
    period's time and stones left; in byo-yomi the period and the periods left (the KGS
    reading), or one stone in the period where the engine was told Canadian periods of one
    stone (`time_settings_command`)."""
    side = clock.side(colour)
    if not side.in_overtime:
        return f"time_left {colour} {side.main_ms // 1000} 0"
    if clock.spec.overtime == "canadian":
        stones = side.stones
    else:
        stones = side.periods if "kgs-time_settings" in commands else 1
    return f"time_left {colour} {side.period_ms // 1000} {stones}"


def _optional(engine: GtpEngine, line: str) -> None:
    """A command an engine may not know (clocks): a refusal is ignored, a failure is not."""
    name = line.split()[0]
    if engine.commands and name not in engine.commands:
        return
    try:
        engine.command(line)
    except EngineFailed as failed:
        if failed.kind != "no_move":  # "? unknown command": fine; a dead engine is not
            raise


def _legal(go: go_play.GoGame, colour: ev.Colour, answer: str) -> str:
    """The engine's answer as a vertex legal on the fold's board; EngineFailed otherwise."""
    try:
        point = parse_point(answer, go.size)
    except ValueError as exc:
        raise EngineFailed("illegal_move", f"answered {answer!r}: {exc}") from None
    if go.board.to_move != colour:  # the fold's board follows the record's turn
        return format_point(point, go.size)
    checked = go.board.check(colour, point)
    if not checked.legal:
        raise EngineFailed(
            "illegal_move",
            f"answered {format_point(point, go.size)}, which is not legal for {colour} "
            f'({checked.reason}; LGC Irregularities "Illegal move": noticed at once, not '
            "played)",
        )
    return format_point(point, go.size)


def dead_vertices(text: str, size: int) -> set[str]:
    found: set[str] = set()
    for word in text.split():
        with contextlib.suppress(ValueError):
            point = parse_point(word, size)
            if point is not None:
                found.add(format_point(point, size))
    return found


def _ended(result: AppendResult) -> bool:
    return any(env.type == "GameEnded" for env in result.envelopes)
