"""Following a source (`follow`): read it, poll the relay, wait `every` seconds; a source
that keeps failing is waited for longer each time (exponential back-off, `every` × 2ⁿ after
the n-th failure in a row, capped at `cap`), and polled at the usual pace again once it
answers. The sleeper is injected (tests observe the back-off without waiting)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from services.relay.relay import PollReport, Relay
from services.relay.sources import Source, SourceError


@dataclass
class Backoff:
    """The wait before the next read: `every`, or `every` × 2ⁿ (at most `cap`) after n
    failures in a row."""

    every: float
    cap: float = 60.0
    failures: int = 0

    def after(self, ok: bool) -> float:
        if ok:
            self.failures = 0
            return self.every
        self.failures += 1
        return float(min(self.cap, self.every * 2.0**self.failures))


def poll_once(relay: Relay, source: Source) -> PollReport | None:
    """One read and poll: the report, None when the source has not changed;
    `SourceError` when it could not be read."""
    text = source.read()
    if text is None:
        return None
    return relay.poll(text)


def follow(
    relay: Relay,
    source: Source,
    *,
    every: float,
    cap: float = 60.0,
    polls: int | None = None,
    sleep: Callable[[float], None] = time.sleep,
    on_poll: Callable[[PollReport | None, str | None], None] | None = None,
) -> None:
    """Poll `source` into `relay` until `polls` reads were made (None: for ever), calling
    `on_poll(report, error)` after each."""
    backoff = Backoff(every, cap)
    n = 0
    while polls is None or n < polls:
        n += 1
        try:
            report, error = poll_once(relay, source), None
        except SourceError as exc:
            report, error = None, str(exc)
        if on_poll is not None:
            on_poll(report, error)
        if polls is not None and n >= polls:
            break
        sleep(backoff.after(error is None))
