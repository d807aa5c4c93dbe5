"""Each module imports downward only: no module imports, even inside a function, a module that
imports it (directly or through others). The imports are read from the source with ``ast``, so
an import placed in a function to dodge the circle counts like any other."""

import ast
import itertools
from collections.abc import Collection
from pathlib import Path

import pytest

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


# Modules over 500 lines when the length check below was extended from conference/ to every app,
# each with its length then: it may shrink, not grow, and leaves this list once split by what it
# is about. No module joins it.
LONG_MODULES = {
    "sessions/admin/sessions.py": 509,  # the session admin: list, filters, actions, change form
    "sessions/importers/frab_json.py": 516,  # schedule.json read section by section
    "sessions/models/session.py": 508,  # Session: fields, constraints, booking rules, placing
}


def module_lengths() -> dict[str, int]:
    """Lines in each module of our apps, by path; not migrations, which Django writes."""
    return {
        path.relative_to(ROOT).as_posix(): len(path.read_text().splitlines())
        for app in APPS
        for path in (ROOT / app).rglob("*.py")
        if "migrations" not in path.parts
    }


def test_no_module_is_over_500_lines():
    """Small modules, each about one thing, so that a newcomer finds a behaviour in one hop. A
    module that grows past this is split by what it is about (``sessions/models/``,
    ``speakers/models/``), not given a place in ``LONG_MODULES``."""
    lengths = module_lengths()

    over = {path: length for path, length in lengths.items() if length > 500}

    assert {
        path: length for path, length in over.items() if length > LONG_MODULES.get(path, 500)
    } == {}
    # A listed module now short enough, or gone: strike it from the list.
    assert {path for path in LONG_MODULES if path not in over} == set()


# --- The direction between apps ------------------------------------------------------------------
# conference <- speakers <- sessions, and the project shell, conference/site/, above all three.
LEVELS = {"conference": 0, "speakers": 1, "sessions": 2, "site": 3}
# An app's front doors: what answers a request or a command. The rest of an app is its domain.
FRONT_DOORS = {"views", "admin", "api", "management"}
# Django's hooks into an app (AppConfig.ready connects receivers and registers page parts).
WIRING = {"apps"}


def place_of(module: str) -> tuple[str, str]:
    """The app ``module`` belongs to (``site`` for the project shell) and what it is there:
    ``front door`` (views/, admin/, api/, management/, a URLconf or its ``*_views`` module),
    ``wiring`` or ``domain``."""
    parts = module.split(".")
    if parts[:2] == ["conference", "site"]:
        return "site", "front door"
    app, inner = parts[0], parts[1:]
    if inner[:1] and inner[0] in WIRING:
        return app, "wiring"
    front = [p for p in inner if p in FRONT_DOORS or p.endswith(("urls", "_views"))]
    if inner[:1] != ["models"] and front:
        return app, "front door"
    return app, "domain"


def layer_breach(module: str, imported: str) -> str | None:
    """Why ``module`` may not import ``imported``, or None if it may.

    Only the shell imports the shell. A domain module imports the domain of its own app and of
    the apps below it, and no front door: it knows no request. A front door may also read any
    app's domain (a speaker's page lists sessions), and the front doors of its own app and of
    those below it (the mixins every page builds on). Wiring may import its own app's modules.
    """
    (app, kind), (other, other_kind) = place_of(module), place_of(imported)
    if app == "site":
        return None
    if other == "site":
        return "imports the project shell, which only Django imports"
    if kind == "wiring":
        return None if other == app or LEVELS[other] < LEVELS[app] else "imports a higher app"
    if kind == "domain" and other_kind == "front door":
        return "a domain module imports a front door"
    if kind == "domain" and LEVELS[other] > LEVELS[app]:
        return "a domain module imports a higher app"
    if other_kind == "front door" and LEVELS[other] > LEVELS[app]:
        return "a front door imports a higher app's front door"
    return None


def test_no_import_runs_back_up_between_apps():
    graph = import_graph()

    breaches = [
        f"{module} (line {line}) imports {imported}: {why}"
        for module, imports in sorted(graph.items())
        for imported, line in sorted(imports.items())
        if (why := layer_breach(module, imported))
    ]

    assert breaches == [], "\n".join(breaches)


@pytest.mark.parametrize(
    ("module", "imported", "why"),
    [
        ("speakers.models", "sessions.models", "a domain module imports a higher app"),
        ("sessions.releases", "sessions.views.schedule", "a domain module imports a front door"),
        (
            "conference.webhooks.delivery",
            "conference.api.serializers",
            "a domain module imports a front door",
        ),
        (
            "speakers.views.public",
            "sessions.views.personal",
            "a front door imports a higher app's front door",
        ),
        (
            "conference.accounts.views",
            "conference.site.offline",
            "imports the project shell, which only Django imports",
        ),
        (
            "sessions.cfp.decisions",
            "sessions.cfp.decision_views",
            "a domain module imports a front door",
        ),
        ("sessions.cfp.decision_views", "conference.views.preview_time", None),
        # "reviews" ends in "views", and is no front door.
        (
            "sessions.cfp.reviews",
            "conference.views.preview_time",
            "a domain module imports a front door",
        ),
        ("sessions.views.schedule", "speakers.models", None),
        (
            "sessions.cfp.co_speakers",
            "sessions.cfp.co_speaker_views",
            "a domain module imports a front door",
        ),
        ("sessions.cfp.co_speaker_views", "conference.views.preview_time", None),
        ("speakers.views.public", "sessions.models", None),
        ("sessions.admin.planner", "conference.admin.widgets", None),
        ("conference.models.api", "conference.webhooks.addresses", None),
        ("conference.site.urls", "sessions.views.schedule", None),
    ],
)
def test_layer_rule_names_each_breach(module, imported, why):
    assert layer_breach(module, imported) == why


def test_an_import_hidden_in_a_function_breaches_like_any_other():
    modules = {"speakers", "speakers.models", "sessions", "sessions.models"}
    source = "def talks(speaker):\n    from sessions.models import Session\n"

    [(imported, line)] = imports_of(source, "speakers.models", False, modules).items()

    assert (imported, line) == ("sessions.models", 2)
    assert layer_breach("speakers.models", imported) == "a domain module imports a higher app"
