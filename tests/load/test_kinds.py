"""Kinds of a cluster input that are not scheduled objects themselves: DaemonSets kept whole (for
the nodes a what-if adds) and checked in full when read; Deployments, Jobs, CronJobs, HPAs and
ControllerRevisions shown by what they made (no "ignored kinds" count, which --strict refuses) —
unless written by hand (no status: no pod of theirs is in any snapshot), or a custom kind of
the same name in another API group."""

from __future__ import annotations

from pathlib import Path

import pytest

from kwhatif.errors import InputError
from kwhatif.load.cluster import load_cluster
from tests.workloads.test_daemonset import AGENT

NODE = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '2', memory: 4Gi, pods: '110'}}\n"
DAEMONSET = AGENT.replace("EXTRA", "tolerations: TOLERATIONS")
TEMPLATE = "template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: nginx}]}}"
DEPLOYMENT = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n"
              f"spec: {{replicas: 2, selector: {{matchLabels: {{app: web}}}}, {TEMPLATE}}}\n")


def load(tmp_path: Path, *docs: str) -> tuple[object, list[str]]:
    (tmp_path / "c.yaml").write_text("---\n".join((NODE, *docs)))
    cluster = load_cluster([str(tmp_path / "c.yaml")])
    return cluster, cluster.warnings


def test_a_daemonset_is_kept_whole(tmp_path: Path) -> None:
    cluster, warnings = load(tmp_path, DAEMONSET.replace("TOLERATIONS", "[]"))
    assert list(cluster.daemonsets) == [("kube-system", "agent")]
    assert cluster.daemonsets[("kube-system", "agent")].manifest["spec"]["template"]["spec"]["tolerations"] == []
    assert warnings == []


@pytest.mark.parametrize("tolerations, message", [
    ("5", "spec.template.spec.tolerations: expected array, got an integer 5"),
    ('"abc"', 'spec.template.spec.tolerations: expected array, got a string "abc"'),
])
def test_a_bad_field_of_a_daemonset_is_an_error_of_the_load(tmp_path: Path, tolerations: str, message: str) -> None:
    with pytest.raises(InputError) as err:
        load(tmp_path, DAEMONSET.replace("TOLERATIONS", tolerations))
    assert str(err.value).endswith(f"DaemonSet/kube-system/agent: {message}")


@pytest.mark.parametrize("doc", [
    DEPLOYMENT + "status: {replicas: 2}\n",
    "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: shop}\nstatus: {succeeded: 1}\n",
    "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c, namespace: shop}\nstatus: {}\n",
    "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h, namespace: shop}\n",
    "apiVersion: apps/v1\nkind: ControllerRevision\nmetadata: {name: r, namespace: shop}\n",
], ids=["Deployment", "Job", "CronJob", "HPA", "ControllerRevision"])
def test_kinds_shown_by_what_they_made_are_skipped_without_a_word(tmp_path: Path, doc: str) -> None:
    assert load(tmp_path, doc)[1] == []


def test_a_workload_written_by_hand_is_said_to_have_made_nothing(tmp_path: Path) -> None:
    [warning] = load(tmp_path, DEPLOYMENT)[1]
    assert warning.endswith("Deployment/shop/web: a workload manifest among the cluster inputs (no status: no "
                            "controller has run it), so none of its pods is in the snapshot; give it to check, "
                            "place or explain -f to schedule them")


@pytest.mark.parametrize("kind, selector, message", [
    # A snapshot's controllers were judged by the API server (apps validation.go): one it would
    # refuse is refused, a Deployment (which is not read) too.
    ("Deployment", "{matchLabels: {app: api}}", 'spec.template.metadata.labels: Invalid value: {"app":"web"}: '
                                                "`selector` does not match template `labels`"),
    ("ReplicaSet", "{}", "spec.selector: Invalid value: {}: empty selector is invalid for deployment"),
    ("StatefulSet", "{}", "spec.selector: Invalid value: {}: empty selector is invalid for statefulset"),
    ("DaemonSet", "null", 'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match '
                          "template `labels`"),
])
def test_a_snapshots_controller_the_api_server_refuses_for_its_selector_is_refused(
        tmp_path: Path, kind: str, selector: str, message: str) -> None:
    doc = (f"apiVersion: apps/v1\nkind: {kind}\nmetadata: {{name: web, namespace: shop}}\n"
           f"spec: {{selector: {selector}, {TEMPLATE}}}\nstatus: {{replicas: 0}}\n")
    with pytest.raises(InputError) as err:
        load(tmp_path, doc)
    assert str(err.value).endswith(f"{kind}/shop/web: {message}")


def test_a_custom_kind_of_the_same_name_is_ignored_as_any_other(tmp_path: Path) -> None:
    volcano = "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: v, namespace: shop}\n"
    assert load(tmp_path, volcano)[1] == ["ignored kinds kwhatif does not read: Job (1)"]


def test_a_deployment_without_status_whose_replica_sets_run_is_not_said_to_have_made_nothing(tmp_path: Path) -> None:
    """A dump whose Deployment lost its status: its ReplicaSet (owned by it, with the Deployment
    controller's desired-replicas annotation) and pods are in the snapshot and read."""
    replica_set = ("apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: web-abc12\n  namespace: shop\n"
                   "  annotations: {deployment.kubernetes.io/desired-replicas: '2'}\n"
                   "  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: u, controller: true}]\n"
                   f"spec: {{replicas: 2, selector: {{matchLabels: {{app: web}}}}, {TEMPLATE}}}\n")
    assert load(tmp_path, DEPLOYMENT, replica_set)[1] == []
