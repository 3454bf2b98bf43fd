"""Patches between two versions of a projection message: RFC 6902 JSON Patch operations that
turn the previous message (as the client holds it, parsed) into the next one.

A stream opened with `?patches=1` gets, once a projection's full message was sent on the
connection, each later version of it as an `event: patch` (`PatchData`: the projection, the
`base_seq` it applies to, the new `as_of_seq`, the `ops`), when that is smaller than the full
message. Applying the ops to the message with `as_of_seq == base_seq` gives the new message
exactly (re-encoded canonically, the same bytes as the full message). A live round of a large
open is the case this is for: one move changes one board of the games document, which is
about 550 bytes per board (550 KB for 1,000 boards).

Only `add`, `remove` and `replace` are produced:
- objects: a key that went is removed, a new key added, a changed value diffed again when both
  sides are objects, or lists (below), else replaced;
- lists of things with ids (`_IDS`: standings rows, crosstable lines, boards) whose order
  changed: the longest run that kept its order stays, the others are removed and added at
  their new place, then each thing that stayed is diffed (a player who climbs 15 places is
  one row and 15 place numbers);
- other lists: compared index by index over the common length, then the tail added (at
  `/-`) or removed (from the end); an element is diffed again only when it is the same thing
  on both sides (its id key is equal or absent), else replaced whole.
Equal subtrees are skipped by one C-level `==`, so the cost is the changed parts, not the
document.

Written here rather than with python-json-patch's `make_patch` (used by the tests to apply
the patches, as an independent check): `make_patch` walks every value of both documents in
Python (about 30 ms for a 1,000-board games document, this one about 1 ms), and it emits
`move` operations that a client must then implement too.
"""

from __future__ import annotations

import bisect
from typing import Any

from events_schema.codec import dumps, loads

# Keys that name what a list element is: two elements with different values are different
# things (replaced whole, not diffed field by field).
_IDS = ("player_id", "game_id", "id")


def diff(old: Any, new: Any) -> list[dict[str, Any]]:
    """The RFC 6902 operations that turn `old` into `new` (both JSON values)."""
    ops: list[dict[str, Any]] = []
    _diff(old, new, "", ops)
    return ops


def pointer(path: str, key: str | int) -> str:
    """`path` with one more RFC 6901 reference token (`~` and `/` escaped)."""
    if isinstance(key, int):
        return f"{path}/{key}"
    return path + "/" + key.replace("~", "~0").replace("/", "~1")


def _diff(old: Any, new: Any, path: str, ops: list[dict[str, Any]]) -> None:
    if old == new and type(old) is type(new):  # 1 == True and 1 == 1.0: not the same JSON
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key in old:
            if key not in new:
                ops.append({"op": "remove", "path": pointer(path, key)})
        for key, value in new.items():
            if key in old:
                _diff(old[key], value, pointer(path, key), ops)
            else:
                ops.append({"op": "add", "path": pointer(path, key), "value": value})
        return
    if isinstance(old, list) and isinstance(new, list):
        key = _id_key(old, new)
        if key is not None:
            _diff_keyed(old, new, key, path, ops)
            return
        common = min(len(old), len(new))
        for i in range(common):
            a, b = old[i], new[i]
            if a == b and type(a) is type(b):
                continue
            if _same_thing(a, b):
                _diff(a, b, pointer(path, i), ops)
            else:
                ops.append({"op": "replace", "path": pointer(path, i), "value": b})
        for value in new[common:]:
            ops.append({"op": "add", "path": f"{path}/-", "value": value})
        for i in range(len(old) - 1, common - 1, -1):
            ops.append({"op": "remove", "path": pointer(path, i)})
        return
    ops.append({"op": "replace", "path": path, "value": new})


def _id_key(old: list[Any], new: list[Any]) -> str | None:
    """The id key (`_IDS`) that every element of both lists has, unique within each list,
    when their elements are not already in the same order; else None."""
    if not old or not new or not isinstance(old[0], dict) or not isinstance(new[0], dict):
        return None
    key = next((k for k in _IDS if k in old[0]), None)
    if key is None:
        return None
    ids_old: list[Any] = []
    ids_new: list[Any] = []
    for items, ids in ((old, ids_old), (new, ids_new)):
        for x in items:
            if not isinstance(x, dict) or key not in x or isinstance(x[key], dict | list):
                return None
            ids.append(x[key])
        if len(set(ids)) != len(ids):
            return None
    return None if ids_old == ids_new else key


