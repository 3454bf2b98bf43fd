"""A real full disk under the embedded log (issue 27 item 6), as one JSON document: the API
(uvicorn, in this process) on a SQLite log in `--dir`, which must be a small filesystem of its
own; the disk is filled with a file, `--requests` appends are sent at once (one client thread
each), then the file is removed and 10 appends sent again.

Every request must be answered: 503 with `Retry-After: 30` and the rule `storage.full` while
the disk is full, 201 once space is freed. (Before issue 27 the same burst answered 500
"internal".) Not part of `python -m tests.bench`: it needs a filesystem to fill, e.g. as root

    mkdir -p /tmp/arbiter_full && mount -t tmpfs -o size=3m tmpfs /tmp/arbiter_full
    python -m tests.bench.disk_full --dir /tmp/arbiter_full
    umount /tmp/arbiter_full
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from .runner import ensure_paths

ensure_paths()

from services.api.app import create_app  # noqa: E402
from services.commands.auth import TokenStore  # noqa: E402
from services.eventlog.sqlite import SQLiteEventLog  # noqa: E402

CREATE = {"type": "TournamentCreated", "payload": {"name": "X", "format": "swiss"}}


def run(folder: Path, requests: int, port: int) -> dict[str, Any]:
    log = SQLiteEventLog(folder / "events.sqlite3")
    with tempfile.TemporaryDirectory() as tmp:
        tokens = TokenStore(Path(tmp) / "tokens.sqlite3")
        admin = tokens.create("admin", "chief")[0]
        server = uvicorn.Server(
            uvicorn.Config(create_app(log, tokens), host="127.0.0.1", port=port, log_level="error")
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        headers = {"Authorization": f"Bearer {admin}"}
        base = f"http://127.0.0.1:{port}"

        def post(i: int) -> str:
            """Create tournament `b{i}` (its own stream: no refusal for a stream made)."""
            try:
                with httpx.Client(base_url=base, timeout=60) as client:
                    r = client.post(f"/tournaments/b{i}/commands", headers=headers, json=CREATE)
                rule = r.json().get("error", {}).get("rule") if r.status_code >= 400 else None
                return f"{r.status_code} {rule or ''} retry-after={r.headers.get('Retry-After')}"
            except httpx.HTTPError as exc:
                return f"no answer ({type(exc).__name__})"

        filler = folder / "filler"
        try:
            before = post(0)
            with filler.open("wb") as f:
                try:
                    while True:
                        f.write(b"\0" * 65536)
                        f.flush()
                except OSError:
                    pass
            with cf.ThreadPoolExecutor(requests) as pool:
                burst = Counter(pool.map(post, range(1, requests + 1)))
        finally:
            filler.unlink(missing_ok=True)
        after = Counter(post(i) for i in range(requests + 1, requests + 11))
        server.should_exit = True
        thread.join(10)
    log.close()
    return {"before": before, "burst_full_disk": dict(burst), "after_freeing": dict(after)}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(prog="python -m tests.bench.disk_full")
    ap.add_argument("--dir", type=Path, required=True, help="a small filesystem to fill")
    ap.add_argument("--requests", type=int, default=60)
    ap.add_argument("--port", type=int, default=19611)
    args = ap.parse_args(argv)
    doc = run(args.dir, args.requests, args.port)
    print(json.dumps(doc, indent=2))
    return doc


if __name__ == "__main__":
    main()
