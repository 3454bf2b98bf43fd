"""Replays in several threads of one process pause the cyclic collector and leave it as it
was, whatever order they end in (services/audit/replay.py `no_cyclic_gc`)."""

from __future__ import annotations

import gc
import threading

from services.audit.replay import no_cyclic_gc


def test_overlapping_replays_leave_the_collector_enabled() -> None:
    assert gc.isenabled()
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: list[bool] = []

    def first() -> None:
        with no_cyclic_gc():
            first_in.set()
            second_in.wait(5)
        first_out.set()

    def second() -> None:
        first_in.wait(5)
        with no_cyclic_gc():
            second_in.set()
            first_out.wait(5)
            seen.append(gc.isenabled())  # the first replay ended: still paused for this one

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == [False]
    assert gc.isenabled()


def test_a_collector_disabled_before_stays_disabled() -> None:
    gc.disable()
    try:
        with no_cyclic_gc():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
