"""Shared by the sweep tests: the 2-node cluster of tests/cli/data (hand-computed figures in
test_rows.py) as one snapshot folder, the CLI driven as a subprocess, and row comparison helpers."""

from __future__ import annotations

import json
import shutil
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import CLUSTER, executable

REPO = Path(__file__).parents[2]
SAMPLES = REPO / "samples"
TWO_NODE_FILES = ("nodes.yaml", "bound.yaml", "priorityclasses.yaml", "pending.yaml")

# A 4 cpu / 8Gi node template, and the node `node_copies` makes of it (named <template>-1, with its own
# hostname label), written out by hand for the individual `schedule` runs.
TEMPLATE = """apiVersion: v1
kind: Node
metadata:
  name: node-t
  labels: {kubernetes.io/os: linux, kubernetes.io/hostname: node-t}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
"""
ADDED = TEMPLATE.replace("name: node-t", "name: node-t-1").replace("hostname: node-t}", "hostname: node-t-1}")


def kwhatif(*args: str, timeout: int = 300, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`env`: variables set for this run, beside the test's own environment."""
    return subprocess.run([executable("kwhatif"), *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


@pytest.fixture
def two_nodes(tmp_path: Path) -> Path:
    """tmp/two-nodes/ (the 2-node cluster) and tmp/node-t.yaml, tmp/node-t-1.yaml."""
    folder = tmp_path / "two-nodes"
    folder.mkdir()
    for name in TWO_NODE_FILES:
        shutil.copy(CLUSTER / name, folder / name)
    (tmp_path / "node-t.yaml").write_text(TEMPLATE)
    (tmp_path / "node-t-1.yaml").write_text(ADDED)
    return tmp_path


def sweep_json(file: Path, *args: str) -> dict[str, Any]:
    done = kwhatif("sweep", str(file), "-o", "json", "-q", *args)
    assert done.returncode in (0, 1), done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def figures_of_command(data: dict[str, Any]) -> dict[str, Any]:
    """What a row must say, read from a `schedule`/`check -o json` of the same scenario: pods
    bound / not bound by their final outcome, the distinct preemption victims; for `schedule`
    the first FailedScheduling message in queue order, for `check` the verdict, the workloads
    not ok, the policies, and the message of the first failing workload (else policy)."""
    results = data["results"]
    bound = sum(1 for r in results if r["outcome"] == "bound")
    victims = {v for r in results for a in r.get("attempts", [r]) if a.get("preemption")
               for v in a["preemption"]["victims"]}
    first = next((r["message"] for r in results if r["outcome"] != "bound" and r["message"]), None)
    out = {"nodes": data["cluster"]["nodes"], "bound": bound, "pending": len(results) - bound,
           "evicted": len(victims), "message": first}
    if "ok" in data:
        failed = [w for w in data["workloads"] if not w["ok"]]
        reasons = [w["message"] for w in failed] + [m for p in data["policies"] if not p["ok"] for m in p["messages"]]
        out["verdict"] = "pass" if data["ok"] else "fail"
        out["failed_workloads"] = [f"{w['kind']}/{w['namespace']}/{w['name']}" for w in failed]
        out["policies"] = [{"policy": p["policy"], "ok": p["ok"]} for p in data["policies"]]
        out["message"] = next((r for r in reasons if r), None)
    return out


def row_figures(row: dict[str, Any], keys: Any) -> dict[str, Any]:
    return {k: row[k] for k in keys}


