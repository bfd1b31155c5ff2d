"""A plugin disabled at one extension point but left on at the others, as kube-scheduler v1.34.1
runs it: some plugins' Score works out what PreScore would have written (NodeAffinity,
NodeResourcesFit, NodeResourcesBalancedAllocation: "Fallback to calculate ... when PreScore is
disabled"), the others' Score or Filter reads the missing state and fails, which the runner
words as RunScorePlugins / RunFilterPlugins do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import NOW, invoke

CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1, topology.kubernetes.io/zone: a}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {kubernetes.io/hostname: n2, topology.kubernetes.io/zone: b}}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: default, labels: {app: web}, creationTimestamp: "2025-01-02T00:00:00Z"}
spec:
  containers: [{name: c, image: nginx, ports: [{containerPort: 80, hostPort: 8080}],
                resources: {requests: {cpu: 500m, memory: 512Mi}}}]
"""


def _config(point: str, plugin: str) -> str:
    return ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- plugins:\n"
            f"    {point}:\n      disabled: [{{name: {plugin}}}]\n")


@pytest.mark.parametrize("point, plugin, outcome, message", [
    # Score's fallback: p1 is scored as ever — n2 (8 cpu) is the least allocated.
    ("preScore", "NodeAffinity", "bound", None),
    ("preScore", "NodeResourcesFit", "bound", None),
    ("preScore", "NodeResourcesBalancedAllocation", "bound", None),
    # Score fails (AsStatus), wrapped by RunScorePlugins.
    ("preScore", "TaintToleration", "error", 'running Score plugins: plugin "TaintToleration" failed with: failed to '
     'read "PreScoreTaintToleration" from cycleState: not found'),
    ("preScore", "PodTopologySpread", "error", 'running Score plugins: plugin "PodTopologySpread" failed with: error '
     'reading "PreScorePodTopologySpread" from cycleState: not found'),
    ("preScore", "InterPodAffinity", "error", 'running Score plugins: plugin "InterPodAffinity" failed with: failed to '
     'read "PreScoreInterPodAffinity" from cycleState: not found'),
    # Filter fails (AsStatus), wrapped by RunFilterPlugins.
    ("preFilter", "NodeResourcesFit", "error", 'running "NodeResourcesFit" filter plugin: error reading '
     '"PreFilterNodeResourcesFit" from cycleState: not found'),
    ("preFilter", "NodePorts", "error", 'running "NodePorts" filter plugin: reading "PreFilterNodePorts" from '
     "cycleState: not found"),
])
def test_a_plugin_without_its_earlier_point(tmp_path: Path, point: str, plugin: str, outcome: str,
                                            message: str | None) -> None:
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "config.yaml").write_text(_config(point, plugin))
    result = invoke(["schedule", "-c", str(tmp_path / "cluster.yaml"), "--config", str(tmp_path / "config.yaml"),
                     "--now", NOW, "-o", "json"])
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    [pod] = json.loads(result.stdout)["results"]
    assert pod["outcome"] == outcome
    if message is None:
        assert pod["node"] == "n2"
    else:
        assert pod["message"] == message
