"""Pods that go, and the pods their controllers create in their place.

A controller-owned pod that is evicted or deleted is replaced by a new pending pod from the same
spec, without nodeName or status and with its owner references kept, the way the controller
would create it (controller.GetPodFromTemplate): a ReplicaSet, Job or ReplicationController pod
gets a new generated name `<owner>-<5 chars>`, a StatefulSet pod keeps its name (ordinal). Its
`spec.priority` is left for admission to set from its priorityClassName again, as for any pod a
controller creates from its template. A pod no controller owns is simply gone."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence

from kwhatif.api.cluster import Cluster
from kwhatif.api.dra import released_claims
from kwhatif.api.objects import Pod
from kwhatif.load.disruption import health_changed
from kwhatif.workloads.common import NameSet, deterministic_uid
from kwhatif.workloads.job import completion_index

DAEMONSET = "DaemonSet"
STATEFULSET = "StatefulSet"
MIRROR_ANNOTATION = "kubernetes.io/config.mirror"  # corev1.MirrorPodAnnotationKey
FINISHED = ("Succeeded", "Failed")


def is_finished(pod: Pod) -> bool:
    return pod.phase in FINISHED


def is_mirror(pod: Pod) -> bool:
    """A static pod's mirror: the kubelet owns it, the API cannot delete it for good."""
    return MIRROR_ANNOTATION in pod.annotations


def owner_kind(pod: Pod) -> str | None:
    ref = pod.controller_ref
    return ref.kind if ref is not None else None


def pinned_node(pod: Pod) -> str:
    """The node a pod is bound to or, a DaemonSet's pod not bound yet, the node its controller
    pinned it to (`matchFields metadata.name In [node]`, its only required term); else ''."""
    if pod.node_name or owner_kind(pod) != DAEMONSET:
        return pod.node_name
    required = pod.affinity.node_affinity.required if pod.affinity and pod.affinity.node_affinity else None
    terms = required.terms if required is not None else ()
    if len(terms) == 1 and len(terms[0].match_fields) == 1 and not terms[0].match_expressions:
        field = terms[0].match_fields[0]
        if field.key == "metadata.name" and field.operator == "In" and len(field.values) == 1:
            return str(field.values[0])
    return ""


def is_replaced(pod: Pod) -> bool:
    """Whether a controller creates a new pod when this one goes: not a finished one (it stays
    done), nor one already terminating (its controller stopped counting it when it was deleted
    and has replaced it already: controller_utils.go FilterActivePods)."""
    return pod.controller_ref is not None and not is_finished(pod) and pod.deletion_timestamp is None


def daemonset_gone(pod: Pod, daemonsets: Collection[tuple[str, str]]) -> bool:
    """Whether `pod` is a running DaemonSet pod whose DaemonSet is not among `daemonsets` (the
    snapshot's (namespace, name)s) while the snapshot lists some: a dump without DaemonSet objects
    cannot tell, and its DaemonSet pods are taken as their DaemonSets'. Nothing recreates such a
    pod once it goes, and kubectl drain's daemonSetFilter finds its DaemonSet NotFound."""
    ref = pod.controller_ref
    return (bool(daemonsets) and ref is not None and ref.kind == DAEMONSET and not is_finished(pod)
            and (pod.namespace, ref.name) not in daemonsets)


def comes_back(cluster: Cluster, pod: Pod) -> bool:
    """Whether a controller creates a new pod when `pod` goes, however it goes (drain, delete,
    taint eviction...): it is `is_replaced`, and its controller is there to do it — not a
    DaemonSet's pod whose DaemonSet the snapshot lacks (`daemonset_gone`), nor a pod of a Job that
    is finished (complete, failed — its going may have made it fail: `within_backoff` —, managed
    elsewhere)."""
    return is_replaced(pod) and not daemonset_gone(pod, cluster.daemonsets) and not _job_finished(cluster, pod)


def _job_finished(cluster: Cluster, pod: Pod) -> bool:
    ref = pod.controller_ref
    job = cluster.jobs.get((pod.namespace, ref.name)) if ref is not None and ref.kind == "Job" else None
    return job is not None and job.finished


Names = dict[str, set[str]]
"""Pod names per namespace."""


def taken_names(cluster: Cluster, namespace: str) -> NameSet:
    """The generated-name set of a namespace, with every existing pod name taken."""
    return NameSet(pod_names(cluster.pods, {namespace}).get(namespace, set()))


def pod_names(pods: Sequence[Pod], namespaces: set[str] | None = None) -> Names:
    """The pods' names per namespace (of `namespaces` only, when given), in one pass."""
    out: Names = {}
    for pod in pods:
        if namespaces is None or pod.namespace in namespaces:
            out.setdefault(pod.namespace, set()).add(pod.name)
    return out


