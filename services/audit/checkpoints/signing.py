"""Signing checkpoints: verify a stream's head (extending its previous checkpoint), sign it and
store it (`sign_head`), sign every stream that moved (`sign_due`), and the per-process
service that holds the log, the store and the key (`CheckpointService`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from services.audit import replay as audit
from services.audit.checkpoints.errors import CheckpointError, CheckpointRefused
from services.audit.checkpoints.keys import SigningKey, key_path, load_or_create_key
from services.audit.checkpoints.record import SignedCheckpoint
from services.audit.checkpoints.store import CheckpointStore, store_path
from services.audit.checkpoints.verify import check_signature
from services.config import Settings


def verified_head(log: Any, tournament_id: str, since: SignedCheckpoint | None) -> tuple[int, str]:
    """The stream's last seq and hash, after checking its chain: from seq 1, or, given the
    stream's previous checkpoint, from that checkpoint's seq on (the head must extend it:
    same hash at its seq, and an intact chain from there). Raises `CheckpointRefused`."""
    if since is not None:
        last = log.last_seq(tournament_id)
        if last < since.seq:
            raise CheckpointRefused(
                f"{tournament_id}: the stream ends at seq {last}, but seq {since.seq} is "
                f"signed in checkpoint {since.describe()}: events were removed from its end",
                rule="checkpoint.truncated",
            )
        stored = audit.stored_records(log, tournament_id, from_seq=since.seq)
        v = audit.verify_chain(
            tournament_id,
            stored,
            from_seq=since.seq,
            prev_hash=None,
            at_seqs=(since.seq,),
            check_decode=False,
        )
        if v.ok and v.hashes.get(since.seq) != since.head_hash:
            raise CheckpointRefused(
                f"{tournament_id}: the hash at seq {since.seq} is {v.hashes.get(since.seq)}, "
                f"not the head_hash {since.head_hash} signed in checkpoint {since.describe()}: "
                "the stream was rewritten",
                rule="checkpoint.rewritten",
            )
    else:
        v = audit.verify_chain(
            tournament_id, audit.stored_records(log, tournament_id), check_decode=False
        )
    if v.events == 0:
        raise CheckpointRefused(
            f"{tournament_id!r} has no events", rule="checkpoint.no_events", status=404
        )
    if not v.ok:
        b = v.broken or {}
        raise CheckpointRefused(
            f"{tournament_id}: the chain is broken at seq {b.get('seq')} ({b.get('kind')}: "
            f"{b.get('detail')}); not signed",
            rule="checkpoint.chain_broken",
        )
    return v.head_seq, v.head_hash


def _check_own(store_latest: SignedCheckpoint | None) -> None:
    """The previous checkpoint a signer builds on must carry a valid signature."""
    if store_latest is None:
        return
    result = check_signature(store_latest, None)
    if result.status != "ok":
        raise CheckpointRefused(
            f"{store_latest.tournament_id}: the stored checkpoint at seq {store_latest.seq} "
            f"{store_latest.describe()} fails its signature check ({result.detail}): the "
            "checkpoint store was tampered with",
            rule="checkpoint.store_tampered",
        )


def sign_head(
    log: Any,
    store: CheckpointStore,
    key: SigningKey,
    tournament_id: str,
    now: datetime | None = None,
) -> SignedCheckpoint:
    """Verify the head of a stream (extending its previous checkpoint), sign it and store the
    checkpoint. Raises `CheckpointRefused`."""
    previous = store.latest(tournament_id)
    _check_own(previous)
    seq, head_hash = verified_head(log, tournament_id, previous)
    cp = key.sign(tournament_id, seq, head_hash, now)
    store.add(cp)
    return cp


@dataclass
class DueResult:
    signed: list[SignedCheckpoint] = field(default_factory=list)
    refused: dict[str, CheckpointError] = field(default_factory=dict)
    unchanged: int = 0


def _hash_at(log: Any, tournament_id: str, seq: int) -> str | None:
    env = next(iter(log.read(tournament_id, seq, seq)), None) if seq else None
    return env.hash if env is not None else None


def sign_due(
    log: Any,
    store: CheckpointStore,
    key: SigningKey,
    *,
    every_events: int = 1,
    every_seconds: float = 0.0,
    now: datetime | None = None,
) -> DueResult:
    """Sign every stream whose head moved since its last checkpoint (its last seq, or the hash
    at that checkpoint's seq, differ), when it moved by at least `every_events` events or its
    last checkpoint is at least `every_seconds` old (0: no time rule). A stream that got
    shorter or was rewritten is always due: signing it is refused, and reported in
    `refused`."""
    now = now or datetime.now(UTC)
    result = DueResult()
    for tid in log.stream_ids():
        try:
            last = store.latest(tid)
            seq = log.last_seq(tid)
            # Unmoved: same last seq, same hash there. Extended: longer, and the hash at the
            # last checkpoint's seq unchanged (else it was rewritten: due, and refused).
            if last is not None and seq >= last.seq:
                if _hash_at(log, tid, last.seq) != last.head_hash:
                    seq = -1
                elif seq == last.seq:
                    result.unchanged += 1
                    continue
            if last is not None and seq > last.seq:
                moved = seq - last.seq >= max(every_events, 1)
                old = every_seconds > 0 and (
                    (now - last.checkpoint.signed_time).total_seconds() >= every_seconds
                )
                if not (moved or old):
                    continue
            result.signed.append(sign_head(log, store, key, tid, now))
        except CheckpointError as exc:  # refused, or a stored checkpoint that does not parse
            result.refused[tid] = exc
    return result


class CheckpointService:
    """The log, the store and the (lazily loaded or generated) signing key, for one process:
    the API, the scheduler and the CLI share it. Signing is serialised per service."""

    def __init__(
        self,
        log: Any,
        store: CheckpointStore,
        key_file: Path,
        *,
        create_key: bool = True,
        announce: Callable[[str], None] | None = None,
    ) -> None:
        self.log, self.store, self.key_file = log, store, key_file
        self.create_key = create_key
        self.announce = announce
        self._key: SigningKey | None = None
        self._lock = threading.Lock()

    @classmethod
    def from_settings(
        cls,
        log: Any,
        settings: Settings,
        announce: Callable[[str], None] | None = None,
    ) -> CheckpointService:
        path, configured = key_path(settings)
        return cls(
            log,
            CheckpointStore(store_path(settings)),
            path,
            create_key=not configured,
            announce=announce,
        )

    def key(self) -> SigningKey:
        if self._key is None:
            self._key = load_or_create_key(self.key_file, self.create_key, self.announce)
        return self._key

    def sign(self, tournament_id: str, now: datetime | None = None) -> SignedCheckpoint:
        with self._lock:
            return sign_head(self.log, self.store, self.key(), tournament_id, now)

    def sign_due(
        self, every_events: int = 1, every_seconds: float = 0.0, now: datetime | None = None
    ) -> DueResult:
        with self._lock:
            return sign_due(
                self.log,
                self.store,
                self.key(),
                every_events=every_events,
                every_seconds=every_seconds,
                now=now,
            )

    def close(self) -> None:
        self.store.close()
