"""The live feed end to end: a real `arbiter serve` process on the embedded log (its feed runs
in-process), snapshots, SSE delivery of an appended result, resume with Last-Event-ID, auth."""

from __future__ import annotations

import queue
import time
from pathlib import Path

import httpx
import pytest
from bench.feed import ApiServer, SseEvent, SseReader
from tests_support import cmd

from services.feed import sse
from services.feed.hub import FeedHub
from services.projection.projector import Message

TID = "open-2026"


SETUP = {
    "commands": [
        cmd("TournamentCreated", name="Open 2026", format="swiss", rounds=5),
        cmd("PlayerRegistered", player_id="a", name="Alice"),
        cmd("PlayerRegistered", player_id="b", name="Bob"),
        cmd("PlayerRegistered", player_id="c", name="Carol"),
        cmd("PlayerRegistered", player_id="d", name="Dan"),
        cmd(
            "RoundScheduled",
            round=1,
            pairings=[
                {"game_id": "g1", "white": "a", "black": "b"},
                {"game_id": "g2", "white": "c", "black": "d"},
            ],
        ),
    ]
}


def result(game_id: str, res: str) -> dict:
    how = "agreement" if res == "1/2-1/2" else "resignation"
    return cmd("GameEnded", game_id=game_id, result=res, termination=how)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    srv = ApiServer(Path(tmp_path_factory.mktemp("feed")), keepalive=0.5)
    tokens = {
        "admin": srv.token("admin", "chief"),
        "arbiter": srv.token("arbiter", "ref-1", [TID]),
        "other_arbiter": srv.token("arbiter", "ref-2", ["elsewhere"]),
        "broadcaster": srv.token("broadcaster", "tv"),
        "auditor": srv.token("auditor", "audit"),
    }
    with srv:
        r = httpx.post(
            f"{srv.url}/tournaments/{TID}/commands", json=SETUP, headers=H(tokens["admin"])
        )
        assert r.status_code == 201, r.text
        yield srv, tokens