def _diff_keyed(
    old: list[Any], new: list[Any], key: str, path: str, ops: list[dict[str, Any]]
) -> None:
    """Lists of things with ids whose order changed (a standings row moving up or down): the
    things that keep their relative order stay (the longest such run, by patience sorting),
    the others are removed and added at their new place, then each kept thing is diffed. A
    player moving 15 places costs one row and 15 place numbers, not 15 rows."""
    where = {x[key]: i for i, x in enumerate(old)}
    olds = [where.get(x[key], -1) for x in new]  # the old index of each new element
    kept = _increasing_run([i for i in olds if i >= 0])
    for i in range(len(old) - 1, -1, -1):
        if i not in kept:
            ops.append({"op": "remove", "path": pointer(path, i)})
    for j, i in enumerate(olds):
        if i not in kept:
            ops.append({"op": "add", "path": pointer(path, j), "value": new[j]})
    for j, i in enumerate(olds):
        if i in kept:
            _diff(old[i], new[j], pointer(path, j), ops)


def _increasing_run(seq: list[int]) -> set[int]:
    """The values of a longest strictly increasing subsequence of `seq` (O(n log n))."""
    tails: list[int] = []  # tails[k]: index in seq of the smallest tail of a run of k + 1
    values: list[int] = []  # values[k] = seq[tails[k]]
    back: list[int] = []  # back[i]: index in seq of the element before seq[i] in its run
    for i, v in enumerate(seq):
        k = bisect.bisect_left(values, v)
        back.append(tails[k - 1] if k else -1)
        if k == len(tails):
            tails.append(i)
            values.append(v)
        else:
            tails[k], values[k] = i, v
    out: set[int] = set()
    i = tails[-1] if tails else -1
    while i >= 0:
        out.add(seq[i])
        i = back[i]
    return out


def _same_thing(a: Any, b: Any) -> bool:
    """Whether two list elements are versions of one thing (diffed) or two things (replaced)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return all(a.get(k) == b.get(k) for k in _IDS)
    if isinstance(a, list) and isinstance(b, list):
        return True
    return a == b and type(a) is type(b)


def patch_message(held: Any, new_body: bytes) -> tuple[Any, bytes | None]:
    """The message `new_body`, parsed, and the body of its `event: patch` against `held` (the
    parsed message the client holds), or None when the full message is as small, or when the
    ops, applied to `held`, would not give `new_body` byte for byte (a value whose JSON type
    changed where Python's `==` does not see it, e.g. 1 and true): then the full message goes.
    `held` is used up (the ops are applied to it to check them): keep the returned message."""
    new = loads(new_body)
    ops = diff(held, new)
    body = dumps(
        {
            "projection": new.get("projection"),
            "tournament_id": new.get("tournament_id"),
            "version": new.get("version"),
            "base_seq": held.get("as_of_seq"),
            "as_of_seq": new.get("as_of_seq"),
            "ops": ops,
        }
    )
    if len(body) >= len(new_body):
        return new, None
    try:
        exact = dumps(apply(held, ops)) == new_body
    except (KeyError, IndexError, TypeError, ValueError):
        exact = False
    return new, body if exact else None


def apply(doc: Any, ops: list[dict[str, Any]]) -> Any:
    """`doc` with the `add`, `remove` and `replace` operations applied (in place where it is a
    container; the result is returned, as a whole-document `replace` makes a new one)."""
    for op in ops:
        tokens = [t.replace("~1", "/").replace("~0", "~") for t in op["path"].split("/")[1:]]
        if not tokens:
            if op["op"] == "remove":
                raise ValueError("cannot remove the whole document")
            doc = op["value"]
            continue
        parent = doc
        for t in tokens[:-1]:
            parent = parent[int(t)] if isinstance(parent, list) else parent[t]
        last = tokens[-1]
        if isinstance(parent, list):
            if op["op"] == "add":
                parent.insert(len(parent) if last == "-" else int(last), op["value"])
            elif op["op"] == "remove":
                del parent[int(last)]
            else:
                parent[int(last)] = op["value"]
        elif op["op"] == "remove":
            del parent[last]
        else:
            if op["op"] == "replace" and last not in parent:
                raise KeyError(op["path"])
            parent[last] = op["value"]
    return doc


__all__ = ["apply", "diff", "patch_message", "pointer"]
