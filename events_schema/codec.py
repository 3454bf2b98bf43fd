"""The one codec: orjson, canonical (sorted keys), UTF-8 bytes.

Every byte that is hashed, stored or published goes through `dumps`, so two processes that
serialise the same value produce the same bytes (replay is deterministic to the byte).
"""

from __future__ import annotations

from typing import Any

import orjson

_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_UTC_Z | orjson.OPT_NAIVE_UTC


def dumps(value: Any) -> bytes:
    """Canonical JSON bytes: keys sorted, UTC datetimes with a trailing Z, no whitespace."""
    return orjson.dumps(value, option=_OPTIONS)


def loads(data: bytes | bytearray | memoryview | str) -> Any:
    return orjson.loads(data)
