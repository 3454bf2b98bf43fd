"""Shared test constants and helpers that are not builders."""

import base64
import contextlib
import itertools
import json
import os
import queue
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import orjson
import pytest

from events_schema import GENESIS_HASH, Actor, Envelope

if TYPE_CHECKING:
    from services.eventlog.base import EventLog
    from services.eventlog.kafka import KafkaEventLog

ADMIN_ACTOR = Actor(id="admin-test", role="admin")
#: The repository (the API processes run from it).
REPO = Path(__file__).resolve().parents[1]


def cmd(type_: str, event_id: str | None = None, **payload: Any) -> dict[str, Any]:
    """One command of `POST /tournaments/{id}/commands`' body (`{"commands": [...]}`): the
    event type, its payload and, when given, the client-chosen event id."""
    out: dict[str, Any] = {"type": type_, "payload": payload}
    if event_id is not None:
        out["event_id"] = event_id
    return out


def assert_chain(envs: list[Envelope]) -> None:
    """`envs` are one whole stream: seqs 1..n, each linked to the previous hash, each hash the
    hash of its own envelope."""
    prev = GENESIS_HASH
    for i, env in enumerate(envs, start=1):
        assert env.seq == i
        assert env.prev_hash == prev
        assert env.computed_hash() == env.hash
        prev = env.hash


@contextlib.contextmanager
def fresh_kafka_log(kind: str, partitions: int) -> Iterator[tuple[str, str, "KafkaEventLog"]]:
    """The test broker's address, a new events topic `arbiter.test.<kind>.<random>` of
    `partitions` partitions, and a Kafka event log on it (closed after)."""
    from conftest import kafka_bootstrap

    from services.eventlog.kafka import KafkaEventLog

    bootstrap = kafka_bootstrap()
    assert bootstrap is not None
    topic = f"arbiter.test.{kind}.{uuid.uuid4().hex[:12]}"
    log = KafkaEventLog(bootstrap, topic=topic, partitions=partitions)  # creates the topic
    try:
        yield bootstrap, topic, log
    finally:
        log.close()


def processor_args(
    name: str,
    bootstrap: str,
    topic: str,
    data_dir: Path,
    *extra: str,
    batch: int | None = 500,
    session_timeout: int | None = 6,
) -> list[str]:
    """The interpreter arguments (after `sys.executable`) that run `arbiter processor NAME` on
    a test broker: short session timeout (None: the processor's own), warnings only."""
    return [
        "-c",
        "from services.cli.main import app; app()",
        "processor",
        name,
        "--bootstrap",
        bootstrap,
        "--topic",
        topic,
        "--data-dir",
        str(data_dir),
        *(("--batch", str(batch)) if batch is not None else ()),
        *(("--session-timeout", str(session_timeout)) if session_timeout is not None else ()),
        "--loglevel",
        "warning",
        *extra,
    ]


