"""Bounds on everything a client can make Arbiter store, the same on every event log.

Why: an event is immutable and kept forever, so an event that a reader cannot decode (nested
too deep for the JSON parser, an integer outside what SQLite or a JavaScript consumer can
hold, a date that overflows when converted to UTC) or that is too large for Kafka would poison
its stream for good. Every command is checked against these limits before the decider sees
it, and every sealed envelope again before the log commits it (`check_envelope_bytes`).

The defaults (documented in README "Limits"), each overridable by an environment variable
parsed by `Limits.from_env(environ)` (the services' composition roots hand it their
environment: `services.config.limits_from_env`):

- `max_event_bytes` 512 KiB (`ARBITER_MAX_EVENT_BYTES`): one stored envelope, canonical
  bytes. A 5,000-board round's pairings fit; Kafka's `max.message.bytes` is set above it.
- `max_batch_events` 1,000 (`ARBITER_MAX_BATCH_EVENTS`): events in one atomic append.
- `max_batch_bytes` 4 MiB (`ARBITER_MAX_BATCH_BYTES`): one atomic append (one SQLite
  transaction, one Kafka transaction).
- `max_body_bytes` 4 MiB + 64 KiB (`ARBITER_MAX_BODY_BYTES`): an HTTP request body, refused
  before it is parsed.
- `max_depth` 16 (`ARBITER_MAX_DEPTH`): JSON nesting of a request or payload (the deepest
  event payload needs 5; a request adds 4).
- `max_string` 16,384 (`ARBITER_MAX_STRING`): characters in any one string, keys included.
- `max_items` 10,000 (`ARBITER_MAX_ITEMS`): entries in one list or object.
- `max_import_bytes` 64 MiB (`ARBITER_MAX_IMPORT_BYTES`): one file an import reads (`arbiter
  import pgn|sgf|trf`), refused before it is read.
- `max_import_games` 20,000 (`ARBITER_MAX_IMPORT_GAMES`): games one import may hold, refused
  at the first game beyond it (with its line).
- `max_int` 2**53 - 1: integers lie in [-max_int, max_int], exact in every JSON reader
  (JavaScript's safe integers) and in SQLite.
- `earliest`, `latest` 1800-01-01Z, 2200-01-01Z: any datetime (`occurred_at`, dates in
  payloads). Historic events can be entered, and no conversion to UTC overflows.

Floats must be finite (JSON has no NaN or infinity; orjson would store them as null) and
within the same ±(2**53 - 1): the parser reads an integer literal beyond 64 bits as a float,
which would be stored rounded.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from typing import Any, ClassVar

KIB = 1024
MIB = 1024 * KIB


class LimitExceeded(ValueError):
    """A bound was crossed. `rule` is `limits.<name>`, `field` the JSON path of the offending
    value, `status` the HTTP status it maps to (413 for sizes in bytes, 422 otherwise)."""

    def __init__(self, limit: str, field: str, message: str, status: int = 422) -> None:
        super().__init__(f"{field}: {message}")
        self.rule = f"limits.{limit}"
        self.limit = limit
        self.field = field
        self.message = message
        self.status = status

    def as_dict(self) -> dict[str, str]:
        return {"rule": self.rule, "field": self.field, "message": self.message}


@dataclass(frozen=True)
class Limits:
    max_event_bytes: int = 512 * KIB
    max_batch_events: int = 1_000
    max_batch_bytes: int = 4 * MIB
    max_body_bytes: int = 4 * MIB + 64 * KIB
    max_depth: int = 16
    max_string: int = 16_384
    max_items: int = 10_000
    max_import_bytes: int = 64 * MIB
    max_import_games: int = 20_000
    max_int: int = 2**53 - 1
    earliest: datetime = datetime(1800, 1, 1, tzinfo=UTC)
    latest: datetime = datetime(2200, 1, 1, tzinfo=UTC)

    _ENV: ClassVar[dict[str, str]] = {
        "max_event_bytes": "ARBITER_MAX_EVENT_BYTES",
        "max_batch_events": "ARBITER_MAX_BATCH_EVENTS",
        "max_batch_bytes": "ARBITER_MAX_BATCH_BYTES",
        "max_body_bytes": "ARBITER_MAX_BODY_BYTES",
        "max_depth": "ARBITER_MAX_DEPTH",
        "max_string": "ARBITER_MAX_STRING",
        "max_items": "ARBITER_MAX_ITEMS",
        "max_import_bytes": "ARBITER_MAX_IMPORT_BYTES",
        "max_import_games": "ARBITER_MAX_IMPORT_GAMES",
    }

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Limits:
        """The defaults, overridden by the `ARBITER_MAX_*` variables of `env` (positive
        integers)."""
        values: dict[str, Any] = {}
        for f in fields(cls):
            var = cls._ENV.get(f.name)
            if var is None or var not in env:
                continue
            try:
                value = int(env[var])
            except ValueError:
                raise ValueError(f"{var} must be a positive integer, not {env[var]!r}") from None
            if value < 1:
                raise ValueError(f"{var} must be a positive integer, not {value}")
            values[f.name] = value
        return cls(**values)

    # -- structure of a decoded JSON value ----------------------------------------------

    def check_value(self, value: Any, path: str = "payload") -> None:
        """Walk a decoded JSON value (dicts, lists, str, int, float, bool, None) and raise
        `LimitExceeded` naming the first offending path. Iterative: no recursion limit."""
        stack: list[tuple[Any, str, int]] = [(value, path, 1)]
        while stack:
            v, where, depth = stack.pop()
            if isinstance(v, dict):
                self._container(len(v), where, depth)
                for k, item in v.items():
                    if not isinstance(k, str):
                        raise LimitExceeded("key", where, "object keys must be strings")
                    self._string(k, f"{where} (key)")
                    stack.append((item, f"{where}.{k}", depth + 1))
            elif isinstance(v, list | tuple):
                self._container(len(v), where, depth)
                stack.extend((item, f"{where}[{i}]", depth + 1) for i, item in enumerate(v))
            elif isinstance(v, str):
                self._string(v, where)
            elif isinstance(v, bool) or v is None:
                continue
            elif isinstance(v, int):
                if not -self.max_int <= v <= self.max_int:
                    raise LimitExceeded(
                        "int_range",
                        where,
                        f"integer {v} is outside ±{self.max_int} (2**53 - 1, exact in every "
                        "JSON reader)",
                    )
            elif isinstance(v, float):
                if not math.isfinite(v):
                    raise LimitExceeded("float", where, "numbers must be finite")
                if abs(v) > self.max_int:
                    # Also an integer literal beyond 64 bits, which the parser reads as a
                    # float: it would be stored rounded.
                    raise LimitExceeded(
                        "int_range", where, f"number {v!r} is outside ±{self.max_int} (2**53 - 1)"
                    )
            else:
                raise LimitExceeded("type", where, f"{type(v).__name__} is not a JSON value")

    def _container(self, size: int, where: str, depth: int) -> None:
        if depth > self.max_depth:
            raise LimitExceeded(
                "depth", where, f"nested deeper than {self.max_depth} levels (max_depth)"
            )
        if size > self.max_items:
            raise LimitExceeded(
                "items", where, f"{size} entries; at most {self.max_items} (max_items)"
            )

    def _string(self, s: str, where: str) -> None:
        if len(s) > self.max_string:
            raise LimitExceeded(
                "string", where, f"{len(s)} characters; at most {self.max_string} (max_string)"
            )

    def check_datetime(self, value: datetime, where: str) -> None:
        if value.tzinfo is None:
            raise LimitExceeded("datetime", where, "a datetime must carry a timezone")
        try:
            utc = value.astimezone(UTC)
        except OverflowError:
            utc = None
        if utc is None or not self.earliest <= utc < self.latest:
            raise LimitExceeded(
                "datetime_range",
                where,
                f"{value.isoformat()} is outside [{self.earliest:%Y-%m-%d}, "
                f"{self.latest:%Y-%m-%d}) UTC",
            )

    # -- stored bytes ---------------------------------------------------------------------

    def check_envelope_bytes(self, sizes: Iterable[int]) -> None:
        """Sizes of a batch's sealed envelopes, in order: each and their sum bounded."""
        total = 0
        count = 0
        for i, size in enumerate(sizes):
            count += 1
            if size > self.max_event_bytes:
                raise LimitExceeded(
                    "event_bytes",
                    f"commands[{i}]",
                    f"the stored event would be {size} bytes; at most {self.max_event_bytes} "
                    "(max_event_bytes)",
                    status=413,
                )
            total += size
        if count > self.max_batch_events:
            raise LimitExceeded(
                "batch_events",
                "commands",
                f"{count} events in one append; at most {self.max_batch_events} (max_batch_events)",
                status=413,
            )
        if total > self.max_batch_bytes:
            raise LimitExceeded(
                "batch_bytes",
                "commands",
                f"the batch would store {total} bytes; at most {self.max_batch_bytes} "
                "(max_batch_bytes)",
                status=413,
            )


DEFAULT_LIMITS = Limits()
