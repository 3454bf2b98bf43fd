"""The embedded feed on the SQLite log (issue 27 item 3): this process's appends reach the
live projector handed over in memory, another process's are read from the log; what it
publishes is, byte for byte, what a replay of the log gives."""

from __future__ import annotations

import time
from pathlib import Path

from builders import created, move, new_event, player, result, round_

from events_schema.codec import dumps, loads
from services.eventlog.sqlite import SQLiteEventLog
from services.projection.embedded import EmbeddedRunner
from services.projection.projector import replay


def test_handed_over_and_read_events_publish_what_a_replay_gives(tmp_path: Path) -> None:
    ours = SQLiteEventLog(tmp_path / "events.sqlite3")
    theirs = SQLiteEventLog(tmp_path / "events.sqlite3")  # another process on the same file
    runner = EmbeddedRunner(ours)
    runner.start()
    try:
        assert runner.hub.caught_up.wait(10)
        ours.append("t1", [new_event(created(fmt="swiss", rounds=3)), new_event(player("a"))])
        theirs.append("t1", [new_event(player("b")), new_event(player("c"))])
        ours.append("t1", [new_event(player("d"))])
        ours.append("t1", [new_event(round_(1, ("g1", "a", "b"), ("g2", "c", "d")))])
        for ply, uci in enumerate(["e2e4", "e7e5", "g1f3"], start=1):
            (ours if ply % 2 else theirs).append("t1", [new_event(move("g1", ply, uci))])
        theirs.append("t1", [new_event(result("g2", "1-0"))])
        ours.append("t1", [new_event(move("g1", 4, "b8c6"))])
        last = ours.last_seq("t1")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            msg = runner.hub.latest("t1", "games")
            if msg is not None and msg.as_of_seq == last:
                break
            time.sleep(0.01)
        expected = replay(ours.read("t1"), "t1")
        for name, body in expected.items():
            # (a document is published again only when its data changed: its as_of_seq is
            # the last event that changed it)
            published = runner.hub.latest("t1", name)
            assert published is not None, name
            assert dumps(loads(published.body)["data"]) == dumps(loads(body)["data"]), name
        assert runner.hub.latest("t1", "games").as_of_seq == last  # type: ignore[union-attr]
        assert runner.errors == 0
    finally:
        runner.stop()
