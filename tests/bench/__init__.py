"""Event-log benchmark: `python -m tests.bench [--quick] [--events N] [--skip-kafka]`.

Prints one JSON document to stdout (progress goes to stderr). The Kafka part runs when
`KAFKA_BOOTSTRAP` is set (see deploy/kafka/start). The code lives in `tests/bench/runner.py`.
"""
