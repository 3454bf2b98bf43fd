"""The live page in a real browser: headless Debian Chromium (/usr/bin/chromium, installed by
scripts/test when missing) loads `/tournaments/{id}/live` from a real `arbiter serve` on
127.0.0.1, and a result appended through the API shows up on the page.

Chromium is driven over the Chrome DevTools protocol on a pipe (`--remote-debugging-pipe`:
JSON messages ending in NUL, on fds 3 and 4), so no Python package and no chromedriver are
needed.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from bench.feed import ApiServer

CHROMIUM = os.environ.get("ARBITER_CHROMIUM", "/usr/bin/chromium")
TID = "live-2026"

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason=f"no Chromium at {CHROMIUM} (scripts/test installs it)"
)


class Chromium:
    """Headless Chromium with a DevTools pipe: one page, `evaluate` runs JS in it."""

    FLAGS = (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--remote-debugging-pipe",
    )

    def __init__(self) -> None:
        self.profile = tempfile.mkdtemp(prefix="arbiter-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def fds() -> None:  # in the child: the pipe at fds 3 (commands) and 4 (replies)
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)

        self.proc = subprocess.Popen(
            [CHROMIUM, *self.FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            preexec_fn=fds,
            close_fds=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._next = 0
        self._replies: dict[int, dict[str, Any]] = {}
        self._cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        self.session: str | None = None

    def _read(self) -> None:
        buf = b""
        while True:
            try:
                chunk = os.read(self._from_child, 65536)
            except OSError:
                return
            if not chunk:
                return
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                if "id" in msg:
                    with self._cond:
                        self._replies[msg["id"]] = msg
                        self._cond.notify_all()

    def send(self, method: str, params: dict[str, Any] | None = None, timeout: float = 30) -> Any:
        self._next += 1
        ident = self._next
        msg: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if self.session and not method.startswith("Target."):
            msg["sessionId"] = self.session
        os.write(self._to_child, json.dumps(msg).encode() + b"\0")
        with self._cond:
            if not self._cond.wait_for(lambda: ident in self._replies, timeout):
                raise TimeoutError(f"no reply to {method}")
            reply = self._replies.pop(ident)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def open(self, url: str) -> None:
        target = self.send("Target.createTarget", {"url": url})["targetId"]
        attached = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})
        self.session = attached["sessionId"]

    def evaluate(self, expression: str) -> Any:
        res = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return res.get("result", {}).get("value")

    def wait_for(self, expression: str, expected: Any, timeout: float = 20) -> Any:
        deadline = time.monotonic() + timeout
        value = None
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value == expected:
                return value
            time.sleep(0.1)
        raise AssertionError(f"{expression} is {value!r}, not {expected!r}")

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
        for fd in (self._to_child, self._from_child):
            with contextlib.suppress(OSError):
                os.close(fd)
        shutil.rmtree(self.profile, ignore_errors=True)


def cmd(type_: str, **payload: Any) -> dict[str, Any]:
    return {"type": type_, "payload": payload}


def test_a_result_appended_through_the_api_appears_on_the_live_page(tmp_path: Path):
    with ApiServer(tmp_path) as srv:
        admin = srv.token("admin", "chief")
        viewer = srv.token("broadcaster", "tv")
        headers = {"Authorization": f"Bearer {admin}"}

        def post(body: dict[str, Any]) -> None:
            r = httpx.post(f"{srv.url}/tournaments/{TID}/commands", json=body, headers=headers)
            assert r.status_code == 201, r.text

        post(
            {
                "commands": [
                    cmd(
                        "TournamentCreated",
                        name="Live 2026",
                        format="swiss",
                        rounds=3,
                        rules_preset="fide-swiss",
                    ),
                    cmd("PlayerRegistered", player_id="alice", name="Alice"),
                    cmd("PlayerRegistered", player_id="bob", name="Bob"),
                    cmd(
                        "RoundScheduled",
                        round=1,
                        pairings=[{"game_id": "g1", "white": "alice", "black": "bob"}],
                    ),
                ]
            }
        )
        browser = Chromium()
        try:
            browser.open(f"{srv.url}/tournaments/{TID}/live?token={viewer}")
            rows = "document.querySelectorAll('#standings tbody tr').length"
            browser.wait_for(rows, 2)
            points = (
                "(document.querySelector('#standings tbody tr[data-player=\"alice\"] td.points')"
                " || {}).textContent"
            )
            assert browser.evaluate(points) == "0"
            headers_js = "[...document.querySelectorAll('#standings th')].map(t => t.textContent)"
            columns = browser.evaluate(headers_js)
            assert columns[-1] == "Decided by" and "Points" in columns
            assert len(columns) > 8, columns  # the tiebreak columns
            assert browser.evaluate("document.getElementById('playoff').textContent") != "—"
            assert browser.evaluate("document.getElementById('prizes').textContent") != "—"

            post(cmd("GameEnded", game_id="g1", result="1-0", termination="resignation"))
            browser.wait_for(points, "1")
            first = "document.querySelector('#standings tbody tr').dataset.player"
            assert browser.evaluate(first) == "alice"
            assert "live" in browser.evaluate("document.getElementById('status').textContent")
        finally:
            browser.close()
