"""Signed checkpoints: tamper evidence beyond the hash chain.

Modules: `record` (the checkpoint and its published form), `keys` (signing and pinned keys),
`store` (the append-only table), `signing` (sign a head, sign what is due, the service),
`scheduler` (scheduled signing in the server), `verify` (a stream against checkpoints),
`errors`. Everything public is importable from here.

The chain catches an edited, removed, reordered or moved event, but not a cut-off end of a
stream (its last events deleted) nor a suffix that was edited and re-hashed from some seq on:
what is left is a self-consistent chain. A checkpoint closes that gap. It is a statement
"stream T had N events and the hash of event N was H, at time S", signed with an Ed25519 key:

    {"checkpoint": {"tournament_id", "seq", "head_hash", "signed_at", "key_id"},
     "signature": base64(Ed25519 over the canonical bytes of "checkpoint"),
     "public_key": base64(the raw 32-byte public key), "key_id"}

The signed bytes are `events_schema.codec.dumps(checkpoint)` (sorted keys, no whitespace);
`key_id` is the first 16 hex digits of SHA-256 of the raw public key. A checkpoint held
outside the log (published, mailed, printed) makes any later truncation or rewrite at or
before its seq visible: `verify_against` (and `arbiter verify T --checkpoint FILE|URL`).

Keys. The signing key is a PEM file (PKCS#8, mode 0600): `ARBITER_CHECKPOINT_KEY` (a path;
it must exist), else `$ARBITER_DATA/checkpoint-key.pem`, generated on first use. These
variables are read by the process's composition root (`services.config.Settings`) and handed
in as settings. Rotation: a
new key has a new key_id; checkpoints signed with the old key stay verifiable as long as the
verifier trusts (pins) the old public key too. A verifier that pins no key trusts the key a
checkpoint embeds: that only proves the checkpoint was not altered after signing, not who
signed it (it is reported as self-asserted).

Store. Every checkpoint signed here goes into an append-only SQLite table
(`$ARBITER_DATA/checkpoints.sqlite3`, or `ARBITER_CHECKPOINTS_DB`), served by
`GET /tournaments/{id}/checkpoints`. The store sits next to the log, so whoever can rewrite
the log can rewrite the store too: checkpoints protect once they are copied elsewhere.

Signing refuses a head that does not extend the previous checkpoint of the same stream (the
stream got shorter, or the hash at the previous checkpoint's seq changed) or whose chain is
broken: a scheduled signer never blesses a rewritten history.
"""

from __future__ import annotations

from services.audit.checkpoints.errors import (
    CheckpointError,
    CheckpointFormatError,
    CheckpointKeyError,
    CheckpointRefused,
)
from services.audit.checkpoints.keys import (
    KEY_FILE,
    SigningKey,
    key_id_of,
    key_path,
    load_or_create_key,
    load_public_key,
    load_signing_key,
    public_key_path,
    public_pem,
    write_key_files,
)
from services.audit.checkpoints.record import (
    Checkpoint,
    SignedCheckpoint,
    parse_published,
)
from services.audit.checkpoints.scheduler import (
    DEFAULT_EVERY,
    CheckpointScheduler,
    attach_scheduler,
)
from services.audit.checkpoints.signing import (
    CheckpointService,
    DueResult,
    sign_due,
    sign_head,
    verified_head,
)
from services.audit.checkpoints.store import (
    STORE_FILE,
    CheckpointStore,
    store_path,
)
from services.audit.checkpoints.verify import (
    CheckpointResult,
    Report,
    SignatureCheck,
    check_signature,
    verify_against,
)

__all__ = [
    "DEFAULT_EVERY",
    "KEY_FILE",
    "STORE_FILE",
    "Checkpoint",
    "CheckpointError",
    "CheckpointFormatError",
    "CheckpointKeyError",
    "CheckpointRefused",
    "CheckpointResult",
    "CheckpointScheduler",
    "CheckpointService",
    "CheckpointStore",
    "DueResult",
    "Report",
    "SignatureCheck",
    "SignedCheckpoint",
    "SigningKey",
    "attach_scheduler",
    "check_signature",
    "key_id_of",
    "key_path",
    "load_or_create_key",
    "load_public_key",
    "load_signing_key",
    "parse_published",
    "public_key_path",
    "public_pem",
    "sign_due",
    "sign_head",
    "store_path",
    "verified_head",
    "verify_against",
    "write_key_files",
]
