"""The auditor's side: replay a tournament to a point, diff two points, verify the hash chain.

Points in a stream (`parse_point`, `resolve_point`), used by `--until`, `--from` and `--to`:

- `SEQ` (an int): up to and including that seq (capped at the stream's last seq; 0 is the
  empty stream, before any event).
- an ISO 8601 time with a timezone (a date alone is midnight UTC): the longest prefix of the
  stream whose events have `recorded_at` <= that time. `recorded_at` is set by the log when it
  stores the event, so this is what the log (and so every live projection) knew at that
  instant. `occurred_at` is not used: it is given by the client (time at the board), may be
  backdated by an arbiter entering results late and is not monotonic in seq, so "events that
  occurred before T" is not a prefix of the stream and was never a state anyone saw.
  Should a writer's clock step back, the prefix stops at the first event recorded after T.
- `round:N` (stage `main`) or `round:STAGE:N`: the moment round N was complete, i.e. up to and
  including the last of: the RoundScheduled event(s) of that round, and for each game it paired
  the first GameEnded recorded for it (adjudications, forfeits and crashes end a game with a
  GameEnded too). Events interleaved before that seq (moves, other games, rulings) are part of
  the prefix; later ResultCorrected / EventRetracted for the round's games are not (they are
  corrections after the fact: replay a later point or use `diff` to see them). If a game of
  the round has no result yet, the point is the last of those events present and the point is
  marked incomplete.

Everything here is pure over envelopes (or stored bytes) so both logs share it.
"""

from __future__ import annotations

import gc
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import orjson

from events_schema import GENESIS_HASH, Envelope
from events_schema.codec import dumps, loads
from events_schema.envelope import chain_hash, read_envelope
from events_schema.registry import Recorded
from projections.names import PROJECTIONS
from services.eventlog.base import StoredRow
from services.projection.projector import Projector

# --------------------------------------------------------------------------------------------
# points
# --------------------------------------------------------------------------------------------

_ROUND = re.compile(r"^round:(?:(?P<stage>[^:]+):)?(?P<n>\d+)$")


@dataclass(frozen=True)
class Point:
    kind: str  # "seq" | "time" | "round"
    seq: int = 0
    time: datetime | None = None
    round: int = 0
    stage: str = "main"
    text: str = ""


@dataclass(frozen=True)
class Resolved:
    """A point resolved against a stream: fold up to and including `seq`."""

    point: Point
    seq: int
    complete: bool = True  # round points: every game of the round has a result
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "point": self.point.text,
            "seq": self.seq,
            "complete": self.complete,
            "note": self.note,
        }


def parse_point(text: str) -> Point:
    """`SEQ`, an ISO time, or `round:N` / `round:STAGE:N`; ValueError names what is wrong."""
    s = text.strip()
    if re.fullmatch(r"\d+", s):
        return Point("seq", seq=int(s), text=s)
    m = _ROUND.match(s)
    if m:
        n = int(m.group("n"))
        if n < 1:
            raise ValueError(f"{text!r}: rounds start at 1")
        return Point("round", round=n, stage=m.group("stage") or "main", text=s)
    try:
        t = datetime.fromisoformat(s.replace("Z", "+00:00") if s.endswith("Z") else s)
    except ValueError:
        raise ValueError(
            f"{text!r} is neither a seq, an ISO time (2026-11-21T12:00:00Z) nor round:N"
        ) from None
    if t.tzinfo is None:
        if len(s) == 10:  # a date alone: midnight UTC
            t = t.replace(tzinfo=UTC)
        else:
            raise ValueError(f"{text!r}: give the time with a timezone (Z or +01:00)")
    return Point("time", time=t.astimezone(UTC), text=s)


def resolve_point(point: Point, envelopes: Sequence[Envelope]) -> Resolved:
    """The seq a point names in a stream (envelopes in seq order, from seq 1)."""
    last = envelopes[-1].seq if envelopes else 0
    if point.kind == "seq":
        return Resolved(point, min(point.seq, last))
    if point.kind == "time":
        assert point.time is not None
        seq = 0
        for env in envelopes:
            if env.recorded_at > point.time:
                break
            seq = env.seq
        return Resolved(point, seq)
    return _resolve_round(point, envelopes)


