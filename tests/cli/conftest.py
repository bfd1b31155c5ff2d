"""Fixtures for the command-line tests.

The hand-written cluster under `data/` (every expected value in these tests is worked out by hand
from ../shared/design/SCHEDULER_REFERENCE.md; the arithmetic is written beside each test):

    node-a   2 cpu /  4Gi, no taint          bound-a  1500m / 1Gi   (priority 0)
    node-b   4 cpu /  8Gi, no taint          bound-b  2500m / 2Gi   (priority 0)
    node-c  16 cpu / 64Gi, taint dedicated=gpu:NoSchedule (only in the folder, file node-c.yaml)

    pending  urgent  300m / 256Mi  priority 1000 (class `high`), created 2025-06-03
             big    1800m / 1Gi    priority 0,                   created 2025-06-01
             small   400m / 512Mi  priority 0,                   created 2025-06-02

No zone labels, no images on nodes, no Services/ReplicaSets (so PodTopologySpread has no default
constraints and skips), no affinity (InterPodAffinity and NodeAffinity skip), so every score is
TaintToleration (3 x 100) + NodeResourcesFit + NodeResourcesBalancedAllocation + ImageLocality (0).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

import jsonschema
from referencing import Registry, Resource
import pytest
import yaml
from click.testing import CliRunner, Result

from kwhatif.cli.main import main

HERE = Path(__file__).parent
DATA = HERE / "data"
CLUSTER = DATA / "cluster"
REPO = HERE.parent.parent
SCHEMA_PATH = REPO / "schemas" / "schedule-output.schema.json"
NOW = "2026-01-01T00:00:00Z"


def executable(name: str) -> str:
    """The console script installed beside the interpreter running the tests (the project's `.venv`).

    Never the bare name: whatever else is on PATH (another install, nothing at all on a bare
    machine) must not decide which kwhatif the tests run.
    """
    return str(Path(sys.executable).parent / name)

# The cluster as several -c options: the folder without node-c (2 nodes).
TWO_NODE_ARGS = [
    "-c", str(CLUSTER / "nodes.yaml"),
    "-c", str(CLUSTER / "bound.yaml"),
    "-c", str(CLUSTER / "priorityclasses.yaml"),
    "-c", str(CLUSTER / "pending.yaml"),
]

# FailedScheduling of default/big, with the 3-node folder (reference §8.1, §8.2, §9.2, §9.4):
#   after urgent lands on node-b: free cpu node-a 2000-1500 = 500m, node-b 4000-2800 = 1200m.
#   node-a, node-b: 1800m > free but <= allocatable -> `Insufficient cpu`, code Unschedulable;
#   node-c: untolerated NoSchedule taint -> `node(s) had untolerated taint {dedicated: gpu}` (U&U).
#   histogram sorted byte-wise: "1 node(s) had ...", "2 Insufficient cpu".
#   DynamicResources PostFilter: `no new claims to deallocate`; DefaultPreemption: node-c is not
#   potential (U&U) -> absent status `Preemption is not helpful for scheduling`; node-a/node-b hold
#   only priority-0 and priority-1000 pods, none strictly lower than big's 0 ->
#   `No preemption victims found for incoming pod`.
# A pending pod asking 2 cpu, for small clusters written inside tests.
WEB_2_CPU = """apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, creationTimestamp: "2025-06-01T00:00:00Z"}
spec:
  containers: [{name: app, image: nginx, resources: {requests: {cpu: "2"}}}]
"""

MSG_BIG_3 = (
    "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 Insufficient cpu. "
    "no new claims to deallocate, preemption: 0/3 nodes are available: "
    "1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
)
# The same pod with only node-a and node-b.
MSG_BIG_2 = (
    "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: "
    "0/2 nodes are available: 2 No preemption victims found for incoming pod."
)


def invoke(args: Sequence[str], input: bytes | str | None = None) -> Result:
    """Run `kwhatif ARGS` in-process (stderr kept apart from stdout)."""
    return CliRunner().invoke(main, list(args), input=input)


@pytest.fixture
def cli() -> Callable[..., Result]:
    return invoke


@pytest.fixture(scope="session")
def output_schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text())


@pytest.fixture
def validate(output_schema: dict[str, Any]) -> Callable[[Any], None]:
    """Validate `schedule`/`place` JSON output against schemas/schedule-output.schema.json."""
    def check(data: Any) -> None:
        jsonschema.Draft202012Validator(output_schema).validate(data)
    return check


@pytest.fixture
def validate_check(output_schema: dict[str, Any]) -> Callable[[Any], None]:
    """Validate `check -o json` output against $defs/checkOutput (the schedule document with the
    check's fields required), the schema resolved by its $id as a program would."""
    registry = Registry().with_resource(output_schema["$id"], Resource.from_contents(output_schema))
    validator = jsonschema.Draft202012Validator({"$ref": output_schema["$id"] + "#/$defs/checkOutput"},
                                                registry=registry)

    def check(data: Any) -> None:
        validator.validate(data)
    return check


@pytest.fixture
def validate_pod_result(output_schema: dict[str, Any]) -> Callable[[Any], None]:
    """Validate one pod result (what `explain -o json` prints) against $defs/podResult."""
    schema = {"$schema": output_schema["$schema"], "$defs": output_schema["$defs"], "$ref": "#/$defs/podResult"}

    def check(data: Any) -> None:
        jsonschema.Draft202012Validator(schema).validate(data)
    return check


def cluster_documents(*names: str) -> list[dict[str, Any]]:
    """The objects of the given files of data/cluster (all of them when no name is given)."""
    files = [CLUSTER / n for n in names] if names else sorted(CLUSTER.glob("*.yaml"))
    docs: list[dict[str, Any]] = []
    for f in files:
        docs.extend(d for d in yaml.safe_load_all(f.read_text()) if d)
    return docs


def as_list_json(docs: list[dict[str, Any]]) -> str:
    """A `kubectl get -o json` style dump: one `kind: List`."""
    return json.dumps({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": docs},
                      indent=4)


@pytest.fixture
def list_json_all() -> str:
    """The whole 3-node folder as one `kind: List` JSON document."""
    return as_list_json(cluster_documents())


def by_pod(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["pod"]: r for r in data["results"]}


def totals(result: dict[str, Any]) -> dict[str, int]:
    return {node: s["total"] for node, s in (result.get("scores") or {}).items()}


def single_error_line(result_stderr: str) -> str:
    """The stderr of a bad-input run: exactly one line, starting `kwhatif: error:`."""
    lines = result_stderr.splitlines()
    assert len(lines) == 1, f"expected one stderr line, got {lines!r}"
    assert lines[0].startswith("kwhatif: error: "), lines[0]
    return lines[0]
