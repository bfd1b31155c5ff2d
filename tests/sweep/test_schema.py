"""The sweep file is checked before anything runs: a bad file is one error line naming the file
and the field, exit 2 (schemas/sweep.schema.json)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import jsonschema
import pytest
import yaml

from kwhatif.sweep.spec import SCHEMA_PATH
from kwhatif.whatif.ops import MAX_ADDED_NODES
from tests.cli.conftest import executable, single_error_line

REPO = Path(__file__).parents[2]
SAMPLES = REPO / "samples"


def sweep(file: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([executable("kwhatif"), "sweep", str(file), *args], capture_output=True, text=True,
                          timeout=120)


def write(tmp_path: Path, text: str) -> Path:
    """A sweep file beside copies of nothing: snapshot paths point into samples/."""
    file = tmp_path / "sweep.yaml"
    file.write_text(text.replace("SAMPLES", str(SAMPLES)))
    return file


CASES = [
    ("a count below zero names the count",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\nnodes:\n- {template: t.yaml, counts: [0, -1]}\n",
     "Sweep: nodes[0].counts[1]: -1 is less than the minimum of 0"),
    ("an unknown key at the top is named",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\naxes: {}\n",
     "Sweep: (top level): Additional properties are not allowed ('axes' was unexpected)"),
    ("a missing snapshots list is named",
     "kind: Sweep\n",
     "Sweep: (top level): 'snapshots' is a required property"),
    ("the wrong kind is named",
     "kind: Sweeps\nsnapshots: [SAMPLES/cluster.yaml]\n",
     "Sweep: kind: 'Sweep' was expected"),
    ("a null is said as the file says it, not as Python does",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\nremove:\n- {name: z, labels: {zone: null}}\n",
     "Sweep: remove[0].labels.zone: null is not of type 'string'"),
    ("a boolean too",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\nremove:\n- {name: z, labels: {zone: true}}\n",
     "Sweep: remove[0].labels.zone: true is not of type 'string'"),
    ("a removal's label value must be a string",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\nremove:\n- {name: z, labels: {zone: 1}}\n",
     "Sweep: remove[0].labels.zone: 1 is not of type 'string'"),
    # Label keys and values as the API server validates them (ValidateLabels: IsQualifiedName,
    # IsValidLabelValue, apimachinery validation.go's messages): no node carries another.
    ("a removal's label key the API server refuses is named",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\nremove:\n- {name: z, labels: {zone name: a}}\n",
     'Sweep: remove[0].labels: Invalid value: "zone name": name part must consist of alphanumeric characters, '
     "'-', '_' or '.', and must start and end with an alphanumeric character"),
    ("a removal's label value the API server refuses is named",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\nremove:\n- {name: z, labels: {zone: us east}}\n",
     'Sweep: remove[0].labels: Invalid value: "us east": a valid label must be an empty string or consist of '
     "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"),
    ("check policies without workloads to judge are refused, not dropped",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\ncheck: {tolerateZoneLoss: true}\n",
     "Sweep: check: the check's policies judge workloads, and the sweep names none"),
    ("an unknown check option is named",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\ncheck: {tolerateZoneLos: true}\n",
     "Sweep: check: Additional properties are not allowed ('tolerateZoneLos' was unexpected)"),
    ("a listed scenario naming an undefined removal is named",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\ncombine: list\nscenarios:\n- {snapshot: SAMPLES/cluster.yaml, remove: zone-q}\n",
     "Sweep: scenarios[0].remove: 'zone-q' is not defined under remove"),
    ("a glob matching nothing is named",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml, SAMPLES/nothing-*.kws]\n",
     "Sweep: snapshots[1]: "),
    ("a clock that is not RFC3339 is named",
     "kind: Sweep\nnow: yesterday\nsnapshots: [SAMPLES/cluster.yaml]\n",
     "Sweep: now: 'yesterday' is not an RFC3339 time"),
    ("a bad headroom is named",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\ncheck: {headroom: gpu=5%}\n",
     "Sweep: check.headroom: 'gpu=5%' is not RESOURCE=PERCENT%"),
    ("an empty file is said to be empty",
     "",
     "the file is empty: a Sweep names at least its snapshots"),
    ("a key given twice is refused, as in every input (kwhatif/load/yaml_text.py)",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\nsnapshots: [SAMPLES/other.yaml]\n",
     ':3: snapshots: duplicate key "snapshots" (first on line 2)'),
    ("a second document is refused",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\n---\nkind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\n",
     "2 YAML documents: a sweep file holds one Sweep"),
    ("listed scenarios without combine: list are named, not the whole document dumped",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\nscenarios: [{snapshot: SAMPLES/cluster.yaml}]\n",
     "Sweep: scenarios: listed scenarios need `combine: list`"),
    ("a missing workload file names the field that names it",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\nworkloads:\n- {name: a, files: [nope.yaml]}\n",
     "Sweep: workloads[0].files: "),
    ("a configuration kube-scheduler refuses names the field, with kube-scheduler's words",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\nconfigs: [default, SAMPLES/cluster.yaml]\n",
     'Sweep: configs[1]: no kind "List" is registered for version "v1"'),
    ("a snapshot path that does not exist is a typo, named",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml, SAMPLES/clustr.yaml]\n",
     "Sweep: snapshots[1]: "),
    ("a listed scenario's snapshot path that does not exist is a typo too, named",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\ncombine: list\nscenarios: [{snapshot: SAMPLES/clusterr.yaml}]\n",
     "Sweep: scenarios[0].snapshot: "),
    ("a node template that cannot be read names its field",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\nnodes:\n- {template: SAMPLES/sweep/node-m5.2xlarge.yaml, counts: [1]}\n"
     "- {template: nope.yaml, counts: [1]}\n",
     "Sweep: nodes[1].template: "),
    ("a node template that is no Node names its field",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\nnodes:\n- {template: SAMPLES/sweep/api.yaml, counts: [1]}\n",
     "Sweep: nodes[0].template: "),
    ("a listed scenario's template and configuration are named where the scenario names them",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\ncombine: list\nscenarios:\n- {snapshot: SAMPLES/cluster.yaml}\n"
     "- {snapshot: SAMPLES/cluster.yaml, config: nope.yaml}\n",
     "Sweep: scenarios[1].config: "),
    ("workload files with no workload stop the sweep: not one row could run",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\nworkloads:\n- {name: a, files: [SAMPLES/sweep/node-m5.2xlarge.yaml]}\n",
     "Sweep: workloads[0].files: no workload to check in the files"),
    ("a count given twice would run the same scenarios twice: named",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\nnodes:\n- {template: t.yaml, counts: [1, 1]}\n",
     "Sweep: nodes[0].counts: [1, 1] has non-unique elements"),
    ("a duplicate workload name is named",
     "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\nworkloads:\n- {name: a, files: [x.yaml]}\n- {name: a, files: [y.yaml]}\n",
     "Sweep: workloads[1].name: duplicate name 'a'"),
]


@pytest.mark.parametrize("name,text,expected", CASES, ids=[c[0] for c in CASES])
def test_a_bad_sweep_file_is_one_line_naming_the_field(tmp_path: Path, name: str, text: str, expected: str) -> None:
    file = write(tmp_path, text)
    done = sweep(file)
    assert done.returncode == 2, done.stderr
    line = single_error_line(done.stderr)
    assert line.startswith(f"kwhatif: error: {file}#0: Sweep: ") or line.startswith(f"kwhatif: error: {file}")
    assert expected in line
    assert done.stdout == ""


def test_a_missing_input_of_the_sweep_stops_it_before_any_scenario(tmp_path: Path) -> None:
    file = write(tmp_path, "kind: Sweep\nsnapshots: [SAMPLES/cluster.yaml]\n"
                           "nodes:\n- {template: missing-node.yaml, counts: [1]}\n")
    done = sweep(file)
    assert done.returncode == 2
    assert "missing-node.yaml" in single_error_line(done.stderr)


def test_the_published_schema_is_the_one_the_command_checks_against() -> None:
    assert (REPO / "schemas" / "sweep.schema.json").read_text() == SCHEMA_PATH.read_text()


def test_the_sample_sweep_is_valid() -> None:
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator(schema).validate(yaml.safe_load((SAMPLES / "sweep.yaml").read_text()))


def test_a_double_star_glob_spans_folders(tmp_path: Path) -> None:
    """`fleet/**/*.yaml` takes fleet/a.yaml and fleet/eu/b.yaml, as a shell's globstar does."""
    from kwhatif.sweep.spec import SweepPaths
    for name in ("fleet/a.yaml", "fleet/eu/b.yaml"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    paths = SweepPaths(str(tmp_path / "sweep.yaml"))
    assert paths.snapshot_names(["fleet/**/*.yaml"]) == ["fleet/a.yaml", "fleet/eu/b.yaml"]


def test_the_schemas_node_count_limit_is_the_one_add_node_enforces() -> None:
    """The schema refuses a count above the limit `--add-node` enforces, at the same number: a
    sweep never starts a scenario its own what-if would refuse (both state it; this keeps them one)."""
    schema = json.loads(SCHEMA_PATH.read_text())
    axis = schema["properties"]["nodes"]["items"]["properties"]["counts"]["items"]["maximum"]
    listed = schema["properties"]["scenarios"]["items"]["properties"]["nodes"]["properties"]["count"]["maximum"]
    assert axis == listed == MAX_ADDED_NODES
