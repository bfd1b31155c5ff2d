"""Builders for the rollout tests: a small cluster whose workloads already run, written as the
API server returns objects (so the loader reads them as it reads a dump), and manifests that
update them.

Every scenario is small enough to work out by hand: one container per pod requesting only cpu,
nodes with only cpu and pods allocatable, one priority (0), so a pod fits where its cpu fits and
preemption finds no victims (equal priority)."""

from __future__ import annotations

from typing import Any

from kwhatif.api.cluster import Cluster
from kwhatif.check import CheckResult, WorkloadSummary, run_check
from kwhatif.errors import Source
from kwhatif.load.cluster import build_cluster
from kwhatif.load.decode import decode
from kwhatif.workloads.common import Workload, decode_workload

NOW = "2026-01-01T00:00:00Z"
SOURCE = Source("test.yaml", 0, 1)


def node(name: str, cpu: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}}


def container(cpu: str, image: str, host_port: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": "app", "image": image, "resources": {"requests": {"cpu": cpu}}}
    if host_port is not None:
        out["ports"] = [{"containerPort": host_port, "hostPort": host_port, "protocol": "TCP"}]
    return out


def running(name: str, owner: tuple[str, str], node_name: str, cpu: str, image: str = "app:v1",
            labels: dict[str, str] | None = None, created: str = "2025-01-01T00:00:00Z",
            host_port: int | None = None) -> dict[str, Any]:
    """A running pod owned by `owner` (kind, name), as a dump has it (with the tolerations the
    DefaultTolerationSeconds admission plugin added)."""
    kind, owner_name = owner
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "labels": labels or {},
                         "creationTimestamp": created,
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": kind, "name": owner_name,
                                              "uid": f"uid-{owner_name}", "controller": True}]},
            "spec": {"nodeName": node_name, "containers": [container(cpu, image, host_port)],
                     "tolerations": [{"key": k, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
                                     for k in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")]},
            "status": {"phase": "Running"}}


def workload(kind: str, name: str, cpu: str, image: str, spec: dict[str, Any] | None = None,
             host_port: int | None = None) -> Workload:
    """A manifest of `kind` whose template runs one container `app` (label app=<name>, which its
    selector selects)."""
    labels = {"app": name}
    body: dict[str, Any] = {"template": {"metadata": {"labels": labels},
                                         "spec": {"containers": [container(cpu, image, host_port)]}}}
    if kind != "Job":  # a Job's selector is generated (batch validation.go:validateGeneratedSelector)
        body["selector"] = {"matchLabels": labels}
    body.update(spec or {})
    return decode_workload({"apiVersion": "apps/v1", "kind": kind,
                            "metadata": {"name": name, "namespace": "default"}, "spec": body}, SOURCE)


def cluster(*docs: dict[str, Any]) -> Cluster:
    return build_cluster([decode(doc, SOURCE) for doc in docs])


def check(state: Cluster, *objects: object, as_new: bool = False) -> CheckResult:
    return run_check(state, list(objects), NOW, as_new=as_new)


def only(result: CheckResult) -> WorkloadSummary:
    (summary,) = result.workloads
    return summary
