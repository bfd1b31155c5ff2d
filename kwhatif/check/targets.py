"""Which pod stands for a workload (`kwhatif explain deploy/shop/frontend`): the first of its pods
that does not fit, or else its first replica. Its pods are those the files to place create for
it, or those it owns in the snapshot.

A workload reference has three parts, KIND/NAMESPACE/NAME, with kubectl's kind names and short
names (`deploy`, `sts`, `ds`, `rs`, `rc`, `job`, `cj`); NAMESPACE/NAME stays a pod's key."""

from __future__ import annotations

from collections.abc import Sequence

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import Pod
from kwhatif.config.profile import ProfileConfig
from kwhatif.errors import InputError
from kwhatif.engine import simulate
from kwhatif.framework.scheduler import Outcome
from kwhatif.workloads.existing import PodIndex
from kwhatif.workloads.common import Workload

KIND_NAMES: dict[str, str] = {
    **{alias: "Deployment" for alias in ("deploy", "deployment", "deployments")},
    **{alias: "StatefulSet" for alias in ("sts", "statefulset", "statefulsets")},
    **{alias: "DaemonSet" for alias in ("ds", "daemonset", "daemonsets")},
    **{alias: "ReplicaSet" for alias in ("rs", "replicaset", "replicasets")},
    **{alias: "ReplicationController" for alias in ("rc", "replicationcontroller", "replicationcontrollers")},
    **{alias: "Job" for alias in ("job", "jobs")},
    **{alias: "CronJob" for alias in ("cj", "cronjob", "cronjobs")},
}


POD_KIND_NAMES = frozenset({"pod", "pods", "po"})


def kubectl_ref(ref: str, namespace: str | None) -> str:
    """kubectl's ways of naming a pod or a workload, as NAMESPACE/NAME or KIND/NAMESPACE/NAME:
    NAME and KIND/NAME in `namespace` (-n, else default), `pod/...` as the pod itself."""
    parts = ref.split("/")
    kind = parts[0].lower()
    if len(parts) == 1:
        return f"{namespace or 'default'}/{ref}"
    if len(parts) == 2 and (kind in POD_KIND_NAMES or kind in KIND_NAMES):
        parts = [parts[0], namespace or "default", parts[1]]
    if len(parts) == 3 and kind in POD_KIND_NAMES:
        return f"{parts[1]}/{parts[2]}"
    if len(parts) > 2 and kind not in KIND_NAMES:  # a pod's key has two parts: the first names a kind
        shortest = {kind_name: min((a for a, k in KIND_NAMES.items() if k == kind_name), key=len)
                    for kind_name in KIND_NAMES.values()}
        known = ", ".join(["pod", *shortest.values()])
        raise InputError(f"{ref}: unknown kind {parts[0]!r} (KIND/NAMESPACE/NAME takes kubectl's names: {known}, "
                         "or the full names)")
    return "/".join(parts)


def workload_ref(ref: str) -> tuple[str, str, str] | None:
    """(kind, namespace, name) of `KIND/NAMESPACE/NAME`, or None for anything else."""
    parts = ref.split("/")
    if len(parts) != 3 or parts[0].lower() not in KIND_NAMES or not all(parts[1:]):
        return None
    return KIND_NAMES[parts[0].lower()], parts[1], parts[2]


def _owned(pod: Pod, kind: str, name: str) -> bool:
    """A pod the files create for the workload: owned by it, or (a Deployment's, a CronJob's) by
    the ReplicaSet or Job named after it."""
    ref = pod.controller_ref
    if ref is None:
        return False
    if ref.kind == kind and ref.name == name:
        return True
    via = {"Deployment": "ReplicaSet", "CronJob": "Job"}.get(kind)
    return ref.kind == via and ref.name.startswith(f"{name}-")


def workload_pods(cluster: Cluster, new_pods: Sequence[Pod], ref: tuple[str, str, str]) -> list[Pod]:
    """The workload's pods among the pods to place, else among the snapshot's."""
    kind, namespace, name = ref
    placed = [p for p in new_pods if p.namespace == namespace and _owned(p, kind, name)]
    if placed:
        return placed
    return PodIndex.of(cluster).pods_of(Workload(kind, "", namespace, name, "", {}))


def pod_for_workload(cluster: Cluster, now: str, new_pods: Sequence[Pod], ref: tuple[str, str, str],
                     profiles: Sequence[ProfileConfig] | None) -> str | None:
    """The key of the first of the workload's pods left pending in a run of the queue, else of its
    first pod; None when it has none."""
    pods = workload_pods(cluster, new_pods, ref)
    if not pods:
        return None
    keys = {p.key for p in pods}
    sim = simulate(cluster, now, new_pods=new_pods, profiles=profiles)
    pending = next((r.pod.key for r in sim.results if r.pod.key in keys and r.outcome != Outcome.BOUND), None)
    return pending or pods[0].key