def terminate(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if it has not exited within 30 s."""
    if proc.poll() is None:
        proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def uvicorn_argv(port: int) -> list[str]:
    """`uvicorn services.api.main:app` on 127.0.0.1:`port`, warnings only."""
    return [
        sys.executable,
        "-m",
        "uvicorn",
        "services.api.main:app",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
    ]


def spawn(
    argv: list[str], env: dict[str, str], log: Path, append: bool = False
) -> subprocess.Popen[bytes]:
    """Start `argv` from the repository with `env`, its stdout and stderr in the file `log`
    (a file: a pipe nobody reads would block the process once full; `append`: after what an
    earlier process of that name wrote)."""
    with log.open("ab" if append else "wb") as out:
        return subprocess.Popen(argv, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)


def wait_healthy(
    url: str,
    proc: subprocess.Popen[bytes],
    timeout: float,
    logs: Callable[[], str],
    alive: Callable[[], None] | None = None,
) -> None:
    """Wait until the server `proc` at `url` answers `GET /health` with 200; fail (with
    `logs()`) if it exits first or takes over `timeout` seconds. `alive()` may fail sooner,
    when another process it depends on has exited."""
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise AssertionError(f"{url}: the server exited {proc.returncode}\n{logs()}")
        if alive is not None:
            alive()
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return
        if time.monotonic() > deadline:
            raise AssertionError(f"{url}: the server did not start\n{logs()}")
        time.sleep(0.1)


#: How long an API process may take to answer `GET /health` before its start counts as hung.
#: The wait ends as soon as it answers; on a loaded machine (2 cores at a load of 20) two
#: processes took about 40 s to import and start, so 60 s was too tight.
START_TIMEOUT_S = 180.0


class ApiProcesses:
    """API processes sharing `env` (one event log, one token store), each on a free port,
    its stdout and stderr in `logs/api-N.log` (a file: a pipe nobody reads would block the
    server once full). Used by the multi-process API tests and the HTTP benchmarks."""

    def __init__(
        self,
        env: dict[str, str],
        logs: Path,
        argv: Callable[[int], list[str]] = uvicorn_argv,
        start_timeout_s: float = START_TIMEOUT_S,
    ) -> None:
        self.env = env
        self.logs = logs
        self.argv = argv
        self.start_timeout_s = start_timeout_s
        self.procs: list[subprocess.Popen[bytes]] = []
        self.urls: list[str] = []

    def start(self, n: int, env_for: Callable[[str], dict[str, str]] | None = None) -> list[str]:
        """Start `n` more processes (`env_for(url)`: what one process's environment adds) and
        return their URLs once each answers `GET /health`."""
        started: list[tuple[subprocess.Popen[bytes], str]] = []
        for _ in range(n):
            port = free_port()
            url = f"http://127.0.0.1:{port}"
            env = {**self.env, **(env_for(url) if env_for is not None else {})}
            proc = spawn(self.argv(port), env, self.logs / f"api-{len(self.procs)}.log")
            self.procs.append(proc)
            self.urls.append(url)
            started.append((proc, url))
        for proc, url in started:
            wait_healthy(url, proc, self.start_timeout_s, self.log_tail)
        return [url for _, url in started]

    def log_tail(self) -> str:
        """The end of every process's output, for assertion messages."""
        return tail_logs(self.logs)

    def stop(self) -> None:
        """SIGTERM to every process still running, then wait (SIGKILL after 30 s)."""
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            terminate(proc)


def tail_logs(folder: Path) -> str:
    """The last 3,000 characters of each `*.log` in `folder`, for assertion messages."""
    return "\n".join(
        f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}"
        for p in sorted(folder.glob("*.log"))
    )


def cli_db(tmp_path: Path, monkeypatch: Any) -> Path:
    """An embedded log for CLI tests: `ARBITER_DB` and `ARBITER_DATA` point into `tmp_path`."""
    path = tmp_path / "events.sqlite3"
    monkeypatch.setenv("ARBITER_DB", str(path))
    monkeypatch.setenv("ARBITER_DATA", str(tmp_path))
    return path


def append_events(db: Path, tid: str, *events: Any) -> None:
    """Append `events` to `tid` in `db` as one batch through the command path (as the admin)."""
    from builders import batch

    from services.commands.service import CommandService
    from services.eventlog.sqlite import SQLiteEventLog

    log = SQLiteEventLog(db)
    try:
        CommandService(log).handle(tid, batch(*events), ADMIN_ACTOR)
    finally:
        log.close()


def cli_ok(*args: str) -> str:
    """Run `arbiter ARGS` in-process; assert it exits 0 and return its stdout."""
    from typer.testing import CliRunner

    from services.cli.main import app

    res = CliRunner().invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res.stdout


def cli_words(*args: str) -> str:
    """`cli_ok`'s output as words, without the tables' rules (for phrase assertions)."""
    return " ".join(cli_ok(*args).translate(str.maketrans("", "", "│┃")).split())


def cli_run(*args: str, code: int = 0) -> str:
    """Run `arbiter ARGS` in-process; assert its exit code (0 unless told) and return its
    whole output (stdout and stderr) with the whitespace collapsed: rich wraps long lines."""
    from typer.testing import CliRunner

    from services.cli.main import app

    res = CliRunner().invoke(app, list(args))
    assert res.exit_code == code, res.output
    return " ".join(res.output.split())


def cli_json(*args: str) -> Any:
    """`arbiter ARGS --json` in-process, asserted to exit 0, its stdout parsed."""
    return json.loads(cli_ok(*args, "--json"))


# -- game records on disk (tests/integration/interchange/, relay/) -----------------------------

#: The sample PGNs shared beside the repository (/work/shared/data/pgn, see its README).
PGN_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "pgn"


def pgn_sample(name: str) -> Path:
    """A sample PGN of `PGN_DIR`; the test is skipped when it is missing."""
    path = PGN_DIR / name
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    return path


def log_events(db: Path, tid: str) -> list[Envelope]:
    """Every stored event of `tid` in the SQLite log `db`, in seq order."""
    from services.eventlog.sqlite import SQLiteEventLog

    log = SQLiteEventLog(db)
    try:
        return list(log.read(tid, 1))
    finally:
        log.close()


# -- the Kafka processors' tests -------------------------------------------------------------


def read_topic(bootstrap: str, topic: str) -> list[Any]:
    """Every committed record of a topic, in offset order per partition."""
    from kafka import KafkaConsumer, TopicPartition

    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap,
        group_id=None,
        enable_auto_commit=False,
        isolation_level="read_committed",
        fetch_max_wait_ms=50,
    )
    try:
        parts = consumer.partitions_for_topic(topic) or set()
        tps = [TopicPartition(topic, p) for p in sorted(parts)]
        if not tps:
            return []
        consumer.assign(tps)
        consumer.seek_to_beginning(*tps)
        ends = consumer.end_offsets(tps)
        out: list[Any] = []
        deadline = time.monotonic() + 60
        while any(consumer.position(tp) < ends[tp] for tp in tps):
            assert time.monotonic() < deadline, f"could not read {topic}"
            for recs in consumer.poll(timeout_ms=200).values():
                out.extend(recs)
        return out
    finally:
        consumer.close()


