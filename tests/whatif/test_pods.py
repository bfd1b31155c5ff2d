"""Recreated pods and scaling (controller behaviour: GetPodFromTemplate, ActivePodsWithRanks,
StatefulSet ordinals)."""

from __future__ import annotations

import pytest

from kwhatif.api.cluster import Cluster
from kwhatif.api.dra import Allocation, ConsumerRef, ResourceClaim
from kwhatif.api.objects import Controller, DaemonSet, OwnerReference, Pod, RunningJob
from kwhatif.api.storage import PersistentVolumeClaim, StorageClass
from kwhatif.errors import InputError
from kwhatif.whatif import apply_operations, parse_operation
from kwhatif.whatif.pods import comes_back, recreated, remove_pods, taken_names
from kwhatif.whatif.scale import parse_scale, scale
from tests.builders import make_pod

NOW = "2026-01-01T00:00:00Z"


def of(kind: str, owner: str, name: str, **kw: object) -> Pod:
    return make_pod(name, owner_references=(OwnerReference("apps/v1", kind, owner, controller=True),), **kw)


def test_a_replicaset_pod_comes_back_pending_with_a_new_generated_name() -> None:
    old = of("ReplicaSet", "web-abc12", "web-abc12-aaaaa", node_name="n1", phase="Running",
             creation_timestamp="2025-01-01T00:00:00Z", nominated_node_name="n1")
    new = recreated(old, NOW, taken_names(Cluster(pods=[old]), "default"), "t")
    assert new.name.startswith("web-abc12-") and len(new.name) == len("web-abc12-") + 5 and new.name != old.name
    assert (new.node_name, new.phase, new.nominated_node_name, new.creation_timestamp) == ("", "Pending", "", NOW)
    assert new.owner_references == old.owner_references and new.containers == old.containers


def test_a_recreated_pod_names_no_generated_claim_of_the_pod_it_replaces() -> None:
    # status.resourceClaimStatuses names the gone pod's own claims (owned by its UID): the new pod
    # gets its own from the template, or DynamicResources would find it "not owner".
    old = of("ReplicaSet", "web-abc12", "web-abc12-aaaaa", node_name="n1",
             resource_claims=({"name": "gpu", "resourceClaimTemplateName": "tmpl"},),
             resource_claim_statuses=(("gpu", "web-abc12-aaaaa-gpu-x7k2q"),))
    new = recreated(old, NOW, taken_names(Cluster(pods=[old]), "default"), "t")
    assert (new.resource_claims, new.resource_claim_statuses) == (old.resource_claims, ())


def test_a_statefulset_pod_keeps_its_name() -> None:
    old = of("StatefulSet", "db", "db-1", node_name="n1")
    assert recreated(old, NOW, taken_names(Cluster(), "default"), "t").name == "db-1"


def test_an_indexed_jobs_pod_comes_back_with_its_index_in_its_name() -> None:
    # job_controller.go podGenerateNameWithIndex: `<job>-<index>-` then five random characters.
    old = of("Job", "extract", "extract-4-abcde", node_name="n1", labels={"batch.kubernetes.io/job-completion-index": "4"})
    new = recreated(old, NOW, taken_names(Cluster(pods=[old]), "default"), "t")
    assert new.name.startswith("extract-4-") and len(new.name) == len("extract-4-") + 5 and new.name != old.name


def test_only_controller_pods_are_recreated_at_the_end_of_the_queue() -> None:
    bare, owned, pending = make_pod("bare", node_name="n1"), of("ReplicaSet", "rs", "rs-aaaaa", node_name="n1"), \
        make_pod("waiting")
    cluster = Cluster(pods=[bare, owned, pending])
    new = remove_pods(cluster, [bare, owned], NOW, "t")
    assert [p.name for p in cluster.pods] == ["waiting", new[0].name] and new[0].name.startswith("rs-")


def test_a_terminating_pod_is_not_recreated() -> None:
    """Its ReplicaSet stopped counting it when it was deleted (controller_utils.go FilterActivePods)
    and has created its replacement already: losing it changes nothing else."""
    leaving = of("ReplicaSet", "rs", "rs-aaaaa", node_name="n1", deletion_timestamp="2025-12-31T23:59:00Z")
    running = of("ReplicaSet", "rs", "rs-bbbbb", node_name="n1")
    cluster = Cluster(pods=[leaving, running])
    new = remove_pods(cluster, [leaving, running], NOW, "t")
    assert len(new) == 1 and new[0].name.startswith("rs-") and cluster.pods == new


