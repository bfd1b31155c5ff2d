"""Which object a fix for a pod of the snapshot patches: a pod a controller made is changed in
the controller's pod template, never in place.

The API server refuses most changes to a pod's spec (validation.go ValidatePodUpdate: only
images, activeDeadlineSeconds and added tolerations may change), and a controller makes its pods
again from the template anyway, so a patch on the Pod would be refused or undone. A ReplicaSet a
Deployment of the snapshot controls is the Deployment's (the deployment controller overwrites the
set's template), a Job a CronJob controls the CronJob's; a bare pod stays the object patched."""

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
    Deployment (CronJob) when the snapshot has it; None for a bare pod or an unknown kind."""
    ref = pod.controller_ref
    if ref is None or ref.kind not in TEMPLATED:
        return None
    parent = _controller_of(cluster, pod, ref)
    if (parent is not None and parent.kind == MADE_BY.get(ref.kind)
            and (parent.kind, pod.namespace, parent.name) in cluster.template_owners):
        return parent.kind, pod.namespace, parent.name
    return ref.kind, pod.namespace, ref.name


def _controller_of(cluster: Cluster, pod: Pod, ref: OwnerReference) -> OwnerReference | None:
    """The controller of the pod's controller (`ref`), as the snapshot's ReplicaSet or Job says."""
    if ref.kind == "Job":
        job = cluster.jobs.get((pod.namespace, ref.name))
        return job.owner if job is not None else None
    controller = cluster.controller_of(pod)
    return controller.owner if controller is not None else None
