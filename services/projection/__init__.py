"""Events in, documents out: the projector, the embedded runner and the Kafka processors."""
