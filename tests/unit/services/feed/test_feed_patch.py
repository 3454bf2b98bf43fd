"""Feed patches (`services.feed.patch`, `?patches=true` streams): the operations are RFC 6902
and exact (checked by applying them with python-json-patch, an independent implementation),
small where one thing changed, and sent only where the client holds their base."""

from __future__ import annotations

import asyncio
import copy

import jsonpatch
from hypothesis import given, settings
from hypothesis import strategies as st

from events_schema.codec import dumps, loads
from events_schema.documents import DOCUMENT_VERSION, SseMessages
from services.feed import sse
from services.feed.hub import FeedHub
from services.feed.patch import apply, diff, patch_message
from services.projection.projector import Message

# JSON without booleans: Python's == takes 1 for true, so a diff of those is checked at
# publication instead (`patch_message`, test below).
_leaf = st.none() | st.integers(-5, 5) | st.text("ab/~", max_size=3)
_json = st.recursive(
    _leaf,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["a", "b", "/", "~", "player_id", "x~1"]), inner, max_size=4
        )
    ),
    max_leaves=20,
)
_any_json = st.recursive(
    _leaf | st.booleans(),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "id"]), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=400)
@given(_json, _json)
def test_diff_applied_by_an_independent_rfc6902_library_gives_the_new_value(a, b):
    ops = diff(a, b)
    assert dumps(jsonpatch.apply_patch(a, ops)) == dumps(b)
    assert dumps(apply(copy.deepcopy(a), ops)) == dumps(b)


@settings(max_examples=300)
@given(_any_json, _any_json)
def test_a_patch_is_published_only_when_it_rebuilds_the_message_byte_for_byte(a, b):
    old = {
        "as_of_seq": 1,
        "data": a,
        "projection": "games",
        "tournament_id": "t",
        "version": DOCUMENT_VERSION,
    }
    new = {**old, "as_of_seq": 2, "data": b}
    parsed, body = patch_message(copy.deepcopy(old), dumps(new))
    assert dumps(parsed) == dumps(new)
    if body is not None:
        patch = loads(body)
        assert patch["base_seq"] == 1 and patch["as_of_seq"] == 2
        assert dumps(jsonpatch.apply_patch(old, patch["ops"])) == dumps(new)
        assert len(body) < len(dumps(new))


def test_a_value_that_turns_from_1_to_true_goes_whole():
    old = {
        "as_of_seq": 1,
        "data": {"x": [1] * 40},
        "projection": "games",
        "version": DOCUMENT_VERSION,
    }
    new = {**old, "as_of_seq": 2, "data": {"x": [True] + [1] * 39}}
    _, body = patch_message(copy.deepcopy(old), dumps(new))
    assert body is None


def _board(i: int, fen: str = "startpos") -> dict:
    return {
        "board": i + 1,
        "game_id": f"r4-b{i + 1}",
        "white": {"player_id": f"w{i}", "name": f"White {i}", "rating": 2000 + i},
        "black": {"player_id": f"b{i}", "name": f"Black {i}", "rating": 2000 - i},
        "fen": fen,
        "last_move": None,
        "clocks": {"white_ms": 5_400_000, "black_ms": 5_400_000},
        "plies": 0,
        "status": "live",
    }


def _games(seq: int, boards: list[dict]) -> dict:
    return {
        "as_of_seq": seq,
        "data": {"pairings": boards, "round": 4, "byes": []},
        "projection": "games",
        "tournament_id": "open",
        "version": DOCUMENT_VERSION,
    }


def test_a_move_on_one_board_of_1000_patches_that_board_only():
    boards = [_board(i) for i in range(1000)]
    old = _games(10, boards)
    moved = copy.deepcopy(boards)
    moved[500].update(fen="after e4", last_move="e2e4", plies=1)
    moved[500]["clocks"]["white_ms"] = 5_399_000
    new_body = dumps(_games(11, moved))
    _, body = patch_message(copy.deepcopy(old), new_body)
    assert body is not None
    patch = loads(body)
    assert sorted(op["path"] for op in patch["ops"]) == [
        "/as_of_seq",
        "/data/pairings/500/clocks/white_ms",
        "/data/pairings/500/fen",
        "/data/pairings/500/last_move",
        "/data/pairings/500/plies",
    ]
    assert len(body) * 500 < len(new_body)  # about 300 bytes against 190 KB
    SseMessages.model_validate({"message": {"event": "patch", "id": 11, "data": patch}})


@settings(max_examples=300)
@given(
    st.permutations(range(8)),
    st.sets(st.integers(0, 7)),
    st.lists(st.integers(8, 11), unique=True),
    st.lists(st.integers(0, 10)),
)
def test_rows_reordered_dropped_and_added_patch_exactly(order, dropped, added, where):
    old = [{"player_id": f"p{i}", "place": i + 1, "score": i % 3} for i in range(8)]
    new = [{**old[i], "score": 5} if i % 2 else old[i] for i in order if i not in dropped]
    for n, pid in enumerate(added):
        at = where[n] % (len(new) + 1) if n < len(where) else len(new)
        new.insert(at, {"player_id": f"p{pid}", "place": 0, "score": 1})
    for place, row in enumerate(new, 1):
        row["place"] = place
    ops = diff({"rows": old}, {"rows": new})
    assert dumps(jsonpatch.apply_patch({"rows": old}, ops)) == dumps({"rows": new})


