"""OpenGotha files over HTTP (services/api/opengotha.py, issue 26 item 3): an upload with an
arbiter's token imports the file (201, its report with the conventions not expressed), the
same upload again appends nothing (200), a reader downloads the tournament as the CLI exports
it, a malformed upload is 422 naming the element and the rule with nothing appended, and a
token for another tournament may not upload."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from events_schema import Recorded
from services.api.app import create_app
from services.commands.auth import TokenStore
from services.eventlog.sqlite import SQLiteEventLog
from services.interchange.opengotha.export import export_opengotha

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "opengotha" / "herbst-mcmahon-2026.xml"
XML = {"Content-Type": "application/xml"}


@pytest.fixture
def api(tmp_path: Path):  # type: ignore[no-untyped-def]
    log = SQLiteEventLog(tmp_path / "events.sqlite3")
    tokens = TokenStore(tmp_path / "tokens.sqlite3")
    client = TestClient(create_app(log, tokens))
    t = {
        "arbiter": tokens.create("arbiter", "ref-1", ["herbst"])[0],
        "other": tokens.create("arbiter", "ref-2", ["elsewhere"])[0],
        "reader": tokens.create("broadcaster", "tv")[0],
    }
    yield client, log, t
    log.close()


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", **XML}


def test_upload_then_again_then_download(api) -> None:  # type: ignore[no-untyped-def]
    client, log, t = api
    res = client.post(
        "/tournaments/herbst/opengotha", content=SAMPLE.read_bytes(), headers=_auth(t["arbiter"])
    )
    assert res.status_code == 201, res.text
    body = res.json()
    assert (body["players"], body["rounds"], body["games"], body["appended"]) == (9, 3, 12, 28)
    assert body["not_expressed"] == [] and body["duplicate"] is False
    again = client.post(
        "/tournaments/herbst/opengotha", content=SAMPLE.read_bytes(), headers=_auth(t["arbiter"])
    )
    assert again.status_code == 200 and again.json()["duplicate"] is True
    assert again.json()["appended"] == 0
    got = client.get("/tournaments/herbst/opengotha", headers=_auth(t["reader"]))
    assert got.status_code == 200 and got.headers["content-type"] == "application/xml"
    assert got.content == export_opengotha([Recorded.of(e) for e in log.read("herbst", 1)])
    assert b'egfPin="12345678"' in got.content


def test_the_conventions_not_expressed_are_answered(api) -> None:  # type: ignore[no-untyped-def]
    client, _, t = api
    raw = SAMPLE.read_bytes().replace(b'genMMZero="30K"', b'genMMZero="25K"')
    res = client.post("/tournaments/herbst/opengotha", content=raw, headers=_auth(t["arbiter"]))
    assert res.status_code == 201
    (said,) = res.json()["not_expressed"]
    assert said["name"] == "genMMZero" and "5 points above OpenGotha's" in said["what"]


def test_a_malformed_upload_is_refused_naming_the_element(api) -> None:  # type: ignore[no-untyped-def]
    client, log, t = api
    raw = SAMPLE.read_bytes().replace(b'handicap="9"', b'handicap="11"')
    res = client.post("/tournaments/herbst/opengotha", content=raw, headers=_auth(t["arbiter"]))
    assert res.status_code == 422
    assert res.json()["error"] == {
        "rule": "opengotha.handicap",
        "field": "body Game 12 (round 3, table 4) handicap",
        "message": "11 stones: a handicap is 0 to 9",
    }
    entity = b'<!DOCTYPE T [<!ENTITY x "y">]><Tournament>&x;</Tournament>'
    res = client.post("/tournaments/herbst/opengotha", content=entity, headers=_auth(t["arbiter"]))
    assert res.status_code == 422 and res.json()["error"]["rule"] == "opengotha.entities"
    assert list(log.read("herbst", 1)) == []


def test_who_may_upload_and_download(api) -> None:  # type: ignore[no-untyped-def]
    client, log, t = api
    res = client.post(
        "/tournaments/herbst/opengotha", content=SAMPLE.read_bytes(), headers=_auth(t["other"])
    )
    assert res.status_code == 403 and res.json()["error"]["rule"] == "auth.forbidden"
    assert list(log.read("herbst", 1)) == []
    missing = client.get("/tournaments/nowhere/opengotha", headers=_auth(t["reader"]))
    assert missing.status_code == 404
    assert missing.json()["error"]["rule"] == "opengotha.unknown_tournament"
