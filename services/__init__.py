"""The edges, one folder per role: eventlog (SQLite, Kafka), commands (the command service and
use cases), projection (projector, embedded runner, processors), feed (hub, SSE, page),
interchange (PGN, SGF, TRF), audit (replay, checkpoints), api (HTTP) and cli (`arbiter`)."""
