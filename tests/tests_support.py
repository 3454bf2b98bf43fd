"""Shared test constants and helpers that are not builders."""

import subprocess
from pathlib import Path

from events_schema import Actor

ADMIN_ACTOR = Actor(id="admin-test", role="admin")


def terminate(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if it has not exited within 30 s."""
    if proc.poll() is None:
        proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def tail_logs(folder: Path) -> str:
    """The last 3,000 characters of each `*.log` in `folder`, for assertion messages."""
    return "\n".join(
        f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}"
        for p in sorted(folder.glob("*.log"))
    )
