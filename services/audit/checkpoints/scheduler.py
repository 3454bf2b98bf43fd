"""Scheduled signing: a daemon thread that signs every stream that moved, every
`ARBITER_CHECKPOINT_EVERY` seconds, started and stopped with the API server."""

from __future__ import annotations

import logging
import threading
from typing import Any

from services.audit.checkpoints.signing import CheckpointService, DueResult
from services.config import CHECKPOINT_EVERY

log = logging.getLogger("arbiter.checkpoints")

#: Seconds between scheduled signing runs (ARBITER_CHECKPOINT_EVERY, read by the composition
#: root: `services.config.checkpoint_every`).
DEFAULT_EVERY = CHECKPOINT_EVERY


class CheckpointScheduler:
    """A daemon thread that runs `sign_due` at once and then every `interval` seconds until
    `stop()`; a failed run is logged and the next one tried."""

    thread_name = "arbiter-checkpoints"

    def __init__(
        self,
        service: CheckpointService,
        interval: float = DEFAULT_EVERY,
        every_events: int = 1,
        every_seconds: float = 0.0,
    ) -> None:
        self.service, self.interval = service, interval
        self.every_events, self.every_seconds = every_events, every_seconds
        self.runs = 0
        self.errors = 0
        self.last: DueResult | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> CheckpointScheduler:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def tick(self) -> DueResult | None:
        try:
            result = self.service.sign_due(self.every_events, self.every_seconds)
        except Exception:  # keep the server up; say what went wrong, try again next time
            self.errors += 1
            log.exception("checkpoints: scheduled signing failed")
            return None
        self.runs += 1
        self.last = result
        for cp in result.signed:
            log.info("checkpoint %s#%s %s signed (key %s)", cp.tournament_id, cp.seq,
                     cp.head_hash, cp.key_id)  # fmt: skip
        for tid, exc in result.refused.items():
            log.error("checkpoint of %s refused: %s: %s", tid, exc.rule, exc)
        return result

    def _run(self) -> None:
        while not self._stop.is_set():
            self.tick()
            if self._stop.wait(self.interval):
                return


def attach_scheduler(app: Any, every: float = DEFAULT_EVERY) -> CheckpointScheduler | None:
    """The serve hook: give an API app (`services.api.app.create_app`) its checkpoint service
    (made from the app's settings, shared with its checkpoint routes) and, unless `every`
    (seconds, ARBITER_CHECKPOINT_EVERY) is 0 or less, scheduled signing of its log, started
    and stopped with the server (the app's startup and shutdown). Returns the scheduler (None
    when disabled)."""
    service = CheckpointService.from_settings(app.state.log, app.state.settings)
    app.state.checkpoints = service
    if every <= 0:
        return None
    scheduler = CheckpointScheduler(service, every)
    app.state.checkpoint_scheduler = scheduler
    app.router.on_startup.append(scheduler.start)
    app.router.on_shutdown.append(scheduler.stop)
    return scheduler
