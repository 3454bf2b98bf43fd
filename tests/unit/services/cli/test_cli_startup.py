"""`arbiter` start-up (issue 12, item 5): `arbiter --help` and `arbiter standings` on the
embedded log load no API, Kafka or HTTP client stack; the CLI's help-text copies of names
defined in heavier modules stay equal to them (the projections' names are not copied: the CLI
reads the registry, `projections/names.py`, which imports nothing).

A behavioural guard, run in a fresh interpreter; the timings are the benchmark's
(`python -m tests.bench.cli`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # make test-fast leaves it out


ROOT = Path(__file__).resolve().parents[4]

#: Top-level packages that a command never talking to the API or to Kafka must not import.
HEAVY = ("faust", "fastapi", "aiokafka", "kafka", "httpx", "uvicorn")

_LOADED = f"""
import json, sys
from services.cli.main import app
try:
    app(sys.argv[1:])
except SystemExit as exc:
    if exc.code:
        raise
heavy = {set(HEAVY)!r}
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in heavy)))
"""


def _heavy_loaded(*args: str) -> list[str]:
    """The heavy modules loaded by `arbiter ARGS`, run in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", _LOADED, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    loaded: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


def test_importing_the_cli_loads_no_api_kafka_or_http_client() -> None:
    code = (
        "import sys; from services.cli.main import app; "
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {set(HEAVY)!r}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


def test_help_loads_no_api_kafka_or_http_client() -> None:
    assert _heavy_loaded("--help") == []


def test_standings_on_the_embedded_log_loads_no_api_kafka_or_http_client(
    tmp_path: Path,
) -> None:
    db = tmp_path / "demo.sqlite3"
    subprocess.run(
        [sys.executable, "-c", "from services.cli.main import app; app()", "demo", "--db", str(db)],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    assert _heavy_loaded("standings", "demo-open-2026", "--db", str(db)) == []


@pytest.mark.parametrize(
    ("copy", "source"),
    [
        ("ROLE_NAMES", "services.commands.auth:ROLES"),
    ],
)
def test_help_text_names_match_their_source(copy: str, source: str) -> None:
    import importlib

    from services.cli import common

    module, name = source.split(":")
    assert getattr(common, copy) == tuple(getattr(importlib.import_module(module), name))


def _console_script(*args: str) -> subprocess.CompletedProcess[str]:
    """`arbiter ARGS` through the console script's entry point (`services.cli.main:main`)."""
    return subprocess.run(
        [sys.executable, "-c", "from services.cli.main import main; main()", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )


def _whole_app(*args: str) -> subprocess.CompletedProcess[str]:
    """`arbiter ARGS` through the whole typer app (every command built)."""
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "from services.cli.main import app; app(prog_name='arbiter')",
            *args,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("cli") / "demo.sqlite3"
    done = _console_script("demo", "--db", str(db))
    assert done.returncode == 0, done.stderr
    return db


@pytest.mark.parametrize(
    "args",
    [
        ("standings", "demo-open-2026", "--json"),
        ("standings", "demo-open-2026"),
        ("standings", "--help"),
        ("standings", "no-such-tournament"),  # refused: same message, same exit code
        ("standings",),  # a missing argument: same usage error
        ("token", "--help"),  # a sub-group: through the whole app
        ("no-such-command",),
    ],
)
def test_a_command_built_alone_behaves_as_in_the_whole_app(
    demo_db: Path, args: tuple[str, ...]
) -> None:
    """`main` builds a top-level command alone (start-up); what it prints and its exit code
    are those of the whole app."""
    reads_the_log = args[0] == "standings" and len(args) > 1 and "--help" not in args
    full = (*args, "--db", str(demo_db)) if reads_the_log else args
    solo, whole = _console_script(*full), _whole_app(*full)
    assert (solo.returncode, solo.stdout, solo.stderr) == (
        whole.returncode,
        whole.stdout,
        whole.stderr,
    )
    if args == ("standings", "demo-open-2026", "--json"):
        assert solo.returncode == 0 and '"rows"' in solo.stdout


def test_json_standings_loads_no_rich(demo_db: Path) -> None:
    """A command that prints JSON does not load rich (the consoles are made on first use)."""
    code = (
        "import sys; from services.cli.main import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'rich'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, "standings", "demo-open-2026", "--db", str(demo_db), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_every_command_has_its_help_text() -> None:
    """`arbiter COMMAND --help` says what the command does: its docstring is a docstring (a
    statement before it, such as a lazy import, makes it a bare string and the help empty)."""
    import typer.main

    from services.cli.main import app

    def walk(group: typer.Typer, prefix: str) -> list[tuple[str, object]]:
        found: list[tuple[str, object]] = []
        for info in group.registered_commands:
            name = info.name or typer.main.get_command_name(info.callback.__name__)
            found.append((prefix + name, info.callback))
        for sub in group.registered_groups:
            assert sub.typer_instance is not None
            found += walk(sub.typer_instance, f"{prefix}{sub.name} ")
        return found

    commands = walk(app, "")
    assert len(commands) > 30
    missing = [name for name, cb in commands if not (cb.__doc__ or "").strip()]
    assert missing == []
