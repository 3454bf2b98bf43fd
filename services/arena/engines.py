"""UCI engines as the arena drives them: how they are named on the command line, started, asked
for a move within a deadline, and how a failure is described.

One engine process per player per game (`Engine.start` at the game's start, `close` at its
end), as cutechess-cli does by default: a crash, a hang or a corrupted hash table in one game
cannot leak into the next, a game resumed after a kill -9 starts its engines exactly as a
fresh game does, and an engine's start-up (Stockfish: well under 100 ms) is small beside a
game. python-chess's synchronous `SimpleEngine` runs the UCI protocol on its own thread; the
arena's threads (one per game, `--concurrency`) each wait on their game's two engines.

A failure is what was seen, never a guess: the process died (its exit code and the last lines
it wrote on stderr), it did not answer within its time and a grace period (it is killed), it
answered a move that is not legal (or no move), or it never started (the command is missing or
it did not complete the UCI handshake). `EngineFailed.detail` is what `EngineCrashed.detail`
records.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import re
import shlex
import time
from dataclasses import dataclass, field
from typing import Literal

import chess
import chess.engine

from events_schema.events import UCI_PATTERN

STDERR_LINES = 5  # the last lines of stderr an EngineCrashed keeps
START_TIMEOUT_S = 10.0  # the UCI handshake (`uci` … `uciok`), as python-chess's default
FailureKind = Literal["terminated", "timeout", "illegal_move", "no_move", "never_started"]


@dataclass(frozen=True)
class EngineSpec:
    """`--engine NAME=COMMAND [option.X=Y …] [nodes=N]`: NAME is a registered player's id or
    name, COMMAND a shell-quoted command line; the options are passed with `engine.configure`
    (UCI `setoption`) after the handshake, as cutechess-cli passes `option.Threads=1`;
    `nodes=N` is this engine's own node limit a move (cutechess-cli's per-engine `nodes=`),
    recorded with the run-level limit."""

    name: str
    command: tuple[str, ...]
    options: tuple[tuple[str, str], ...] = ()
    nodes: int | None = None

    @classmethod
    def parse(cls, text: str, options: list[str] | tuple[str, ...] = ()) -> EngineSpec:
        """`NAME=COMMAND` and its `option.X=Y` words. Options may also be written inside the
        quoted value after the command (`"sf=stockfish option.Hash=16"`). ValueError names
        what is wrong."""
        name, sep, rest = text.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ValueError(f"{text!r}: give NAME=COMMAND")
        words = shlex.split(rest)
        command = [w for w in words if not w.startswith("option.")]
        opts = [w for w in words if w.startswith("option.")] + list(options)
        if not command:
            raise ValueError(f"{text!r}: no command after {name}=")
        nodes: int | None = None
        parsed: list[tuple[str, str]] = []
        for word in opts:
            if word.startswith("nodes="):
                value = word.removeprefix("nodes=")
                if not value.isdigit() or int(value) < 1:
                    raise ValueError(f"{word!r}: give nodes=N, N at least 1")
                nodes = int(value)
                continue
            key, eq, value = word.removeprefix("option.").partition("=")
            if not word.startswith("option.") or not eq or not key:
                raise ValueError(f"{word!r}: give option.NAME=VALUE")
            parsed.append((key, value))
        return cls(name, tuple(command), tuple(parsed), nodes)


@dataclass(frozen=True)
class Played:
    """An engine's answer: the move (legal in the position), the search's report, and the
    wall-clock time it took (what the clock is charged)."""

    move: chess.Move
    elapsed_ms: int
    eval_cp: int | None = None  # White's view, as MovePlayed.eval_cp
    mate_in: int | None = None  # White's view: positive, White mates
    depth: int | None = None
    nodes: int | None = None
    pv: tuple[str, ...] = ()


@dataclass(frozen=True)
class EngineFailed(Exception):
    """What was seen when an engine failed (`kind`), in words for `EngineCrashed.detail`."""

    kind: FailureKind
    detail: str
    elapsed_ms: int = 0


class _Watched(chess.engine.UciProtocol):
    """The UCI protocol, keeping the engine's last lines of stderr (python-chess only logs
    them) for the EngineCrashed a failure becomes, and its last search report (`info … score
    …`) as the engine wrote it: the arena reads the evaluation, depth, nodes and principal
    variation from that one line (`_report`) instead of asking python-chess to parse every
    `info` line of the search (its pv moves are replayed on a board, line after line), so
    the engine costs the arena what it costs a bare `engine.play` loop."""

    def __init__(self) -> None:
        super().__init__()
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self.last_info = ""

    def error_line_received(self, line: str) -> None:
        self.stderr_tail.append(line)

    def line_received(self, line: str) -> None:
        if line.startswith("info") and " score " in line:
            self.last_info = line


@dataclass
class Engine:
    spec: EngineSpec
    simple: chess.engine.SimpleEngine
    protocol: _Watched = field(repr=False)

    @classmethod
    def start(cls, spec: EngineSpec, timeout_s: float = START_TIMEOUT_S) -> Engine:
        """Start the engine and configure its options; EngineFailed("never_started") when the
        command cannot run, the handshake fails or an option is refused."""
        seen: list[_Watched] = []

        class _Seen(_Watched):  # keeps hold of the protocol, for stderr if the start fails
            def __init__(self) -> None:
                super().__init__()
                seen.append(self)

        try:
            simple = chess.engine.SimpleEngine.popen(_Seen, list(spec.command), timeout=timeout_s)
        except (OSError, chess.engine.EngineError, TimeoutError) as exc:
            said = (
                f"no answer to the UCI handshake within {timeout_s:g} s"
                if isinstance(exc, TimeoutError)
                else _words(exc)
            )
            tail = list(seen[0].stderr_tail) if seen else []
            stderr = "; stderr: " + " | ".join(tail) if tail else ""
            raise EngineFailed(
                "never_started", f"never started: {shlex.join(spec.command)}: {said}{stderr}"
            ) from None
        protocol = simple.protocol
        assert isinstance(protocol, _Watched)
        engine = cls(spec, simple, protocol)
        if spec.options:
            try:
                simple.configure({k: _option_value(v) for k, v in spec.options})
            except (chess.engine.EngineError, TimeoutError) as exc:
                engine.close()
                raise EngineFailed(
                    "never_started", f"options refused ({_words(exc)}){engine.stderr()}"
                ) from None
        return engine

    def play(self, board: chess.Board, limit: chess.engine.Limit, deadline_s: float) -> Played:
        """The engine's move in `board` under `limit`, waiting at most `deadline_s` (its time
        and the grace); EngineFailed otherwise (the engine is then killed)."""
        return self.start_move(board, limit, deadline_s).result()

    def start_move(
        self, board: chess.Board, limit: chess.engine.Limit, deadline_s: float
    ) -> PendingMove:
        """Start the engine's search in `board` (which must not change until the answer is
        read) and return at once: the arena appends the previous move while this engine
        thinks, as a real clock starts when the move is made, not when it is recorded."""
        protocol = self.protocol
        protocol.last_info = ""

        async def timed() -> tuple[chess.engine.PlayResult, float]:
            found = await asyncio.wait_for(protocol.play(board, limit), deadline_s)
            return found, time.perf_counter()

        started = time.perf_counter()
        try:
            future = asyncio.run_coroutine_threadsafe(timed(), protocol.loop)
        except RuntimeError as exc:  # the engine's event loop is gone (it died)
            future = concurrent.futures.Future()
            future.set_exception(exc)
        return PendingMove(self, board, deadline_s, started, future)

    def stderr(self) -> str:
        tail = list(self.protocol.stderr_tail)
        return "; stderr: " + " | ".join(tail) if tail else ""

    def exit_code(self) -> str:
        try:
            code = self.simple.returncode.result(timeout=2.0)
        except concurrent.futures.TimeoutError:
            return "exit code unknown"
        return f"exit code {code}"

    def close(self) -> None:
        """Quit politely, then make sure the process is gone (closing the transport kills
        it)."""
        with contextlib.suppress(Exception):  # a dead or hung engine: closed below
            self.simple.quit()
        self.simple.close()

    def kill(self) -> None:
        """End a failed engine without waiting for it (closing the transport kills the
        process)."""
        self.simple.close()


@dataclass
class PendingMove:
    """A search under way (`Engine.start_move`): `result` waits for it, `cancel` stops it."""

    engine: Engine
    board: chess.Board
    deadline_s: float
    started: float
    future: concurrent.futures.Future[tuple[chess.engine.PlayResult, float]]

    def cancel(self) -> None:
        self.future.cancel()

    def result(self) -> Played:
        """The engine's move, legal in the board, or EngineFailed with what was seen."""
        engine, board = self.engine, self.board
        try:
            result, done = self.future.result()
        except (TimeoutError, concurrent.futures.TimeoutError):
            elapsed = _ms(time.perf_counter() - self.started)
            engine.kill()
            raise EngineFailed(
                "timeout",
                f"no move within {self.deadline_s:.1f} s (its time and the grace): killed"
                f"{engine.stderr()}",
                elapsed,
            ) from None
        except chess.engine.EngineTerminatedError:
            elapsed = _ms(time.perf_counter() - self.started)
            raise EngineFailed(
                "terminated", f"the process died ({engine.exit_code()}){engine.stderr()}", elapsed
            ) from None
        except chess.engine.EngineError as exc:
            elapsed = _ms(time.perf_counter() - self.started)
            engine.kill()
            raise EngineFailed(
                "illegal_move",
                f"answered a move that is not legal: {exc}{engine.stderr()}",
                elapsed,
            ) from None
        except RuntimeError as exc:  # the engine's event loop is gone (it died)
            elapsed = _ms(time.perf_counter() - self.started)
            raise EngineFailed(
                "terminated", f"the process died ({_words(exc)}){engine.stderr()}", elapsed
            ) from None
        elapsed = _ms(done - self.started)
        if result.move is None or not board.is_legal(result.move):
            engine.kill()
            said = "no move" if result.move is None else f"the move {result.move.uci()}"
            raise EngineFailed(
                "no_move" if result.move is None else "illegal_move",
                f"answered {said} in {board.fen()}{engine.stderr()}",
                elapsed,
            )
        return search_report(result.move, elapsed, engine.protocol.last_info, board.turn)


