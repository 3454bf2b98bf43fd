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
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest
from tests_support import (
    ApiProcesses,
    RawSse,
    fresh_kafka_log,
    processor_args,
    spawn,
    tail_logs,
    terminate,
)

from services.commands.auth import TokenStore
from services.eventlog.kafka import KafkaEventLog
from services.projection.projector import replay

pytestmark = pytest.mark.kafka

REPO = Path(__file__).resolve().parents[3]
TID = "kafka-open"
PROCESSORS = ("standings", "tiebreaks")
PARTITIONS = 2
DEADLINE = 45.0  # seconds any one wait for the stream may take (topics are discovered)


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
        self.api = ApiProcesses(self.env, tmp)
        self.url = ""

    def start(self) -> None:
        for name in PROCESSORS:
            argv = processor_args(
                name,
                self.env["KAFKA_BOOTSTRAP"],
                self.env["ARBITER_TOPIC"],
                self.tmp / "processors",
            )
            self.procs[name] = spawn([sys.executable, *argv], self.env, self.tmp / f"{name}.log")
        (self.url,) = self.api.start(1)

    def stop(self) -> None:
        self.api.stop()
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            terminate(proc)

    def assert_alive(self) -> None:
        for name, proc in [*self.procs.items(), ("api", *self.api.procs)]:
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
    with RawSse(stream, desk, DEADLINE) as sse:
        first_conn = sse.until(lambda e: e.event == "standings" and e.seq == last, "standings")
        assert first_conn[-1].data == replayed(last)
        # The SSE id ends a group of messages of one as_of_seq (services/feed/sse.py `_encode`):
        # when the tiebreaks of that seq came in the same frame, after the standings, the id is
        # on them.
        if all(e.id is None for e in first_conn):
            first_conn += sse.until(lambda e: e.id is not None, "an SSE id")
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
    with RawSse(stream, {**desk, "Last-Event-ID": str(first_id)}, DEADLINE) as sse:
        resumed = sse.until(lambda e: e.event == "standings", "the resumed standings")
        resumed += sse.drain(quiet=1.5)
    keys = [(e.event, e.seq) for e in resumed]
    assert len(keys) == len(set(keys)), f"sent twice: {keys}"
    assert all(seq > first_id for _, seq in keys), f"at or below {first_id}: {keys}"
    assert {e.event for e in resumed} <= set(PROCESSORS)
    standings = [e for e in resumed if e.event == "standings"]
    assert [e.data for e in standings] == [corrected], keys  # the latest only, not the history
    st.assert_alive()
