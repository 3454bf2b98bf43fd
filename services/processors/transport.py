"""The aiokafka transport with a read_committed consumer.

Faust reads `read_committed` only under `processing_guarantee="exactly_once"`; the event log
is written in transactions (services/eventlog/kafka.py) and a fenced writer's aborted batch
must never be folded. `arbiterkafka://host:port` selects this transport.
"""

from __future__ import annotations

from typing import Any

from faust.transport import drivers
from faust.transport.drivers import aiokafka as driver

SCHEME = "arbiterkafka"


class ReadCommittedConsumerThread(driver.AIOKafkaConsumerThread):
    def _create_worker_consumer(self, transport: Any) -> Any:
        consumer = super()._create_worker_consumer(transport)
        # aiokafka keeps the string until start() builds its Fetcher from it.
        consumer._isolation_level = "read_committed"
        return consumer


class Consumer(driver.Consumer):
    def _new_consumer_thread(self) -> driver.AIOKafkaConsumerThread:
        return ReadCommittedConsumerThread(self, loop=self.loop, beacon=self.beacon)


class Transport(driver.Transport):
    Consumer = Consumer


def register() -> None:
    drivers.TRANSPORTS.aliases[SCHEME] = f"{__name__}:Transport"
