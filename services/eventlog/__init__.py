"""The event logs behind one interface (`base.EventLog`): embedded SQLite and Apache Kafka."""
