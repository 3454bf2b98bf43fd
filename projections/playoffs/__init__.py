"""Playoff state machines: each a pure function of the tournament's standings fold."""
