"""The HTTP API: append commands, read events."""
