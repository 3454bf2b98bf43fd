"""The broadcasters' delayed view (services/feed/delay.py) on a real SQLite log with a clock
moved by hand (no sleeping): it is the replay of the log up to the last event recorded by
now − delay (byte for byte services/audit/replay.py), a change of the delay takes effect at
once, 0 is live, a longer delay holds the view (never backwards), and a retracted setting
puts the one before it back in force."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from builders import batch, created, player, result, round_

from events_schema import Actor, Envelope
from events_schema import events as ev
from services.audit.replay import Point, replay_to, resolve_point
from services.commands.service import CommandService
from services.eventlog.sqlite import SQLiteEventLog
from services.feed.delay import DelayedFeed

TID = "delayed"
ADMIN = Actor(id="chief", role="admin")


@dataclass
class Clock:
    now: datetime

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def log(tmp_path: Path) -> Iterator[SQLiteEventLog]:
    event_log = SQLiteEventLog(tmp_path / "events.sqlite3")
    yield event_log
    event_log.close()


def append(log: SQLiteEventLog, *events: ev.Event) -> list[Envelope]:
    return list(CommandService(log).handle(TID, batch(*events), ADMIN).envelopes)


def setup(log: SQLiteEventLog, seconds: int) -> list[Envelope]:
    """seq 1-4 the tournament and its round, 5 the delay, 6 a result."""
    envs = append(
        log,
        created(fmt="swiss", rounds=3),
        player("a"),
        player("b"),
        round_(1, ("g1", "a", "b")),
    )
    envs += append(log, ev.BroadcastDelaySet(seconds=seconds, reason="anti-cheating"))
    envs += append(log, result("g1", "1-0", "resignation"))
    return envs


def between(a: Envelope, b: Envelope, delay: int) -> datetime:
    """A moment whose now − delay falls after `a` was recorded and before `b` was."""
    assert a.recorded_at < b.recorded_at
    return a.recorded_at + (b.recorded_at - a.recorded_at) / 2 + timedelta(seconds=delay)


def replayed(log: SQLiteEventLog, at: datetime) -> tuple[int, dict[str, bytes]]:
    """The auditor's replay as of a time (`arbiter replay T --until TIME`)."""
    envs = list(log.read(TID, 1))
    seq = resolve_point(Point("time", time=at), envs).seq
    return seq, replay_to(envs, TID, seq)


def test_the_view_is_the_replay_of_the_log_as_of_delay_ago(log: SQLiteEventLog):
    envs = setup(log, 60)
    clock = Clock(between(envs[4], envs[5], 60))  # the result (seq 6) is less than 60 s old
    feed = DelayedFeed(log, clock, tick=0)
    feed.release(TID)
    assert feed.delay(TID) == 60 and feed.seq(TID) == 5
    seq, docs = replayed(log, clock.now - timedelta(seconds=60))
    assert seq == 5 and feed.snapshot(TID) == docs  # byte for byte
    standings = feed.hub.latest(TID, "standings")
    assert standings is not None and b'"score"' in standings.body
    assert b'"1-0"' not in feed.snapshot(TID)["games"]  # the result is not out yet

    clock.now = envs[5].recorded_at + timedelta(seconds=60)  # exactly 60 s old: out
    feed.release(TID)
    assert feed.seq(TID) == 6
    assert feed.snapshot(TID) == replayed(log, clock.now - timedelta(seconds=60))[1]
    assert b'"1-0"' in feed.snapshot(TID)["games"]


def test_the_timer_is_told_when_the_next_event_is_due(log: SQLiteEventLog):
    envs = setup(log, 60)
    clock = Clock(envs[4].recorded_at + timedelta(seconds=60))
    feed = DelayedFeed(log, clock, tick=0)
    due = feed.release(TID)
    expected = (envs[5].recorded_at - envs[4].recorded_at).total_seconds()
    assert due == pytest.approx(expected)
    clock.now += timedelta(seconds=due or 0)
    assert feed.release(TID) is None and feed.seq(TID) == 6


def test_a_change_of_the_delay_takes_effect_and_0_is_live(log: SQLiteEventLog):
    envs = setup(log, 3_600)
    clock = Clock(envs[-1].recorded_at + timedelta(seconds=1))
    feed = DelayedFeed(log, clock, tick=0)
    feed.release(TID)
    assert feed.seq(TID) == 0 and feed.snapshot(TID) == {}  # an hour ago: nothing yet
    append(log, ev.BroadcastDelaySet(seconds=0, reason="round over"))  # seq 7
    clock.now = datetime.now(clock.now.tzinfo) + timedelta(seconds=1)
    feed.release(TID)
    assert feed.delay(TID) == 0 and feed.seq(TID) == 7  # live: the whole log
    assert feed.snapshot(TID) == replayed(log, clock.now)[1]


def test_a_longer_delay_holds_the_view_never_backwards(log: SQLiteEventLog):
    envs = setup(log, 5)
    clock = Clock(envs[-1].recorded_at + timedelta(seconds=10))
    feed = DelayedFeed(log, clock, tick=0)
    feed.release(TID)
    assert feed.seq(TID) == 6
    more = append(log, ev.BroadcastDelaySet(seconds=600, reason="final round"))  # seq 7
    clock.now = more[0].recorded_at + timedelta(seconds=10)
    feed.release(TID)
    assert feed.seq(TID) == 6  # held where it was shown, not taken back 600 s
    clock.now = more[0].recorded_at + timedelta(seconds=600)
    feed.release(TID)
    assert feed.seq(TID) == 7


def test_a_retracted_setting_puts_the_one_before_it_back(log: SQLiteEventLog):
    envs = setup(log, 60)
    second = append(log, ev.BroadcastDelaySet(seconds=300, reason="final round"))  # seq 7
    feed = DelayedFeed(log, Clock(envs[0].recorded_at), tick=0)
    feed.release(TID)
    assert feed.delay(TID) == 300
    append(log, ev.EventRetracted(retracted_event_id=second[0].event_id, reason="too long"))
    feed.release(TID)
    assert feed.delay(TID) == 60


def test_the_decider_refuses_the_delay_in_force():
    from given_when_then import then_accepted, then_rejected

    history: list[ev.Event] = [created(), ev.BroadcastDelaySet(seconds=30)]
    then_rejected(history, ev.BroadcastDelaySet(seconds=30), "delay.unchanged", "payload.seconds")
    then_accepted(history, ev.BroadcastDelaySet(seconds=0, reason="live again"))
    then_rejected(
        [created()], ev.BroadcastDelaySet(seconds=0), "delay.unchanged", "payload.seconds"
    )