def test_new_names_avoid_the_names_of_the_pods_that_went() -> None:
    """A pod being deleted keeps its name until it is gone, and its replacement is created
    meanwhile: the generated name must not be the old one's, even when the generator's first
    draw is that very name (`existing` holds it)."""
    mine = of("ReplicaSet", "rs", "rs-bbbbb", node_name="n1")
    first = recreated(mine, NOW, taken_names(Cluster(), "default"), "t").name  # its generator's first draw
    other = of("ReplicaSet", "other", first, node_name="n1")  # a pod that went with it had that name
    cluster = Cluster(pods=[other, mine])
    new = remove_pods(cluster, [other, mine], NOW, "t")
    assert [p.name.startswith(prefix) for p, prefix in zip(new, ("other-", "rs-"))] == [True, True]
    assert new[1].name != first


def test_statefulset_scales_by_ordinals() -> None:
    pods = [of("StatefulSet", "db", f"db-{i}", node_name="n1", phase="Running") for i in range(3)]
    cluster = Cluster(pods=list(pods), controllers={("StatefulSet", "default", "db"): Controller("StatefulSet", "default", "db")})
    summary, gone, new = scale(cluster, "StatefulSet/default/db=5", NOW)
    assert summary == "scale StatefulSet/default/db from 3 to 5" and gone == []
    assert [p.name for p in new] == ["db-3", "db-4"] and all(not p.node_name for p in new)
    _, gone, _ = scale(cluster, "StatefulSet/default/db=1", NOW)
    assert [p.name for p in gone] == ["db-4", "db-3", "db-2", "db-1"]


