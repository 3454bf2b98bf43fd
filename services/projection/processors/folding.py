"""What every processor's core does around its own fold: a batch of records decoded and
folded, a tournament held at a gap (nothing past it folded) and recovered by re-reading its
partition. The fold of one event and what the touched tournaments give (messages to publish,
endings to send) are each processor's own."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from typing import ClassVar, Generic, TypeVar

from events_schema import Envelope
from services.eventlog.kafka import decode_record
from services.projection.processors.topic_reader import TopicReader
from services.projection.projector import GapDetected

log = logging.getLogger("arbiter.processor")

GAP_RETRY_S = 2.0

#: What the fold gives for the tournaments it touched.
Out = TypeVar("Out")


class FoldingCore(TopicReader, Generic[Out]):
    """A processor's core: subclasses set `held` and `last_recovery` (and TopicReader's
    attributes), and define `_fold_one` (fold one event, adding its tournament to
    `touched`), `_emit` (what the touched tournaments give) and `_seq`."""

    held: dict[str, GapDetected]  # tournament -> first gap
    last_recovery: float
    #: Where the gap warnings go.
    logger: ClassVar[logging.Logger] = log

    def fold(self, records: Iterable[tuple[bytes | None, bytes]]) -> Out:
        """One batch from the agent, as (key, value) records: decode, fold, what the
        tournaments it touched give. A record that cannot be decoded holds its own tournament,
        never the batch."""
        touched: list[str] = []
        for key, raw in records:
            self.stats["events"] += 1
            self._fold_one(decode_record(key, raw), touched)
        self.stats["batches"] += 1
        self.stats["last_fold_at"] = time.time()
        return self._emit(touched)

    def _fold_one(self, env: Envelope, touched: list[str]) -> None:
        raise NotImplementedError

    def _emit(self, touched: list[str]) -> Out:
        raise NotImplementedError

    def _seq(self, tid: str) -> int:
        raise NotImplementedError

    def owns(self, tid: str) -> bool:
        """Whether the tournament's partition is this worker's (by default, every one)."""
        return True

    # -- gaps ------------------------------------------------------------------------------

    def hold(self, tid: str, gap: GapDetected) -> None:
        """Hold the tournament at its first gap: nothing past it is folded until its
        partition is re-read (`recovery_due`, `apply_recovered`)."""
        if tid not in self.held:
            self.held[tid] = gap
            self.stats["gaps"] += 1
            self.logger.warning("gap detected: %s; tournament held, re-reading its partition", gap)

    def recovery_due(self, touched_held: bool = False) -> list[str]:
        if not self.held:
            return []
        if not touched_held and time.monotonic() - self.last_recovery < GAP_RETRY_S:
            return []
        self.last_recovery = time.monotonic()
        return sorted(self.held)

    def apply_recovered(self, tids: list[str], envs: list[Envelope]) -> Out:
        """Fold the held tournaments `tids` again from their partitions' events `envs`
        (`read_tournaments`): each is released, and held again if its gap is still there."""
        for tid in tids:
            self.held.pop(tid, None)
        touched: list[str] = []
        for env in envs:
            if self.owns(env.tournament_id):  # else revoked while it was being read
                self._fold_one(env, touched)  # re-holds a tournament whose gap is still there
        for tid in tids:
            if tid not in self.held:
                self.stats["recovered"] += 1
                self.logger.warning("gap recovered: %s folded to seq %d", tid, self._seq(tid))
        return self._recovered(tids, touched)

    def _recovered(self, tids: list[str], touched: list[str]) -> Out:
        """What the recovered tournaments `tids` give (by default, what the fold touched)."""
        return self._emit(touched)
