"""The aiokafka transport of the processors: a read_committed consumer with a batch path.

Read committed: Faust reads `read_committed` only under `processing_guarantee="exactly_once"`;
the event log is written in transactions (services/eventlog/kafka/writer.py) and a fenced
writer's aborted batch must never be folded. `arbiterkafka://host:port` selects this transport.

The batch path (issue 11 item 1): Faust hands every fetched record to its Conductor one at a
time (`Consumer._drain_messages`: per record two tasks and an `asyncio.wait` for
`wait_first(callback, suspend_flow)`, then a channel queue, an `Event`, the stream's
iterator and an ack into `_acked`/`_acked_index`). Profiled, that path is ~85 % of a
processor's time and caps it at ~5k events/s whatever the fold costs. When the app sets
`app.arbiter_batch_handler` (the processors do, `app.fold_agent`), this consumer instead
awaits the handler once per `getmany` with the records of each partition, and keeps per
partition the offset after the last record the handler returned from: that is what Faust's
committer commits (`_new_offset`), so acks cost nothing per record. Everything else is
Faust's: the group membership and rebalancing, the Fetcher service, flow control
(records fetched while the flow is stopped by a rebalance are dropped and the partitions
re-seek to their committed offsets, as Faust's own `getmany` does), the periodic and
every-N commits (producer flushed first), the monitor's end offsets, the web server.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import Any

from faust.transport import drivers
from faust.transport.consumer import CONSUMER_FETCHING
from faust.transport.drivers import aiokafka as driver
from faust.types import TP

SCHEME = "arbiterkafka"

#: `app.arbiter_batch_handler`: awaited with {TP: [aiokafka ConsumerRecord, ...]} (each list
#: in offset order); the records count as processed when it returns.
BatchHandler = Callable[[Mapping[TP, list[Any]]], Awaitable[None]]


class ReadCommittedConsumerThread(driver.AIOKafkaConsumerThread):
    def _create_worker_consumer(self, transport: Any) -> Any:
        consumer = super()._create_worker_consumer(transport)
        # aiokafka keeps the string until start() builds its Fetcher from it.
        consumer._isolation_level = "read_committed"
        return consumer


class Consumer(driver.Consumer):
    def _new_consumer_thread(self) -> driver.AIOKafkaConsumerThread:
        return ReadCommittedConsumerThread(self, loop=self.loop, beacon=self.beacon)

    def _batch_handler(self) -> BatchHandler | None:
        return getattr(self.app, "arbiter_batch_handler", None)

    def _processed_offsets(self) -> dict[TP, int]:
        found: dict[TP, int] | None = self.__dict__.get("_arbiter_processed")
        if found is None:
            found = self.__dict__["_arbiter_processed"] = {}
        return found

    async def on_partitions_revoked(self, revoked: set[TP]) -> None:
        # Faust commits what was processed while the revocation runs (wait_empty); after
        # it, a revoked partition's offset is another worker's to commit.
        await super().on_partitions_revoked(revoked)
        processed = self._processed_offsets()
        for tp in revoked:
            processed.pop(tp, None)

    # -- committing: the offset after the last record the handler returned from -------------

    def _filter_tps_with_pending_acks(self, topics: Any = None) -> Iterator[TP]:
        if self._batch_handler() is None:
            yield from super()._filter_tps_with_pending_acks(topics)
            return
        for tp in list(self._processed_offsets()):
            if topics is None or tp in topics or tp.topic in topics:
                yield tp

    def _new_offset(self, tp: TP) -> int | None:
        if self._batch_handler() is None:
            return super()._new_offset(tp)
        return self._processed_offsets().get(tp)

    # -- fetching ----------------------------------------------------------------------------

    async def _drain_messages(self, fetcher: Any) -> None:  # pragma: no cover - needs a broker
        handler = self._batch_handler()
        if handler is None:
            await super()._drain_messages(fetcher)
            return
        consumer_should_stop = self._stopped.is_set
        fetcher_should_stop = fetcher._stopped.is_set
        processed = self._processed_offsets()
        try:
            while not (consumer_should_stop() or fetcher_should_stop()):
                self.diag.set_flag(CONSUMER_FETCHING)
                generation = self.app.consumer_generation_id
                records, active = await self._wait_next_records(1.0)
                await asyncio.sleep(0)
                if not records or self.should_stop:
                    continue
                if not self.flow_active:
                    # A rebalance stopped the flow: drop what was fetched, seek back to the
                    # committed offsets (Faust's getmany does the same).
                    try:
                        await self.perform_seek()
                    except Exception as exc:
                        self.log.warning("seek while flow not active failed: %r", exc)
                    continue
                if self.app.consumer_generation_id != generation:
                    # The assignment changed while this fetch was under way. The rebalance's
                    # seek may have come before the fetch returned (aiokafka returns records
                    # from the position current at return), so dropping them alone would
                    # skip them: seek each kept partition back to its first record.
                    assigned = self.assignment()
                    for tp, recs in records.items():
                        if recs and tp in assigned:
                            await self.seek(tp, recs[0].offset)
                    continue
                batch = {
                    tp: recs
                    for tp, recs in records.items()
                    if recs and (active is None or tp in active or tp in self._buffered_partitions)
                }
                if not batch:
                    continue
                for tp in batch:
                    self.app.monitor.track_tp_end_offset(tp, self.highwater(tp))
                await handler(batch)
                count = 0
                for tp, recs in batch.items():
                    last = recs[-1].offset
                    self._read_offset[tp] = last
                    processed[tp] = last + 1
                    count += len(recs)
                self._n_acked += count
                if self._commit_every is not None and self._n_acked >= self._commit_every:
                    self._n_acked = 0
                    await self.commit()
                self.diag.unset_flag(CONSUMER_FETCHING)
        except self.consumer_stopped_errors:
            if self.transport.app.should_stop:
                return
            raise
        except asyncio.CancelledError:
            if self.transport.app.should_stop:
                return
            raise
        finally:
            self.diag.unset_flag(CONSUMER_FETCHING)


class Transport(driver.Transport):
    Consumer = Consumer


def register() -> None:
    drivers.TRANSPORTS.aliases[SCHEME] = f"{__name__}:Transport"
