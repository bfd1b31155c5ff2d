"""Imports point down only (ARCHITECTURE.md): a module may import its own package and the layers
below it, never one above. Walked with `ast`, so a new upward arrow fails here before review.

Also: no module imports another module's private (`_name`) helpers — shared plumbing gets a
public name in a module both sides can import."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parents[1] / "kwhatif"

# Lowest first. Units of equal rank are peers and must not import each other.
LAYERS: dict[str, int] = {
    "__init__": 0, "errors": 0, "files": 0, "golang": 0, "memory": 0, "text": 0,  # the root package: the version only
    "api": 1,
    "load": 2, "live": 2,
    "snapshot": 3,
    "framework": 4,
    "preemption": 5,
    "plugins": 6,
    "config": 7, "workloads": 7,
    "engine": 8, "whatif": 8,  # whatif: Cluster -> Cluster operations over api, load and workloads (7)
    "check": 9, "explain": 9, "diff": 9, "evict": 9,
    "capacity": 10, "sweep": 10,
    "render": 11,
    "cli": 12,
    "__main__": 13,
}


def _unit(module: str) -> str:
    """`kwhatif.plugins.node_affinity` -> `plugins`; `kwhatif` itself -> `__init__`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _imports(path: Path) -> list[tuple[str, list[str], int]]:
    return _imports_of(path.read_text(), _module_name(path), path.name == "__init__.py")


def _imports_of(source: str, module: str, is_package: bool) -> list[tuple[str, list[str], int]]:
    """(imported module, imported names, line) for every kwhatif import in the source, wherever
    it stands (functions, `if TYPE_CHECKING:` blocks included). `from kwhatif import engine` counts
    as an import of `kwhatif.engine`; a relative import is resolved against the module's package."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    found: list[tuple[str, list[str], int]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
            if base == "kwhatif":
                found += [(f"kwhatif.{a.name}", [], node.lineno) for a in node.names if a.name != "__version__"]
            elif base.startswith("kwhatif."):
                found.append((base, [a.name for a in node.names], node.lineno))
        elif isinstance(node, ast.Import):
            found += [(a.name, [], node.lineno) for a in node.names if a.name.startswith("kwhatif")]
    return found


MODULES = sorted(p for p in PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("source, module, expected", [
    pytest.param("from kwhatif.engine import simulate", "kwhatif.plugins.x", ["kwhatif.engine"],
                 id="a from-import names its module"),
    pytest.param("import kwhatif.engine", "kwhatif.plugins.x", ["kwhatif.engine"], id="a plain import counts"),
    pytest.param("from kwhatif import engine, __version__", "kwhatif.plugins.x", ["kwhatif.engine"],
                 id="a module imported from the root package counts as that module; the version does not"),
    pytest.param("from .. import engine", "kwhatif.plugins.x", ["kwhatif.engine"],
                 id="a relative import is resolved against the package"),
    pytest.param("from .filtering import f", "kwhatif.plugins.spread", ["kwhatif.plugins.filtering"],
                 id="a sibling relative import stays in its package"),
    pytest.param("def f():\n    from kwhatif.cli import main", "kwhatif.api.x", ["kwhatif.cli"],
                 id="an import inside a function counts"),
    pytest.param("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from kwhatif.engine import S",
                 "kwhatif.api.x", ["kwhatif.engine"], id="an import for type checking only counts"),
])
def test_every_form_of_import_is_seen(source: str, module: str, expected: list[str]) -> None:
    assert [m for m, _names, _line in _imports_of(source, module, False)] == expected


def test_every_unit_has_a_layer() -> None:
    units = {_unit(_module_name(p)) for p in MODULES}
    assert units <= set(LAYERS), f"add these to LAYERS: {sorted(units - set(LAYERS))}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down(path: Path) -> None:
    here = _unit(_module_name(path))
    upward = []
    for module, _names, line in _imports(path):
        there = _unit(module)
        if there == here:
            continue
        if LAYERS[there] >= LAYERS[here]:
            upward.append(f"line {line}: {here} -> {module}")
    assert not upward, upward


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_private_names_imported_across_modules(path: Path) -> None:
    me = _module_name(path)
    private = [f"line {line}: {name} from {module}" for module, names, line in _imports(path)
               for name in names if name.startswith("_") and not name.startswith("__") and module != me]
    assert not private, private
