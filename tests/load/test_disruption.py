"""A PodDisruptionBudget given without a status gets the count the disruption controller writes
(disruption.go: getExpectedPodCount, getExpectedScale, countHealthyPods, updatePdbStatus); one
with a count keeps it. Each row's expected value is worked out beside it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kwhatif.load.cluster import load_cluster

NOW = "2026-01-01T00:00:00Z"


def owner(kind: str, name: str) -> list[dict[str, Any]]:
    return [{"apiVersion": "batch/v1" if kind == "Job" else "apps/v1", "kind": kind, "name": name, "uid": f"u-{name}",
             "controller": True}]


def pod(name: str, kind: str | None = "ReplicaSet", owned_by: str = "web", node: str | None = "n1",
        ready: str | None = None, deleting: bool = False, labels: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default", "labels": labels or {"app": "web"}}
    if kind is not None:
        meta["ownerReferences"] = owner(kind, owned_by)
    if deleting:
        meta["deletionTimestamp"] = NOW
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "x"}]}
    if node is not None:
        spec["nodeName"] = node
    status: dict[str, Any] = {}
    if ready is not None:
        status = {"phase": "Running", "conditions": [{"type": "Ready", "status": ready}]}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


def replica_set(name: str = "web", replicas: int = 3, deployment_replicas: int | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if deployment_replicas is not None:
        meta["annotations"] = {"deployment.kubernetes.io/desired-replicas": str(deployment_replicas)}
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": meta,
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "c", "image": "x"}]}}}}


def budget(spec: dict[str, Any], status: dict[str, Any] | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                           "metadata": {"name": "web", "namespace": "default"},
                           "spec": {"selector": {"matchLabels": {"app": "web"}}, **spec}}
    if status is not None:
        doc["status"] = status
    return doc


NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}}}


@pytest.mark.parametrize("objects, allowed", [
    # minAvailable 1 of 2 pods Ready (no condition on a hand-written bound pod: Ready): 2 - 1 = 1.
    ([replica_set(replicas=2), pod("a"), pod("b"), budget({"minAvailable": 1})], 1),
    # maxUnavailable 1: expected = the ReplicaSet's 3 replicas, desired 3 - 1 = 2; healthy 2 (one Ready=False): 0.
    ([replica_set(), pod("a"), pod("b"), pod("c", ready="False"), budget({"maxUnavailable": 1})], 0),
    # maxUnavailable 50% of 3, rounded up: 2, desired 1; healthy 3: 2.
    ([replica_set(), pod("a"), pod("b"), pod("c", ready="True"), budget({"maxUnavailable": "50%"})], 2),
    # minAvailable 50% of a Deployment's 4 replicas (two ReplicaSets of deployment web, counted once): desired 2,
    # healthy 4: 2.
    ([replica_set("web-aaa", 3, deployment_replicas=4), replica_set("web-bbb", 1, deployment_replicas=4),
      pod("a", owned_by="web-aaa"), pod("b", owned_by="web-aaa"), pod("c", owned_by="web-aaa"),
      pod("d", owned_by="web-bbb"), budget({"minAvailable": "50%"})], 2),
    # minAvailable 2: expected = its 3 pods (one pending, one being deleted: not healthy), healthy 1: 0.
    ([replica_set(), pod("a"), pod("b", node=None), pod("c", deleting=True), budget({"minAvailable": 2})], 0),
    # A Job has no scale: getExpectedScale fails and the fail-safe allows nothing.
    ([pod("a", kind="Job", owned_by="batch"), pod("b", kind="Job", owned_by="batch"),
      budget({"maxUnavailable": 1})], 0),
    # A ReplicaSet the snapshot lacks counts its 2 pods there: expected 2, desired 1, healthy 2: 1.
    ([pod("a"), pod("b"), budget({"maxUnavailable": 1})], 1),
    # Unmanaged pods add nothing to the scale: expected 0, and nothing is allowed while nothing is expected.
    ([pod("a", kind=None), pod("b", kind=None), budget({"maxUnavailable": 1})], 0),
    # A null selector matches no pod: minAvailable 0 of 0 pods expected: 0.
    ([replica_set(), pod("a"), {**budget({"minAvailable": 0}), "spec": {"minAvailable": 0}}], 0),
    # A count given is kept as it is (the status is the controller's, or a what-if's).
    ([replica_set(replicas=2), pod("a"), pod("b"), budget({"minAvailable": 1}, {"disruptionsAllowed": 0})], 0),
])
def test_a_budget_without_a_status_is_counted_as_the_disruption_controller_counts_it(
        tmp_path: Path, objects: list[dict[str, Any]], allowed: int) -> None:
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [NODE, *objects]}))
    [pdb] = load_cluster([str(path)]).pdbs
    assert pdb.disruptions_allowed == allowed


@pytest.mark.parametrize("objects, desired", [
    # maxUnavailable 1 of the ReplicaSet's 3: desired 2, counted by kwhatif.
    ([replica_set(), pod("a"), pod("b"), pod("c", ready="False"), budget({"maxUnavailable": 1})], 2),
    # A status the controller wrote is read as it is.
    ([pod("a"), budget({"minAvailable": 1}, {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1})], 1),
    # A status written by hand with only disruptionsAllowed says nothing of it.
    ([pod("a"), budget({"minAvailable": 1}, {"disruptionsAllowed": 0})], None),
])
def test_a_budgets_desired_healthy_is_kept_for_the_eviction_api(
        tmp_path: Path, objects: list[dict[str, Any]], desired: int | None) -> None:
    """eviction.go lets a pod that is not Ready go freely while currentHealthy ≥ desiredHealthy > 0."""
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [NODE, *objects]}))
    [pdb] = load_cluster([str(path)]).pdbs
    assert pdb.desired_healthy == desired
