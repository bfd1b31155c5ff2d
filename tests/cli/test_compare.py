"""`kwhatif compare`: `kwhatif diff` of one queue under two configurations (the default profile,
or --against, before; --config after)."""

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
    config = str(SAMPLES / "bin-packing.config.yaml")
    result = CliRunner().invoke(main, ["compare", "-c", str(cluster), "--config", config, "-o", "json",
                                       "--now", "2026-01-01T00:00:00Z"])
    assert result.exit_code == 0, result.output  # nothing evicted nor left pending under --config
    data = json.loads(result.stdout)
    assert data["before"] == f"{cluster} (default profile)" and data["after"] == f"{cluster} ({config})"
    assert [(p["pod"], p["change"], p["before"], p["after"]) for p in data["pods"]] == [
        ("default/new", "moved", "n2", "n1")]
    assert data["counts"] == {"moved": 1}
    # Packing leaves n2 empty: 1 pod (new) before, 0 after; n1 gains it (busy + new).
    assert (data["nodes"]["n2"]["before"]["pods"], data["nodes"]["n2"]["after"]["pods"]) == (1, 0)
    assert (data["nodes"]["n1"]["before"]["cpu"], data["nodes"]["n1"]["after"]["cpu"]) == (3000, 3500)


def test_compare_is_diff_with_two_configurations(tmp_path: Path) -> None:
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(CLUSTER)
    config = str(SAMPLES / "bin-packing.config.yaml")
    args = ["-c", str(cluster), "-o", "json", "--now", "2026-01-01T00:00:00Z"]
    compared = CliRunner().invoke(main, ["compare", *args, "--config", config])
    diffed = CliRunner().invoke(main, ["diff", *args, "--config", config])
    assert compared.stdout == diffed.stdout and compared.exit_code == diffed.exit_code
