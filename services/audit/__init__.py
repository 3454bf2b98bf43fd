"""Looking back: replay to any point, diff, verify the chain, signed checkpoints."""