def recreated(pod: Pod, now: str, names: NameSet, seed: str, name: str | None = None) -> Pod:
    """The pending pod the controller of `pod` creates in its place (see the module docstring);
    `name` overrides the controller's choice (a StatefulSet scaled up takes new ordinals)."""
    ref = pod.controller_ref
    assert ref is not None, "only controller-owned pods are recreated"
    if name is None:
        index = completion_index(pod) if ref.kind == "Job" else None  # an Indexed Job's: <job>-<index>-<random>
        prefix = f"{ref.name}-" if index is None else f"{ref.name}-{index}-"
        name = pod.name if ref.kind == STATEFULSET else names.generate(prefix, f"{pod.uid or pod.key}/{seed}")
    names.taken.add(name)
    return pod.evolve(name=name, uid=deterministic_uid("Pod", pod.namespace, name), node_name="",
                      nominated_node_name="", priority=None, phase="Pending", start_time=None, conditions=(),
                      container_statuses=(), init_container_statuses=(), creation_timestamp=now,
                      deletion_timestamp=None, resource_claim_statuses=())  # its claims are made anew


def remove_pods(cluster: Cluster, gone: Sequence[Pod], now: str, seed: str,
                replace: bool = True) -> list[Pod]:
    """Take `gone` out of the cluster; with `replace`, those that `comes_back` come back (`recreate`).
    Their budgets count them gone (`health_changed`). Returns the new pods."""
    if not replace:
        _take_out(cluster, gone)
        return []
    return [new for _, new in replaced_pods(cluster, gone, now, seed)]


def replaced_pods(cluster: Cluster, gone: Sequence[Pod], now: str, seed: str) -> list[tuple[Pod, Pod]]:
    """`remove_pods` with replacement, each new pod beside the pod it replaces (those that do not
    come back have none)."""
    existing = pod_names(cluster.pods, {p.namespace for p in gone})
    _take_out(cluster, gone)
    return recreate_pairs(cluster, gone, now, seed, existing)


def _take_out(cluster: Cluster, gone: Sequence[Pod]) -> None:
    ids = {id(p) for p in gone}
    cluster.pods = [p for p in cluster.pods if id(p) not in ids]
    release_claims(cluster, gone)
    health_changed(cluster, gone, -1)


def release_claims(cluster: Cluster, gone: Sequence[Pod]) -> None:
    """What the resourceclaim controller does once pods are gone (controller.go syncClaim): their
    reservations are dropped from the ResourceClaims they used, and a claim no pod reserves any
    more is deallocated — its devices free for the pods that replace them, wherever they land."""
    cluster.resource_claims.update(released_claims(cluster.resource_claims, gone))


def within_backoff(cluster: Cluster, replaced: list[Pod]) -> list[Pod]:
    """`replaced` less the pods of a Job that their going makes fail: each deleted pod is a
    failure (job_controller.go isPodFailed), and a Job with more failures than its backoffLimit
    fails (BackoffLimitExceeded) and creates no pod. The Job keeps the count for the next
    operation of the run (`RunningJob.failures_left`); one that fails is finished."""
    gone_by_job: dict[tuple[str, str], int] = {}
    for pod in replaced:
        ref = pod.controller_ref
        if ref is not None and ref.kind == "Job":
            gone_by_job[(pod.namespace, ref.name)] = gone_by_job.get((pod.namespace, ref.name), 0) + 1
    failed = set()
    for key, count in gone_by_job.items():
        job = cluster.jobs.get(key)
        if job is None or job.failures_left is None:
            continue
        left = job.failures_left - count
        cluster.jobs[key] = dataclasses.replace(job, failures_left=left, finished=job.finished or left < 0)
        if left < 0:
            failed.add(key)
    return [p for p in replaced if p.controller_ref is None or p.controller_ref.kind != "Job"
            or (p.namespace, p.controller_ref.name) not in failed]


def recreate(cluster: Cluster, gone: Sequence[Pod], now: str, seed: str, existing: Names) -> list[Pod]:
    """The pods that the controllers of `gone` (those that `comes_back`) create in their place, added
    as new pending pods at the end of the queue, in the order they went. Returns them. Their
    names avoid `existing` — the names of the pods there were, those that went included: a pod
    being deleted keeps its name until it is gone, and its replacement is made meanwhile."""
    return [new for _, new in recreate_pairs(cluster, gone, now, seed, existing)]


def recreate_pairs(cluster: Cluster, gone: Sequence[Pod], now: str, seed: str, existing: Names
                   ) -> list[tuple[Pod, Pod]]:
    """`recreate`, each new pod beside the pod of `gone` it replaces."""
    replaced = within_backoff(cluster, [p for p in gone if comes_back(cluster, p)])
    pools = {namespace: NameSet(existing.get(namespace, set())) for namespace in {p.namespace for p in replaced}}
    pairs = [(pod, recreated(pod, now, pools[pod.namespace], seed)) for pod in replaced]
    cluster.pods.extend(new for _, new in pairs)
    return pairs
