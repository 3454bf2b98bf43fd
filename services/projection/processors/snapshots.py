"""Checkpoints of a processor's fold (issue 11 item 2): the records of its snapshot topic.

The store is a compacted Kafka topic per processor (`ProcessorConfig.snapshot_topic`), keyed
by tournament (`t:<id>`) plus one manifest per events partition (`p:<n>`):

- a tournament record holds the tournament's fold state (`StandingsState` and the ids of the
  unreadable records placed at a seq, `Projector.export_tournament`), the events partition it
  lives in, the offset of that partition its state covers (every record below it folded) and
  its seq, and the data last published per projection (and, as every record, the worker
  that wrote it, `owner`, and its consumer group `generation`: written only for a partition
  it owned then; see the package doc, "Many workers");
- a partition manifest, written after the tournament records it names are acknowledged, says
  up to which offset the partition is covered and which tournaments (at which seq) it held
  then. A restore starts the partition there once every tournament it names has a readable
  record at that seq or later (a later one is fine: the events between are re-folded as
  duplicates, by seq); otherwise the partition is rebuilt from offset 0 and status.json says
  why.

Value layout: `ARBSNAP` | format (u16) | fingerprint (32 bytes) | SHA-256 of the rest (32) |
header length (u32) | header (JSON) | state (zlib of a pickle; tournaments only).

The fingerprint is a SHA-256 of the code the state's and the documents' shape depend on
(`projections/`, `events_schema/`, `services/projection/projector.py`, this module) and of the
Python
and pydantic versions: any change there makes every snapshot unusable and the processor
rebuilds once (and then writes new ones). Pickle is used because it is the only fast and
complete round trip of the fold state (dataclasses holding pydantic events, UUIDs, tuples);
it is read only from our own snapshot topic, and only after the format, the fingerprint and
the checksum matched, so a record written by anything else, cut short or damaged is detected
and never unpickled. (Pickle trusts its input: the snapshot topic must be writable by the
processors only, as deploy/README.md's ACLs say.)
"""

from __future__ import annotations

import hashlib
import pickle
import platform
import struct
import zlib
from functools import cache
from pathlib import Path
from typing import Any
from uuid import UUID

import orjson
import pydantic

from projections.standings.state import StandingsState

MAGIC = b"ARBSNAP"
FORMAT = 1
#: A record's header: magic, format, the code's fingerprint, the sha256 of the rest.
HEADER = struct.Struct("!7sH32s32s")
_LEN = struct.Struct("!I")

_ROOT = Path(__file__).resolve().parents[3]
_FINGERPRINTED = ("projections", "events_schema", "services/projection/projector.py", __file__)


class SnapshotUnreadable(Exception):
    """A snapshot record that must not be used; the message says why."""


@cache
def fingerprint() -> bytes:
    h = hashlib.sha256()
    h.update(f"{FORMAT}|{platform.python_version()}|{pydantic.VERSION}".encode())
    files: list[Path] = []
    for name in _FINGERPRINTED:
        path = Path(name) if Path(name).is_absolute() else _ROOT / name
        files.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    for f in files:
        h.update(str(f.relative_to(_ROOT)).encode())
        h.update(b"\0")
        h.update(f.read_bytes())
    return h.digest()


def tournament_key(tid: str) -> bytes:
    return b"t:" + tid.encode()


def partition_key(partition: int) -> bytes:
    return b"p:%d" % partition


def encode(header: dict[str, Any], state: bytes = b"") -> bytes:
    head = orjson.dumps(header)
    rest = _LEN.pack(len(head)) + head + state
    return HEADER.pack(MAGIC, FORMAT, fingerprint(), hashlib.sha256(rest).digest()) + rest


def decode(value: bytes | None) -> tuple[dict[str, Any], bytes]:
    """(header, state bytes) of a record, or SnapshotUnreadable naming why not."""
    if value is None:
        raise SnapshotUnreadable("missing (deleted)")
    if len(value) < HEADER.size + _LEN.size:
        raise SnapshotUnreadable("corrupt (too short)")
    magic, fmt, fp, digest = HEADER.unpack_from(value)
    if magic != MAGIC:
        raise SnapshotUnreadable("corrupt (not a snapshot record)")
    if fmt != FORMAT:
        raise SnapshotUnreadable(f"format {fmt}, this code reads {FORMAT}")
    if fp != fingerprint():
        raise SnapshotUnreadable("written by other code (fingerprint differs)")
    rest = memoryview(value)[HEADER.size :]
    if hashlib.sha256(rest).digest() != digest:
        raise SnapshotUnreadable("corrupt (checksum)")
    (n,) = _LEN.unpack_from(rest)
    try:
        header = orjson.loads(rest[_LEN.size : _LEN.size + n])
    except orjson.JSONDecodeError as exc:
        raise SnapshotUnreadable(f"corrupt (header: {exc})") from None
    if not isinstance(header, dict):
        raise SnapshotUnreadable("corrupt (header)")
    return header, bytes(rest[_LEN.size + n :])


def freeze(state: StandingsState, positioned: list[UUID]) -> bytes:
    return zlib.compress(pickle.dumps((state, positioned), protocol=pickle.HIGHEST_PROTOCOL), 1)


def thaw(blob: bytes) -> tuple[StandingsState, list[UUID]]:
    try:
        state, positioned = pickle.loads(
            zlib.decompress(blob)
        )  # only our own, checked records: see module doc
    except Exception as exc:
        raise SnapshotUnreadable(f"state unreadable: {type(exc).__name__}: {exc}") from None
    if not isinstance(state, StandingsState):
        raise SnapshotUnreadable("state unreadable: not a StandingsState")
    return state, list(positioned)
