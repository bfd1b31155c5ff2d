"""Which object a fix for a pod of the snapshot patches: a pod a controller made is changed in
the controller's pod template, never in place.

The API server refuses most changes to a pod's spec (validation.go ValidatePodUpdate: only
images, activeDeadlineSeconds and added tolerations may change), and a controller makes its pods
again from the template anyway, so a patch on the Pod would be refused or undone. A ReplicaSet a
Deployment controls is the Deployment's (the deployment controller overwrites the set's
template, or makes a new set from its own), a Job a CronJob controls the CronJob's — whether the
snapshot holds the parent or only names it (the set's ownerReference; for a set the dump lacks,
its name `<deployment>-<pod-template-hash>`); a bare pod stays the object patched."""

from __future__ import annotations

from kwhatif.api.cluster import Cluster
from kwhatif.api.objects import OwnerReference, Pod

TEMPLATED = frozenset({"ReplicaSet", "StatefulSet", "DaemonSet", "Job", "ReplicationController"})
"""The controller kinds whose pods come from their own `spec.template` (a pod another kind owns —
a static pod's Node, a custom controller — is left as it is: kwhatif knows no template there)."""
MADE_BY = {"ReplicaSet": "Deployment", "Job": "CronJob"}
"""The kinds that make a templated kind from their own pod template."""

WorkloadRef = tuple[str, str, str]  # (kind, namespace, name)


def template_owner(cluster: Cluster, pod: Pod) -> WorkloadRef | None:
    """The workload whose pod template makes `pod`: its controller, or that controller's
    Deployment (CronJob); None for a bare pod or an unknown kind."""
    ref = pod.controller_ref
    if ref is None or ref.kind not in TEMPLATED:
        return None
    parent = _controller_of(cluster, pod, ref)
    if parent is not None and parent.kind == MADE_BY.get(ref.kind):
        return parent.kind, pod.namespace, parent.name
    deployment = _deployment_by_name(cluster, pod, ref)
    if deployment is not None:
        return "Deployment", pod.namespace, deployment
    return ref.kind, pod.namespace, ref.name


HASH_LABEL = "pod-template-hash"


def _deployment_by_name(cluster: Cluster, pod: Pod, ref: OwnerReference) -> str | None:
    """A ReplicaSet the snapshot lacks, named as a Deployment names its sets
    (`<deployment>-<pod-template-hash>`, deployment util GetReplicaSetHash): that Deployment."""
    digest = pod.labels.get(HASH_LABEL)
    if ref.kind != "ReplicaSet" or not digest or not ref.name.endswith(f"-{digest}") or \
            ("ReplicaSet", pod.namespace, ref.name) in cluster.controllers:
        return None
    return ref.name[:-len(digest) - 1] or None


def _controller_of(cluster: Cluster, pod: Pod, ref: OwnerReference) -> OwnerReference | None:
    """The controller of the pod's controller (`ref`), as the snapshot's ReplicaSet or Job says."""
    if ref.kind == "Job":
        job = cluster.jobs.get((pod.namespace, ref.name))
        return job.owner if job is not None else None
    controller = cluster.controller_of(pod)
    return controller.owner if controller is not None else None