def search_report(move: chess.Move, elapsed: int, line: str, turn: bool) -> Played:
    """The move with the search's last report, `info depth D … nodes N … score cp X|mate M
    … pv M1 M2 …`, the score turned to White's view (UCI scores are the side to move's)."""
    words = line.split()
    depth = nodes = cp = mate = None
    pv: tuple[str, ...] = ()
    sign = 1 if turn == chess.WHITE else -1
    i = 1
    while i < len(words):
        word = words[i]
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if word == "depth" and _int(nxt) is not None:
            depth, i = _int(nxt), i + 2
        elif word == "nodes" and _int(nxt) is not None:
            nodes, i = _int(nxt), i + 2
        elif word == "score" and i + 2 < len(words) and _int(words[i + 2]) is not None:
            value = _int(words[i + 2])
            assert value is not None
            if nxt == "cp":
                cp = sign * value
            elif nxt == "mate":
                mate = sign * value
            i += 3
        elif word == "pv":
            pv = tuple(w for w in words[i + 1 : i + 1 + PV_MAX] if _UCI.match(w))
            break
        elif word == "string":
            break
        else:
            i += 1
    return Played(move, elapsed, cp, mate, depth, nodes, pv)


_UCI = re.compile(UCI_PATTERN)


def _int(word: str) -> int | None:
    try:
        return int(word)
    except ValueError:
        return None


PV_MAX = 32  # plies of the principal variation kept (MovePlayed.pv's bound)


def _ms(seconds: float) -> int:
    return max(0, round(seconds * 1000))


def _words(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _option_value(text: str) -> str | int | bool:
    """UCI option values as python-chess's `configure` wants them: spins as int, checks as
    bool, the rest as strings."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    try:
        return int(text)
    except ValueError:
        return text
