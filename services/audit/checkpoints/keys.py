"""Checkpoint signing keys: Ed25519 in a PEM file (PKCS#8, mode 0600), generated on first use;
their key_id (the first 16 hex digits of SHA-256 of the raw public key), the public key files
next to them, and the trusted (pinned) public keys a verifier reads."""

from __future__ import annotations

import base64
import binascii
import hashlib
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from events_schema.codec import dumps
from services.audit.checkpoints.errors import CheckpointKeyError
from services.audit.checkpoints.record import Checkpoint, SignedCheckpoint
from services.config import Settings

log = logging.getLogger("arbiter.checkpoints")

KEY_FILE = "checkpoint-key.pem"


def key_id_of(public_key: bytes) -> str:
    """The first 16 hex digits of SHA-256 of the raw 32-byte public key."""
    return hashlib.sha256(public_key).hexdigest()[:16]


def _raw_public(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def public_pem(public_key: bytes) -> bytes:
    key = Ed25519PublicKey.from_public_bytes(public_key)
    return key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


@dataclass(frozen=True)
class SigningKey:
    private: Ed25519PrivateKey
    path: Path | None = None

    @property
    def public_key(self) -> bytes:
        return _raw_public(self.private.public_key())

    @property
    def key_id(self) -> str:
        return key_id_of(self.public_key)

    @classmethod
    def generate(cls) -> SigningKey:
        return cls(Ed25519PrivateKey.generate())

    def pem(self) -> bytes:
        return self.private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )

    def sign(
        self, tournament_id: str, seq: int, head_hash: str, now: datetime | None = None
    ) -> SignedCheckpoint:
        when = (now or datetime.now(UTC)).astimezone(UTC)
        body = {
            "tournament_id": tournament_id,
            "seq": seq,
            "head_hash": head_hash,
            "signed_at": when.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "key_id": self.key_id,
        }
        data = dumps(body)
        return SignedCheckpoint(
            checkpoint=Checkpoint.parse(body),
            body=data,
            signature=self.private.sign(data),
            public_key=self.public_key,
            key_id=self.key_id,
        )


def public_key_path(directory: Path, key_id: str) -> Path:
    return directory / f"checkpoint-{key_id}.pub.pem"


def write_key_files(key: SigningKey, private_path: Path) -> Path:
    """Write the private key (PEM, mode 0600, never over an existing file) and its public key
    next to it (`checkpoint-<key_id>.pub.pem`); returns the public key's path."""
    private_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, key.pem())
    finally:
        os.close(fd)
    pub = public_key_path(private_path.parent, key.key_id)
    pub.write_bytes(public_pem(key.public_key))
    return pub


def load_signing_key(path: Path, warn: Callable[[str], None] | None = None) -> SigningKey:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CheckpointKeyError(f"cannot read the signing key {path}: {exc}") from None
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise CheckpointKeyError(f"{path} is not an unencrypted PEM private key ({exc})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise CheckpointKeyError(f"{path} is not an Ed25519 key ({type(key).__name__})")
    mode = path.stat().st_mode & 0o777
    if mode & 0o077 and warn is not None:
        warn(f"the signing key {path} is readable by others (mode {mode:o}): chmod 600 it")
    return SigningKey(key, path)


def load_or_create_key(
    path: Path, create: bool = True, announce: Callable[[str], None] | None = None
) -> SigningKey:
    """The signing key at `path`; with `create`, a new one is generated there (and its public
    key written next to it) if the file does not exist yet, and `announce`d."""
    say = announce or log.warning
    if path.exists() or not create:
        return load_signing_key(path, say)
    key = SigningKey.generate()
    try:
        pub = write_key_files(key, path)
    except FileExistsError:  # another signer created it first
        return load_signing_key(path, say)
    say(
        f"generated a checkpoint signing key (Ed25519, key_id {key.key_id}) at {path}; "
        f"its public key is {pub}: publish it so that verifiers can pin it "
        "(arbiter verify --public-key), and back the private key up"
    )
    return SigningKey(key.private, path)


def key_path(settings: Settings) -> tuple[Path, bool]:
    """The signing key's path and whether it was configured (`settings.checkpoint_key`,
    ARBITER_CHECKPOINT_KEY: it must exist) or is the default under the data directory
    (generated on first use)."""
    if settings.checkpoint_key is not None:
        return settings.checkpoint_key, True
    return settings.data_dir / KEY_FILE, False


def load_public_key(path: Path) -> bytes:
    """A trusted public key from a file: PEM (public, or a private key whose public half is
    taken), or the base64 of the raw 32 bytes (as in a checkpoint's `public_key`)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CheckpointKeyError(f"cannot read the public key {path}: {exc}") from None
    try:
        if b"PRIVATE KEY-----" in data:
            private = serialization.load_pem_private_key(data, password=None)
            if isinstance(private, Ed25519PrivateKey):
                return _raw_public(private.public_key())
        elif b"-----BEGIN" in data:
            public = serialization.load_pem_public_key(data)
            if isinstance(public, Ed25519PublicKey):
                return _raw_public(public)
        else:
            raw = base64.b64decode(data.strip(), validate=True)
            if len(raw) == 32:
                return raw
    except (ValueError, TypeError, binascii.Error):
        pass
    raise CheckpointKeyError(
        f"{path} is not an Ed25519 public key (PEM, or base64 of the raw 32 bytes)"
    )
