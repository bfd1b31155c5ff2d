"""`kwhatif compare`: one queue under two configurations, side by side."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kwhatif.cli.main import main

SAMPLES = Path(__file__).parents[2] / "samples"

CLUSTER = """
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: busy, namespace: default, creationTimestamp: "2025-01-01T00:00:00Z"}
  spec:
    nodeName: n1
    containers: [{name: c, image: busy, resources: {requests: {cpu: "3", memory: "0"}}}]
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: new, namespace: default, creationTimestamp: "2025-01-02T00:00:00Z"}
  spec:
    containers: [{name: c, image: app, resources: {requests: {cpu: 500m, memory: 512Mi}}}]
"""


def test_bin_packing_moves_the_pod_to_the_fuller_node(tmp_path: Path) -> None:
    # Pod 500m / 512Mi; n1 has 3 cpu requested (memory 0 -> non-zero 0 explicit), n2 nothing.
    # Default profile, n1: LeastAllocated cpu (4000-3500)*100/4000 = 12, memory 93 -> 52;
    #   Balanced: cpu 0.875, mem 0.0625 -> std 0.40625 -> 59. n2: LeastAllocated (87+93)/2 = 90,
    #   Balanced cpu 0.125 -> std 0.03125 -> 96. TaintToleration 300 and ImageLocality 0 on both:
    #   n2 wins (486 vs 411).
    # Bin packing (MostAllocated, Balanced off), n1: cpu 3500*100/4000 = 87, memory 6 -> 46;
    #   n2: cpu 12, memory 6 -> 9: n1 wins.
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(CLUSTER)
    result = CliRunner().invoke(main, ["compare", "-c", str(cluster), "--config",
                                       str(SAMPLES / "bin-packing.config.yaml"), "-o", "json",
                                       "--now", "2026-01-01T00:00:00Z"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    [row] = data["pods"]
    config = str(SAMPLES / "bin-packing.config.yaml")
    assert row["default"] == {"outcome": "bound", "node": "n2"}
    assert row[config] == {"outcome": "bound", "node": "n1"}
    assert data["changed"] == 1
    assert data["nodes_used"] == {"default": 2, config: 1}  # packing leaves n2 empty
