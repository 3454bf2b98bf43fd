"""The shape of the code: no module anywhere (`events_schema/`, `projections/`, `services/`,
`tests/`) imports a private name of another module or reaches one through a module it
imported, test modules have unique names (the test folders mirror the source), and the
module-level imports among `services` modules form no cycle, and nothing below the composition
roots reads the environment.

Read with `ast` only (nothing is imported). A private name is one with a leading underscore
(dunders such as `__version__` are public). The private-name check covers imports at any
level (a lazy import inside a function counts). The cycle check is made twice: over the
imports run when a module is imported (module level, into `if`/`try`/`with` blocks), and over
all imports, those inside functions included.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = "services"


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _absolute(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute module name an `ImportFrom` names (resolving relative imports)."""
    if node.level == 0:
        return node.module or ""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _module_level(tree: ast.Module) -> Iterator[ast.stmt]:
    """Statements run on import: the module body, into `if`/`try`/`with` blocks, not into
    functions or classes."""
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        node = todo.pop(0)
        yield node
        if isinstance(node, ast.If | ast.With):
            todo.extend(node.body)
            todo.extend(getattr(node, "orelse", []))
        elif isinstance(node, ast.Try):
            todo.extend(node.body)
            todo.extend(node.orelse)
            todo.extend(node.finalbody)
            for handler in node.handlers:
                todo.extend(handler.body)


def _targets(module: str, path: Path, node: ast.stmt, known: dict[str, Path]) -> list[str]:
    """The `services` modules an import statement loads."""
    out: list[str] = []
    if isinstance(node, ast.Import):
        out = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
        base = _absolute(module, path, node)
        out = [base]
        # `from services.cli import audit` imports the submodule services.cli.audit.
        out += [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in known]
    return [m for m in out if m in known and m != module]


EVERYWHERE = ("events_schema", "projections", "services", "tests")


def _all_modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for package in EVERYWHERE:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _reached(tree: ast.Module, nodes: list[ast.AST] | None = None) -> Iterator[tuple[int, str]]:
    """`name._private` where `name` is bound by an import (a module or a name from one).
    `nodes`: `tree`'s nodes when the caller has walked it already (one walk per file: the
    check reads every module of the repository)."""
    if nodes is None:
        nodes = list(ast.walk(tree))
    imported = {
        (alias.asname or alias.name).split(".")[0]
        for node in nodes
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    for node in nodes:
        if (
            isinstance(node, ast.Attribute)
            and _is_private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in imported
        ):
            yield node.lineno, f"{node.value.id}.{node.attr}"


def private_imports() -> list[str]:
    found = []
    for module, path in _all_modules().items():
        tree = ast.parse(path.read_text(), str(path))
        nodes = list(ast.walk(tree))
        found += [
            f"{path.relative_to(ROOT)}:{line}: {what}" for line, what in _reached(tree, nodes)
        ]
        for node in nodes:
            if isinstance(node, ast.ImportFrom):
                source = _absolute(module, path, node)
                for alias in node.names:
                    if _is_private(alias.name):
                        where = f"{path.relative_to(ROOT)}:{node.lineno}"
                        found.append(f"{where}: from {source} import {alias.name}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if any(_is_private(part) for part in alias.name.split(".")):
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}: import {alias.name}")
    return found


def import_graph(lazy: bool = False) -> dict[str, set[str]]:
    """Module → the `services` modules its module-level imports run (with `lazy`, also the
    imports inside functions). Importing `a.b.c` runs `a` and `a.b` (their `__init__`) first,
    so those are edges too, except the importing module's own packages (already running when
    it is imported)."""
    known = _modules()
    graph: dict[str, set[str]] = {m: set() for m in known}
    for module, path in known.items():
        tree = ast.parse(path.read_text(), str(path))
        own = _ancestors(module)
        for node in ast.walk(tree) if lazy else _module_level(tree):
            for target in _targets(module, path, node, known):
                graph[module].update(
                    t for t in (*_ancestors(target), target) if t in known and t not in own
                )
        graph[module].discard(module)
    return graph


def _ancestors(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_module_imports_a_private_name() -> None:
    assert private_imports() == []


def test_test_modules_have_unique_names() -> None:
    names = [p.name for p in (ROOT / "tests").rglob("test_*.py")]
    assert len(names) > 90
    assert sorted(n for n in set(names) if names.count(n) > 1) == []


def test_no_import_cycle_among_services_modules() -> None:
    assert cycles(import_graph()) == []


def test_no_import_cycle_even_through_lazy_imports() -> None:
    """The cycles this replaced (api.app ↔ feed.routes, cli.main ↔ cli.audit ↔ demo) were all
    closed by an import inside a function: a late import is not a way around the layering."""
    assert cycles(import_graph(lazy=True)) == []


def test_the_checks_see_a_cycle_and_a_private_import() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    tree = ast.parse("def f():\n    from services.x import _y\n")
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom))
    assert [a.name for a in node.names if _is_private(a.name)] == ["_y"]
    reached = ast.parse("import services.x as x\nfrom services import y\nx._a(y._b, z._c)\n")
    assert sorted(what for _, what in _reached(reached)) == ["x._a", "y._b"]


