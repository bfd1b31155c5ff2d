"""`--sample-like-scheduler`: only as many nodes as kube-scheduler examines (§7)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kwhatif.cli.main import main


def _cluster(tmp_path: Path) -> Path:
    # 150 nodes without zone labels: one zone, node order = name order (§7.2): n000 ... n149.
    # All have 4 cpu; n149 alone is empty, every other node has 2 cpu requested. The two pending
    # pods (100m each) fit everywhere; LeastAllocated and BalancedAllocation favour the empty n149.
    items = []
    for i in range(150):
        name = f"n{i:03d}"
        items.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
                      "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
        if i != 149:
            items.append({"apiVersion": "v1", "kind": "Pod",
                          "metadata": {"name": f"busy-{i:03d}", "namespace": "default"},
                          "spec": {"nodeName": name, "containers": [
                              {"name": "c", "image": "x", "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}}]},
                          "status": {"phase": "Running"}})
    for name, created in (("first", "2025-01-01T00:00:00Z"), ("second", "2025-01-02T00:00:00Z")):
        items.append({"apiVersion": "v1", "kind": "Pod",
                      "metadata": {"name": name, "namespace": "default", "creationTimestamp": created},
                      "spec": {"containers": [{"name": "c", "image": "x",
                                               "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]}})
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return path


def _run(path: Path, *extra: str) -> dict:
    result = CliRunner().invoke(main, ["schedule", "-c", str(path), "-o", "json", "--now", "2026-01-01T00:00:00Z",
                                       *extra])
    assert result.exit_code == 0, result.output
    return {r["pod"]: r for r in json.loads(result.stdout)["results"]}


def test_a_full_scan_finds_the_best_node(tmp_path: Path) -> None:
    results = _run(_cluster(tmp_path))
    assert results["default/first"]["node"] == "n149"
    assert results["default/first"]["num_feasible"] == 150


def test_sampling_stops_at_the_nodes_kube_scheduler_would_examine(tmp_path: Path) -> None:
    # §7.1: 150 nodes, adaptive percentage 50 − 150 div 125 = 49 → 150 × 49 div 100 = 73 < 100
    # → 100 nodes to find. The first pod examines n000..n099 from start index 0 (all feasible) and
    # picks among them: n149 is never seen. All of n000..n099 score the same → n000 (smallest).
    # The start index moves to 100: the second pod examines n100..n149 then n000..n049 and finds
    # the empty n149.
    results = _run(_cluster(tmp_path), "--sample-like-scheduler")
    first, second = results["default/first"], results["default/second"]
    assert (first["node"], first["num_feasible"]) == ("n000", 100)
    assert (second["node"], second["num_feasible"]) == ("n149", 100)
