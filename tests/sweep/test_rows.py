"""A sweep's rows: the figures worked out by hand on the 2-node cluster, and the same figures as
the individual `kwhatif schedule` / `kwhatif check` runs of each scenario give."""

from __future__ import annotations

import json
from pathlib import Path

from kwhatif.api.cluster import Cluster
from kwhatif.engine import built_snapshot
from kwhatif.sweep.scenario import utilisation
from tests.cli.conftest import MSG_BIG_2, NOW
from tests.sweep.conftest import SAMPLES, figures_of_command, kwhatif, row_figures, sweep_json

TWO_NODE_SWEEP = f"""kind: Sweep
now: "{NOW}"
snapshots: [two-nodes]
nodes:
- {{template: node-t.yaml, counts: [0, 1]}}
remove:
- {{name: none}}
- {{name: node-a, labels: {{kubernetes.io/hostname: node-a}}}}
"""

# Queue (priority, then creation): urgent 300m/256Mi (1000), big 1800m/1Gi, small 400m/512Mi.
# Bound before: bound-a 1500m/1Gi on node-a (2 cpu/4Gi), bound-b 2500m/2Gi on node-b (4 cpu/8Gi);
# bound-a is a bare pod: losing node-a loses it. node-t-1: 4 cpu/8Gi, empty.
# Utilisation = requested after the run / allocatable, in %, rounded to 0.1 (half to even).
EXPECTED = [
    # nothing changed: urgent and small fit, big does not (tests/cli/conftest.py MSG_BIG_2).
    # cpu 1500+2500+300+400 = 4700 / 6000 = 78.33; memory 1024+2048+256+512 = 3840Mi / 12288Mi = 31.25;
    # pods 4 / 220 = 1.82.
    {"node_count": 0, "remove": "none", "nodes": 2, "bound": 2, "pending": 1, "evicted": 0,
     "utilisation": {"cpu": 78.3, "memory": 31.2, "pods": 1.8}, "message": MSG_BIG_2},
    # node-a lost: node-b free 1500m; urgent -> 1200m left, big (1800m) Insufficient cpu, no victim
    # of lower priority than 0; small -> 800m left.
    # cpu 2500+300+400 = 3200 / 4000 = 80.0; memory 2048+256+512 = 2816 / 8192 = 34.375; pods 3 / 110 = 2.73.
    {"node_count": 0, "remove": "node-a", "nodes": 1, "bound": 2, "pending": 1, "evicted": 0,
     "utilisation": {"cpu": 80.0, "memory": 34.4, "pods": 2.7},
     "message": "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: "
                "0/1 nodes are available: 1 No preemption victims found for incoming pod."},
    # one node-t added: its 4000m free hold big whatever urgent does; every pod binds.
    # cpu 4700+1800 = 6500 / 10000 = 65.0; memory 3840+1024 = 4864 / 20480 = 23.75; pods 5 / 330 = 1.52.
    {"node_count": 1, "remove": "none", "nodes": 3, "bound": 3, "pending": 0, "evicted": 0,
     "utilisation": {"cpu": 65.0, "memory": 23.8, "pods": 1.5}, "message": None},
    # node-a lost, node-t added: cpu 2500+300+1800+400 = 5000 / 8000 = 62.5;
    # memory 2048+256+1024+512 = 3840 / 16384 = 23.44; pods 4 / 220 = 1.82.
    {"node_count": 1, "remove": "node-a", "nodes": 2, "bound": 3, "pending": 0, "evicted": 0,
     "utilisation": {"cpu": 62.5, "memory": 23.4, "pods": 1.8}, "message": None},
]


def test_rows_worked_out_by_hand(two_nodes: Path) -> None:
    file = two_nodes / "sweep.yaml"
    file.write_text(TWO_NODE_SWEEP)
    data = sweep_json(file, "--jobs", "1")
    assert data["scenarios"] == 4 and data["now"] == NOW
    assert [row["scenario"] for row in data["rows"]] == [0, 1, 2, 3]
    for row, expected in zip(data["rows"], EXPECTED):
        assert row_figures(row, expected) == expected
        assert row["snapshot"] == "two-nodes" and row["node_template"] == "node-t.yaml"
        assert row["verdict"] is None and row["policies"] == [] and row["error"] is None


