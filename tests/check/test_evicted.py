"""A workload's pod bound and then evicted by a later preemption of the check's run comes back as
its controller recreates it, and the workload is judged by that replacement (a ReplicaSet makes a
new pod at once; only the pod that no room is left for stays pending).

Three nodes of 2 cpu; the Deployment crit runs one 1-cpu pod on n1 (priority 0). The manifests
update crit to 2 cpu at priority 1000 (RollingUpdate: surge first) and add low, 1-cpu pods at
priority 0. The first run binds low's pods in the 5 cpu left; crit's surge pod then finds no
node with 2 cpu free and preempts one low pod; crit's old pod is deleted, freeing 1 cpu on n1,
where the evicted pod's replacement binds. Capacity 6 cpu = crit 2 + low 4: four low pods all
end bound; a fifth is the one left pending."""

from __future__ import annotations

import pytest

from kwhatif.workloads.common import decode_workload
from tests.check.conftest import SOURCE, check, cluster, container, node, running


def _deployment(name: str, cpu: str, replicas: int, priority_class: str | None = None) -> object:
    spec: dict = {"containers": [container(cpu, f"{name}:v2")]}
    if priority_class:
        spec["priorityClassName"] = priority_class
    return decode_workload({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
                            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                                     "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}}, SOURCE)


def _state():
    labels = {"app": "crit", "pod-template-hash": "h1"}
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "crit-h1", "namespace": "default"},
          "spec": {"replicas": 1, "selector": {"matchLabels": labels},
                   "template": {"metadata": {"labels": labels}, "spec": {"containers": [container("1", "crit:v1")]}}}}
    high = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000}
    return cluster(node("n1", "2"), node("n2", "2"), node("n3", "2"), high, rs,
                   running("crit-h1-a", ("ReplicaSet", "crit-h1"), "n1", "1", "crit:v1", labels=labels))


@pytest.mark.parametrize("replicas, bound, pending", [(4, 4, 0), (5, 4, 1)])
def test_a_pod_evicted_by_a_later_rollout_is_judged_by_its_replacement(replicas: int, bound: int, pending: int) -> None:
    result = check(_state(), _deployment("crit", "2", 1, "high"), _deployment("low", "1", replicas))
    crit, low = result.workloads
    assert (crit.ok, crit.bound) == (True, 1)
    assert (low.pods, low.bound, low.pending, low.ok) == (replicas, bound, pending, pending == 0)
    if pending:
        assert low.message is not None and "was evicted by a later preemption; its controller's replacement" in \
            low.message and "stays unschedulable: 0/3 nodes are available: 3 Insufficient cpu." in low.message
