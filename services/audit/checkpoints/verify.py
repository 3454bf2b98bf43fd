"""Verifying against checkpoints: a checkpoint's signature (with a pinned key, or the key it
embeds: self-asserted), then the stream's chain against every trusted checkpoint."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from services.audit import replay as audit
from services.audit.checkpoints.errors import CheckpointFormatError
from services.audit.checkpoints.keys import key_id_of
from services.audit.checkpoints.record import SignedCheckpoint


@dataclass(frozen=True)
class SignatureCheck:
    status: str  # ok | bad_signature | unknown_key
    detail: str = ""
    self_asserted: bool = False  # checked with the key the checkpoint embeds (none pinned)


def check_signature(cp: SignedCheckpoint, pinned: Mapping[str, bytes] | None) -> SignatureCheck:
    """Check a checkpoint's signature with a pinned key (its key_id among `pinned`), or, when
    nothing is pinned, with the key it embeds (self-asserted)."""
    if cp.key_id != cp.checkpoint.key_id:
        return SignatureCheck(
            "bad_signature",
            f"the outer key_id {cp.key_id} is not the signed key_id {cp.checkpoint.key_id}",
        )
    if pinned:
        key = pinned.get(cp.key_id)
        if key is None:
            return SignatureCheck(
                "unknown_key",
                f"key {cp.key_id} is not among the trusted keys ({', '.join(sorted(pinned))})",
            )
        self_asserted = False
    else:
        key = cp.public_key
        if key_id_of(key) != cp.key_id:
            return SignatureCheck(
                "bad_signature",
                f"the embedded public key has key_id {key_id_of(key)}, not {cp.key_id}",
            )
        self_asserted = True
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(cp.signature, cp.body)
    except InvalidSignature:
        return SignatureCheck(
            "bad_signature", f"the signature does not verify with key {cp.key_id}"
        )
    return SignatureCheck("ok", "", self_asserted)


@dataclass
class CheckpointResult:
    source: str
    status: str  # ok | truncated | rewritten | bad_signature | unknown_key | malformed |
    # other_tournament | unchecked
    detail: str = ""
    checkpoint: SignedCheckpoint | None = None
    self_asserted: bool = False

    @property
    def problem(self) -> bool:
        return self.status not in ("ok", "unchecked")

    def as_dict(self) -> dict[str, Any]:
        cp = self.checkpoint
        return {
            "source": self.source,
            "status": self.status,
            "detail": self.detail,
            "seq": cp.seq if cp else None,
            "head_hash": cp.head_hash if cp else None,
            "key_id": cp.key_id if cp else None,
            "signed_at": cp.checkpoint.signed_at if cp else None,
            "trust": None if cp is None else ("self-asserted" if self.self_asserted else "pinned"),
        }


@dataclass
class Report:
    """`verify` with checkpoints: the chain's verdict, each checkpoint's result, and the first
    problem (signature problems, then the chain, then the stream against the checkpoints in
    seq order)."""

    verdict: audit.Verdict
    checkpoints: list[CheckpointResult]
    problems: list[dict[str, Any]]
    warnings: list[str]

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_dict(self) -> dict[str, Any]:
        out = self.verdict.as_dict()
        out["ok"] = self.ok
        out["checkpoints"] = [c.as_dict() for c in self.checkpoints]
        out["problem"] = self.problems[0] if self.problems else None
        out["warnings"] = self.warnings
        return out


def verify_against(
    tournament_id: str,
    stored: Iterable[Any],
    checkpoints: Sequence[tuple[str, SignedCheckpoint | CheckpointFormatError]],
    pinned: Mapping[str, bytes] | None = None,
) -> Report:
    """Verify a stream's chain and check it against signed checkpoints, each (source, parsed
    checkpoint or its format error). A checkpoint is trusted once its signature verifies
    (with a pinned key, or, when none is pinned, its embedded key: then a warning says so);
    then the stream's event at its seq must exist and carry its head_hash, with the chain
    intact from seq 1 up to there."""
    results: list[CheckpointResult] = []
    problems: list[dict[str, Any]] = []
    warnings: list[str] = []
    trusted: list[CheckpointResult] = []
    for source, item in checkpoints:
        if isinstance(item, CheckpointFormatError):
            r = CheckpointResult(source, "malformed", f"{source}: {item}")
            results.append(r)
            problems.append({"seq": None, "kind": "malformed", "detail": r.detail})
            continue
        sig = check_signature(item, pinned)
        r = CheckpointResult(source, sig.status, sig.detail, item, sig.self_asserted)
        results.append(r)
        if sig.status != "ok":
            r.detail = f"checkpoint {source} at seq {item.seq} {item.describe()}: {sig.detail}"
            problems.append({"seq": item.seq, "kind": sig.status, "detail": r.detail})
            continue
        if item.tournament_id != tournament_id:
            r.status = "other_tournament"
            r.detail = f"checkpoint {source} is of {item.tournament_id!r}, not {tournament_id!r}"
            problems.append({"seq": item.seq, "kind": r.status, "detail": r.detail})
            continue
        trusted.append(r)
    for kid in sorted({r.checkpoint.key_id for r in trusted if r.self_asserted and r.checkpoint}):
        warnings.append(
            f"checkpoint key {kid} is self-asserted (the public key embedded in the "
            "checkpoint): it proves the checkpoint is unaltered, not who signed it; pin the "
            "signer's key with --public-key"
        )
    at = {r.checkpoint.seq for r in trusted if r.checkpoint}
    verdict = audit.verify_chain(tournament_id, stored, at_seqs=at)
    if not verdict.ok:
        b = verdict.broken or {}
        problems.append({"seq": b.get("seq"), "kind": b.get("kind"), "detail": b.get("detail")})
    stream_problems: list[dict[str, Any]] = []
    for r in trusted:
        cp = r.checkpoint
        assert cp is not None
        if not verdict.ok and cp.seq >= int((verdict.broken or {}).get("seq") or 0):
            r.status = "unchecked"
            r.detail = f"the chain is broken at seq {(verdict.broken or {}).get('seq')}"
        elif cp.seq > verdict.head_seq:
            r.status = "truncated"
            r.detail = (
                f"seq {cp.seq} is signed in checkpoint {r.source} {cp.describe()} but the "
                f"stream ends at {verdict.head_seq}"
            )
        elif verdict.hashes.get(cp.seq) != cp.head_hash:
            r.status = "rewritten"
            r.detail = (
                f"seq {cp.seq}: the stream's hash {verdict.hashes.get(cp.seq)} is not the "
                f"head_hash {cp.head_hash} signed in checkpoint {r.source} {cp.describe()}: "
                f"the stream was rewritten at or before seq {cp.seq} and re-hashed"
            )
        else:
            r.detail = f"seq {cp.seq} {cp.head_hash} matches checkpoint {r.source} {cp.describe()}"
        if r.problem:
            stream_problems.append({"seq": cp.seq, "kind": r.status, "detail": r.detail})
    problems.extend(sorted(stream_problems, key=lambda p: int(p["seq"])))
    return Report(verdict, results, problems, warnings)