def _resolve_round(point: Point, envelopes: Sequence[Envelope]) -> Resolved:
    games: set[str] = set()
    scheduled: list[int] = []
    ended: dict[str, int] = {}
    for env in envelopes:
        p = env.payload
        if (
            env.type == "RoundScheduled"
            and p.get("round") == point.round
            and p.get("stage", "main") == point.stage
        ):
            scheduled.append(env.seq)
            games.update(str(x["game_id"]) for x in p.get("pairings", []))
        elif env.type == "GameEnded":
            gid = str(p.get("game_id"))
            ended.setdefault(gid, env.seq)
    if not scheduled:
        raise LookupError(f"round {point.round} (stage {point.stage}) was never scheduled")
    # A game's result only counts if it came after its round was scheduled.
    results = [ended[g] for g in games if g in ended and ended[g] > scheduled[0]]
    missing = sorted(g for g in games if g not in ended or ended[g] <= scheduled[0])
    seq = max([*scheduled, *results])
    note = f"games without a result at the end of the log: {', '.join(missing)}" if missing else ""
    return Resolved(point, seq, complete=not missing, note=note)


# --------------------------------------------------------------------------------------------
# replay
# --------------------------------------------------------------------------------------------


def replay_to(
    envelopes: Iterable[Envelope],
    tournament_id: str,
    seq: int,
    projections: Sequence[str] = PROJECTIONS,
    on_event: Callable[[int], None] | None = None,
) -> dict[str, bytes]:
    """The projection messages as of `seq`: byte for byte what the live processors published
    at that seq (both build them with `projections.documents` over the same fold)."""
    with no_cyclic_gc():
        docs = _fold(envelopes, tournament_id, [seq], on_event)[0]
    return {name: docs[name] for name in projections if name in docs}


#: Replays in progress in this process that paused the collector (threads of a server may
#: replay at once: the first to enter pauses it, the last to leave restores it).
_gc_pause = {"holders": 0, "was_enabled": False}
_gc_lock = threading.Lock()


@contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """The cyclic garbage collector paused while a whole stream is folded (issue 27, replay):
    the fold keeps what it reads (every move of every game), so the collector's full passes
    over a growing heap cost ~8-30 % of a replay's CPU and free nothing (the fold's objects
    hold no cycles; reference counting frees the rest as usual). Restored as it was when the
    last overlapping replay of the process ends, so concurrent replays in a server's threads
    never leave it off."""
    with _gc_lock:
        if _gc_pause["holders"] == 0:
            _gc_pause["was_enabled"] = gc.isenabled()
            gc.disable()
        _gc_pause["holders"] += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pause["holders"] -= 1
            if _gc_pause["holders"] == 0 and _gc_pause["was_enabled"]:
                gc.enable()


def _fold(
    envelopes: Iterable[Envelope],
    tournament_id: str,
    points: Sequence[int],
    on_event: Callable[[int], None] | None = None,
) -> list[dict[str, bytes]]:
    """One pass over the stream; the messages at each of `points` (ascending seqs)."""
    # Not selective: a replay only takes snapshots (every document, built from the fold),
    # so the publication's bookkeeping of what each event can change is not kept.
    projector = Projector(selective=False)
    out: list[dict[str, bytes]] = []
    todo = sorted(points)

    def snapshot() -> dict[str, bytes]:
        return projector.snapshot(tournament_id)  # the one replay path (services/projector)

    while todo and todo[0] <= 0:
        out.append({})
        todo.pop(0)
    for n, env in enumerate(_stream(envelopes, tournament_id), start=1):
        if not todo:
            break
        projector.apply(env)
        if on_event is not None:
            on_event(n)
        while todo and env.seq >= todo[0]:
            out.append(snapshot())
            todo.pop(0)
    while todo:  # points past the end: the state at the end
        out.append(snapshot())
        todo.pop(0)
    return out


def appended_by(envelopes: Iterable[Envelope], seq: int) -> list[tuple[str, str]]:
    """Who appended the events up to `seq` (issue 24, "who did it"): each actor (`id (role)`)
    with the seqs they appended, as ranges (`1-12, 15`), in order of their first event."""
    seqs: dict[str, list[int]] = {}
    for env in envelopes:
        if env.seq > seq:
            break
        seqs.setdefault(f"{env.actor.id} ({env.actor.role})", []).append(env.seq)
    out = []
    for actor, numbers in seqs.items():
        ranges: list[str] = []
        first = prev = numbers[0]
        for n in [*numbers[1:], None]:
            if n is not None and n == prev + 1:
                prev = n
                continue
            ranges.append(str(first) if first == prev else f"{first}-{prev}")
            if n is not None:
                first = prev = n
        out.append((actor, ", ".join(ranges)))
    return out