def test_a_statefulset_scaled_up_gives_each_new_replica_its_own_identity_and_claim() -> None:
    """stateful_set_utils.go newStatefulSetPod: updateIdentity (name, pod-name and pod-index
    labels) and updateStorage (`<template>-<set>-<ordinal>`, created by the controller, unbound) —
    a copy of db-0 named db-1 kept db-0's labels and mounted data-db-0, bound on db-0's node. A
    volume that is no claim template's (a ConfigMap, a shared claim) stays as it is."""
    volumes = ({"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}},
               {"name": "shared", "persistentVolumeClaim": {"claimName": "shared"}})
    db0 = of("StatefulSet", "db", "db-0", node_name="n1", phase="Running", volumes=volumes,
             labels={"app": "db", "statefulset.kubernetes.io/pod-name": "db-0", "apps.kubernetes.io/pod-index": "0"})
    bound = PersistentVolumeClaim("default", "data-db-0", uid="u0", volume_name="pv1", phase="Bound",
                                  creation_timestamp="2025-01-01T00:00:00Z", storage_class_name="local",
                                  annotations={"pv.kubernetes.io/bind-completed": "yes", "team": "db"})
    cluster = Cluster(pods=[db0], pvcs={("default", "data-db-0"): bound},
                      controllers={("StatefulSet", "default", "db"): Controller("StatefulSet", "default", "db")})
    _, _, [db1] = scale(cluster, "StatefulSet/default/db=2", NOW)
    assert db1.labels == {"app": "db", "statefulset.kubernetes.io/pod-name": "db-1", "apps.kubernetes.io/pod-index": "1"}
    assert [v["persistentVolumeClaim"]["claimName"] for v in db1.volumes] == ["data-db-1", "shared"]
    claim = cluster.pvcs[("default", "data-db-1")]
    assert (claim.volume_name, claim.phase, claim.creation_timestamp, claim.storage_class_name) == ("", "Pending", "",
                                                                                                   "local")
    assert claim.annotations == {"team": "db"}


def test_a_new_replicas_claim_on_an_immediate_class_that_provisions_is_bound_at_once() -> None:
    """pv_controller.go syncUnboundClaim: the claim the controller makes for db-1, of an Immediate
    class whose provisioner creates volumes, gets its volume `pvc-<uid>` before db-1 is scheduled
    (a WaitForFirstConsumer class would leave it to VolumeBinding)."""
    db0 = of("StatefulSet", "db", "db-0", node_name="n1", phase="Running",
             volumes=({"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}},))
    bound = PersistentVolumeClaim("default", "data-db-0", uid="u0", volume_name="pv1", phase="Bound",
                                  storage_class_name="rbd", annotations={"pv.kubernetes.io/bind-completed": "yes"})
    cluster = Cluster(pods=[db0], pvcs={("default", "data-db-0"): bound},
                      storage_classes={"rbd": StorageClass("rbd", "rook-ceph.rbd.csi.ceph.com", "Immediate")},
                      controllers={("StatefulSet", "default", "db"): Controller("StatefulSet", "default", "db")})
    scale(cluster, "StatefulSet/default/db=2", NOW)
    claim = cluster.pvcs[("default", "data-db-1")]
    assert (claim.phase, claim.volume_name) == ("Bound", f"pvc-{claim.uid}")
    assert cluster.pvs[claim.volume_name].claim_ref.name == "data-db-1"


def test_a_replicaset_scale_counts_neither_terminating_nor_finished_pods() -> None:
    """replica_set.go manageReplicas works on FilterActivePods: a pod being deleted is no longer
    a replica (the controller has made its replacement), so 3 live pods scaled to 3 change
    nothing, and to 4 make one."""
    pods = [of("ReplicaSet", "web", f"web-{c}", node_name="n1", phase="Running") for c in "abc"]
    pods += [of("ReplicaSet", "web", "web-old", node_name="n1", phase="Running", deletion_timestamp=NOW),
             of("ReplicaSet", "web", "web-done", node_name="n1", phase="Succeeded")]
    controllers = {("ReplicaSet", "default", "web"): Controller("ReplicaSet", "default", "web")}
    summary, gone, new = scale(Cluster(pods=list(pods), controllers=dict(controllers)), "rs/default/web=3", NOW)
    assert (summary, gone, new) == ("scale ReplicaSet/default/web from 3 to 3", [], [])
    summary, gone, new = scale(Cluster(pods=list(pods), controllers=dict(controllers)), "rs/default/web=4", NOW)
    assert summary.endswith("from 3 to 4") and gone == [] and len(new) == 1


def test_a_gone_pods_claims_are_released_and_one_nobody_reserves_is_deallocated() -> None:
    """resourceclaim controller.go syncClaim: a deleted pod's reservation is dropped; a claim left
    without any is deallocated (its devices free for the replacement, wherever it lands); one
    another pod still reserves keeps its allocation."""
    user, other = of("ReplicaSet", "w-abc", "w-abc-1", node_name="n1"), make_pod("other", node_name="n1")
    granted = Allocation(())
    alone = ResourceClaim("default", "held", allocation=granted, reserved_for=(ConsumerRef("pods", "w-abc-1", ""),))
    shared = ResourceClaim("default", "shared", allocation=granted, reserved_for=(
        ConsumerRef("pods", "w-abc-1", ""), ConsumerRef("pods", "other", "")))
    cluster = Cluster(pods=[user, other], resource_claims={("default", "held"): alone, ("default", "shared"): shared})
    remove_pods(cluster, [user], NOW, "t")
    held, kept = cluster.resource_claims[("default", "held")], cluster.resource_claims[("default", "shared")]
    assert (held.allocation, held.reserved_for) == (None, ())
    assert (kept.allocation, kept.reserved_for) == (granted, (ConsumerRef("pods", "other", ""),))


def agents(*names: str) -> dict[tuple[str, str], DaemonSet]:
    """The snapshot's DaemonSets (kube-system), by (namespace, name)."""
    return {("kube-system", name): DaemonSet("kube-system", name, {}) for name in names}


@pytest.mark.parametrize("pod, daemonsets, back", [
    (of("ReplicaSet", "rs", "rs-aaaaa", node_name="n1"), agents(), True),
    (make_pod("bare", node_name="n1"), agents(), False),
    (of("DaemonSet", "agent", "agent-1", ns="kube-system", node_name="n1"), agents("agent"), True),
    (of("DaemonSet", "agent", "agent-1", ns="kube-system", node_name="n1"), agents(), True),
    (of("DaemonSet", "agent", "agent-1", ns="kube-system", node_name="n1"), agents("logger"), False),
], ids=[
    "a ReplicaSet's pod comes back",
    "a bare pod does not",
    "a DaemonSet's pod comes back from its DaemonSet",
    "a dump without DaemonSet objects cannot tell: its pod is taken as its DaemonSet's",
    "a DaemonSet's pod whose DaemonSet the snapshot lacks while listing others does not",
])
def test_what_comes_back_when_it_goes(pod: Pod, daemonsets: dict[tuple[str, str], DaemonSet], back: bool) -> None:
    assert comes_back(Cluster(daemonsets=daemonsets), pod) is back


def test_delete_pod_of_a_daemonset_pod_whose_daemonset_is_gone_says_nothing_recreates_it() -> None:
    """As `--drain --force` deletes it for good: its DaemonSet controller is gone with the DaemonSet."""
    ghost = of("DaemonSet", "ghost", "ghost-1", ns="kube-system", node_name="n2")
    done = apply_operations(Cluster(pods=[ghost], daemonsets=agents("logger")),
                            [parse_operation("delete-pod", ["kube-system/ghost-1"])], NOW)
    (applied,) = done.applied
    assert (done.cluster.pods, applied.removed, applied.created) == ([], ("kube-system/ghost-1",), ())
    assert applied.summary == ("delete-pod kube-system/ghost-1: not recreated, its DaemonSet kube-system/ghost is "
                               "not in the snapshot")


def test_delete_pod_reports_the_pod_it_removed_its_replacement_and_its_node() -> None:
    owned = of("ReplicaSet", "web-abc", "web-abc-3", node_name="n2")
    done = apply_operations(Cluster(pods=[owned]), [parse_operation("delete-pod", ["default/web-abc-3"])], NOW)
    (applied,) = done.applied
    (new,) = done.cluster.pods
    assert (applied.nodes, applied.removed, applied.created) == (("n2",), ("default/web-abc-3",), (new.key,))


@pytest.mark.parametrize("text, kind", [
    ("ReplicaSet/shop/web=3", "ReplicaSet"), ("replicaset/shop/web=3", "ReplicaSet"), ("rs/shop/web=3", "ReplicaSet"),
    ("sts/shop/web=3", "StatefulSet"), ("rc/shop/web=3", "ReplicationController"), ("deploy/shop/web=3", "Deployment"),
    ("deployment.apps/shop/web=3", "Deployment"), ("ReplicaSet.apps/shop/web=3", "ReplicaSet"),
])
def test_scale_takes_the_kind_names_kubectl_takes(text: str, kind: str) -> None:
    assert parse_scale(text) == (kind, "shop", "web", 3)


def test_a_scale_beyond_the_limit_is_refused() -> None:
    with pytest.raises(InputError, match="at most 1,000,000 pods a workload"):
        parse_scale("ReplicaSet/shop/web=99999999999999999999")
    assert parse_scale("rs/shop/web=1000000") == ("ReplicaSet", "shop", "web", 1_000_000)


@pytest.mark.parametrize("failures_left, gone, comes_back", [
    (0, 1, False),    # backoffLimit 0, none failed: the deletion is its one failure too many
    (1, 1, True),     # one failure left: the pod is replaced
    (1, 2, False),    # two of its pods at once (a drained node): 2 > 1, the Job fails
    (None, 2, True),  # a podFailurePolicy decides which failures count: left as it was
])
def test_a_jobs_pod_comes_back_only_within_its_backoff_limit(failures_left, gone, comes_back) -> None:
    """job_controller.go isPodFailed counts a deleted pod as failed; failed > backoffLimit fails
    the Job (BackoffLimitExceeded): no pod is made. The Job keeps the count for the next operation."""
    pods = [of("Job", "x", f"x-{c}", node_name="n1", phase="Running") for c in "ab"[:gone]]
    job = RunningJob("default", "x", None, 2, False, failures_left=failures_left)
    cluster = Cluster(pods=list(pods), jobs={("default", "x"): job})
    new = remove_pods(cluster, pods, NOW, "t")
    assert (len(new) == gone) is comes_back and (not new) is not comes_back
    left = cluster.jobs[("default", "x")]
    assert left.failures_left == (None if failures_left is None else failures_left - gone)
    assert left.finished is (not comes_back)


def test_a_replicaset_scaled_down_ranks_by_the_pods_of_every_replicaset_of_its_deployment() -> None:
    """replica_set.go getIndirectlyRelatedPods: web-h1 and web-h2 both belong to Deployment web;
    n2 holds 3 of their pods (web-h1-b, web-h2-c, web-h2-d), n1 one (web-h1-a). More related pods
    on a node rank a pod first, before age: web-h1-b goes, though web-h1-a is younger (by its own
    pods alone, one a node, the younger went)."""
    web = OwnerReference("apps/v1", "Deployment", "web", controller=True)
    controllers = {("ReplicaSet", "default", n): Controller("ReplicaSet", "default", n, owner=web)
                   for n in ("web-h1", "web-h2")}
    pods = [of("ReplicaSet", "web-h1", "web-h1-a", node_name="n1", phase="Running",
               creation_timestamp="2025-12-31T00:00:00Z"),
            of("ReplicaSet", "web-h1", "web-h1-b", node_name="n2", phase="Running",
               creation_timestamp="2025-01-01T00:00:00Z"),
            *[of("ReplicaSet", "web-h2", f"web-h2-{c}", node_name="n2", phase="Running") for c in "cd"]]
    cluster = Cluster(pods=list(pods), controllers=controllers)
    _, gone, _ = scale(cluster, "ReplicaSet/default/web-h1=1", NOW)
    assert [p.name for p in gone] == ["web-h1-b"]
