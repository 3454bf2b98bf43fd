"""The console's and the live page's token hygiene (issue 24 item 6): a page opened with
`?token=` trades it for an HttpOnly, SameSite=Strict cookie and a redirect without it; the
cookie then authorises the page's reads and (with the console's header) its writes; a reader's
token gets 403 on the console; no log line carries a token (services/api/logs.py)."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests_support import cmd

from services.api.app import create_app
from services.api.http import COOKIE_WRITE_HEADER, TOKEN_COOKIE
from services.api.logs import RedactTokens, redact, redact_logs
from services.commands.auth import TokenStore
from services.eventlog.sqlite import SQLiteEventLog

TID = "console-2026"


@pytest.fixture
def site(tmp_path: Path):
    tokens = TokenStore(tmp_path / "tokens.sqlite3")
    client = TestClient(create_app(SQLiteEventLog(tmp_path / "events.sqlite3"), tokens))
    t = {
        "admin": tokens.create("admin", "chief")[0],
        "arbiter": tokens.create("arbiter", "deputy", [TID])[0],
        "other_arbiter": tokens.create("arbiter", "elsewhere", ["other-2026"])[0],
        "broadcaster": tokens.create("broadcaster", "tv")[0],
    }
    r = client.post(
        f"/tournaments/{TID}/commands",
        json={"commands": [cmd("TournamentCreated", name="Console Open", format="swiss")]},
        headers={"Authorization": f"Bearer {t['admin']}"},
    )
    assert r.status_code == 201, r.text
    return client, t


def _set_cookie(resp) -> str:
    return resp.headers["set-cookie"]


def test_the_console_trades_its_query_token_for_an_httponly_cookie_and_redirects(site):
    client, t = site
    r = client.get(f"/tournaments/{TID}/console?token={t['arbiter']}", follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"] == f"/tournaments/{TID}/console"  # the token is gone
    cookie = _set_cookie(r)
    assert cookie.startswith(f"{TOKEN_COOKIE}={t['arbiter']};")
    attrs = {a.strip().lower() for a in cookie.split(";")[1:]}
    assert "httponly" in attrs and "samesite=strict" in attrs
    assert f"path=/tournaments/{TID}" in attrs  # this tournament's routes only
    assert r.headers["cache-control"] == "no-store"

    # The redirected request carries the cookie only, and gets the page.
    page = client.get(f"/tournaments/{TID}/console")
    assert page.status_code == 200
    assert "Pair next round" in page.text
    assert t["arbiter"] not in page.text  # the page never holds the token
    assert '"role": "arbiter"' in page.text and "Console Open" in page.text


def test_a_query_token_beside_an_authorization_header_is_never_stored(site):
    """The header authorised the request, so the `?token=` was never checked: it is dropped
    from the URL but not made a cookie (schemathesis found a garbage `?token=` beside a good
    header turned into a Set-Cookie that could not even be encoded)."""
    client, t = site
    for page in ("console", "live"):
        r = client.get(
            f"/tournaments/{TID}/{page}?token=not-a-token-\u00e9",
            headers={"Authorization": f"Bearer {t['admin']}"},
            follow_redirects=False,
        )
        assert r.status_code == 303, r.text
        assert r.headers["location"] == f"/tournaments/{TID}/{page}"
        assert "set-cookie" not in r.headers


def test_the_cookie_authorises_reads_and_writes_with_the_console_header_only(site):
    client, t = site
    client.cookies.set(TOKEN_COOKIE, t["arbiter"], path=f"/tournaments/{TID}")
    assert client.get(f"/tournaments/{TID}/projections/standings").status_code in (200, 404)
    assert client.get(f"/tournaments/{TID}/events").status_code == 200
    body = {"commands": [cmd("PlayerRegistered", player_id="ann", name="Ann")]}
    # A write the cookie authorises needs the header a cross-site form cannot send.
    r = client.post(f"/tournaments/{TID}/commands", json=body)
    assert r.status_code == 403
    assert r.json()["error"] == {
        "rule": "auth.cookie_write",
        "field": COOKIE_WRITE_HEADER,
        "message": r.json()["error"]["message"],
    }
    assert client.get(f"/tournaments/{TID}/events").json()["count"] == 1  # nothing appended
    r = client.post(f"/tournaments/{TID}/commands", json=body, headers={COOKIE_WRITE_HEADER: "1"})
    assert r.status_code == 201, r.text
    assert r.json()["events"][0]["actor"] == {"id": "deputy", "role": "arbiter"}


def test_readers_and_other_arbiters_get_403_on_the_console_and_no_cookie(site):
    client, t = site
    for who in ("broadcaster", "other_arbiter"):
        r = client.get(f"/tournaments/{TID}/console?token={t[who]}", follow_redirects=False)
        assert r.status_code == 403, who
        assert r.json()["error"]["rule"] == "auth.forbidden"
        assert "set-cookie" not in r.headers
    client.cookies.set(TOKEN_COOKIE, t["broadcaster"], path=f"/tournaments/{TID}")
    assert client.get(f"/tournaments/{TID}/console").status_code == 403
    r = client.get(f"/tournaments/{TID}/console?token=arb_nope_nope", follow_redirects=False)
    assert r.status_code == 401
    assert r.json()["error"]["rule"] == "auth.invalid_token"
    client.cookies.clear()
    r = client.get(f"/tournaments/{TID}/console")
    assert r.status_code == 401 and r.json()["error"]["rule"] == "auth.missing_token"


def test_an_admin_opens_the_console(site):
    client, t = site
    r = client.get(f"/tournaments/{TID}/console", headers={"Authorization": f"Bearer {t['admin']}"})
    assert r.status_code == 200 and '"role": "admin"' in r.text


def test_the_live_page_trades_its_token_too_and_its_stream_reads_the_cookie(site):
    client, t = site
    r = client.get(f"/tournaments/{TID}/live?token={t['broadcaster']}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/tournaments/{TID}/live"
    assert "httponly" in _set_cookie(r).lower()
    assert client.get(f"/tournaments/{TID}/live").status_code == 200
    # The live page's script still sends an empty ?token= to the stream: the cookie counts.
    r = client.get(f"/tournaments/{TID}/feed-status?token=")
    assert r.status_code == 200 and r.json()["tournament_id"] == TID


def test_redact_hides_query_tokens_and_token_secrets():
    line = '127.0.0.1:5 - "GET /tournaments/t/live?patches=true&token=secret-1&x=1 HTTP/1.1" 303'
    assert redact(line) == (
        '127.0.0.1:5 - "GET /tournaments/t/live?patches=true&token=***&x=1 HTTP/1.1" 303'
    )
    assert redact("Bearer arb_0a1b2c3d4e5f_S3cr3t-_x") == "Bearer arb_0a1b2c3d4e5f_***"
    assert redact("?TOKEN=abc") == "?TOKEN=***"
    assert redact("GET /tournaments/t/events?from_seq=3") == "GET /tournaments/t/events?from_seq=3"


def test_uvicorns_access_log_line_never_carries_the_token(site):
    """As `arbiter serve` sets it up: uvicorn's own logging configuration, then redact_logs();
    an access record as uvicorn's h11/httptools protocol logs it (path with query as an
    argument), formatted by uvicorn's AccessFormatter."""
    import uvicorn

    client, t = site
    uvicorn.Config(client.app)  # configures logging (uvicorn's LOGGING_CONFIG)
    redact_logs()
    access = logging.getLogger("uvicorn.access")
    out = io.StringIO()
    handler = access.handlers[0]
    assert isinstance(handler, logging.StreamHandler)
    old = handler.setStream(out)
    try:
        secret = t["arbiter"]
        access.info(
            '%s - "%s %s HTTP/%s" %d',
            "127.0.0.1:50000",
            "GET",
            f"/tournaments/{TID}/console?token={secret}",
            "1.1",
            303,
        )
        access.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:1", "GET", "/x?token=secret", "1.1", 401)
    finally:
        handler.setStream(old)
    text = out.getvalue()
    assert f"/tournaments/{TID}/console?token=*** HTTP/1.1" in text
    assert secret not in text and "secret" not in text
    assert any(isinstance(f, RedactTokens) for f in access.filters)


