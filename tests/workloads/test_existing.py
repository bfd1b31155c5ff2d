"""Workloads that already run: a workload's pods found through its controllers, and the replica
count it keeps when its manifest leaves spec.replicas unset."""

from __future__ import annotations

import pytest

from kwhatif.errors import InputError
from kwhatif.workloads.existing import PodIndex, exists, kept_replicas
from tests.check.conftest import cluster, running, workload
from tests.workloads.conftest import replica_set


LABELS = {"app": "web", "pod-template-hash": "h1"}


def test_a_deployments_pods_are_found_through_its_replicasets():
    state = cluster(running("web-h1-a", ("ReplicaSet", "web-h1"), "n1", "100m", labels=LABELS),
                    running("webhook-h2-a", ("ReplicaSet", "webhook-h2"), "n1", "100m",
                            labels={"app": "webhook", "pod-template-hash": "h2"}))
    found, pods = exists(state, PodIndex.of(state), workload("Deployment", "web", "100m", "app:v1"))
    assert found and [p.name for p in pods] == ["web-h1-a"]


def test_replicas_left_unset_keep_the_count_that_runs_or_zero() -> None:
    """web runs 2 pods: 2 are kept. A Deployment scaled to zero (its ReplicaSet web-h1 is there,
    with pod-template-hash h1, no pod) keeps 0; web-api-h2 is another Deployment's ReplicaSet
    (its selector's hash is h2, not "api-h2"): no evidence for `web` there. A manifest that sets
    replicas keeps its own count."""
    web = workload("Deployment", "web", "100m", "app:v1")
    running_two = cluster(running("web-h1-a", ("ReplicaSet", "web-h1"), "n1", "100m", labels=LABELS),
                          running("web-h1-b", ("ReplicaSet", "web-h1"), "n1", "100m", labels=LABELS))
    assert kept_replicas([web], running_two, PodIndex.of(running_two)) == {("Deployment", "default", "web"): 2}
    to_zero = cluster(replica_set("web-h1", "h1"))
    assert kept_replicas([web], to_zero, PodIndex.of(to_zero)) == {("Deployment", "default", "web"): 0}
    other = cluster(replica_set("web-api-h2", "h2"))
    assert kept_replicas([web], other, PodIndex.of(other)) == {}
    pinned = workload("Deployment", "web", "100m", "app:v1", {"replicas": 3})
    assert kept_replicas([pinned], running_two, PodIndex.of(running_two)) == {}


def _sized(rs: dict, replicas: int, desired: int) -> dict:
    """The ReplicaSet sized by its Deployment: spec.replicas, and the Deployment's count in the
    desired-replicas annotation (deployment/util: SetReplicasAnnotations)."""
    rs["spec"]["replicas"] = replicas
    rs["metadata"]["annotations"] = {"deployment.kubernetes.io/desired-replicas": str(desired)}
    return rs


def test_replicas_left_unset_keep_the_deployments_count_not_a_rollouts_surge() -> None:
    """A rollout in progress: web-h1 (old, 3 pods) and web-h2 (new, 1 surge pod) both sized for a
    Deployment of 3; 4 pods run, 3 are kept. web-h0, an older set scaled to 0 long ago, still
    says 5: an inactive set's annotation is stale and not read."""
    pods = [running(f"web-h1-{c}", ("ReplicaSet", "web-h1"), "n1", "100m", labels={**LABELS, "pod-template-hash": "h1"})
            for c in "abc"]
    pods.append(running("web-h2-a", ("ReplicaSet", "web-h2"), "n1", "100m", labels={**LABELS, "pod-template-hash": "h2"}))
    state = cluster(_sized(replica_set("web-h0", "h0"), 0, 5), _sized(replica_set("web-h1", "h1"), 3, 3),
                    _sized(replica_set("web-h2", "h2"), 1, 3), *pods)
    web = workload("Deployment", "web", "100m", "app:v1")
    assert kept_replicas([web], state, PodIndex.of(state)) == {("Deployment", "default", "web"): 3}


def test_replicas_left_unset_keep_a_statefulsets_spec_replicas() -> None:
    # db says 3 replicas; db-2 is gone (deleted, its replacement not made yet): 3 are kept, not 2.
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "default"},
           "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "db"}}, "serviceName": "db",
                    "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "app"}]}}}}
    state = cluster(sts, *(running(f"db-{i}", ("StatefulSet", "db"), "n1", "100m", labels={"app": "db"}) for i in range(2)))
    db = workload("StatefulSet", "db", "100m", "app:v1")
    assert kept_replicas([db], state, PodIndex.of(state)) == {("StatefulSet", "default", "db"): 3}


def test_a_deployment_scaled_to_zero_keeps_zero_whatever_its_old_sets_say() -> None:
    """web-h0 was sized for 5 long ago and scaled to 0; web-h1, the current set, for 0: no set is
    active, so web runs no replica and a manifest without replicas keeps 0."""
    state = cluster(_sized(replica_set("web-h0", "h0"), 0, 5), _sized(replica_set("web-h1", "h1"), 0, 0))
    web = workload("Deployment", "web", "100m", "app:v1")
    assert kept_replicas([web], state, PodIndex.of(state)) == {("Deployment", "default", "web"): 0}


def test_a_snapshot_pods_env_that_is_not_a_list_is_refused_naming_it() -> None:
    # ValidateEnv reads a list (the API server could not even decode a number there): one line, never a crash.
    doc = running("web-h1-a", ("ReplicaSet", "web-h1"), "n1", "100m", labels=LABELS)
    doc["spec"]["containers"][0]["env"] = 5
    with pytest.raises(InputError) as err:
        cluster(doc)
    assert (err.value.field, err.value.message) == ("spec.containers[0].env", "expected a list, got an integer 5")