#: The composition roots: the only modules that read the environment (`os.environ`,
#: `os.getenv`) or call what reads it (`services.config`'s `from_env`, `open_log`, ...).
#: `services.projection.processors.app` counts its own restarts (`run_worker`) in its
#: process's environment, to carry the count across `os.execv`: the process entry point's
#: state, not a setting.
ROOTS = ("services/config.py", "services/api/main.py", "services/cli/")
OWN_STATE = {"services/projection/processors/app.py": {"ARBITER_PROCESSOR_FAILURES"}}
ENV_NAMES = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}


def environment_readers() -> set[str]:
    """The public functions and methods of services/config.py that read the environment,
    directly or through one another (`from_env`, `open_log`, ...)."""
    tree = ast.parse((ROOT / "services/config.py").read_text())
    funcs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    readers: set[str] = set()
    while True:
        found = {
            f.name
            for f in funcs
            for n in ast.walk(f)
            if (isinstance(n, ast.Attribute) and (n.attr in ENV_NAMES or n.attr in readers))
            or (isinstance(n, ast.Name) and n.id in readers)
        }
        if found <= readers:
            return {name for name in readers if not _is_private(name)}
        readers |= found


def environment_reads(tree: ast.Module, readers: set[str]) -> Iterator[tuple[int, str]]:
    """`os.environ`, `os.getenv` (however imported), and calls of `readers`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "os":
            yield from ((node.lineno, f"os.{a.name}") for a in node.names if a.name in ENV_NAMES)
        elif isinstance(node, ast.Attribute) and node.attr in ENV_NAMES:
            yield node.lineno, ast.unparse(node)
        elif isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if name in readers:
                yield node.lineno, ast.unparse(f) + "()"


def environment_reads_below_the_roots() -> list[str]:
    readers = environment_readers()
    found = []
    for path in sorted(p for package in EVERYWHERE[:3] for p in (ROOT / package).rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel in ROOTS or rel.startswith(tuple(r for r in ROOTS if r.endswith("/"))):
            continue
        text = path.read_text()
        if rel in OWN_STATE and all(var in text for var in OWN_STATE[rel]):
            lines = text.splitlines()
            reads = environment_reads(ast.parse(text, rel), readers)
            own = [(n, w) for n, w in reads if any(v in lines[n - 1] for v in OWN_STATE[rel])]
            found += [f"{rel}:{n}: {w}" for n, w in reads if (n, w) not in own]
            continue
        found += [f"{rel}:{n}: {w}" for n, w in environment_reads(ast.parse(text, rel), readers)]
    return found


def test_nothing_below_the_composition_roots_reads_the_environment() -> None:
    """One composition root per process decides the log, the feed source and the settings
    (issue 23): `events_schema/`, `projections/` and the services below the roots are handed
    plain values (`services.config.Settings`, `FeedSettings`, `Limits`)."""
    assert {"from_env", "open_log", "limits_from_env", "checkpoint_every"} <= (
        environment_readers()
    )
    assert environment_reads_below_the_roots() == []


def test_the_environment_check_sees_every_kind_of_read() -> None:
    code = (
        "import os\nfrom os import getenv\n"
        "a = os.environ.get('X')\nb = getenv('Y')\nc = Settings.from_env()\nd = open_log(c)\n"
        "e = FeedSettings(keepalive=1)\n"
    )
    reads = [what for _, what in environment_reads(ast.parse(code), environment_readers())]
    assert sorted(reads) == ["Settings.from_env()", "open_log()", "os.environ", "os.getenv"]
