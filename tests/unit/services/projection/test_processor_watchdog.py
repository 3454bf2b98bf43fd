"""The processor's stall watchdog: restart only when the events topic grew and nothing was
folded since, for longer than `stall_after` (a Faust consumer that never resumed)."""

from __future__ import annotations

from services.projection.processors.config import ProcessorConfig
from services.projection.processors.core import ProcessorCore


def _core(stall_after: float = 20.0) -> ProcessorCore:
    return ProcessorCore(ProcessorConfig("standings", stall_after=stall_after))


def test_an_idle_topic_is_not_a_stall():
    core = _core()
    assert not core.stalled(100, now=1000.0)  # first look
    assert not core.stalled(100, now=1100.0)  # nothing new for 100 s: idle, not stalled


def test_growth_followed_by_a_fold_is_not_a_stall():
    core = _core()
    core.stalled(100, now=1000.0)
    assert not core.stalled(120, now=1005.0)  # grew
    core.stats["last_fold_at"] = 1006.0  # the agent folded the new events
    assert not core.stalled(120, now=1100.0)


def test_growth_without_a_fold_is_a_stall_after_the_limit():
    core = _core()
    core.stalled(100, now=1000.0)
    core.stats["last_fold_at"] = 999.0
    assert not core.stalled(120, now=1005.0)  # grew at 1005
    assert not core.stalled(120, now=1020.0)  # 15 s: not yet
    assert core.stalled(120, now=1026.0)  # 21 s without a fold


def test_the_watchdog_can_be_disabled():
    core = _core(stall_after=0)
    core.stalled(100, now=1000.0)
    assert not core.stalled(120, now=1005.0)
    assert not core.stalled(120, now=5000.0)


def test_growth_before_the_first_look_counts_from_the_baseline_taken_at_start(monkeypatch):
    # The broker restarted a moment after the start: the watchdog's first successful look
    # came after the topic had grown (CI run of 2026-11-24: the consumer never resumed and
    # no restart followed). The baseline taken before the rebuild sees that growth.
    core = _core()
    monkeypatch.setattr(core, "events_end_total", lambda: 100)
    core.watch_from_here()
    assert not core.stalled(150, now=1000.0)  # first look after the restart: grew
    assert not core.stalled(150, now=1015.0)
    assert core.stalled(150, now=1021.0)


def test_without_a_baseline_the_first_look_is_only_a_baseline():
    core = _core()
    assert not core.stalled(150, now=1000.0)
    assert not core.stalled(150, now=1100.0)
