"""The tail of the Kafka log: a `Subscription` reading every partition of the events topic
from its end (or its beginning), isolation `read_committed`."""

from __future__ import annotations

from kafka import KafkaConsumer, TopicPartition
from kafka.errors import KafkaError

from events_schema import Envelope
from services.eventlog.base import Subscription
from services.eventlog.kafka.clients import KafkaUnavailable, client_options, decode_record


class KafkaSubscription(Subscription):
    def __init__(
        self,
        bootstrap: str,
        client_id: str,
        tps: list[TopicPartition],
        timeout_s: float,
        from_beginning: bool,
    ) -> None:
        super().__init__()
        self.consumer = KafkaConsumer(
            **client_options(bootstrap, f"{client_id}-tail", timeout_s),
            group_id=None,
            enable_auto_commit=False,
            isolation_level="read_committed",
            fetch_max_wait_ms=10,
        )
        self.consumer.assign(tps)
        if from_beginning:
            self.consumer.seek_to_beginning(*tps)
        else:
            try:
                ends = self.consumer.end_offsets(tps)
            except KafkaError as exc:
                self.consumer.close()
                raise KafkaUnavailable(f"kafka at {bootstrap}: tail: {exc}") from exc
            for tp in tps:
                self.consumer.seek(tp, ends[tp])

    def poll(self, timeout: float = 1.0, max_events: int = 10_000) -> list[Envelope]:
        batches = self.consumer.poll(timeout_ms=int(timeout * 1000), max_records=max_events)
        return [decode_record(r.key, r.value) for recs in batches.values() for r in recs]

    def close(self) -> None:
        super().close()
        self.consumer.close()
