"""The SSE frames of a publish are encoded once and shared by the connections that receive
them alike (issue 27, item 4: fan-out below the framework), and each connection still gets
exactly its own bytes: what it has not sent, whole or as a patch, `id:` on the last event of
a seq (services/feed/sse.py)."""

from __future__ import annotations

from services.feed import sse
from services.projection.projector import Message

STANDINGS_4 = Message("t1", "standings", 4, b'{"as_of_seq":4}')
TIEBREAKS_4 = Message("t1", "tiebreaks", 4, b'{"as_of_seq":4,"t":1}')
STANDINGS_5 = Message("t1", "standings", 5, b'{"as_of_seq":5}', base_seq=4, patch=b"[]")


def test_connections_that_keep_up_share_one_encoded_frame() -> None:
    # Given two connections that both hold standings@4, and the hub's frame cache
    cache: dict[sse.FrameKey, bytes] = {}
    a, b = {"standings": 4}, {"standings": 4}
    # When standings@5 is framed for each
    first = sse.frame([STANDINGS_5], a, 0, False, cache)
    second = sse.frame([STANDINGS_5], b, 0, False, cache)
    # Then both get the same bytes object, encoded once, as without the cache
    assert first is second
    assert first == sse.frame([STANDINGS_5], {"standings": 4}, 0)
    assert first == b'event: standings\nid: 5\ndata: {"as_of_seq":5}\n\n'
    assert a == b == {"standings": 5}


def test_a_patch_stream_and_a_whole_stream_get_their_own_variant() -> None:
    cache: dict[sse.FrameKey, bytes] = {}
    whole = sse.frame([STANDINGS_5], {"standings": 4}, 0, False, cache)
    patch = sse.frame([STANDINGS_5], {"standings": 4}, 0, True, cache)
    # a patch stream that does not hold the base gets the whole message
    fresh = sse.frame([STANDINGS_5], {}, 0, True, cache)
    assert patch == b"event: patch\nid: 5\ndata: []\n\n"
    assert whole == fresh == b'event: standings\nid: 5\ndata: {"as_of_seq":5}\n\n'


def test_a_connection_behind_gets_only_what_it_lacks_with_id_on_the_last_of_a_seq() -> None:
    cache: dict[sse.FrameKey, bytes] = {}
    both = sse.frame([STANDINGS_4, TIEBREAKS_4], {}, 0, False, cache)
    # one that already sent standings@4 gets tiebreaks@4 alone, not the cached pair
    rest = sse.frame([STANDINGS_4, TIEBREAKS_4], {"standings": 4}, 0, False, cache)
    # and one resumed at Last-Event-ID 4 gets nothing
    none = sse.frame([STANDINGS_4, TIEBREAKS_4], {}, 4, False, cache)
    assert both == (
        b'event: standings\ndata: {"as_of_seq":4}\n\n'
        b'event: tiebreaks\nid: 4\ndata: {"as_of_seq":4,"t":1}\n\n'
    )
    assert rest == b'event: tiebreaks\nid: 4\ndata: {"as_of_seq":4,"t":1}\n\n'
    assert none == b""
