"""The engine arena (`arbiter arena`): plays the tournament's own schedule with UCI engines,
every move appended through the command path as it is played. A Go tournament's games are
played by GTP engines (`go_game.py`, `gtp.py`) in the same loop.

The loop (`Arena.run`): fold the tournament; if the stage has scheduled games without a
result, play the earliest round's (`--concurrency` games at a time, one thread each); when all
are finished, pair the next round the way `arbiter pair` does (`services/commands/pairing.py`
`pair_next`: a round robin's next Berger round, a Swiss round from the results in force) and
go on; stop when the pairing system has no round left (its refusal is the reason reported),
after `--rounds K` rounds, or when a game could not be finished by rule (an engine crash under
a preset without a crash rule is left to the arbiter).

Endings are the decider's: a `MovePlayed` that ends the game by the preset's rules (mate,
repetition, fifty moves, the TCEC draw rule, a flag fall) comes back with its `GameEnded` in
the same append; an `EngineCrashed` comes back with the crash rule's loss (TCEC Swiss 7.a /
Leagues 14.2); a `ServerInterrupted` with its adjudication (Swiss 7.b). The arena stops a game
when its append result holds a `GameEnded`. One ending is the arena's own: a flag fall under
a run-level clock the decider does not know (`--time-control` on a tournament without that
time control) is appended as the preset's time-forfeit ending (`flag_fall_ending`).

Durable: every event carries an id derived from (tournament, game, ply or what), so a resend
after a crash between the append and its answer is a no-op (`CommandService` deduplicates by
event id), and a restarted arena reads everything from the log: the position from the logged
moves, the clocks from the logged `clock_ms`. A game found in progress when the arena starts
was cut off by the arena's own end (kill -9, power cut): that is a game server interruption
(TCEC Swiss 7.b, Leagues 14.1), so the arena appends `ServerInterrupted` with the facts the
rule reads (evaluations of both engines, moves completed, men on the board) and the decider
adjudicates: a win (ii), a draw (iii), the 7-man tablebase (iv: awaited where no tables are
configured; the game then goes on), or a restart from the position reached (v), which the
arena plays at once (7.c leaves "now or at the end of the round" to the staff; a staff ruling
may still overrule) with the logged clocks; the "time compensation to fill up the cache" is not
given (the clocks resume as logged).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import chess
import chess.engine

from events_schema import Actor, Command, CommandBatch, Recorded, encode_payload
from events_schema import events as ev
from projections.endings.clock import ClockSpec, flag_fall_ending
from projections.endings.rules import ruleset_for
from projections.tournament.endings import time_control_of
from projections.tournament.state import GameState, TournamentState
from services.arena import limits
from services.arena.engines import Engine, EngineFailed, EngineSpec, PendingMove, Played
from services.arena.go_game import GoGamePlayer, check_limit
from services.arena.limits import RunLimit
from services.arena.openings import Opening, assign, start_board
from services.commands.lots import draw
from services.commands.pairing import pair_next
from services.commands.service import CommandRejected, CommandService
from services.eventlog.base import AppendResult

#: Event ids of the arena's events: uuid5(ARENA_IDS, "tournament/game/what"), so the same
#: event proposed again (after a crash between append and answer) is recognised.
ARENA_IDS = uuid.UUID("0c5b3f3e-25a0-4d0b-9a36-3a5f0e1a2b25")
OPENINGS_ORDER = "arena:openings-order"  # the lot of the openings' order (TCEC FRD 4)
FRD_PRESETS = ("tcec-frd", "tcec-frd-final")
GRACE_S = 5.0  # how long past its time an engine may take before it is declared hung
MATE_CP = 100_000  # a mate score, read as beyond any centipawn evaluation (Swiss 7.b.ii)


def event_id(tournament_id: str, game_id: str, what: str) -> uuid.UUID:
    return uuid.uuid5(ARENA_IDS, f"{tournament_id}/{game_id}/{what}")


@dataclass
class ArenaConfig:
    """What `arbiter arena` was given. `engines` by the NAME the command line gave (a
    player's id or name, `resolve`)."""

    engines: Sequence[EngineSpec]
    limit: RunLimit | None = None
    concurrency: int = 1
    openings: Sequence[Opening] = ()
    rounds: int | None = None
    grace_s: float = GRACE_S
    stage: str = "main"


@dataclass
class GameReport:
    game_id: str
    round: int
    white: str
    black: str
    result: str | None
    termination: str | None
    rule: str | None
    plies: int
    notes: list[str] = field(default_factory=list)


@dataclass
class ArenaReport:
    tournament_id: str
    games: list[GameReport] = field(default_factory=list)
    rounds_paired: list[int] = field(default_factory=list)
    stopped: str = ""


def resolve(state: TournamentState, specs: Sequence[EngineSpec]) -> dict[str, EngineSpec]:
    """Engines by player id: NAME is a registered player's id, else their name (exact, then
    ignoring case). Refused when a NAME matches no player or two NAMEs the same player."""
    by_name: dict[str, list[str]] = {}
    for pid, p in state.players.items():
        by_name.setdefault(p.name.casefold(), []).append(pid)
    found: dict[str, EngineSpec] = {}
    for spec in specs:
        if spec.name in state.players:
            pid = spec.name
        else:
            exact = [q for q, p in state.players.items() if p.name == spec.name]
            loose = by_name.get(spec.name.casefold(), [])
            matches = exact or loose
            if len(matches) != 1:
                known = ", ".join(sorted(state.players)) or "none registered"
                raise CommandRejected(
                    "arena.unknown_engine",
                    "--engine",
                    f"{spec.name!r} is no player's id or name (ids: {known})"
                    if not matches
                    else f"{spec.name!r} names {len(matches)} players; give the player id",
                )
            pid = matches[0]
        if pid in found:
            raise CommandRejected(
                "arena.engine_twice", "--engine", f"two engines for player {pid!r}"
            )
        found[pid] = spec
    return found


class Arena:
    def __init__(
        self,
        service: CommandService,
        tournament_id: str,
        actor: Actor,
        config: ArenaConfig,
        progress: Callable[[str], None] | None = None,
    ) -> None:
        self.service = service
        self.tid = tournament_id
        self.actor = actor
        self.config = config
        self.progress = progress or (lambda _line: None)
        self.engines: dict[str, EngineSpec] = {}
        self.order: list[int] = list(range(len(config.openings)))

    # -- the schedule ---------------------------------------------------------------------

    def run(self) -> ArenaReport:
        report = ArenaReport(self.tid)
        state = self.service.state(self.tid)
        if state.created is None or state.kind != "tournament":
            raise CommandRejected(
                "arena.unknown_tournament", "TOURNAMENT", f"{self.tid!r} is not a tournament"
            )
        go = state.created.game == "go"  # Go: GTP engines (go_game.py)
        if state.created.game not in ("chess", "go"):
            raise CommandRejected(
                "arena.wrong_game", "TOURNAMENT", "the arena plays chess (UCI) and Go (GTP)"
            )
        self.engines = resolve(state, self.config.engines)
        missing = [
            f"{pid} ({p.name})"
            for pid, p in state.players.items()
            if not p.withdrawn and pid not in self.engines
        ]
        if missing:  # before anything is paired or started
            raise CommandRejected(
                "arena.no_engine",
                "--engine",
                f"no engine for {', '.join(missing)}: give --engine PLAYER=COMMAND for each",
            )
        if go:
            check_limit(self.config.limit)
        if (
            not go
            and self.config.limit is None
            and not any(ClockSpec.of(tc) for tc in state.created.time_controls)
        ):
            raise CommandRejected(
                "arena.no_time_control",
                "--time-control",
                "the tournament has no chess time control: give --nodes N or "
                "--time-control BASE+INC",
            )
        self._record_limit(state)
        self.order = self._openings_order(state) if not go else []
        played_rounds = 0
        while True:
            state = self.service.state(self.tid)
            pending = self._pending(state)
            if pending:
                rnd, games = pending
                self.progress(f"round {rnd}: {len(games)} game(s) to play")
                self._check_engines(state, games)
                workers = max(1, min(self.config.concurrency, len(games)))
                with ThreadPoolExecutor(workers, thread_name_prefix="arena-game") as pool:
                    reports = list(pool.map(self.play_game, games))
                report.games.extend(reports)
                played_rounds += 1
                unfinished = [r.game_id for r in reports if r.result is None]
                if unfinished:
                    report.stopped = (
                        f"games not finished by rule, left to the arbiter: {', '.join(unfinished)}"
                    )
                    return report
                continue
            if self.config.rounds is not None and played_rounds >= self.config.rounds:
                report.stopped = f"{played_rounds} round(s) played (--rounds)"
                return report
            last = max((r for (s, r) in state.rounds if s == self.config.stage), default=0)
            try:
                paired = pair_next(
                    self.service,
                    self.tid,
                    self.actor,
                    stage=self.config.stage,
                    expected_round=last + 1,
                )
            except CommandRejected as exc:
                report.stopped = f"no round to pair: {exc.rule}: {exc.message}"
                return report
            report.rounds_paired.append(paired.round.round)
            self.progress(f"paired round {paired.round.round} ({paired.system})")

    def _pending(self, state: TournamentState) -> tuple[int, list[str]] | None:
        """The earliest round of the stage with games not finished, and those games."""
        for stage, rnd in sorted(k for k in state.rounds if k[0] == self.config.stage):
            del stage
            games = [
                gid
                for gid in state.rounds[(self.config.stage, rnd)]
                if state.games[gid].status != "ended"
            ]
            if games:
                return rnd, games
        return None

    def _check_engines(self, state: TournamentState, games: Sequence[str]) -> None:
        for gid in games:
            g = state.games[gid]
            for pid in (g.white, g.black):
                if pid not in self.engines:
                    name = state.players[pid].name if pid in state.players else pid
                    raise CommandRejected(
                        "arena.no_engine",
                        "--engine",
                        f"{pid} ({name}) plays {gid}: give --engine {pid}=COMMAND",
                    )

    def _record_limit(self, state: TournamentState) -> None:
        """The run-level limit as a ruling (subject "arena:limit"), when it differs from the
        one in force (the latest such ruling; none: the tournament's time control)."""
        in_force: dict[str, object] | None = None
        count = 0
        for env in self.service.log.read(self.tid, 1):
            rec = Recorded.of(env).event
            if isinstance(rec, ev.RulingIssued) and rec.subject == limits.SUBJECT:
                in_force, count = rec.decision, count + 1
        limit = self.config.limit
        wanted: dict[str, object] = (
            limit.decision() if limit is not None else dict(limits.TOURNAMENT)
        )
        own = {pid: s.nodes for pid, s in sorted(self.engines.items()) if s.nodes is not None}
        if own:
            wanted["engine_nodes"] = own
        if wanted == (in_force if in_force is not None else limits.TOURNAMENT):
            return
        text = (
            f"arena run-level limit: {limit.words()}, overriding the tournament's time control "
            "for the run (issue 25)"
            if limit is not None
            else "arena: the tournament's time control"
        )
        if own:
            text += "; engines' own node limits: " + ", ".join(f"{p} {n}" for p, n in own.items())
        ruling = ev.RulingIssued(
            ruling_id=f"arena-limit-{count + 1}",
            by=self.actor.id,
            subject=limits.SUBJECT,
            text=text,
            decision=wanted,
        )
        self.append([(ruling, event_id(self.tid, "-", f"limit:{count + 1}"))])

    # -- one game ---------------------------------------------------------------------------

    def play_game(self, game_id: str) -> GameReport:
        state = self.service.state(self.tid)
        if state.created is not None and state.created.game == "go":
            go_notes = self._go_player().play(game_id)
            for note in go_notes:
                self.progress(f"{game_id}: {note}")
            return self._report(game_id, go_notes)
        game = state.games[game_id]
        notes: list[str] = []
        self._clock(state, game)  # refused before the game starts when it has no clock
        if game.status == "scheduled":
            self._start(state, game)
        elif game.status == "started" and not game.restart_pending:
            # cut off by an earlier run (a restart adjudicated and not yet played on is not cut
            # off again: it is played now)
            notes.append(self._interrupted(state, game))
        state = self.service.state(self.tid)
        game = state.games[game_id]
        if game.status != "ended":
            notes.extend(self._play(state, game))
        return self._report(game_id, notes)

    def _report(self, game_id: str, notes: list[str]) -> GameReport:
        game = self.service.state(self.tid).games[game_id]
        r = game.result
        report = GameReport(
            game_id,
            game.round,
            game.white,
            game.black,
            r.result if r else None,
            r.termination if r else None,
            r.rule if r else None,
            len(game.moves),
            notes,
        )
        ending = f"{r.result} {r.termination} ({r.rule or 'no rule named'})" if r else "unfinished"
        self.progress(f"{game_id}: {game.white} – {game.black}: {ending}, {len(game.moves)} plies")
        return report

    def _start(self, state: TournamentState, game: GameState) -> None:
        """GameStarted (EPD: its FEN) and, for a PGN opening, its moves: one batch."""
        opening = self._opening(state, game.game_id)
        events: list[tuple[ev.Event, uuid.UUID]] = [
            (
                ev.GameStarted(game_id=game.game_id, fen=opening.fen if opening else None),
                event_id(self.tid, game.game_id, "start"),
            )
        ]
        if opening is not None:
            board = start_board(opening.fen)
            for ply, uci in enumerate(opening.moves, start=1):
                colour: ev.Colour = "white" if board.turn else "black"
                move = ev.MovePlayed(game_id=game.game_id, ply=ply, colour=colour, uci=uci)
                events.append((move, event_id(self.tid, game.game_id, f"ply:{ply}")))
                board.push_uci(uci)
        self.append(events)

    def _opening(self, state: TournamentState, game_id: str) -> Opening | None:
        openings = self.config.openings
        if not openings:
            return None
        order = [
            (gid, state.games[gid].white, state.games[gid].black)
            for key in sorted(k for k in state.rounds if k[0] == self.config.stage)
            for gid in state.rounds[key]
        ]
        return openings[self.order[assign(order, len(openings))[game_id]]]

    def _openings_order(self, state: TournamentState) -> list[int]:
        """The order the openings are played in: the file's, or, where the preset says the
        positions are "randomized in their order" (TCEC FRD 4.a/4.b: FRC and DFRC start
        positions picked by a bookmaker), a lot (`LotDrawn`, subject "arena:openings-order",
        candidates the openings' numbers in the file), drawn once and read back by every later
        run. FRD games need those positions: an FRD tournament without --openings is
        refused."""
        created = state.created
        assert created is not None
        count = len(self.config.openings)
        if created.rules_preset not in FRD_PRESETS:
            return list(range(count))
        if count == 0:
            raise CommandRejected(
                "arena.frd_openings",
                "--openings",
                "TCEC FRD 4: games start from FRC/DFRC positions picked by a bookmaker: give "
                "--openings FILE (EPD)",
            )
        numbers = [f"{i + 1:04d}" for i in range(count)]
        for env in self.service.log.read(self.tid, 1):
            lot = Recorded.of(env).event
            if (
                isinstance(lot, ev.LotDrawn)
                and lot.subject == OPENINGS_ORDER
                and lot.candidates == numbers
            ):
                return [int(n) - 1 for n in lot.outcome]
        lot = draw("other", OPENINGS_ORDER, numbers)
        self.append([(lot, event_id(self.tid, "-", f"openings-order:{count}:{lot.seed}"))])
        return [int(n) - 1 for n in lot.outcome]

    def _interrupted(self, state: TournamentState, game: GameState) -> str:
        """A game found in progress: the arena's end cut it off (TCEC Swiss 7.b)."""
        board = self._board(game)
        ply = len(game.moves)
        white_first = game.first_to_move == "white"
        evals: dict[bool, int | None] = {True: None, False: None}
        for i, facts in enumerate(game.facts):
            white = (i % 2 == 0) == white_first
            if facts.mate_in is not None:
                evals[white] = MATE_CP if facts.mate_in > 0 else -MATE_CP
            elif facts.eval_cp is not None:
                evals[white] = facts.eval_cp
        black_moves = (ply // 2) if white_first else (ply + 1) // 2
        fact = ev.ServerInterrupted(
            game_id=game.game_id,
            ply=ply,
            moves_completed=black_moves,
            white_eval_cp=evals[True],
            black_eval_cp=evals[False],
            pieces_on_board=len(board.piece_map()),
            detail=f"the arena stopped during the game; found in progress at ply {ply} when it "
            "started again",
        )
        result = self.append([(fact, event_id(self.tid, game.game_id, f"interrupted:{ply}"))])
        said = [e.type for e in result.envelopes[1:]]
        return f"server interruption at ply {ply}: {', '.join(said) or 'the game goes on'}"

    def _board(self, game: GameState) -> chess.Board:
        board = start_board(game.start_fen)
        for uci in game.moves:
            board.push(board.parse_uci(uci))
        return board

    def _clock(self, state: TournamentState, game: GameState) -> ClockSpec | None:
        limit = self.config.limit
        if limit is not None:
            return limit.clock
        tc = time_control_of(state, game)
        spec = ClockSpec.of(tc) if tc is not None else None
        if spec is None:
            raise CommandRejected(
                "arena.no_time_control",
                "--time-control",
                f"{game.game_id} has no chess time control in the tournament: give --nodes N "
                "or --time-control BASE+INC",
            )
        return spec

    def _play(self, state: TournamentState, game: GameState) -> list[str]:
        gid = game.game_id
        spec = self._clock(state, game)
        board = self._board(game)
        # Clocks: the logged clock_ms of each side's last move, else the base.
        left = {True: 0, False: 0}
        if spec is not None:
            left = {True: spec.white_base_ms, False: spec.black_base_ms}
            white_first = game.first_to_move == "white"
            for i, facts in enumerate(game.facts):
                if facts.clock_ms is not None:
                    left[(i % 2 == 0) == white_first] = facts.clock_ms
        has_tc = time_control_of(state, game) is not None
        players = {True: game.white, False: game.black}
        engines: dict[bool, Engine] = {}
        ply = len(game.moves)
        try:
            for side in (True, False):
                try:
                    engines[side] = Engine.start(self.engines[players[side]])
                except EngineFailed as failed:
                    return [self._crash(gid, players[side], ply, failed)]
            pending = self._think(engines[board.turn], players[board.turn], spec, left, board)
            while True:
                turn = board.turn
                try:
                    played = pending.result()
                except EngineFailed as failed:
                    return [self._crash(gid, players[turn], ply, failed)]
                clock_ms, flagged = self._spend(spec, left, board, turn, played)
                move = self._move(gid, ply + 1, board, played, clock_ms, spec, has_tc)
                move_id = event_id(self.tid, gid, f"ply:{ply + 1}")
                if flagged:
                    if _ended(self.append([(move, move_id)])) is None:
                        self._flag(gid, board, turn, ply + 1, state)
                    return []
                board.push(played.move)
                ply += 1
                # The opponent's clock starts as the move is made: it thinks while the move
                # is appended; a move that ends the game stops it unread.
                following = self._think(engines[board.turn], players[board.turn], spec, left, board)
                try:
                    result = self.append([(move, move_id)])
                except BaseException:
                    following.cancel()
                    raise
                if _ended(result) is not None:
                    following.cancel()
                    return []
                pending = following
        finally:
            for engine in engines.values():
                engine.close()

    def _think(
        self,
        engine: Engine,
        player_id: str,
        spec: ClockSpec | None,
        left: dict[bool, int],
        board: chess.Board,
    ) -> PendingMove:
        limit, deadline = self._limit(spec, left, board, self.engines[player_id].nodes)
        return engine.start_move(board, limit, deadline)

    def _limit(
        self, spec: ClockSpec | None, left: dict[bool, int], board: chess.Board, own: int | None
    ) -> tuple[chess.engine.Limit, float]:
        """The engine's limit for this move (its own `nodes=`, else the run's, and the clocks
        when one runs) and how long to wait for it."""
        grace = self.config.grace_s
        nodes = own if own is not None else (self.config.limit.nodes if self.config.limit else None)
        if spec is None:
            return chess.engine.Limit(nodes=nodes), grace
        inc = spec.increment(board.fullmove_number) / 1000
        limit = chess.engine.Limit(
            nodes=nodes,
            white_clock=left[True] / 1000,
            black_clock=left[False] / 1000,
            white_inc=inc,
            black_inc=inc,
        )
        return limit, left[board.turn] / 1000 + grace

    def _spend(
        self,
        spec: ClockSpec | None,
        left: dict[bool, int],
        board: chess.Board,
        turn: bool,
        played: Played,
    ) -> tuple[int | None, bool]:
        """The mover's clock after the move (None under a node limit), and whether its flag
        fell (the move took longer than the time it had: `clock.py`)."""
        if spec is None:
            return None, False
        if played.elapsed_ms > left[turn]:
            left[turn] = 0
            return None, True
        left[turn] = left[turn] - played.elapsed_ms + spec.increment(board.fullmove_number)
        return left[turn], False

    def _move(
        self,
        gid: str,
        ply: int,
        board: chess.Board,
        played: Played,
        clock_ms: int | None,
        spec: ClockSpec | None,
        has_tc: bool,
    ) -> ev.MovePlayed:
        # Under a node limit no clock runs: the move time is kept only where the tournament
        # has no clock the decider would charge it to.
        timed = spec is not None or not has_tc
        return ev.MovePlayed(
            game_id=gid,
            ply=ply,
            colour="white" if board.turn else "black",
            uci=board.uci(played.move),
            clock_ms=clock_ms,
            move_time_ms=played.elapsed_ms if timed else None,
            eval_cp=played.eval_cp,
            mate_in=played.mate_in,
            depth=played.depth,
            nodes=played.nodes,
            pv=list(played.pv) or None,
        )

    def _crash(self, gid: str, player_id: str, ply: int, failed: EngineFailed) -> str:
        crash = ev.EngineCrashed(
            game_id=gid, player_id=player_id, ply=ply, detail=failed.detail[:2000]
        )
        result = self.append([(crash, event_id(self.tid, gid, f"crash:{ply}"))])
        if _ended(result) is None:
            return (
                f"{player_id}'s engine failed ({failed.kind}); no crash rule: left to the arbiter"
            )
        return f"{player_id}'s engine failed ({failed.kind})"

    def _flag(
        self, gid: str, board: chess.Board, turn: bool, ply: int, state: TournamentState
    ) -> str:
        """A flag fall the decider did not see (a run-level clock it does not know): the
        preset's time-forfeit ending, appended by the arena."""
        created = state.created
        assert created is not None
        ending = flag_fall_ending(board, turn, ruleset_for(created.rules_preset), ply)
        ended = ev.GameEnded(
            game_id=gid,
            result=ending.result,
            termination=ending.termination,
            detail=f"ply {ply}: {ending.detail} (the arena's run-level clock)",
            rule=ending.rule,
        )
        self.append([(ended, event_id(self.tid, gid, f"flag:{ply}"))])
        return ended.result

    def _go_player(self) -> GoGamePlayer:
        return GoGamePlayer(
            lambda: self.service.state(self.tid),
            self.append,
            lambda game_id, what: event_id(self.tid, game_id, what),
            self.engines,
            self.config.limit,
            self.config.grace_s,
        )

    # -- the command path ------------------------------------------------------------------

    def append(self, events: Sequence[tuple[ev.Event, uuid.UUID]]) -> AppendResult:
        """Propose `events` (each with its derived id) as one batch through the command path;
        a resend of a stored batch returns what was stored (`duplicate`)."""
        commands = [
            Command(type=e.event_type, payload=encode_payload(e), event_id=eid) for e, eid in events
        ]
        return self.service.handle(self.tid, CommandBatch(commands=commands), self.actor)


def _ended(result: AppendResult) -> str | None:
    for env in result.envelopes:
        if env.type == "GameEnded":
            return str(env.payload.get("result"))
    return None
