"""The edges: event logs (SQLite, Kafka), the command path, the HTTP API, the CLI."""
