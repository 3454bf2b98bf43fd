"""The snapshot record format of the processors (services/projection/processors/snapshots.py): a
fold
state round-trips byte for byte in what it publishes, and anything else is detected as
unreadable, never unpickled."""

from __future__ import annotations

import pytest
from bench.standings import league_events
from builders import new_event

from events_schema.ids import GENESIS_HASH
from services.projection.processors import snapshots
from services.projection.processors.snapshots import SnapshotUnreadable
from services.projection.projector import Projector


def _folded() -> Projector:
    projector = Projector()
    prev = GENESIS_HASH
    envs = []
    for i, e in enumerate(league_events(4, 1, max_plies=40), start=1):
        ne = new_event(e, i)
        env = ne.sealed("t", i, prev, ne.occurred_at)
        prev = env.hash
        envs.append(env)
    projector.run(envs[:-5])
    return projector


def test_a_restored_state_publishes_what_the_original_would():
    original = _folded()
    state, positioned = original.export_tournament("t")
    record = snapshots.encode({"seq": state.seq}, snapshots.freeze(state, positioned))
    header, blob = snapshots.decode(record)
    assert header == {"seq": state.seq}
    restored = Projector()
    restored.restore_tournament("t", *snapshots.thaw(blob))
    assert restored.snapshot("t") == original.snapshot("t")


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (lambda b: None, "missing"),
        (lambda b: b[:40], "corrupt"),
        (lambda b: b"X" + b[1:], "not a snapshot"),
        (lambda b: b[:7] + b"\x00\x09" + b[9:], "format 9"),
        (lambda b: b[:9] + bytes(32) + b[41:], "fingerprint"),
        (lambda b: b[:-3] + bytes(3), "checksum"),
    ],
)
def test_damaged_records_are_unreadable(damage, why):
    state, positioned = _folded().export_tournament("t")
    record = snapshots.encode({"seq": state.seq}, snapshots.freeze(state, positioned))
    with pytest.raises(SnapshotUnreadable, match=why):
        snapshots.decode(damage(record))


def test_a_state_blob_that_is_not_a_state_is_unreadable():
    with pytest.raises(SnapshotUnreadable):
        snapshots.thaw(b"not zlib")
