"""GTP engines as the Go arena drives them (Go Text Protocol v2, with the KGS time extension).

A small GTP client of our own: no maintained Python GTP client library fits (gomill's
`gtp_controller` is Python 2 only and unmaintained; sgfmill, its Python 3 successor, keeps
the board, coordinates and SGF but dropped the controller), and the protocol is a few lines:
a command, then a response `= text` or `? error` ended by a blank line. Coordinates and the
board are sgfmill's and `projections/go/board.py`'s.

One process per player per game, as the chess arena (`engines.py`) starts its UCI engines:
a crash or a hang cannot leak into the next game, and a game resumed after kill -9 feeds the
logged moves to fresh engines. Two threads per engine read its stdout (responses) and stderr
(the last lines, for `EngineCrashed.detail`); every command waits at most its deadline.

A failure is what was seen, as `engines.EngineFailed` words it: the process died (exit code,
last lines of stderr), it did not answer within its time and the grace (it is killed), it
answered `genmove` with something that is no move on the board, or it never started (the
command is missing, or `protocol_version`/`boardsize` failed).
"""

from __future__ import annotations

import collections
import contextlib
import queue
import shlex
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import IO

from services.arena.engines import STDERR_LINES, EngineFailed, EngineSpec, FailureKind

START_TIMEOUT_S = 10.0  # protocol_version, boardsize, clear_board…
DEBIAN_GAMES = "/usr/games"  # where Debian installs gnugo (not on every PATH)
COMMAND_TIMEOUT_S = 10.0  # a command that is not a search (play, komi, final_status_list)


@dataclass
class GtpEngine:
    spec: EngineSpec
    process: subprocess.Popen[str]
    responses: queue.Queue[tuple[bool, str] | None] = field(default_factory=queue.Queue)
    stderr_tail: collections.deque[str] = field(
        default_factory=lambda: collections.deque(maxlen=STDERR_LINES)
    )
    commands: set[str] = field(default_factory=set)

    @classmethod
    def start(cls, spec: EngineSpec, timeout_s: float = START_TIMEOUT_S) -> GtpEngine:
        """Start the engine and read its commands (`list_commands`); EngineFailed
        ("never_started") when the command cannot run or does not speak GTP."""
        if spec.options:
            raise EngineFailed(
                "never_started",
                "GTP engines take no option.X=Y (UCI options): put them on the command line",
            )
        command = list(spec.command)
        if shutil.which(command[0]) is None and shutil.which(command[0], path=DEBIAN_GAMES):
            command[0] = f"{DEBIAN_GAMES}/{command[0]}"  # Debian's gnugo, off a user's PATH
        try:
            process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                bufsize=1,
            )
        except OSError as exc:
            raise EngineFailed(
                "never_started", f"never started: {shlex.join(spec.command)}: {exc}"
            ) from None
        engine = cls(spec, process)
        threading.Thread(target=engine._read_stdout, daemon=True).start()
        threading.Thread(target=engine._read_stderr, daemon=True).start()
        try:
            engine.command("protocol_version", timeout_s)
            listed = engine.command("list_commands", timeout_s)
        except EngineFailed as failed:
            engine.kill()
            raise EngineFailed(
                "never_started", f"never started: {shlex.join(spec.command)}: {failed.detail}"
            ) from None
        engine.commands = set(listed.split())
        return engine

    # -- the protocol ------------------------------------------------------------------------

    def _read_stdout(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        lines: list[str] = []
        with contextlib.suppress(OSError, ValueError):  # closed by `kill`
            self._responses(stdout, lines)
        self.responses.put(None)  # end of file: the process closed its output

    def _responses(self, stdout: IO[str], lines: list[str]) -> None:
        for raw in stdout:
            line = raw.rstrip("\r\n").replace("\t", " ")
            if not lines:
                if not line.strip() or line[0] not in "=?":
                    continue  # GTP 2: anything before a response's first line is ignored
                lines.append(line)
                continue
            if line.strip():
                lines.append(line)
                continue
            first = lines[0]
            ok = first[0] == "="
            text = first[1:].strip()  # no ids are sent, so none come back
            body = "\n".join([text, *lines[1:]]).strip()
            self.responses.put((ok, body))
            lines.clear()

    def _read_stderr(self) -> None:
        stderr = self.process.stderr
        assert stderr is not None
        with contextlib.suppress(OSError, ValueError):
            for raw in stderr:
                if raw.strip():
                    self.stderr_tail.append(raw.rstrip())

    def command(self, line: str, timeout_s: float = COMMAND_TIMEOUT_S) -> str:
        """Send one command and wait for its response; its text on success. EngineFailed on
        a `?` answer ("refused"), a dead process, or no answer within `timeout_s`."""
        ok, text = self._ask(line, timeout_s)[:2]
        if not ok:
            raise EngineFailed("no_move", f"refused {line!r}: {text}{self.stderr()}")
        return text

    def _ask(self, line: str, timeout_s: float) -> tuple[bool, str, int]:
        started = time.perf_counter()
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(line + "\n")
            stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self._died(started) from None
        try:
            answer = self.responses.get(timeout=timeout_s)
        except queue.Empty:
            elapsed = _ms(time.perf_counter() - started)
            self.kill()
            raise EngineFailed(
                "timeout",
                f"no answer to {line!r} within {timeout_s:.1f} s (its time and the grace): "
                f"killed{self.stderr()}",
                elapsed,
            ) from None
        if answer is None:
            raise self._died(started)
        return answer[0], answer[1], _ms(time.perf_counter() - started)

    def _died(self, started: float) -> EngineFailed:
        elapsed = _ms(time.perf_counter() - started)
        try:
            code = self.process.wait(timeout=2.0)
            said = f"exit code {code}"
        except subprocess.TimeoutExpired:
            said = "exit code unknown"
        time.sleep(0.05)  # the stderr thread's last lines
        return EngineFailed("terminated", f"the process died ({said}){self.stderr()}", elapsed)

    def genmove(self, colour: str, timeout_s: float) -> tuple[str, int]:
        """`genmove COLOUR`: the vertex answered (as written: "D4", "pass", "resign") and the
        wall-clock milliseconds it took (what the clock is charged)."""
        ok, text, elapsed = self._ask(f"genmove {colour}", timeout_s)
        if not ok:
            kind: FailureKind = "no_move"
            raise EngineFailed(kind, f"answered no move: ? {text}{self.stderr()}", elapsed)
        return text.strip(), elapsed

    def stderr(self) -> str:
        tail = list(self.stderr_tail)
        return "; stderr: " + " | ".join(tail) if tail else ""

    def close(self) -> None:
        """`quit`, then make sure the process is gone."""
        if self.process.poll() is None:
            with contextlib.suppress(EngineFailed):
                self._ask("quit", 2.0)
        self.kill()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=2.0)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            with contextlib.suppress(OSError, ValueError):
                if stream is not None:
                    stream.close()


def _ms(seconds: float) -> int:
    return max(0, round(seconds * 1000))