def output_topic(topic: str, name: str) -> str:
    """The output topic of processor `name` on events topic `topic` (not the default one)."""
    return f"{topic}.projection.{name}"


def append_in_batches(
    log: "EventLog", tid: str, events: list[Any], size: int, pause: float = 0
) -> None:
    """Append `events` to `tid` in batches of `size`, `pause` seconds apart."""
    from builders import new_event

    for i in range(0, len(events), size):
        log.append(tid, [new_event(e) for e in events[i : i + size]])
        if pause:
            time.sleep(pause)


def processor_tournaments() -> dict[str, list[Any]]:
    """Three tournaments' events for the processors' tests: a league, a Swiss, a GCT event."""
    from bench.standings import league_events, swiss_events
    from builders import small_tournament

    return {
        "league": league_events(4, 1, max_plies=60),
        "swiss": swiss_events(16, 5),
        "gct": small_tournament(),
    }


def never_backwards(bootstrap: str, topic: str, name: str) -> list[str]:
    """Every message of processor `name`'s output topic, in offset order per tournament:
    as_of_seq never goes down, and one as_of_seq is always the same bytes."""
    from events_schema.codec import loads

    problems = []
    last: dict[str, tuple[int, bytes]] = {}
    for rec in read_topic(bootstrap, output_topic(topic, name)):
        tid, seq = rec.key.decode(), loads(rec.value)["as_of_seq"]
        if tid in last:
            prev_seq, prev_body = last[tid]
            if seq < prev_seq:
                problems.append(f"{tid}: as_of_seq {prev_seq} then {seq}")
            if seq == prev_seq and rec.value != prev_body:
                problems.append(f"{tid}: two bodies at as_of_seq {seq}")
        last[tid] = (seq, rec.value)
    return problems


# -- SSE streams (the feed's tests and benchmarks) -------------------------------------------


