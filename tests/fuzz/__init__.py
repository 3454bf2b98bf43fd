"""Fuzz tests of the HTTP API: a package, so that its conftest.py does not shadow
tests/conftest.py (other tests import from it by name)."""
