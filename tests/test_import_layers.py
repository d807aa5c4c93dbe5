"""Each module imports downward only: no module imports, even inside a function, a module that
imports it (directly or through others). The imports are read from the source with ``ast``, so
an import placed in a function to dodge the circle counts like any other."""

import ast
import itertools
from collections.abc import Collection
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = ("conference", "sessions", "speakers")

Graph = dict[str, dict[str, int]]  # module to each project module it imports, with the line


def project_modules() -> dict[str, Path]:
    """Every module of our apps by dotted name, a package by its own name; not migrations nor
    settings, which Django loads on its own terms."""
    modules = {}
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "migrations" in parts or parts == ("conference", "settings"):
                continue
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def project_module(name: str, modules: Collection) -> str | None:
    """The project module ``name`` is, or lies in (``sessions.models.Session``: sessions.models)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(source: str, module: str, is_package: bool, modules: Collection) -> dict[str, int]:
    """The project modules ``source`` imports anywhere in it, each with the line of its first import."""
    package = module if is_package else module.rpartition(".")[0]
    found: dict[str, int] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            # ``from sessions import models`` imports a module, ``from sessions.models import
            # Session`` a name of one.
            names = [f"{base}.{alias.name}" for alias in node.names]
            names = [name if name in modules else base for name in names]
        else:
            continue
        for name in names:
            imported = project_module(name, modules)
            if imported and imported != module:
                found[imported] = min(node.lineno, found.get(imported, node.lineno))
    return found


def import_graph() -> Graph:
    modules = project_modules()
    return {
        module: imports_of(path.read_text(), module, path.name == "__init__.py", modules)
        for module, path in modules.items()
    }


def find_cycle(graph: Graph) -> list[str] | None:
    """Some circle of imports, as the modules along it (the first again at the end); None if none."""
    done: set[str] = set()
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        if module in path:
            return [*path[path.index(module) :], module]
        if module in done:
            return None
        path.append(module)
        for imported in sorted(graph.get(module, {})):
            cycle = visit(imported)
            if cycle:
                return cycle
        path.pop()
        done.add(module)
        return None

    for module in sorted(graph):
        cycle = visit(module)
        if cycle:
            return cycle
    return None


def describe(cycle: list[str], graph: Graph) -> str:
    steps = [
        f"{module} imports {imported} (line {graph[module][imported]})"
        for module, imported in itertools.pairwise(cycle)
    ]
    return "Import cycle: " + " -> ".join(cycle) + "\n" + "\n".join(steps)


def test_no_project_module_imports_a_module_that_imports_it():
    graph = import_graph()

    cycle = find_cycle(graph)

    assert cycle is None, describe(cycle, graph)


def test_imports_inside_functions_and_relative_imports_count():
    modules = {"sessions", "sessions.models", "sessions.releases", "sessions.importers"}
    source = (
        "from . import releases\n"
        "from .importers import parse_schedule\n"
        "def changes():\n"
        "    from sessions.releases import changes_between\n"
    )

    found = imports_of(source, "sessions.models", False, modules)

    assert found == {"sessions.releases": 1, "sessions.importers": 2}


def test_a_cycle_is_named_module_by_module():
    graph = {"a": {"b": 1}, "b": {"c": 3}, "c": {"a": 7}, "d": {"a": 2}}

    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b": 1}, "b": {}}) is None


def test_no_module_of_conference_is_over_500_lines():
    """The conference app holds what the other two share (the page layer, accounts, the API's
    frame): kept in small modules, each about one thing, so a newcomer finds a behaviour in one
    hop. A module that grows past this is split by what it is about."""
    lengths = {
        str(path.relative_to(ROOT)): len(path.read_text().splitlines())
        for path in (ROOT / "conference").rglob("*.py")
        if "migrations" not in path.parts
    }
    assert {path: length for path, length in lengths.items() if length > 500} == {}
