"""`python -m tests.bench` (from the repository root): run the benchmarks, one JSON document.

`tests/` is not a package and the project may not be installed; importing `.runner` puts
the repository root (events_schema, services) and `tests/` (builders) on sys.path first.
"""

from __future__ import annotations

import json
import sys

from . import standings
from .runner import exit_code, main

if __name__ == "__main__":
    # `python -m tests.bench [--quick] [--all] [--skip-kafka] [--events N] [--only a,b]`: the
    # event logs, the standings, pairing (Dutch, Galway, the 4×DRR schedule), endings (the
    # adjudicator beside bare python-chess), the PGN import, Go, McMahon, the projector (µs per
    # live MovePlayed beside the full rebuild and a bare orjson.dumps), the feed fan-out
    # (append → SSE on 1,000 subscribers beside a bare asyncio fan-out), the relay (CPU per
    # poll of a 500-board source beside a bare read_game; source change → SSE at 1 s polling),
    # the engine arena (beside a bare python-chess engine.play loop), the decode of stored
    # events (one pass beside two and orjson.loads), the Go arena (GNU Go
    # through GTP, beside a bare GTP loop) and the CLI start-up,
    # as one JSON document. `--all` adds the long parts: the embedded replay (1M events, 100k
    # with --quick; beside orjson.loads of the same bodies and pyeventsourcing's notification
    # projection of the same events; `--only replay`: 100k, 20k with --quick) and the Kafka
    # processors (beside raw aiokafka loops; needs KAFKA_BOOTSTRAP, else reported as skipped)
    # and the Kafka
    # writer's group commit and per-tournament read (beside raw producers, read_all).
    args = sys.argv[1:]
    everything = "--all" in args
    args = [a for a in args if a != "--all"]
    only: set[str] | None = None
    if "--only" in args:
        i = args.index("--only")
        only = set(args[i + 1].split(","))
        args = args[:i] + args[i + 2 :]
    quick = "--quick" in args

    def wanted(name: str) -> bool:
        return only is None or name in only

    doc: dict[str, object] = {}
    eventlog = main(args, emit=False) if wanted("eventlog") else None
    if eventlog is not None:
        doc["eventlog"] = eventlog
    if wanted("standings"):
        doc["standings"] = standings.main(["--quick"] if quick else [], emit=False)
    if wanted("pairing"):
        from . import pairing, schedule

        doc["pairing"] = pairing.run(quick)
        doc["schedule"] = schedule.run(quick)
    if wanted("endings"):
        from . import endings

        doc["endings"] = endings.run(quick)
    if wanted("pgn_import"):
        from . import pgn_import

        doc["pgn_import"] = pgn_import.run(quick)
    if wanted("pgn_big"):
        from . import pgn_big

        # a ~50 MB PGN (2 MB with --quick) imported, beside a bare read_game loop (issue 26)
        doc["pgn_big"] = pgn_big.run(quick)
    if wanted("go"):
        from . import go

        doc["go"] = go.run(quick)
    if wanted("mcmahon"):
        from . import mcmahon

        doc["mcmahon"] = mcmahon.run(quick)
    if wanted("projector"):
        from . import projector

        doc["projector"] = projector.run(quick)
    if wanted("feed"):
        from . import feed

        doc["feed"] = feed.run(quick)
    if wanted("http_move"):
        from . import http_move

        # One MovePlayed over HTTP: server CPU per move beside a bare FastAPI + SQLite endpoint.
        doc["http_move"] = http_move.run(quick)
    if wanted("relay"):
        from . import relay

        doc["relay"] = relay.run(quick)
    if wanted("arena"):
        from . import arena

        doc["arena"] = arena.run(quick)
    if wanted("arena_go"):
        from . import arena_go

        doc["arena_go"] = arena_go.run(quick)
    if wanted("decode"):
        from . import decode

        # One-pass decode of stored events beside the two-pass decode and orjson.loads.
        doc["decode"] = decode.run(quick)
    if wanted("cli"):
        from . import cli

        doc["cli"] = cli.run(3 if quick else 5)
    if everything or (only is not None and "replay" in only):
        from . import replay

        # 100,000 events (20,000 with --quick), about a minute with its peers; --all: 1M (100k).
        size = (
            ("100000" if quick else "1000000") if everything else ("20000" if quick else "100000")
        )
        doc["replay"] = replay.main(["--events", size], emit=False)
    if everything or (only is not None and "processors" in only):
        import os

        from . import processors

        doc["processors"] = (
            processors.main(["--events", "5000" if quick else "50000"], emit=False)
            if os.environ.get("KAFKA_BOOTSTRAP")
            else {"skipped": "no KAFKA_BOOTSTRAP"}
        )
    if everything or (only is not None and "kafka_append" in only):
        from . import kafka_append

        # The Kafka writer's group commit and per-tournament read (needs KAFKA_BOOTSTRAP).
        doc["kafka_append"] = kafka_append.main(["--quick"] if quick else [], emit=False)
    if only is not None and "feed_kafka" in only:
        from . import feed_kafka

        # Deliveries per CPU-second of 1 and 2 feed processes on Kafka (`arbiter serve --role
        # feed`) beside the bare asyncio fan-out (issue 27 item 4; needs KAFKA_BOOTSTRAP).
        doc["feed_kafka"] = feed_kafka.main(["--quick"] if quick else [], emit=False)
    if only is not None and "http_kafka" in only:
        from . import http_kafka

        # HTTP appends through 1, 2, 3 `arbiter serve` processes on Kafka beside the log alone
        # (issue 27 item 7; needs KAFKA_BOOTSTRAP).
        doc["http_kafka"] = http_kafka.main(["--quick"] if quick else [], emit=False)
    print(json.dumps(doc, indent=2))
    raise SystemExit(exit_code(eventlog) if eventlog is not None else 0)
