"""Schemathesis on the served OpenAPI (services/api/openapi.py): every operation, positive and
negative cases, with the admin token, the arbiter token (scoped to `open-2026`) or whatever
credentials schemathesis makes up; no response may be a 5xx, each status must be documented
and each error must have the `{"error": {rule, field, message}}` shape.

`GET /tournaments/{id}/stream` never ends; it is fuzzed in test_nasty_inputs.py with a short
read instead. Bounded and derandomized, so CI runs the same cases every time.
"""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from events_schema import EVENT_TYPES
from projections.documents import PROJECTIONS
from services.api.app import create_app
from services.commands.auth import TokenStore
from services.eventlog.sqlite import SQLiteEventLog

from .fuzz_support import TID, FuzzApi

pytestmark = pytest.mark.slow  # make test-fast leaves it out


#: Generated cases per operation and generation mode (the coverage phase adds its own).
MAX_EXAMPLES = 60

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def _known_names(context: Any, path_parameters: dict[str, Any]) -> Any:
    """Half the cases name the seeded tournament (and a real projection), so that commands
    reach the decider of a tournament with players and a round, not only `stream.not_created`."""
    if not isinstance(path_parameters, dict) or "tournament_id" not in path_parameters:
        return st.just(path_parameters)
    known = {**path_parameters, "tournament_id": TID}
    if "name" in path_parameters:
        known["name"] = "standings"
        names = [{**known, "name": n} for n in PROJECTIONS]
        return st.sampled_from([path_parameters, known, *names])
    return st.sampled_from([path_parameters, known])


def _served_document() -> dict[str, Any]:
    """The OpenAPI document `create_app` serves (from a throwaway app: the cases are sent to
    the module's `fuzz_api` app, whose document the first test compares)."""
    with tempfile.TemporaryDirectory() as tmp:
        log = SQLiteEventLog(Path(tmp) / "events.sqlite3")
        tokens = TokenStore(":memory:")
        try:
            doc: dict[str, Any] = TestClient(create_app(log, tokens)).get("/openapi.json").json()
        finally:
            log.close()
            tokens.close()
    return doc


DOCUMENT = _served_document()
schema = schemathesis.openapi.from_dict(
    copy.deepcopy(DOCUMENT),
    config=schemathesis.Config.from_dict(
        {
            "generation": {"mode": "all", "deterministic": True},
            "phases": {"stateful": {"enabled": False}},
        }
    ),
).exclude(path_regex=r"/stream$")
schema.hook("flatmap_path_parameters")(_known_names)


def test_the_served_document_is_the_one_fuzzed(fuzz_api: FuzzApi) -> None:
    r = fuzz_api.call("GET", "/openapi.json", token=None)
    assert r.status_code == 200
    assert r.json() == DOCUMENT
    body = DOCUMENT["paths"]["/tournaments/{tournament_id}/commands"]["post"]["requestBody"]
    variants = body["content"]["application/json"]["schema"]["anyOf"]
    types = {v["properties"]["type"]["const"] for v in variants if "type" in v["properties"]}
    assert types == set(EVENT_TYPES)
    batch = next(v for v in variants if "commands" in v["properties"])
    assert len(batch["properties"]["commands"]["items"]["anyOf"]) == len(EVENT_TYPES)


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_no_server_error_on_any_operation(case: schemathesis.Case[Any], fuzz_api: FuzzApi) -> None:
    # Of every six cases: three as the admin, two as the arbiter (in its own tournament, so
    # that they get past the scope check), one with whatever credentials schemathesis made up.
    n = fuzz_api.stats.requests % 6
    headers: dict[str, str] = {}
    if n in (0, 2, 4):
        headers = fuzz_api.auth(fuzz_api.admin)
    elif n in (1, 3):
        headers = fuzz_api.auth(fuzz_api.arbiter)
        if case.path_parameters and "tournament_id" in case.path_parameters:
            case.path_parameters["tournament_id"] = TID
    response = case.call(headers=headers, app=fuzz_api.app)
    body = case.body[:200] if isinstance(case.body, bytes) else case.body
    fuzz_api.record(
        case.method, case.formatted_path, response.status_code, response.text, body, fail=False
    )
    case.validate_response(response, checks=CHECKS)
