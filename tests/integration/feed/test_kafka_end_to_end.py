"""The Kafka path of the live feed end to end: the standings and tiebreaks processors
(`arbiter processor NAME` subprocesses) fold a unique events topic into their compacted output
topics, and a real API process (uvicorn, ARBITER_LOG=kafka) appends through
`POST /tournaments/{id}/commands` and serves its feed from those topics
(`KafkaProjectionSource`, the default source on Kafka).

Checked over the wire: the SSE stream delivers standings as of the last appended seq, byte-equal
to `services.projection.projector.replay` of the log; a ResultCorrected appended afterwards arrives
live and
through the snapshot endpoint, byte-equal to the replay; a reconnect with Last-Event-ID gets only
newer versions, each (projection, as_of_seq) once.
"""

from __future__ import annotations

import os
import queue
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import orjson
import pytest
from tests_support import fresh_kafka_log, processor_args, tail_logs, terminate

from services.commands.auth import TokenStore
from services.eventlog.kafka import KafkaEventLog
from services.projection.projector import replay

pytestmark = pytest.mark.kafka

REPO = Path(__file__).resolve().parents[3]
TID = "kafka-open"
PROCESSORS = ("standings", "tiebreaks")
PARTITIONS = 2
DEADLINE = 45.0  # seconds any one wait may take (processors start, topics are discovered)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cmd(type_: str, **payload: object) -> dict[str, object]:
    return {"type": type_, "payload": payload}


SETUP = [
    _cmd("TournamentCreated", name="Kafka Open", format="swiss", rounds=3),
    _cmd("PlayerRegistered", player_id="a", name="Alice"),
    _cmd("PlayerRegistered", player_id="b", name="Bob"),
    _cmd("PlayerRegistered", player_id="c", name="Carol"),
    _cmd("PlayerRegistered", player_id="d", name="Dan"),
    _cmd(
        "RoundScheduled",
        round=1,
        pairings=[
            {"game_id": "g1", "white": "a", "black": "b"},
            {"game_id": "g2", "white": "c", "black": "d"},
        ],
    ),
]
RESULTS = [
    _cmd("GameEnded", game_id="g1", result="1-0", termination="resignation"),
    _cmd("GameEnded", game_id="g2", result="1/2-1/2", termination="agreement"),
]


# -- an SSE client that keeps the raw bytes of each event -------------------------------------


@dataclass(frozen=True)
class Sse:
    event: str
    id: int | None
    data: bytes

    @property
    def seq(self) -> int:
        return int(orjson.loads(self.data)["as_of_seq"])


@dataclass
class RawSse:
    """Reads one SSE connection in a daemon thread into a queue."""

    url: str
    headers: dict[str, str]
    events: queue.Queue[Sse] = field(default_factory=queue.Queue)
    status: int | None = None
    error: BaseException | None = None
    opened: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            timeout = httpx.Timeout(10.0, read=DEADLINE)
            with (
                httpx.Client(timeout=timeout) as client,
                client.stream("GET", self.url, headers=self.headers) as resp,
            ):
                self.status = resp.status_code
                self.opened.set()
                if resp.status_code != 200:
                    return
                event, ident, data = "message", None, list[str]()
                for line in resp.iter_lines():
                    if self._stop.is_set():
                        return
                    if line == "":
                        if data:
                            body = "\n".join(data).encode()
                            self.events.put(Sse(event, ident, body))
                        event, ident, data = "message", None, []
                    elif line.startswith(":"):
                        continue
                    else:
                        name, _, value = line.partition(":")
                        value = value.removeprefix(" ")
                        if name == "event":
                            event = value
                        elif name == "id":
                            ident = int(value)
                        elif name == "data":
                            data.append(value)
        except BaseException as exc:  # surfaced through `error`
            if not self._stop.is_set():
                self.error = exc
        finally:
            self.opened.set()

    def __enter__(self) -> RawSse:
        self._thread.start()
        assert self.opened.wait(DEADLINE), "SSE stream did not open"
        assert self.error is None, repr(self.error)
        assert self.status == 200, self.status
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()

    def until(self, pred: Callable[[Sse], bool], what: str) -> list[Sse]:
        """Every event up to the first one satisfying `pred` (included)."""
        out: list[Sse] = []
        deadline = time.monotonic() + DEADLINE
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"{what} not delivered; got {[(e.event, e.seq) for e in out]}"
            try:
                ev = self.events.get(timeout=min(left, 0.5))
            except queue.Empty:
                assert self.error is None, repr(self.error)
                continue
            out.append(ev)
            if pred(ev):
                return out

    def drain(self, quiet: float) -> list[Sse]:
        out = []
        while True:
            try:
                out.append(self.events.get(timeout=quiet))
            except queue.Empty:
                return out


# -- processes -----------------------------------------------------------------------------


