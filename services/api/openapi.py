"""The parts of the served OpenAPI document that FastAPI cannot infer.

- `command_openapi()`: `POST /tournaments/{id}/commands` reads its body itself (bounded, then
  validated strictly; services/api/app.py), so FastAPI sees no body model. This describes the
  body from events_schema, for the route's `openapi_extra`: one command per event type (`type`
  a const, `payload` that event's JSON Schema), or a batch `{"commands": [...],
  "expected_seq"}`.
- `document(app)`: every route answers errors as `{"error": {"rule", "field", "message"}}`; this
  documents, per operation, the statuses it can answer with that body (401, 403, 404, 409,
  413, 422, 503), the content type of non-JSON answers (the SSE stream, the live page, the
  console) and the bearer token (or `?token=` where the feed, the checkpoint routes and the
  console accept it, or the pages' cookie on a tournament's routes: the token check is
  services/api/http.py `principal`).
- The projection contract (`events_schema.documents`): the 200 body of `GET
  /tournaments/{id}/projections/{name}` is one of the four documents, and the SSE stream's
  messages (`x-sse-messages`) are `SseMessage`; their models are components (the same JSON
  Schemas as events_schema/json/projections/, `x-schema-file`).

Only the document changes: the routes parse and answer as before. A client generator or a
fuzzer (tests/fuzz/test_schemathesis.py runs schemathesis on it) reads it from
`/openapi.json`.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from fastapi import FastAPI

from events_schema.commands import Command, CommandBatch
from events_schema.events import EVENT_CLASSES, Event

JsonSchema = dict[str, Any]

_ERROR_DETAIL: JsonSchema = {
    "type": "object",
    "required": ["rule", "field", "message"],
    "properties": {
        "rule": {"type": "string", "description": "e.g. limits.depth, auth.forbidden"},
        "field": {"type": "string", "description": "JSON path of the offending value"},
        "message": {"type": "string"},
    },
}

ERROR_SCHEMA: JsonSchema = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": _ERROR_DETAIL,
        "errors": {
            "type": "array",
            "description": "when several problems were found (a payload with several "
            "mistakes): all of them, `error` first",
            "items": _ERROR_DETAIL,
        },
    },
}

_ERRORS: dict[int, str] = {
    401: "No token, or an unknown or revoked one (`WWW-Authenticate: Bearer`).",
    403: "The token's role or tournaments do not allow this.",
    404: "Nothing of that name (yet).",
    409: "A concurrency or event-id conflict, or the tournament's projections are held.",
    413: "Too large: the body, an event or a batch (events_schema/limits.py).",
    422: "Invalid input, or a command refused by the rules (nothing was appended).",
    503: "The event log is unavailable; retry after `Retry-After` seconds.",
}

# Error statuses per operation (method, path); any other operation gets `_DEFAULT_ERRORS`.
_DEFAULT_ERRORS = (401, 403, 404, 409, 422, 503)
_OPERATION_ERRORS: dict[tuple[str, str], tuple[int, ...]] = {
    ("get", "/health"): (),
    ("get", "/tournaments"): (401, 503),
    ("get", "/tournaments/{tournament_id}/events"): (401, 403, 422, 503),
    ("post", "/tournaments/{tournament_id}/commands"): (401, 403, 409, 413, 422, 503),
    ("get", "/tournaments/{tournament_id}/projections/{name}"): (401, 403, 404, 409, 422),
    ("get", "/tournaments/{tournament_id}/feed-status"): (401, 403, 422),
    ("get", "/tournaments/{tournament_id}/stream"): (401, 403, 422),
    ("get", "/tournaments/{tournament_id}/live"): (401, 403, 422),
    ("get", "/tournaments/{tournament_id}/console"): (401, 403, 422),
    ("get", "/tournaments/{tournament_id}/checkpoints"): (401, 403, 422, 503),
    ("get", "/tournaments/{tournament_id}/checkpoints/latest"): (401, 403, 404, 422, 503),
    ("post", "/tournaments/{tournament_id}/checkpoints"): (401, 403, 404, 422, 503),
    ("get", "/tournaments/{tournament_id}/games/{game_id}.pgn"): (401, 403, 404, 422),
    ("get", "/tournaments/{tournament_id}/games/{game_id}"): (401, 403, 404, 422),
    ("get", "/tournaments/{tournament_id}/games.pgn"): (401, 403, 404, 422),
    ("get", "/tournaments/{tournament_id}/h9"): (401, 403, 404, 422),
    ("get", "/tournaments/{tournament_id}/aga"): (401, 403, 404, 422),
}
# Operations that answer 201 (created), not 200, with the body FastAPI documented for 200.
_CREATED = frozenset({("post", "/tournaments/{tournament_id}/checkpoints")})
# Success content types that are not JSON.
_MEDIA_TYPES: dict[tuple[str, str], str] = {
    ("get", "/tournaments/{tournament_id}/stream"): "text/event-stream",
    ("get", "/tournaments/{tournament_id}/live"): "text/html",
    ("get", "/tournaments/{tournament_id}/games/{game_id}.pgn"): "application/x-chess-pgn",
    ("get", "/tournaments/{tournament_id}/console"): "text/html",
    ("get", "/tournaments/{tournament_id}/games.pgn"): "application/x-chess-pgn",
    ("get", "/tournaments/{tournament_id}/h9"): "text/plain",
    ("get", "/tournaments/{tournament_id}/aga"): "text/plain",
}
# Routes that also take `?token=` (EventSource cannot set headers): the feed's and the
# checkpoints' routes.
_QUERY_TOKEN_PREFIXES = (
    "/tournaments/{tournament_id}/projections",
    "/tournaments/{tournament_id}/feed-status",
    "/tournaments/{tournament_id}/stream",
    "/tournaments/{tournament_id}/live",
    "/tournaments/{tournament_id}/checkpoints",
    "/tournaments/{tournament_id}/games",
    "/tournaments/{tournament_id}/console",
)
_SECURITY_SCHEMES: JsonSchema = {
    "bearer": {
        "type": "http",
        "scheme": "bearer",
        "description": "`arbiter token create`: `arb_<id>_<secret>`",
    },
    "query_token": {"type": "apiKey", "in": "query", "name": "token"},
    # What a page opened with ?token= trades it for (services/api/http.py cookie_login); a
    # write it authorises also needs the X-Arbiter-Console header.
    "cookie_token": {"type": "apiKey", "in": "cookie", "name": "arbiter_token"},
}


# -- the command body --------------------------------------------------------------------


def _inline(schema: JsonSchema) -> JsonSchema:
    """`schema` with every `#/$defs/...` reference replaced by its definition, so that it can
    be embedded anywhere in the OpenAPI document (pydantic's refs are local to the model's
    schema). The event models are not recursive; a cycle would raise."""
    defs: dict[str, JsonSchema] = schema.get("$defs", {})

    def walk(node: Any, seen: tuple[str, ...]) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref.removeprefix("#/$defs/")
                if name in seen:
                    raise ValueError(f"recursive schema: {' -> '.join((*seen, name))}")
                target = walk(defs[name], (*seen, name))
                siblings = {k: walk(v, seen) for k, v in node.items() if k != "$ref"}
                return {**target, **siblings}
            return {k: walk(v, seen) for k, v in node.items() if k != "$defs"}
        if isinstance(node, list):
            return [walk(v, seen) for v in node]
        return node

    out: JsonSchema = walk(schema, ())
    return out


def _command_fields() -> dict[str, JsonSchema]:
    """The command's fields other than `type` and `payload` (ids, `occurred_at`)."""
    props: dict[str, JsonSchema] = _inline(Command.model_json_schema())["properties"]
    return {k: v for k, v in props.items() if k not in ("type", "payload")}


