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
    "__init__": 0, "errors": 0, "memory": 0,  # the root package holds only the version
    "api": 1,
    "load": 2,
    "snapshot": 3,
    "framework": 4,
    "preemption": 5,
    "plugins": 6,
    "config": 7, "workloads": 7,
    "engine": 8,
    "check": 9, "explain": 9,
    "capacity": 10,
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
    """(imported module, imported names, line) for every kwhatif import in the file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("kwhatif"):
            found.append((node.module or "", [a.name for a in node.names], node.lineno))
        elif isinstance(node, ast.Import):
            found += [(a.name, [], node.lineno) for a in node.names if a.name.startswith("kwhatif")]
    return found


MODULES = sorted(p for p in PACKAGE.rglob("*.py"))


def test_every_unit_has_a_layer() -> None:
    units = {_unit(_module_name(p)) for p in MODULES}
    assert units <= set(LAYERS), f"add these to LAYERS: {sorted(units - set(LAYERS))}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down(path: Path) -> None:
    here = _unit(_module_name(path))
    upward = []
    for module, _names, line in _imports(path):
        there = _unit(module)
        if there == here or here == "__init__":
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