def sse_messages(
    lines: Iterable[str], comments: list[str] | None = None
) -> Iterator[tuple[str, str | None, str]]:
    """The messages of a `text/event-stream`'s lines (WHATWG HTML, "Interpreting an event
    stream"): (event name, default "message"; the message's `id:` or None; its `data:` lines
    joined by newlines). Comment lines (`:` first) are added to `comments` when given."""
    event, ident, data = "message", None, list[str]()
    for line in lines:
        if line == "":
            if data:
                yield event, ident, "\n".join(data)
            event, ident, data = "message", None, []
        elif line.startswith(":"):
            if comments is not None:
                comments.append(line[1:].strip())
        else:
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "event":
                event = value
            elif name == "id":
                ident = value
            elif name == "data":
                data.append(value)


def read_sse(
    url: str,
    headers: dict[str, str],
    read: float,
    stop: threading.Event,
    opened: Callable[[int], None],
    comments: list[str] | None = None,
) -> Iterator[tuple[str, str | None, str]]:
    """GET `url`'s event stream (`read`: the longest silence, in seconds), tell `opened` its
    status, and yield its messages (`sse_messages`) until `stop` is set or the stream ends;
    nothing unless the status is 200."""
    timeout = httpx.Timeout(10.0, read=read)
    with (
        httpx.Client(timeout=timeout) as client,
        client.stream("GET", url, headers=headers) as resp,
    ):
        opened(resp.status_code)
        if resp.status_code == 200:
            lines = itertools.takewhile(lambda _: not stop.is_set(), resp.iter_lines())
            yield from sse_messages(lines, comments)


@dataclass(frozen=True)
class Sse:
    """One SSE message of the feed, its data as sent (one line: the message JSON)."""

    event: str
    id: int | None
    data: bytes

    @property
    def seq(self) -> int:
        return int(orjson.loads(self.data)["as_of_seq"])


@dataclass
class RawSse:
    """One SSE connection read in a daemon thread (`start`/`close`, or `with`): every message
    with its raw bytes in `events` (a queue); those taken so far in `received`. `wait`: how
    long the stream may take to open, and any one `until` to be satisfied."""

    url: str
    headers: dict[str, str]
    wait: float = 60.0
    events: queue.Queue[Sse] = field(default_factory=queue.Queue)
    status: int | None = None
    error: BaseException | None = None
    ended: bool = False  # the server closed the stream
    opened: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.received: list[Sse] = []

    def _run(self) -> None:
        try:
            for event, ident, data in read_sse(
                self.url, self.headers, self.wait, self._stop, self._opened
            ):
                self.events.put(Sse(event, None if ident is None else int(ident), data.encode()))
            self.ended = self.status == 200 and not self._stop.is_set()
        except BaseException as exc:  # surfaced through `error`
            if not self._stop.is_set():
                self.error = exc
        finally:
            self.opened.set()

    def _opened(self, status: int) -> None:
        self.status = status
        self.opened.set()

    def start(self) -> "RawSse":
        self._thread.start()
        if not self.opened.wait(self.wait):
            raise AssertionError(f"{self.url}: the stream did not open")
        if self.error is not None or self.status != 200:
            raise AssertionError(f"{self.url}: {self.status} {self.error!r}")
        return self

    def close(self) -> None:
        self._stop.set()

    def __enter__(self) -> "RawSse":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _take(self, timeout: float) -> Sse | None:
        """The next message within `timeout` seconds (added to `received`), else None."""
        try:
            ev = self.events.get(timeout=timeout)
        except queue.Empty:
            if self.error is not None:
                raise AssertionError(f"{self.url}: {self.error!r}") from None
            return None
        self.received.append(ev)
        return ev

    def until(self, pred: Callable[[Sse], bool], what: str) -> list[Sse]:
        """Every message up to the first one satisfying `pred` (included)."""
        out: list[Sse] = []
        deadline = time.monotonic() + self.wait
        while not (out and pred(out[-1])):
            left = deadline - time.monotonic()
            if left <= 0:
                got = [(e.event, e.seq) for e in out]
                raise AssertionError(f"{self.url}: {what} not delivered; got {got}")
            ev = self._take(min(left, 0.5))
            if ev is not None:
                out.append(ev)
        return out

    def latest(self) -> dict[str, Sse]:
        """Per event name, the last message received."""
        return {e.event: e for e in self.received}

    def until_latest(self, done: Callable[[dict[str, Sse]], bool], what: str) -> dict[str, Sse]:
        """Take messages until `done(latest())`; return `latest()`."""
        deadline = time.monotonic() + self.wait
        while not done(self.latest()):
            left = deadline - time.monotonic()
            if left <= 0:
                got = [(e.event, e.seq) for e in self.received]
                raise AssertionError(f"{self.url}: {what} not delivered; got {got}")
            self._take(min(left, 0.5))
        return self.latest()

    def drain(self, quiet: float) -> list[Sse]:
        """Every message until none arrives for `quiet` seconds."""
        out = []
        while (ev := self._take(quiet)) is not None:
            out.append(ev)
        return out