def test_rows_equal_individual_schedule_runs(two_nodes: Path) -> None:
    file = two_nodes / "sweep.yaml"
    file.write_text(TWO_NODE_SWEEP)
    rows = sweep_json(file, "--jobs", "2")["rows"]
    base = ["schedule", "-c", str(two_nodes / "two-nodes"), "--now", NOW, "-o", "json", "--no-node-detail"]
    for row, extra in ((rows[0], []), (rows[2], ["-c", str(two_nodes / "node-t-1.yaml")])):
        done = kwhatif(*base, *extra)
        expected = figures_of_command(json.loads(done.stdout))
        assert row_figures(row, expected) == expected


def test_rows_equal_individual_check_runs() -> None:
    """samples/sweep.yaml's scenarios that lose no node, against `kwhatif check` of the same inputs
    with the same node added by the what-if (`--add-node`: general-c-1, with the pods of the
    snapshot's DaemonSets that should run on it)."""
    rows = sweep_json(SAMPLES / "sweep.yaml", "--jobs", "2")["rows"]
    template = str(SAMPLES / "sweep" / "node-m5.2xlarge.yaml")
    base = ["check", str(SAMPLES / "sweep" / "api.yaml"), "-c", str(SAMPLES / "cluster.yaml"), "--no-evictions",
            "--now", NOW, "-o", "json"]
    untouched = [r for r in rows if r["remove"] == "none"]
    assert [r["node_count"] for r in untouched] == [0, 1, 2]
    for row, extra in ((untouched[0], []), (untouched[1], ["--add-node", template]),
                       (untouched[2], ["--add-node", f"{template}:2"])):
        done = kwhatif(*base, *extra)
        expected = figures_of_command(json.loads(done.stdout))
        assert row_figures(row, expected) == expected


def _pod(name: str, cpu: str) -> str:
    """A bare pod of the default namespace requesting `cpu`."""
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default}}\n"
            f"spec: {{containers: [{{name: c, image: x, resources: {{requests: {{cpu: {cpu}}}}}}}]}}\n")


def test_a_failing_scenario_reports_its_error_in_its_row(two_nodes: Path) -> None:
    """Losing any 3 nodes of the 2-node cluster is no scenario (the check refuses it): that row
    says so, and the sweep goes on to the 3-node one."""
    (two_nodes / "pod.yaml").write_text(_pod("one", "100m"))
    file = two_nodes / "sweep.yaml"
    file.write_text(f"kind: Sweep\nnow: \"{NOW}\"\nsnapshots: [two-nodes]\nworkloads:\n- {{name: one, files: [pod.yaml]}}\n"
                    "nodes:\n- {template: node-t.yaml, counts: [0, 1]}\ncheck: {tolerateNodeLoss: 3}\n")
    done = kwhatif("sweep", str(file), "-o", "json", "--jobs", "1", "-q")
    assert done.returncode == 1, done.stderr
    first, second = json.loads(done.stdout)["rows"]
    assert first["error"].startswith("error: --tolerate-node-loss 3: the cluster has only 2 nodes")
    assert first["bound"] is None
    # the sweep went on: with node-t-1 (4 cpu) every pod binds (urgent, big, small, one); losing
    # all 3 nodes leaves `one` pending: the policy fails the check.
    assert second["error"] is None and (second["bound"], second["pending"]) == (4, 0)
    assert second["verdict"] == "fail"


def test_a_failing_checks_row_says_which_workload_and_why(two_nodes: Path) -> None:
    """A 5-cpu pod on node-a (2 cpu) and node-b (4 cpu): the request alone exceeds each node, so
    Fit rejects both as unresolvable and preemption cannot help (reference 8.1, 9.6). The row's
    message is that pod's, not big's (pending before, and first in the queue)."""
    (two_nodes / "huge.yaml").write_text(_pod("huge", "'5'"))
    file = two_nodes / "sweep.yaml"
    file.write_text(f"kind: Sweep\nnow: \"{NOW}\"\nsnapshots: [two-nodes]\nworkloads:\n"
                    "- {name: huge, files: [huge.yaml]}\n")
    (row,) = sweep_json(file, "--jobs", "1")["rows"]
    assert row["verdict"] == "fail" and row["failed_workloads"] == ["Pod/default/huge"]
    assert row["message"] == ("0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, "
                              "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.")


