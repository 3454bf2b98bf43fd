"""Several feed processes serve one tournament's subscribers between them (issue 27, item 4),
against the real broker.

Given the standings and tiebreaks processors on a fresh events topic, one API process and two
feed processes (`arbiter serve --role feed`, each reading the compacted projection topics
from the beginning), with SSE subscribers split between the two feed processes;
when events are appended through the API process;
then every subscriber's latest documents are byte-equal to each other and to the auditor's
replay of the log (`services.audit.replay.replay_to`), each (projection, as_of_seq) sent once
per connection; a feed process refuses writes (405 `serve.feed_only`, nothing appended); a
third feed process started after the events were written serves the same bytes; after a
kill -9 of one feed process, the next event still reaches the others' subscribers, on the
connections they had, byte-equal to the replay, and a subscriber of the killed process that
reconnects to another with its Last-Event-ID gets only the newer versions.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest
from bench.feed_kafka import KafkaFeedStack
from tests_support import RawSse, fresh_kafka_log

from services.audit.replay import replay_to
from services.eventlog.kafka import KafkaEventLog

pytestmark = [pytest.mark.kafka, pytest.mark.slow]

TID = "feed-scale"
PROCESSORS = ("standings", "tiebreaks")
PARTITIONS = 2
ENDED = {g: str(uuid.uuid4()) for g in ("g1", "g2")}


def _cmd(type_: str, event_id: str | None = None, **payload: object) -> dict[str, object]:
    out: dict[str, object] = {"type": type_, "payload": payload}
    if event_id is not None:
        out["event_id"] = event_id
    return out


SETUP = [
    _cmd("TournamentCreated", name="Feed Scale Open", format="swiss", rounds=3),
    *(_cmd("PlayerRegistered", player_id=p, name=p.upper()) for p in "abcd"),
    _cmd(
        "RoundScheduled",
        round=1,
        pairings=[
            {"game_id": "g1", "white": "a", "black": "b"},
            {"game_id": "g2", "white": "c", "black": "d"},
        ],
    ),
    _cmd("GameEnded", ENDED["g1"], game_id="g1", result="1-0", termination="resignation"),
    _cmd("GameEnded", ENDED["g2"], game_id="g2", result="1/2-1/2", termination="agreement"),
]


def _correct(game: str, result: str) -> dict[str, object]:
    return _cmd(
        "ResultCorrected",
        corrects_event_id=ENDED[game],
        game_id=game,
        result=result,
        termination="resignation",
        reason="scoresheet",
    )


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[tuple[KafkaFeedStack, KafkaEventLog]]:
    with fresh_kafka_log("feeds", PARTITIONS) as (bootstrap, topic, log):
        st = KafkaFeedStack(bootstrap, topic, tmp_path, PARTITIONS)
        try:
            for name in PROCESSORS:
                st.processor(name)
            st.serve("api", "api")
            st.serve("feed-a", "feed")
            st.serve("feed-b", "feed")
            yield st, log
        finally:
            st.stop()


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_feed_processes_converge_to_the_replay_and_survive_a_kill(
    stack: tuple[KafkaFeedStack, KafkaEventLog],
) -> None:
    st, log = stack
    admin = _auth(st.token("admin", "chief"))
    desk_token = st.token("auditor", "desk")
    desk = _auth(desk_token)

    def post(body: object) -> int:
        r = httpx.post(
            f"{st.urls['api']}/tournaments/{TID}/commands", json=body, headers=admin, timeout=30
        )
        assert r.status_code == 201, r.text
        return int(r.json()["last_seq"])

    def expected() -> dict[str, bytes]:
        envs = list(log.read(TID))
        assert [e.seq for e in envs] == list(range(1, len(envs) + 1))
        docs = replay_to(envs, TID, len(envs), PROCESSORS)
        assert set(docs) == set(PROCESSORS), sorted(docs)
        return docs

    def converged(subs: list[RawSse], docs: dict[str, bytes]) -> None:
        want = {n: int(orjson.loads(b)["as_of_seq"]) for n, b in docs.items()}
        finals = []
        for sub in subs:
            latest = sub.until_latest(
                lambda got: all(n in got and got[n].seq >= s for n, s in want.items()),
                f"{want}",
            )
            finals.append({n: latest[n].data for n in PROCESSORS})
            keys = [(e.event, e.seq) for e in sub.received]
            assert len(keys) == len(set(keys)), f"sent twice on one connection: {keys}"
        assert all(f == finals[0] for f in finals)  # every subscriber, the same bytes
        assert finals[0] == docs  # and the replay's

    def stream(feed: str) -> RawSse:
        return RawSse(f"{st.urls[feed]}/tournaments/{TID}/stream", desk).start()

    # Subscribers split between the two feed processes, connected before the first event.
    subs = {feed: [stream(feed), stream(feed)] for feed in ("feed-a", "feed-b")}
    try:
        post({"commands": SETUP})
        post(_correct("g1", "0-1"))
        docs = expected()
        converged([s for group in subs.values() for s in group], docs)

        # A feed process serves reads only: a write is refused before any route, and nothing
        # is appended.
        before = log.last_seq(TID)
        r = httpx.post(
            f"{st.urls['feed-a']}/tournaments/{TID}/commands",
            json=_correct("g2", "1-0"),
            headers=admin,
            timeout=30,
        )
        assert r.status_code == 405, r.text
        assert r.json()["error"]["rule"] == "serve.feed_only"
        assert log.last_seq(TID) == before

        # A feed process started after the events were written reads the compacted topics
        # from the beginning: the same bytes, as a snapshot and on its streams.
        st.serve("feed-c", "feed")
        seqs = {n: int(orjson.loads(b)["as_of_seq"]) for n, b in docs.items()}
        st.published("feed-c", TID, desk_token, seqs)
        for name in PROCESSORS:
            got = httpx.get(
                f"{st.urls['feed-c']}/tournaments/{TID}/projections/{name}",
                headers=desk,
                timeout=30,
            )
            assert got.status_code == 200, got.text
            assert got.content == docs[name]
        subs["feed-c"] = [stream("feed-c"), stream("feed-c")]
        converged(subs["feed-c"], docs)

        # kill -9 of feed-a: the subscribers of feed-b and feed-c keep their connections and
        # get the next event, byte-equal to the replay.
        st.kill("feed-a")
        post(_correct("g2", "0-1"))
        docs = expected()
        survivors = subs["feed-b"] + subs["feed-c"]
        converged(survivors, docs)
        for sub in survivors:
            assert sub.error is None and not sub.ended, (sub.url, sub.error)

        # A subscriber of the killed process reconnects to another one with its Last-Event-ID
        # (the SSE id is the as_of_seq, the same on every process): only newer versions, the
        # replay's bytes.
        last_id = max(e.id for e in subs["feed-a"][0].received if e.id is not None)
        moved = RawSse(
            f"{st.urls['feed-b']}/tournaments/{TID}/stream",
            {**desk, "Last-Event-ID": str(last_id)},
        ).start()
        subs["moved"] = [moved]
        newer = {n: b for n, b in docs.items() if int(orjson.loads(b)["as_of_seq"]) > last_id}
        assert newer, f"nothing changed after {last_id}"
        got = moved.until_latest(
            lambda have: all(n in have for n in newer), f"newer than {last_id}"
        )
        assert {n: got[n].data for n in newer} == newer
        assert all(e.seq > last_id for e in moved.received)
        st.assert_alive(*PROCESSORS, "api", "feed-b", "feed-c")
    finally:
        for group in subs.values():
            for sub in group:
                sub.close()
