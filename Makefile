.PHONY: demo test test-fast bench kafka-start kafka-stop serve

demo:  ## the main job: a small tournament on the embedded log, to standings
	@scripts/bootstrap && .venv/bin/arbiter demo

test:  ## every check CI runs, with a real Kafka broker started and stopped
	@scripts/test

test-fast:  ## the quick loop (under 2 minutes): every test but the slow ones, no broker, two workers
	@scripts/bootstrap && .venv/bin/python -m pytest -q -n 2 -m "not slow and not kafka"

bench:  ## benchmarks (JSON); set KAFKA_BOOTSTRAP for the Kafka part
	@scripts/bootstrap && .venv/bin/python -m tests.bench

kafka-start:
	@deploy/kafka/start

kafka-stop:
	@deploy/kafka/stop

serve:
	@scripts/bootstrap && .venv/bin/arbiter serve
