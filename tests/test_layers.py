"""The package's folders are its layers: every import points down, and the lower layers are plain.

Layers, bottom to top: ``core/`` (the rules), ``session/`` (one page and its sources), the
features (``agent/``, ``conformance/``, ``mcp_server/``, ``testing/``), and the faces (``cli/``,
``plugin.py``, the public ``__init__`` and ``sync_api``). Read from the files (every import, also
the ones inside functions and under ``TYPE_CHECKING``) and checked again by importing the lower
layers in a fresh Python (importing any of them runs the package's ``__init__``, so that is
checked with them).

Within the layers, two more rules:

- **Private stays private.** No module imports a ``_name`` (one leading underscore) from another
  module: what two modules share has a public name. A private module (``session/_backends/``,
  ``core/_formats.py``: a part of its path starts with ``_``) is imported only by the modules of
  the package that holds it (``session._backends.cdp`` by ``session.*``, never by ``plugin``).
  Only ``session/adapters.py`` reaches into a dependency's internals (a ``_`` module of
  Playwright, the attributes ``_impl_obj``, ``_sync`` and ``_connection``).
- **No cycles.** No module imports, through any chain, a module that imports it again; imports
  under ``TYPE_CHECKING`` and inside functions count (a cycle there is still two modules that
  cannot be read one without the other).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "webmcp_harness"

CORE = 0
SESSION = 1
FEATURE = 2
FACE = 3
LAYER_OF_FOLDER = {
    "core": CORE,
    "session": SESSION,
    "agent": FEATURE,
    "conformance": FEATURE,
    "mcp_server": FEATURE,
    "testing": FEATURE,
    "cli": FACE,
}
LAYER_OF_MODULE = {
    "plugin": FACE,
    "sync_api": FACE,
    "errors": FACE,  # the public path of core/errors.py
    "__init__": FACE,
    "__main__": FACE,
}
PLAIN_LAYERS = (CORE, SESSION)
NOT_BELOW_THE_FACES = ("click", "rich", "pytest", "_pytest", "pluggy", "yaml")
NOT_IN_CORE = ("playwright",)


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__" and len(parts) > 1:
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def layer_of(module: str) -> int:
    top = module.split(".")[0]
    if top in LAYER_OF_FOLDER:
        return LAYER_OF_FOLDER[top]
    return LAYER_OF_MODULE[module]


def imports_of(module: str) -> tuple[set[str], set[str]]:
    """(modules of this package, top-level names of other packages) that module imports."""
    path = MODULES[module]
    is_package = path.name == "__init__.py"
    here = module.split(".") if is_package else module.split(".")[:-1]
    if module == "__init__":
        here = []
    ours: set[str] = set()
    theirs: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "webmcp_harness":
                    ours.add(alias.name.removeprefix("webmcp_harness").lstrip("."))
                else:
                    theirs.add(alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            elif (node.module or "").split(".")[0] == "webmcp_harness":
                target = (node.module or "").removeprefix("webmcp_harness").lstrip(".")
            else:
                theirs.add((node.module or "").split(".")[0])
                continue
            for alias in node.names:
                full = f"{target}.{alias.name}" if target else alias.name
                ours.add(full if full in MODULES else target)
    ours.discard("")
    ours.discard(module)
    return ours, theirs


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        layer_of(module)  # a KeyError names a module outside every layer


def test_every_import_points_down() -> None:
    up = sorted(
        f"{module} (layer {layer_of(module)}) imports {target} (layer {layer_of(target)})"
        for module in MODULES
        for target in imports_of(module)[0]
        if layer_of(target) > layer_of(module)
    )
    assert not up, "\n".join(up)


def test_core_and_session_import_no_click_rich_pytest_or_yaml() -> None:
    found = []
    for module in MODULES:
        if layer_of(module) not in PLAIN_LAYERS:
            continue
        banned = {*NOT_BELOW_THE_FACES, *(NOT_IN_CORE if layer_of(module) == CORE else ())}
        found += [f"{module} imports {name}" for name in sorted(imports_of(module)[1] & banned)]
    assert not found, "\n".join(found)


def test_importing_core_and_session_loads_no_click_rich_pytest_or_yaml() -> None:
    lower = sorted(
        f"webmcp_harness.{m}" for m in MODULES if layer_of(m) in PLAIN_LAYERS and m != "__init__"
    )
    code = (
        "import importlib, json, sys\n"
        f"for name in {lower!r}:\n"
        "    importlib.import_module(name)\n"
        "core = [n for n in sys.modules if n.startswith('webmcp_harness.core')]\n"
        f"print(json.dumps([sorted({{n.split('.')[0] for n in sys.modules}}), core]))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(SRC), "PATH": ""},
        timeout=120,
    )
    loaded, core = json.loads(run.stdout)
    assert not set(loaded) & set(NOT_BELOW_THE_FACES), sorted(
        set(loaded) & set(NOT_BELOW_THE_FACES)
    )
    assert core  # the core was imported, so the check above saw it


def test_the_readme_picture_shows_every_folder_in_its_layer() -> None:
    readme = (SRC.parent / "README.md").read_text("utf-8")
    picture = readme.split("## How it works", 1)[1].split("```", 2)[1]
    row_of: dict[str, int] = {}  # a folder or face -> its row in the picture, top first
    for row, line in enumerate(picture.splitlines()):
        for word in line.split("│")[0].split():
            row_of.setdefault(word.rstrip("/").removeprefix("session/"), row)
    layers = {**LAYER_OF_FOLDER, "_backends": SESSION, "plugin.py": FACE, "sync_api.py": FACE}
    missing = sorted(set(layers) - set(row_of))
    assert not missing, f"the README's picture does not show {missing}"
    for upper, upper_layer in layers.items():
        for lower, lower_layer in layers.items():
            if upper_layer > lower_layer:
                assert row_of[upper] < row_of[lower], f"{upper} is drawn below {lower}"


def test_only_the_faces_import_click_rich_and_pytest() -> None:
    faces_only = {"click", "rich", "pytest", "_pytest", "pluggy"}
    found = [
        f"{module} imports {name}"
        for module in MODULES
        if layer_of(module) < FACE
        for name in sorted(imports_of(module)[1] & faces_only)
    ]
    assert not found, "\n".join(found)


ADAPTERS = "session.adapters"
INTERNAL_ATTRIBUTES = ("_impl_obj", "_sync", "_connection")


def _private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def _owner(module: str) -> str:
    """The package that holds a private module: the path up to its first private part."""
    parts = module.split(".")
    first = next(i for i, part in enumerate(parts) if _private(part))
    return ".".join(parts[:first])


def _inside(module: str, package: str) -> bool:
    return package == "" or module == package or module.startswith(package + ".")


def _from_imports(module: str) -> list[tuple[str, str]]:
    """(the module imported from, the name imported) of each of module's own ``from`` imports."""
    path = MODULES[module]
    here = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    if module == "__init__":
        here = []
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = here[: len(here) - (node.level - 1)]
            target = ".".join([*base, *([node.module] if node.module else [])])
            found += [(target, alias.name) for alias in node.names]
    return found


