"""Server-Sent Events framing for projection messages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from projections.names import PROJECTIONS
from services.projection.projector import Message

#: Encoded frames kept per cache (one per hub) before it is cleared.
FRAME_CACHE = 256

FrameKey = tuple[tuple[str, str, int, bool, int], ...]


def frame(
    messages: Sequence[Message],
    sent: dict[str, int],
    floor: int,
    patches: bool = False,
    cache: dict[FrameKey, bytes] | None = None,
) -> bytes:
    """The events for `messages` that this connection has not sent yet, in order.

    A message is sent only if its `as_of_seq` is above `floor` (the client's Last-Event-ID) and
    above what this connection already sent for that projection, so a (projection, as_of_seq)
    is never sent twice on one connection, and a projection never goes backwards. `sent` is
    updated.

    `id:` (= as_of_seq) is written on the last event of each run of events with the same
    as_of_seq: the client's last event id only moves once every projection that changed at
    that seq has arrived, so a connection dropped in the middle of a seq resumes from the seq
    before and loses nothing.

    `patches` (a `?patches=true` stream): a message whose patch applies to the version this
    connection last sent of its projection (`base_seq`) goes as `event: patch` with the patch
    (`services.feed.patch`); any other goes whole.

    `cache` (the hub's, `FeedHub.frames`): the bytes of each run of events already encoded
    for another connection, by what they are made of; the connections of a tournament that
    keep up receive the same messages with the same variant (whole or patch), so a publish is
    encoded once and the one `bytes` object goes to every subscriber (issue 27, item 4).
    """
    todo: list[tuple[Message, bool]] = []
    for m in messages:
        last = sent.get(m.projection, 0)
        if m.as_of_seq > max(floor, last):
            as_patch = patches and m.patch is not None and m.base_seq == last and last > 0
            sent[m.projection] = m.as_of_seq
            todo.append((m, as_patch))
    if not todo:
        return b""
    if cache is None:
        return _encode(todo)
    key = tuple(
        (m.tournament_id, m.projection, m.as_of_seq, as_patch, m.base_seq) for m, as_patch in todo
    )
    out = cache.get(key)
    if out is None:
        if len(cache) >= FRAME_CACHE:
            cache.clear()
        out = cache[key] = _encode(todo)
    return out


def _encode(todo: list[tuple[Message, bool]]) -> bytes:
    out = bytearray()
    for i, (m, as_patch) in enumerate(todo):
        out += b"event: patch\n" if as_patch else b"event: " + m.projection.encode() + b"\n"
        if i + 1 == len(todo) or todo[i + 1][0].as_of_seq != m.as_of_seq:
            out += b"id: %d\n" % m.as_of_seq
        out += b"data: " + (m.patch if as_patch and m.patch else m.body) + b"\n\n"
    return bytes(out)


KEEPALIVE = b": keep-alive\n\n"


def held_frame(held: dict[str, Any] | None) -> bytes:
    """`event: held` (data: why) when the tournament's projections stop being published,
    `event: held` with data `null` when they resume."""
    return b"event: held\ndata: " + orjson.dumps(held) + b"\n\n"


def bounded(changes: list[Message], max_backlog: int) -> list[Message]:
    """`changes`, or, when their bodies exceed `max_backlog` bytes (a reader that fell far
    behind), only the newest of each projection among them (a state transfer: nothing newer
    is lost, intermediate versions are skipped, as when a reader falls behind the history)."""
    if len(changes) <= len(PROJECTIONS) or sum(len(m.body) for m in changes) <= max_backlog:
        return changes
    newest: dict[str, Message] = {}
    for m in changes:
        newest[m.projection] = m
    return sorted(newest.values(), key=lambda m: (m.as_of_seq, _rank(m.projection)))


def _rank(projection: str) -> int:
    return PROJECTIONS.index(projection) if projection in PROJECTIONS else len(PROJECTIONS)
