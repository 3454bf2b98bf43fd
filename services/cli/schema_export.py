"""JSON Schema for every event type, committed under events_schema/json/, for the published
projection documents and SSE messages (`events_schema.documents`), under
events_schema/json/projections/<name>.v<version>.json, and for the organiser's input files
(`services/inputs.py` INPUTS: season plan, prize table, Go settings, coin toss choice), under
events_schema/json/inputs/<name>.schema.json; the `arbiter schema export|check` commands that
write them and check them for drift (CI), and `arbiter schema validate KIND FILE`, which
checks one input file and names every problem in it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from services.cli.common import add_group, fail
from services.cli.render import out

DEFAULT_DIR = Path(__file__).resolve().parents[2] / "events_schema" / "json"


def schemas() -> dict[str, bytes]:
    # Imported here: `arbiter --help` imports this module for DEFAULT_DIR alone.
    from events_schema import EVENT_CLASSES
    from events_schema.codec import dumps
    from events_schema.commands import Command, CommandBatch
    from events_schema.envelope import Envelope

    out: dict[str, bytes] = {}
    for cls in EVENT_CLASSES:
        schema = cls.model_json_schema()
        schema["x-event-type"] = cls.event_type
        schema["x-schema-version"] = cls.schema_version
        out[f"{cls.event_type}.v{cls.schema_version}.json"] = dumps(schema) + b"\n"
    for model in (Envelope, Command, CommandBatch):
        out[f"_{model.__name__}.json"] = dumps(model.model_json_schema()) + b"\n"
    out.update(document_schemas())
    out.update(input_schemas())
    return out


PROJECTIONS_DIR = "projections"
INPUTS_DIR = "inputs"
SUBDIRS = (PROJECTIONS_DIR, INPUTS_DIR)


def input_schemas() -> dict[str, bytes]:
    """{"inputs/<name>.schema.json": schema} for each input file an organiser writes
    (`services/inputs.py` INPUTS)."""
    from events_schema.codec import dumps
    from services.inputs import INPUTS

    return {
        f"{INPUTS_DIR}/{name}.schema.json": dumps(kind.schema()) + b"\n"
        for name, kind in INPUTS.items()
    }


def document_schemas() -> dict[str, bytes]:
    """{"projections/<name>.v<version>.json": schema} for each published document and for
    the SSE messages (`projections/sse.v<version>.json`)."""
    from pydantic import TypeAdapter

    from events_schema.codec import dumps
    from events_schema.documents import DOCUMENT_MODELS, DOCUMENT_VERSION, SseMessage
    from projections.names import PROJECTIONS

    if list(DOCUMENT_MODELS) != list(PROJECTIONS):
        raise ValueError(
            f"events_schema.documents.DOCUMENT_MODELS models {list(DOCUMENT_MODELS)}, but the "
            f"registered projections (projections/names.py) are {list(PROJECTIONS)}"
        )
    out: dict[str, bytes] = {}
    for name in PROJECTIONS:
        schema = DOCUMENT_MODELS[name].model_json_schema()
        schema["x-projection"] = name
        schema["x-document-version"] = DOCUMENT_VERSION
        out[f"{PROJECTIONS_DIR}/{name}.v{DOCUMENT_VERSION}.json"] = dumps(schema) + b"\n"
    sse = TypeAdapter(SseMessage).json_schema()
    sse["title"] = "SseMessage"
    sse["x-document-version"] = DOCUMENT_VERSION
    out[f"{PROJECTIONS_DIR}/sse.v{DOCUMENT_VERSION}.json"] = dumps(sse) + b"\n"
    return out


def _present(directory: Path) -> dict[str, bytes]:
    if not directory.exists():
        return {}
    found = {p.name: p for p in directory.glob("*.json")}
    for sub in SUBDIRS:
        found.update({f"{sub}/{p.name}": p for p in (directory / sub).glob("*.json")})
    return {name: p.read_bytes() for name, p in found.items()}


def export(directory: Path = DEFAULT_DIR) -> list[Path]:
    for sub in SUBDIRS:
        (directory / sub).mkdir(parents=True, exist_ok=True)
    written = []
    wanted = schemas()
    for name in _present(directory):
        if name not in wanted:
            (directory / name).unlink()
    for name, body in wanted.items():
        path = directory / name
        path.write_bytes(body)
        written.append(path)
    return written


def drift(directory: Path = DEFAULT_DIR) -> list[str]:
    """Names of schema files that differ from the models (missing, changed or stale)."""
    wanted = schemas()
    have = _present(directory)
    return sorted(n for n in set(wanted) | set(have) if wanted.get(n) != have.get(n))


def schema_export_cmd(
    directory: Annotated[Path, typer.Option("--dir")] = DEFAULT_DIR,
) -> None:
    """Write JSON Schema for every event type into events_schema/json/."""
    paths = export(directory)
    out.print(f"wrote {len(paths)} schema files to {directory}")


def schema_check(
    directory: Annotated[Path, typer.Option("--dir")] = DEFAULT_DIR,
) -> None:
    """Fail if the committed schemas differ from the models (run `arbiter schema export`)."""
    differing = drift(directory)
    if differing:
        fail("schema.drift", str(directory), "out of date: " + ", ".join(differing))
    out.print("schemas match the models")


def schema_validate(
    kind: Annotated[
        str,
        typer.Argument(
            help="season-plan, prize-table, go-settings or coin-toss-choice",
            metavar="KIND",
        ),
    ],
    file: Annotated[Path, typer.Argument(help="the JSON file to check", metavar="FILE")],
) -> None:
    """Check an input file against its model (and, for a season plan, its format's rules);
    name every problem in it, each with its place. Appends nothing.

    \b
    arbiter schema validate season-plan docs/examples/season-plan.json
    arbiter schema validate prize-table docs/examples/prize-table.json
    arbiter schema validate go-settings docs/examples/go-settings.json
    arbiter schema validate coin-toss-choice docs/examples/coin-toss-choice.json

    The schemas are events_schema/json/inputs/KIND.schema.json."""
    from services.cli.common import refusals
    from services.inputs import INPUTS, read

    if kind not in INPUTS:
        fail("schema.unknown_input", "KIND", f"one of {', '.join(INPUTS)}")
    with refusals():
        read(kind, file, "FILE")
    out.print(f"{file}: a valid {kind}")


def register(app: typer.Typer) -> None:
    """Add the `schema` group (`export`, `check`, `validate`) to the `arbiter` app."""
    add_group(
        app,
        "schema",
        "JSON Schema of the event contract and of the organiser's input files.",
        {"export": schema_export_cmd, "check": schema_check, "validate": schema_validate},
    )
