"""JSON Schema for every event type, committed under events_schema/json/ (CI checks drift)."""

from __future__ import annotations

from pathlib import Path

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
    return out


def export(directory: Path = DEFAULT_DIR) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    wanted = schemas()
    for stale in directory.glob("*.json"):
        if stale.name not in wanted:
            stale.unlink()
    for name, body in wanted.items():
        path = directory / name
        path.write_bytes(body)
        written.append(path)
    return written


def drift(directory: Path = DEFAULT_DIR) -> list[str]:
    """Names of schema files that differ from the models (missing, changed or stale)."""
    wanted = schemas()
    have = {p.name: p.read_bytes() for p in directory.glob("*.json")} if directory.exists() else {}
    return sorted(n for n in set(wanted) | set(have) if wanted.get(n) != have.get(n))
