"""Pure projections: `evolve(state, event) -> state` folds and `decide(state, command) -> events`.

No Kafka, no clock, no randomness: given the same events, every fold returns the same state."""