# -- the pages in a browser (tests/integration/feed/) -----------------------------------------

#: Headless Debian Chromium (scripts/test installs it when missing); `ARBITER_CHROMIUM` names
#: another binary.
CHROMIUM = os.environ.get("ARBITER_CHROMIUM", "/usr/bin/chromium")

#: A browser test's marks: slow (`make test-fast` leaves it out), skipped without Chromium.
BROWSER_TEST = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(), reason=f"no Chromium at {CHROMIUM} (scripts/test installs it)"
    ),
]


class Chromium:
    """Headless Chromium with a DevTools pipe (`--remote-debugging-pipe`: JSON messages ending
    in NUL, on fds 3 and 4, so no Python package and no chromedriver are needed): one page,
    `evaluate` runs JS in it."""

    FLAGS = (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--remote-debugging-pipe",
    )

    def __init__(self) -> None:
        self.profile = tempfile.mkdtemp(prefix="arbiter-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def fds() -> None:  # in the child: the pipe at fds 3 (commands) and 4 (replies)
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)

        self.proc = subprocess.Popen(
            [CHROMIUM, *self.FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            preexec_fn=fds,
            close_fds=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._next = 0
        self._replies: dict[int, dict[str, Any]] = {}
        self._cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        self.session: str | None = None

    def _read(self) -> None:
        buf = b""
        while True:
            try:
                chunk = os.read(self._from_child, 65536)
            except OSError:
                return
            if not chunk:
                return
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                if "id" in msg:
                    with self._cond:
                        self._replies[msg["id"]] = msg
                        self._cond.notify_all()

    def send(self, method: str, params: dict[str, Any] | None = None, timeout: float = 30) -> Any:
        self._next += 1
        ident = self._next
        msg: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if self.session and not method.startswith("Target."):
            msg["sessionId"] = self.session
        os.write(self._to_child, json.dumps(msg).encode() + b"\0")
        with self._cond:
            if not self._cond.wait_for(lambda: ident in self._replies, timeout):
                raise TimeoutError(f"no reply to {method}")
            reply = self._replies.pop(ident)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def open(self, url: str) -> None:
        target = self.send("Target.createTarget", {"url": url})["targetId"]
        attached = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})
        self.session = attached["sessionId"]

    def evaluate(self, expression: str) -> Any:
        res = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return res.get("result", {}).get("value")

    def wait_for(self, expression: str, expected: Any, timeout: float = 20) -> Any:
        deadline = time.monotonic() + timeout
        value = None
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value == expected:
                return value
            time.sleep(0.1)
        raise AssertionError(f"{expression} is {value!r}, not {expected!r}")

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
        for fd in (self._to_child, self._from_child):
            with contextlib.suppress(OSError):
                os.close(fd)
        shutil.rmtree(self.profile, ignore_errors=True)


