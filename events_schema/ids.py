"""Identifier types shared by the envelope, the events and the commands."""

from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints

#: A stream id: a tournament or a series. Used as the Kafka key and in URLs, so it is kept
#: to a safe alphabet.
StreamId = Annotated[
    str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", strict=True)
]
PlayerId = Annotated[
    str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", strict=True)
]
GameId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$")]
Sha256Hex = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]

GENESIS_HASH = "0" * 64
