"""Properties over generated scenarios (corpus/, made by gen_scenarios.py; see corpus/README.md):

- the fast path (all nodes at once from the node table) decides exactly as the plain per-node
  path, pod for pod and field for field;
- nothing crashes, and the same input gives byte-identical output twice.

The generator is the one the conformance references were made with; its output is committed
(xz-compressed) so that these tests run in any clone."""

from __future__ import annotations

import lzma
from pathlib import Path

import orjson
import pytest

from kwhatif.engine import simulate
from kwhatif.load.cluster import load_cluster
from kwhatif.render.results import simulation_data

CORPUS = Path(__file__).parent / "corpus"
NOW = "2026-01-01T00:00:00Z"
SCENARIOS = 16


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The committed scenarios, decompressed (the loader reads plain YAML files)."""
    out = tmp_path_factory.mktemp("corpus")
    found = []
    for packed in sorted(CORPUS.glob("*.yaml.xz")):
        target = out / packed.name.removesuffix(".xz")
        target.write_bytes(lzma.decompress(packed.read_bytes()))
        found.append(target)
    assert len(found) == SCENARIOS
    return found


def _run(path: Path, fast: bool) -> bytes:
    return orjson.dumps(simulation_data(simulate(load_cluster([str(path)]), NOW, fast=fast)),
                        option=orjson.OPT_SORT_KEYS)


@pytest.mark.parametrize("index", range(SCENARIOS))
def test_fast_path_equals_plain_path(scenarios: list[Path], index: int) -> None:
    path = scenarios[index]
    assert _run(path, fast=True) == _run(path, fast=False), path.name


@pytest.mark.parametrize("index", range(0, SCENARIOS, 4))
def test_same_input_same_output(scenarios: list[Path], index: int) -> None:
    path = scenarios[index]
    assert _run(path, fast=True) == _run(path, fast=True)


def _as_json_list(path: Path, out: Path) -> Path:
    """The scenario as `kubectl get -o json` prints it: one `kind: List`."""
    import yaml

    items = [d for d in yaml.load_all(path.read_text(), Loader=yaml.CSafeLoader) if d]
    target = out / (path.stem + ".json")
    target.write_bytes(orjson.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return target


@pytest.mark.parametrize("index", range(0, SCENARIOS, 3))
def test_json_dump_decides_as_the_yaml_manifests(scenarios: list[Path], index: int, tmp_path: Path) -> None:
    """Big JSON Lists take the fast reader (pods read from their bytes, templates decoded once):
    the decisions must be those of the general path."""
    path = scenarios[index]
    from_json = simulation_data(simulate(load_cluster([str(_as_json_list(path, tmp_path))]), NOW))
    from_yaml = simulation_data(simulate(load_cluster([str(path)]), NOW))
    from_json.pop("warnings")
    from_yaml.pop("warnings")
    assert orjson.dumps(from_json, option=orjson.OPT_SORT_KEYS) == orjson.dumps(from_yaml, option=orjson.OPT_SORT_KEYS)
