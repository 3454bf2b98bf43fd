"""The `arbiter` command line."""