def screenshots(tmp_path: Path) -> Path:
    """Where a browser test writes its PNGs: `ARBITER_SCREENSHOTS` (kept), else `tmp_path`."""
    shots = Path(os.environ.get("ARBITER_SCREENSHOTS", str(tmp_path)))
    shots.mkdir(parents=True, exist_ok=True)
    return shots


def whole_page_shot(browser: Chromium, width: int, out: Path, height: int = 900) -> None:
    """Emulate a `width`-px screen (a phone below 600), grow it to the page's whole height and
    screenshot it to `out`."""
    metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}
    browser.send("Emulation.setDeviceMetricsOverride", metrics)
    time.sleep(0.3)
    full = browser.evaluate("Math.ceil(document.documentElement.scrollHeight)")
    browser.send("Emulation.setDeviceMetricsOverride", {**metrics, "height": int(full)})
    time.sleep(0.3)
    out.write_bytes(base64.b64decode(browser.send("Page.captureScreenshot")["data"]))


def poster(srv: Any, tid: str) -> tuple[Callable[[dict[str, Any]], None], str]:
    """For a served API (`bench.feed.ApiServer` or `ThreadServer`: `url`, `token`): a function
    that appends a body (`{"commands": [...]}`, or one `cmd`) to `tid` through
    `POST /tournaments/{id}/commands` as the chief arbiter (an admin), asserting 201; and a
    broadcaster token for the pages."""
    import httpx

    headers = {"Authorization": f"Bearer {srv.token('admin', 'chief')}"}

    def post(body: dict[str, Any]) -> None:
        r = httpx.post(f"{srv.url}/tournaments/{tid}/commands", json=body, headers=headers)
        assert r.status_code == 201, r.text

    return post, srv.token("broadcaster", "tv")


class ThreadServer:
    """The API app (`create_app`, as `arbiter serve` builds it) on a SQLite log and a token
    store under `data`, served by uvicorn in a thread on 127.0.0.1 (`url`; `log`, `tokens`)."""

    def __init__(self, data: Path, **app_options: Any) -> None:
        import uvicorn

        from services.api.app import create_app
        from services.commands.auth import TokenStore
        from services.eventlog.sqlite import SQLiteEventLog

        self.tokens = TokenStore(data / "tokens.sqlite3")
        self.log = SQLiteEventLog(data / "events.sqlite3")
        self.app = create_app(self.log, self.tokens, **app_options)
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        config = uvicorn.Config(
            self.app, host="127.0.0.1", port=port, log_config=None, timeout_graceful_shutdown=2
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def token(self, role: str, subject: str, tournaments: list[str] | None = None) -> str:
        """A new token (as `arbiter token create`)."""
        return str(self.tokens.create(role, subject, tournaments)[0])

    def __enter__(self) -> "ThreadServer":
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline and self.thread.is_alive(), "uvicorn did not start"
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(15)
        self.tokens.close()
        self.log.close()


# -- the arbiter's console in a browser ---------------------------------------------------------


def click_result(browser: Chromium, board: int, result: str) -> None:
    """Click board `board`'s result button `result` ("1-0", "½", "+-", ...) on the console."""
    sel = f'#boards .bd[data-board="{board}"] button[data-result="{result}"]'
    assert browser.evaluate(
        f"(() => {{ const b = document.querySelector('{sel}'); "
        "if (!b) return false; b.click(); return true; })()"
    ), sel


def fill_and_submit(browser: Chromium, form: str, values: dict[str, str]) -> None:
    """Fill the console's form `form` (element id) with `values` by name and submit it."""
    sets = "".join(f"f.elements[{k!r}].value = {v!r}; " for k, v in values.items())
    browser.evaluate(
        f"(() => {{ const f = document.getElementById({form!r}); {sets}f.requestSubmit(); }})()"
    )


def points_js(pid: str) -> str:
    """The JS that reads `pid`'s points in a page's standings (the live page and the console
    draw the same table: services/feed/static/standings.js)."""
    return (
        f"(document.querySelector('#standings tr[data-player=\"{pid}\"] td.points') || {{}})"
        ".textContent"
    )
