"""Projection processors: one faust-streaming app per projection (issue 5, item 1).

`arbiter processor standings|tiebreaks|playoff|prizes` runs one of them as its own OS process
and consumer group. (`arbiter processor adjudicator` is a fifth processor that is not a
projection: it ends games by rule through the command path, with tablebases if given;
`services/projection/processors/adjudicator.py`. It shares the Faust settings, the rebuild on
start, the
gap handling and the watchdog described here.) Each is a thin agent over
`services.projection.projector.Projector`:

    events topic (keyed by tournament, read_committed)
      -> one batch per consumer fetch (transport.py's batch path, up to --batch records)
      -> envelope_from_bytes -> Projector.apply    (idempotent by (tournament, seq))
      -> Projector.messages -> output topic        (compacted, keyed by tournament id)

Output: `arbiter.projection.<name>` (cleanup.policy=compact, as many partitions as the events
topic), key = tournament id, value = the canonical JSON document of `projections.documents`
(it carries `version` and `as_of_seq`). A message is published only when the projection's
data changed (Projector's rule), with `as_of_seq` = the last seq folded in that batch; so the
value is always byte-equal to `services.projection.projector.replay` of the events up to its
`as_of_seq`,
and the latest value's data equals the replay of the whole stream.

Throughput (issue 11 item 1): Faust's own path hands each record to the agent through a
channel, a stream event, two tasks and an ack; profiled, that was ~85 % of the time and held
a processor to ~5k events/s. The transport (`transport.py`) instead gives each fetch to the
processor whole (`app.arbiter_batch_handler`) and commits, per partition, the offset after
the last record of the last batch it returned from; Faust still runs the group, the
rebalances, the commits (producer flushed first), the timers and the web server.
`tests/bench/processors.py` prints the rate beside a raw aiokafka decode + fold loop.

Restart (issue 11 item 2): every `ARBITER_SNAPSHOT_EVERY` seconds (30; 0: never) the
processor checkpoints the tournaments that changed to its compacted snapshot topic
`arbiter.snapshot.<name>` (keyed by tournament, plus one manifest per events partition
saying up to which offset it is covered; format, fingerprint and checksum:
`snapshots.py`). A compacted topic, not a Faust table: the snapshot is read by the
worker's own reader for exactly the partitions it is assigned, must name the source
offsets it covers, which a table's changelog does not, and Faust's table
recovery has open problems (#651, #176); one record per tournament also keeps a
checkpoint to what changed.

On each assignment of partitions to the worker (Faust's `on_partitions_assigned` signal,
sent inside the consumer's rebalance listener before any record of them is folded; see "Many
workers" below), the processor reads the snapshot topic; each newly assigned partition whose
manifest and tournaments are readable and fingerprinted by this code starts at the
manifest's offset with those tournaments restored (unpickled only when first needed), every
other partition from offset 0 (`status.json` `start`: `mode` restore, partial or rebuild,
and why each rebuilt partition was). It then folds those partitions from there to their
current end (read_committed), reads their partitions of the output topic to learn what was
last published per tournament, and publishes only what differs (e.g. a message lost in a
kill -9 between fold and send). The Faust consumer then resumes at the group's committed
offsets; the records below the point the start-up read reached are counted as duplicates
without being decoded, and anything else already folded is a duplicate that
`Projector.apply` ignores by seq, so a crash, a redelivery, a reset of the group's offsets
or a snapshot older than the committed offsets publishes nothing twice and never republishes
an older state. Committed offsets therefore only bound how much is re-read, never correctness.

Many workers (issue 11 item 3): several `arbiter processor NAME` processes (same events
topic, hence the same group) split the events partitions. Faust's rebalance signals drive it
(`app.build_app`): `on_partitions_revoked` (eager: a rebalance revokes everything first)
suspends checkpoints, bumps the ownership epoch so that a checkpoint under way sends nothing
more, and flushes the producer, so every document and snapshot record of this worker is on
the broker before it rejoins; `on_partitions_assigned`, under the fold lock, forgets the
partitions not in the new assignment (their tournaments' state, what was published for them,
positions, manifests: `ProcessorCore.revoke`), keeps those it held in the previous
generation (nobody else can have owned them in between; after a missed generation it keeps
none), restores and folds the new ones (`ProcessorCore.assign`) and publishes what differs.
A batch record of a partition not owned (fetched before a revocation, or not restored yet)
is not folded: the partition's restore reads past it. Gap re-reads skip tournaments whose
partition left meanwhile. The watchdog watches only the owned partitions (another worker's
growth is not this worker's stall). `status.json` says `assigned`, `generation`, `worker`
and, in `start`, the partitions the last assignment restored (`new_partitions`).

Snapshots are written only for owned partitions (`checkpoint` prepares them under the fold
lock and sends them only while the epoch is unchanged; the manifest only after its
tournament records are acknowledged), and every record names its partition, its `owner`
(host:pid) and the group `generation`. Two workers never lose data through each other's
snapshots because a restore accepts a partition only when every tournament its manifest
names has a record of that partition at the manifest's seq or later: such a record is the
deterministic fold of that tournament to that seq whoever wrote it, and the events between
the manifest's offset and that seq are re-folded as duplicates; any other mix (an old
tournament record over a newer manifest) makes that partition rebuild from offset 0, with
the reason in status.json. A late record of a worker that lost the partition is therefore
at worst a rebuild, never a wrong state.

Liveness: a watchdog (every 5 s) compares the events topic's end offsets with the last folded
batch; when the topic grew and nothing was folded for `--stall-after` seconds (default 20; a
Faust consumer that never resumes after a broker restart, faust #175/#640), the process
re-executes itself with the same command line and rebuilds as on any start. With several
workers it compares only the partitions this worker owns.

Gaps: an event whose seq is beyond the next one raises `GapDetected`; it is logged, counted
(`gaps` in `<data-dir>/status.json`) and not folded, the tournament is held at its last good
seq (nothing past the gap is published), and the processor re-reads that tournament's
partition from the beginning (`recover_gaps`: on the next batch touching it and every few
seconds) and folds it in order; once the missing seq is there the tournament is released and
published. If the event is really absent from the log the tournament stays held and the gap
stays visible in status.json and the log (an operator matter: the writer protocol in
`services/eventlog/kafka/writer.py` never produces one). A gap can also appear when a partition
moves between two workers of one group; the same re-read repairs it.

Faust settings for one node (see `app.build_app`): store `memory://` (no tables), one agent
instance (concurrency 1) subscribed to the events topic (the batch path folds its records),
`topic_partitions=1` and `topic_replication_factor=1` (no internal topics are used),
`table_standby_replicas=0`,
web server disabled unless `--web-port` is given (then bound to 127.0.0.1),
`processing_guarantee=at_least_once` (a batch counts as processed once folded and sent;
offsets committed every second and every 10,000 records, never automatically by the
client), `producer_max_request_size` above the largest snapshot record, `consumer_auto_offset_reset=
earliest`, and the consumer reads with isolation_level=read_committed (Faust only does that
under exactly_once, so `transport.py` sets it: aborted transactional appends must not be
folded).
"""

from __future__ import annotations

from services.projection.processors.config import ProcessorConfig
from services.projection.processors.core import ProcessorCore

__all__ = ["ProcessorConfig", "ProcessorCore"]