def held_at(envelopes: Iterable[Envelope], tournament_id: str, seq: int) -> dict[str, Any] | None:
    """Why the tournament's projections were held at `seq` (an unreadable event not yet
    retracted: its seq, id and reason), or None."""
    projector = Projector()
    for env in _stream(envelopes, tournament_id):
        if env.seq > seq:
            break
        projector.apply(env)
    return projector.held().get(tournament_id)


def _stream(envelopes: Iterable[Envelope], tournament_id: str) -> Iterator[Envelope]:
    return (e for e in envelopes if e.tournament_id == tournament_id)


# --------------------------------------------------------------------------------------------
# diff
# --------------------------------------------------------------------------------------------

# Per projection: the list in the document keyed by player, and the player key.
_ROWS = {"standings": "rows", "tiebreaks": "rows", "prizes": "lines", "games": "pairings"}
# Events that only feed game records (moves, clocks): counted, not listed one by one.
_QUIET = frozenset({"MovePlayed", "ClockReported"})


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, dict) and value:
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: value}


def _changes(before: Any, after: Any) -> dict[str, list[Any]]:
    """{dotted field: [before, after]} for the fields that differ."""
    fb, fa = _flatten(before), _flatten(after)
    return {k: [fb.get(k), fa.get(k)] for k in sorted(set(fb) | set(fa)) if fb.get(k) != fa.get(k)}


def _row_key(row: dict[str, Any]) -> str:
    return str(row.get("player_id", row.get("game_id", row.get("places", "?"))))


def _names(*docs: dict[str, Any]) -> dict[str, str]:
    """{player id: name} from standings documents' rows (each row carries its name)."""
    return {
        r["player_id"]: r["name"]
        for doc in docs
        for r in doc.get("rows", []) or []
        if "player_id" in r and "name" in r
    }


def _row_name(row: dict[str, Any], names: dict[str, str]) -> str | None:
    """Who a row is about, in words: a player's name, or a game's "White – Black"."""
    if "player_id" in row:
        return row.get("name") or names.get(row["player_id"])
    white, black = row.get("white"), row.get("black")
    if isinstance(white, dict) and isinstance(black, dict):
        return " – ".join(str(p.get("name") or p.get("player_id")) for p in (white, black))
    return None


def diff_document(
    name: str,
    before: dict[str, Any],
    after: dict[str, Any],
    names: dict[str, str] | None = None,
) -> dict[str, Any]:
    """What changed in one projection's `data` between two points; each row keyed by its
    player (or game) id, with its ``name`` beside it when known (`names`: id -> name)."""
    names = names or {}
    rows_key = _ROWS.get(name)
    out: dict[str, Any] = {"changed": before != after}
    rows: list[dict[str, Any]] = []
    if rows_key is not None:
        b = {_row_key(r): r for r in before.get(rows_key, []) or []}
        a = {_row_key(r): r for r in after.get(rows_key, []) or []}
        order = [*a, *(k for k in b if k not in a)]
        for key in order:
            if key not in b:
                entry = {"key": key, "change": "added", "after": a[key]}
            elif key not in a:
                entry = {"key": key, "change": "removed", "before": b[key]}
            elif a[key] != b[key]:
                entry = {"key": key, "change": "changed", "fields": _changes(b[key], a[key])}
            else:
                continue
            shown = _row_name(a.get(key) or b[key], names)
            if shown is not None:
                entry["name"] = shown
            rows.append(entry)
    rest_b = {k: v for k, v in before.items() if k != rows_key}
    rest_a = {k: v for k, v in after.items() if k != rows_key}
    if name == "standings":
        fb = {f["game_id"]: f for f in before.get("flags", [])}
        fa = {f["game_id"]: f for f in after.get("flags", [])}
        out["flags_added"] = [f for g, f in fa.items() if g not in fb]
        out["flags_removed"] = [f for g, f in fb.items() if g not in fa]
        rest_b.pop("flags", None)
        rest_a.pop("flags", None)
    if name == "playoff":
        out["status"] = [before.get("status"), after.get("status")]
    if rows_key is not None:
        out[rows_key] = rows
    out["fields"] = _changes(rest_b, rest_a)
    return out


