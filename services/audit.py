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

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import orjson

from events_schema import GENESIS_HASH, Envelope
from events_schema.codec import dumps, loads
from events_schema.envelope import chain_hash
from projections.documents import PROJECTIONS, documents
from services.projector import Projector

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
    docs = _fold(envelopes, tournament_id, [seq], on_event)[0]
    return {name: docs[name] for name in projections if name in docs}


def _fold(
    envelopes: Iterable[Envelope],
    tournament_id: str,
    points: Sequence[int],
    on_event: Callable[[int], None] | None = None,
) -> list[dict[str, bytes]]:
    """One pass over the stream; the messages at each of `points` (ascending seqs)."""
    projector = Projector()
    out: list[dict[str, bytes]] = []
    todo = sorted(points)

    def snapshot() -> dict[str, bytes]:
        state = projector.states.get(tournament_id)
        if state is None or state.created is None:
            return {}
        return {name: dumps(doc) for name, doc in documents(state, tournament_id).items()}

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


def _stream(envelopes: Iterable[Envelope], tournament_id: str) -> Iterator[Envelope]:
    return (e for e in envelopes if e.tournament_id == tournament_id)


# --------------------------------------------------------------------------------------------
# diff
# --------------------------------------------------------------------------------------------

# Per projection: the list in the document keyed by player, and the player key.
_ROWS = {"standings": "rows", "tiebreaks": "rows", "prizes": "lines"}
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
    return str(row.get("player_id", row.get("places", "?")))


def diff_document(name: str, before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What changed in one projection's `data` between two points."""
    rows_key = _ROWS.get(name)
    out: dict[str, Any] = {"changed": before != after}
    rows: list[dict[str, Any]] = []
    if rows_key is not None:
        b = {_row_key(r): r for r in before.get(rows_key, []) or []}
        a = {_row_key(r): r for r in after.get(rows_key, []) or []}
        order = [*a, *(k for k in b if k not in a)]
        for key in order:
            if key not in b:
                rows.append({"key": key, "change": "added", "after": a[key]})
            elif key not in a:
                rows.append({"key": key, "change": "removed", "before": b[key]})
            elif a[key] != b[key]:
                rows.append({"key": key, "change": "changed", "fields": _changes(b[key], a[key])})
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
    """The four projections at seqs a and b (a <= b), what changed, and the events between."""
    if a > b:
        raise ValueError(f"--from (seq {a}) is after --to (seq {b})")
    at_a, at_b = _fold(envelopes, tournament_id, [a, b], on_event)
    projections: dict[str, Any] = {}
    for name in PROJECTIONS:
        da = loads(at_a[name])["data"] if name in at_a else {}
        db = loads(at_b[name])["data"] if name in at_b else {}
        projections[name] = diff_document(name, da, db)
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
        return out


def _broken(seq: int, kind: str, detail: str, **more: Any) -> dict[str, Any]:
    return {"seq": seq, "kind": kind, "detail": detail, **more}


def verify_chain(tournament_id: str, stored: Iterable[bytes | dict[str, Any]]) -> Verdict:
    """Check a stream's hash chain from its stored envelopes, in the log's seq order.

    At each position the next seq is expected (gapless from 1). The FIRST broken link is
    reported with its kind:
    - `removed`: the expected seq is absent from the stream (a gap);
    - `reordered`: another seq stands where the expected one should (it exists elsewhere in
      the stream, or the seq goes backwards / repeats);
    - `altered`: the bytes do not decode as an envelope, name another stream, or their hash
      recomputed over the canonical bytes differs from the stored `hash`; or the event is
      self-consistent but its `prev_hash` is not the previous event's hash (one of the two was
      altered and re-hashed).
    Rows whose seq is beyond a removal are not checked further (the chain is broken there).
    """
    records: list[dict[str, Any] | None] = []
    for item in stored:
        if isinstance(item, dict):
            records.append(item)
            continue
        try:
            raw = orjson.loads(item)
        except orjson.JSONDecodeError:
            raw = None
        records.append(raw if isinstance(raw, dict) else None)
    seqs = {r.get("seq") for r in records if r is not None}
    v = Verdict(tournament_id, events=len(records))
    prev = GENESIS_HASH
    for i, raw in enumerate(records):
        expected = i + 1
        if raw is None or not isinstance(raw.get("seq"), int) or "hash" not in raw:
            v.broken = _broken(expected, "altered", f"the event at seq {expected} is undecodable")
            return v
        seq = raw["seq"]
        if seq != expected:
            if seq > expected and expected not in seqs:
                v.broken = _broken(
                    expected,
                    "removed",
                    f"seq {expected} is missing: after seq {expected - 1} comes seq {seq}",
                    found_seq=seq,
                )
            else:
                v.broken = _broken(
                    expected,
                    "reordered",
                    f"seq {seq} stands where seq {expected} should",
                    found_seq=seq,
                )
            return v
        if raw.get("tournament_id") != tournament_id:
            v.broken = _broken(
                seq, "altered", f"seq {seq} names stream {raw.get('tournament_id')!r}"
            )
            return v
        recomputed = chain_hash(raw)
        if recomputed != raw["hash"]:
            v.broken = _broken(
                seq,
                "altered",
                f"seq {seq}: hash mismatch (stored {raw['hash']}, recomputed {recomputed})",
                stored_hash=raw["hash"],
                recomputed_hash=recomputed,
            )
            return v
        if raw.get("prev_hash") != prev:
            v.broken = _broken(
                seq,
                "altered",
                f"seq {seq}: prev_hash {raw.get('prev_hash')} is not the hash of seq "
                f"{seq - 1} ({prev}): seq {seq - 1} or seq {seq} was altered and re-hashed, "
                "or an event was replaced",
                expected_prev_hash=prev,
                found_prev_hash=raw.get("prev_hash"),
            )
            return v
        prev = raw["hash"]
        v.head_seq, v.head_hash = seq, prev
    return v


def stored_records(log: Any, tournament_id: str) -> Iterator[bytes | dict[str, Any]]:
    """The stream as stored: raw bytes where the log offers them (SQLite `read_raw`), else the
    envelopes' JSON form (Kafka: records are decoded by the log's reader)."""
    read_raw = getattr(log, "read_raw", None)
    if callable(read_raw):
        yield from read_raw(tournament_id)
        return
    for env in log.read(tournament_id):
        yield env.to_json_dict()