class Stack:
    """The processors and one API process, with their logs in `tmp`."""

    def __init__(self, bootstrap: str, topic: str, tmp: Path) -> None:
        self.tmp = tmp
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.env = dict(os.environ)
        self.env.update(
            ARBITER_LOG="kafka",
            KAFKA_BOOTSTRAP=bootstrap,
            ARBITER_TOPIC=topic,
            ARBITER_PARTITIONS=str(PARTITIONS),
            ARBITER_TOKENS_DB=str(tmp / "tokens.sqlite3"),
            ARBITER_DATA=str(tmp / "data"),
            ARBITER_FEED_KEEPALIVE="1",
        )
        for var in ("ARBITER_FEED_SOURCE", "ARBITER_PROJECTION_PREFIX"):
            self.env.pop(var, None)  # the production defaults
        self.url = ""

    def _spawn(self, name: str, argv: list[str]) -> None:
        with open(self.tmp / f"{name}.log", "wb") as logf:
            self.procs[name] = subprocess.Popen(
                [sys.executable, *argv],
                cwd=REPO,
                env=self.env,
                stdout=logf,
                stderr=subprocess.STDOUT,
            )

    def start(self) -> None:
        for name in PROCESSORS:
            self._spawn(
                name,
                processor_args(
                    name,
                    self.env["KAFKA_BOOTSTRAP"],
                    self.env["ARBITER_TOPIC"],
                    self.tmp / "processors",
                ),
            )
        port = _free_port()
        self.url = f"http://127.0.0.1:{port}"
        self._spawn(
            "api",
            [
                "-m",
                "uvicorn",
                "services.api.main:app",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--log-level",
                "warning",
            ],
        )
        deadline = time.monotonic() + DEADLINE
        while True:
            self.assert_alive()
            try:
                if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, f"API process did not start\n{self.logs()}"
            time.sleep(0.1)

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            terminate(proc)

    def assert_alive(self) -> None:
        for name, proc in self.procs.items():
            assert proc.poll() is None, f"{name} exited {proc.returncode}\n{self.logs()}"

    def logs(self) -> str:
        return tail_logs(self.tmp)


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[tuple[Stack, KafkaEventLog]]:
    with fresh_kafka_log("e2e", PARTITIONS) as (bootstrap, topic, log):
        st = Stack(bootstrap, topic, tmp_path)
        try:
            st.start()
            yield st, log
        finally:
            st.stop()


# -- the test ------------------------------------------------------------------------------


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_kafka_feed_delivers_the_replay_live_and_resumes(
    stack: tuple[Stack, KafkaEventLog],
) -> None:
    st, log = stack
    store = TokenStore(st.env["ARBITER_TOKENS_DB"])
    try:
        admin = _auth(store.create("admin", "chief")[0])
        tv = _auth(store.create("broadcaster", "tv")[0])
        # The Kafka feed's live hub: auditors (and arbiters, admins) read it as it changes; a
        # broadcaster reads the broadcast-delay view (services/feed/delay.py, step 3 below).
        desk = _auth(store.create("auditor", "desk")[0])
    finally:
        store.close()

    def post(body: dict[str, object]) -> int:
        r = httpx.post(f"{st.url}/tournaments/{TID}/commands", json=body, headers=admin, timeout=30)
        assert r.status_code == 201, r.text
        return int(r.json()["last_seq"])

    def replayed(seq: int, name: str = "standings") -> bytes:
        envs = list(log.read(TID))
        assert len(envs) >= seq and [e.seq for e in envs] == list(range(1, len(envs) + 1))
        return replay(envs[:seq], TID)[name]

    post({"commands": SETUP})
    last = post({"commands": RESULTS})
    stream = f"{st.url}/tournaments/{TID}/stream"

    # 1. The stream brings standings as of the last seq, byte-equal to the replay.
    with RawSse(stream, desk) as sse:
        first_conn = sse.until(lambda e: e.event == "standings" and e.seq == last, "standings")
        assert first_conn[-1].data == replayed(last)
        first_id = next(e.id for e in first_conn if e.id is not None)

        # 2. A correction (as admin) arrives live, byte-equal to the replay.
        events = httpx.get(f"{st.url}/tournaments/{TID}/events", headers=admin, timeout=30)
        ended = next(
            e
            for e in events.json()["events"]
            if e["type"] == "GameEnded" and e["payload"]["game_id"] == "g1"
        )
        fixed = post(
            _cmd(
                "ResultCorrected",
                corrects_event_id=ended["event_id"],
                game_id="g1",
                result="0-1",
                termination="resignation",
                reason="scoresheet",
            )
        )
        assert fixed == last + 1
        live = sse.until(lambda e: e.event == "standings" and e.seq == fixed, "the correction")
        corrected = replayed(fixed)
        assert live[-1].data == corrected
        rows = {
            r["player_id"]: r["score"]["display"] for r in orjson.loads(corrected)["data"]["rows"]
        }
        assert (rows["a"], rows["b"]) == ("0", "1")
        assert all(e.seq > last for e in live if e.event == "standings")
        first_conn += live
        if not any(e.event == "tiebreaks" for e in first_conn):
            first_conn += sse.until(lambda e: e.event == "tiebreaks", "tiebreaks")
        first_conn += sse.drain(quiet=0.5)
    keys = [(e.event, e.seq) for e in first_conn]
    assert len(keys) == len(set(keys)), f"sent twice: {keys}"
    tiebreaks = [e for e in first_conn if e.event == "tiebreaks"]
    assert tiebreaks and all(e.data == replayed(e.seq, "tiebreaks") for e in tiebreaks)

    # 3. The snapshot endpoint serves the same bytes.
    r = httpx.get(f"{st.url}/tournaments/{TID}/projections/standings", headers=tv, timeout=30)
    assert r.status_code == 200, r.text
    assert r.content == corrected and r.headers["etag"] == f'"{fixed}"'

    # 4. Resume from the first message's id: only newer versions, each once.
    with RawSse(stream, {**desk, "Last-Event-ID": str(first_id)}) as sse:
        resumed = sse.until(lambda e: e.event == "standings", "the resumed standings")
        resumed += sse.drain(quiet=1.5)
    keys = [(e.event, e.seq) for e in resumed]
    assert len(keys) == len(set(keys)), f"sent twice: {keys}"
    assert all(seq > first_id for _, seq in keys), f"at or below {first_id}: {keys}"
    assert {e.event for e in resumed} <= set(PROCESSORS)
    standings = [e for e in resumed if e.event == "standings"]
    assert [e.data for e in standings] == [corrected], keys  # the latest only, not the history
    st.assert_alive()