def _event_entry(env: Envelope, by_id: dict[UUID, Envelope]) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "seq": env.seq,
        "type": env.type,
        "event_id": str(env.event_id),
        "actor": {"id": env.actor.id, "role": env.actor.role},
        "recorded_at": env.recorded_at.isoformat().replace("+00:00", "Z"),
    }
    p = env.payload
    if "game_id" in p:
        entry["game_id"] = p["game_id"]
    if env.type in ("GameEnded", "ResultCorrected"):
        entry["result"] = p.get("result")
    target_id = p.get("corrects_event_id") or p.get("retracted_event_id")
    if env.type in ("ResultCorrected", "EventRetracted") and target_id is not None:
        entry["reason"] = p.get("reason")
        target = by_id.get(UUID(str(target_id)))
        entry["corrects"] = {
            "event_id": str(target_id),
            "seq": target.seq if target else None,
            "type": target.type if target else None,
            "result": target.payload.get("result") if target else None,
            "game_id": target.payload.get("game_id") if target else None,
        }
    return entry


def diff(
    envelopes: Sequence[Envelope],
    tournament_id: str,
    a: int,
    b: int,
    on_event: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """The projections at seqs a and b (a <= b), what changed, and the events between."""
    if a > b:
        raise ValueError(f"--from (seq {a}) is after --to (seq {b})")
    at_a, at_b = _fold(envelopes, tournament_id, [a, b], on_event)
    data = {
        name: (
            loads(at_a[name])["data"] if name in at_a else {},
            loads(at_b[name])["data"] if name in at_b else {},
        )
        for name in PROJECTIONS
    }
    names = _names(*data.get("standings", ({}, {})))
    projections = {name: diff_document(name, da, db, names) for name, (da, db) in data.items()}
    by_id = {e.event_id: e for e in envelopes if e.seq <= b}
    between = [e for e in envelopes if a < e.seq <= b]
    quiet: dict[str, int] = {}
    listed = []
    for env in between:
        if env.type in _QUIET:
            quiet[env.type] = quiet.get(env.type, 0) + 1
        else:
            listed.append(_event_entry(env, by_id))
    return {
        "tournament_id": tournament_id,
        "from_seq": a,
        "to_seq": b,
        "projections": projections,
        "events": listed,
        "events_not_listed": quiet,
    }


# --------------------------------------------------------------------------------------------
# verify
# --------------------------------------------------------------------------------------------


@dataclass
class Verdict:
    tournament_id: str
    events: int = 0
    head_seq: int = 0
    head_hash: str = GENESIS_HASH
    broken: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: Events stored intact (their hash checks) that no reader can decode: warnings, not
    #: breaks. Each: seq, event_id, type, reason.
    unreadable: list[dict[str, Any]] = field(default_factory=list)
    #: The verified hash at each of the seqs asked for (`at_seqs`), when the chain reached it.
    hashes: dict[int, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.broken is None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "tournament_id": self.tournament_id,
            "ok": self.ok,
            "events": self.events,
        }
        if self.ok:
            out["head_seq"] = self.head_seq
            out["head_hash"] = self.head_hash
        else:
            out["verified_up_to_seq"] = self.head_seq
            out["broken"] = self.broken
        out["unreadable"] = self.unreadable
        return out


def _broken(seq: int, kind: str, detail: str, **more: Any) -> dict[str, Any]:
    return {"seq": seq, "kind": kind, "detail": detail, **more}


@dataclass
class _Rec:
    """A stored record as verify sees it: the parsed JSON object (None when the bytes are not
    one), why not, the bytes, and the storage's own columns if it gave them."""

    raw: dict[str, Any] | None
    why: str = ""
    body: bytes | None = None
    row: StoredRow | None = None


def _parse_record(item: object) -> _Rec:
    row = item if isinstance(item, StoredRow) else None
    data: object = item.body if isinstance(item, StoredRow) else item
    if isinstance(data, dict):
        return _Rec(data, row=row)
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    if isinstance(data, bytearray | memoryview):
        data = bytes(data)
    if not isinstance(data, bytes):
        return _Rec(None, f"stored as {type(data).__name__}, not bytes", row=row)
    if not data:
        return _Rec(None, "the stored body is empty", data, row)
    try:
        raw = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        return _Rec(None, f"not JSON ({str(exc).splitlines()[0][:120]})", data, row)
    if not isinstance(raw, dict):
        return _Rec(None, f"JSON {type(raw).__name__}, not an envelope object", data, row)
    return _Rec(raw, body=data, row=row)


def _records(stored: Iterable[object]) -> Iterator[_Rec]:
    """The records in order; a storage that fails while handing them over (a row it cannot
    read) ends the stream with an undecodable record there, never with an exception."""
    it = iter(stored)
    while True:
        try:
            item = next(it)
        except StopIteration:
            return
        except Exception as exc:  # reported at its position, never raised
            yield _Rec(None, f"the storage could not read the row ({type(exc).__name__}: {exc})")
            return
        yield _parse_record(item)


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _unreadable(tournament_id: str, seq: int, rec: _Rec) -> dict[str, Any] | None:
    """The warning for an intact record that readers cannot decode, else None."""
    assert rec.raw is not None
    body = rec.body if rec.body is not None else dumps(rec.raw)
    env = read_envelope(
        body,
        tournament_id=tournament_id,
        seq=seq,
        event_id=str(rec.raw.get("event_id")) if rec.raw.get("event_id") else None,
        hash=str(rec.raw["hash"]),
    )
    recorded = Recorded.of(env)
    if not recorded.unreadable:
        return None
    reason = getattr(recorded.event, "reason", "") or getattr(env, "reason", "")
    return {
        "seq": seq,
        "event_id": str(env.event_id),
        "type": env.type,
        "reason": str(reason),
    }


def verify_chain(
    tournament_id: str,
    stored: Iterable[bytes | str | dict[str, Any] | StoredRow],
    *,
    from_seq: int = 1,
    prev_hash: str | None = GENESIS_HASH,
    at_seqs: Iterable[int] = (),
    check_decode: bool = True,
) -> Verdict:
    """Check a stream's hash chain from its stored envelopes, in the log's seq order.

    At each position the next seq is expected (gapless from `from_seq`, 1 by default; the
    first event's `prev_hash` must be `prev_hash`, the genesis hash by default, or is not
    checked when it is None: a verification that resumes at a known seq). The FIRST broken
    link is reported with its kind, naming the seq:
    - `removed`: the expected seq is absent from the stream (a gap);
    - `reordered`: another seq stands where the expected one should (it exists elsewhere in
      the stream, or the seq goes backwards / repeats);
    - `altered`: the bytes do not decode as an envelope (garbage, truncated, not JSON, stored
      as another type, a row the storage cannot read), name another stream, or their hash
      recomputed over the canonical bytes differs from the stored `hash`; or the event is
      self-consistent but its `prev_hash` is not the previous event's hash (one of the two was
      altered and re-hashed); or, where the storage gives its own columns (`StoredRow`), the
      row's seq, event id or hash column disagrees with the stored bytes.
    Rows whose seq is beyond a removal are not checked further (the chain is broken there).
    Never raises on what is stored.

    A record whose hash checks but that readers cannot decode (`read_envelope` /
    `Recorded.of(...).unreadable`) is intact: it is listed in `unreadable`, not a break
    (`check_decode=False` skips this, e.g. when only the chain matters).
    A cut-off end of the stream (its last events deleted) or a re-hashed suffix are not
    visible in the chain alone: signed checkpoints (services/audit/checkpoints/) catch those.
    """
    records = list(_records(stored))
    body_seqs: dict[int, object] = {}  # seq in the bytes -> the row's seq column
    for rec in records:
        s = _int(rec.raw.get("seq")) if rec.raw is not None else None
        if s is not None and s not in body_seqs:
            body_seqs[s] = rec.row.seq if rec.row is not None else s
    wanted = set(at_seqs)
    v = Verdict(tournament_id, events=len(records))
    prev = prev_hash
    # A row whose hash column disagrees with its (self-consistent) bytes: re-hashed in place.
    # Its successor's prev_hash normally shows it first; else it is the break at the end.
    rehashed: tuple[dict[str, Any], int, str] | None = None
    for i, rec in enumerate(records):
        expected = from_seq + i
        broken = _check_record(tournament_id, rec, expected, prev, body_seqs)
        if broken is not None:
            if rehashed is not None and rehashed[0]["seq"] == expected - 1:
                broken["detail"] += f" ({rehashed[0]['detail']})"
            v.broken = broken
            return v
        assert rec.raw is not None
        seq, prev = expected, str(rec.raw["hash"])
        column = rec.row.hash if rec.row is not None else None
        if rehashed is None and column is not None and column != prev:
            detail = (
                f"seq {seq}: the row's hash column {column} is not the stored envelope's "
                f"hash {prev}: seq {seq} was altered (its bytes re-hashed, or its row edited)"
            )
            rehashed = (_broken(seq, "altered", detail), v.head_seq, v.head_hash)
        v.head_seq, v.head_hash = seq, prev
        if seq in wanted:
            v.hashes[seq] = prev
        if check_decode:
            warning = _unreadable(tournament_id, seq, rec)
            if warning is not None:
                v.unreadable.append(warning)
    if rehashed is not None:
        v.broken, v.head_seq, v.head_hash = rehashed
        v.hashes = {k: h for k, h in v.hashes.items() if k <= v.head_seq}
        v.unreadable = [u for u in v.unreadable if u["seq"] <= v.head_seq]
    return v


def _check_record(
    tournament_id: str,
    rec: _Rec,
    expected: int,
    prev: str | None,
    body_seqs: dict[int, object],
) -> dict[str, Any] | None:
    """The broken link at this record, or None when it is the intact next link."""
    row = rec.row
    column = row.seq if row is not None else None
    if row is not None and _int(column) is None:
        return _broken(
            expected,
            "altered",
            f"the row after seq {expected - 1} has seq column {column!r}, not a seq",
            found_seq=column,
        )
    raw = rec.raw
    seq = _int(raw.get("seq")) if raw is not None else None
    if raw is None or seq is None or not isinstance(raw.get("hash"), str):
        at = _int(column) if row is not None else None
        if at is not None and at != expected:  # the storage says which seq it is: not ours
            seq = at
        else:
            why = rec.why or "not an envelope (no seq or hash)"
            return _broken(
                expected, "altered", f"the event at seq {expected} is undecodable: {why}"
            )
    if seq != expected:
        if seq > expected and expected not in body_seqs:
            return _broken(
                expected,
                "removed",
                f"seq {expected} is missing: after seq {expected - 1} comes seq {seq}",
                found_seq=seq,
            )
        where = body_seqs.get(expected)
        moved = (
            f" (seq {expected} is stored in the row numbered {where!r})"
            if row is not None and where is not None and where != expected
            else ""
        )
        return _broken(
            expected,
            "reordered",
            f"seq {seq} stands where seq {expected} should{moved}",
            found_seq=seq,
        )
    assert raw is not None
    if row is not None and column != seq:
        return _broken(
            seq,
            "altered",
            f"seq {seq} is stored in the row numbered {column} (its seq column was changed)",
            found_seq=column,
        )
    if raw.get("tournament_id") != tournament_id:
        return _broken(seq, "altered", f"seq {seq} names stream {raw.get('tournament_id')!r}")
    try:
        recomputed = chain_hash(raw)
    except Exception as exc:  # e.g. nested deeper than the codec allows
        return _broken(seq, "altered", f"seq {seq}: its hash cannot be recomputed ({exc})")
    if recomputed != raw["hash"]:
        return _broken(
            seq,
            "altered",
            f"seq {seq}: hash mismatch (stored {raw['hash']}, recomputed {recomputed})",
            stored_hash=raw["hash"],
            recomputed_hash=recomputed,
        )
    if row is not None and row.event_id is not None and row.event_id != raw.get("event_id"):
        return _broken(
            seq,
            "altered",
            f"seq {seq}: the row's event_id column {row.event_id} is not the stored "
            f"envelope's event_id {raw.get('event_id')}",
        )
    if prev is not None and raw.get("prev_hash") != prev:
        return _broken(
            seq,
            "altered",
            f"seq {seq}: prev_hash {raw.get('prev_hash')} is not the hash of seq "
            f"{seq - 1} ({prev}): seq {seq - 1} or seq {seq} was altered and re-hashed, "
            "or an event was replaced",
            expected_prev_hash=prev,
            found_prev_hash=raw.get("prev_hash"),
        )
    return None


def stored_records(
    log: Any, tournament_id: str, from_seq: int = 1
) -> Iterator[bytes | StoredRow | dict[str, Any]]:
    """The stream as stored, from `from_seq`: the storage's own rows where the log offers
    them (`stored_rows`: SQLite, each row's columns with its body as bytes); else raw bytes
    where the log offers them (`read_raw`); else (Kafka: records are decoded by the log's
    reader) the envelopes' JSON form."""
    stored_rows = getattr(log, "stored_rows", None)
    if callable(stored_rows):
        rows = stored_rows(tournament_id, from_seq)
        first = next(rows, None)  # opens the file: a failure here falls back to the log
        if first is not None:
            yield first
            yield from rows
            return
    read_raw = getattr(log, "read_raw", None)
    if callable(read_raw) and from_seq <= 1:
        yield from read_raw(tournament_id)
        return
    for env in log.read(tournament_id, from_seq):
        yield env.to_json_dict()