def test_a_player_who_climbs_costs_one_row_and_the_place_numbers_of_the_others():
    rows = [{"player_id": f"p{i}", "place": i + 1, "name": "x" * 40} for i in range(20)]
    climbed = [rows[15], *rows[:15], *rows[16:]]
    climbed = [{**r, "place": i + 1} for i, r in enumerate(climbed)]
    ops = diff({"rows": rows}, {"rows": climbed})
    assert ops[:2] == [
        {"op": "remove", "path": "/rows/15"},
        {"op": "add", "path": "/rows/0", "value": climbed[0]},
    ]
    assert [op["path"] for op in ops[2:]] == [f"/rows/{i}/place" for i in range(1, 16)]


def test_elements_without_ids_are_diffed_index_by_index_and_with_other_ids_replaced():
    rows = [{"name": p, "place": i + 1, "score": 2} for i, p in enumerate("abcd")]
    swapped = [rows[0], {**rows[2], "place": 2, "score": 3}, {**rows[1], "place": 3}, rows[3]]
    ops = diff({"rows": rows}, {"rows": swapped})
    assert [op["path"] for op in ops] == [
        "/rows/1/name",
        "/rows/1/score",
        "/rows/2/name",
    ]
    boards = [{"game_id": g, "fen": "x"} for g in "ab"]
    ops = diff(boards, [boards[0], {"game_id": "c", "fen": "x"}])
    assert ops == [
        {"op": "remove", "path": "/1"},
        {"op": "add", "path": "/1", "value": {"game_id": "c", "fen": "x"}},
    ]


def test_keys_with_slash_and_tilde_are_escaped():
    ops = diff({"a/b": 1, "c~d": 1}, {"a/b": 2, "c~d": 2})
    assert [op["path"] for op in ops] == ["/a~1b", "/c~0d"]


def _msg(seq: int, doc: dict, name: str = "games") -> Message:
    return Message("open", name, seq, dumps({**doc, "as_of_seq": seq}))


def test_frame_sends_a_patch_only_on_the_version_the_connection_holds():
    boards = [_board(i) for i in range(50)]
    v1, v2, v3 = (copy.deepcopy(_games(0, boards)) for _ in range(3))
    v2["data"]["pairings"][3]["fen"] = "x"
    v3["data"]["pairings"][3]["fen"] = "y"
    m1 = _msg(1, v1)
    _, p2 = patch_message(loads(m1.body), dumps({**v2, "as_of_seq": 2}))
    m2 = Message("open", "games", 2, dumps({**v2, "as_of_seq": 2}), base_seq=1, patch=p2)
    m3_body = dumps({**v3, "as_of_seq": 3})
    _, p3 = patch_message(loads(m2.body), m3_body)
    m3 = Message("open", "games", 3, m3_body, base_seq=2, patch=p3)
    # A connection that holds version 1 gets 2 and 3 as patches.
    sent: dict[str, int] = {}
    assert sse.frame([m1], sent, 0, patches=True).startswith(b"event: games\n")
    out = sse.frame([m2, m3], sent, 0, patches=True)
    assert out.count(b"event: patch\n") == 2 and b"event: games" not in out
    # One that skipped version 2 (a state transfer) gets 3 whole; without the option, whole.
    sent = {"games": 1}
    assert sse.frame([m3], sent, 0, patches=True).startswith(b"event: games\nid: 3\n")
    assert b"event: patch" not in sse.frame([m2, m3], {"games": 1}, 0)


def test_the_hub_computes_patches_only_for_a_watched_tournament_with_a_patches_stream():
    boards = [_board(i) for i in range(50)]
    v = [copy.deepcopy(_games(0, boards)) for _ in range(4)]
    for i, d in enumerate(v):
        d["data"]["pairings"][7]["plies"] = i
    hub = FeedHub()

    async def main() -> list[Message]:
        hub.publish([_msg(1, v[0])])
        hub.publish([_msg(2, v[1])])  # no stream: stored as it is
        assert hub.latest("open", "games").patch is None
        with hub.watch("open") as plain:
            hub.publish([_msg(3, v[2])])  # a stream without the option: still none
            assert hub.latest("open", "games").patch is None
            with hub.watch("open", patches=True):
                hub.publish([_msg(4, v[3])])
                latest = hub.latest("open", "games")
                assert hub._parsed  # the parsed version the next patch is diffed against
            assert not hub._parsed  # the last patches stream left: dropped
            plain.close()
        return [latest]

    (m4,) = asyncio.run(main())
    assert m4.base_seq == 3 and m4.patch is not None
    ops = loads(m4.patch)["ops"]
    rebuilt = jsonpatch.apply_patch(loads(_msg(3, v[2]).body), ops)
    assert dumps(rebuilt) == m4.body