def H(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def post(srv: ApiServer, token: str, body: dict) -> dict:
    r = httpx.post(f"{srv.url}/tournaments/{TID}/commands", json=body, headers=H(token))
    assert r.status_code == 201, r.text
    return r.json()


def snapshot(srv: ApiServer, token: str, name: str, min_seq: int = 0) -> dict:
    """The projection once it is at least at `min_seq` (the feed is eventually consistent)."""
    deadline = time.monotonic() + 10
    while True:
        r = httpx.get(f"{srv.url}/tournaments/{TID}/projections/{name}", headers=H(token))
        if r.status_code == 200 and r.json()["as_of_seq"] >= min_seq:
            return r.json()
        assert time.monotonic() < deadline, r.text
        time.sleep(0.05)


def until(reader: SseReader, pred, timeout: float = 10) -> list[SseEvent]:
    """Events until one satisfies `pred` (that one included)."""
    out: list[SseEvent] = []
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        assert left > 0, f"not delivered; got {[(e.event, e.data['as_of_seq']) for e in out]}"
        try:
            ev = reader.take(timeout=left)
        except queue.Empty:
            continue
        out.append(ev)
        if pred(ev):
            return out


def stream_url(srv: ApiServer, **query: str) -> str:
    q = "&".join(f"{k}={v}" for k, v in query.items())
    return f"{srv.url}/tournaments/{TID}/stream" + (f"?{q}" if q else "")


def test_snapshots_after_appends(server):
    srv, t = server
    last = post(srv, t["arbiter"], result("g1", "1-0"))["last_seq"]
    for reader in ("broadcaster", "auditor", "admin", "arbiter"):
        doc = snapshot(srv, t[reader], "standings", last)
        assert doc["tournament_id"] == TID and doc["projection"] == "standings"
        assert doc["as_of_seq"] == last
        top = doc["data"]["rows"][0]
        assert (top["player_id"], top["score"]["display"]) == ("a", "1")
    tb = snapshot(srv, t["broadcaster"], "tiebreaks", last)
    assert tb["data"]["rows"][0]["player_id"] == "a"
    assert tb["data"]["chain"] and "decided_by" in tb["data"]["rows"][1]
    for name in ("playoff", "prizes"):
        assert snapshot(srv, t["broadcaster"], name)["projection"] == name
    # Token in the query (for EventSource and pages): same document.
    r = httpx.get(
        f"{srv.url}/tournaments/{TID}/projections/standings", params={"token": t["broadcaster"]}
    )
    assert r.status_code == 200 and r.json()["as_of_seq"] >= last


def test_snapshot_404s(server):
    srv, t = server
    r = httpx.get(f"{srv.url}/tournaments/nobody/projections/standings", headers=H(t["admin"]))
    assert r.status_code == 404
    assert r.json()["error"]["rule"] == "feed.not_found"
    r = httpx.get(f"{srv.url}/tournaments/{TID}/projections/elo", headers=H(t["admin"]))
    assert r.status_code == 404
    assert r.json()["error"]["rule"] == "feed.unknown_projection"


def test_sse_delivers_a_result_appended_through_the_api(server):
    srv, t = server
    with SseReader(stream_url(srv), H(t["broadcaster"])) as reader:
        assert reader.status == 200
        # The snapshot first: every projection, as of the current seq.
        first = reader.drain(quiet=1.0)
        assert {e.event for e in first} >= {"standings", "tiebreaks", "playoff", "prizes", "games"}
        seen = max(e.data["as_of_seq"] for e in first)
        seq = post(srv, t["arbiter"], result("g2", "1/2-1/2"))["last_seq"]
        assert seq > seen
        got = until(reader, lambda e: e.event == "standings" and e.data["as_of_seq"] == seq)
        rows = {r["player_id"]: r["score"]["display"] for r in got[-1].data["data"]["rows"]}
        assert rows["c"] == rows["d"] == "½"
        assert all(e.data["as_of_seq"] > seen for e in got)
    assert reader.error is None


def _events(srv: ApiServer, token: str) -> list[dict]:
    return httpx.get(
        f"{srv.url}/tournaments/{TID}/events", headers=H(token), params={"from_seq": 1}
    ).json()["events"]


def test_resume_with_last_event_id_gets_what_was_missed_and_nothing_twice(server):
    srv, t = server
    # The module's tournament is shared: g1 has its result when test_snapshots_after_appends
    # ran first; when this test runs alone (or on another xdist worker) it is posted here.
    if not any(
        e["type"] == "GameEnded" and e["payload"]["game_id"] == "g1"
        for e in _events(srv, t["admin"])
    ):
        post(srv, t["arbiter"], result("g1", "1-0"))
    with SseReader(stream_url(srv, token=t["auditor"])) as reader:
        before = reader.drain(quiet=1.0)
    assert before, "the snapshot comes first"
    last_id = int([e.id for e in before if e.id is not None][-1])
    got_before = {(e.event, e.data["as_of_seq"]) for e in before}

    # Missed while disconnected: a correction of round 1 and a new round with a result.
    g1 = _events(srv, t["admin"])
    ended = next(e for e in g1 if e["type"] == "GameEnded" and e["payload"]["game_id"] == "g1")
    post(
        srv,
        t["admin"],
        cmd(
            "ResultCorrected",
            corrects_event_id=ended["event_id"],
            game_id="g1",
            result="0-1",
            termination="resignation",
            reason="scoresheet",
        ),
    )
    post(
        srv,
        t["arbiter"],
        cmd(
            "RoundScheduled",
            round=2,
            pairings=[
                {"game_id": "g3", "white": "b", "black": "c"},
                {"game_id": "g4", "white": "d", "black": "a"},
            ],
        ),
    )
    post(
        srv,
        t["arbiter"],
        cmd(
            "RoundScheduled",
            round=3,
            pairings=[
                {"game_id": "g5", "white": "a", "black": "c"},
                {"game_id": "g6", "white": "b", "black": "d"},
            ],
        ),
    )
    last = post(srv, t["arbiter"], result("g3", "1-0"))["last_seq"]
    latest = snapshot(srv, t["auditor"], "standings", last)

    for how in ("header", "query"):
        if how == "header":
            args = (stream_url(srv), {**H(t["auditor"]), "Last-Event-ID": str(last_id)})
        else:
            args = (stream_url(srv, token=t["auditor"], last_event_id=str(last_id)), {})
        with SseReader(*args) as reader:
            # State transfer first: the latest standings (and whatever else changed).
            got = until(reader, lambda e: e.event == "standings")
            assert got[-1].data == latest
            # Then a live change, once.
            game = "g4" if how == "header" else "g6"
            live_seq = post(srv, t["arbiter"], result(game, "0-1"))["last_seq"]
            got += until(
                reader, lambda e, s=live_seq: e.event == "standings" and e.data["as_of_seq"] == s
            )
            got += reader.drain(quiet=0.7)
        keys = [(e.event, e.data["as_of_seq"]) for e in got]
        assert len(keys) == len(set(keys)), f"sent twice: {keys}"
        assert all(seq > last_id for _, seq in keys), "nothing at or below Last-Event-ID"
        assert not set(keys) & got_before
        # Ids only move forward, and the last event carries one.
        ids = [int(e.id) for e in got if e.id is not None]
        assert ids == sorted(ids) and got[-1].id is not None
        if how == "header":
            # The second resume starts from where this connection ended.
            last_id = int(got[-1].id)
            got_before = set(keys)
            missed = post(srv, t["arbiter"], result("g5", "1-0"))["last_seq"]
            latest = snapshot(srv, t["auditor"], "standings", missed)


def test_keepalive_comments(server):
    srv, t = server
    with SseReader(stream_url(srv), H(t["admin"])) as reader:
        reader.drain(quiet=1.5)
    assert "keep-alive" in reader.comments


@pytest.mark.parametrize(
    "path", ["/projections/standings", "/stream", "/live"], ids=["snapshot", "stream", "page"]
)
def test_reads_need_a_reader_token(server, path):
    srv, t = server
    url = f"{srv.url}/tournaments/{TID}{path}"
    r = httpx.get(url)
    assert r.status_code == 401
    assert r.json()["error"]["rule"] == "auth.missing_token"
    assert r.headers["www-authenticate"] == "Bearer"
    r = httpx.get(url, params={"token": "arb_nope_nope"})
    assert r.status_code == 401
    assert set(r.json()["error"]) == {"rule", "field", "message"}
    assert r.json()["error"]["rule"] == "auth.invalid_token"
    r = httpx.get(url, headers=H(t["other_arbiter"]))
    assert r.status_code == 403
    assert r.json()["error"]["rule"] == "auth.forbidden"
    r = httpx.get(url, params={"token": t["other_arbiter"]})
    assert r.status_code == 403


def test_bad_last_event_id_is_refused(server):
    srv, t = server
    r = httpx.get(stream_url(srv, last_event_id="x"), headers=H(t["admin"]))
    assert r.status_code == 422
    assert r.json()["error"]["rule"] == "feed.last_event_id"


# --- the hub and the framing, in process ---------------------------------------------------


def _m(seq: int, name: str = "standings", tid: str = "t") -> Message:
    return Message(tid, name, seq, b'{"as_of_seq":%d}' % seq)


def test_frame_never_repeats_and_marks_ids_per_seq():
    sent: dict[str, int] = {}
    first = sse.frame([_m(3), _m(3, "tiebreaks"), _m(5)], sent, floor=2)
    assert first.count(b"event: ") == 3
    assert first.count(b"id: 3\n") == 1 and first.count(b"id: 5\n") == 1
    assert first.index(b"id: 3") > first.index(b"event: tiebreaks")
    assert sse.frame([_m(3), _m(5), _m(4, "tiebreaks")], sent, floor=2) == (
        b'event: tiebreaks\nid: 4\ndata: {"as_of_seq":4}\n\n'
    )
    assert sse.frame([_m(1, "playoff")], {}, floor=2) == b""


def test_hub_keeps_latest_and_history_and_never_goes_back():
    hub = FeedHub()
    assert hub.publish([_m(2), _m(2, "tiebreaks")]) == 2
    assert hub.publish([_m(1)]) == 0  # older than what the hub has
    snap, cursor = hub.snapshot("t", 0)
    assert [(m.projection, m.as_of_seq) for m in snap] == [("standings", 2), ("tiebreaks", 2)]
    assert hub.snapshot("t", 2)[0] == []
    hub.publish([_m(4)])
    changes, cursor2 = hub.since("t", cursor)
    assert [(m.projection, m.as_of_seq) for m in changes] == [("standings", 4)]
    assert hub.since("t", cursor2) == ([], cursor2)
    assert hub.wait("t", cursor, 0.01) and not hub.wait("t", cursor2, 0.01)
    assert hub.latest("t", "standings") == _m(4) and hub.latest("t", "playoff") is None


def test_a_patches_stream_rebuilds_every_message_byte_for_byte(server):
    """`?patches=true`: the snapshot whole, then moves and results as `event: patch`, which
    applied (by python-json-patch) to the message held give the published message exactly."""
    import jsonpatch

    from events_schema.codec import dumps

    srv, t = server
    tid = "patch-open"

    def append(body: dict) -> int:
        r = httpx.post(f"{srv.url}/tournaments/{tid}/commands", json=body, headers=H(t["admin"]))
        assert r.status_code == 201, r.text
        return r.json()["last_seq"]

    append(SETUP)
    url = f"{srv.url}/tournaments/{tid}/stream?patches=true"
    with SseReader(url, H(t["broadcaster"])) as reader:
        first = reader.drain(quiet=1.0)
        assert all(e.event != "patch" for e in first), "the snapshot goes whole"
        held = {e.event: e.data for e in first}
        assert set(held) == {"standings", "tiebreaks", "playoff", "prizes", "games"}
        moves = [("white", "e2e4", 5_390_000), ("black", "e7e5", 5_380_000)]
        for ply, (colour, uci, clock) in enumerate(moves, 1):
            body = cmd("MovePlayed", game_id="g1", ply=ply, colour=colour, uci=uci, clock_ms=clock)
            append({"commands": [body]})
        last = append(result("g2", "1-0"))
        got = until(reader, lambda e: e.data["as_of_seq"] == last and e.event != "games")
        got += reader.drain(quiet=1.0)
    patches = [e for e in got if e.event == "patch"]
    # The moves change one board of the games document; the result re-ranks four players,
    # which patched would be no smaller than the standings themselves: those go whole.
    assert [p.data["projection"] for p in patches].count("games") >= 3
    for e in got:
        if e.event == "patch":
            name = e.data["projection"]
            assert held[name]["as_of_seq"] == e.data["base_seq"]
            held[name] = jsonpatch.apply_patch(held[name], e.data["ops"])
            assert held[name]["as_of_seq"] == e.data["as_of_seq"]
        else:
            held[e.event] = e.data
    games = held["games"]["data"]["pairings"]
    assert [g["last_move"]["uci"] for g in games if g["game_id"] == "g1"] == ["e7e5"]
    for name, doc in held.items():
        r = httpx.get(f"{srv.url}/tournaments/{tid}/projections/{name}", headers=H(t["auditor"]))
        assert dumps(doc) == r.content, name


def test_a_bad_patches_option_is_refused(server):
    srv, t = server
    r = httpx.get(stream_url(srv, patches="sometimes"), headers=H(t["broadcaster"]))
    assert r.status_code == 422
    assert r.json()["error"]["field"] == "query.patches"
