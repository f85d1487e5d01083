"""The platform's structure, checked from the source (AST; no import of the app).

ARCHITECTURE.md draws the parts and what each may import; this keeps the drawing
true. It reads every module under app/ once and checks:

* app/'s top level holds at most 8 modules; everything else lives in a part
  (service/, realtime/, store/, edge/, engines/, player/, facilitator/, api/, reports/);
* app/errors.py imports nothing of the app, so every part may use it;
* services are reached through `app.extensions.services()`: at most 3 string
  look-ups `….extensions[...]` / `….extensions.get(...)` in app/, the accessor's included;
* the engines import nothing of Flask, Socket.IO or the database, nor of the platform;
* the layering: edge/ and store/ import no service/ or realtime/; service/ imports no
  realtime/, facilitator/, player/ or api/;
* no class over 400 lines (issue 19 item 2: the table and class services are split into
  parts, app/service/tables/ and app/service/classes/);
* no reach into another module's private names (`other_module._name`, `obj._private` of
  another module's object, `from app.x import _name`): a part offers what others use
  under a public name (the table store, app/store/tables.py, for the services that seat
  students).
"""
from __future__ import annotations

import ast
from functools import cache
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app"

TOP_LEVEL_MODULES_MAX = 8
EXTENSION_LOOKUPS_MAX = 3
CLASS_LINES_MAX = 400
# What an engine must not import: the web framework, the sockets, the database.
FRAMEWORKS = ("flask", "flask_socketio", "socketio", "engineio", "eventlet", "sqlalchemy", "sqlmodel", "alembic",
              "psycopg", "redis")
PLATFORM_PARTS = ("app.service", "app.realtime", "app.store", "app.edge", "app.facilitator", "app.player",
                  "app.api", "app.reports")
# Underscored names that are not another app module's privates: the standard library's
# namedtuple API, and python-socketio's `PubSubManager._publish`, which app/realtime/fanout.py
# (one publish per change) and app/edge/outage.py (the queue's health) wrap, as documented there.
NOT_OURS = frozenset({"_replace", "_asdict", "_fields", "_make", "_field_defaults", "_publish"})


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, tuple[Path, ast.Module]]:
    """Every module under app/, by dotted name, parsed."""
    return {module_name(path): (path, ast.parse(path.read_text(), filename=str(path)))
            for path in sorted(APP.rglob("*.py"))}


def imported(name: str) -> set[str]:
    """The modules `name` imports, anywhere in it (inside functions too), relative imports resolved.
    `from pkg import thing` counts as importing `pkg.thing` as well (it may be a module)."""
    path, tree = modules()[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module
            found.add(source)
            found.update(f"{source}.{alias.name}" for alias in node.names)
    return found


def within(module: str, parents: tuple[str, ...]) -> bool:
    return any(module == parent or module.startswith(parent + ".") for parent in parents)


def offending_imports(importers: tuple[str, ...], forbidden: tuple[str, ...]) -> list[str]:
    return sorted(f"{name} imports {target}" for name in modules() if within(name, importers)
                  for target in imported(name) if within(target, forbidden))


def test_app_top_level_holds_at_most_8_modules():
    top = sorted(path.name for path in APP.glob("*.py"))
    assert len(top) <= TOP_LEVEL_MODULES_MAX, f"{len(top)} modules at app/'s top level: {top}; put it in a part"


def test_errors_module_imports_nothing_of_the_app():
    assert not [target for target in imported("app.errors") if within(target, ("app",))]


def extension_lookups() -> list[str]:
    """`x.extensions[...]` and `x.extensions.get(...)` anywhere in app/."""
    found = []
    for name, (path, tree) in modules().items():
        for node in ast.walk(tree):
            target = node.value if isinstance(node, ast.Subscript) else (
                node.func.value if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get" else None)
            if isinstance(target, ast.Attribute) and target.attr == "extensions":
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_services_are_reached_through_the_accessor():
    lookups = extension_lookups()
    assert len(lookups) <= EXTENSION_LOOKUPS_MAX, (
        f"{len(lookups)} string look-ups of app.extensions (use app.extensions.services()): {lookups}")


def test_engines_import_no_framework_database_or_platform():
    engines = ("app.engines",)
    assert not offending_imports(engines, FRAMEWORKS + PLATFORM_PARTS)


def test_edge_and_store_import_no_service_or_realtime():
    assert not offending_imports(("app.edge", "app.store"), ("app.service", "app.realtime"))


def test_services_import_no_realtime_or_pages():
    assert not offending_imports(("app.service",), ("app.realtime", "app.facilitator", "app.player", "app.api"))


# ------------------------------------------------------------- sizes and private names (issue 19 item 2)
def class_sizes() -> list[tuple[int, str]]:
    return sorted(((node.end_lineno - node.lineno + 1, f"{node.name} ({path.relative_to(ROOT)})")
                   for name, (path, tree) in modules().items() for node in ast.walk(tree)
                   if isinstance(node, ast.ClassDef)), reverse=True)


def defined_private_names(tree: ast.Module) -> set[str]:
    """The underscored names a module defines: functions, classes, module names, attributes it sets."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.alias):
            names.add(node.asname or node.name.rpartition(".")[2])
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return {name for name in names if name.startswith("_") and not name.startswith("__")}


def private_reaches() -> list[str]:
    """Reaches into another app module's private names: `from app.x import _name`, and
    `something._name` where `_name` is private to another module of app/ (defined there,
    not in this one). A name no app module defines (a library's internal) is not counted."""
    defined = {name: defined_private_names(tree) for name, (_path, tree) in modules().items()}
    anywhere = set().union(*defined.values())
    found = []
    for name, (path, tree) in modules().items():
        own = defined[name] - {alias.asname or alias.name for node in ast.walk(tree)
                               if isinstance(node, ast.ImportFrom) for alias in node.names}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("app")):
                found += [f"{path.relative_to(ROOT)}:{node.lineno} imports {alias.name}" for alias in node.names
                          if alias.name.startswith("_") and not alias.name.startswith("__")]
            elif (isinstance(node, ast.Attribute) and node.attr in anywhere and node.attr not in own
                  and node.attr not in NOT_OURS):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} .{node.attr}")
    return found


def test_no_class_is_over_400_lines():
    too_long = [f"{label}: {lines} lines" for lines, label in class_sizes() if lines > CLASS_LINES_MAX]
    assert not too_long, f"split these classes into parts (limit {CLASS_LINES_MAX} lines): {too_long}"


def test_no_module_reaches_into_another_modules_private_names():
    reaches = private_reaches()
    assert not reaches, "give these names a public spelling in their module:\n" + "\n".join(reaches)
