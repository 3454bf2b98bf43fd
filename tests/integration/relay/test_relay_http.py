"""The relay from HTTP (issue 25 items 2, 6): a source served locally (http.server in a
thread) that fails with 500s and recovers, the back-off observed through an injected sleeper
(every × 2ⁿ after the n-th failure in a row, capped; the usual pace again once it answers);
an unchanged source costs a 304 (ETag) and no poll; DGT LiveChess Cloud's round JSON read as
the PGN it describes."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from tests_support import append_events

from events_schema import Actor
from events_schema import events as ev
from services.eventlog.sqlite import SQLiteEventLog
from services.relay import Backoff, DgtSource, HttpSource, Relay, follow

ADMIN = Actor(id="relay-test", role="admin")
PGN = (
    '[Event "Club"]\n[Round "1"]\n[White "Ann"]\n[Black "Bob"]\n[Result "*"]\n\n'
    "1. e4 {[%clk 0:10:00]} e5 {[%clk 0:09:59]} *\n"
)


class _Site:
    """What the local server answers: `fail` 500s first, then `routes` (with an ETag)."""

    def __init__(self) -> None:
        self.fail = 0
        self.routes: dict[str, str] = {}
        self.hits: list[tuple[str, int]] = []


@pytest.fixture
def site() -> Iterator[tuple[_Site, str]]:
    state = _Site()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if state.fail > 0:
                state.fail -= 1
                code, body = 500, b"down"
            elif self.path in state.routes:
                body = state.routes[self.path].encode()
                etag = f'"{hash(body) & 0xFFFFFFFF:x}"'
                code = 304 if self.headers.get("If-None-Match") == etag else 200
                state.hits.append((self.path, code))  # (before answering: no race)
                self.send_response(code)
                self.send_header("ETag", etag)
                self.send_header("Content-Length", "0" if code == 304 else str(len(body)))
                self.end_headers()
                if code == 200:
                    self.wfile.write(body)
                return
            else:
                code, body = 404, b"no"
            state.hits.append((self.path, code))
            self.send_response(code)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _club(tmp_path: Path) -> SQLiteEventLog:
    db = tmp_path / "events.sqlite3"
    append_events(db, "club", ev.TournamentCreated(name="Club", format="swiss", rounds=3))
    return SQLiteEventLog(db)


def test_the_back_off_doubles_to_its_cap_and_resets_on_success():
    b = Backoff(every=2.0, cap=30.0)
    assert [b.after(False) for _ in range(5)] == [4.0, 8.0, 16.0, 30.0, 30.0]
    assert b.after(True) == 2.0 and b.after(False) == 4.0


def test_a_failing_source_is_backed_off_and_followed_again_when_it_recovers(
    site: tuple[_Site, str], tmp_path: Path
):
    state, base = site
    state.fail = 3
    state.routes["/round.pgn"] = PGN
    log = _club(tmp_path)
    relay = Relay(log, "club", ADMIN, f"{base}/round.pgn")
    waits: list[float] = []
    seen: list[tuple[int | None, str | None]] = []

    def record(report: Any, error: str | None) -> None:
        seen.append((None if report is None else report.appended, error))
        if len(seen) == 5:  # the board moves on between two polls
            state.routes["/round.pgn"] = PGN.replace("e5 {[%clk 0:09:59]} *", "e5 2. Nf3 *")

    follow(
        relay,
        HttpSource(f"{base}/round.pgn"),
        every=2.0,
        polls=7,
        sleep=waits.append,
        on_poll=record,
    )
    assert waits == [4.0, 8.0, 16.0, 2.0, 2.0, 2.0]  # three 500s, then the usual pace
    assert [e is not None and "HTTP 500" in e for _, e in seen] == [True] * 3 + [False] * 4
    # two players, their round, the game started, two moves; 304s poll nothing
    assert [a for a, _ in seen[3:]] == [6, None, 1, None]
    assert [code for _, code in state.hits] == [500, 500, 500, 200, 304, 200, 304]
    moves = [e.payload["uci"] for e in log.read("club") if e.type == "MovePlayed"]
    assert moves == ["e2e4", "e7e5", "g1f3"]


def test_dgt_livechess_cloud_json_is_followed_as_its_pgn(site: tuple[_Site, str], tmp_path: Path):
    state, base = site
    player = {"fname": "Ann", "mname": None, "lname": "Lee", "title": "FM", "fideid": None}
    other = {"fname": "Bob", "lname": "Ray"}
    state.routes["/get/t1/round-1/index.json"] = json.dumps(
        {
            "date": "2026-05-01",
            "pairings": [{"white": player, "black": other, "result": "*", "live": True}],
        }
    )
    state.routes["/get/t1/round-1/game-1.json"] = json.dumps(
        {"live": True, "result": "*", "moves": ["e4 5995+0", "c5 5990+3", "Nf3 5980"]}
    )
    log = _club(tmp_path)
    source = DgtSource(f"{base}/get/t1/round-1/index.json")
    text = source.read()
    assert text is not None and '[White "Ann Lee"]' in text and "1. e4 {[%clk 1:39:55]} c5" in text
    report = Relay(log, "club", ADMIN, source.name).poll(text)
    assert report.games[0].moves == 3
    clocks = [e.payload["clock_ms"] for e in log.read("club") if e.type == "MovePlayed"]
    assert clocks == [5_995_000, 5_990_000, 5_980_000]
    state.routes["/get/t1/round-1/game-1.json"] = json.dumps(
        {"live": False, "result": "1-0", "moves": ["e4 5995", "c5 5990", "Nf3 5980"]}
    )
    report = Relay(log, "club", ADMIN, source.name).poll(source.read() or "")
    assert report.games[0].result == "1-0"