def test_a_gated_pod_is_no_failedscheduling_message(two_nodes: Path) -> None:
    """A pod held by its scheduling gates, first of its priority in the queue (created before big):
    kube-scheduler emits no FailedScheduling for it (PreEnqueue keeps it out of the queue), so the
    row's message is still big's, the queue's first FailedScheduling."""
    (two_nodes / "two-nodes" / "gated.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: held, namespace: default, creationTimestamp: '2025-05-01T00:00:00Z'}\n"
        "spec:\n  priority: 0\n  schedulingGates: [{name: example.com/wait}]\n"
        "  containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]\nstatus: {phase: Pending}\n")
    file = two_nodes / "sweep.yaml"
    file.write_text(f"kind: Sweep\nnow: \"{NOW}\"\nsnapshots: [two-nodes]\n")
    (row,) = sweep_json(file, "--jobs", "1")["rows"]
    assert row["pending"] == 2 and row["message"] == MSG_BIG_2


def test_a_listed_scenario_with_a_config_equals_schedule_with_that_config(two_nodes: Path) -> None:
    config = SAMPLES / "bin-packing.config.yaml"
    file = two_nodes / "sweep.yaml"
    file.write_text(f"kind: Sweep\nnow: \"{NOW}\"\nsnapshots: [two-nodes]\ncombine: list\nscenarios:\n"
                    f"- {{snapshot: two-nodes, config: {config}}}\n- {{snapshot: two-nodes}}\n")
    rows = sweep_json(file, "--jobs", "1")["rows"]
    assert [(r["scenario"], r["config"]) for r in rows] == [(0, str(config)), (1, "default")]
    base = ["schedule", "-c", str(two_nodes / "two-nodes"), "--now", NOW, "-o", "json", "--no-node-detail"]
    for row, extra in ((rows[0], ["--config", str(config)]), (rows[1], [])):
        expected = figures_of_command(json.loads(kwhatif(*base, *extra).stdout))
        assert row_figures(row, expected) == expected


def test_a_row_carries_the_warnings_its_scenario_brought(two_nodes: Path) -> None:
    """A DaemonSet whose nodeSelector matches a label only the added node has: with no node added
    it matches no node, which `kwhatif check` warns about (check/__init__.py:NO_NODE); with the
    node added it runs one pod there and nothing is said. The loaded snapshot's own warnings are
    never repeated in a row."""
    (two_nodes / "agent.yaml").write_text(
        "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent, namespace: default}\n"
        "spec:\n  selector: {matchLabels: {app: agent}}\n  template:\n    metadata: {labels: {app: agent}}\n"
        "    spec:\n      nodeSelector: {kubernetes.io/hostname: node-t-1}\n"
        "      containers: [{name: c, image: agent:1, resources: {requests: {cpu: 10m}}}]\n")
    file = two_nodes / "sweep.yaml"
    file.write_text(f"kind: Sweep\nnow: \"{NOW}\"\nsnapshots: [two-nodes]\n"
                    "nodes:\n- {template: node-t.yaml, counts: [0, 1]}\n"
                    "workloads:\n- {name: agent, files: [agent.yaml]}\n")
    rows = sweep_json(file, "--jobs", "1")["rows"]
    assert [r["node_count"] for r in rows] == [0, 1]
    assert rows[0]["warnings"] == ["DaemonSet/default/agent: matches no node: its nodeSelector, node affinity or "
                                   "tolerations exclude every node, so no pod would run"]
    assert rows[1]["warnings"] == []
    done = kwhatif("check", str(two_nodes / "agent.yaml"), "-c", str(two_nodes / "two-nodes"), "--now", NOW,
                   "-o", "json")
    assert rows[0]["warnings"][0] in json.loads(done.stdout)["warnings"]


def test_a_cluster_without_nodes_has_no_utilisation_not_zero_percent() -> None:
    """0 of 0 cpu is no 0 %: a scenario that removes every node says nothing of utilisation."""
    assert utilisation(built_snapshot(Cluster())[0]) == {}
