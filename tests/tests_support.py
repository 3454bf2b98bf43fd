"""Shared test constants that are not builders."""

from events_schema import Actor

ADMIN_ACTOR = Actor(id="admin-test", role="admin")