def event_command_schema(cls: type[Event], single: bool) -> JsonSchema:
    """One command proposing a `cls` event; `single`: sent alone, so it may carry
    `expected_seq` (a command inside a batch may not)."""
    payload = _inline(cls.model_json_schema())
    payload.pop("title", None)
    payload["description"] = (
        f"{cls.event_type} v{cls.schema_version}: {payload.get('description', '')}".strip()
    )
    props: dict[str, JsonSchema] = {
        "type": {"const": cls.event_type},
        "payload": payload,
        **_command_fields(),
    }
    if single:
        props["expected_seq"] = _expected_seq()
    required = ["type", "payload"] if payload.get("required") else ["type"]
    return {
        "title": f"{cls.event_type} command",
        "type": "object",
        "required": required,
        "properties": props,
        "additionalProperties": False,
    }


def _expected_seq() -> JsonSchema:
    props: dict[str, JsonSchema] = CommandBatch.model_json_schema()["properties"]
    return copy.deepcopy(props["expected_seq"])


@functools.cache
def _command_body_schema() -> JsonSchema:
    batch_items = {"anyOf": [event_command_schema(cls, single=False) for cls in EVENT_CLASSES]}
    batch: JsonSchema = {
        "title": "Command batch",
        "description": "Commands appended atomically, in order: all of them or none.",
        "type": "object",
        "required": ["commands"],
        "properties": {
            "commands": {"type": "array", "minItems": 1, "maxItems": 1000, "items": batch_items},
            "expected_seq": _expected_seq(),
        },
        "additionalProperties": False,
    }
    singles = [event_command_schema(cls, single=True) for cls in EVENT_CLASSES]
    return {"anyOf": [*singles, batch]}


def command_openapi() -> JsonSchema:
    """`openapi_extra` for `POST /tournaments/{id}/commands`: its request body."""
    return {
        "requestBody": {
            "required": True,
            "description": (
                "One command `{type, payload, event_id?, occurred_at?, expected_seq?}` or a "
                "batch `{commands: [...], expected_seq?}`. Parsed by the route itself: bounded "
                "first (events_schema/limits.py), then validated strictly as JSON."
            ),
            "content": {"application/json": {"schema": copy.deepcopy(_command_body_schema())}},
        }
    }