@pytest.mark.slow  # starts `arbiter serve`
def test_arbiter_serve_writes_no_token_to_its_access_log(tmp_path: Path):
    """The real process: uvicorn's access log (stdout) and error log (stderr) of `arbiter
    serve` after requests that carry a token in their query."""
    import subprocess
    import sys
    import time

    import httpx
    from bench.feed import REPO, ApiServer

    srv = ApiServer(tmp_path)
    viewer = srv.token("broadcaster", "tv")
    out, err = (tmp_path / "stdout.log").open("wb"), (tmp_path / "stderr.log").open("wb")
    code = "from services.cli.main import app; app()"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "serve", "--host", "127.0.0.1", "--port", str(srv.port)],
        cwd=REPO,
        env=srv.env,
        stdout=out,
        stderr=err,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (tmp_path / "stderr.log").read_text()
            try:
                if httpx.get(f"{srv.url}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "arbiter serve did not start"
            time.sleep(0.1)
        page = httpx.get(f"{srv.url}/tournaments/{TID}/live?token={viewer}")
        assert page.status_code == 303  # the cookie and the redirect
        bad = httpx.get(f"{srv.url}/tournaments/{TID}/projections/standings?token=secret")
        assert bad.status_code == 401
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        out.close()
        err.close()
    logged = (tmp_path / "stdout.log").read_text() + (tmp_path / "stderr.log").read_text()
    assert f"/tournaments/{TID}/live?token=*** HTTP/1.1" in logged, logged
    assert "standings?token=*** HTTP/1.1" in logged
    assert viewer.rsplit("_", 1)[1] not in logged and "secret" not in logged


def test_the_console_page_escapes_the_tournament_name():
    from services.feed.console import console_page

    page = console_page("t-1", "</script><b>Open</b> & “Co”", "arbiter", "deputy")
    assert (
        "<title>&lt;/script&gt;&lt;b&gt;Open&lt;/b&gt; &amp; “Co” — arbiter's console</title>"
        in page
    )
    # every </script> closes one of the page's own <script> elements: the name cannot end one
    assert page.count("</script>") == page.count("<script")
    assert '"name": "\\u003c/script>\\u003cb>Open\\u003c/b> & “Co”"' in page