def test_no_module_imports_a_private_name_of_another() -> None:
    found = sorted(
        f"{module} imports {name} from {target}"
        for module in MODULES
        for target, name in _from_imports(module)
        if _private(name) and f"{target}.{name}".lstrip(".") not in MODULES
    )
    assert not found, "\n".join(found)


def test_a_private_module_is_imported_only_inside_its_own_package() -> None:
    found = sorted(
        f"{module} imports {target} (private to {_owner(target) or 'the package'})"
        for module in MODULES
        for target in imports_of(module)[0]
        if any(_private(part) for part in target.split(".")) and not _inside(module, _owner(target))
    )
    assert not found, "\n".join(found)


def test_only_the_adapters_reach_into_the_internals_of_dependencies() -> None:
    found = []
    for module, path in MODULES.items():
        if module == ADAPTERS:
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and not getattr(node, "level", 0):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                names += [node.module or ""] if isinstance(node, ast.ImportFrom) else []
                for name in names:
                    if name.split(".")[0] != "webmcp_harness" and any(
                        _private(part) for part in name.split(".")
                    ):
                        found.append(f"{module} imports {name}")
            elif isinstance(node, ast.Attribute) and node.attr in INTERNAL_ATTRIBUTES:
                found.append(f"{module} reads .{node.attr} (line {node.lineno})")
            elif isinstance(node, ast.Constant) and node.value in INTERNAL_ATTRIBUTES:
                found.append(f"{module} names {node.value!r} (line {node.lineno})")
    assert not found, "\n".join(sorted(found))


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of graph with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    parts: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            part = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                part.append(top)
                if top == node:
                    break
            if len(part) > 1:
                parts.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(parts)


def test_no_modules_import_each_other_not_even_under_type_checking() -> None:
    graph = {module: imports_of(module)[0] & set(MODULES) for module in MODULES}
    found = [" <-> ".join(part) for part in _cycles(graph)]
    assert not found, "modules that import each other, directly or through others:\n" + (
        "\n".join(found)
    )


def test_the_cycle_finder_finds_a_cycle_and_only_that() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c"]]