# -- responses and security -------------------------------------------------------------

_APPENDED: JsonSchema = {
    "type": "object",
    "required": ["tournament_id", "duplicate", "last_seq", "events"],
    "properties": {
        "tournament_id": {"type": "string"},
        "duplicate": {"type": "boolean"},
        "last_seq": {"type": "integer"},
        "events": {"type": "array", "items": {"type": "object"}},
        "partial": {"type": "boolean"},
    },
}


def _error_response(status: int) -> JsonSchema:
    resp: JsonSchema = {
        "description": _ERRORS[status],
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }
    if status == 401:
        resp["headers"] = {"WWW-Authenticate": {"schema": {"type": "string"}}}
    if status == 503:
        resp["headers"] = {"Retry-After": {"schema": {"type": "string"}}}
    return resp


def _document_operation(method: str, path: str, op: JsonSchema) -> None:
    key = (method, path)
    responses: JsonSchema = op.setdefault("responses", {})
    if key == ("post", "/tournaments/{tournament_id}/commands"):
        appended = {"application/json": {"schema": _APPENDED}}
        responses.pop("200", None)
        responses["201"] = {"description": "Appended: the stored events.", "content": appended}
        responses["200"] = {
            "description": "A resend (same event ids): what was stored the first time.",
            "content": copy.deepcopy(appended),
        }
    if key in _CREATED and "200" in responses:
        responses["201"] = {**responses.pop("200"), "description": "Created"}
    media = _MEDIA_TYPES.get(key)
    if media is not None:
        ok = responses.setdefault("200", {"description": "Successful Response"})
        ok["content"] = {media: {"schema": {"type": "string"}}}
    errors = _OPERATION_ERRORS.get(key, _DEFAULT_ERRORS)
    for status in errors:
        responses[str(status)] = _error_response(status)
    if "422" in responses and 422 not in errors:  # FastAPI's default for any parameter
        responses["422"] = _error_response(422)
    if path == "/health":
        op["security"] = []
    elif path.startswith(_QUERY_TOKEN_PREFIXES):
        op["security"] = [{"bearer": []}, {"query_token": []}]
    else:
        op["security"] = [{"bearer": []}]
    if path.startswith("/tournaments/{tournament_id}/"):  # the cookie's path
        op["security"].append({"cookie_token": []})


_PROJECTION = ("get", "/tournaments/{tournament_id}/projections/{name}")
_STREAM = ("get", "/tournaments/{tournament_id}/stream")


def _contract(doc: JsonSchema) -> None:
    """The document and SSE message models as components, referenced from the projection
    route's 200 and from the stream's `x-sse-messages`."""
    from pydantic import TypeAdapter

    from events_schema.documents import DOCUMENT_VERSION, Document, SseMessage

    template = "#/components/schemas/{model}"
    schemas: JsonSchema = doc.setdefault("components", {}).setdefault("schemas", {})
    models: tuple[tuple[str, Any], ...] = (("Document", Document), ("SseMessage", SseMessage))
    for name, model in models:
        schema = TypeAdapter(model).json_schema(ref_template=template)
        schemas.update(schema.pop("$defs", {}))
        schemas[name] = schema
    paths = doc.get("paths", {})
    op = paths.get(_PROJECTION[1], {}).get(_PROJECTION[0])
    if op is not None:
        op.setdefault("responses", {})["200"] = {
            "description": f"The projection document (version {DOCUMENT_VERSION}): one of "
            "standings, tiebreaks, playoff, prizes, games, as published on the stream.",
            "content": {
                "application/json": {"schema": {"$ref": template.format(model="Document")}}
            },
            "x-schema-file": f"events_schema/json/projections/<name>.v{DOCUMENT_VERSION}.json",
        }
    op = paths.get(_STREAM[1], {}).get(_STREAM[0])
    if op is not None:
        op["x-sse-messages"] = {"$ref": template.format(model="SseMessage")}


def _document(doc: JsonSchema) -> JsonSchema:
    components: JsonSchema = doc.setdefault("components", {})
    components.setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    _contract(doc)
    components["securitySchemes"] = _SECURITY_SCHEMES
    for path, item in doc.get("paths", {}).items():
        for method, op in item.items():
            if isinstance(op, dict) and "responses" in op:
                _document_operation(method, path, op)
    # FastAPI's validation-error models are no longer referenced: every 422 is `Error`.
    schemas: JsonSchema = components["schemas"]
    for name in ("HTTPValidationError", "ValidationError"):
        schemas.pop(name, None)
    return doc


def document(app: FastAPI) -> None:
    """Make `app` serve the documented OpenAPI (generated once, on first request)."""
    generate = app.openapi

    def openapi() -> JsonSchema:
        if app.openapi_schema is None:
            app.openapi_schema = _document(generate())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
